// ringbloom/filter/bloom.hpp: the classic Bloom filter, the sizing math shared by
// every filter kind, and the types the kinds have in common.
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
// The kinds (each in its own header; docs/bloom.md says how to choose):
//
//   kind       header                          use it when
//   ---------  ------------------------------  --------------------------------
//   blocked    ringbloom/filter/blocked_bloom.hpp     the default: all k bits of an
//                                              item in one 64-byte cache line,
//                                              one memory miss per lookup
//   blocked64  ringbloom/filter/blocked64_bloom.hpp   the blocked layout placed by a
//                                              64-bit hash: faster lookups, same
//                                              rate; a separate kind (kind 7)
//   blocked1024 ringbloom/filter/blocked1024_bloom.hpp  blocked64's placement in
//                                              1024-bit blocks (two cache lines):
//                                              fewer bits for the same rate (kind 8)
//   classic    ringbloom/filter/bloom.hpp (this)      you need the textbook layout or
//                                              the lessons' exact positions
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
//           (high half, forced odd); position i = fastrange(h1 + i*h2, m),
//           where fastrange(x, m) = (x * m) >> 64 in 128-bit arithmetic
//           (Kirsch & Mitzenmacher 2006 double hashing; Lemire 2019's
//           multiply-shift range reduction: no division, no modulo bias
//           beyond m / 2^64).
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
};

/// The kind of new filters when none is asked for.
inline constexpr filter_kind default_filter_kind = filter_kind::blocked;

/// The stable name of a kind ("classic", "blocked", "counting", "scalable",
/// "fuse8", "fuse16", "blocked64", "blocked1024").
[[nodiscard]] std::string_view filter_kind_name(filter_kind kind) noexcept;

/// The kind with that name, or nothing. Names are exact and lower case.
[[nodiscard]] std::optional<filter_kind> find_filter_kind(std::string_view name) noexcept;

/// Like find_filter_kind, but throws std::invalid_argument naming the known
/// kinds when `name` is not one of them.
[[nodiscard]] filter_kind parse_filter_kind(std::string_view name);

/// The kind with that numeric code (as stored in files), or nothing.
[[nodiscard]] std::optional<filter_kind> filter_kind_from_code(std::uint8_t code) noexcept;

/// A filter's size: m bits (counters for the counting kind) and k hashes.
struct filter_size {
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  friend bool operator==(const filter_size&, const filter_size&) = default;
};

/// Limits every constructor and the file loader enforce.
inline constexpr std::uint64_t max_filter_bits = std::uint64_t{1} << 40;  // 128 GiB of bits
inline constexpr std::uint32_t max_filter_hashes = 128;                   // classic, counting
inline constexpr std::uint32_t max_blocked_hashes = 16;                   // blocked
/// The lowest false-positive rate a blocked filter is sized for. Below it the
/// long-double sum of blocked_fpr is dominated by rounding (absolute error up
/// to 4e-16 at k = 16, against a 60-digit evaluation: tests/filter/
/// blocked_floor.py), so sizing would follow noise; from 1e-12 up the formula
/// is exact to 0.04%. The classic kind reaches lower rates.
inline constexpr double blocked_min_fpr = 1e-12;

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

/// The rate and sizing formulas of every kind, in one place. All take and
/// return plain numbers; nothing here touches a filter.
///
/// Sources:
///   [B70]  B. H. Bloom, "Space/time trade-offs in hash coding with allowable
///          errors", CACM 13(7), 1970.
///   [PSS07] F. Putze, P. Sanders, J. Singler, "Cache-, hash- and
///          space-efficient Bloom filters", WEA 2007 (blocked filters).
///   [SB07] S. J. Swamidass, P. Baldi, "Mathematical correction for
///          fingerprint similarity measures to improve chemical retrieval",
///          J. Chem. Inf. Model. 47(3), 2007 (estimated distinct items).
///   [ABPH07] P. S. Almeida, C. Baquero, N. Preguica, D. Hutchison,
///          "Scalable Bloom Filters", IPL 101(6), 2007.
struct bloom_math {
  /// [B70] The classic rate after n items in m bits with k hashes:
  /// (1 - e^(-kn/m))^k, evaluated as exp(k * log1p(-exp(-kn/m))) so that
  /// tiny rates keep their precision. 0 when n is 0.
  /// Precondition: m > 0, k > 0.
  [[nodiscard]] static double classic_fpr(double n, double m, double k) noexcept;

  /// The k that minimises classic_fpr for m bits and n items:
  /// round(m/n * ln 2), at least 1 and at most max_filter_hashes.
  [[nodiscard]] static std::uint32_t optimal_hashes(double m, double n) noexcept;

