// ringbloom/quantile/quantile_math.hpp: what the two quantile sketches share:
// the rank-error bound of KLL as a function of k (and k for a wanted
// error), the refusal of values that are not finite numbers, and the
// interface both sketches satisfy (the `quantile_sketch` concept).
//
// Which sketch: docs/sketches.md, "Quantiles: t-digest or KLL". In short,
// t-digest (tdigest.hpp) is very accurate at the extreme tails (p99.9) of
// ordinary data and answers as RedisBloom's TDIGEST.* does, but its error
// has no bound: Cormode, Mishra, Ross and Vesely ("Theory meets practice
// at the median: a worst case comparison of relative error quantile
// algorithms", KDD 2021) build streams that drive it far off. KLL (kll.hpp)
// guarantees its rank error whatever the stream, at a fixed cost in space.
//
// The KLL bound (kll_rank_error): the normalized rank error eps such that,
// with probability 99%, every rank query of the sketch is within eps * n of
// the true rank (n items added):
//
//     single-sided (rank, cdf, quantile):  eps(k) = 2.296 / k^0.9723
//     double-sided (pmf, a mass between two split points): eps(k) = 2.446 / k^0.9433
//
// These are the fits Apache DataSketches publishes for its KLL sketch
// (kll_sketch::get_normalized_rank_error, "best fit to the 99th percentile
// of the empirically measured maximum error in thousands of trials") for
// the compaction scheme of Karnin, Lang and Liberty ("Optimal quantile
// approximation in streams", FOCS 2016) with capacities k (2/3)^depth and
// a minimum of 8 per level, which kll.hpp implements. At k = 200:
// 1.33% single-sided, 1.65% double-sided. tests/quantile/kll_test.cpp
// measures our sketch against the single-sided figure over seeded runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace ringbloom {

/// The KLL normalized rank error at 99% confidence for parameter k (see
/// above). `double_sided` for pmf-style queries (the mass between two
/// points). Throws std::invalid_argument unless 8 <= k <= 65535.
[[nodiscard]] double kll_rank_error(std::uint32_t k, bool double_sided = false);

/// The smallest k whose single-sided (or double-sided) rank error is at
/// most `eps`. Throws std::invalid_argument unless eps is in
/// [kll_rank_error(65535), kll_rank_error(8)].
[[nodiscard]] std::uint32_t kll_k_for_error(double eps, bool double_sided = false);

namespace detail {
[[noreturn]] void throw_not_finite(double x, const char* what);
}  // namespace detail

/// Throws std::invalid_argument("<what> must be a finite number, not <x>;
/// ...") unless x is finite. Both sketches call it on every value added
/// (inline: the check is on every add's path, the throw is not).
inline void require_finite(double x, const char* what = "a value added to a quantile sketch") {
  if (!std::isfinite(x)) [[unlikely]]
    detail::throw_not_finite(x, what);
}

/// Throws std::invalid_argument unless 0 <= q <= 1 (and q is a number).
void require_fraction(double q, const char* what);

/// The mean of the values whose 0-based positions in sorted order fall in
/// [floor(lo n), ceil(hi n)), n the total weight, over (value, weight) pairs
/// sorted by value: the trimmed mean both sketches answer, computed as
/// RedisBloom's t-digest does (a pair is cut in proportion to how much of
/// its weight falls outside). NaN when n is 0 or nothing is left.
/// Preconditions: 0 <= lo < hi <= 1.
template <class Pairs>
[[nodiscard]] double weighted_trimmed_mean(const Pairs& pairs, double n, double lo, double hi) {
  const double left = std::floor(n * lo);
  const double right = std::ceil(n * hi);
  double done = 0;
  double sum = 0;
  double count = 0;
  for (const auto& [value, weight] : pairs) {
    const auto w = static_cast<double>(weight);
    double take = w - std::min(std::max(0.0, left - done), w);
    take = std::min(std::max(0.0, right - done), take);
    done += w;
    sum += value * take;
    count += take;
    if (done >= right) break;
  }
  return sum / count;
}

namespace detail {

/// RedisBloom's rounding of TDIGEST.RANK: halves round towards zero.
[[nodiscard]] inline double round_half_down(double f) {
  double whole = 0;
  const double frac = std::modf(f, &whole);
  if (std::fabs(frac) <= 0.5) return whole;
  return whole >= 0 ? whole + 1 : whole - 1;
}

/// rank / rev_rank of quantile_sketch from the sketch's mid-point cdf.
[[nodiscard]] inline std::int64_t rank_from_cdf(bool empty, bool below_min, bool above_max,
                                                double cdf, std::uint64_t n, bool reverse) {
  const auto size = static_cast<double>(n);
  if (empty) return -2;
  if (below_min) return reverse ? static_cast<std::int64_t>(n) : -1;
  if (above_max) return reverse ? -1 : static_cast<std::int64_t>(n);
  const double at = cdf * size;
  const double r = reverse ? std::round(size - std::round(at)) : round_half_down(at);
  // Near 2^63 values the double may round past n: keep the answer in [0, n].
  if (!(r > 0)) return 0;
  if (r >= size) return static_cast<std::int64_t>(n);
  return static_cast<std::int64_t>(r);
}

/// Throws std::invalid_argument unless 0 <= lo < hi <= 1.
void check_trim(double lo, double hi);

}  // namespace detail

/// What both tdigest and kll_sketch answer (docs/sketches.md). rank(x) and
/// rev_rank(x) follow TDIGEST.RANK / REVRANK: the estimated number of
/// values below (above) x plus half of those equal to it, rounded; -1 when
/// x is below the minimum (above the maximum, for rev_rank), n when it is
/// above the maximum (below the minimum), -2 when the sketch is empty.
/// by_rank(r) / by_rev_rank(r) follow TDIGEST.BYRANK / BYREVRANK: the value
/// of 0-based rank r from the bottom (top); min (max) for r = 0, +inf
/// (-inf) for r >= n, NaN when empty.
template <class S>
concept quantile_sketch = requires(S s, const S cs, double x, std::span<const double> xs) {
  s.add(x);
  s.add_many(xs);
  { cs.count() } -> std::convertible_to<std::uint64_t>;
  { cs.empty() } -> std::convertible_to<bool>;
  { cs.min() } -> std::convertible_to<double>;
  { cs.max() } -> std::convertible_to<double>;
  { cs.quantile(x) } -> std::convertible_to<double>;
  { cs.cdf(x) } -> std::convertible_to<double>;
  { cs.rank(x) } -> std::convertible_to<std::int64_t>;
  { cs.rev_rank(x) } -> std::convertible_to<std::int64_t>;
  { cs.by_rank(std::uint64_t{}) } -> std::convertible_to<double>;
  { cs.by_rev_rank(std::uint64_t{}) } -> std::convertible_to<double>;
  { cs.trimmed_mean(x, x) } -> std::convertible_to<double>;
};

}  // namespace ringbloom
