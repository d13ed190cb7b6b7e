// ringbloom/filter/fast_bloom.hpp: the fast Bloom filter (kind "fast"): the
// fastest adds and lookups, one bit per 64-bit word of a 512-bit block, at a
// slightly higher rate than blocked64's in the same memory.
//
// What it is: a blocked filter (all of an item's bits in one 64-byte cache
// line, so a lookup or an add costs one memory miss) placed by the same
// XXH3-64 item hash as blocked64, but a "split block": an item sets exactly
// one bit in each of its block's eight 64-bit words (k = 8), or two (k =
// 16). The eight bits come from one vector multiply, the block's mask from
// two variable shifts, and an add is two 32-byte ORs, a lookup two 32-byte
// tests: in code compiled with -mavx2 an add of a 16-byte key is about 53
// instructions (blocked64: 94, whose k bits fall anywhere in the block and
// need a 512-bit mask built bit by bit; Boost.Bloom's fast_multiblock32<8>:
// 71), a lookup about 56 (blocked64 64, Boost 69).
//
// The price is the rate. One bit per word fills the words less evenly than
// free positions in the block: at 10 bits per item the model
// (bloom_math::blocked_fpr with 8 parts) gives 1.05% with k = 8, where
// blocked64 gives 0.97% with k = 6 and a 256-bit block with one bit per
// 32-bit word (Boost.Bloom's fast_multiblock32<8>) 1.27%. For the same rate
// it takes 1-5% more memory than blocked64: 1% costs 10.10 bits per item
// (blocked64 9.92), 0.1% 15.72 (15.55), 0.01% 22.88 (22.03), 1e-6 39.0
// (38.8). Sizing chooses k = 8 down to rates near 2e-4 and k = 16 below.
//
// When to use it: the default kind (default_filter_kind, what `bloom create`
// and Python's BloomFilter make without a kind): adds and lookups as fast as
// possible, for a rate 8% higher than blocked64's in the same memory (or
// 0.5-4% more memory for the same rate): caches in front of a store,
// deduplication of streams, join filters. docs/bloom.md ("Which
// kind") and docs/performance.md have the measurements. It is its own kind:
// a fast file and a blocked64 file with the same items hold different bits.
// Files of this kind need ringbloom with kind code 10 (older binaries refuse
// them with "unknown filter kind 10"). Moving a set to it means adding its
// items again.
//
// Layout and positions (fixed: they are part of the file format):
//   - m is a multiple of 512; block b is words 8b..8b+7.
//   - x = XXH3-64(item, seed), exactly blocked64's item hash; an integer key
//     (the uint64_t overloads) has x = fold((key + seed) *
//     0xc13fa9a902a6328f), fold(p) = high 64 bits XOR low 64 bits of the
//     128-bit product: a different item space from strings.
//   - block = fastrange(x, m / 512) = (x * (m/512)) >> 64.
//   - h2 = x * 0x9e3779b97f4a7c15 mod 2^64, h its low 32 bits, and bit j
//     (0 <= j < k, k = 8 or 16) goes to word j mod 8 of the block, bit
//     (uint32(h * c_j)) >> 26 of that word (0..63), c_j the blocked kind's 16
//     multipliers (detail/bloom_hashing.hpp). So each word gets k / 8 bits.
//   The hash code in a file is xxh3; other hashes are refused. k is 8 or 16:
//   other values are refused when made (std::invalid_argument) and loaded
//   (data_error).
//
// Inserts and lookups: in code compiled with -mavx2 (GCC, Clang), add and
// may_contain are inline AVX2 code; compiled for plain x86-64, when the CPU
// has AVX2 (a flag set at construction), the same AVX2 instructions inline
// as assembly for k = 8 and one direct call to the AVX2 add or test for k =
// 16; the scalar code when it has not (detail/split_block_probe.hpp).
// add_many and may_contain_many hash each item once and prefetch its block
// 64 items ahead (into L2 for filters above 16 MiB, into L1 below), and run
// AVX2 code whenever the CPU has it.
//
// Build flags: compile every file of one program that includes this header
// with the same -m flags (as for blocked64: may_contain and add are inline
// and pick their code by the compiler's target macros).
//
// Guarantees: no false negatives; add, add_many, may_contain and
// may_contain_many agree bit for bit on every path (scalar, AVX2;
// tests/filter/fast_bloom_test.cpp). The measured rate matches
// bloom_math::blocked_fpr(n, m, k, 512, 8) within sampling (same test).
//
// Thread safety: const calls may run concurrently; add and add_many need
// exclusive access.
//
// Example:
//
//   #include <ringbloom/filter/fast_bloom.hpp>
//   auto f = ringbloom::fast_bloom_filter::for_capacity(10'000'000, 0.01);
//   f.add("user:42");
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
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/hash64_filter.hpp"
#include "ringbloom/filter/detail/split_block_probe.hpp"

