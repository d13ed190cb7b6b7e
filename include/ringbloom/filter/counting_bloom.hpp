// ringbloom/filter/counting_bloom.hpp: a Bloom filter whose items can be removed.
//
// Each of the m positions holds a 4-bit counter instead of a bit (Fan, Cao,
// Almeida, Broder, "Summary cache", 2000): add increments the item's k
// counters, remove decrements them, may_contain answers "maybe" when all k
// are non-zero. Positions are exactly those of the classic filter with the
// same m, k, hash and seed, so the false-positive rate is the classic one; the
// memory is 4x (m/2 bytes).
//
// Guarantees and their limits:
//   - No false negatives for items added and not removed, provided remove is
//     only ever called for items that were added. Removing an item that was
//     never added (but happens to look present) silently takes counts away
//     from other items and can create false negatives: a Bloom filter cannot
//     tell. When one of its counters is already 0 the item was certainly never
//     added, and remove refuses (std::invalid_argument, filter unchanged).
//   - Counters saturate at 15 and a saturated counter is never decremented:
//     once a counter overflowed its true count is unknown (it may be 40), and
//     decrementing it could reach 0 while items that set it are still in the
//     filter, which would be a false negative. A saturated counter stays 15
//     forever; the cost is a slightly higher false-positive rate.
//     With the optimal k a counter reaches 16 with probability about
//     1.4e-15 * m (Fan et al.), so saturation needs heavy duplicate adds.
//
// Thread safety: add_concurrent (a compare-and-swap loop per counter) may run
// concurrently with itself and may_contain_concurrent; remove needs exclusive
// access.
//
// Example:
//
//   #include <ringbloom/filter/counting_bloom.hpp>
//   auto f = ringbloom::counting_bloom_filter::for_capacity(100'000, 0.01);
//   f.add("session:7");
//   f.remove("session:7");                     // may_contain is false again
//   f.remove("never-added");                   // throws std::invalid_argument
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/bloom_core.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

class counting_bloom_filter : private detail::filter_core {
 public:
  static constexpr std::uint32_t counter_bits = 4;
  static constexpr std::uint32_t counter_max = 15;  ///< saturated

  /// An empty filter of `counters` 4-bit counters and `hashes` hashes.
  /// Throws std::invalid_argument as bloom_filter's constructor does.
  counting_bloom_filter(std::uint64_t counters, std::uint32_t hashes, hash_kind hash = default_hash,
                        std::uint64_t seed = 0);

  /// Sized as the classic filter: bloom_math::classic_size_for(capacity, fpr).
  [[nodiscard]] static counting_bloom_filter for_capacity(std::uint64_t capacity, double fpr,
                                                          hash_kind hash = default_hash,
                                                          std::uint64_t seed = 0);

  /// Increments the item's k counters (each at most to 15).
  void add(std::string_view item);
  /// Thread-safe add (CAS loop per counter).
  void add_concurrent(std::string_view item);

  /// Decrements the item's k counters, except saturated ones. Throws
  /// std::invalid_argument, leaving the filter unchanged, when any of its
  /// counters is 0 (the item was never added or was already removed).
  /// A position that occurs twice among the k is decremented twice, as add
  /// incremented it twice.
  void remove(std::string_view item);

  [[nodiscard]] bool may_contain(std::string_view item) const;
  [[nodiscard]] bool may_contain_concurrent(std::string_view item) const;

  [[nodiscard]] std::vector<std::uint64_t> positions(std::string_view item) const;
  /// Probes with the counter value (0..15) at each position.
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;
  /// Counter `position` (0..15). Precondition: position < counters().
  [[nodiscard]] std::uint32_t counter(std::uint64_t position) const noexcept;

  /// Union adds counters (saturating at 15); intersection takes the smaller
  /// counter. Throws std::invalid_argument (filter unchanged) unless m, k,
  /// hash, seed and (for xxh3) position rule agree.
  void merge(const counting_bloom_filter& other);
  void intersect(const counting_bloom_filter& other);
  [[nodiscard]] bool compatible_with(const counting_bloom_filter& other,
                                     std::string* why = nullptr) const;
  void clear();

  [[nodiscard]] std::uint64_t counters() const noexcept { return bits_; }
  /// std::uint64_t bits(): the same as counters().
  using filter_core::bits;
  // std::uint32_t hashes(), hash_kind hash(), std::uint64_t seed(): as
  // bloom_filter's.
  using filter_core::hash;
  using filter_core::hashes;
  using filter_core::seed;
  /// position_rule rule(): as bloom_filter's (the counting kind shares the
  /// classic positions).
  using filter_core::rule;
  /// std::uint64_t items_added(): additions minus successful removals.
  using filter_core::items_added;
  /// Counters at 15.
  [[nodiscard]] std::uint64_t saturated_counters() const noexcept;
  [[nodiscard]] double estimated_items() const noexcept;
  /// bits_set counts non-zero counters; expected_fpr = (bits_set / m)^k.
  [[nodiscard]] filter_stats stats() const;
  /// bool read_only(): as bloom_filter's.
  using filter_core::read_only;

  /// std::span<const std::uint64_t> words(): counter p is bits
  /// 4*(p % 16) .. 4*(p % 16)+3 of word p / 16; nibbles at and beyond
  /// counters() in the last word are 0.
  using filter_core::words;

  /// For the file loader; requires words.size() == (counters + 15) / 16 and
  /// zero tail nibbles; throws data_error otherwise. `rule` as in
  /// bloom_filter::from_words.
  [[nodiscard]] static counting_bloom_filter from_words(std::uint64_t counters,
                                                        std::uint32_t hashes, hash_kind hash,
                                                        std::uint64_t seed, std::uint64_t items,
                                                        detail::word_store words,
                                                        position_rule rule = position_rule::mixed);

  friend bool operator==(const counting_bloom_filter& a, const counting_bloom_filter& b) noexcept;

 private:
  counting_bloom_filter() = default;
};

}  // namespace ringbloom
