// ringbloom/filter/detail/simd.hpp: the blocked filter's block operations, in one
// implementation per instruction set, chosen at run time.
//
// Internal. Every table computes exactly the bits of the scalar reference
// detail::block_mask (bloom_hashing.hpp): an item's in-block hash h2 and k
// give an 8-word mask; add ORs it into the item's block, test checks that
// every bit of it is set there. The AVX2 and AVX-512 versions compute the 8
// multiply-shifts side by side (one 64-bit lane per hash j):
//
//   lane j:  p_j = ((h2_half * c_j) >> 23) & 511   (a 32x32->64 multiply;
//                   bits 23..31 of the product are uint32(h2_half*c_j)>>23)
//
// and a second round with the high half of h2 and c_8..c_15 for k > 8.
// add builds the mask in vector registers (position p_j broadcast to every
// lane, lane w shifting a one left by p_j - 64 w: variable shifts give 0 for
// counts outside 0..63, so only word p_j >> 6 gets bit p_j & 63, and positions
// that share a word merge in the OR) and ORs it into the block. test needs no
// mask: lane j fetches word p_j >> 6 of the block with a permute and tests
// bit p_j & 63 in it. (Building the mask in scalar code and loading it into
// a vector measured 4-10x slower in cache, most likely because 8-byte
// stores do not forward to a wider load.)
//
// The code for a wider instruction set is compiled with
// __attribute__((target(...))) on its functions only, so the library builds
// for the baseline x86-64 (no -march flag) and uses AVX2 / AVX-512 only when
// the CPU it runs on reports them (__builtin_cpu_supports, which also checks
// that the OS saves the wider registers).
//
// The batch functions hash nothing: they take pre-computed hashes, prefetch
// the block of the hash `prefetch_distance` places ahead, and probe the
// current one, so up to that many memory misses are in flight at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ringbloom/hash.hpp"

namespace ringbloom {
enum class simd_path : std::uint8_t;
}  // namespace ringbloom

namespace ringbloom::detail {

/// How many hashes ahead the batch kernels prefetch. A miss to memory costs
/// ~100 ns and one probe a few ns, so 16 in flight keep the line fill buffers
/// of one core (10-16 on recent Intel and AMD cores) busy without thrashing.
inline constexpr std::size_t prefetch_distance = 16;

/// One implementation of the block operations. `words` is the filter's
/// word array of `blocks` 8-word blocks (8-byte aligned suffices: the vector
/// code uses unaligned loads, so mapped files work too).
struct block_kernels {
  simd_path path;
  /// The 8-word mask of (h2, k), as detail::block_mask.
  void (*mask)(std::uint64_t h2, std::uint32_t k, std::uint64_t* out8) noexcept;
  /// ORs the mask of (h2, k) into `block`.
  void (*add)(std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept;
  /// Whether every bit of the mask of (h2, k) is set in `block`.
  bool (*test)(const std::uint64_t* block, std::uint64_t h2, std::uint32_t k) noexcept;
  /// add for hashes[0..n): block = fastrange64(low, blocks), in-block hash
  /// high, prefetching ahead.
  void (*add_many)(std::uint64_t* words, std::uint64_t blocks, std::uint32_t k,
                   const hash128* hashes, std::size_t n) noexcept;
  /// test for hashes[0..n) into out[0..n); returns how many are true.
  std::size_t (*test_many)(const std::uint64_t* words, std::uint64_t blocks, std::uint32_t k,
                           const hash128* hashes, std::size_t n, bool* out) noexcept;
};

/// The kernels of `path`. Precondition: simd_path_supported(path).
[[nodiscard]] const block_kernels& kernels_for(simd_path path) noexcept;

/// The kernels of best_simd_path(), detected once.
[[nodiscard]] const block_kernels& best_kernels() noexcept;

}  // namespace ringbloom::detail
