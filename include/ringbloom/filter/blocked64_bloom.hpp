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
// When to use it: the lowest rate per bit of the kinds that touch one cache
// line per item (any k up to 16, bits anywhere in the block), when that
// matters more than the speed of adds. The default kind, fast
// (fast_bloom.hpp), adds and looks up faster (one bit per 64-bit word of the
// block) at a rate about 8% higher in the same memory. It is a separate kind from blocked: a
// blocked file and a blocked64 file with the same items hold different bits,
// so neither reads the other's items. Files of this kind need ringbloom with
// kind code 7 (older binaries refuse them with "unknown filter kind 7").
// Moving a set from blocked to blocked64 means adding its items again
// (docs/format.md, "Migrating").
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
// Inserts: an item's k bits fall anywhere in its 512-bit block (not one per
// word), so an add builds the block's whole 512-bit mask and ORs it in. With
// AVX2 (detail::blocked64_set_avx2) the k = 6 positions come from one vector
// multiply, their mask from a 1 KiB table of one-hot rows and from variable
// shifts, and the block takes two 32-byte ORs; without AVX2, one scalar OR
// per position. What the fast path needs: a CPU with AVX2. Code compiled
// with -mavx2 has the AVX2 add inline; code compiled for plain x86-64 calls
// it directly (one call per add) when the CPU has AVX2, and add_many always
// runs it on such a CPU (runtime check, the library stays plain x86-64).
// The freedom of position is what keeps the rate at 0.96-0.97% at 10 bits
// per item, where a filter that sets one bit per 32-bit word of a 256-bit
// block (Boost.Bloom's fast_multiblock32<8>) measures 1.25-1.27% in the same
// memory (about half a bit per item), but it makes an add cost more: at 1M
// keys about 94 instructions to Boost's 71 (the fast kind's: 53), so its
// inserts are slower than Boost.Bloom's where its lookups are faster. The
// measured figures are in docs/performance.md ("The default filter against
// Boost.Bloom"), with the command that reproduces them.
//
// Build flags: may_contain and add are inline and pick their code by the
// compiler's target macros (__AVX2__, __AVX512VL__), so compile every file
// of one program that includes this header with the same -m flags (as for
// any inline code: the linker keeps one copy of each inline function).
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
#include <utility>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/hash64_filter.hpp"

namespace ringbloom {

/// The members not declared here (construction by size, hash_item, add,
/// may_contain of items and keys, positions, merge, stats, the accessors) are
/// detail::hash64_filter's, shared with blocked1024 (their rule is the one
/// above with 512-bit blocks).
class blocked64_bloom_filter : public detail::hash64_filter<blocked64_bloom_filter, 9> {
 public:
  static constexpr filter_kind kind = filter_kind::blocked64;
  static constexpr std::string_view what = "a blocked64 Bloom filter";

  /// An empty filter of at least `bits` bits (whole 512-bit blocks) and
  /// `hashes` bits per item. Throws std::invalid_argument unless
  /// 1 <= bits <= max_filter_bits and 1 <= hashes <= 16.
  blocked64_bloom_filter(std::uint64_t bits, std::uint32_t hashes, std::uint64_t seed = 0)
      : hash64_filter(bits, hashes, seed) {}

  /// Items in flight in a batch: add_many and may_contain_many hash an item
  /// and prefetch its block this many items before they set or test it (a
  /// ring, src/filter/hash64_batch.hpp). 64 measured best at 10M and 100M
  /// keys (3.9 and 5.9 ns per lookup against 4.2-4.9 and 6.8 with 32, 4.8-5.0
  /// and 6.2 with 128; equal at 1M), as whole chunks; a power of two.
  static constexpr std::size_t batch_chunk = 64;

  /// One lookup, inline: block, test (see the top of this file).
  [[nodiscard]] bool may_contain_hash(std::uint64_t x) const noexcept {
    const std::uint64_t* block = data_ + detail::fastrange64(x, blocks_) * block_words;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX512F__) && defined(__AVX512VL__)
    return detail::blocked64_test_avx512(block, h2, hashes_);
#elif defined(__AVX2__)
    return detail::blocked64_test_avx2(block, h2, hashes_);
#else
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
    if (avx512_lanes_ != 0) [[likely]]
      return detail::blocked64_test8_avx512(block, static_cast<std::uint32_t>(h2), avx512_lanes_);
    if (path_ == simd_path::avx512) return detail::blocked64_test_avx512(block, h2, hashes_);
    if (path_ == simd_path::avx2) return detail::blocked64_test_avx2(block, h2, hashes_);
#endif
    return detail::blocked64_test_scalar(block, h2, hashes_);
#endif
  }

  /// Batch lookup (add_many is hash64_filter's): the same bits and answers as add / may_contain
  /// for each item, faster for many (each item hashed once and its block
  /// prefetched once, a chunk ahead of the test). out[i] for i >=
  /// items.size() is left alone; throws std::invalid_argument when
  /// out.size() < items.size(). The uint64_t forms take integer keys (not
  /// hashes). may_contain_many returns how many are true.
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::uint64_t> keys, std::span<bool> out) const;

  /// Which block tests this CPU runs: avx512 needs AVX-512F and VL, avx2
  /// AVX2 (simd() and use_simd_path are hash64_filter's).
  [[nodiscard]] static bool path_supported(simd_path path) noexcept;

  /// Sets the item's k bits in its block (the blocked kind's positions),
  /// inline: in code compiled with -mavx2, detail::blocked64_set_avx2 (the
  /// block's mask built in two registers, then two 32-byte ORs); otherwise
  /// detail::blocked64_set_scalar (one OR per position).
  static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
#if defined(__AVX2__)
    detail::blocked64_set_avx2(block, h2, k);
#else
    detail::blocked64_set_scalar(block, h2, k);
#endif
  }
  /// The same bits for add: compiled for plain x86-64, one direct call to
  /// the AVX2 add when `path` (the filter's simd()) is avx2 or avx512, so
  /// every build adds with AVX2 on a CPU that has it.
  static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k,
                        simd_path path) noexcept {
#if !defined(__AVX2__) && defined(RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE)
    if (path != simd_path::scalar) [[likely]] {
      detail::blocked64_set_avx2(block, h2, k);
      return;
    }
#else
    (void)path;
#endif
    set_block(block, h2, k);
  }

  /// add_many's work on `words` (`blocks` blocks; the filter's own, or a
  /// file's for an in-place add): the same bits as set_block for each item,
  /// with the AVX2 add (detail::blocked64_set_avx2) when this CPU has AVX2,
  /// whatever the build's flags; the scalar one otherwise.
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::string_view> items);
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::string> items);
  static void set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                        std::uint32_t k, std::span<const std::uint64_t> keys);

  /// For the file loader: requires bits % 512 == 0, 1 <= hashes <= 16 and
  /// words.size() == bits / 64; throws data_error otherwise.
  [[nodiscard]] static blocked64_bloom_filter from_words(std::uint64_t bits, std::uint32_t hashes,
                                                         std::uint64_t seed, std::uint64_t items,
                                                         detail::word_store words) {
    return from_words_checked(bits, hashes, seed, items, std::move(words));
  }

 private:
  friend class detail::hash64_filter<blocked64_bloom_filter, 9>;
  blocked64_bloom_filter() = default;
};

}  // namespace ringbloom
