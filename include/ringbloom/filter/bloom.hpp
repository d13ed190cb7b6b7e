// ringbloom/filter/bloom.hpp: the classic Bloom filter and the types the kinds
// have in common. The sizing and rate formulas of every kind are in
// ringbloom/filter/bloom_math.hpp (included here).
//
// A Bloom filter answers "is x in the set?" with "definitely not" or "maybe",
// in a fixed amount of memory: m bits and k hash functions. add(x) sets the k
// bits of x; may_contain(x) answers "maybe" only when all k bits are set.
//
//   Guaranteed: no false negatives. Once add(x) returned, may_contain(x) is
//               true for the life of the filter (and of any file saved from
//               it, and of any union with another filter).
//   Not guaranteed: exactness. Items never added are reported "maybe" with a
//               probability close to (1 - e^(-kn/m))^k after n additions;
//               stats().expected_fpr gives that rate for the actual bits.
//
// The kinds (each in its own header; docs/bloom.md says how to choose). Most
// users choose a role instead: "default" (fast), "densest" (blocked1024) or
// "textbook" (classic), names that parse_filter_kind accepts (filter_roles in
// filter_kinds.hpp).
//
//   kind       header                          use it when
//   ---------  ------------------------------  --------------------------------
//   fast       ringbloom/filter/fast_bloom.hpp        the default: the fastest adds and
//                                              lookups; one bit per 64-bit word
//                                              of a 512-bit block, one cache
//                                              line per item (kind 10)
//   blocked64  ringbloom/filter/blocked64_bloom.hpp   the lowest rate per bit with one
//                                              cache line per item: k bits
//                                              anywhere in the block (kind 7)
//   blocked1024 ringbloom/filter/blocked1024_bloom.hpp  the densest: blocked64's
//                                              placement in 1024-bit blocks (two
//                                              cache lines), fewer bits (kind 8)
//   blocked    ringbloom/filter/blocked_bloom.hpp     blocked64's layout placed by a
//                                              128-bit hash: any hash, older files
//   classic    ringbloom/filter/bloom.hpp (this)      the textbook: the textbook layout
//                                              or the lessons' exact positions
//   counting   ringbloom/filter/counting_bloom.hpp    items must be removable
//   scalable   ringbloom/filter/scalable_bloom.hpp    the number of items is unknown
//
// any_filter, files and the memory-mapped read-only view are in
// ringbloom/filter/filter_file.hpp.
//
// Positions of the classic filter (and of the counting filter, which shares
// them), by hash:
//
//   xxh3    one XXH3-128 of the item with the seed gives h1 (low half) and h2
//           (high half, forced odd); g_i = h1 + i*h2 (mod 2^64) and position
//           i = fastrange(mix13(g_i), m), where mix13 is splitmix64's
//           finaliser and fastrange(x, m) = (x * m) >> 64 in 128-bit
//           arithmetic (Kirsch & Mitzenmacher 2006 double hashing; Lemire
//           2019's multiply-shift range reduction). The mix makes the k
//           positions behave as independent: unmixed they form an arithmetic
//           progression, and small filters at tight rates measured up to 56x
//           their formula. Files of format versions 1 and 2 were written
//           with position i = fastrange(g_i, m); a filter read from one keeps
//           that rule (rule() == position_rule::double_hashing) and is saved
//           again as version 2.
//   sha256  position i = int.from_bytes(sha256(f"{i}:{item}")[:8], "big") % m,
//           exactly the German lesson's positionen(item, k, m).
//   md5     the same with MD5 in place of SHA-256.
//   poly31  position i = hash_str(item, salt=i) % m, exactly lab11's filter.
//
// The seed is used by xxh3 only; the other hashes require seed 0.
//
// Thread safety: const member functions may run concurrently with each
// other. add() and the set operations need exclusive access. add_concurrent()
// may run concurrently with itself and with may_contain_concurrent(); see
// tests/filter/bloom_concurrency_test.cpp.
//
// Example:
//
//   #include <ringbloom/filter/bloom.hpp>
//   auto f = ringbloom::bloom_filter::for_capacity(1'000'000, 0.01);
//   f.add("user:42");
//   assert(f.may_contain("user:42"));           // never a false negative
//   bool maybe = f.may_contain("user:43");      // false with ~99% probability
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/bloom_math.hpp"
#include "ringbloom/filter/detail/bloom_core.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

/// The filter kinds. The numeric values are written into filter files: never
/// reuse or renumber one.
enum class filter_kind : std::uint8_t {
  classic = 1,
  blocked = 2,
  counting = 3,
  scalable = 4,
  fuse8 = 5,        ///< static binary fuse filter, 8-bit fingerprints (fuse_filter.hpp)
  fuse16 = 6,       ///< the same with 16-bit fingerprints
  blocked64 = 7,    ///< the blocked layout placed by a 64-bit hash (blocked64_bloom.hpp)
  blocked1024 = 8,  ///< 1024-bit blocks placed as blocked64: denser (blocked1024_bloom.hpp)
  fuse8_4wise = 9,  ///< 4-wise binary fuse, 8-bit fingerprints: smaller than fuse8
  fast = 10,        ///< one bit per 64-bit word of a 512-bit block: fastest (fast_bloom.hpp)
};

