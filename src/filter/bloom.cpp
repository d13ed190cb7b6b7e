// The classic Bloom filter, the sizing math and the pieces every kind shares.
#include "ringbloom/filter/bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "bloom_internal.hpp"
#include "name_table.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {

// --- kinds -------------------------------------------------------------------

namespace {

constexpr detail::name_table<filter_kind, 8> kind_table = {{
    {filter_kind::classic, "classic"},
    {filter_kind::blocked, "blocked"},
    {filter_kind::counting, "counting"},
    {filter_kind::scalable, "scalable"},
    {filter_kind::fuse8, "fuse8"},
    {filter_kind::fuse16, "fuse16"},
    {filter_kind::blocked64, "blocked64"},
    {filter_kind::blocked1024, "blocked1024"},
}};

}  // namespace

std::string_view filter_kind_name(filter_kind kind) noexcept {
  return detail::name_of(kind_table, kind);
}

std::optional<filter_kind> find_filter_kind(std::string_view name) noexcept {
  return detail::value_named(kind_table, name);
}

filter_kind parse_filter_kind(std::string_view name) {
  if (auto kind = find_filter_kind(name)) return *kind;
  throw std::invalid_argument(
      fmt::format("unknown filter kind '{}'; use one of blocked (the default), classic, counting, "
                  "scalable, blocked64, blocked1024, fuse8, fuse16",
                  name));
}

std::optional<filter_kind> filter_kind_from_code(std::uint8_t code) noexcept {
  return detail::value_with_code(kind_table, code);
}

// --- bloom_math --------------------------------------------------------------

double bloom_math::classic_fpr(double n, double m, double k) noexcept {
  if (n <= 0) return 0.0;
  // (1 - e^(-kn/m))^k = exp(k * ln(1 - e^(-kn/m))); log1p keeps precision
  // when e^(-kn/m) is close to 1 (nearly empty filters, tiny rates).
  return std::exp(k * std::log1p(-std::exp(-k * n / m)));
}

std::uint32_t bloom_math::optimal_hashes(double m, double n) noexcept {
  if (n <= 0) return max_filter_hashes;
  const double k = std::round(m / n * std::numbers::ln2);
  return static_cast<std::uint32_t>(std::clamp(k, 1.0, static_cast<double>(max_filter_hashes)));
}

namespace {

void check_n_p(std::uint64_t n, double p) {
  if (n == 0) {
    throw std::invalid_argument(
        "the capacity must be at least 1 item; give the number of distinct items the filter "
        "should hold");
  }
  if (!(p > 0.0 && p < 1.0)) {
    throw std::invalid_argument(fmt::format(
        "the false-positive rate must be between 0 and 1 (exclusive), got {}; for 1% give 0.01",
        p));
  }
}

[[noreturn]] void throw_too_large(std::uint64_t n, double p, double bits) {
  throw std::invalid_argument(fmt::format(
      "a filter for {} items at a false-positive rate of {} would need {:.3g} bits, more than the "
      "limit of {} (128 GiB); lower the capacity or raise the rate",
      n, p, bits, max_filter_bits));
}

}  // namespace

filter_size bloom_math::classic_size_for(std::uint64_t n, double p) {
  check_n_p(n, p);
  const double nd = static_cast<double>(n);
  double best_m = std::numeric_limits<double>::infinity();
  std::uint32_t best_k = 1;
  for (std::uint32_t k = 1; k <= max_filter_hashes; ++k) {
    // Solve (1 - e^(-kn/m))^k = p for m: e^(-kn/m) = 1 - p^(1/k).
    const double m = std::ceil(-static_cast<double>(k) * nd /
                               std::log1p(-std::pow(p, 1.0 / static_cast<double>(k))));
    if (m < best_m) {
      best_m = m;
      best_k = k;
    }
  }
  if (!(best_m <= static_cast<double>(max_filter_bits))) throw_too_large(n, p, best_m);
  return {std::max<std::uint64_t>(1, static_cast<std::uint64_t>(best_m)), best_k};
}

std::uint64_t bloom_math::classic_capacity_for(std::uint64_t m, std::uint32_t k,
                                               double p) noexcept {
  if (m == 0 || k == 0 || !(p > 0.0 && p < 1.0)) return 1;
  const double n = -static_cast<double>(m) / k * std::log1p(-std::pow(p, 1.0 / k));
  if (!(n >= 1.0)) return 1;
  if (n >= 1.8e19) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(std::floor(n));
}

