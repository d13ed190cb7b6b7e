// ringbloom/filter/windowed_bloom.hpp: a Bloom filter that forgets, "seen in
// the last hour?" or "seen in the last N items?".
//
// What it is: a membership filter over a sliding window. Every other filter
// of the library keeps its items forever, so it fills up and its rate climbs
// until it is rebuilt; this one answers for a horizon: dedupe the events of
// the last hour, admit an object into a cache only on its second request
// within a day (one-hit-wonder admission), count a click only if the same
// user did not click in the last 10 minutes. It replaces the client-side
// rotation of two full filters (twice the memory, and a race at each swap).
//
// Two kinds of window:
//   - by time:  `for_time(W seconds, N items per window, p)`; every call
//     takes the time, `add(item, now)`, `may_contain(item, now)`;
//   - by count: `for_count(N items, p)`; the window is the last N
//     insertions, `add(item)`, `may_contain(item)`.
// Time is always a parameter (seconds as a double: Unix time, or any clock
// the caller keeps); the library never reads a clock, so replays, replicas
// and tests are deterministic.
//
// Guarantee (W the window, s = 1/3 the slack, p the target rate):
//   - no false negatives inside the window: an item added at time t answers
//     "maybe" for every query at a time in [t, t + W] (count: it answers
//     "maybe" until at least N more items have been added after it);
//   - forgetting: an item not added since t' - W (1 + s) answers "no" at
//     time t' except at rate p (count: an item followed by more than
//     N (1 + s) insertions, rounded up to whole generations, is forgotten),
//     as long as no generation receives more than its share of items (see
//     "Bursts").
// Items added between t' - W (1 + s) and t' - W may answer either way.
//
// Design: four generations interleaved in one 3-cache-line super-block per
//   item. Time is cut into generations of D = W / 3 (generation number
//   e = floor(now / D), so every replica agrees on the boundaries) and a
//   count window into generations of G = ceil(N / 3) insertions. The filter
//   keeps the current generation and the three before it, generation e in
//   slot e mod 4. The bit array is B super-blocks of 384 positions; each
//   position is a nibble (4 bits, bit s for slot s), so a super-block is 1536
//   bits (24 words, 192 bytes, three cache lines). An item is hashed once to
//   a super-block and k of its positions; `add` sets its slot's bit in each
//   of the k nibbles, `may_contain` ANDs the k nibbles and the live slots
//   (one load, shift and AND per hash, as a blocked filter tests k bits): the
//   answer is "maybe" when some live generation holds all k positions. When
//   a generation ends its slot's bit is cleared in every nibble: one AND of
//   every word with a constant, a vectorised pass over the array once per D
//   seconds or G insertions.
//   Why these numbers: three generations of W/3 cover at least W and at most
//   4D = W (1 + 1/3), hence s = 1/3; the window lives in three lines.
//   Why nibbles: the same positions in every generation, stored side by
//   side, make a lookup k loads. The first layout (format version 1, still
//   read) kept each generation in its own 384-bit segment and tested a
//   6-word mask against four segments. Instructions per call (callgrind,
//   16-byte keys, n = 2 * 10^5 at 1%, k = 8; blocked filter in brackets):
//   lookup 428 -> 240 (167), batched lookup 293 -> 151 (128), add 287 ->
//   249 (201), batched add 186 -> 156 (156); the same bits, rate and memory.
//   An add now touches up to 3 lines (2 before). With k a template argument
//   (one switch per call or batch) and the steady-state time check inline:
//   lookup 197, batched lookup 144, add 197, batched add 138. With the
//   first times of the live generations kept with the clock (two
//   comparisons in place of a division and its checks) and test_and_add
//   reading and setting each word in one pass: lookup 162, add 163,
//   test_and_add 334 -> 240; batched lookup (AVX2) 92, batched add 138.
//
// Cost, with the numbers (n = 10^6 items per window, docs/bloom.md
// "Filters that forget"; the memory is compared with the library's blocked
// filter for n items at the same rate, bloom_math::blocked_size_for):
//
//   | p      | chosen: 4 gen. in 3 lines | 3 blocked sub-filters | APBF (classic) |
//   |--------|---------------------------|-----------------------|----------------|
//   | 1e-2   | 1.81x, s = 1/3            | 1.89x, s = 1/2        | 1.98x, s=1/58  |
//   | 1e-3   | 1.72x                     | 1.79x                 | 1.65x, s=1/140 |
//   | 1e-4   | 1.69x                     | 1.74x                 | (k > 16)       |
//
//   The goal of 1.6x is missed, by 13% at 1% and 6% at 0.01%: every design
//   that forgets by generations pays for the union of its generations (a
//   stranger gets one chance per live generation, so each must be sized for
//   p / 4) and for holding up to 4/3 of a window. The alternatives measured
//   against the same model (bloom_math::blocked_fpr with the segment as the
//   block): g generations of W/(g-1) each as separate blocked filters cost g
//   cache lines per lookup (3 lines allow g = 3: 1.89x at 1%); more, smaller
//   segments in the 3 lines (g = 6 of 256 bits, s = 1/5) cost 1.83x at 1%
//   and 1.80x at 0.01% (small segments fill unevenly); an age-partitioned
//   Bloom filter [SBA20] with the paper's (k, l) = (10, 7) costs 35 bits per
//   item at 1% (3.5x), and with its best (k, l) = (10, 58) 19.6 bits (1.98x)
//   before blocking, and a blocked APBF (k + l segments in one block) is
//   worse again, for the same small-segment reason. The chosen layout is the
//   smallest of these within 3 cache lines.
//   The nibble layout allows more generations per position (8 as one bit of
//   a byte, s = 1/7), but not in fewer bits: the model above (same code,
//   blocked_fpr per generation, rate 1 - (1 - f)^g) gives, at 1% / 0.1% /
//   0.01%, 8 generations of 192 positions in the same 3 lines 1.92x /
//   1.90x / 1.99x (the blocks get small), 8 generations of 384 positions
//   1.76x / 1.63x / 1.59x but 6 lines per lookup, and 5 generations of 384
//   positions (s = 1/4) 1.77x / 1.67x / 1.63x in 3.75 lines. None reaches
//   1.6x at 1% within 3 lines, so 4 generations stay.
//   A bound for any design by generations: g generations of N/(g-1) items,
//   each an unblocked classic filter at rate 1 - (1 - p)^(1/g)
//   (bloom_math::classic_size_for), cost at best (over g) 1.60x at 1% (g =
//   8), 1.37x at 0.1%, 1.21x at 0.01%; but such a lookup reads k lines, not
//   3, and within 3 lines the per-generation blocks are small and fill
//   unevenly. So the memory goal is missed by 13% / 7% / 6%, and no layout
//   of at most 3 lines found here does better.
//   Outside generations of Bloom bits: a cuckoo table whose entries carry
//   a fingerprint and a 3- or 4-bit generation tag was prototyped
//   (docs/performance.md, "Windowed filter: a cuckoo table with age tags";
//   bench/filter/windowed_cuckoo_study.cpp). It meets the memory goal
//   (1.58x / 1.23x / 1.08x) but only at loads near 0.96, where an add kicks
//   entries 4-5 times on average (7-11x the blocked filter's time, and 4 or
//   more lines for 40% of adds), and it breaks the guarantee under a burst:
//   a generation of twice its share refuses 37% of its items (or, evicting
//   the oldest, forgets as many early). This filter takes the same burst
//   with no false negative and a higher rate until the burst expires, so it
//   stays the design.
//
// Speed (docs/performance.md, "Windowed filter"): a call costs fewer
//   instructions than a blocked filter's (see "Why nibbles": lookup 162
//   against 167, add 163 against 201, batched lookup 92 against 128) but the
//   filter is 1.7-1.8x larger and an item's k positions fall on its 3
//   adjacent cache lines where the blocked filter reads 1 (a cache
//   simulation of batched lookups at 10^7: 3.65 L1 misses per lookup
//   against 1.75). Against the blocked filter (CPU time, 10^6 / 10^7
//   items, the cleanest of three runs on a shared machine): adds 1.34x /
//   2.4x one at a time and 1.21x / 1.74x batched, lookups 1.51x / 1.42x
//   one at a time and 1.75x / 2.13x batched (AVX2); the other runs scatter
//   widely (batched lookups 2.0-3.0x / 2.8-3.5x). The goal of 1.5x is met
//   or at the goal by adds and lookups at 10^6 except batched lookups, and
//   by single lookups at 10^7 in most runs; batched lookups miss it at both
//   sizes and batched adds at 10^7. Batches prefetch the lines of the item
//   12 ahead; other distances and whole groups of 4 to 16 items measured no
//   better. Layouts with fewer lines per item (segment_bits = 256 or 128: 4
//   generations of 256 or 128 positions) were measured with the same
//   benchmark (before the batched lookup's AVX2 loop; load 3.6-5.7):
//
//   | lines | memory, 1% / 0.1% / 0.01% | lookup, 10^7 | batched lookup, 10^7 |
//   |-------|---------------------------|--------------|----------------------|
//   | 1     | 2.07x / 2.20x / 2.47x     | 2.0x         | 2.7x                 |
//   | 2     | 1.87x / 1.83x / 1.87x     | 1.9x         | 3.0x                 |
//   | 3     | 1.81x / 1.72x / 1.69x     | 2.1x         | 3.2x                 |
//
//   Fewer lines do not buy the speed goal at 10^7: the windowed filter is
//   about twice the blocked filter's size whatever its lines, and at 10^7
//   items the blocked one stays in the last-level cache far more often.
//   Only far out of cache (5 x 10^7 items) does one line reach 1.5x for
//   batched lookups (1.47x, against 3.0x for 3 lines), for 2.07-2.47x the
//   memory. No layout meets both goals; the 3-line one misses memory by
//   least, so it stays.

