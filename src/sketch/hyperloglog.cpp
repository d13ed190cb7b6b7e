// HyperLogLog: registers, Ertl's estimator, merge (include/ringbloom/sketch/hyperloglog.hpp).
#include "ringbloom/sketch/hyperloglog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

namespace {

void check_precision(unsigned precision) {
  if (precision < hyperloglog::min_precision || precision > hyperloglog::max_precision) {
    throw std::invalid_argument(
        fmt::format("HyperLogLog precision {} is out of range; give p from {} to {} (2^p "
                    "registers; 14 is the default and Redis's)",
                    precision, hyperloglog::min_precision, hyperloglog::max_precision));
  }
}

// Ertl 2017, algorithm 6: sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), the
// correction for registers still at 0 (replaces linear counting).
double sigma(double x) {
  if (x == 1.0) return INFINITY;
  double y = 1.0;
  double z = x;
  double previous = 0;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}

// Ertl 2017, algorithm 6: tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3,
// the correction for registers at the maximum q + 1.
double tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1.0 - x;
  double previous = 0;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= (1.0 - x) * (1.0 - x) * y;
  } while (previous != z);
  return z / 3.0;
}

}  // namespace

hyperloglog::hyperloglog(unsigned precision, std::uint64_t seed)
    : hyperloglog((check_precision(precision), precision), hll_mode::native, seed) {}

hyperloglog::hyperloglog(unsigned precision, hll_mode mode, std::uint64_t seed)
    : precision_(precision),
      mode_(mode),
      seed_(seed),
      registers_(std::size_t{1} << precision, std::uint8_t{0}) {}

hyperloglog hyperloglog::redis() {
  return hyperloglog(redis_precision, hll_mode::redis, redis_seed);
}

namespace {

// The rules of saved registers, for from_registers and hll_view.
void check_registers(unsigned precision, hll_mode mode, std::uint64_t seed,
                     std::span<const std::uint8_t> registers) {
  check_precision(precision);
  if (mode == hll_mode::redis &&
      (precision != hyperloglog::redis_precision || seed != hyperloglog::redis_seed)) {
    throw std::invalid_argument(
        "a Redis-mode HyperLogLog has precision 14 and seed 0xadc83b19; use hyperloglog::redis()");
  }
  const std::size_t m = std::size_t{1} << precision;
  if (registers.size() != m) {
    throw data_error(
        fmt::format("a HyperLogLog of precision {} has {} registers, but {} were given", precision,
                    m, registers.size()));
  }
  const unsigned max_register = 65 - precision;
  const auto top = std::max_element(registers.begin(), registers.end());
  if (*top > max_register) {
    throw data_error(fmt::format(
        "HyperLogLog register {} holds {}, above the largest possible value {} for precision {}",
        top - registers.begin(), *top, max_register, precision));
  }
}

// Why two sketches cannot be merged, or "" when they can.
std::string merge_conflict(hll_mode mode_a, unsigned p_a, std::uint64_t seed_a, hll_mode mode_b,
                           unsigned p_b, std::uint64_t seed_b) {
  if (mode_a != mode_b) return "one is in Redis mode and the other is not";
  if (p_a != p_b) return fmt::format("their precisions differ ({} and {})", p_a, p_b);
  if (seed_a != seed_b) return fmt::format("their seeds differ ({} and {})", seed_a, seed_b);
  return {};
}

}  // namespace

hyperloglog hyperloglog::from_registers(unsigned precision, hll_mode mode, std::uint64_t seed,
                                        std::vector<std::uint8_t> registers) {
  check_registers(precision, mode, seed, registers);
  hyperloglog h(precision, mode, seed);
  h.registers_.assign(registers.begin(), registers.end());
  return h;
}

double hyperloglog::standard_error() const noexcept {
  return 1.04 / std::sqrt(static_cast<double>(registers_.size()));
}

