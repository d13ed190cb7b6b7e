// The windowed Bloom filter (include/ringbloom/filter/windowed_bloom.hpp):
// sizing, generations, probes, and the file member "\x89RBW".
#include "ringbloom/filter/windowed_bloom.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

namespace {

constexpr std::uint32_t max_hashes = 16;
constexpr std::uint32_t gens = windowed_math::generations;
constexpr std::size_t seg_words = windowed_bloom_filter::segment_words;
constexpr std::size_t sb_words = windowed_bloom_filter::superblock_words;

/// Position (0..383) of bit j inside a 384-bit segment: the blocked kinds'
/// 32-bit multiply-shift (detail::block_multipliers), mapped onto 384 values
/// by Lemire's multiply-shift ((u * 384) >> 32) since 384 is not a power of 2.
inline std::uint32_t segment_position(std::uint64_t h2, std::uint32_t j) noexcept {
  const auto half = static_cast<std::uint32_t>(j < 8 ? h2 : h2 >> 32);
  const auto u = static_cast<std::uint32_t>(half * detail::block_multipliers[j]);
  return static_cast<std::uint32_t>((std::uint64_t{u} * windowed_math::segment_bits) >> 32);
}

/// The 6-word mask of an item's k bits in a segment (the same in every
/// segment of its super-block).
inline std::array<std::uint64_t, seg_words> segment_mask(std::uint64_t x,
                                                         std::uint32_t k) noexcept {
  const std::uint64_t h2 = x * detail::blocked64_mixer;
  std::array<std::uint64_t, seg_words> mask{};
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t p = segment_position(h2, j);
    mask[p >> 6] |= std::uint64_t{1} << (p & 63);
  }
  return mask;
}

inline bool covers(const std::uint64_t* seg, const std::array<std::uint64_t, seg_words>& m) {
  std::uint64_t miss = 0;
  for (std::size_t w = 0; w < seg_words; ++w) miss |= m[w] & ~seg[w];
  return miss == 0;
}

inline unsigned slot_of(std::int64_t gen) noexcept {
  return static_cast<unsigned>(static_cast<std::uint64_t>(gen) % gens);
}

void check_fpr(double fpr) {
  if (!(fpr >= blocked_min_fpr && fpr < 1)) {
    throw std::invalid_argument(
        "the false-positive rate of a windowed filter must be at least 1e-12 and below 1, not " +
        std::to_string(fpr) + "; pass a rate such as 0.01");
  }
}

}  // namespace

// --- sizing -------------------------------------------------------------------

std::uint64_t windowed_math::generation_items(std::uint64_t window_items) noexcept {
  return window_items / (gens - 1) + (window_items % (gens - 1) != 0 ? 1 : 0);
}

double windowed_math::fpr(double items_per_generation, std::uint64_t superblocks,
                          std::uint32_t k) noexcept {
  const double f =
      bloom_math::blocked_fpr(items_per_generation, superblocks * segment_bits, k, segment_bits);
  return -std::expm1(gens * std::log1p(-f));
}

