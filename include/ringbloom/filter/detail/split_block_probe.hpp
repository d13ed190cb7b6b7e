// ringbloom/filter/detail/split_block_probe.hpp: the fast kind's block add
// and test (scalar and AVX2): one bit per 64-bit word of a 512-bit block.
//
// Internal, but fixed: these functions decide which bits a fast file holds
// (fast_bloom.hpp states the rule; the golden file pins it). The scalar
// functions are the reference; the AVX2 ones set and test exactly the same
// bits (tests/filter/fast_bloom_test.cpp). The AVX2 functions have
// __attribute__((target("avx2"))), as blocked64's: inline in code compiled
// with -mavx2, one direct call from code compiled for plain x86-64.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ringbloom/filter/detail/blocked64_probe.hpp"  // RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom::detail {

/// Bit j of an item (0 <= j < 16) goes to word j % 8 of its block, at bit
/// split_block_bit(h2, j) of that word: the top 6 bits of the 32-bit product
/// of the low 32 bits of h2 and block_multipliers[j].
[[nodiscard]] inline std::uint32_t split_block_bit(std::uint64_t h2, std::uint32_t j) noexcept {
  return static_cast<std::uint32_t>(static_cast<std::uint32_t>(h2) * block_multipliers[j]) >> 26;
}

/// Sets bits j < k (k = 8 or 16) of the 8-word block, one OR per bit.
inline void split_block_set_scalar(std::uint64_t* block, std::uint64_t h2,
                                   std::uint32_t k) noexcept {
  for (std::uint32_t j = 0; j < k; ++j) block[j & 7] |= std::uint64_t{1} << split_block_bit(h2, j);
}

/// Whether bits j < k of the block are all set.
[[nodiscard]] inline bool split_block_test_scalar(const std::uint64_t* block, std::uint64_t h2,
                                                  std::uint32_t k) noexcept {
  std::uint64_t all = 1;
  for (std::uint32_t j = 0; j < k; ++j) all &= block[j & 7] >> split_block_bit(h2, j);
  return (all & 1) != 0;
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
/// block_multipliers in the lane order of split_block_mask_avx2: for each
/// round of 8, c0 c4 c1 c5 c2 c6 c3 c7 (64-bit lane w holds the multipliers
/// of words w and w + 4 in its low and high 32 bits).
struct alignas(32) split_block_lanes {
  std::array<std::uint32_t, 16> c;
};
[[nodiscard]] consteval split_block_lanes make_split_block_lanes() {
  split_block_lanes t{};
  for (std::uint32_t round = 0; round < 2; ++round) {
    for (std::uint32_t w = 0; w < 4; ++w) {
      t.c[8 * round + 2 * w] = block_multipliers[8 * round + w];
      t.c[8 * round + 2 * w + 1] = block_multipliers[8 * round + w + 4];
    }
  }
  return t;
}
inline constexpr split_block_lanes split_block_lane_constants = make_split_block_lanes();

/// The mask of bits 8r .. 8r + 7 (round r): words 0..3 in lo, 4..7 in hi.
/// One 32-bit multiply of the broadcast low half of h2 by eight multipliers;
/// the top 6 bits of each 32-bit product shifted down into its 64-bit lane
/// (the low products by a shift left 32 first); then 1 << count per lane.
[[gnu::target("avx2"), gnu::always_inline]] inline void split_block_round_avx2(
    std::uint64_t h2, std::uint32_t round, __m256i& lo, __m256i& hi) noexcept {
  const __m256i c = _mm256_load_si256(
      reinterpret_cast<const __m256i*>(split_block_lane_constants.c.data() + 8 * round));
  const __m256i product =
      _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2))), c);
  const __m256i one = _mm256_set1_epi64x(1);
  lo = _mm256_sllv_epi64(one, _mm256_srli_epi64(_mm256_slli_epi64(product, 32), 58));
  hi = _mm256_sllv_epi64(one, _mm256_srli_epi64(product, 58));
}

/// The block mask of bits j < k (k = 8 or 16).
[[gnu::target("avx2"), gnu::always_inline]] inline void split_block_mask_avx2(
    std::uint64_t h2, std::uint32_t k, __m256i& lo, __m256i& hi) noexcept {
  split_block_round_avx2(h2, 0, lo, hi);
  if (k > 8) [[unlikely]] {
    __m256i lo2;
    __m256i hi2;
    split_block_round_avx2(h2, 1, lo2, hi2);
    lo = _mm256_or_si256(lo, lo2);
    hi = _mm256_or_si256(hi, hi2);
  }
}

/// split_block_set_scalar in AVX2: the mask, then two 32-byte ORs
/// (unaligned accesses: the words of a file being added to in place need not
/// be aligned; a filter's own are, and then they cost nothing more).
[[gnu::target("avx2")]] inline void split_block_set_avx2(std::uint64_t* block, std::uint64_t h2,
                                                         std::uint32_t k) noexcept {
  __m256i lo;
  __m256i hi;
  split_block_mask_avx2(h2, k, lo, hi);
  auto* words = reinterpret_cast<__m256i*>(block);
  _mm256_storeu_si256(words, _mm256_or_si256(_mm256_loadu_si256(words), lo));
  _mm256_storeu_si256(words + 1, _mm256_or_si256(_mm256_loadu_si256(words + 1), hi));
}

