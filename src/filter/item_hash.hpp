// src/filter/item_hash.hpp: XXH3 compiled into the filters' lookup paths
// (private to src/filter/): the blocked filter's item hashing and block
// test, and the cuckoo filter's item hash.
//
// Why a private header: a lookup of a short key is a few dozen instructions,
// so an out-of-line call to the library's xxh3_128, a hash128 passed through
// memory and an indirect call to a SIMD kernel per item cost as much as the
// probe itself (profile: ~120 instructions against Boost.Bloom's
// ~62). Here XXH3-128 is compiled into the caller (XXH_INLINE_ALL; these
// files are built for plain x86-64, so xxhash's AVX2 code and its forced -O2
// are not involved). The bits are the format's: the same functions as
// detail/bloom_hashing.hpp. (An inlined scalar block test was tried for
// single lookups and was slower than one indirect call to the AVX-512
// kernel: 11 against 8.5 ns at 1M keys, docs/performance.md.)
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <string_view>

#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::detail {

/// xxh3_128(data, seed), inlined. XXH3_128bits_withSeed is a plain (not
/// forced-inline) function even under XXH_INLINE_ALL and GCC keeps it out
/// of line, so this calls the force-inlined body it wraps (xxhash 0.8's
/// XXH3_128bits_internal with the default secret: the same function, so the
/// same bits; tests/hash_test.cpp and the golden filter files pin them).
[[nodiscard]] [[gnu::always_inline]] inline hash128 inline_xxh3_128(std::string_view data,
                                                                    std::uint64_t seed) noexcept {
#if XXH_VERSION_NUMBER >= 800
  const XXH128_hash_t h = XXH3_128bits_internal(data.data(), data.size(), seed, XXH3_kSecret,
                                                sizeof(XXH3_kSecret), XXH3_hashLong_128b_withSeed);
#else
  const XXH128_hash_t h = XXH3_128bits_withSeed(data.data(), data.size(), seed);
#endif
  return {h.low64, h.high64};
}

/// xxh3_64(data, seed), inlined, for the same reason and in the same way as
/// inline_xxh3_128 (XXH3_64bits_internal is the body XXH3_64bits_withSeed
/// wraps): the cuckoo filter's item hash.
[[nodiscard]] [[gnu::always_inline]] inline std::uint64_t inline_xxh3_64(
    std::string_view data, std::uint64_t seed) noexcept {
#if XXH_VERSION_NUMBER >= 800
  return XXH3_64bits_internal(data.data(), data.size(), seed, XXH3_kSecret, sizeof(XXH3_kSecret),
                              XXH3_hashLong_64b_withSeed);
#else
  return XXH3_64bits_withSeed(data.data(), data.size(), seed);
#endif
}

/// blocked_item_hash with the xxh3 case inlined.
[[nodiscard]] [[gnu::always_inline]] inline hash128 inline_blocked_item_hash(
    hash_kind kind, std::uint64_t seed, std::string_view item) noexcept {
  if (kind == hash_kind::xxh3) [[likely]]
    return inline_xxh3_128(item, seed);
  return blocked_item_hash(kind, seed, item);
}

}  // namespace ringbloom::detail
