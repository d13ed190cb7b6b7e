// ringbloom/filter/blocked_bloom.hpp: the blocked (cache-line) Bloom filter
// placed by a 128-bit hash (kind "blocked"): the default of earlier versions,
// and the blocked kind that takes any hash (sha256, md5, poly31). blocked64
// (blocked64_bloom.hpp) has the same layout and rate, faster; new filters
// default to fast (fast_bloom.hpp).
//
// A classic filter scatters an item's k bits over the whole array, so a
// lookup in a filter larger than the cache costs up to k memory misses. The
// blocked filter puts all k bits of an item into one 512-bit block (one
// 64-byte cache line), so a lookup costs one miss. The price is a higher
// false-positive rate for the same memory (blocks fill unevenly); the sizing
// (bloom_math::blocked_size_for, [PSS07] with an exact in-block term)
// accounts for it, so a filter made for (n, p) measures at p when filled
// with n distinct items (within sampling error; docs/bloom.md). For p = 1%
// that is 9.92 bits per item (k = 6) instead of the classic 9.59 (k = 7).
//
// Layout and positions (fixed: they are part of the file format):
//   - m is a multiple of 512; the filter has m / 512 blocks of 8 words of 64
//     bits, block b being words 8b..8b+7, 64-byte aligned in memory.
//   - The item's 128-bit hash (h1, h2): XXH3-128 of the item with the seed
//     for xxh3; for the other hashes, XXH3-128 (seed 0) of the 8
//     little-endian bytes of hash64(hash, item).
//   - block = fastrange(h1, m / 512) = (h1 * (m/512)) >> 64.
//   - bit j (0 <= j < k) of the item goes to position
//     p_j = (uint32(h * c_j)) >> 23 (0..511) of the block, that is bit
//     p_j & 63 of word p_j >> 6, where h is the low 32 bits of h2 for j < 8
//     and the high 32 bits for j >= 8, and c_j is the j-th of 16 odd 32-bit
//     constants (detail/bloom_hashing.hpp gives them and their source).
//   So the k bits may fall anywhere in the block (two may share a word, or
//   even a bit), as in RocksDB's cache-local filter: at 10 bits per item this
//   models at 0.966% (k = 6), where one bit in each of the 8 words would give
//   1.05% (docs/bloom.md). The k positions are independent multiply-shifts
//   that SIMD code computes 8 at a time. An item's 8-word mask is computed
//   once (block_mask) and ORed into, or compared with, the block.
//
// Speed: the block operations (computing the positions, OR-ing the mask in,
// testing it) run in AVX-512 or AVX2 when the CPU has them, chosen at run time
// (best_simd_path()); the scalar code is always there, and every path sets
// and tests exactly the same bits (tests/filter/blocked_simd_test.cpp).
// use_simd_path() forces one, for tests and benchmarks. For many items at
// once, add_many / may_contain_many hash a chunk of items first, prefetch
// their blocks, then probe, so that a filter much larger than the cache pays
// for its memory misses in parallel rather than one after another.
//
// Thread safety: as bloom_filter (add_concurrent / may_contain_concurrent).
// add_many needs exclusive access like add; may_contain_many is const and
// may run concurrently with other const calls.
//
// Example:
//
//   #include <ringbloom/filter/blocked_bloom.hpp>
//   auto f = ringbloom::blocked_bloom_filter::for_capacity(10'000'000, 0.01);
//   f.add("user:42");
//   if (!f.may_contain("user:43")) { /* skip the disk read */ }
//
//   std::vector<std::string_view> keys = ...;
//   auto answers = std::make_unique<bool[]>(keys.size());
//   f.may_contain_many(keys, {answers.get(), keys.size()});
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/bloom_core.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/filter/detail/simd.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

