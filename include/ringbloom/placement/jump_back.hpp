// ringbloom/placement/jump_back.hpp: JumpBackHash (Ertl 2024), jump
// consistent hashing in expected constant time with integer arithmetic.
//
// What it is. Otmar Ertl, "JumpBackHash: Say Goodbye to the Modulo Operation
// to Distribute Keys Uniformly to Buckets" (arXiv:2403.18682, 2024). Like
// jump hash (jump.hpp) it maps a key to a bucket in [0, n) so that growing n
// to n+1 moves exactly the keys that land in bucket n, with a perfectly even
// expected load. Instead of jumping forward from bucket 0 it walks *back*
// from the top: buckets are grouped by bit length (group m holds
// [2^m, 2^(m+1))), one random bit per group says whether the key's last jump
// lands in that group, and the highest such group below n gives the bucket.
//
//     V0, V1 = two 32-bit random values from the key;  u = (V0 ^ V1) mod 2^M,
//     M = bit length of n - 1
//     while u != 0:
//       m = the highest set bit of u
//       b = 2^m + (V0 or V1, by the parity of u's set bits) mod 2^m
//       repeat: if b < n return b; b = next random mod 2^(m+1)
//               until b < 2^m (the jump falls below the group)
//       clear bit m of u
//     return 0
//
// The random values come from SplitMix64 (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014) seeded with the
// key: each output's low and high 32 bits are two values. These outputs are
// part of the placement: tests pin them.
//
// When to use it. Wherever jump hash fits (numbered buckets, growth and
// shrinking at the end): a few nanoseconds instead of jump's O(log n) loop
// of floating divisions. memento.hpp uses it as its base.
//
// Example:
//
//   #include <ringbloom/placement/jump_back.hpp>
//   std::uint32_t shard = ringbloom::jump_back_hash(ringbloom::xxh3_64("user:42"), 16);
#pragma once

#include <bit>
#include <cstdint>

#include "ringbloom/mix.hpp"

namespace ringbloom {

/// The bucket in [0, n) of `key` (0 when n <= 1). Consistent: for every
/// key, jump_back_hash(key, n + 1) is jump_back_hash(key, n) or n.
[[nodiscard]] constexpr std::uint32_t jump_back_hash(std::uint64_t key, std::uint32_t n) noexcept {
  if (n <= 1) return 0;
  splitmix64 random{key};
  const std::uint64_t first = random.next();
  const auto v0 = static_cast<std::uint32_t>(first);
  const auto v1 = static_cast<std::uint32_t>(first >> 32);
  const int groups =
      static_cast<int>(std::bit_width(n - 1));  // groups 0 .. groups-1 hold buckets 1 .. n-1
  std::uint64_t u = (v0 ^ v1) & ((std::uint64_t{1} << groups) - 1);
  while (u != 0) {
    const int m = static_cast<int>(std::bit_width(u)) - 1;
    const std::uint64_t low = std::uint64_t{1} << m;
    const std::uint32_t v = (std::popcount(u) & 1) == 0 ? v0 : v1;
    std::uint64_t b = low + (v & (low - 1));
    while (true) {
      if (b < n) return static_cast<std::uint32_t>(b);
      // b lies in the group but beyond n - 1: draw the jump again within
      // [0, 2^(m+1)); below 2^m it leaves the group.
      b = static_cast<std::uint32_t>(random.next()) & ((low << 1) - 1);
      if (b < low) break;
    }
    u ^= low;
  }
  return 0;
}

}  // namespace ringbloom