namespace {

// The weights w_j of the exact in-block rate (see blocked_fpr):
//   P(maybe | t bits thrown into the block) = sum_{j=0..k} w_j (1 - j/B)^t.
// A stranger's k positions are k uniform draws from the B bits; with d
// distinct ones (probability S(k,d) B!/(B-d)! / B^k, S the Stirling numbers
// of the second kind), inclusion-exclusion gives the chance that all d bits
// were hit by t throws: sum_j (-1)^j C(d,j) (1 - j/B)^t. Summing over d
// collects, for each j, w_j = (-1)^j sum_{d>=j} P(d distinct) C(d,j).
// long double: the w_j alternate in sign and reach about 1e4 for k = 16, so
// the sum loses about 4 of its 19 digits.
std::vector<long double> blocked_rate_weights(std::uint32_t k, std::uint64_t block_bits) {
  const long double bits = static_cast<long double>(block_bits);
  // stirling[d] = S(k, d), built row by row.
  std::vector<long double> stirling(k + 1, 0.0L);
  stirling[0] = 1.0L;
  for (std::uint32_t row = 1; row <= k; ++row) {
    for (std::uint32_t d = row; d >= 1; --d) {
      stirling[d] = static_cast<long double>(d) * stirling[d] + stirling[d - 1];
    }
    stirling[0] = 0.0L;
  }
  std::vector<long double> distinct(k + 1, 0.0L);  // P(d distinct positions)
  long double falling = 1.0L;                      // B (B-1) ... (B-d+1) / B^d
  for (std::uint32_t d = 1; d <= k; ++d) {
    falling *= (bits - static_cast<long double>(d - 1)) / bits;
    distinct[d] = stirling[d] * falling / std::pow(bits, static_cast<long double>(k - d));
  }
  std::vector<long double> weights(k + 1, 0.0L);
  for (std::uint32_t j = 0; j <= k; ++j) {
    long double sum = 0.0L;
    long double binomial = 1.0L;  // C(d, j), starting at d = j
    for (std::uint32_t d = j; d <= k; ++d) {
      if (d > j)
        binomial = binomial * static_cast<long double>(d) / static_cast<long double>(d - j);
      sum += distinct[d] * binomial;
    }
    weights[j] = (j % 2 == 0) ? sum : -sum;
  }
  return weights;
}

}  // namespace

double bloom_math::blocked_fpr(double n, std::uint64_t m, std::uint32_t k,
                               std::uint64_t block_bits) noexcept {
  if (n <= 0 || block_bits == 0 || m < block_bits || k == 0) return n <= 0 ? 0.0 : 1.0;
  const double blocks = static_cast<double>(m / block_bits);
  const double lambda = n / blocks;  // mean items per block
  const std::vector<long double> weights = blocked_rate_weights(k, block_bits);
  const long double bits = static_cast<long double>(block_bits);
  // With i items in its block, t = k i bits were thrown into it.
  auto inner = [&](double i) {
    const long double t = static_cast<long double>(k) * static_cast<long double>(i);
    long double sum = 0.0L;
    for (std::uint32_t j = 0; j <= k; ++j) {
      sum += weights[j] * std::exp(t * std::log1p(-static_cast<long double>(j) / bits));
    }
    return std::clamp(static_cast<double>(sum), 0.0, 1.0);
  };
  // Poisson(lambda) terms over lambda +- (12 sd + 30): the mass left out is
  // far below 1e-12. Very full filters are concentrated at lambda.
  const double spread = 12.0 * std::sqrt(lambda) + 30.0;
  if (spread > 1e5) return inner(lambda);
  const double lo = std::max(0.0, std::floor(lambda - spread));
  const double hi = std::ceil(lambda + spread);
  double sum = 0.0;
  for (double i = lo; i <= hi; i += 1.0) {
    const double log_pmf = -lambda + i * std::log(lambda) - std::lgamma(i + 1.0);
    sum += std::exp(log_pmf) * inner(i);
  }
  return std::min(sum, 1.0);
}

