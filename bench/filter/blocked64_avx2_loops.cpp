// See blocked64_avx2_loops.hpp. Not a *_bench.cpp: bench/CMakeLists.txt adds
// it to bloom_bench with -mavx2 -mbmi2.
#include "blocked64_avx2_loops.hpp"

#include <benchmark/benchmark.h>

#include <string_view>

namespace ringbloom::bench {

void blocked64_add_each_avx2(blocked64_bloom_filter& f, const char* keys, std::size_t n,
                             std::size_t key_bytes) {
  for (std::size_t i = 0; i < n; ++i) f.add(std::string_view(keys + i * key_bytes, key_bytes));
}

std::size_t blocked64_count_each_avx2(const blocked64_bloom_filter& f, const char* keys,
                                      std::size_t n, std::size_t key_bytes) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool hit = f.may_contain(std::string_view(keys + i * key_bytes, key_bytes));
    benchmark::DoNotOptimize(hit);
    found += hit ? 1 : 0;
  }
  return found;
}

void fast_add_each_avx2(fast_bloom_filter& f, const char* keys, std::size_t n,
                        std::size_t key_bytes) {
  for (std::size_t i = 0; i < n; ++i) f.add(std::string_view(keys + i * key_bytes, key_bytes));
}

std::size_t fast_count_each_avx2(const fast_bloom_filter& f, const char* keys, std::size_t n,
                                 std::size_t key_bytes) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool hit = f.may_contain(std::string_view(keys + i * key_bytes, key_bytes));
    benchmark::DoNotOptimize(hit);
    found += hit ? 1 : 0;
  }
  return found;
}

}  // namespace ringbloom::bench
