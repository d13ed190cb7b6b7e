// ringbloom/filter/blocked64_bloom.hpp: the blocked Bloom filter addressed by
// a 64-bit item hash (kind "blocked64"): the blocked layout, faster lookups.
//
// What it is: the same 512-bit blocks and in-block positions as
// blocked_bloom_filter (all k bits of an item in one 64-byte cache line, so
// a lookup costs one memory miss, and the same false-positive rate: 0.97% at
// 10 bits per item with k = 6), but an item is placed by 64 bits of hash
// instead of 128. XXH3-64 of a short key costs about two thirds of XXH3-128,
// and the whole lookup (hash, block, test) is inline code with no call
// through a table: in code compiled with -mavx2 it is one straight run of
// about 40 instructions; compiled for plain x86-64, one direct call to the
// AVX-512 or AVX2 test (or the inline scalar one when the CPU has neither).
//
// When to use it: a filter that is queried far more than it is written
// (`bloom check`, an SSTable filter) and fits the blocked layout's rate. It
// is a separate kind, not a replacement: a blocked file and a blocked64 file
// with the same items hold different bits, so neither reads the other's
// items. Files of this kind need ringbloom with kind code 7 (older binaries
// refuse them with "unknown filter kind 7"). Moving a set from blocked to
// blocked64 means adding its items again (docs/format.md, "Migrating").
//
// Layout and positions (fixed: they are part of the file format):
//   - m is a multiple of 512; block b is words 8b..8b+7 (as blocked).
//   - x = XXH3-64(item, seed): the item's 64-bit hash. An integer key (the
//     uint64_t overloads) has x = fold(  (key + seed) * 0xc13fa9a902a6328f )
//     where fold(p) = high 64 bits XOR low 64 bits of the 128-bit product: a
//     different item space from strings (add(42) says nothing about "42").
//   - block = fastrange(x, m / 512) = (x * (m/512)) >> 64.
//   - h2 = x * 0x9e3779b97f4a7c15 mod 2^64, and bit j (0 <= j < k <= 16) goes
//     to position block_position(h2, j) of the block, exactly as in the
//     blocked kind: (uint32(h * c_j)) >> 23 with h the low 32 bits of h2 for
//     j < 8, the high 32 bits for j >= 8 (detail/bloom_hashing.hpp).
//   The hash code in a file is xxh3; other hashes are refused.
//
// Build flags: may_contain is inline and picks its test by the compiler's
// target macros (__AVX2__, __AVX512VL__), so compile every file of one
// program that includes this header with the same -m flags (as for any
// inline code: the linker keeps one copy of each inline function).
//
// Guarantees: no false negatives; add, add_many, may_contain,
// may_contain_many agree bit for bit, on every path (scalar, AVX2; tests).
// The measured rate at 10 bits per item is 0.97% (k = 6), within sampling of
// the blocked kind's model (bloom_math::blocked_fpr), tests/filter/blocked64_test.
//
// Thread safety: const calls may run concurrently; add and add_many need
// exclusive access (no add_concurrent in this kind).
//
// Example:
//
//   #include <ringbloom/filter/blocked64_bloom.hpp>
//   auto f = ringbloom::blocked64_bloom_filter::for_capacity(10'000'000, 0.01);
//   f.add("user:42");
//   if (!f.may_contain("user:43")) { /* skip the disk read */ }
//   f.add(std::uint64_t{42});           // integer keys: their own item space
//   bool seen = f.may_contain(std::uint64_t{42});   // true
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {

class blocked64_bloom_filter {
 public:
  static constexpr std::uint64_t block_bits = 512;
  static constexpr std::size_t block_words = 8;

  /// An empty filter of at least `bits` bits (whole 512-bit blocks) and
  /// `hashes` bits per item. Throws std::invalid_argument unless
  /// 1 <= bits <= max_filter_bits and 1 <= hashes <= 16.
  blocked64_bloom_filter(std::uint64_t bits, std::uint32_t hashes, std::uint64_t seed = 0);

  /// An empty filter sized as the blocked kind (bloom_math::blocked_size_for):
  /// the layouts are the same, so are the rates.
  [[nodiscard]] static blocked64_bloom_filter for_capacity(std::uint64_t capacity, double fpr,
                                                           std::uint64_t seed = 0);

  blocked64_bloom_filter(const blocked64_bloom_filter& other);
  blocked64_bloom_filter(blocked64_bloom_filter&& other) noexcept;
  blocked64_bloom_filter& operator=(const blocked64_bloom_filter& other);
  blocked64_bloom_filter& operator=(blocked64_bloom_filter&& other) noexcept;
  ~blocked64_bloom_filter() = default;

  /// The 64-bit hash an item (or integer key) is placed by.
  [[nodiscard]] std::uint64_t hash_item(std::string_view item) const noexcept {
    return detail::blocked64_item_hash(item, seed_);
  }
  [[nodiscard]] std::uint64_t hash_key(std::uint64_t key) const noexcept {
    return detail::blocked64_key_hash(key, seed_);
  }

  void add(std::string_view item) { add_hash(hash_item(item)); }
  void add(std::uint64_t key) { add_hash(hash_key(key)); }
  void add_hash(std::uint64_t x);
  /// add_hash for many hashes: one call into the block kernels for all.
  void add_hashes(std::span<const std::uint64_t> xs);

  /// One lookup, inline: hash, block, test (see the top of this file).
  [[nodiscard]] bool may_contain(std::string_view item) const noexcept {
    return may_contain_hash(hash_item(item));
  }
  [[nodiscard]] bool may_contain(std::uint64_t key) const noexcept {
    return may_contain_hash(hash_key(key));
  }
  [[nodiscard]] bool may_contain_hash(std::uint64_t x) const noexcept {
    const std::uint64_t* block = words_ + detail::fastrange64(x, blocks_) * block_words;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX512F__) && defined(__AVX512VL__)
    return detail::blocked64_test_avx512(block, h2, k_);
#elif defined(__AVX2__)
    return detail::blocked64_test_avx2(block, h2, k_);
#else
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
    if (avx512_lanes_ != 0) [[likely]]
      return detail::blocked64_test8_avx512(block, static_cast<std::uint32_t>(h2), avx512_lanes_);
    if (path_ == simd_path::avx512) return detail::blocked64_test_avx512(block, h2, k_);
    if (path_ == simd_path::avx2) return detail::blocked64_test_avx2(block, h2, k_);
#endif
    return detail::blocked64_test_scalar(block, h2, k_);
#endif
  }

  /// Batch add and lookup: the same bits and answers as add / may_contain
  /// for each item, faster for many (each item hashed once and its block
  /// prefetched once, a chunk ahead of the test). out[i] for i >=
  /// items.size() is left alone; throws std::invalid_argument when
  /// out.size() < items.size(). The uint64_t forms take integer keys (not
  /// hashes). may_contain_many returns how many are true.
  void add_many(std::span<const std::string_view> items);
  void add_many(std::span<const std::string> items);
  void add_many(std::span<const std::uint64_t> keys);
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::uint64_t> keys, std::span<bool> out) const;

  /// The block test in use: avx512 (AVX-512F and VL), avx2 or scalar, the
  /// best the CPU has. use_simd_path forces one (tests, benchmarks); throws
  /// std::invalid_argument when the CPU lacks it.
  [[nodiscard]] simd_path simd() const noexcept { return path_; }
  void use_simd_path(simd_path path);

  /// The block of a hash, an item's k global bit positions, and --explain.
  [[nodiscard]] std::uint64_t block_of(std::uint64_t x) const noexcept {
    return detail::fastrange64(x, blocks_);
  }
  [[nodiscard]] std::vector<std::uint64_t> positions(std::string_view item) const;
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;
  [[nodiscard]] bool bit(std::uint64_t position) const noexcept { return core_.bit(position); }

  /// Union / intersection with a blocked64 filter of the same m, k and seed;
  /// std::invalid_argument (filter unchanged) otherwise.
  void merge(const blocked64_bloom_filter& other);
  void intersect(const blocked64_bloom_filter& other);
  [[nodiscard]] bool compatible_with(const blocked64_bloom_filter& other,
                                     std::string* why = nullptr) const {
    return core_.compatible_with(other.core_, why);
  }
  void clear() { core_.clear(); }

  [[nodiscard]] std::uint64_t bits() const noexcept { return core_.bits(); }
  [[nodiscard]] std::uint32_t hashes() const noexcept { return k_; }
  [[nodiscard]] hash_kind hash() const noexcept { return hash_kind::xxh3; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint64_t items_added() const noexcept { return core_.items_added(); }
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] bool read_only() const noexcept { return core_.read_only(); }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return core_.words(); }
  /// As blocked_bloom_filter's (same layout, so the same formulas).
  [[nodiscard]] double estimated_items() const noexcept { return core_.estimated_items(); }
  [[nodiscard]] filter_stats stats() const;

  /// For the file loader: as blocked_bloom_filter::from_words with hash xxh3.
  [[nodiscard]] static blocked64_bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                                         std::uint64_t seed, std::uint64_t items,
                                                         detail::word_store words);

  friend bool operator==(const blocked64_bloom_filter& a,
                         const blocked64_bloom_filter& b) noexcept {
    return a.core_ == b.core_;
  }

 private:
  explicit blocked64_bloom_filter(blocked_bloom_filter core);
  /// Refreshes the hot-path copies below from core_ (after a copy or move).
  void sync() noexcept;

  // The words, counts and shape live in a blocked filter (the same layout);
  // only its placement of items is not used.
  blocked_bloom_filter core_;
  // Hot-path copies: the lookup reads these and nothing else.
  const std::uint64_t* words_ = nullptr;
  std::uint64_t blocks_ = 0;
  std::uint64_t seed_ = 0;
  std::uint32_t k_ = 0;
  // detail::blocked64_lane_mask(k_) when the path is avx512 and k_ <= 8 (the
  // one-round test, one branch on the hot path), else 0.
  std::uint32_t avx512_lanes_ = 0;
  simd_path path_ = simd_path::scalar;
};

}  // namespace ringbloom
