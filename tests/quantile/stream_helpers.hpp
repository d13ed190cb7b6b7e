// Seeded test streams for the quantile sketches and the rank error of an
// estimate against the sorted stream.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace quantile_test {

/// "uniform" [0, 1000), "normal" (0, 1), "lognormal" (0, 1), "sorted"
/// (0, 1, ..., n - 1 ascending), from std::mt19937_64(seed).
inline std::vector<double> stream(std::string_view kind, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> xs(n);
  if (kind == "uniform") {
    std::uniform_real_distribution<double> d(0, 1000);
    for (auto& x : xs) x = d(rng);
  } else if (kind == "normal") {
    std::normal_distribution<double> d(0, 1);
    for (auto& x : xs) x = d(rng);
  } else if (kind == "lognormal") {
    std::lognormal_distribution<double> d(0, 1);
    for (auto& x : xs) x = d(rng);
  } else if (kind == "sorted") {
    for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<double>(i);
  } else {
    throw std::invalid_argument("unknown stream");
  }
  return xs;
}

/// The distance between q and the normalized rank interval of `value` in
/// `sorted` ([count below, count at or below] / n): 0 when value is a
/// correct q-quantile.
inline double rank_error_of(const std::vector<double>& sorted, double value, double q) {
  const auto n = static_cast<double>(sorted.size());
  const auto lo =
      static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin()) /
      n;
  const auto hi =
      static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), value) - sorted.begin()) /
      n;
  if (q < lo) return lo - q;
  if (q > hi) return q - hi;
  return 0;
}

}  // namespace quantile_test