filter_size bloom_math::blocked_size_for(std::uint64_t n, double p, std::uint64_t block_bits) {
  if (block_bits == 0 || block_bits % 64 != 0 || block_bits > 65536) {
    throw std::invalid_argument(
        fmt::format("a block of {} bits is not a whole number of 64-bit words between 64 and "
                    "65536; use 512 (blocked, blocked64) or 1024 (blocked1024)",
                    block_bits));
  }
  check_n_p(n, p);
  if (p < blocked_min_fpr) {
    const filter_size classic = classic_size_for(n, p);  // throws when even that is too large
    throw std::invalid_argument(fmt::format(
        "a blocked filter reaches false-positive rates down to {:g} only, not {:g}; use the "
        "classic kind, which reaches it with {} bits and {} hashes for a capacity of {}",
        blocked_min_fpr, p, classic.bits, classic.hashes, n));
  }
  const double nd = static_cast<double>(n);
  const std::uint64_t max_blocks = max_filter_bits / block_bits;
  std::uint64_t best_blocks = 0;
  std::uint32_t best_k = 1;
  for (std::uint32_t k = 1; k <= max_blocked_hashes; ++k) {
    auto fpr = [&](std::uint64_t blocks) {
      return blocked_fpr(nd, blocks * block_bits, k, block_bits);
    };
    // Exponential search for an upper bound, then bisection (the rate falls
    // as blocks are added).
    std::uint64_t hi = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(nd * 8.0 / static_cast<double>(block_bits)));
    while (fpr(hi) > p) {
      if (hi >= max_blocks) break;
      hi = std::min(max_blocks, hi * 2);
    }
    if (fpr(hi) > p) continue;  // this k cannot reach p within the limit
    std::uint64_t lo = 0;       // fpr(lo) > p or lo == 0 (no filter)
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fpr(mid) <= p) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    if (best_blocks == 0 || hi < best_blocks) {
      best_blocks = hi;
      best_k = k;
    }
  }
  if (best_blocks == 0) {
    throw_too_large(n, p, static_cast<double>(max_filter_bits) * 2.0);
  }
  return {best_blocks * block_bits, best_k};
}

double bloom_math::estimate_items(double m, double k, double bits_set) noexcept {
  if (bits_set <= 0) return 0.0;
  if (bits_set >= m) return std::numeric_limits<double>::infinity();
  return -(m / k) * std::log1p(-bits_set / m);
}

double bloom_math::scalable_layer_fpr(double p, double r, std::uint32_t i) noexcept {
  return p * (1.0 - r) * std::pow(r, static_cast<double>(i));
}

// --- shared helpers ----------------------------------------------------------

