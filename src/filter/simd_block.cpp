// The blocked filter's block operations: scalar, AVX2 and AVX-512, and the
// run-time choice between them (see ringbloom/filter/detail/simd.hpp).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/simd.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define RINGBLOOM_X86 1
#if defined(__GNUC__) && !defined(__clang__)
// g++ 12 warns that the intrinsics' own _mm512_undefined_epi32() "is / may be
// used uninitialized" once inlined at -O2 (GCC bug 105593, fixed in g++ 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace ringbloom {
namespace detail {
namespace {

// The batch loops are written once, over the kernel's `add` and `test`,
// which the compiler inlines into each instantiation (the per-ISA functions
// are always_inline, so the loop is compiled with their target too).

// --- scalar ---------------------------------------------------------------------

inline void scalar_mask(std::uint64_t h2, std::uint32_t k, std::uint64_t* out8) noexcept {
  const auto m = block_mask(h2, k);
  std::copy(m.begin(), m.end(), out8);
}

inline void scalar_add(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
  const auto m = block_mask(h2, k);
  for (std::size_t w = 0; w < 8; ++w) block[w] |= m[w];
}

inline bool scalar_test(const std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
  const auto m = block_mask(h2, k);
  // No early exit: eight ANDs are cheaper than an unpredictable branch.
  std::uint64_t missing = 0;
  for (std::size_t w = 0; w < 8; ++w) missing |= m[w] & ~block[w];
  return missing == 0;
}

void scalar_add_many(std::uint64_t* words, std::uint64_t blocks, std::uint32_t k,
                     const hash128* hashes, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 1);
    }
    scalar_add(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
  }
}

std::size_t scalar_test_many(const std::uint64_t* words, std::uint64_t blocks, std::uint32_t k,
                             const hash128* hashes, std::size_t n, bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 0);
    }
    const bool hit = scalar_test(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
    out[i] = hit;
    found += hit ? 1 : 0;
  }
  return found;
}

void scalar_mask_fn(std::uint64_t h2, std::uint32_t k, std::uint64_t* out8) noexcept {
  scalar_mask(h2, k, out8);
}
void scalar_add_fn(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
  scalar_add(block, h2, k);
}
bool scalar_test_fn(const std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept {
  return scalar_test(block, h2, k);
}

#ifdef RINGBLOOM_X86

// The multipliers as 64-bit lanes: _mm*_mul_epu32 multiplies the low 32 bits
// of each 64-bit lane into a full 64-bit product, whose bits 23..31 are the
// in-block position uint32(half * c_j) >> 23.
alignas(64) constexpr std::array<std::uint64_t, 16> lane_multipliers = [] {
  std::array<std::uint64_t, 16> c{};
  for (std::size_t j = 0; j < 16; ++j) c[j] = block_multipliers[j];
  return c;
}();

// The mask is built from the positions in vector registers too: position p
// is broadcast to every lane, and lane w computes 1 << (p - 64 w). The
// variable shifts give 0 for a count outside 0..63 (including the "negative"
// counts that wrap to huge unsigned ones), so exactly lane p >> 6 receives bit
// p & 63, and ORing the results merges positions that share a word. A
// position of `unused` (>= 1024) sets nothing (AVX2 gives it to lanes j >= k).
constexpr long long unused = 1024;

// --- AVX2: two 256-bit halves of 4 lanes -------------------------------------------

#define RINGBLOOM_AVX2 __attribute__((target("avx2"), always_inline)) inline

/// Positions of lanes first..first+3 of one round.
RINGBLOOM_AVX2 __m256i avx2_positions(__m256i half, std::size_t first) {
  const __m256i c =
      _mm256_load_si256(reinterpret_cast<const __m256i*>(lane_multipliers.data() + first));
  return _mm256_and_si256(_mm256_srli_epi64(_mm256_mul_epu32(half, c), 23),
                          _mm256_set1_epi64x(511));
}

/// ORs into lo/hi (words 0..3 / 4..7) the bit of the position in lane L of
/// `positions`.
template <int L>
RINGBLOOM_AVX2 void avx2_place(__m256i positions, __m256i& lo, __m256i& hi) {
  const __m256i p = _mm256_permute4x64_epi64(positions, L * 0x55);  // lane L everywhere
  const __m256i one = _mm256_set1_epi64x(1);
  lo = _mm256_or_si256(
      lo, _mm256_sllv_epi64(one, _mm256_sub_epi64(p, _mm256_setr_epi64x(0, 64, 128, 192))));
  hi = _mm256_or_si256(
      hi, _mm256_sllv_epi64(one, _mm256_sub_epi64(p, _mm256_setr_epi64x(256, 320, 384, 448))));
}

/// ORs into lo/hi the bits of the 4 positions of `first`..first+3, with
/// `unused` for the lanes j >= k.
RINGBLOOM_AVX2 void avx2_place4(__m256i half, std::size_t first, std::uint32_t k, __m256i& lo,
                                __m256i& hi) {
  const auto j = static_cast<long long>(first);
  const __m256i active =
      _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(j, j + 1, j + 2, j + 3));
  const __m256i positions =
      _mm256_blendv_epi8(_mm256_set1_epi64x(unused), avx2_positions(half, first), active);
  avx2_place<0>(positions, lo, hi);
  avx2_place<1>(positions, lo, hi);
  avx2_place<2>(positions, lo, hi);
  avx2_place<3>(positions, lo, hi);
}

