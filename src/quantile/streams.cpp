// Seeded test streams (include/ringbloom/quantile/streams.hpp).
#include "ringbloom/quantile/streams.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace ringbloom {

namespace {

constexpr std::array kinds{stream_kind::uniform,     stream_kind::normal,
                           stream_kind::lognormal,   stream_kind::pareto,
                           stream_kind::sorted,      stream_kind::reverse_sorted,
                           stream_kind::tdigest_hard};

// A double uniform in [0, 1): the top 53 bits of one draw.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// A standard normal by Box-Muller (one of the pair; 1 - u keeps log away from 0).
double standard_normal(std::mt19937_64& rng) {
  const double u = 1.0 - unit(rng);
  const double v = unit(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

}  // namespace

std::span<const stream_kind> all_stream_kinds() noexcept { return kinds; }

std::string_view stream_name(stream_kind kind) noexcept {
  switch (kind) {
    case stream_kind::uniform:
      return "uniform";
    case stream_kind::normal:
      return "normal";
    case stream_kind::lognormal:
      return "lognormal";
    case stream_kind::pareto:
      return "pareto";
    case stream_kind::sorted:
      return "sorted";
    case stream_kind::reverse_sorted:
      return "reverse-sorted";
    case stream_kind::tdigest_hard:
      return "tdigest-hard";
  }
  return "unknown";
}

std::vector<double> make_stream(stream_kind kind, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> xs(n);
  switch (kind) {
    case stream_kind::uniform:
      for (auto& x : xs) x = 1000.0 * unit(rng);
      break;
    case stream_kind::normal:
      for (auto& x : xs) x = standard_normal(rng);
      break;
    case stream_kind::lognormal:
      for (auto& x : xs) x = std::exp(standard_normal(rng));
      break;
    case stream_kind::pareto:
      // Inverse transform: P(X > x) = x^-1.5 for x >= 1.
      for (auto& x : xs) x = std::pow(1.0 - unit(rng), -1.0 / 1.5);
      break;
    case stream_kind::sorted:
      for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<double>(i);
      break;
    case stream_kind::reverse_sorted:
      for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<double>(n - 1 - i);
      break;
    case stream_kind::tdigest_hard: {
      if (n == 0) throw std::invalid_argument("the tdigest-hard stream needs at least one value");
      // E = floor(log10(DBL_MAX / n)): n values of at most 10^E sum to a
      // finite double, so the t-digest's sum and means stay finite.
      const double e =
          std::floor(std::log10(std::numeric_limits<double>::max() / static_cast<double>(n)));
      for (auto& x : xs) {
        const double u = unit(rng);
        const double magnitude = std::pow(10.0, (u * u - 0.5) * 2.0 * e);
        x = (rng() >> 63) != 0 ? -magnitude : magnitude;
      }
      break;
    }
  }
  return xs;
}

}  // namespace ringbloom