windowed_math::size windowed_math::size_for(std::uint64_t window_items, double p) {
  if (window_items == 0) {
    throw std::invalid_argument(
        "a windowed filter needs a capacity of at least 1 item per window; pass the number of "
        "items one window holds");
  }
  check_fpr(p);
  const auto g = static_cast<double>(generation_items(window_items));
  const std::uint64_t max_blocks = max_filter_bits / superblock_bits;
  // The smallest B in [1, hi] with fpr(g, B, k) <= p, given fpr(g, hi, k) <= p
  // (the rate falls as super-blocks are added).
  const auto smallest = [&](std::uint32_t k, std::uint64_t hi) {
    std::uint64_t lo = 1;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fpr(g, mid, k) <= p)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  };
  // The smallest B over every k, ties to the smaller k. One full search at
  // the k near the optimum for a segment rate of p / 4 (each of the four
  // segments gets a quarter of the rate), then each other k needs one rate
  // to show whether it can do better (fewer super-blocks, or as few with
  // fewer hashes) and a search below the best only when it can: the result
  // of a full search at every k, with a fraction of the rate evaluations
  // (each a Poisson sum of long-double exponentials).
  const auto guess = static_cast<std::uint32_t>(
      std::clamp(std::llround(std::log2(4.0 / p)), 1LL, static_cast<long long>(max_hashes)));
  size best;
  for (std::uint32_t i = 0; i < max_hashes; ++i) {
    const std::uint32_t k = i == 0 ? guess : (i < guess ? i : i + 1);
    if (best.hashes == 0) {
      if (fpr(g, max_blocks, k) <= p) best = {smallest(k, max_blocks), k};
    } else if (best.superblocks > 1 && fpr(g, best.superblocks - 1, k) <= p) {
      best = {smallest(k, best.superblocks - 1), k};
    } else if (k < best.hashes && fpr(g, best.superblocks, k) <= p) {
      best.hashes = k;
    }
  }
  if (best.hashes == 0) {
    throw std::invalid_argument("a windowed filter for " + std::to_string(window_items) +
                                " items per window at rate " + std::to_string(p) +
                                " would need more than 2^40 bits; lower the capacity or raise "
                                "the rate");
  }
  return best;
}

// --- construction -------------------------------------------------------------

windowed_bloom_filter windowed_bloom_filter::make(window_kind kind, double window,
                                                  std::uint64_t capacity, double fpr,
                                                  std::uint64_t seed) {
  const auto sz = windowed_math::size_for(capacity, fpr);
  windowed_bloom_filter f;
  f.kind_ = kind;
  f.window_ = window;
  f.generation_seconds_ = kind == window_kind::time ? window / (gens - 1) : 0;
  f.capacity_ = capacity;
  f.target_fpr_ = fpr;
  f.seed_ = seed;
  f.hashes_ = sz.hashes;
  f.superblocks_ = sz.superblocks;
  f.generation_items_ = windowed_math::generation_items(capacity);
  f.words_.assign(sz.superblocks * sb_words, 0);
  return f;
}

windowed_bloom_filter windowed_bloom_filter::for_time(double window_seconds,
                                                      std::uint64_t items_per_window, double fpr,
                                                      std::uint64_t seed) {
  if (!(std::isfinite(window_seconds) && window_seconds > 0)) {
    throw std::invalid_argument(
        "the window of a windowed filter must be a finite number of seconds above 0, not " +
        std::to_string(window_seconds) + "; pass e.g. 3600 for an hour");
  }
  return make(window_kind::time, window_seconds, items_per_window, fpr, seed);
}

windowed_bloom_filter windowed_bloom_filter::for_count(std::uint64_t window_items, double fpr,
                                                       std::uint64_t seed) {
  if (window_items == 0) {
    throw std::invalid_argument(
        "a count window must hold at least 1 item; pass the number of recent insertions to "
        "remember");
  }
  return make(window_kind::count, static_cast<double>(window_items), window_items, fpr, seed);
}

// --- generations --------------------------------------------------------------

void windowed_bloom_filter::require_kind(window_kind wanted, const char* call) const {
  if (kind_ == wanted) return;
  if (wanted == window_kind::time) {
    throw std::invalid_argument(std::string(call) +
                                " with a time is for time windows; this filter has a count "
                                "window, so call it without a time");
  }
  throw std::invalid_argument(std::string(call) +
                              " without a time is for count windows; this filter has a time "
                              "window, so pass the time of the call in seconds");
}