// Rate: with lambda = G items in each live generation, each generation's
//   bits (its "segment": its bit of the 384 nibbles of every super-block) are a
//   blocked filter of 384-bit blocks (bloom_math::blocked_fpr(G, 384 B, k,
//   384)) and a stranger is tested against 4 independent segments, so
//   rate = 1 - (1 - f)^4 (the positions are the same in every segment, which
//   correlates the four tests positively and makes this an upper bound).
//   `for_count` / `for_time` pick, for k in 1..16, the smallest B with
//   rate <= p and keep the smallest memory (windowed_math below).
//
// Bursts: a time window is sized for N items per window, N/3 per
//   generation. A generation that receives more is not cut short (an early
//   shift would shorten the window and break the no-false-negative promise):
//   it takes them all, and the rate rises while that generation is live (for
//   at most W (1 + s)), then falls back. `expected_fpr(now)` reports the rate
//   from the bits as they are, and `overfull_generations(now)` how many live
//   generations hold more than their share. Size with the peak rate. A quiet
//   stretch costs nothing: generations with no items are empty segments.
//
// Time going back: calls may come out of order (replicas, merged logs). An
//   add at a time up to W before the latest time seen goes into its own
//   generation (still live), so the guarantee holds for it; a query at an
//   earlier time is answered with the filter as it is now (items added
//   after that time may answer "maybe"). A time more than W before the
//   latest, NaN or infinite is refused with std::invalid_argument.
//
// Thread safety: const calls may run concurrently; add needs exclusive access.
//
// Serialization and Redis: `serialize()` writes the whole state (options,
//   the latest generation and time, the counts and the bits) as a member of
//   the file family (docs/format.md, "Windowed filter files"), and
//   `deserialize` refuses corrupt bytes. A Redis value can wrap this class
//   as is: the value's RDB form is these bytes, and every command passes the
//   time to the library as a parameter (the client's `AT` argument, or the
//   server time read once by the command and replicated as an explicit
//   argument with RedisModule_Replicate), so a replica or an AOF replay
//   applies the same times and reaches the same bits.
//
// Source:
//   [SBA20] A. Shtul, C. Baquero, P. S. Almeida, "Age-Partitioned Bloom
//           Filters", arXiv:2001.03147, 2020 (k + l slices, the youngest k
//           written, a query needs k consecutive slices; slack 1/l).
//   [PSS07] blocked filters, see bloom_math in bloom.hpp.
//
// Example:
//
//   #include <ringbloom/filter/windowed_bloom.hpp>
//   auto f = ringbloom::windowed_bloom_filter::for_time(3600, 1'000'000, 0.01);
//   f.add("user:42", 1'700'000'000.0);
//   f.may_contain("user:42", 1'700'003'600.0);   // true: within the hour
//   f.may_contain("user:42", 1'700'004'801.0);   // false but at rate 1%: past W (1 + 1/3)
//   if (!f.test_and_add("click:7", now)) { /* first click in the window: count it */ }
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/detail/bloom_storage.hpp"