RINGBLOOM_AVX2 void avx2_masks(std::uint64_t h2, std::uint32_t k, __m256i& lo, __m256i& hi) {
  // mul_epu32 reads only the low 32 bits of each lane: h2 itself is the low
  // half, h2 >> 32 the high one.
  lo = _mm256_setzero_si256();
  hi = _mm256_setzero_si256();
  const __m256i low_half = _mm256_set1_epi64x(static_cast<long long>(h2));
  avx2_place4(low_half, 0, k, lo, hi);
  if (k > 4) avx2_place4(low_half, 4, k, lo, hi);
  if (k > 8) {
    const __m256i high_half = _mm256_set1_epi64x(static_cast<long long>(h2 >> 32));
    avx2_place4(high_half, 8, k, lo, hi);
    if (k > 12) avx2_place4(high_half, 12, k, lo, hi);
  }
}

RINGBLOOM_AVX2 void avx2_add(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) {
  __m256i lo;
  __m256i hi;
  avx2_masks(h2, k, lo, hi);
  auto* b = reinterpret_cast<__m256i*>(block);
  _mm256_storeu_si256(b, _mm256_or_si256(_mm256_loadu_si256(b), lo));
  _mm256_storeu_si256(b + 1, _mm256_or_si256(_mm256_loadu_si256(b + 1), hi));
}

/// Whether the 4 positions of lanes first..first+3 that are below k are all
/// set in the block (words 0..3 in lo, 4..7 in hi). A lookup needs no mask:
/// lane j fetches word p_j >> 6 of the block (a 32-bit permute of each half,
/// then a blend by the half) and tests bit p_j & 63 in it.
RINGBLOOM_AVX2 bool avx2_all_set(__m256i half, std::size_t first, std::uint32_t k, __m256i lo,
                                 __m256i hi) {
  const auto j = static_cast<long long>(first);
  const __m256i active =
      _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(j, j + 1, j + 2, j + 3));
  const __m256i positions = avx2_positions(half, first);
  const __m256i word = _mm256_srli_epi64(positions, 6);
  // 32-bit indexes 2 (w mod 4) and 2 (w mod 4) + 1 in each 64-bit lane.
  const __m256i pair = _mm256_slli_epi64(_mm256_and_si256(word, _mm256_set1_epi64x(3)), 1);
  const __m256i index =
      _mm256_or_si256(pair, _mm256_slli_epi64(_mm256_add_epi64(pair, _mm256_set1_epi64x(1)), 32));
  const __m256i in_hi = _mm256_cmpgt_epi64(word, _mm256_set1_epi64x(3));
  const __m256i fetched = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, index),
                                             _mm256_permutevar8x32_epi32(hi, index), in_hi);
  const __m256i bit =
      _mm256_sllv_epi64(_mm256_set1_epi64x(1), _mm256_and_si256(positions, _mm256_set1_epi64x(63)));
  // testz(a, b) is 1 when (a & b) == 0: no active lane misses its bit.
  return _mm256_testz_si256(_mm256_andnot_si256(fetched, bit), active) != 0;
}

