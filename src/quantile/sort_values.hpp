// src/quantile/sort_values.hpp: sorting the doubles a quantile sketch buffers
// (the t-digest's buffer) without branches on the values: a
// least-significant-digit radix sort of order-preserving keys.
//
// Why: a few hundred random doubles are where std::sort spends most of its
// time in mispredicted comparisons; the radix sort does more instructions
// (eight counting passes, fewer when bytes are shared) but no
// value-dependent branch, and made the t-digest's adds twice as fast
// (docs/performance.md, "Quantiles"). (A KLL sketch's level 0 gained
// nothing measurable from it: 376 against 372 instructions per add, and
// the time within the noise, so it keeps std::sort.) The order is std::sort's with
// operator<, except that -0 comes before +0 (std::sort leaves equal values
// in any order); NaN is never buffered (the sketches refuse it).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

namespace ringbloom::detail {

/// An unsigned key that orders as the double does (finite values; -0
/// before +0): the sign bit set for positives, every bit flipped for
/// negatives.
inline std::uint64_t sort_key(double x) noexcept {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof(u));
  return (u >> 63) != 0 ? ~u : u | (std::uint64_t{1} << 63);
}

/// The double of a sort_key.
inline double from_sort_key(std::uint64_t k) noexcept {
  const std::uint64_t u = (k >> 63) != 0 ? k & ~(std::uint64_t{1} << 63) : ~k;
  double x = 0;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

/// Sorts `keys` ascending, a byte a pass, skipping the bytes every key
/// shares. Allocates one scratch array of keys.size().
inline void radix_sort(std::vector<std::uint64_t>& keys) {
  const std::size_t n = keys.size();
  if (n < 2) return;
  std::array<std::array<std::uint32_t, 256>, 8> counts{};
  for (const std::uint64_t k : keys) {
    for (unsigned b = 0; b < 8; ++b) ++counts[b][(k >> (8 * b)) & 0xff];
  }
  std::vector<std::uint64_t> other(n);
  std::uint64_t* from = keys.data();
  std::uint64_t* to = other.data();
  for (unsigned b = 0; b < 8; ++b) {
    auto& c = counts[b];
    if (c[(from[0] >> (8 * b)) & 0xff] == n) continue;  // one value of this byte
    std::uint32_t sum = 0;
    for (auto& x : c) {
      const std::uint32_t here = x;
      x = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i) to[c[(from[i] >> (8 * b)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys.data()) std::copy(from, from + n, keys.data());
}

/// Below this many values std::sort (insertion sort, mostly) is cheaper
/// than the radix sort's fixed cost (eight tables of 256 counts).
inline constexpr std::size_t radix_sort_threshold = 64;

/// Sorts finite doubles ascending.
inline void sort_values(std::span<double> xs) {
  if (xs.size() < radix_sort_threshold) {
    std::sort(xs.begin(), xs.end());
    return;
  }
  std::vector<std::uint64_t> keys(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) keys[i] = sort_key(xs[i]);
  radix_sort(keys);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = from_sort_key(keys[i]);
}

}  // namespace ringbloom::detail