std::int64_t windowed_bloom_filter::generation_at(double now, const char* what) const {
  if (!std::isfinite(now)) {
    throw std::invalid_argument(std::string("the time of ") + what +
                                " must be a finite number of seconds, not " + std::to_string(now) +
                                "; pass the time of the event");
  }
  if (added_ > 0 && now < latest_time_ - window_) {
    throw std::invalid_argument(
        std::string("the time of ") + what + " (" + std::to_string(now) +
        ") is more than one window (" + std::to_string(window_) +
        " s) before the latest time the filter has seen (" + std::to_string(latest_time_) +
        "); a windowed filter accepts times out of order by at most one window");
  }
  const double g = std::floor(now / generation_seconds_);
  // |g| below 2^62 keeps slot arithmetic and the +-3 ranges exact.
  if (!(std::fabs(g) < 4.0e18)) {
    throw std::invalid_argument(std::string("the time of ") + what + " (" + std::to_string(now) +
                                ") is too far from 0 for this window; pass Unix seconds");
  }
  const auto gen = static_cast<std::int64_t>(g);
  if (added_ > 0 && gen < latest_gen_ - static_cast<std::int64_t>(gens - 1)) {
    // Rounding at a generation boundary: the generation has already been cleared.
    throw std::invalid_argument(std::string("the time of ") + what + " (" + std::to_string(now) +
                                ") falls in a generation the filter has already forgotten; a "
                                "windowed filter accepts times out of order by at most one "
                                "window");
  }
  return gen;
}

std::int64_t windowed_bloom_filter::count_generation() const noexcept {
  return static_cast<std::int64_t>(added_ / generation_items_);
}

void windowed_bloom_filter::advance_to(std::int64_t gen) {
  if (added_ == 0) {
    latest_gen_ = gen;
    return;
  }
  if (gen <= latest_gen_) return;
  const std::int64_t steps = gen - latest_gen_;
  unsigned clear = 0;
  if (steps >= static_cast<std::int64_t>(gens)) {
    clear = (1u << gens) - 1;
  } else {
    for (std::int64_t e = latest_gen_ + 1; e <= gen; ++e) clear |= 1u << slot_of(e);
  }
  if (clear == (1u << gens) - 1) {
    std::fill(words_.begin(), words_.end(), 0);
  } else {
    for (std::uint64_t b = 0; b < superblocks_; ++b) {
      std::uint64_t* sb = words_.data() + b * sb_words;
      for (unsigned s = 0; s < gens; ++s) {
        if ((clear >> s) & 1u) std::memset(sb + s * seg_words, 0, seg_words * 8);
      }
    }
  }
  for (unsigned s = 0; s < gens; ++s) {
    if ((clear >> s) & 1u) segment_items_[s] = 0;
  }
  latest_gen_ = gen;
}

unsigned windowed_bloom_filter::live_mask(std::int64_t gen) const noexcept {
  if (added_ == 0) return 0;
  std::int64_t lo = latest_gen_ - (gens - 1);
  if (gen > latest_gen_) lo = std::max(lo, gen - static_cast<std::int64_t>(gens - 1));
  unsigned mask = 0;
  for (std::int64_t e = lo; e <= latest_gen_; ++e) mask |= 1u << slot_of(e);
  return mask;
}

std::int64_t windowed_bloom_filter::query_generation(double now) const {
  return kind_ == window_kind::time ? generation_at(now, "the query") : latest_gen_;
}

// --- probes ----------------------------------------------------------------------

std::uint64_t windowed_bloom_filter::hash_item(std::string_view item) const noexcept {
  return XXH3_64bits_withSeed(item.data(), item.size(), seed_);
}

void windowed_bloom_filter::insert(std::uint64_t x, std::int64_t gen) noexcept {
  const unsigned s = slot_of(gen);
  std::uint64_t* seg =
      words_.data() + detail::fastrange64(x, superblocks_) * sb_words + s * seg_words;
  const auto mask = segment_mask(x, hashes_);
  for (std::size_t w = 0; w < seg_words; ++w) seg[w] |= mask[w];
  ++segment_items_[s];
}

bool windowed_bloom_filter::probe(std::uint64_t x, unsigned live) const noexcept {
  if (live == 0) return false;
  const std::uint64_t* sb = words_.data() + detail::fastrange64(x, superblocks_) * sb_words;
  const auto mask = segment_mask(x, hashes_);
  // Every segment tested, without a branch per segment: members and
  // strangers alternate unpredictably, and the four tests are 24 and-nots.
  unsigned hit = 0;
  for (unsigned s = 0; s < gens; ++s) {
    hit |= static_cast<unsigned>(covers(sb + s * seg_words, mask)) << s;
  }
  return (hit & live) != 0;
}