namespace detail {

namespace {

template <class Error>
void check_filter(std::string_view what, std::uint64_t bits, std::uint32_t hashes,
                  std::uint32_t max_hashes, hash_kind hash, std::uint64_t seed) {
  if (bits == 0 || bits > max_filter_bits) {
    throw Error(fmt::format(
        "{} needs between 1 and {} bits, got {}; give a positive size within the limit, or size "
        "the filter from a capacity and a false-positive rate",
        what, max_filter_bits, bits));
  }
  if (hashes == 0 || hashes > max_hashes) {
    throw Error(fmt::format(
        "{} takes between 1 and {} hashes per item, got {}; about 7 suit a 1% false-positive "
        "rate",
        what, max_hashes, hashes));
  }
  if (!hash_from_code(static_cast<std::uint8_t>(hash))) {
    throw Error(fmt::format("{} has an unknown hash code {}; use xxh3, sha256, md5 or poly31", what,
                            static_cast<unsigned>(hash)));
  }
  if (hash != hash_kind::xxh3 && seed != 0) {
    throw Error(fmt::format(
        "the seed {} is only used by the xxh3 hash, not by {}; use seed 0 with {}, or xxh3", seed,
        hash_name(hash), hash_name(hash)));
  }
}

}  // namespace

void check_filter_args(std::string_view what, std::uint64_t bits, std::uint32_t hashes,
                       std::uint32_t max_hashes, hash_kind hash, std::uint64_t seed) {
  check_filter<std::invalid_argument>(what, bits, hashes, max_hashes, hash, seed);
}

void check_filter_data(std::string_view what, std::uint64_t bits, std::uint32_t hashes,
                       std::uint32_t max_hashes, hash_kind hash, std::uint64_t seed) {
  check_filter<data_error>(what, bits, hashes, max_hashes, hash, seed);
}

void check_word_count(std::string_view what, std::uint64_t size, std::string_view unit,
                      std::size_t expected, std::size_t given) {
  if (given != expected) {
    throw data_error(fmt::format("{} of {} {} has {} words, but {} were given; the data is corrupt",
                                 what, size, unit, expected, given));
  }
}

void check_tail_clear(std::string_view what, std::string_view unit, std::uint64_t last_word,
                      unsigned used_bits) {
  if (used_bits != 0 && (last_word >> used_bits) != 0) {
    throw data_error(
        fmt::format("{} has {} set beyond its size; the data is corrupt, restore it from a backup "
                    "or recreate the filter",
                    what, unit));
  }
}

void throw_incompatible(std::string_view operation, const std::string& why) {
  throw std::invalid_argument(fmt::format(
      "cannot {} incompatible filters: {}; only filters of the same kind, size, number of "
      "hashes, hash and seed can be combined, so create them with the same options",
      operation, why));
}

void throw_answer_span_too_small(std::size_t items, std::size_t answers) {
  throw std::invalid_argument(fmt::format(
      "may_contain_many was given {} items but room for only {} answers; pass an output span "
      "with at least one bool per item",
      items, answers));
}

std::uint64_t count_ones(const std::uint64_t* words, std::size_t count) noexcept {
  std::uint64_t ones = 0;
  for (std::size_t i = 0; i < count; ++i)
    ones += static_cast<std::uint64_t>(std::popcount(words[i]));
  return ones;
}

std::uint64_t* word_store::mutable_data() {
  if (read_only()) {
    throw std::logic_error(
        "this filter is a read-only view of a mapped file; load it with load_filter to change it");
  }
  return owned_.data();
}

word_store word_store::owned_copy() const {
  word_store copy(size());
  std::copy(data(), data() + size(), copy.owned_.data());
  return copy;
}

// --- filter_core ---------------------------------------------------------------

bool filter_core::same_shape(const filter_core& other, std::string* why) const {
  std::string reason;
  if (bits_ != other.bits_) {
    reason = fmt::format("the first has {} bits and the second {}", bits_, other.bits_);
  } else if (hashes_ != other.hashes_) {
    reason =
        fmt::format("the first uses {} hashes per item and the second {}", hashes_, other.hashes_);
  } else if (hash_ != other.hash_) {
    reason = fmt::format("the first uses the {} hash and the second {}", hash_name(hash_),
                         hash_name(other.hash_));
  } else if (seed_ != other.seed_) {
    reason = fmt::format("the first has seed {} and the second {}", seed_, other.seed_);
  } else {
    return true;
  }
  if (why != nullptr) *why = std::move(reason);
  return false;
}

void filter_core::require_same_shape(const filter_core& other, std::string_view operation) const {
  std::string why;
  if (!same_shape(other, &why)) throw_incompatible(operation, why);
}

void filter_core::clear_words() {
  std::uint64_t* w = words_.mutable_data();
  std::fill(w, w + words_.size(), std::uint64_t{0});
  items_ = 0;
}

filter_stats filter_core::stats_from(filter_kind kind, std::uint64_t bits_set) const {
  filter_stats s;
  s.kind = kind;
  s.hash = hash_;
  s.seed = seed_;
  s.bits = bits_;
  s.hashes = hashes_;
  s.layers = 1;
  s.items_added = items_;
  s.bits_set = bits_set;
  s.fill_ratio = static_cast<double>(bits_set) / static_cast<double>(bits_);
  // Given the bits, a stranger's k positions are (nearly) independent and
  // uniform, so it passes with probability fill^k.
  s.expected_fpr = std::pow(s.fill_ratio, static_cast<double>(hashes_));
  s.estimated_items = bloom_math::estimate_items(static_cast<double>(bits_), hashes_,
                                                 static_cast<double>(bits_set));
  s.memory_bytes = words_.size() * sizeof(std::uint64_t);
  return s;
}

bool filter_core::same_value(const filter_core& other) const noexcept {
  if (bits_ != other.bits_ || hashes_ != other.hashes_ || hash_ != other.hash_ ||
      seed_ != other.seed_ || items_ != other.items_) {
    return false;
  }
  const auto wa = words();
  const auto wb = other.words();
  return std::equal(wa.begin(), wa.end(), wb.begin(), wb.end());
}

void filter_core::assign(std::uint64_t bits, std::uint32_t hashes, hash_kind hash,
                         std::uint64_t seed, std::uint64_t items, word_store words) noexcept {
  bits_ = bits;
  hashes_ = hashes;
  hash_ = hash;
  seed_ = seed;
  items_ = items;
  words_ = std::move(words);
}

}  // namespace detail

// --- bloom_filter --------------------------------------------------------------

namespace {

constexpr std::string_view classic_what = "a classic Bloom filter";

std::size_t classic_words(std::uint64_t bits) { return static_cast<std::size_t>((bits + 63) / 64); }

}  // namespace

bloom_filter::bloom_filter(std::uint64_t bits, std::uint32_t hashes, hash_kind hash,
                           std::uint64_t seed)
    : filter_core(bits, hashes, hash, seed) {
  detail::check_filter_args(classic_what, bits, hashes, max_filter_hashes, hash, seed);
  words_ = detail::word_store(classic_words(bits));
}