RINGBLOOM_AVX2 bool avx2_test(const std::uint64_t* block, std::uint64_t h2, std::uint32_t k) {
  const auto* b = reinterpret_cast<const __m256i*>(block);
  const __m256i lo = _mm256_loadu_si256(b);
  const __m256i hi = _mm256_loadu_si256(b + 1);
  const __m256i low_half = _mm256_set1_epi64x(static_cast<long long>(h2));
  // No early exit: a bitwise AND of the answers is cheaper than an
  // unpredictable branch (unsigned, so the intent is plain to the compiler).
  unsigned ok = static_cast<unsigned>(avx2_all_set(low_half, 0, k, lo, hi)) &
                static_cast<unsigned>(avx2_all_set(low_half, 4, k, lo, hi));
  if (k > 8) {
    const __m256i high_half = _mm256_set1_epi64x(static_cast<long long>(h2 >> 32));
    ok &= static_cast<unsigned>(avx2_all_set(high_half, 8, k, lo, hi)) &
          static_cast<unsigned>(avx2_all_set(high_half, 12, k, lo, hi));
  }
  return ok != 0;
}

__attribute__((target("avx2"))) void avx2_mask_fn(std::uint64_t h2, std::uint32_t k,
                                                  std::uint64_t* out8) noexcept {
  __m256i lo;
  __m256i hi;
  avx2_masks(h2, k, lo, hi);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out8), lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out8 + 4), hi);
}
__attribute__((target("avx2"))) void avx2_add_fn(std::uint64_t* block, std::uint64_t h2,
                                                 std::uint32_t k) noexcept {
  avx2_add(block, h2, k);
}
__attribute__((target("avx2"))) bool avx2_test_fn(const std::uint64_t* block, std::uint64_t h2,
                                                  std::uint32_t k) noexcept {
  return avx2_test(block, h2, k);
}

__attribute__((target("avx2"))) void avx2_add_many(std::uint64_t* words, std::uint64_t blocks,
                                                   std::uint32_t k, const hash128* hashes,
                                                   std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 1);
    }
    avx2_add(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
  }
}

__attribute__((target("avx2"))) std::size_t avx2_test_many(const std::uint64_t* words,
                                                           std::uint64_t blocks, std::uint32_t k,
                                                           const hash128* hashes, std::size_t n,
                                                           bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 0);
    }
    const bool hit = avx2_test(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
    out[i] = hit;
    found += hit ? 1 : 0;
  }
  return found;
}

// --- AVX-512: one 512-bit register holds the whole block ---------------------------

#define RINGBLOOM_AVX512 __attribute__((target("avx512f"), always_inline)) inline

RINGBLOOM_AVX512 __m512i avx512_positions(std::uint64_t half, std::size_t first) {
  const __m512i c = _mm512_load_si512(lane_multipliers.data() + first);
  const __m512i product = _mm512_mul_epu32(_mm512_set1_epi64(static_cast<long long>(half)), c);
  return _mm512_and_si512(_mm512_srli_epi64(product, 23), _mm512_set1_epi64(511));
}

/// ORs into m the bits of the positions of lanes first..first+7 that are
/// below k.
RINGBLOOM_AVX512 __m512i avx512_place8(__m512i m, std::uint64_t half, std::size_t first,
                                       std::uint32_t k) {
  const std::uint32_t lanes = std::min<std::uint32_t>(k - static_cast<std::uint32_t>(first), 8);
  const __m512i positions = avx512_positions(half, first);
  const __m512i base = _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448);
  const __m512i one = _mm512_set1_epi64(1);
  for (std::uint32_t j = 0; j < lanes; ++j) {
    const __m512i p = _mm512_permutexvar_epi64(_mm512_set1_epi64(j), positions);
    m = _mm512_or_si512(m, _mm512_sllv_epi64(one, _mm512_sub_epi64(p, base)));
  }
  return m;
}

RINGBLOOM_AVX512 __m512i avx512_mask(std::uint64_t h2, std::uint32_t k) {
  __m512i m = avx512_place8(_mm512_setzero_si512(), h2, 0, k);
  if (k > 8) m = avx512_place8(m, h2 >> 32, 8, k);
  return m;
}

RINGBLOOM_AVX512 void avx512_add(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) {
  _mm512_storeu_si512(block, _mm512_or_si512(_mm512_loadu_si512(block), avx512_mask(h2, k)));
}

/// The lanes (of first..first+7, below k) whose position is not set in the
/// block. A lookup needs no mask: lane j fetches word p_j >> 6 of the block
/// (one permute) and tests bit p_j & 63 in it.
RINGBLOOM_AVX512 __mmask8 avx512_unset(__m512i block, std::uint64_t half, std::size_t first,
                                       std::uint32_t k) {
  const std::uint32_t lanes = std::min<std::uint32_t>(k - static_cast<std::uint32_t>(first), 8);
  const __m512i positions = avx512_positions(half, first);
  // permutexvar reads the low 3 bits of each index: p >> 6 is 0..7.
  const __m512i fetched = _mm512_permutexvar_epi64(_mm512_srli_epi64(positions, 6), block);
  const __m512i bit =
      _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_and_si512(positions, _mm512_set1_epi64(63)));
  return _mm512_mask_testn_epi64_mask(static_cast<__mmask8>((1U << lanes) - 1), fetched, bit);
}

