// The sizing and rate formulas (ringbloom/filter/bloom_math.hpp).
#include "ringbloom/filter/bloom_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace ringbloom {

// --- bloom_math --------------------------------------------------------------

double bloom_math::classic_fpr(double n, double m, double k) noexcept {
  if (n <= 0) return 0.0;
  // (1 - e^(-kn/m))^k = exp(k * ln(1 - e^(-kn/m))); log1p keeps precision
  // when e^(-kn/m) is close to 1 (nearly empty filters, tiny rates).
  return std::exp(k * std::log1p(-std::exp(-k * n / m)));
}

std::uint32_t bloom_math::optimal_hashes(double m, double n) noexcept {
  if (n <= 0) return max_filter_hashes;
  const double k = std::round(m / n * std::numbers::ln2);
  return static_cast<std::uint32_t>(std::clamp(k, 1.0, static_cast<double>(max_filter_hashes)));
}

namespace {

void check_n_p(std::uint64_t n, double p) {
  if (n == 0) {
    throw std::invalid_argument(
        "the capacity must be at least 1 item; give the number of distinct items the filter "
        "should hold");
  }
  if (!(p > 0.0 && p < 1.0)) {
    throw std::invalid_argument(fmt::format(
        "the false-positive rate must be between 0 and 1 (exclusive), got {}; for 1% give 0.01",
        p));
  }
  if (p < min_fpr) {
    throw std::invalid_argument(fmt::format(
        "a false-positive rate of {:g} cannot be reached: items are told apart by 64-bit hashes, "
        "which collide with probability 2^-64 (about 5.4e-20); give a rate of 5.5e-20 or more",
        p));
  }
}

[[noreturn]] void throw_too_large(std::uint64_t n, double p, double bits) {
  throw std::invalid_argument(fmt::format(
      "a filter for {} items at a false-positive rate of {} would need {:.3g} bits, more than the "
      "limit of {} (128 GiB); lower the capacity or raise the rate",
      n, p, bits, max_filter_bits));
}

}  // namespace

filter_size bloom_math::classic_size_for(std::uint64_t n, double p) {
  check_n_p(n, p);
  const double nd = static_cast<double>(n);
  double best_m = std::numeric_limits<double>::infinity();
  std::uint32_t best_k = 1;
  for (std::uint32_t k = 1; k <= max_filter_hashes; ++k) {
    // Solve (1 - e^(-kn/m))^k = p for m: e^(-kn/m) = 1 - p^(1/k).
    const double m = std::ceil(-static_cast<double>(k) * nd /
                               std::log1p(-std::pow(p, 1.0 / static_cast<double>(k))));
    if (m < best_m) {
      best_m = m;
      best_k = k;
    }
  }
  if (!(best_m <= static_cast<double>(max_filter_bits))) throw_too_large(n, p, best_m);
  return {std::max<std::uint64_t>(1, static_cast<std::uint64_t>(best_m)), best_k};
}

std::uint64_t bloom_math::classic_capacity_for(std::uint64_t m, std::uint32_t k,
                                               double p) noexcept {
  if (m == 0 || k == 0 || !(p > 0.0 && p < 1.0)) return 1;
  const double n = -static_cast<double>(m) / k * std::log1p(-std::pow(p, 1.0 / k));
  if (!(n >= 1.0)) return 1;
  if (n >= 1.8e19) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(std::floor(n));
}

namespace {

// The weights w_j of the exact in-block rate (see blocked_fpr):
//   P(maybe | t bits thrown into the block) = sum_{j=0..k} w_j (1 - j/B)^t.
// A stranger's k positions are k uniform draws from the B bits; with d
// distinct ones (probability S(k,d) B!/(B-d)! / B^k, S the Stirling numbers
// of the second kind), inclusion-exclusion gives the chance that all d bits
// were hit by t throws: sum_j (-1)^j C(d,j) (1 - j/B)^t. Summing over d
// collects, for each j, w_j = (-1)^j sum_{d>=j} P(d distinct) C(d,j).
// long double: the w_j alternate in sign and reach about 1e4 for k = 16, so
// the sum loses about 4 of its 19 digits.
std::vector<long double> blocked_rate_weights(std::uint32_t k, std::uint64_t block_bits) {
  const long double bits = static_cast<long double>(block_bits);
  // stirling[d] = S(k, d), built row by row.
  std::vector<long double> stirling(k + 1, 0.0L);
  stirling[0] = 1.0L;
  for (std::uint32_t row = 1; row <= k; ++row) {
    for (std::uint32_t d = row; d >= 1; --d) {
      stirling[d] = static_cast<long double>(d) * stirling[d] + stirling[d - 1];
    }
    stirling[0] = 0.0L;
  }
  std::vector<long double> distinct(k + 1, 0.0L);  // P(d distinct positions)
  long double falling = 1.0L;                      // B (B-1) ... (B-d+1) / B^d
  for (std::uint32_t d = 1; d <= k; ++d) {
    falling *= (bits - static_cast<long double>(d - 1)) / bits;
    distinct[d] = stirling[d] * falling / std::pow(bits, static_cast<long double>(k - d));
  }
  std::vector<long double> weights(k + 1, 0.0L);
  for (std::uint32_t j = 0; j <= k; ++j) {
    long double sum = 0.0L;
    long double binomial = 1.0L;  // C(d, j), starting at d = j
    for (std::uint32_t d = j; d <= k; ++d) {
      if (d > j)
        binomial = binomial * static_cast<long double>(d) / static_cast<long double>(d - j);
      sum += distinct[d] * binomial;
    }
    weights[j] = (j % 2 == 0) ? sum : -sum;
  }
  return weights;
}

}  // namespace

