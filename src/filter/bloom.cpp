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
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {

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
  } else if (rule_ != other.rule_ && hash_ == hash_kind::xxh3) {
    reason = fmt::format(
        "the first places its items by {} and the second by {} (a file before format version 3 "
        "keeps its old rule; recreate it and add its items again to combine it with a new one)",
        position_rule_name(rule_), position_rule_name(other.rule_));
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
      seed_ != other.seed_ || items_ != other.items_ ||
      (rule_ != other.rule_ && hash_ == hash_kind::xxh3)) {
    return false;
  }
  const auto wa = words();
  const auto wb = other.words();
  return std::equal(wa.begin(), wa.end(), wb.begin(), wb.end());
}

void filter_core::assign(std::uint64_t bits, std::uint32_t hashes, hash_kind hash,
                         std::uint64_t seed, std::uint64_t items, word_store words,
                         position_rule rule) noexcept {
  rule_ = rule;
  bits_ = bits;
  hashes_ = hashes;
  hash_ = hash;
  seed_ = seed;
  items_ = items;
  words_ = std::move(words);
}

}  // namespace detail

std::string_view position_rule_name(position_rule rule) noexcept {
  return rule == position_rule::mixed ? "mixed double hashing"
                                      : "double hashing (files before version 3)";
}

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
  detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, std::forward<Fn>(fn));
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
  detail::classic_positions_from_hash(h, bits_, hashes_, rule_, [w](std::uint64_t p) {
    w[p >> 6] |= std::uint64_t{1} << (p & 63);
    return true;
  });
  ++items_;
}

bool bloom_filter::may_contain(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [w](std::uint64_t p) {
    return ((w[p >> 6] >> (p & 63)) & 1) != 0;
  });
}

bool bloom_filter::may_contain_hash(const hash128& h) const noexcept {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions_from_hash(h, bits_, hashes_, rule_, [w](std::uint64_t p) {
    return ((w[p >> 6] >> (p & 63)) & 1) != 0;
  });
}

bool bloom_filter::may_contain_concurrent(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [w](std::uint64_t p) {
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
                                      detail::word_store words, position_rule rule) {
  detail::check_filter_data(classic_what, bits, hashes, max_filter_hashes, hash, seed);
  detail::check_word_count("a classic filter", bits, "bits", classic_words(bits), words.size());
  detail::check_tail_clear("a classic filter", "bits", words.data()[words.size() - 1],
                           static_cast<unsigned>(bits % 64));
  bloom_filter f;
  f.assign(bits, hashes, hash, seed, items, std::move(words), rule);
  return f;
}

bool operator==(const bloom_filter& a, const bloom_filter& b) noexcept { return a.same_value(b); }

}  // namespace ringbloom