/// The instruction sets the blocked filter's block operations exist in.
/// Every path gives the same bits and answers; they differ only in speed.
enum class simd_path : std::uint8_t {
  scalar = 0,  ///< portable C++, always available
  avx2 = 1,    ///< 2 x 256-bit: 4 words of the block per instruction
  avx512 = 2,  ///< 512-bit (AVX-512F): the whole block in one register
};

/// The fastest path this CPU (and OS) supports, detected once: what every
/// filter uses unless told otherwise.
[[nodiscard]] simd_path best_simd_path() noexcept;

/// Whether this CPU (and OS) supports `path`; scalar always is.
[[nodiscard]] bool simd_path_supported(simd_path path) noexcept;

/// "scalar", "avx2" or "avx512".
[[nodiscard]] std::string_view simd_path_name(simd_path path) noexcept;

class blocked_bloom_filter : private detail::filter_core {
 public:
  static constexpr std::uint64_t block_bits = 512;
  static constexpr std::size_t block_words = 8;

  /// An empty filter of at least `bits` bits (rounded up to a whole number of
  /// 512-bit blocks) and `hashes` bits per item. Throws
  /// std::invalid_argument unless 1 <= bits <= max_filter_bits,
  /// 1 <= hashes <= max_blocked_hashes (16), and seed is 0 for hashes other
  /// than xxh3.
  blocked_bloom_filter(std::uint64_t bits, std::uint32_t hashes, hash_kind hash = default_hash,
                       std::uint64_t seed = 0);

  /// An empty filter sized by bloom_math::blocked_size_for(capacity, fpr).
  /// Throws std::invalid_argument for capacity 0 or fpr outside (0, 1).
  [[nodiscard]] static blocked_bloom_filter for_capacity(std::uint64_t capacity, double fpr,
                                                         hash_kind hash = default_hash,
                                                         std::uint64_t seed = 0);

  /// Sizing helpers in the user's units (see bloom_math).
  [[nodiscard]] static std::uint64_t bits_for(std::uint64_t capacity, double fpr) {
    return bloom_math::blocked_size_for(capacity, fpr).bits;
  }
  [[nodiscard]] static double fpr_for(std::uint64_t items, std::uint64_t bits,
                                      std::uint32_t hashes) noexcept {
    return bloom_math::blocked_fpr(static_cast<double>(items), bits, hashes);
  }

  /// The 128-bit hash an item is placed by (see the layout above). Batched
  /// and SIMD code hashes first, then calls the *_hash functions.
  [[nodiscard]] hash128 hash_item(std::string_view item) const noexcept;

  void add(std::string_view item) { add_hash(hash_item(item)); }
  void add_hash(hash128 h);
  /// Thread-safe add (atomic fetch_or per word); see bloom_filter.
  void add_concurrent(std::string_view item);

  /// One lookup: the hash is computed inline (no call), then the block is
  /// tested by the filter's SIMD kernel.
  [[nodiscard]] bool may_contain(std::string_view item) const noexcept;
  [[nodiscard]] bool may_contain_hash(hash128 h) const noexcept;

  /// Integer keys: a 64-bit key is placed by hash_key(key), two
  /// multiply-xorshift mixes of its value (about 1 ns, where hashing a
  /// string costs 3-5), as Boost.Bloom does for integers. This is a
  /// different item space from strings: add(42) and add("42") set different
  /// bits, and may_contain(42) says nothing about "42". A file does not
  /// record which space its items came from; keep to one per filter.
  [[nodiscard]] static hash128 hash_key(std::uint64_t key) noexcept;
  void add(std::uint64_t key) { add_hash(hash_key(key)); }
  [[nodiscard]] bool may_contain(std::uint64_t key) const noexcept {
    return may_contain_hash(hash_key(key));
  }
  /// may_contain with atomic (relaxed) loads; see bloom_filter.
  [[nodiscard]] bool may_contain_concurrent(std::string_view item) const;

  /// Batch add: the same bits and count as add() for each item in order,
  /// faster for many items (hash a chunk, prefetch its blocks, then set).
  /// The hash128 form takes hash_item() values. Needs exclusive access.
  void add_many(std::span<const std::string_view> items);
  void add_many(std::span<const std::string> items);
  void add_many(std::span<const hash128> hashes);

