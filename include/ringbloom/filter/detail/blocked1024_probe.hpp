// ringbloom/filter/detail/blocked1024_probe.hpp: the blocked1024 filter's
// inline hot path: the in-block positions and the block test (scalar, AVX2,
// AVX-512), and the scalar add.
//
// Internal, but fixed: these functions decide which bits a blocked1024 file
// holds (blocked1024_bloom.hpp states the rule; golden files pin it). The
// item hash is blocked64's (detail/blocked64_probe.hpp: XXH3-64 inline for
// short items, the one-multiply mix for integer keys), and so is the
// in-block hash h2 = x * blocked64_mixer; only the block is twice as large.
//
// A block is 16 words = 32 dwords = 1024 bits. Bit j of an item is at
// p_j = (uint32(half_j * c_j)) >> 22 (0..1023), half_j the low 32 bits of h2
// for j < 8 and the high 32 bits for j >= 8, c_j the blocked kind's
// multipliers (bloom_hashing.hpp): that is block_position_in<10>. The
// vector tests read p_j as dword p_j >> 5, bit p_j & 31 (little-endian
// words: dword 2w is the low half of word w), which is the same bit as
// word p_j >> 6, bit p_j & 63.
//
//   AVX-512F: the block is two zmm registers (dwords 0..15 and 16..31); the
//     16 positions come from one 16-lane 32-bit multiply (lanes 0-7 take
//     the low half of h2, lanes 8-15 the high half); one two-source permute
//     (vpermt2d, whose index bit 4 picks the second source) fetches each
//     lane's dword; a rotate puts a one at the lane's bit, and a masked test
//     over the first k lanes finds a missing bit.
//   AVX2: four ymm registers; per round of 8 positions, each register is
//     permuted by the low 3 bits of the dword index and two levels of blends
//     (on index bits 3 and 4) pick the right one.
//
// Target attributes and dispatch are as blocked64's (see blocked64_probe.hpp):
// inlined into code compiled with -mavx2 / -mavx512f, one direct call from
// code compiled for plain x86-64, chosen by a member flag set from the CPU.
#pragma once

#include <cstdint>

#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom::detail {

/// Words and bits of one blocked1024 block.
inline constexpr std::uint64_t blocked1024_block_bits = 1024;
inline constexpr std::size_t blocked1024_block_words = 16;

/// Position (0..1023) of bit j of an item with in-block hash h2.
[[nodiscard]] inline std::uint32_t blocked1024_position(std::uint64_t h2,
                                                        std::uint32_t j) noexcept {
  return block_position_in<10>(h2, j);
}

/// Sets the item's k bits in its 16-word block (the add of every path: a
/// handful of scalar ORs, each to a word already in cache after the block's
/// prefetch).
inline void blocked1024_set(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t p = blocked1024_position(h2, j);
    block[p >> 6] |= std::uint64_t{1} << (p & 63);
  }
}

/// The scalar block test, the reference of the vector ones: whether bits
/// blocked1024_position(h2, j), j < k, are all set in the 16-word block.
[[nodiscard]] inline bool blocked1024_test_scalar(const std::uint64_t* block, std::uint64_t h2,
                                                  std::uint32_t k) noexcept {
  std::uint64_t all = 1;
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t p = blocked1024_position(h2, j);
    all &= block[p >> 6] >> (p & 63);
  }
  return (all & 1) != 0;
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
/// One AVX2 round of 8 positions over the block's four ymm quarters q0..q3
/// (dwords 0-7, 8-15, 16-23, 24-31); lanes at or above `lanes` are ignored.
[[gnu::target("avx2")]] inline bool blocked1024_round_avx2(__m256i q0, __m256i q1, __m256i q2,
                                                           __m256i q3, std::uint32_t half,
                                                           __m256i multipliers,
                                                           std::uint32_t lanes) noexcept {
  const __m256i p = _mm256_srli_epi32(
      _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(half)), multipliers), 22);
  const __m256i dword = _mm256_srli_epi32(p, 5);  // 0..31
  // blendv_ps picks by each lane's sign bit: shift index bit 3 (4) there.
  const __m256 bit3 = _mm256_castsi256_ps(_mm256_slli_epi32(dword, 28));
  const __m256 bit4 = _mm256_castsi256_ps(_mm256_slli_epi32(dword, 27));
  const __m256 low =
      _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(q0, dword)),
                       _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(q1, dword)), bit3);
  const __m256 high =
      _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(q2, dword)),
                       _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(q3, dword)), bit3);
  const __m256i fetched = _mm256_castps_si256(_mm256_blendv_ps(low, high, bit4));
  const __m256i used = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lanes)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i bit = _mm256_and_si256(
      _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(p, _mm256_set1_epi32(31))), used);
  return _mm256_testc_si256(fetched, bit) != 0;
}

