// libFuzzer target over the Redis HLL string reader (from_redis_string).
//
// Contract: any byte string either reads as a Redis-mode HyperLogLog or
// throws ringbloom::data_error. An accepted string must count, and writing
// the sketch back (dense) and reading it again must give the same registers.
//
// Seed corpus: fuzz/sketch/corpus/redis_hll_fuzz/ (a sparse string from tests/sketch/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const ringbloom::hyperloglog h = ringbloom::from_redis_string(bytes);
    (void)h.count();
    const std::string dense = ringbloom::to_redis_string(h, ringbloom::redis_hll_encoding::dense);
    if (!(ringbloom::from_redis_string(dense) == h)) std::abort();
  } catch (const ringbloom::data_error&) {
  }
  return 0;
}
