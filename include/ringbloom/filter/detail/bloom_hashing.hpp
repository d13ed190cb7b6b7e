// ringbloom/filter/detail/bloom_hashing.hpp: how items become positions.
//
// Internal, but fixed: these functions decide which bits a filter file
// holds, so changing any of them is a format change (golden files in
// tests/filter/data fail). The rules are stated in bloom.hpp and blocked_bloom.hpp.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "ringbloom/filter/detail/bloom_core.hpp"  // position_rule
#include "ringbloom/hash.hpp"
#include "ringbloom/mix.hpp"

namespace ringbloom::detail {

__extension__ using uint128 = unsigned __int128;

/// Lemire's multiply-shift range reduction ("Fast random integer generation
/// in an interval", ACM TOMACS 2019): maps x uniformly onto [0, n) with one
/// multiplication, no division; the bias is at most n / 2^64.
[[nodiscard]] inline std::uint64_t fastrange64(std::uint64_t x, std::uint64_t n) noexcept {
  return static_cast<std::uint64_t>((static_cast<uint128>(x) * n) >> 64);
}

/// Positions mix with splitmix64's finaliser (ringbloom/mix.hpp).
using ringbloom::mix13;

/// Calls fn(position) for the k positions of an item hashed with XXH3-128 by
/// mixed double hashing, the rule of every new classic, counting and
/// scalable filter (format version 3) and of the Redis BF's classic layers:
/// g_i = h1 + i * h2 (mod 2^64), h2 = the high half forced odd, position i =
/// fastrange64(mix13(g_i), m). Unmixed, the k positions are an arithmetic
/// progression fixed by two numbers of size m, so a stranger shares all of
/// them with some added item with probability about n / m^2: 56x the
/// formula's rate for 100 items at 1e-6 (m = 2876, k = 20). Mixed, they
/// behave as independent and measure at bloom_math::classic_fpr
/// (tests/filter/classic_rate_test.cpp). fn returns false to stop early.
/// Returns false if fn stopped it.
template <class Fn>
inline bool mixed_positions_from_hash(const hash128& h, std::uint64_t m, std::uint32_t k, Fn&& fn) {
  const std::uint64_t step = h.high | 1;
  std::uint64_t g = h.low;
  for (std::uint32_t i = 0; i < k; ++i) {
    if (!fn(fastrange64(mix13(g), m))) return false;
    g += step;
  }
  return true;
}

/// The rule of files of format versions 1 and 2 (their bits were set by it,
/// so such a filter keeps it for life): Kirsch-Mitzenmacher double hashing
/// g_i = h1 + i * h2 (mod 2^64), h2 forced odd, position fastrange64(g_i, m).
template <class Fn>
inline bool double_hashing_positions_from_hash(const hash128& h, std::uint64_t m, std::uint32_t k,
                                               Fn&& fn) {
  const std::uint64_t step = h.high | 1;
  std::uint64_t g = h.low;
  for (std::uint32_t i = 0; i < k; ++i) {
    if (!fn(fastrange64(g, m))) return false;
    g += step;
  }
  return true;
}

/// Calls fn(position) for the k classic positions of an item hashed with
/// XXH3-128, by the filter's rule (mixed, or double hashing for old files).
template <class Fn>
inline bool classic_positions_from_hash(const hash128& h, std::uint64_t m, std::uint32_t k,
                                        position_rule rule, Fn&& fn) {
  if (rule == position_rule::mixed) return mixed_positions_from_hash(h, m, k, fn);
  return double_hashing_positions_from_hash(h, m, k, fn);
}

/// The unreduced value behind classic position i for the hashes other than
/// xxh3: hash64(kind, "i:item") for sha256 and md5 (the German lesson),
/// poly31(item, salt = i) for poly31 (lab11). Position i is this value % m,
/// so a scalable filter can compute it once for all its layers.
[[nodiscard]] inline std::uint64_t classic_indexed_hash(hash_kind kind, std::uint64_t seed,
                                                        std::uint32_t i, std::string_view item,
                                                        std::string& buffer) {
  if (kind == hash_kind::poly31) return poly31(item, i);
  std::array<char, 16> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), i).ptr;
  buffer.assign(digits.data(), end);
  buffer.push_back(':');
  buffer.append(item);
  return hash64(kind, buffer, seed);
}

