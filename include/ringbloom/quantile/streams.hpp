// ringbloom/quantile/streams.hpp: seeded streams of doubles for measuring
// quantile sketches, including one that defeats the t-digest.
//
// What it is. make_stream(kind, n, seed) returns n values of a named shape:
// the ordinary ones a sketch is judged on (uniform, normal, log-normal,
// Pareto, sorted, reverse-sorted) and `tdigest_hard`, the distribution
// D_hard of Cormode, Mishra, Ross and Vesely ("Theory meets practice at the
// median: a worst case comparison of relative error quantile algorithms",
// KDD 2021, section 4 and their public experiments): i.i.d. values
//
//     x = s * 10^((u^2 - 1/2) * 2 E),   u uniform in [0, 1), s = +1 or -1,
//     E = floor(log10(DBL_MAX / n))      (so that no sum of n values overflows)
//
// whose magnitudes spread over about 600 orders of magnitude, squeezed
// towards 10^-E. A t-digest centroid averages neighbours that differ by
// hundreds of orders of magnitude, so its mean says nothing about where
// its values lie, and interpolating between such means puts ranks almost
// anywhere: with compression 100 and 10^5 values the t-digest's rank error
// reaches tens of percent, where KLL stays within its bound
// (tests/quantile/quantile_accuracy_test.cpp). The paper also builds an
// adaptive attack that watches the digest; this non-adaptive stream needs
// no access to the sketch and fails it just as plainly.
//
// When to use it: tests, benchmarks and the tour. Guarantees: the values
// depend only on (kind, n, seed) and are the same on every platform (the
// generator is std::mt19937_64, whose output the standard fixes, and the
// transforms are written here rather than taken from <random>'s
// distributions, whose output is the library's choice); every value is
// finite.
//
// Example:
//
//   auto xs = ringbloom::make_stream(ringbloom::stream_kind::tdigest_hard, 100000, 7);
//   ringbloom::tdigest td(100);
//   td.add_many(xs);   // its cdf is now far off; a kll_sketch's is not
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ringbloom {

enum class stream_kind {
  uniform,         // uniform in [0, 1000)
  normal,          // mean 0, standard deviation 1 (Box-Muller)
  lognormal,       // exp of a standard normal
  pareto,          // Pareto with x_min = 1 and shape 1.5 (heavy right tail)
  sorted,          // 0, 1, ..., n - 1
  reverse_sorted,  // n - 1, ..., 1, 0
  tdigest_hard,    // D_hard of Cormode, Mishra, Ross and Vesely (above)
};

/// Every kind, in the order above.
[[nodiscard]] std::span<const stream_kind> all_stream_kinds() noexcept;

/// "uniform", "normal", "lognormal", "pareto", "sorted", "reverse-sorted",
/// "tdigest-hard".
[[nodiscard]] std::string_view stream_name(stream_kind kind) noexcept;

/// n values of the given kind from generator seed `seed` (sorted and
/// reverse-sorted ignore it). Throws std::invalid_argument for n = 0 with
/// tdigest_hard (its range is set by n).
[[nodiscard]] std::vector<double> make_stream(stream_kind kind, std::size_t n, std::uint64_t seed);

}  // namespace ringbloom
