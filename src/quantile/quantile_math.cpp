// The shared pieces of the quantile sketches (include/ringbloom/quantile/quantile_math.hpp).
#include "ringbloom/quantile/quantile_math.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace ringbloom {

namespace {
constexpr std::uint32_t min_k = 8;
constexpr std::uint32_t max_k = 65535;
}  // namespace

double kll_rank_error(std::uint32_t k, bool double_sided) {
  if (k < min_k || k > max_k) {
    throw std::invalid_argument(
        fmt::format("the KLL parameter k must be between {} and {}, not {}", min_k, max_k, k));
  }
  const auto kd = static_cast<double>(k);
  return double_sided ? 2.446 / std::pow(kd, 0.9433) : 2.296 / std::pow(kd, 0.9723);
}

std::uint32_t kll_k_for_error(double eps, bool double_sided) {
  const double best = kll_rank_error(max_k, double_sided);
  const double worst = kll_rank_error(min_k, double_sided);
  if (!(eps >= best && eps <= worst)) {
    throw std::invalid_argument(
        fmt::format("a KLL rank error must be between {:.6g} (k = {}) and {:.6g} (k = {}), not {}",
                    best, max_k, worst, min_k, eps));
  }
  // eps(k) decreases in k: invert the fit, then step to the smallest k that meets eps.
  const double a = double_sided ? 2.446 : 2.296;
  const double b = double_sided ? 0.9433 : 0.9723;
  auto k = static_cast<std::uint32_t>(std::max(8.0, std::floor(std::pow(a / eps, 1 / b)) - 1));
  while (k < max_k && kll_rank_error(k, double_sided) > eps) ++k;
  return k;
}

namespace detail {

void throw_not_finite(double x, const char* what) {
  throw std::invalid_argument(fmt::format(
      "{} must be a finite number, not {}; leave NaN and infinities out of the stream", what, x));
}

}  // namespace detail

void require_fraction(double q, const char* what) {
  if (!(q >= 0 && q <= 1)) {
    throw std::invalid_argument(
        fmt::format("{} must be between 0 and 1, not {}; give a fraction such as 0.99", what, q));
  }
}

namespace detail {

void check_trim(double lo, double hi) {
  if (!(lo >= 0 && lo <= 1 && hi >= 0 && hi <= 1)) {
    throw std::invalid_argument(fmt::format(
        "the trimmed mean's cut points must be between 0 and 1, not {} and {}; give fractions "
        "such as 0.1 and 0.9",
        lo, hi));
  }
  if (lo >= hi) {
    throw std::invalid_argument(fmt::format(
        "the trimmed mean's low cut ({}) must be below its high cut ({}); give the lower "
        "fraction first",
        lo, hi));
  }
}

}  // namespace detail

}  // namespace ringbloom