/// Calls fn(position) for the k classic positions of `item` (bloom.hpp's
/// table): xxh3 by `rule` (mixed double hashing, or plain double hashing
/// for files before version 3); sha256 and md5 as the German lesson,
/// hash64(kind, "i:item") % m; poly31 as lab11, poly31(item, salt = i) % m.
template <class Fn>
inline bool classic_positions(hash_kind kind, std::uint64_t seed, std::uint64_t m, std::uint32_t k,
                              position_rule rule, std::string_view item, Fn&& fn) {
  if (kind == hash_kind::xxh3) {
    return classic_positions_from_hash(xxh3_128(item, seed), m, k, rule, fn);
  }
  std::string buffer;
  for (std::uint32_t i = 0; i < k; ++i) {
    if (!fn(classic_indexed_hash(kind, seed, i, item, buffer) % m)) return false;
  }
  return true;
}

/// The 16 odd multipliers of the blocked filter's in-block positions: the
/// first 32 bits of the fractional parts of the cube roots of the first 16
/// primes (the SHA-256 round constants K_0..K_15 of FIPS 180-4), with the
/// lowest bit set. Nothing-up-my-sleeve numbers; any odd constants would do,
/// but these are fixed by the format.
inline constexpr std::array<std::uint32_t, 16> block_multipliers = {
    0x428a2f99, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a5, 0xab1c5ed5,
    0xd807aa99, 0x12835b01, 0x243185bf, 0x550c7dc3, 0x72be5d75, 0x80deb1ff, 0x9bdc06a7, 0xc19bf175,
};

/// Position (0..511) of bit j of an item inside its 512-bit block, for the
/// in-block hash h2: the top 9 bits of a 32-bit multiply-shift of the low
/// (j < 8) or high (j >= 8) 32 bits of h2. The bit is bit (p & 63) of word
/// (p >> 6) of the block: anywhere in the block, not one bit per word.
/// The same rule for a block of 2^LogBits bits: the top LogBits bits of the
/// same product (block_position is block_position_in<9>; the blocked1024
/// kind uses block_position_in<10>, 0..1023).
template <unsigned LogBits>
[[nodiscard]] inline std::uint32_t block_position_in(std::uint64_t h2, std::uint32_t j) noexcept {
  static_assert(LogBits >= 1 && LogBits <= 16);
  const auto half = static_cast<std::uint32_t>(j < 8 ? h2 : h2 >> 32);
  return static_cast<std::uint32_t>(half * block_multipliers[j]) >> (32 - LogBits);
}

[[nodiscard]] inline std::uint32_t block_position(std::uint64_t h2, std::uint32_t j) noexcept {
  return block_position_in<9>(h2, j);
}

/// The 8-word mask of an item's k bits inside its block. This is the scalar
/// reference every vectorised version must reproduce bit for bit.
[[nodiscard]] inline std::array<std::uint64_t, 8> block_mask(std::uint64_t h2,
                                                             std::uint32_t k) noexcept {
  std::array<std::uint64_t, 8> mask{};
  for (std::uint32_t j = 0; j < k; ++j) {
    const std::uint32_t p = block_position(h2, j);
    mask[p >> 6] |= std::uint64_t{1} << (p & 63);
  }
  return mask;
}

/// The 128-bit hash the blocked filter places an item by (blocked_bloom.hpp).
[[nodiscard]] inline hash128 blocked_item_hash(hash_kind kind, std::uint64_t seed,
                                               std::string_view item) noexcept {
  if (kind == hash_kind::xxh3) return xxh3_128(item, seed);
  const std::uint64_t h = hash64(kind, item, seed);
  std::array<char, 8> le{};
  for (std::size_t i = 0; i < 8; ++i) le[i] = static_cast<char>((h >> (8 * i)) & 0xff);
  return xxh3_128(std::string_view(le.data(), le.size()), 0);
}

}  // namespace ringbloom::detail