/// split_block_test_scalar in AVX2: true when no bit of the mask is missing
/// from the block.
[[gnu::target("avx2")]] inline bool split_block_test_avx2(const std::uint64_t* block,
                                                          std::uint64_t h2,
                                                          std::uint32_t k) noexcept {
  __m256i lo;
  __m256i hi;
  split_block_mask_avx2(h2, k, lo, hi);
  const auto* words = reinterpret_cast<const __m256i*>(block);
  const __m256i missing = _mm256_or_si256(_mm256_andnot_si256(_mm256_loadu_si256(words), lo),
                                          _mm256_andnot_si256(_mm256_loadu_si256(words + 1), hi));
  return _mm256_testz_si256(missing, missing) != 0;
}
#endif

#if defined(RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE) && !defined(__AVX2__) && defined(__GNUC__)
/// The AVX2 add and test of k = 8 as inline assembly, for code compiled
/// without -mavx2 (fast_bloom.hpp uses them there when the CPU has AVX2).
///
/// Why: GCC and Clang do not inline a target("avx2") function into code
/// compiled for plain x86-64, so add and may_contain made one direct call
/// per item to split_block_set_avx2 / split_block_test_avx2. The call, its
/// argument moves and the caller's reloads of what the call clobbers cost
/// about 10 instructions per lookup (callgrind, a one-at-a-time lookup of a
/// 16-byte key: 60 with the call, 51 with this, 49 in the -mavx2 build), and
/// in a loop whose time is the memory misses it can overlap, fewer
/// instructions per item means more items in flight: the call measured
/// 1.15-1.2x the -mavx2 build's time. A scalar inline path measured about
/// 2x (eight separate loads or ORs per item). The
/// assembler takes AVX2 instructions whatever the -m flags; these are the
/// instructions the compiler makes of split_block_set_avx2 and
/// split_block_test_avx2 with k = 8 (the same bits: fast_bloom_test.cpp),
/// ending with vzeroupper, as the out-of-line functions do, so that the
/// caller's SSE code pays no penalty for the upper halves. Only when the CPU
/// has AVX2 (the caller checks); k = 16 keeps the call.
#define RINGBLOOM_SPLIT_BLOCK_HAVE_ASM 1

/// The 64-bit 1 that vpbroadcastq spreads over the lanes.
inline constexpr std::uint64_t split_block_one = 1;

/// split_block_set_avx2(block, h2, 8).
inline void split_block_set8_asm(std::uint64_t* block, std::uint64_t h2) noexcept {
  using line = std::uint64_t[8];
  __asm__(
      "vmovd %k[h], %%xmm0\n\t"
      "vpbroadcastd %%xmm0, %%ymm0\n\t"
      "vpmulld %[c], %%ymm0, %%ymm0\n\t"  // the 8 products h * c_j, 32-bit
      "vpbroadcastq %[one], %%ymm2\n\t"
      "vpsllq $32, %%ymm0, %%ymm1\n\t"
      "vpsrlq $58, %%ymm1, %%ymm1\n\t"  // words 0..3: top 6 bits of the low products
      "vpsrlq $58, %%ymm0, %%ymm0\n\t"  // words 4..7: of the high ones
      "vpsllvq %%ymm1, %%ymm2, %%ymm1\n\t"
      "vpsllvq %%ymm0, %%ymm2, %%ymm0\n\t"
      "vpor (%[p]), %%ymm1, %%ymm1\n\t"
      "vpor 32(%[p]), %%ymm0, %%ymm0\n\t"
      "vmovdqu %%ymm1, (%[p])\n\t"
      "vmovdqu %%ymm0, 32(%[p])\n\t"
      "vzeroupper"
      : "+m"(*reinterpret_cast<line*>(block))
      : [p] "r"(block), [h] "r"(h2), [c] "m"(split_block_lane_constants), [one] "m"(split_block_one)
      : "xmm0", "xmm1", "xmm2");
}

/// split_block_test_avx2(block, h2, 8).
[[nodiscard]] inline bool split_block_test8_asm(const std::uint64_t* block,
                                                std::uint64_t h2) noexcept {
  using line = std::uint64_t[8];
  bool all = false;
  __asm__(
      "vmovd %k[h], %%xmm0\n\t"
      "vpbroadcastd %%xmm0, %%ymm0\n\t"
      "vpmulld %[c], %%ymm0, %%ymm0\n\t"
      "vpbroadcastq %[one], %%ymm2\n\t"
      "vpsllq $32, %%ymm0, %%ymm1\n\t"
      "vpsrlq $58, %%ymm1, %%ymm1\n\t"
      "vpsrlq $58, %%ymm0, %%ymm0\n\t"
      "vpsllvq %%ymm1, %%ymm2, %%ymm1\n\t"
      "vpsllvq %%ymm0, %%ymm2, %%ymm0\n\t"
      "vmovdqu (%[p]), %%ymm2\n\t"
      "vpandn %%ymm1, %%ymm2, %%ymm1\n\t"  // bits of the mask missing from words 0..3
      "vmovdqu 32(%[p]), %%ymm2\n\t"
      "vpandn %%ymm0, %%ymm2, %%ymm0\n\t"
      "vpor %%ymm0, %%ymm1, %%ymm1\n\t"
      "vptest %%ymm1, %%ymm1\n\t"  // ZF: none missing
      "vzeroupper"
      : "=@ccz"(all)
      : [p] "r"(block), [h] "r"(h2), [c] "m"(split_block_lane_constants),
        [one] "m"(split_block_one), "m"(*reinterpret_cast<const line*>(block))
      : "xmm0", "xmm1", "xmm2");
  return all;
}
#endif

}  // namespace ringbloom::detail