namespace ringbloom {

/// The members not declared here (size_for, fpr_for, for_capacity,
/// hash_item, add, may_contain of items and keys, positions, explain, merge,
/// stats, the accessors) are detail::hash64_filter's, shared with blocked64,
/// with this kind's positions and rate (the rule above).
class fast_bloom_filter : public detail::hash64_filter<fast_bloom_filter, 9> {
 public:
  static constexpr filter_kind kind = filter_kind::fast;
  static constexpr std::string_view what = "a fast Bloom filter";
  /// A block is 8 parts (its 64-bit words), each given k / 8 of an item's bits.
  static constexpr std::uint32_t block_parts = 8;

  /// An empty filter of at least `bits` bits (whole 512-bit blocks) and
  /// `hashes` bits per item. Throws std::invalid_argument unless 1 <= bits
  /// <= max_filter_bits and hashes is 8 or 16.
  fast_bloom_filter(std::uint64_t bits, std::uint32_t hashes, std::uint64_t seed = 0)
      : hash64_filter(bits, check_hashes(hashes), seed) {}

  /// Items in flight in a batch: add_many and may_contain_many hash an item
  /// and prefetch its block this many items ahead (blocked64's ring).
  static constexpr std::size_t batch_chunk = 64;

  /// Bit j's position in its block: word j % 8, bit split_block_bit(h2, j).
  [[nodiscard]] static std::uint32_t block_position(std::uint64_t h2, std::uint32_t j) noexcept {
    return 64 * (j & 7) + detail::split_block_bit(h2, j);
  }

  /// One lookup, inline: block, test (see the top of this file).
  [[nodiscard]] bool may_contain_hash(std::uint64_t x) const noexcept {
    const std::uint64_t* block = data_ + detail::fastrange64(x, blocks_) * block_words;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX2__)
    return detail::split_block_test_avx2(block, h2, hashes_);
#else
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
    if (path_ != simd_path::scalar) [[likely]] {
#ifdef RINGBLOOM_SPLIT_BLOCK_HAVE_ASM
      if (hashes_ == 8) [[likely]]
        return detail::split_block_test8_asm(block, h2);
#endif
      return detail::split_block_test_avx2(block, h2, hashes_);
    }
#endif
    return detail::split_block_test_scalar(block, h2, hashes_);
#endif
  }

  /// Batch lookup (add_many is hash64_filter's): the same answers as
  /// may_contain for each item, faster for many. out[i] for i >= items.size()
  /// is left alone; throws std::invalid_argument when out.size() <
  /// items.size(). The uint64_t forms take integer keys (not hashes).
  /// Returns how many are true.
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::uint64_t> keys, std::span<bool> out) const;

  /// Which block code this CPU runs: avx2 needs AVX2 (there is no AVX-512
  /// code: the AVX2 add and test are already two 32-byte operations).
  [[nodiscard]] static bool path_supported(simd_path path) noexcept;

  /// Sets the item's k bits in its block: the AVX2 add inline in code
  /// compiled with -mavx2, the scalar one otherwise.
  static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
#if defined(__AVX2__)
    detail::split_block_set_avx2(block, h2, k);
#else
    detail::split_block_set_scalar(block, h2, k);
#endif
  }
  /// The same bits for add: compiled for plain x86-64, one direct call to
  /// the AVX2 add when `path` (the filter's simd()) is not scalar.
  static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k,
                        simd_path path) noexcept {
#if !defined(__AVX2__) && defined(RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE)
    if (path != simd_path::scalar) [[likely]] {
#ifdef RINGBLOOM_SPLIT_BLOCK_HAVE_ASM
      if (k == 8) [[likely]] {
        detail::split_block_set8_asm(block, h2);
        return;
      }
#endif
      detail::split_block_set_avx2(block, h2, k);
      return;
    }
#else
    (void)path;
#endif
    set_block(block, h2, k);
  }

  /// add_many's work on `words` (`blocks` blocks; the filter's own, or a
  /// file's for an in-place add): the bits of set_block for each item, with
  /// the AVX2 add when this CPU has AVX2, whatever the build's flags.
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::string_view> items);
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::string> items);
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::uint64_t> keys);

  /// For the file loader: requires bits % 512 == 0, hashes 8 or 16 and
  /// words.size() == bits / 64; throws data_error otherwise.
  [[nodiscard]] static fast_bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                                    std::uint64_t seed, std::uint64_t items,
                                                    detail::word_store words);

 private:
  friend class detail::hash64_filter<fast_bloom_filter, 9>;
  fast_bloom_filter() = default;
  /// hashes when it is 8 or 16; std::invalid_argument otherwise.
  static std::uint32_t check_hashes(std::uint32_t hashes);
};

}  // namespace ringbloom