double bloom_math::blocked_fpr(double n, std::uint64_t m, std::uint32_t k, std::uint64_t block_bits,
                               std::uint32_t parts) noexcept {
  if (n <= 0 || block_bits == 0 || m < block_bits || k == 0) return n <= 0 ? 0.0 : 1.0;
  if (parts == 0 || k % parts != 0 || block_bits % parts != 0) return 1.0;  // no such filter
  const double blocks = static_cast<double>(m / block_bits);
  const double lambda = n / blocks;  // mean items per block
  // Each part: kp of the item's bits in part_bits bits (the whole block when
  // parts = 1).
  const std::uint32_t kp = k / parts;
  const std::uint64_t part_bits = block_bits / parts;
  const std::vector<long double> weights = blocked_rate_weights(kp, part_bits);
  const long double bits = static_cast<long double>(part_bits);
  // ln(1 - j/B), once per call rather than once per Poisson term.
  std::array<long double, max_blocked_hashes + 1> log_miss{};
  for (std::uint32_t j = 0; j <= kp; ++j) {
    log_miss[j] = std::log1p(-static_cast<long double>(j) / bits);
  }
  // With i items in its block, t = kp i bits were thrown into each part; the
  // parts are independent given i.
  auto inner = [&](double i) {
    const long double t = static_cast<long double>(kp) * static_cast<long double>(i);
    long double sum = 0.0L;
    for (std::uint32_t j = 0; j <= kp; ++j) {
      sum += weights[j] * std::exp(t * log_miss[j]);
    }
    const double part = std::clamp(static_cast<double>(sum), 0.0, 1.0);
    return parts == 1 ? part : std::pow(part, static_cast<double>(parts));
  };
  // Poisson(lambda) terms over lambda +- (12 sd + 30): the mass left out is
  // far below 1e-12. Very full filters are concentrated at lambda.
  const double spread = 12.0 * std::sqrt(lambda) + 30.0;
  if (spread > 1e5) return inner(lambda);
  const double lo = std::max(0.0, std::floor(lambda - spread));
  const double hi = std::ceil(lambda + spread);
  double sum = 0.0;
  for (double i = lo; i <= hi; i += 1.0) {
    const double log_pmf = -lambda + i * std::log(lambda) - std::lgamma(i + 1.0);
    sum += std::exp(log_pmf) * inner(i);
  }
  return std::min(sum, 1.0);
}