void windowed_bloom_filter::add_hash(std::uint64_t x, double now) {
  std::int64_t gen = 0;
  if (kind_ == window_kind::time) {
    gen = generation_at(now, "the add");
    if (added_ == 0 || gen > latest_gen_) advance_to(gen);
    if (added_ == 0 || now > latest_time_) latest_time_ = now;
  } else {
    gen = count_generation();
    advance_to(gen);
  }
  insert(x, gen);
  ++added_;
}

bool windowed_bloom_filter::may_contain_hash(std::uint64_t x, double now) const {
  return probe(x, live_mask(query_generation(now)));
}

void windowed_bloom_filter::add(std::string_view item, double now) {
  require_kind(window_kind::time, "add");
  add_hash(hash_item(item), now);
}

bool windowed_bloom_filter::may_contain(std::string_view item, double now) const {
  require_kind(window_kind::time, "may_contain");
  return may_contain_hash(hash_item(item), now);
}

bool windowed_bloom_filter::test_and_add(std::string_view item, double now) {
  require_kind(window_kind::time, "test_and_add");
  const std::uint64_t x = hash_item(item);
  const bool seen = may_contain_hash(x, now);
  add_hash(x, now);
  return seen;
}

void windowed_bloom_filter::add(std::string_view item) {
  require_kind(window_kind::count, "add");
  add_hash(hash_item(item), 0);
}

bool windowed_bloom_filter::may_contain(std::string_view item) const {
  require_kind(window_kind::count, "may_contain");
  return may_contain_hash(hash_item(item), 0);
}

bool windowed_bloom_filter::test_and_add(std::string_view item) {
  require_kind(window_kind::count, "test_and_add");
  const std::uint64_t x = hash_item(item);
  const bool seen = may_contain_hash(x, 0);
  add_hash(x, 0);
  return seen;
}

// --- batches ---------------------------------------------------------------------

namespace {
constexpr std::size_t batch_chunk = 64;

inline void prefetch_superblock(const std::uint64_t* sb) noexcept {
  __builtin_prefetch(sb);
  __builtin_prefetch(sb + 8);
  __builtin_prefetch(sb + 16);
}
}  // namespace

void windowed_bloom_filter::add_many(std::span<const std::string_view> items, double now) {
  if (items.empty()) return;
  std::array<std::uint64_t, batch_chunk> xs{};
  if (kind_ == window_kind::time) {
    // One time for the batch: its generation is found (and the array
    // advanced) once, as the first add_hash would; the rest only insert.
    const std::int64_t gen = generation_at(now, "the add");
    if (added_ == 0 || gen > latest_gen_) advance_to(gen);
    if (added_ == 0 || now > latest_time_) latest_time_ = now;
    for (std::size_t start = 0; start < items.size(); start += batch_chunk) {
      const std::size_t n = std::min(batch_chunk, items.size() - start);
      for (std::size_t i = 0; i < n; ++i) {
        xs[i] = hash_item(items[start + i]);
        prefetch_superblock(words_.data() + detail::fastrange64(xs[i], superblocks_) * sb_words);
      }
      for (std::size_t i = 0; i < n; ++i) insert(xs[i], gen);
      added_ += n;
    }
    return;
  }
  for (std::size_t start = 0; start < items.size(); start += batch_chunk) {
    const std::size_t n = std::min(batch_chunk, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = hash_item(items[start + i]);
      prefetch_superblock(words_.data() + detail::fastrange64(xs[i], superblocks_) * sb_words);
    }
    for (std::size_t i = 0; i < n; ++i) add_hash(xs[i], now);
  }
}