/// The kind of new filters when none is asked for: fast, the blocked kind
/// with the fastest adds and lookups, for 0.5-4% more bits than blocked64 at
/// rates from 1% to 1e-6 (11% more at 5%; docs/bloom.md, "Which kind"). Files
/// say their kind, so a file of any kind loads as what it is whatever the
/// default.
inline constexpr filter_kind default_filter_kind = filter_kind::fast;

/// The stable name of a kind ("classic", "blocked", "counting", "scalable",
/// "fuse8", "fuse16", "blocked64", "blocked1024", "fuse8-4wise", "fast").
[[nodiscard]] std::string_view filter_kind_name(filter_kind kind) noexcept;

/// The kind with that name, or the kind that plays the role of that name
/// ("default", "densest", "textbook": filter_roles in filter_kinds.hpp), or
/// nothing. Names are exact and lower case.
[[nodiscard]] std::optional<filter_kind> find_filter_kind(std::string_view name) noexcept;

/// Like find_filter_kind, but throws std::invalid_argument naming the roles
/// and the known kinds when `name` is neither.
[[nodiscard]] filter_kind parse_filter_kind(std::string_view name);

/// The kind with that numeric code (as stored in files), or nothing.
[[nodiscard]] std::optional<filter_kind> filter_kind_from_code(std::uint8_t code) noexcept;

/// What a filter can say about itself. Every number `ringbloom bloom info`
/// prints comes from here.
struct filter_stats {
  filter_kind kind = filter_kind::classic;
  hash_kind hash = default_hash;
  std::uint64_t seed = 0;
  std::uint64_t bits = 0;         ///< m: bits, or counters of a counting filter (all layers)
  std::uint32_t hashes = 0;       ///< k (the first layer's for a scalable filter)
  std::uint32_t layers = 1;       ///< 1 except for scalable filters
  std::uint64_t items_added = 0;  ///< additions recorded (minus removals)
  std::uint64_t bits_set = 0;     ///< bits that are 1 (counters that are not 0)
  double fill_ratio = 0;          ///< bits_set / bits
  /// The probability that an item never added is reported "maybe", computed
  /// from the bits as they are now (not from items_added), so it is right
  /// even after duplicates, unions or a file written elsewhere.
  double expected_fpr = 0;
  /// Swamidass & Baldi's estimate of the number of distinct items added,
  /// from bits_set alone; +infinity when every bit is set.
  double estimated_items = 0;
  std::uint64_t memory_bytes = 0;  ///< size of the bit (counter) arrays
};

/// One of the k probes of an item, for `ringbloom bloom check --explain`.
struct bit_probe {
  std::uint32_t layer = 0;     ///< 0 except in scalable filters
  std::uint64_t position = 0;  ///< bit (counter) index within the layer
  std::uint32_t value = 0;     ///< the bit (0 or 1), or the counter (0..15)
  friend bool operator==(const bit_probe&, const bit_probe&) = default;
};

/// The classic Bloom filter: m bits, k positions anywhere in the array.
class bloom_filter : private detail::filter_core {
 public:
  /// An empty filter of `bits` bits and `hashes` hash functions, the
  /// seeds' explicit form. Throws std::invalid_argument unless
  /// 1 <= bits <= max_filter_bits, 1 <= hashes <= max_filter_hashes, and
  /// seed is 0 for hashes other than xxh3.
  bloom_filter(std::uint64_t bits, std::uint32_t hashes, hash_kind hash = default_hash,
               std::uint64_t seed = 0);

  /// An empty filter sized by bloom_math::classic_size_for(capacity, fpr):
  /// filled with `capacity` distinct items it answers "maybe" for an item
  /// never added with probability about `fpr` (at most fpr by the formula).
  /// Throws std::invalid_argument for capacity 0 or fpr outside (0, 1).
  [[nodiscard]] static bloom_filter for_capacity(std::uint64_t capacity, double fpr,
                                                 hash_kind hash = default_hash,
                                                 std::uint64_t seed = 0);

  /// Sizing helpers in the user's units (see bloom_math).
  [[nodiscard]] static std::uint64_t bits_for(std::uint64_t capacity, double fpr) {
    return bloom_math::classic_size_for(capacity, fpr).bits;
  }
  [[nodiscard]] static double fpr_for(std::uint64_t items, std::uint64_t bits,
                                      std::uint32_t hashes) noexcept {
    return bloom_math::classic_fpr(static_cast<double>(items), static_cast<double>(bits), hashes);
  }
  [[nodiscard]] static std::uint32_t optimal_hashes(std::uint64_t bits,
                                                    std::uint64_t capacity) noexcept {
    return bloom_math::optimal_hashes(static_cast<double>(bits), static_cast<double>(capacity));
  }

