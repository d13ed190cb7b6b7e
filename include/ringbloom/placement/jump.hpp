// ringbloom/placement/jump.hpp: jump consistent hash (Lamping and Veach, 2014), kept
// beside the ring for comparison.
//
// What it is. jump_hash(key, n) maps a 64-bit key to a bucket in [0, n) so
// that growing n to n+1 moves exactly the keys that land in the new bucket,
// about 1/(n+1) of them, with a perfectly even expected load and no memory.
//
// When to use it instead of hash_ring. When buckets are numbered 0..n-1 and
// only ever added or removed at the end (shards of a storage system). It
// cannot remove bucket 3 of 10, has no node names, no weights and no
// replica walk; a ring has all three.
//
// Cost: O(log n) iterations of a 64-bit multiply and a floating divide.
//
// Example:
//
//   #include <ringbloom/placement/jump.hpp>
//   std::uint32_t shard = ringbloom::jump_hash(ringbloom::xxh3_64("user:42"), 16);
#pragma once

#include <cstdint>

namespace ringbloom {

/// The bucket in [0, buckets) of `key`, by the published algorithm: a linear
/// congruential step (multiplier 2862933555777941757, from the paper) drives
/// the jumps. Stable: tests pin outputs. Throws std::invalid_argument if
/// buckets is 0.
[[nodiscard]] std::uint32_t jump_hash(std::uint64_t key, std::uint32_t buckets);

}  // namespace ringbloom