filter_size bloom_math::blocked_size_for(std::uint64_t n, double p, std::uint64_t block_bits,
                                         std::uint32_t parts) {
  if (block_bits == 0 || block_bits % 64 != 0 || block_bits > 65536) {
    throw std::invalid_argument(
        fmt::format("a block of {} bits is not a whole number of 64-bit words between 64 and "
                    "65536; use 512 (blocked, blocked64) or 1024 (blocked1024)",
                    block_bits));
  }
  check_n_p(n, p);
  if (p < blocked_min_fpr) {
    const filter_size classic = classic_size_for(n, p);  // throws when even that is too large
    throw std::invalid_argument(fmt::format(
        "a blocked filter reaches false-positive rates down to {:g} only, not {:g}; use the "
        "classic kind, which reaches it with {} bits and {} hashes for a capacity of {}",
        blocked_min_fpr, p, classic.bits, classic.hashes, n));
  }
  const double nd = static_cast<double>(n);
  const std::uint64_t max_blocks = max_filter_bits / block_bits;
  std::uint64_t best_blocks = 0;
  std::uint32_t best_k = 1;
  // Pruning. A blocked filter is never better than the classic one of the
  // same m and k (its blocks fill unevenly), so classic's m_k =
  // -k n / ln(1 - p^(1/k)) bounds the blocked m from below. The search
  // starts at the k of the least m_k and skips every k whose bound, with a
  // 5% margin, already exceeds the best size found: 2 to 4 searches instead
  // of 16 (tests/filter/bloom_math_prune_test.cpp checks the bound on a
  // grid and that the sizes are those of the full search).
  // Split blocks (parts > 1) are no better than the classic filter either
  // (a partitioned filter's rate is at least the classic one's), so the same
  // bound holds; only the k that are multiples of parts are tried.
  if (parts == 0 || parts > max_blocked_hashes || block_bits % parts != 0) {
    throw std::invalid_argument(fmt::format(
        "a block of {} bits cannot be split into {} parts; use 1 part, or 8 (the fast kind)",
        block_bits, parts));
  }
  std::array<double, max_blocked_hashes + 1> bound{};
  std::uint32_t first = parts;
  for (std::uint32_t k = parts; k <= max_blocked_hashes; k += parts) {
    const double kd = static_cast<double>(k);
    bound[k] =
        -kd * nd / std::log1p(-std::pow(p, 1.0 / kd)) * 0.95 / static_cast<double>(block_bits);
    if (bound[k] < bound[first]) first = k;
  }
  for (std::uint32_t step = 0; step <= max_blocked_hashes; ++step) {
    const std::uint32_t k = step == 0 ? first : step;
    if (step != 0 && (k == first || k % parts != 0)) continue;
    if (best_blocks != 0 && !(bound[k] <= static_cast<double>(best_blocks))) continue;
    auto fpr = [&](std::uint64_t blocks) {
      return blocked_fpr(nd, blocks * block_bits, k, block_bits, parts);
    };
    // The rate falls as blocks are added. lo: a size too small (the bound,
    // or 0: no filter); hi grows from just above classic's m_k by eighths
    // until the rate is met, then bisection.
    if (bound[k] >= static_cast<double>(max_blocks)) continue;  // beyond the limit
    std::uint64_t lo = static_cast<std::uint64_t>(bound[k]);
    std::uint64_t hi = std::max(lo + 1, static_cast<std::uint64_t>(bound[k] / 0.95 * 1.02) + 1);
    double rate_hi = 1.0;
    bool reached = false;
    for (;;) {
      hi = std::min(hi, max_blocks);
      rate_hi = fpr(hi);
      if (rate_hi <= p) {
        reached = true;
        break;
      }
      if (hi == max_blocks) break;
      lo = hi;
      hi += hi / 8 + 1;
    }
    if (!reached) continue;  // this k cannot reach p within the limit
    // Narrow [lo, hi] to adjacent sizes. ln(rate) is nearly linear in the
    // size over the bracket, so interpolating it lands within a block or
    // two of the answer in a few steps; a step that fails to halve the
    // bracket is followed by a plain bisection. The answer is the same as
    // bisection's (the smallest size whose rate is at most p), in about a
    // third of the rate evaluations.
    const double log_p = std::log(p);
    double rate_lo = lo == 0 ? 1.0 : fpr(lo);
    bool bisect = false;
    while (hi - lo > 1) {
      std::uint64_t mid = lo + (hi - lo) / 2;
      const double above = std::log(rate_lo) - log_p;  // > 0
      const double below = std::log(rate_hi) - log_p;  // <= 0
      if (!bisect && lo != 0 && std::isfinite(above) && std::isfinite(below) && above > below) {
        const double at =
            static_cast<double>(lo) + static_cast<double>(hi - lo) * (above / (above - below));
        mid = std::clamp(static_cast<std::uint64_t>(std::llround(at)), lo + 1, hi - 1);
      }
      const std::uint64_t width = hi - lo;
      const double rate = fpr(mid);
      if (rate <= p) {
        hi = mid;
        rate_hi = rate;
      } else {
        lo = mid;
        rate_lo = rate;
      }
      bisect = !bisect && 2 * (hi - lo) > width;
    }
    if (best_blocks == 0 || hi < best_blocks || (hi == best_blocks && k < best_k)) {
      best_blocks = hi;
      best_k = k;
    }
  }
  if (best_blocks == 0) {
    throw_too_large(n, p, static_cast<double>(max_filter_bits) * 2.0);
  }
  return {best_blocks * block_bits, best_k};
}

double bloom_math::estimate_items(double m, double k, double bits_set) noexcept {
  if (bits_set <= 0) return 0.0;
  if (bits_set >= m) return std::numeric_limits<double>::infinity();
  return -(m / k) * std::log1p(-bits_set / m);
}

double bloom_math::scalable_layer_fpr(double p, double r, std::uint32_t i) noexcept {
  return p * (1.0 - r) * std::pow(r, static_cast<double>(i));
}

}  // namespace ringbloom
