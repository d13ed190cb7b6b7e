// bench/filter/each_loops.hpp: bloom_bench's one-at-a-time loops over the
// filters placed by one 64-bit hash, written once and compiled twice: with
// -mavx2 -mbmi2 (blocked64_avx2_loops.cpp, as Boost.Bloom's peer is) and for
// plain x86-64 (plain_loops.cpp), so that the two builds' rows time the same
// loop and differ only in what the compiler may emit for the filter's inline
// add and lookup.
//
// Internal linkage on purpose: each file that includes this gets its own
// copy, compiled with its own flags (an inline function with external
// linkage would be one copy for the whole program, whichever the linker
// kept).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string_view>

namespace ringbloom::bench {
namespace {

/// Adds the `n` keys of `key_bytes` bytes each, back to back at `keys`.
template <class Filter>
void add_each(Filter& f, const char* keys, std::size_t n, std::size_t key_bytes) {
  for (std::size_t i = 0; i < n; ++i) f.add(std::string_view(keys + i * key_bytes, key_bytes));
}

/// How many of the keys answer "maybe", one may_contain call each.
template <class Filter>
std::size_t count_each(const Filter& f, const char* keys, std::size_t n, std::size_t key_bytes) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool hit = f.may_contain(std::string_view(keys + i * key_bytes, key_bytes));
    benchmark::DoNotOptimize(hit);
    found += hit ? 1 : 0;
  }
  return found;
}

}  // namespace
}  // namespace ringbloom::bench
