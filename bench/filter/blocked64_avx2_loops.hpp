// bench/filter/blocked64_avx2_loops.hpp: bloom_bench's one-at-a-time loops
// over a blocked64 filter and a fast filter (each_loops.hpp), compiled twice:
// with -mavx2 -mbmi2 as Boost.Bloom's peer is (blocked64_avx2_loops.cpp,
// bench/CMakeLists.txt), so the filter's inline lookup (hash, block, AVX2
// test) is compiled into the loop: what a program built for AVX2 gets; and
// for plain x86-64 (plain_loops.cpp): what a program built without -m flags
// gets (blocked64: one direct call to the AVX2 add or test per key; fast:
// the AVX2 code inline as assembly). The _avx2 ones run only where the CPU
// has AVX2.
#pragma once

#include <cstddef>

#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/fast_bloom.hpp"

namespace ringbloom::bench {

/// Keys are `n` strings of `key_bytes` bytes each, back to back at `keys`.
void blocked64_add_each_avx2(blocked64_bloom_filter& f, const char* keys, std::size_t n,
                             std::size_t key_bytes);
/// How many of the keys answer "maybe", one may_contain call each.
[[nodiscard]] std::size_t blocked64_count_each_avx2(const blocked64_bloom_filter& f,
                                                    const char* keys, std::size_t n,
                                                    std::size_t key_bytes);

/// The same two loops over a fast filter (fast_bloom.hpp).
void fast_add_each_avx2(fast_bloom_filter& f, const char* keys, std::size_t n,
                        std::size_t key_bytes);
[[nodiscard]] std::size_t fast_count_each_avx2(const fast_bloom_filter& f, const char* keys,
                                               std::size_t n, std::size_t key_bytes);

/// The same four loops compiled for plain x86-64.
void blocked64_add_each_plain(blocked64_bloom_filter& f, const char* keys, std::size_t n,
                              std::size_t key_bytes);
[[nodiscard]] std::size_t blocked64_count_each_plain(const blocked64_bloom_filter& f,
                                                     const char* keys, std::size_t n,
                                                     std::size_t key_bytes);
void fast_add_each_plain(fast_bloom_filter& f, const char* keys, std::size_t n,
                         std::size_t key_bytes);
[[nodiscard]] std::size_t fast_count_each_plain(const fast_bloom_filter& f, const char* keys,
                                                std::size_t n, std::size_t key_bytes);

}  // namespace ringbloom::bench