std::size_t windowed_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                    double now, std::span<bool> out) const {
  if (out.size() < items.size()) {
    throw std::invalid_argument("may_contain_many needs an answer slot for every item (" +
                                std::to_string(items.size()) + " items, " +
                                std::to_string(out.size()) + " slots); pass a larger span");
  }
  const unsigned live = live_mask(query_generation(now));
  std::size_t found = 0;
  std::array<std::uint64_t, batch_chunk> xs{};
  for (std::size_t start = 0; start < items.size(); start += batch_chunk) {
    const std::size_t n = std::min(batch_chunk, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = hash_item(items[start + i]);
      prefetch_superblock(words_.data() + detail::fastrange64(xs[i], superblocks_) * sb_words);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const bool r = probe(xs[i], live);
      out[start + i] = r;
      found += r ? 1 : 0;
    }
  }
  return found;
}

std::size_t windowed_bloom_filter::test_and_add_many(std::span<const std::string_view> items,
                                                     std::span<const double> times,
                                                     std::span<bool> seen) {
  if (seen.size() < items.size() || (kind_ == window_kind::time && times.size() < items.size())) {
    throw std::invalid_argument("test_and_add_many needs an answer slot" +
                                std::string(kind_ == window_kind::time ? " and a time" : "") +
                                " for every item (" + std::to_string(items.size()) +
                                " items); pass spans as long as the items");
  }
  std::size_t found = 0;
  std::array<std::uint64_t, batch_chunk> xs{};
  for (std::size_t start = 0; start < items.size(); start += batch_chunk) {
    const std::size_t n = std::min(batch_chunk, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = hash_item(items[start + i]);
      prefetch_superblock(words_.data() + detail::fastrange64(xs[i], superblocks_) * sb_words);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double now = kind_ == window_kind::time ? times[start + i] : 0;
      const bool r = may_contain_hash(xs[i], now);
      add_hash(xs[i], now);
      seen[start + i] = r;
      found += r ? 1 : 0;
    }
  }
  return found;
}

// --- stats ------------------------------------------------------------------------

double windowed_bloom_filter::expected_fpr(double now) const {
  const unsigned live = live_mask(query_generation(now));
  double pass_none = 1;
  for (unsigned s = 0; s < gens; ++s) {
    if (!((live >> s) & 1u) || segment_items_[s] == 0) continue;
    double sum = 0;
    for (std::uint64_t b = 0; b < superblocks_; ++b) {
      const std::uint64_t* seg = words_.data() + b * sb_words + s * seg_words;
      int ones = 0;
      for (std::size_t w = 0; w < seg_words; ++w) ones += std::popcount(seg[w]);
      sum += std::pow(ones / static_cast<double>(windowed_math::segment_bits), hashes_);
    }
    pass_none *= 1 - sum / static_cast<double>(superblocks_);
  }
  return 1 - pass_none;
}

std::uint32_t windowed_bloom_filter::overfull_generations(double now) const {
  const unsigned live = live_mask(query_generation(now));
  std::uint32_t n = 0;
  for (unsigned s = 0; s < gens; ++s) {
    if (((live >> s) & 1u) && segment_items_[s] > generation_items_) ++n;
  }
  return n;
}

std::uint64_t windowed_bloom_filter::items_in_window(double now) const {
  const unsigned live = live_mask(query_generation(now));
  std::uint64_t n = 0;
  for (unsigned s = 0; s < gens; ++s) {
    if ((live >> s) & 1u) n += segment_items_[s];
  }
  return n;
}

bool operator==(const windowed_bloom_filter& a, const windowed_bloom_filter& b) {
  return a.kind_ == b.kind_ && a.window_ == b.window_ && a.capacity_ == b.capacity_ &&
         a.target_fpr_ == b.target_fpr_ && a.seed_ == b.seed_ && a.hashes_ == b.hashes_ &&
         a.superblocks_ == b.superblocks_ && a.added_ == b.added_ &&
         a.latest_gen_ == b.latest_gen_ && a.latest_time_ == b.latest_time_ &&
         a.segment_items_ == b.segment_items_ && a.words_ == b.words_;
}

