// src/filter/item_hash.hpp: the blocked filter's item hashing and block test,
// inlined into the lookup paths (private to src/filter/).
//
// Why a private header: a lookup of a short key is a few dozen instructions,
// so an out-of-line call to the library's xxh3_128, a hash128 passed through
// memory and an indirect call to a SIMD kernel per item cost as much as the
// probe itself (issue 16's profile: ~120 instructions against Boost.Bloom's
// ~62). Here XXH3-128 is compiled into the caller (XXH_INLINE_ALL; these
// files are built for plain x86-64, so xxhash's AVX2 code and its forced -O2
// are not involved), and the in-block test is plain C++ the compiler inlines.
// The bits are the format's: the same functions as detail/bloom_hashing.hpp.
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <string_view>

#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::detail {

/// xxh3_128(data, seed), inlined.
[[nodiscard]] inline hash128 inline_xxh3_128(std::string_view data, std::uint64_t seed) noexcept {
  const XXH128_hash_t h = XXH3_128bits_withSeed(data.data(), data.size(), seed);
  return {h.low64, h.high64};
}

/// blocked_item_hash with the xxh3 case inlined.
[[nodiscard]] inline hash128 inline_blocked_item_hash(hash_kind kind, std::uint64_t seed,
                                                      std::string_view item) noexcept {
  if (kind == hash_kind::xxh3) [[likely]]
    return inline_xxh3_128(item, seed);
  return blocked_item_hash(kind, seed, item);
}

/// Whether all k bits of block_mask(h2, k) are set in `block`: the scalar
/// reference test, without branches on the bits (every probe of an item is
/// in the same cache line, so reading all k costs no extra miss, and a
/// negative answer costs no mispredicted branch).
[[nodiscard]] inline bool block_has_all(const std::uint64_t* block, std::uint64_t h2,
                                        std::uint32_t k) noexcept {
  std::uint64_t all = 1;
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t p = block_position(h2, j);
    all &= block[p >> 6] >> (p & 63);
  }
  return (all & 1) != 0;
}

}  // namespace ringbloom::detail
