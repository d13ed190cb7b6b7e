// See blocked64_avx2_loops.hpp: the same loops (each_loops.hpp) compiled for
// plain x86-64. Not a *_bench.cpp: bench/CMakeLists.txt adds it to
// bloom_bench beside blocked64_avx2_loops.cpp.
#include "blocked64_avx2_loops.hpp"
#include "each_loops.hpp"

namespace ringbloom::bench {

void blocked64_add_each_plain(blocked64_bloom_filter& f, const char* keys, std::size_t n,
                              std::size_t key_bytes) {
  add_each(f, keys, n, key_bytes);
}
std::size_t blocked64_count_each_plain(const blocked64_bloom_filter& f, const char* keys,
                                       std::size_t n, std::size_t key_bytes) {
  return count_each(f, keys, n, key_bytes);
}
void fast_add_each_plain(fast_bloom_filter& f, const char* keys, std::size_t n,
                         std::size_t key_bytes) {
  add_each(f, keys, n, key_bytes);
}
std::size_t fast_count_each_plain(const fast_bloom_filter& f, const char* keys, std::size_t n,
                                  std::size_t key_bytes) {
  return count_each(f, keys, n, key_bytes);
}

}  // namespace ringbloom::bench
