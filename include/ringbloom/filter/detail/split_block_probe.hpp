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

}  // namespace ringbloom::detail
