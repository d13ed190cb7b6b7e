// ringbloom/mix.hpp: 64-bit integer mixers and the SplitMix64 generator,
// shared by every family that derives values from a hash or needs a fixed
// stream of numbers.
//
// fmix64 (Austin Appleby's MurmurHash3 finaliser, public domain) and mix13
// (Stafford's "Mix13", SplitMix64's finaliser) are bijections of 64-bit
// integers whose every output bit depends on every input bit. SplitMix64
// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014) adds the golden gamma 2^64 / phi to its state and returns
// mix13 of it.
//
// Their outputs are part of file formats and pinned results (the classic
// filter's mixed positions, a KLL sketch's compaction draws, jump-back
// hashing, the placement strategies, Cassandra's Murmur3 tokens, a fuse
// filter's build seeds): they never change.
//
// Example:
//
//   #include <ringbloom/mix.hpp>
//   ringbloom::splitmix64 random{42};
//   std::uint64_t a = random.next();  // a fixed stream for seed 42
//   std::uint64_t state = 42;
//   assert(ringbloom::splitmix64_next(state) == a);
//   std::uint64_t b = ringbloom::mix13(12345);   // well mixed
//   std::uint64_t c = ringbloom::fmix64(12345);  // well mixed, other constants
#pragma once

#include <cstdint>

namespace ringbloom {

/// MurmurHash3's 64-bit finaliser.
[[nodiscard]] constexpr std::uint64_t fmix64(std::uint64_t x) noexcept {
  x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdULL;
  x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/// Stafford's Mix13: a bijection of 64-bit integers whose every output bit
/// depends on every input bit (splitmix64's finaliser).
[[nodiscard]] constexpr std::uint64_t mix13(std::uint64_t x) noexcept {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One step of the generator whose state is `state` (the seed to begin
/// with): advances it by the golden gamma and returns mix13 of the new state.
constexpr std::uint64_t splitmix64_next(std::uint64_t& state) noexcept {
  return mix13(state += 0x9e3779b97f4a7c15ULL);
}

/// The same generator as an object: `state` is the seed.
struct splitmix64 {
  std::uint64_t state = 0;
  constexpr std::uint64_t next() noexcept { return splitmix64_next(state); }
};

}  // namespace ringbloom