  /// The smallest classic filter (m, k) with classic_fpr(n, m, k) <= p: for
  /// each k, m_k = ceil(-k n / ln(1 - p^(1/k))), and the k with the smallest
  /// m_k wins (for p = 1% that is k = 7, about 9.6 bits per item).
  /// Throws std::invalid_argument unless n >= 1 and 0 < p < 1, and when the
  /// filter would need more than max_filter_bits.
  [[nodiscard]] static filter_size classic_size_for(std::uint64_t n, double p);

  /// The largest n with classic_fpr(n, m, k) <= p: -m/k * ln(1 - p^(1/k)),
  /// rounded down (at least 1).
  [[nodiscard]] static std::uint64_t classic_capacity_for(std::uint64_t m, std::uint32_t k,
                                                          double p) noexcept;

  /// [PSS07] The rate of a blocked filter (512-bit blocks, see
  /// blocked_bloom.hpp) after n items in m bits with k hashes. Items fall into
  /// the m/512 blocks as a Poisson number with mean lambda = 512 n / m; with
  /// i items in its block (t = k i bits thrown at it, each anywhere in the
  /// block) a stranger is reported "maybe" with the exact probability that
  /// all of its k uniform positions were hit: with d distinct positions
  /// (probability S(k,d) 512!/(512-d)! / 512^k, S the Stirling numbers of
  /// the second kind), sum_j (-1)^j C(d,j) (1 - j/512)^t by
  /// inclusion-exclusion. The result is the Poisson-weighted average over i,
  /// summed over lambda +- (12 sqrt(lambda) + 30), which leaves out Poisson
  /// mass far below 1e-12. The simpler (1 - (1 - 1/512)^(k i))^k, which
  /// uses a block's expected fill, reads about 1.2% (relative) low at 10
  /// bits per item. Evaluated in long double; the alternating sum keeps about
  /// 15 digits, ample for rates down to 1e-9 (docs/bloom.md).
  /// The same formula holds for any block size B = `block_bits` with 512
  /// replaced by B (lambda = B n / m, positions uniform in B bits): the
  /// blocked1024 kind (blocked1024_bloom.hpp) uses B = 1024, where the
  /// blocks fill more evenly and 1% costs 9.76 bits per item (k = 7).
  /// Precondition: m is a positive multiple of block_bits, 1 <= k <= 16.
  [[nodiscard]] static double blocked_fpr(double n, std::uint64_t m, std::uint32_t k,
                                          std::uint64_t block_bits = 512) noexcept;

  /// The smallest blocked filter with blocked_fpr(n, m, k) <= p: for each k
  /// in 1..16 a binary search over the number of blocks, smallest m wins
  /// (ties to the smaller k). Blocking costs memory: for p = 1% it is 9.92
  /// bits per item with k = 6, against the classic 9.59 with k = 7; at
  /// exactly 10 bits per item k = 6 gives 0.966% and k = 7 0.968%.
  /// Throws std::invalid_argument as classic_size_for does, and for p below
  /// blocked_min_fpr (naming the classic kind, which reaches such rates).
  /// `block_bits` as for blocked_fpr (m is then a multiple of it); throws
  /// std::invalid_argument unless it is a multiple of 64 in 64..65536.
  [[nodiscard]] static filter_size blocked_size_for(std::uint64_t n, double p,
                                                    std::uint64_t block_bits = 512);

  /// [SB07] The number of distinct items that most likely set `bits_set` of
  /// m bits with k hashes: -(m/k) * ln(1 - bits_set/m). +infinity when
  /// bits_set == m. Precondition: m > 0, k > 0, bits_set <= m.
  [[nodiscard]] static double estimate_items(double m, double k, double bits_set) noexcept;

  /// [ABPH07] The error budget of layer i (0-based) of a scalable filter with
  /// overall target p and tightening ratio r: p * (1 - r) * r^i. The layers'
  /// budgets sum to less than p, so the compound rate stays under p however
  /// many layers are added. For r = 0.5 this is RedisBloom's p/2, p/4, ...
  [[nodiscard]] static double scalable_layer_fpr(double p, double r, std::uint32_t i) noexcept;
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

  /// Whether merge/intersect with `other` would be accepted; when not and
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
  /// throws data_error otherwise.
  [[nodiscard]] static bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                               hash_kind hash, std::uint64_t seed,
                                               std::uint64_t items, detail::word_store words);

  friend bool operator==(const bloom_filter& a, const bloom_filter& b) noexcept;

 private:
  bloom_filter() = default;
  template <class Fn>
  void for_each_position(std::string_view item, Fn&& fn) const;
};

}  // namespace ringbloom