// --- the file member "\x89RBW" ----------------------------------------------------
//
// docs/format.md, "Windowed filter files", draws it:
//
//   offset size field
//        0    8 magic "\x89RBW\r\n\x1a\n"
//        8    2 version u16 = 1
//       10    1 window kind u8: 1 time, 2 count
//       11    1 generations u8 = 4
//       12    4 k u32, 1..16
//       16    8 seed u64
//       24    8 super-blocks B u64, >= 1, 1536 B <= 2^40
//       32    8 file size u64 = 128 + 192 B + 8
//       40    8 window f64: seconds (time, finite, > 0) or N (count, = capacity)
//       48    8 capacity N u64 >= 1
//       56    8 target fpr f64 in [1e-12, 1)
//       64    8 latest generation i64 (two's complement)
//       72    8 latest time f64 (time windows; 0 for count windows)
//       80    8 items added u64
//       88   32 items per segment, 4 x u64 (sum <= items added)
//      120    8 reserved 0
//      128  192B the super-blocks, 24 u64 each, segment s = words 6s..6s+5
//     size-8  8 checksum XXH3-64 (seed 0) of bytes [0, size - 8)

namespace {

constexpr std::size_t header_bytes = 128;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'W', '\r', '\n', 0x1a, '\n'},
                                1,
                                header_bytes + io::checksum_bytes,
                                "windowed filter file",
                                "windowed filter"};
constexpr std::size_t off_kind = 10;
constexpr std::size_t off_generations = 11;
constexpr std::size_t off_hashes = 12;
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_superblocks = 24;
constexpr std::size_t off_window = 40;
constexpr std::size_t off_capacity = 48;
constexpr std::size_t off_fpr = 56;
constexpr std::size_t off_latest_gen = 64;
constexpr std::size_t off_latest_time = 72;
constexpr std::size_t off_added = 80;
constexpr std::size_t off_segment_items = 88;
constexpr std::size_t off_reserved = 120;

}  // namespace

std::string windowed_bloom_filter::serialize() const {
  const std::uint64_t size = header_bytes + superblocks_ * sb_words * 8 + io::checksum_bytes;
  std::string out(size, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), 8);
  io::store_le<std::uint16_t>(p + io::version_offset, envelope.version);
  p[off_kind] = static_cast<unsigned char>(kind_);
  p[off_generations] = static_cast<unsigned char>(gens);
  io::store_le<std::uint32_t>(p + off_hashes, hashes_);
  io::store_le<std::uint64_t>(p + off_seed, seed_);
  io::store_le<std::uint64_t>(p + off_superblocks, superblocks_);
  io::store_le<std::uint64_t>(p + io::file_size_offset, size);
  io::store_f64(p + off_window, window_);
  io::store_le<std::uint64_t>(p + off_capacity, capacity_);
  io::store_f64(p + off_fpr, target_fpr_);
  io::store_le<std::uint64_t>(p + off_latest_gen, static_cast<std::uint64_t>(latest_gen_));
  io::store_f64(p + off_latest_time, latest_time_);
  io::store_le<std::uint64_t>(p + off_added, added_);
  for (unsigned s = 0; s < gens; ++s) {
    io::store_le<std::uint64_t>(p + off_segment_items + 8 * s, segment_items_[s]);
  }
  for (std::size_t i = 0; i < words_.size(); ++i) {
    io::store_le<std::uint64_t>(p + header_bytes + 8 * i, words_[i]);
  }
  io::seal(out);
  return out;
}