RINGBLOOM_AVX512 bool avx512_test(const std::uint64_t* block, std::uint64_t h2, std::uint32_t k) {
  const __m512i b = _mm512_loadu_si512(block);
  unsigned unset = avx512_unset(b, h2, 0, k);
  if (k > 8) unset |= avx512_unset(b, h2 >> 32, 8, k);
  return unset == 0;
}

__attribute__((target("avx512f"))) void avx512_mask_fn(std::uint64_t h2, std::uint32_t k,
                                                       std::uint64_t* out8) noexcept {
  _mm512_storeu_si512(out8, avx512_mask(h2, k));
}
__attribute__((target("avx512f"))) void avx512_add_fn(std::uint64_t* block, std::uint64_t h2,
                                                      std::uint32_t k) noexcept {
  avx512_add(block, h2, k);
}
__attribute__((target("avx512f"))) bool avx512_test_fn(const std::uint64_t* block, std::uint64_t h2,
                                                       std::uint32_t k) noexcept {
  return avx512_test(block, h2, k);
}

__attribute__((target("avx512f"))) void avx512_add_many(std::uint64_t* words, std::uint64_t blocks,
                                                        std::uint32_t k, const hash128* hashes,
                                                        std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 1);
    }
    avx512_add(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
  }
}

__attribute__((target("avx512f"))) std::size_t avx512_test_many(const std::uint64_t* words,
                                                                std::uint64_t blocks,
                                                                std::uint32_t k,
                                                                const hash128* hashes,
                                                                std::size_t n, bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) {
      __builtin_prefetch(words + fastrange64(hashes[i + prefetch_distance].low, blocks) * 8, 0);
    }
    const bool hit = avx512_test(words + fastrange64(hashes[i].low, blocks) * 8, hashes[i].high, k);
    out[i] = hit;
    found += hit ? 1 : 0;
  }
  return found;
}

#undef RINGBLOOM_AVX2
#undef RINGBLOOM_AVX512

#endif  // RINGBLOOM_X86

constexpr block_kernels scalar_kernels{simd_path::scalar, scalar_mask_fn,  scalar_add_fn,
                                       scalar_test_fn,    scalar_add_many, scalar_test_many};
#ifdef RINGBLOOM_X86
constexpr block_kernels avx2_kernels{simd_path::avx2, avx2_mask_fn,  avx2_add_fn,
                                     avx2_test_fn,    avx2_add_many, avx2_test_many};
constexpr block_kernels avx512_kernels{simd_path::avx512, avx512_mask_fn,  avx512_add_fn,
                                       avx512_test_fn,    avx512_add_many, avx512_test_many};
#endif

struct cpu_features {
  bool avx2 = false;
  bool avx512 = false;
};

cpu_features detect() noexcept {
  cpu_features f;
#ifdef RINGBLOOM_X86
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") != 0;
  f.avx512 = __builtin_cpu_supports("avx512f") != 0;
#endif
  return f;
}

const cpu_features& features() noexcept {
  static const cpu_features f = detect();
  return f;
}

}  // namespace

const block_kernels& kernels_for(simd_path path) noexcept {
  switch (path) {
#ifdef RINGBLOOM_X86
    case simd_path::avx512:
      return avx512_kernels;
    case simd_path::avx2:
      return avx2_kernels;
#endif
    default:
      return scalar_kernels;
  }
}

const block_kernels& best_kernels() noexcept {
  static const block_kernels& best = kernels_for(best_simd_path());
  return best;
}

}  // namespace detail

simd_path best_simd_path() noexcept {
  if (detail::features().avx512) return simd_path::avx512;
  if (detail::features().avx2) return simd_path::avx2;
  return simd_path::scalar;
}

bool simd_path_supported(simd_path path) noexcept {
  switch (path) {
    case simd_path::scalar:
      return true;
    case simd_path::avx2:
      return detail::features().avx2;
    case simd_path::avx512:
      return detail::features().avx512;
  }
  return false;
}

std::string_view simd_path_name(simd_path path) noexcept {
  switch (path) {
    case simd_path::scalar:
      return "scalar";
    case simd_path::avx2:
      return "avx2";
    case simd_path::avx512:
      return "avx512";
  }
  return "unknown";
}

}  // namespace ringbloom