namespace ringbloom {

/// What a windowed filter's window counts.
enum class window_kind : std::uint8_t {
  time = 1,   ///< seconds: the last W seconds
  count = 2,  ///< insertions: the last N items
};

/// The sizing math of the windowed filter, with its source in the header's
/// "Rate" paragraph.
struct windowed_math {
  /// Generations kept (the current one and three before it), positions per
  /// super-block (each a nibble: one bit, a segment bit, per generation),
  /// and the slack s = 1 / (generations - 1).
  static constexpr std::uint32_t generations = 4;
  static constexpr double slack = 1.0 / 3.0;
  static constexpr std::uint64_t segment_bits = 384;
  static constexpr std::uint64_t superblock_bits = generations * segment_bits;  // 1536

  /// Items one generation is sized for: ceil(N / 3).
  [[nodiscard]] static std::uint64_t generation_items(std::uint64_t window_items) noexcept;

  /// The rate of a filter of `superblocks` super-blocks with k hashes when
  /// each of its four generations holds `items_per_generation` items:
  /// 1 - (1 - blocked_fpr(G, 384 B, k, 384))^4.
  [[nodiscard]] static double fpr(double items_per_generation, std::uint64_t superblocks,
                                  std::uint32_t k) noexcept;

  /// The smallest filter (super-blocks, k) with fpr(generation_items(N), B,
  /// k) <= p: for each k in 1..16 a binary search over B, smallest wins.
  /// Throws std::invalid_argument unless N >= 1 and p is in [1e-12, 1), and
  /// when the filter would need more than max_filter_bits.
  struct size {
    std::uint64_t superblocks = 0;
    std::uint32_t hashes = 0;
  };
  [[nodiscard]] static size size_for(std::uint64_t window_items, double p);
};

/// A Bloom filter over a sliding window of time or of insertions (see the
/// top of this file).
class windowed_bloom_filter {
 public:
  static constexpr std::uint32_t generations = windowed_math::generations;
  static constexpr std::size_t superblock_words = windowed_math::superblock_bits / 64;  // 24