  /// Sets the k bits of `item`. Precondition: not a read-only (mapped) filter
  /// (else std::logic_error).
  void add(std::string_view item);

  /// Like add, but safe to call from many threads at once (bits are set
  /// with atomic fetch_or, the item count with an atomic increment). Only
  /// may_contain_concurrent may run at the same time.
  void add_concurrent(std::string_view item);

  /// false: `item` was definitely never added. true: it may have been.
  [[nodiscard]] bool may_contain(std::string_view item) const;

  /// may_contain with atomic (relaxed) loads, for queries that run while
  /// other threads call add_concurrent. Same answers; on x86 the same cost.
  [[nodiscard]] bool may_contain_concurrent(std::string_view item) const;

  /// add / may_contain for an item already hashed: `h` must be the item's
  /// xxh3_128 with this filter's seed. Precondition: hash() is xxh3 (else
  /// std::logic_error from add_hash; may_contain_hash answers for the wrong
  /// positions). Lets scalable filters and batched code hash once.
  void add_hash(const hash128& h);
  [[nodiscard]] bool may_contain_hash(const hash128& h) const noexcept;

  /// Batch forms of add / may_contain: the same bits, count and answers as
  /// one call per item in order. With xxh3 they hash a chunk of items first
  /// and prefetch all their positions before touching the bits; the other
  /// hashes simply loop. may_contain_many sets out[i] for every i <
  /// items.size(), returns how many are true, and throws
  /// std::invalid_argument when out.size() < items.size() (out is one bool
  /// per item; std::vector<bool> has no span: use std::unique_ptr<bool[]>).
  /// Thread safety as add / may_contain.
  void add_many(std::span<const std::string_view> items);
  void add_many(std::span<const std::string> items);
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;

  /// The k positions of `item`, in probe order (duplicates possible).
  [[nodiscard]] std::vector<std::uint64_t> positions(std::string_view item) const;

  /// The k probes of `item` with the current bit at each position.
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;

  /// Bit `position` (0 or 1). Precondition: position < bits().
  [[nodiscard]] bool bit(std::uint64_t position) const noexcept;

  /// In-place union: afterwards this filter answers "maybe" for every item
  /// either filter did. Throws std::invalid_argument, leaving this filter
  /// unchanged, unless both have the same m, k, hash and seed.
  void merge(const bloom_filter& other);

  /// In-place intersection (bitwise AND). An item added to both filters is
  /// still reported "maybe"; the rate for others is at most that of either
  /// filter. Same compatibility rule and error as merge. items_added becomes
  /// the smaller of the two counts.
  void intersect(const bloom_filter& other);

  /// Whether merge/intersect with `other` would be accepted (same m, k,
  /// hash, seed and, for xxh3, position rule); when not and
  /// `why` is given, it receives the reason as a sentence.
  [[nodiscard]] bool compatible_with(const bloom_filter& other, std::string* why = nullptr) const;

  /// Forgets every item (all bits 0, count 0).
  void clear();

  // std::uint64_t bits(), std::uint32_t hashes(), hash_kind hash(),
  // std::uint64_t seed(): the parameters.
  using filter_core::bits;
  using filter_core::hash;
  using filter_core::hashes;
  using filter_core::seed;
  /// position_rule rule(): how xxh3 positions are placed: mixed for every
  /// new filter, double_hashing for one read from a file before version 3.
  using filter_core::rule;
  /// std::uint64_t items_added(): additions recorded by add / add_concurrent
  /// (duplicates count each time; merge adds the other's count).
  using filter_core::items_added;
  /// Swamidass-Baldi estimate of the distinct items, from the bits.
  [[nodiscard]] double estimated_items() const noexcept;
  [[nodiscard]] filter_stats stats() const;
  /// bool read_only(): whether this filter is a read-only view of a mapped
  /// file.
  using filter_core::read_only;

  /// std::span<const std::uint64_t> words(): the bit array as 64-bit words;
  /// bit p is bit (p % 64) of word p / 64. Bits at and beyond bits() in the
  /// last word are always 0.
  using filter_core::words;

  /// For the file loader: a filter over existing words (copied or viewed),
  /// with `items` additions recorded. Validates like the constructor and
  /// requires words.size() == (bits + 63) / 64 with zero tail bits;
  /// throws data_error otherwise. `rule` is the rule the words were set by
  /// (double_hashing for files before version 3).
  [[nodiscard]] static bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                               hash_kind hash, std::uint64_t seed,
                                               std::uint64_t items, detail::word_store words,
                                               position_rule rule = position_rule::mixed);

  friend bool operator==(const bloom_filter& a, const bloom_filter& b) noexcept;

 private:
  bloom_filter() = default;
  template <class Fn>
  void for_each_position(std::string_view item, Fn&& fn) const;
  // add_many's and may_contain_many's bodies for both item types
  // (bloom_batch.cpp).
  template <class Item>
  void add_items(std::span<const Item> items);
  template <class Item>
  std::size_t test_items(std::span<const Item> items, std::span<bool> out) const;
};

}  // namespace ringbloom
