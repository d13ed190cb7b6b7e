// ringbloom/splitmix.hpp: SplitMix64, the small seedable generator and its
// finaliser, shared by every family that needs a fixed stream of numbers or
// a 64-bit integer mix.
//
// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014) adds the golden gamma 2^64 / phi to its state and
// returns the state through Stafford's "Mix13" finaliser. Its output is part
// of file formats (the classic filter's mixed positions, a KLL sketch's
// compaction draws, jump-back hashing): it never changes.
//
// Example:
//
//   #include <ringbloom/splitmix.hpp>
//   ringbloom::splitmix64 random{42};
//   std::uint64_t a = random.next();            // a fixed stream for seed 42
//   std::uint64_t state = 42;
//   assert(ringbloom::splitmix64_next(state) == a);
//   std::uint64_t b = ringbloom::mix13(12345);  // a well-mixed 64-bit value
#pragma once

#include <cstdint>

namespace ringbloom {

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