bloom_filter bloom_filter::for_capacity(std::uint64_t capacity, double fpr, hash_kind hash,
                                        std::uint64_t seed) {
  const filter_size size = bloom_math::classic_size_for(capacity, fpr);
  return bloom_filter(size.bits, size.hashes, hash, seed);
}

template <class Fn>
void bloom_filter::for_each_position(std::string_view item, Fn&& fn) const {
  detail::classic_positions(hash_, seed_, bits_, hashes_, item, std::forward<Fn>(fn));
}

void bloom_filter::add(std::string_view item) {
  std::uint64_t* w = words_.mutable_data();
  for_each_position(item, [w](std::uint64_t p) {
    w[p >> 6] |= std::uint64_t{1} << (p & 63);
    return true;
  });
  ++items_;
}

void bloom_filter::add_concurrent(std::string_view item) {
  std::uint64_t* w = words_.mutable_data();
  for_each_position(item, [w](std::uint64_t p) {
    std::atomic_ref<std::uint64_t>(w[p >> 6]).fetch_or(std::uint64_t{1} << (p & 63),
                                                       std::memory_order_relaxed);
    return true;
  });
  std::atomic_ref<std::uint64_t>(items_).fetch_add(1, std::memory_order_relaxed);
}

void bloom_filter::add_hash(const hash128& h) {
  if (hash_ != hash_kind::xxh3) {
    throw std::logic_error("add_hash needs a filter that uses the xxh3 hash; call add instead");
  }
  std::uint64_t* w = words_.mutable_data();
  detail::classic_positions_from_hash(h, bits_, hashes_, [w](std::uint64_t p) {
    w[p >> 6] |= std::uint64_t{1} << (p & 63);
    return true;
  });
  ++items_;
}

bool bloom_filter::may_contain(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, item, [w](std::uint64_t p) {
    return ((w[p >> 6] >> (p & 63)) & 1) != 0;
  });
}

bool bloom_filter::may_contain_hash(const hash128& h) const noexcept {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions_from_hash(
      h, bits_, hashes_, [w](std::uint64_t p) { return ((w[p >> 6] >> (p & 63)) & 1) != 0; });
}

bool bloom_filter::may_contain_concurrent(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, item, [w](std::uint64_t p) {
    return ((detail::atomic_load(w[p >> 6]) >> (p & 63)) & 1) != 0;
  });
}

std::vector<std::uint64_t> bloom_filter::positions(std::string_view item) const {
  std::vector<std::uint64_t> out;
  out.reserve(hashes_);
  for_each_position(item, [&out](std::uint64_t p) {
    out.push_back(p);
    return true;
  });
  return out;
}

std::vector<bit_probe> bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  out.reserve(hashes_);
  for_each_position(item, [&](std::uint64_t p) {
    out.push_back({0, p, bit(p) ? 1U : 0U});
    return true;
  });
  return out;
}

bool bloom_filter::bit(std::uint64_t position) const noexcept { return bit_at(position); }

bool bloom_filter::compatible_with(const bloom_filter& other, std::string* why) const {
  return same_shape(other, why);
}

void bloom_filter::merge(const bloom_filter& other) { merge_words(other, std::bit_or<>{}); }

void bloom_filter::intersect(const bloom_filter& other) {
  intersect_words(other, std::bit_and<>{});
}

void bloom_filter::clear() { clear_words(); }

double bloom_filter::estimated_items() const noexcept {
  return bloom_math::estimate_items(
      static_cast<double>(bits_), hashes_,
      static_cast<double>(detail::count_ones(words_.data(), words_.size())));
}

filter_stats bloom_filter::stats() const {
  return stats_from(filter_kind::classic, detail::count_ones(words_.data(), words_.size()));
}

bloom_filter bloom_filter::from_words(std::uint64_t bits, std::uint32_t hashes, hash_kind hash,
                                      std::uint64_t seed, std::uint64_t items,
                                      detail::word_store words) {
  detail::check_filter_data(classic_what, bits, hashes, max_filter_hashes, hash, seed);
  detail::check_word_count("a classic filter", bits, "bits", classic_words(bits), words.size());
  detail::check_tail_clear("a classic filter", "bits", words.data()[words.size() - 1],
                           static_cast<unsigned>(bits % 64));
  bloom_filter f;
  f.assign(bits, hashes, hash, seed, items, std::move(words));
  return f;
}

bool operator==(const bloom_filter& a, const bloom_filter& b) noexcept { return a.same_value(b); }

}  // namespace ringbloom