  /// A time window of `window_seconds` sized for `items_per_window` items
  /// arriving in any W seconds at rate `fpr`. Throws std::invalid_argument
  /// unless window_seconds is finite and > 0, items_per_window >= 1 and
  /// 1e-12 <= fpr < 1 (the message names the argument).
  [[nodiscard]] static windowed_bloom_filter for_time(double window_seconds,
                                                      std::uint64_t items_per_window, double fpr,
                                                      std::uint64_t seed = 0);

  /// A window of the last `window_items` insertions at rate `fpr`. Throws
  /// std::invalid_argument unless window_items >= 1 and 1e-12 <= fpr < 1.
  [[nodiscard]] static windowed_bloom_filter for_count(std::uint64_t window_items, double fpr,
                                                       std::uint64_t seed = 0);

  /// Time windows: adds `item` at time `now` (seconds). Throws
  /// std::invalid_argument when now is NaN or infinite, more than one window
  /// before the latest time seen, or the filter is a count window.
  void add(std::string_view item, double now);
  /// Time windows: whether `item` may have been added within the window
  /// ending at `now` (see the guarantee). Throws as add does.
  [[nodiscard]] bool may_contain(std::string_view item, double now) const;
  /// Time windows: may_contain(item, now), then add(item, now); returns what
  /// may_contain said. The dedup primitive: false means "first time in the
  /// window" (or forgotten), true "seen" (or a false positive).
  bool test_and_add(std::string_view item, double now);

