// fastfilter_cpp's SimdBlockFilterFixed for bloom_bench (see
// fastfilter_blocked_peer.hpp). Not a *_bench.cpp: bench/CMakeLists.txt adds it
// to bloom_bench only when RINGBLOOM_FASTFILTER_INCLUDE is set.
#include "fastfilter_blocked_peer.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

// fastfilter_cpp's header names `vector` unqualified (its own files have a
// using-declaration before including it).
using std::vector;
// clang-format off
#include "hashutil.h"
#include "bloom/simd-block-fixed-fpp.h"
// clang-format on

namespace ringbloom::bench {

double fastfilter_blocked_fpr(double bits_per_key, std::size_t n, std::size_t m) {
  // The constructor makes max(1, param / 24) buckets of 256 bits.
  const double buckets = std::ceil(bits_per_key * static_cast<double>(n) / 256.0);
  SimdBlockFilterFixed<> f(static_cast<int>(buckets) * 24);
  // Members: odd multiples of a large odd constant; strangers: even ones
  // (distinct from every member).
  constexpr std::uint64_t step = 0x9e3779b97f4a7c15ULL;
  for (std::uint64_t i = 0; i < n; ++i) f.Add((2 * i + 1) * step);
  std::size_t hits = 0;
  for (std::uint64_t i = 0; i < m; ++i) hits += f.Find((2 * i + 2) * step) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(m);
}

}  // namespace ringbloom::bench
