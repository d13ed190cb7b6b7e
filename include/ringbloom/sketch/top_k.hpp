// ringbloom/sketch/top_k.hpp: Top-K heavy hitters with HeavyKeeper (Yang et
// al., USENIX ATC 2018 and IEEE/ACM ToN 2019), as RedisBloom's TOPK.* keeps them.
//
// What: the k items seen most often in a stream, with their approximate
// counts, in fixed memory: depth rows of width buckets (a 32-bit fingerprint
// and a 32-bit count each) and a min-heap of the k current leaders.
//
// The rule (HeavyKeeper's "count-with-exponential-decay", RedisBloom
// src/topk.c TopK_Add): for each row, the item's bucket is
//   - empty: it takes the bucket with count = increment;
//   - holding the item's fingerprint: count += increment;
//   - holding another fingerprint: for each unit of the increment, with
//     probability decay^count the count drops by one; when it reaches 0 the
//     item takes the bucket with the rest of the increment.
// The item's estimate is the largest count among its buckets; if it is at
// least the heap's smallest count, the item enters the heap (or its heap
// count is updated), pushing out the smallest, which add() returns. Among
// leaders of equal count the heap keeps RedisBloom's order (its
// heapifyDown), so the same adds push out the same items as its TOPK.ADD.
//
// Parameters as TOPK.RESERVE takes them: k, width (default 8), depth
// (default 7), decay (default 0.9). Small items rarely survive in a bucket
// that a heavy item holds, so heavy hitters' counts are seldom overestimated
// (they can be under-estimated). Ties and the decay draws make the list
// approximate: a test measures recall against the exact top k on Zipf streams.
//
// The decay draws come from a pseudo-random generator seeded at creation and
// saved with the sketch, so a run is reproducible.
//
// Example:
//
//   ringbloom::top_k top(10, 1000, 5);       // k = 10, 1000 x 5 buckets
//   for (auto& url : log) top.add(url);
//   for (auto& e : top.list()) std::cout << e.item << '\t' << e.count << '\n';
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom {

class top_k {
 public:
  static constexpr std::uint32_t default_width = 8;
  static constexpr std::uint32_t default_depth = 7;
  static constexpr double default_decay = 0.9;
  static constexpr std::uint32_t max_k = 100'000;
  static constexpr std::uint32_t max_depth = 64;
  /// The most buckets (width x depth) a Top-K may have.
  static constexpr std::uint64_t max_buckets = std::uint64_t{1} << 28;

  struct bucket {
    std::uint32_t fingerprint = 0;
    std::uint32_t count = 0;
    friend bool operator==(const bucket&, const bucket&) = default;
  };
  /// One entry of the leader list.
  struct entry {
    std::string item;
    std::uint32_t count = 0;
    friend bool operator==(const entry&, const entry&) = default;
  };

  /// Throws std::invalid_argument naming the range unless 1 <= k <= 100,000,
  /// 1 <= width, 1 <= depth <= 64, width x depth <= 2^28 and decay in (0, 1].
  explicit top_k(std::uint32_t k, std::uint32_t width = default_width,
                 std::uint32_t depth = default_depth, double decay = default_decay,
                 std::uint64_t seed = 0);

  /// Adds `increment` occurrences of `item` (increment >= 1). Returns the
  /// item pushed out of the top k by this addition, if any (TOPK.ADD's reply).
  std::optional<std::string> add(std::string_view item, std::uint32_t increment = 1);

  /// Whether the item is among the current k leaders (TOPK.QUERY).
  [[nodiscard]] bool query(std::string_view item) const;
  /// The item's estimated count (TOPK.COUNT): the largest of its buckets'
  /// counts that carry its fingerprint.
  [[nodiscard]] std::uint32_t count(std::string_view item) const;
  /// How list() orders leaders of equal count.
  enum class ties : std::uint8_t {
    by_item,  ///< by the item's bytes: reproducible from the counts alone
    by_heap,  ///< by their places in the heap, as RedisBloom's TOPK.LIST
  };
  /// The leaders, largest count first; at most k.
  [[nodiscard]] std::vector<entry> list(ties order = ties::by_item) const;

  [[nodiscard]] std::uint32_t k() const noexcept { return k_; }
  [[nodiscard]] std::uint32_t width() const noexcept { return width_; }
  [[nodiscard]] std::uint32_t depth() const noexcept { return depth_; }
  [[nodiscard]] double decay() const noexcept { return decay_; }
  [[nodiscard]] std::uint64_t rng_state() const noexcept { return rng_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::span<const bucket> buckets() const noexcept { return buckets_; }
  /// The heap slots in heap order (empty slots have an empty item and count 0).
  /// A copy: the sketch keeps its names in the allocator hook's memory
  /// (every byte of a Top-K goes through the hook), so this converts them.
  [[nodiscard]] std::vector<entry> heap() const;
  /// The bytes the sketch allocates (all through the allocator hook): the
  /// buckets, the heap slots and fingerprints, the leaders' long names and
  /// its 2 KiB table of decay powers. Not sizeof(top_k) itself.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

  /// A sketch from saved state; throws data_error when sizes disagree or the
  /// heap is not a min-heap of distinct items, std::invalid_argument for bad parameters.
  [[nodiscard]] static top_k from_state(std::uint32_t k, std::uint32_t width, std::uint32_t depth,
                                        double decay, std::uint64_t seed, std::uint64_t rng,
                                        std::vector<bucket> buckets, std::vector<entry> heap);

  friend bool operator==(const top_k& a, const top_k& b) noexcept {
    return a.k_ == b.k_ && a.width_ == b.width_ && a.depth_ == b.depth_ && a.decay_ == b.decay_ &&
           a.seed_ == b.seed_ && a.rng_ == b.rng_ && a.buckets_ == b.buckets_ && a.heap_ == b.heap_;
  }

 private:
  /// A name in hooked memory: a leader's name longer than the string's
  /// inline buffer (15 bytes) is allocated too, and must be counted.
  using hooked_string = std::basic_string<char, std::char_traits<char>, hooked_allocator<char>>;
  struct slot {
    hooked_string item;
    std::uint32_t count = 0;
    friend bool operator==(const slot&, const slot&) = default;
  };

  [[nodiscard]] bool decays(std::uint32_t count);
  [[nodiscard]] std::ptrdiff_t find_in_heap(std::string_view item, std::uint32_t fp) const;
  void sift(std::size_t at);
  void swap_slots(std::size_t a, std::size_t b);

  std::uint32_t k_;
  std::uint32_t width_;
  std::uint32_t depth_;
  double decay_;
  std::uint64_t seed_;
  std::uint64_t rng_;
  hooked_vector<double> decay_table_;     // decay^c for c < 256
  hooked_vector<bucket> buckets_;         // row-major
  hooked_vector<slot> heap_;              // min-heap by count, size k
  hooked_vector<std::uint32_t> heap_fp_;  // fingerprints of heap_, scanned by find_in_heap
};

}  // namespace ringbloom
