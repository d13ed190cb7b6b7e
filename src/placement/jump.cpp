// Jump consistent hash: Lamping and Veach, "A Fast, Minimal Memory,
// Consistent Hash Algorithm" (2014), section 3.
#include "ringbloom/placement/jump.hpp"

#include <stdexcept>

namespace ringbloom {

std::uint32_t jump_hash(std::uint64_t key, std::uint32_t buckets) {
  if (buckets == 0) {
    throw std::invalid_argument(
        "jump_hash needs at least one bucket; pass a bucket count of 1 or more");
  }
  // b is the bucket the key is in so far; j the next bucket it jumps to. The
  // key doubles as the state of a 64-bit LCG whose top 31 bits give a
  // uniform r in (0, 1], and the next jump is to floor((b + 1) / r).
  std::int64_t b = -1;
  std::int64_t j = 0;
  while (j < static_cast<std::int64_t>(buckets)) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<std::int64_t>(
        static_cast<double>(b + 1) *
        (static_cast<double>(std::int64_t{1} << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<std::uint32_t>(b);
}

}  // namespace ringbloom