  /// Batch lookup: out[i] = may_contain(items[i]) for every i (out[i] for
  /// i >= items.size() is left alone); returns how many are true. `out` is
  /// a span of bool, one per item (std::vector<bool> packs its bits and has
  /// no span: use std::unique_ptr<bool[]> or std::array<bool, N>). Throws std::invalid_argument
  /// when out.size() < items.size(). Thread safety as may_contain.
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const hash128> hashes, std::span<bool> out) const;

  /// The instruction set this filter's block operations use: best_simd_path()
  /// unless use_simd_path() chose another. Not part of the filter's value
  /// (operator== and files ignore it); copies keep it.
  [[nodiscard]] simd_path simd() const noexcept;
  /// Forces `path`. Throws std::invalid_argument when the CPU does not
  /// support it (see simd_path_supported).
  void use_simd_path(simd_path path);

  /// The block an item goes to, and its k global bit positions
  /// (block * 512 + word * 64 + bit), in probe order.
  [[nodiscard]] std::uint64_t block_of(const hash128& h) const noexcept;
  [[nodiscard]] std::vector<std::uint64_t> positions(std::string_view item) const;
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;
  [[nodiscard]] bool bit(std::uint64_t position) const noexcept;

  /// In-place union / intersection; throws std::invalid_argument (filter
  /// unchanged) unless m, k, hash and seed agree. See bloom_filter.
  void merge(const blocked_bloom_filter& other);
  void intersect(const blocked_bloom_filter& other);
  [[nodiscard]] bool compatible_with(const blocked_bloom_filter& other,
                                     std::string* why = nullptr) const;
  void clear();

  // std::uint64_t bits(), std::uint32_t hashes(), hash_kind hash(),
  // std::uint64_t seed(), std::uint64_t items_added(): as bloom_filter's.
  using filter_core::bits;
  using filter_core::hash;
  using filter_core::hashes;
  using filter_core::items_added;
  using filter_core::seed;
  [[nodiscard]] std::uint64_t blocks() const noexcept { return bits_ / block_bits; }
  /// Swamidass-Baldi over the whole array, -(m/k) ln(1 - ones/m), as for a
  /// classic filter: every bit of an item lands uniformly in the m bits. The
  /// uneven load of the blocks makes it read low by about (k - 1) / 1024
  /// (0.6% for k = 7).
  [[nodiscard]] double estimated_items() const noexcept;
  /// expected_fpr is exact for the current bits: the average over blocks of
  /// (popcount(block) / 512)^k.
  [[nodiscard]] filter_stats stats() const;
  // bool read_only(), std::span<const std::uint64_t> words(): as
  // bloom_filter's (block b is words 8b..8b+7).
  using filter_core::read_only;
  using filter_core::words;

  /// For the file loader; requires bits % 512 == 0 and words.size() ==
  /// bits / 64; throws data_error otherwise.
  [[nodiscard]] static blocked_bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                                       hash_kind hash, std::uint64_t seed,
                                                       std::uint64_t items,
                                                       detail::word_store words);

  /// Copies `bytes`, whole little-endian words, over words [first, first +
  /// bytes.size() / 8) of this filter; the item count is unchanged. For
  /// loaders that restore a filter's words in pieces (layered_bloom's
  /// chunks). Throws data_error (filter unchanged) unless bytes.size() is a
  /// multiple of 8 and the words lie within the filter; std::logic_error for
  /// a read-only view.
  void load_words(std::uint64_t first, std::span<const unsigned char> bytes);

  friend bool operator==(const blocked_bloom_filter& a, const blocked_bloom_filter& b) noexcept;

 private:
  blocked_bloom_filter() = default;

  const detail::block_kernels* kernels_ = &detail::best_kernels();
};

}  // namespace ringbloom
