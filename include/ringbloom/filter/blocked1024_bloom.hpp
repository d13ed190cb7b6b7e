// ringbloom/filter/blocked1024_bloom.hpp: the blocked Bloom filter with
// 1024-bit blocks (kind "blocked1024"): blocked64's placement, fewer bits
// for the same rate, one more cache line per lookup.
//
// What it is: a blocked filter whose blocks are 1024 bits (two adjacent
// 64-byte cache lines) instead of 512. Larger blocks fill more evenly (the
// Poisson spread of items per block is relatively smaller), so for the same
// false-positive rate it needs less memory: at 1% the model
// (bloom_math::blocked_fpr with block_bits 1024) gives 9.76 bits per item
// with k = 7, against 9.92 for 512-bit blocks (k = 6) and 9.59 for a classic
// filter (k = 7). The price: a lookup reads two cache lines, not one (the
// second is adjacent, so in a large filter it usually arrives with the
// first, but both take room in the caches).
//
// When to use it: memory is what you are short of and the set is large, as
// for filters of SSTables kept in RAM; at 10 bits per item it measures
// 0.89% (model, k = 7) where blocked and blocked64 give 0.97%. When lookups must
// be as fast as possible, use blocked64 (one line). It is its own kind:
// neither blocked nor blocked64 files read its items. Files of this kind
// need ringbloom with kind code 8 (older binaries refuse them with
// "unknown filter kind 8"). Moving a set to it means adding its items again.
//
// Layout and positions (fixed: they are part of the file format):
//   - m is a multiple of 1024; block b is words 16b..16b+15.
//   - x = XXH3-64(item, seed), exactly blocked64's item hash; an integer
//     key (the uint64_t overloads) has x = fold((key + seed) *
//     0xc13fa9a902a6328f), fold(p) = high 64 bits XOR low 64 bits of the
//     128-bit product: a different item space from strings.
//   - block = fastrange(x, m / 1024) = (x * (m/1024)) >> 64.
//   - h2 = x * 0x9e3779b97f4a7c15 mod 2^64, and bit j (0 <= j < k <= 16) goes
//     to position p_j = (uint32(h * c_j)) >> 22 (0..1023) of the block, that
//     is bit p_j & 63 of word p_j >> 6, with h the low 32 bits of h2 for
//     j < 8, the high 32 bits for j >= 8, and c_j the blocked kind's 16
//     multipliers (detail/bloom_hashing.hpp). Only the shift differs from
//     blocked64 (22 instead of 23: 10-bit positions).
//   The hash code in a file is xxh3; other hashes are refused.
//
// Build flags: as blocked64 (may_contain is inline and picks its test by
// the compiler's target macros __AVX512F__ / __AVX2__, else by the CPU at
// run time): compile every file of one program that includes this header
// with the same -m flags.
//
// Guarantees: no false negatives; add, add_many, may_contain,
// may_contain_many agree bit for bit on every path (scalar, AVX2, AVX-512;
// tests/filter/blocked1024_test.cpp). The measured rate matches
// bloom_math::blocked_fpr(n, m, k, 1024) within sampling (same test).
//
// Thread safety: const calls may run concurrently; add and add_many need
// exclusive access.
//
// Example:
//
//   #include <ringbloom/filter/blocked1024_bloom.hpp>
//   auto f = ringbloom::blocked1024_bloom_filter::for_capacity(10'000'000, 0.01);
//   f.add("user:42");                   // 9.76 bits per item instead of 9.92
//   if (!f.may_contain("user:43")) { /* skip the disk read */ }
//   f.add(std::uint64_t{42});           // integer keys: their own item space
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"  // simd_path
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked1024_probe.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/hash64_filter.hpp"

namespace ringbloom {

/// The members not declared here (construction by size, size_for, fpr_for,
/// hash_item, add, may_contain of items and keys, positions, merge, stats,
/// the accessors) are detail::hash64_filter's, shared with blocked64 (their
/// rule is the one above with 1024-bit blocks).
class blocked1024_bloom_filter : public detail::hash64_filter<blocked1024_bloom_filter, 10> {
 public:
  static constexpr filter_kind kind = filter_kind::blocked1024;
  static constexpr std::string_view what = "a blocked1024 Bloom filter";

  /// An empty filter of at least `bits` bits (whole 1024-bit blocks) and
  /// `hashes` bits per item. Throws std::invalid_argument unless
  /// 1 <= bits <= max_filter_bits and 1 <= hashes <= 16.
  blocked1024_bloom_filter(std::uint64_t bits, std::uint32_t hashes, std::uint64_t seed = 0)
      : hash64_filter(bits, hashes, seed) {}

  /// Items per batch chunk (80 cache lines in flight). Measured (batched
  /// AVX-512 lookups, ns per key at 1M / 10M / 40M keys, 2026-12-01, a quiet
  /// machine, 1-2 runs each): 16 items 3.6 / 3.8 / 9.9; 32 items 3.7-3.9 /
  /// 3.7-3.8 / 6.2-6.4; 40 items 3.8 / 3.8 / 5.7-5.9; 48 items 4.3 / 4.2 / 5.9;
  /// 64 items 5.9 / 6.2 at 1M / 10M (too many prefetches outstanding: the
  /// prefetch instructions themselves stall).
  static constexpr std::size_t batch_chunk = 40;

  /// One lookup, inline: block, test (see the top of this file).
  [[nodiscard]] bool may_contain_hash(std::uint64_t x) const noexcept {
    const std::uint64_t* block = data_ + detail::fastrange64(x, blocks_) * block_words;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX512F__)
    return detail::blocked1024_test_avx512(block, h2, hashes_);
#elif defined(__AVX2__)
    return detail::blocked1024_test_avx2(block, h2, hashes_);
#else
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
    if (path_ == simd_path::avx512) [[likely]]
      return detail::blocked1024_test_avx512(block, h2, hashes_);
    if (path_ == simd_path::avx2) return detail::blocked1024_test_avx2(block, h2, hashes_);
#endif
    return detail::blocked1024_test_scalar(block, h2, hashes_);
#endif
  }

  /// Batch lookup (add_many is hash64_filter's): the same bits and answers as add / may_contain
  /// for each item, faster for many (each item hashed once and both lines
  /// of its block prefetched once, a chunk ahead of the test). out[i] for
  /// i >= items.size() is left alone; throws std::invalid_argument when
  /// out.size() < items.size(). The uint64_t forms take integer keys.
  /// may_contain_many returns how many are true.
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::uint64_t> keys, std::span<bool> out) const;

  /// Which block tests this CPU runs: avx512 needs AVX-512F (zmm registers,
  /// vpermt2d, vprorvd), avx2 AVX2 (simd() and use_simd_path are
  /// hash64_filter's).
  [[nodiscard]] static bool path_supported(simd_path path) noexcept;

  /// Sets the item's k bits in its block (a scalar OR per bit).
  static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
    detail::blocked1024_set(block, h2, k);
  }

  /// For the file loader: requires bits % 1024 == 0, 1 <= hashes <= 16 and
  /// words.size() == bits / 64; throws data_error otherwise.
  [[nodiscard]] static blocked1024_bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                                           std::uint64_t seed, std::uint64_t items,
                                                           detail::word_store words) {
    return from_words_checked(bits, hashes, seed, items, std::move(words));
  }

 private:
  friend class detail::hash64_filter<blocked1024_bloom_filter, 10>;
  blocked1024_bloom_filter() = default;
};

}  // namespace ringbloom