windowed_bloom_filter windowed_bloom_filter::deserialize(std::string_view bytes) {
  io::check_envelope(bytes, envelope);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto bad = [](std::string_view what) { io::corrupt(envelope, what); };

  const std::uint8_t kind = p[off_kind];
  if (kind != 1 && kind != 2) bad("unknown window kind " + std::to_string(kind));
  if (p[off_generations] != gens) {
    bad("the file has " + std::to_string(p[off_generations]) +
        " generations; this version reads windowed filters of 4");
  }
  if (!io::all_zero(p + off_reserved, 8)) bad("reserved bytes are not zero");
  const auto k = io::load_le<std::uint32_t>(p + off_hashes);
  if (k < 1 || k > max_hashes) bad("k = " + std::to_string(k) + " is outside 1..16");
  const auto blocks = io::load_le<std::uint64_t>(p + off_superblocks);
  if (blocks < 1 || blocks > max_filter_bits / windowed_math::superblock_bits) {
    bad("the number of super-blocks " + std::to_string(blocks) + " is outside 1..2^40 / 1536");
  }
  if (bytes.size() != header_bytes + blocks * sb_words * 8 + io::checksum_bytes) {
    bad("the file size does not match its " + std::to_string(blocks) + " super-blocks");
  }
  const double window = io::load_f64(p + off_window);
  const auto capacity = io::load_le<std::uint64_t>(p + off_capacity);
  const double fpr = io::load_f64(p + off_fpr);
  if (capacity < 1) bad("the capacity is 0");
  if (!(fpr >= blocked_min_fpr && fpr < 1)) bad("the target rate is outside [1e-12, 1)");
  if (!(std::isfinite(window) && window > 0)) bad("the window is not a number above 0");
  if (kind == 2 && window != static_cast<double>(capacity)) {
    bad("a count window's length differs from its capacity");
  }

  windowed_bloom_filter f;
  f.kind_ = static_cast<window_kind>(kind);
  f.window_ = window;
  f.generation_seconds_ = f.kind_ == window_kind::time ? window / (gens - 1) : 0;
  f.capacity_ = capacity;
  f.target_fpr_ = fpr;
  f.seed_ = io::load_le<std::uint64_t>(p + off_seed);
  f.hashes_ = k;
  f.superblocks_ = blocks;
  f.generation_items_ = windowed_math::generation_items(capacity);
  f.latest_gen_ = static_cast<std::int64_t>(io::load_le<std::uint64_t>(p + off_latest_gen));
  f.latest_time_ = io::load_f64(p + off_latest_time);
  f.added_ = io::load_le<std::uint64_t>(p + off_added);
  std::uint64_t held = 0;
  for (unsigned s = 0; s < gens; ++s) {
    f.segment_items_[s] = io::load_le<std::uint64_t>(p + off_segment_items + 8 * s);
    if (f.segment_items_[s] > f.added_ || held > f.added_ - f.segment_items_[s]) {
      bad("the segments hold more items than were added");
    }
    held += f.segment_items_[s];
  }
  if (f.kind_ == window_kind::time) {
    if (!std::isfinite(f.latest_time_)) bad("the latest time is not a finite number");
    const double g = std::floor(f.latest_time_ / f.generation_seconds_);
    if (f.added_ > 0 && !(std::fabs(g) < 4.0e18 && static_cast<std::int64_t>(g) == f.latest_gen_)) {
      bad("the latest generation does not match the latest time");
    }
  } else {
    if (f.latest_time_ != 0) bad("a count window records a time");
    const std::uint64_t expect = f.added_ == 0 ? 0 : (f.added_ - 1) / f.generation_items_;
    if (static_cast<std::uint64_t>(f.latest_gen_) != expect) {
      bad("the latest generation does not match the number of items added");
    }
  }
  if (f.added_ == 0 && (f.latest_gen_ != 0 || f.latest_time_ != 0)) {
    bad("an empty filter records a generation or a time");
  }
  f.words_.resize(blocks * sb_words);
  bool any = false;
  for (std::size_t i = 0; i < f.words_.size(); ++i) {
    f.words_[i] = io::load_le<std::uint64_t>(p + header_bytes + 8 * i);
    if (f.words_[i] != 0 && f.segment_items_[(i % sb_words) / seg_words] == 0) any = true;
  }
  if (any) bad("a segment with no items has bits set");
  return f;
}

}  // namespace ringbloom