  /// Count windows: the same without a time. Throw std::invalid_argument
  /// for a time window (which needs the time).
  void add(std::string_view item);
  [[nodiscard]] bool may_contain(std::string_view item) const;
  bool test_and_add(std::string_view item);

  /// Batches: the same answers and bits as the single calls, faster for many
  /// (each item hashed once, its super-block prefetched ahead of the
  /// probe). One time for the whole batch (time windows); `now` is ignored
  /// and may be 0 for count windows, whose batch counts as items.size()
  /// insertions in order. may_contain_many writes out[i] for each item and
  /// returns how many are true; throws std::invalid_argument when out is
  /// shorter than items.
  void add_many(std::span<const std::string_view> items, double now = 0);
  std::size_t may_contain_many(std::span<const std::string_view> items, double now,
                               std::span<bool> out) const;
  /// seen[i] = test_and_add(items[i], times[i]) for each i in order (an
  /// item repeated inside the batch is "seen" the second time), through the
  /// batch path: the dedup loop of `ringbloom bloom dedup`. `times` holds one
  /// time per item for time windows and may be empty for count windows;
  /// returns how many were seen. Throws std::invalid_argument when seen (or,
  /// for a time window, times) is shorter than items, and as add does for a
  /// refused time: the items before it are then added and answered.
  std::size_t test_and_add_many(std::span<const std::string_view> items,
                                std::span<const double> times, std::span<bool> seen);

  /// The item's 64-bit hash (XXH3-64 with the seed) and the hash forms of
  /// add / may_contain, for callers that hash once (the CLI's dedup).
  [[nodiscard]] std::uint64_t hash_item(std::string_view item) const noexcept;
  void add_hash(std::uint64_t x, double now);
  [[nodiscard]] bool may_contain_hash(std::uint64_t x, double now) const;

  /// The rate now, from the bits as they are: 1 - prod over live segments of
  /// (1 - mean over super-blocks of (popcount(segment) / 384)^k). One pass
  /// over the array. Time windows take the time of the query (a later time
  /// retires generations); count windows ignore it.
  [[nodiscard]] double expected_fpr(double now = 0) const;
  /// Live generations holding more than generation_items() items (a burst).
  [[nodiscard]] std::uint32_t overfull_generations(double now = 0) const;

  // --- accessors ------------------------------------------------------------
  [[nodiscard]] window_kind kind() const noexcept { return kind_; }
  /// W: seconds (time) or insertions (count).
  [[nodiscard]] double window() const noexcept { return window_; }
  /// N: items per window the filter was sized for.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] double target_fpr() const noexcept { return target_fpr_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint32_t hashes() const noexcept { return hashes_; }
  [[nodiscard]] std::uint64_t superblocks() const noexcept { return superblocks_; }
  /// Bits of the array: 1536 per super-block.
  [[nodiscard]] std::uint64_t bits() const noexcept {
    return superblocks_ * windowed_math::superblock_bits;
  }
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept { return bits() / 8; }
  /// Items per generation the sizing assumed: ceil(N / 3).
  [[nodiscard]] std::uint64_t generation_items() const noexcept { return generation_items_; }
  /// Additions ever made (the count window's clock).
  [[nodiscard]] std::uint64_t items_added() const noexcept { return added_; }
  /// Additions held in the live generations at `now`.
  [[nodiscard]] std::uint64_t items_in_window(double now = 0) const;
  /// The latest generation number and time seen (time windows; 0 before
  /// the first add).
  [[nodiscard]] std::int64_t latest_generation() const noexcept { return latest_gen_; }
  [[nodiscard]] double latest_time() const noexcept { return latest_time_; }