std::uint64_t hyperloglog::hash_of(std::string_view item) const noexcept {
  return mode_ == hll_mode::redis ? murmur64a(item, seed_) : xxh3_64(item, seed_);
}

std::size_t hyperloglog::add_hashes(std::span<const std::uint64_t> hashes) noexcept {
  std::size_t grown = 0;
  for (const std::uint64_t h : hashes) grown += add_hash(h) ? 1 : 0;
  return grown;
}

std::size_t hyperloglog::add_many(std::span<const std::string_view> items) noexcept {
  constexpr std::size_t batch = 64;
  std::array<std::uint64_t, batch> hashes{};
  std::size_t grown = 0;
  for (std::size_t start = 0; start < items.size(); start += batch) {
    const std::size_t n = std::min(batch, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) hashes[i] = hash_of(items[start + i]);
    grown += add_hashes(std::span<const std::uint64_t>(hashes.data(), n));
  }
  return grown;
}

double hll_estimate_from_histogram(std::span<const std::uint32_t> histogram,
                                   unsigned precision) noexcept {
  const double m = std::ldexp(1.0, static_cast<int>(precision));
  const unsigned q = 64 - precision;
  // alpha_inf = 1 / (2 ln 2) (Ertl 2017, eq. 11).
  constexpr double alpha_inf = 0.721347520444481703680;
  double z = m * tau((m - histogram[q + 1]) / m);
  for (unsigned k = q; k >= 1; --k) {
    z += histogram[k];
    z *= 0.5;
  }
  z += m * sigma(histogram[0] / m);
  return alpha_inf * m * m / z;
}

double hll_estimate(std::span<const std::uint8_t> registers, unsigned precision) noexcept {
  std::array<std::uint32_t, 66> histogram{};
  for (const std::uint8_t r : registers) ++histogram[r];
  return hll_estimate_from_histogram(histogram, precision);
}

double hyperloglog::estimate() const noexcept { return hll_estimate(registers_, precision_); }

std::uint64_t hyperloglog::count() const noexcept {
  return static_cast<std::uint64_t>(std::llround(estimate()));
}

void hyperloglog::merge(const hyperloglog& other) {
  merge(hll_view(other.precision_, other.mode_, other.seed_, other.registers_));
}

void hyperloglog::merge(const hll_view& other) {
  const std::string why =
      merge_conflict(mode_, precision_, seed_, other.mode(), other.precision(), other.seed());
  if (!why.empty()) {
    throw std::invalid_argument(fmt::format(
        "cannot merge incompatible HyperLogLogs: {}; only sketches of the same mode, precision "
        "and seed can be merged, so create them with the same options",
        why));
  }
  const auto theirs = other.registers();
  for (std::size_t i = 0; i < registers_.size(); ++i) {
    registers_[i] = std::max(registers_[i], theirs[i]);
  }
}

void hyperloglog::clear() noexcept { std::fill(registers_.begin(), registers_.end(), 0); }

// --- hll_view -------------------------------------------------------------------

hll_view::hll_view(unsigned precision, hll_mode mode, std::uint64_t seed,
                   std::span<const std::uint8_t> registers, std::shared_ptr<const void> keepalive)
    : precision_((check_registers(precision, mode, seed, registers), precision)),
      mode_(mode),
      seed_(seed),
      registers_(registers),
      keepalive_(std::move(keepalive)) {}

double hll_view::standard_error() const noexcept {
  return 1.04 / std::sqrt(static_cast<double>(registers_.size()));
}

double hll_view::estimate() const noexcept { return hll_estimate(registers_, precision_); }

std::uint64_t hll_view::count() const noexcept {
  return static_cast<std::uint64_t>(std::llround(estimate()));
}

hyperloglog hll_view::copy() const {
  return hyperloglog::from_registers(
      precision_, mode_, seed_, std::vector<std::uint8_t>(registers_.begin(), registers_.end()));
}

}  // namespace ringbloom