/// blocked1024_test_scalar in AVX2 (same answers; tests/filter/blocked1024_test).
[[gnu::target("avx2")]] inline bool blocked1024_test_avx2(const std::uint64_t* block,
                                                          std::uint64_t h2,
                                                          std::uint32_t k) noexcept {
  const auto* v = reinterpret_cast<const __m256i*>(block);
  const __m256i q0 = _mm256_loadu_si256(v);
  const __m256i q1 = _mm256_loadu_si256(v + 1);
  const __m256i q2 = _mm256_loadu_si256(v + 2);
  const __m256i q3 = _mm256_loadu_si256(v + 3);
  const __m256i c0 = _mm256_setr_epi32(
      0x428a2f99, 0x71374491, static_cast<int>(0xb5c0fbcfU), static_cast<int>(0xe9b5dba5U),
      0x3956c25b, 0x59f111f1, static_cast<int>(0x923f82a5U), static_cast<int>(0xab1c5ed5U));
  const bool first = blocked1024_round_avx2(q0, q1, q2, q3, static_cast<std::uint32_t>(h2), c0, k);
  if (k <= 8) [[likely]]
    return first;
  const __m256i c1 = _mm256_setr_epi32(
      static_cast<int>(0xd807aa99U), 0x12835b01, 0x243185bf, 0x550c7dc3, 0x72be5d75,
      static_cast<int>(0x80deb1ffU), static_cast<int>(0x9bdc06a7U), static_cast<int>(0xc19bf175U));
  return first &&
         blocked1024_round_avx2(q0, q1, q2, q3, static_cast<std::uint32_t>(h2 >> 32), c1, k - 8);
}

/// 16 lanes of 32 bits, for the vector operators below.
using u32x16 = std::uint32_t __attribute__((vector_size(64)));

/// blocked1024_test_scalar in AVX-512F: all 16 positions in one round.
[[gnu::target("avx512f")]] inline bool blocked1024_test_avx512(const std::uint64_t* block,
                                                               std::uint64_t h2,
                                                               std::uint32_t k) noexcept {
  const __m512i lo = _mm512_loadu_si512(block);
  const __m512i hi = _mm512_loadu_si512(block + 8);
  // Lanes 0-7: the low 32 bits of h2; lanes 8-15: the high 32 bits.
  const __m512i halves = _mm512_mask_set1_epi32(
      _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h2))),
      static_cast<__mmask16>(0xff00), static_cast<int>(static_cast<std::uint32_t>(h2 >> 32)));
  const __m512i multipliers = _mm512_setr_epi32(
      0x428a2f99, 0x71374491, static_cast<int>(0xb5c0fbcfU), static_cast<int>(0xe9b5dba5U),
      0x3956c25b, 0x59f111f1, static_cast<int>(0x923f82a5U), static_cast<int>(0xab1c5ed5U),
      static_cast<int>(0xd807aa99U), 0x12835b01, 0x243185bf, 0x550c7dc3, 0x72be5d75,
      static_cast<int>(0x80deb1ffU), static_cast<int>(0x9bdc06a7U), static_cast<int>(0xc19bf175U));
  // The shifts and the and-not are written with GCC/Clang vector operators:
  // their intrinsics trip g++ 12's false "used uninitialized" (GCC bug
  // 105593) once inlined, and a header cannot silence that for its includers.
  const auto p = reinterpret_cast<u32x16>(_mm512_mullo_epi32(halves, multipliers)) >> 22;
  // vpermt2d reads index bits 0..4: dword p >> 5 of the 32 in (lo, hi).
  const auto fetched = reinterpret_cast<u32x16>(
      _mm512_permutex2var_epi32(lo, reinterpret_cast<__m512i>(p >> 5), hi));
  const u32x16 bit = (u32x16{} + 1U) << (p & 31U);
  const auto missing = reinterpret_cast<__m512i>(bit & ~fetched);
  const auto used = static_cast<__mmask16>((1U << k) - 1U);  // k <= 16
  return _mm512_mask_test_epi32_mask(used, missing, missing) == 0;
}
#endif

}  // namespace ringbloom::detail