  /// The whole state as bytes (docs/format.md, "Windowed filter files"),
  /// and back. deserialize throws ringbloom::data_error with a sentence
  /// naming the problem for anything but bytes serialize wrote.
  [[nodiscard]] std::string serialize() const;
  [[nodiscard]] static windowed_bloom_filter deserialize(std::string_view bytes);

  /// Same options, bits and clock state.
  friend bool operator==(const windowed_bloom_filter& a, const windowed_bloom_filter& b);

 private:
  windowed_bloom_filter() = default;
  static windowed_bloom_filter make(window_kind kind, double window, std::uint64_t capacity,
                                    double fpr, std::uint64_t seed);

  [[nodiscard]] std::int64_t generation_at(double now, const char* what) const;
  void advance_to(std::int64_t gen);
  /// Bit s of the result: slot s is live for a query in generation `gen`.
  [[nodiscard]] unsigned live_mask(std::int64_t gen) const noexcept;
  /// The inline hot paths of add, may_contain and test_and_add (the .cpp).
  struct hot;
  /// may_contain_hash(x, now) then add_hash(x, now), checking the time once.
  bool test_and_add_hash(std::uint64_t x, double now);
  [[nodiscard]] std::int64_t count_generation() const noexcept;
  [[nodiscard]] std::int64_t query_generation(double now) const;
  /// Recomputes the bounds below from latest_gen_ and latest_time_ (after
  /// the generation changes); note_time keeps them when latest_time_ rises.
  void refresh_bounds() noexcept;
  void note_time(double now) noexcept;

  window_kind kind_ = window_kind::count;
  double window_ = 0;
  double generation_seconds_ = 0;  // D = W / 3 (time windows)
  std::uint64_t capacity_ = 0;
  double target_fpr_ = 0;
  std::uint64_t seed_ = 0;
  std::uint32_t hashes_ = 0;
  std::uint64_t superblocks_ = 0;
  std::uint64_t generation_items_ = 0;
  std::uint64_t added_ = 0;
  std::int64_t latest_gen_ = 0;
  double latest_time_ = 0;
  std::array<std::uint64_t, generations> segment_items_{};
  // The steady state, derived from the clock state above so that the hot
  // paths compare instead of dividing (a time window's generation is
  // floor(now / D)); +inf bounds (and next_turn_ = 0) send every call down
  // the long way, as for an empty filter. Time windows: a query at
  // query_lo_ <= now < next_gen_time_ sees all four slots live, an add at
  // add_lo_ <= now < next_gen_time_ goes into the latest generation. Count
  // windows: an add while added_ < next_turn_ goes into the latest one.
  static constexpr double never = std::numeric_limits<double>::infinity();
  double oldest_lo_ = never;      // the first time of generation latest_gen_ - 3
  double latest_lo_ = never;      // the first time of generation latest_gen_
  double next_gen_time_ = never;  // the first time of generation latest_gen_ + 1
  double query_lo_ = never;       // max(oldest_lo_, latest_time_ - window_)
  double add_lo_ = never;         // max(latest_lo_, latest_time_ - window_)
  std::uint64_t next_turn_ = 0;   // (latest_gen_ + 1) G
  std::vector<std::uint64_t, detail::aligned_allocator<std::uint64_t, detail::cache_line_bytes>>
      words_;
};

}  // namespace ringbloom
