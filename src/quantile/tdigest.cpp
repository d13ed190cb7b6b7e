// The merging t-digest (include/ringbloom/quantile/tdigest.hpp).
#include "ringbloom/quantile/tdigest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "quantile/sort_values.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace ringbloom {

namespace {

constexpr std::uint64_t max_weight = std::numeric_limits<std::int64_t>::max();

std::size_t capacity_for(double compression) {
  return 6 * static_cast<std::size_t>(compression) + 10;
}

void check_compression(double compression) {
  if (!(compression >= 1 && compression <= tdigest::max_compression)) {
    throw std::invalid_argument(fmt::format(
        "the t-digest compression must be between 1 and {}, not {}; 100 is the usual choice "
        "(higher is more accurate and larger)",
        tdigest::max_compression, compression));
  }
}

// The mean of (x1, w1) and (x2, w2), kept between x1 and x2 despite rounding.
double weighted_average(double x1, double w1, double x2, double w2) {
  if (x1 > x2) {
    std::swap(x1, x2);
    std::swap(w1, w2);
  }
  const double x = (x1 * w1 + x2 * w2) / (w1 + w2);
  return std::max(x1, std::min(x, x2));
}

}  // namespace

tdigest::tdigest(double compression) : compression_(compression), capacity_(0) {
  check_compression(compression);
  capacity_ = capacity_for(compression);
  nodes_.reserve(capacity_);
  reset();
}

tdigest::tdigest(const tdigest& other)
    : compression_(other.compression_),
      capacity_(other.capacity_),
      merged_nodes_(other.merged_nodes_),
      merged_weight_(other.merged_weight_),
      unmerged_weight_(other.unmerged_weight_),
      total_compressions_(other.total_compressions_),
      min_(other.min_),
      max_(other.max_),
      sum_(other.sum_) {
  nodes_.reserve(capacity_);
  nodes_.assign(other.nodes_.begin(), other.nodes_.end());
}

tdigest& tdigest::operator=(const tdigest& other) {
  if (this != &other) {
    tdigest copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void tdigest::reset() noexcept {
  nodes_.clear();
  merged_nodes_ = 0;
  merged_weight_ = 0;
  unmerged_weight_ = 0;
  total_compressions_ = 0;
  min_ = std::numeric_limits<double>::max();
  max_ = -std::numeric_limits<double>::max();
  sum_ = 0;
}

double tdigest::min() const noexcept {
  return empty() ? std::numeric_limits<double>::quiet_NaN() : min_;
}
double tdigest::max() const noexcept {
  return empty() ? std::numeric_limits<double>::quiet_NaN() : max_;
}
double tdigest::mean() const noexcept {
  return empty() ? std::numeric_limits<double>::quiet_NaN() : sum_ / static_cast<double>(count());
}

tdigest::stats tdigest::statistics() const noexcept {
  return {merged_nodes_, nodes_.size() - merged_nodes_, merged_weight_, unmerged_weight_,
          total_compressions_};
}

std::size_t tdigest::memory_bytes() const noexcept { return capacity_ * sizeof(centroid); }

void tdigest::add(double x) {
  require_finite(x);
  add_one(x);
}

void tdigest::add(double x, std::uint64_t weight) {
  require_finite(x);
  if (weight == 0) {
    throw std::invalid_argument(
        "a t-digest weight must be at least 1; leave the value out instead");
  }
  add_unchecked(x, weight);
}

void tdigest::add_many(std::span<const double> xs) {
  for (const double x : xs) require_finite(x);
  if (xs.size() > max_weight - count()) {
    throw std::overflow_error(
        "the t-digest's total weight would pass 2^63 - 1; split the stream over several digests");
  }
  for (const double x : xs) add_one(x);
}

// add_unchecked(x, 1) without the multiplication and weight arithmetic.
void tdigest::add_one(double x) {
  if (count() == max_weight) {
    throw std::overflow_error(
        "the t-digest's total weight would pass 2^63 - 1; split the stream over several digests");
  }
  if (nodes_.size() + 1 >= capacity_) compress();
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  sum_ += x;
  nodes_.push_back({x, 1});
  ++unmerged_weight_;
}

void tdigest::add_unchecked(double x, std::uint64_t weight) {
  if (weight > max_weight - count()) {
    throw std::overflow_error(
        "the t-digest's total weight would pass 2^63 - 1; split the stream over several digests");
  }
  if (nodes_.size() + 1 >= capacity_) compress();
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  sum_ += x * static_cast<double>(weight);
  nodes_.push_back({x, weight});
  unmerged_weight_ += weight;
}

void tdigest::compress() {
  if (nodes_.size() == merged_nodes_) return;
  // The merged centroids are sorted already: sort the buffer, then merge the
  // two runs (a centroid before a buffered value of the same mean). A buffer
  // of single values, the usual case, is sorted by its means alone.
  const auto by_mean = [](const centroid& a, const centroid& b) { return a.mean < b.mean; };
  const auto buffer = nodes_.begin() + static_cast<std::ptrdiff_t>(merged_nodes_);
  const std::size_t buffered = nodes_.size() - merged_nodes_;
  if (unmerged_weight_ == buffered && buffered >= detail::radix_sort_threshold) {
    // Every buffered weight is 1: sort the means alone (sort_values.hpp).
    using detail::from_sort_key;
    using detail::sort_key;
    std::vector<std::uint64_t> keys(buffered);
    for (std::size_t i = 0; i < buffered; ++i) keys[i] = sort_key(nodes_[merged_nodes_ + i].mean);
    detail::radix_sort(keys);
    for (std::size_t i = 0; i < buffered; ++i)
      nodes_[merged_nodes_ + i] = {from_sort_key(keys[i]), 1};
  } else {
    std::sort(buffer, nodes_.end(), by_mean);
  }
  std::inplace_merge(nodes_.begin(), buffer, nodes_.end(), by_mean);
  const auto total = static_cast<double>(merged_weight_ + unmerged_weight_);
  // A centroid of weight w may grow while w * normalizer <= q (1 - q) at both
  // of its ends (the header's merge rule). With a total weight of 1 there is
  // one node and nothing to merge (ln 1 = 0).
  const double normalizer =
      total > 1 ? compression_ / (2 * std::numbers::pi * total * std::log(total)) : 0;
  std::size_t cur = 0;
  double weight_before = 0;  // the weight of centroids before cur
  // q0 (1 - q0) at cur's left end changes only when cur moves on: computed
  // then, not for every node (the same division, so the same bits).
  double left_bound = 0;  // q0 (1 - q0) with q0 = weight_before / total
  for (std::size_t i = 1; i < nodes_.size(); ++i) {
    const auto proposed = static_cast<double>(nodes_[cur].weight + nodes_[i].weight);
    const double z = proposed * normalizer;
    bool fits = total > 1 && z <= left_bound;
    if (fits) {
      const double q2 = (weight_before + proposed) / total;
      fits = z <= q2 * (1 - q2);
    }
    if (fits) {
      nodes_[cur].weight += nodes_[i].weight;
      const double delta = nodes_[i].mean - nodes_[cur].mean;
      nodes_[cur].mean +=
          delta * static_cast<double>(nodes_[i].weight) / static_cast<double>(nodes_[cur].weight);
    } else {
      weight_before += static_cast<double>(nodes_[cur].weight);
      const double q0 = weight_before / total;
      left_bound = q0 * (1 - q0);
      ++cur;
      nodes_[cur] = nodes_[i];
    }
  }
  nodes_.resize(cur + 1);
  merged_nodes_ = nodes_.size();
  merged_weight_ += unmerged_weight_;
  unmerged_weight_ = 0;
  ++total_compressions_;
}

void tdigest::merge(const tdigest& other) {
  if (&other == this) {  // the loop below changes this digest's nodes
    const tdigest copy(other);
    merge(copy);
    return;
  }
  compress();
  std::optional<tdigest> scratch;
  const tdigest& from = other.compressed(scratch);
  const double sum_before = sum_;
  for (const centroid& c : from.nodes_) add_unchecked(c.mean, c.weight);
  // add_unchecked takes min and max from the means; the exact extremes and
  // the exact sum are other's.
  if (!from.empty()) {
    min_ = std::min(min_, from.min_);
    max_ = std::max(max_, from.max_);
    sum_ = sum_before + from.sum_;
  }
}

tdigest tdigest::merged(std::span<const tdigest* const> inputs, double compression) {
  tdigest out(compression);
  for (const tdigest* in : inputs) out.merge(*in);
  return out;
}

const tdigest& tdigest::compressed(std::optional<tdigest>& scratch) const {
  if (nodes_.size() == merged_nodes_) return *this;
  scratch.emplace(*this);
  scratch->compress();
  return *scratch;
}

double tdigest::quantile(double q) const {
  require_fraction(q, "a quantile");
  if (empty()) return std::numeric_limits<double>::quiet_NaN();
  std::optional<tdigest> scratch;
  return compressed(scratch).quantile_merged(q);
}

double tdigest::quantile_merged(double q) const {
  const std::size_t n = nodes_.size();
  if (n == 1) return nodes_[0].mean;
  const auto total = static_cast<double>(merged_weight_);
  const double index = q * total;  // the position in the sorted values
  if (index < 1) return min_;
  const auto w0 = static_cast<double>(nodes_[0].weight);
  // A left centroid of more than one value: one of them is min, interpolate.
  if (w0 > 1 && index < w0 / 2) {
    return min_ + (index - 1) / (w0 / 2 - 1) * (nodes_[0].mean - min_);
  }
  if (index > total - 1) return max_;
  const auto wn = static_cast<double>(nodes_[n - 1].weight);
  const double mn = nodes_[n - 1].mean;
  if (wn > 1 && total - index <= wn / 2) {
    return max_ - (total - index - 1) / (wn / 2 - 1) * (max_ - mn);
  }
  // Between centroids i and i + 1: the midpoints of their weights bracket index.
  double so_far = w0 / 2;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const auto wl = static_cast<double>(nodes_[i].weight);
    const auto wr = static_cast<double>(nodes_[i + 1].weight);
    const double dw = (wl + wr) / 2;
    if (so_far + dw > index) {
      double left_unit = 0;
      if (wl == 1) {
        if (index - so_far < 0.5) return nodes_[i].mean;  // a singleton is exact
        left_unit = 0.5;
      }
      double right_unit = 0;
      if (wr == 1) {
        if (so_far + dw - index <= 0.5) return nodes_[i + 1].mean;
        right_unit = 0.5;
      }
      const double z1 = index - so_far - left_unit;
      const double z2 = so_far + dw - index - right_unit;
      return weighted_average(nodes_[i].mean, z2, nodes_[i + 1].mean, z1);
    }
    so_far += dw;
  }
  // Past the last midpoint: interpolate towards max.
  const double z1 = index - total - wn / 2;
  const double z2 = wn / 2 - z1;
  return weighted_average(mn, z1, max_, z2);
}

double tdigest::cdf(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a cdf point must be a number, not NaN");
  if (empty()) return std::numeric_limits<double>::quiet_NaN();
  std::optional<tdigest> scratch;
  return compressed(scratch).cdf_merged(x);
}

double tdigest::cdf_merged(double x) const {
  if (x < min_) return 0;
  if (x > max_) return 1;
  const std::size_t n = nodes_.size();
  if (n == 1) {
    const double width = max_ - min_;
    return x - min_ <= width ? 0.5 : (x - min_) / width;
  }
  const auto total = static_cast<double>(merged_weight_);
  const double m0 = nodes_[0].mean;
  const auto w0 = static_cast<double>(nodes_[0].weight);
  if (x < m0) {  // the left tail, between min (a sample) and the first centroid
    const double width = m0 - min_;
    if (width <= 0) return 0;
    if (x == min_) return 0.5 / total;
    return (1 + (x - min_) / width * (w0 / 2 - 1)) / total;
  }
  const double mn = nodes_[n - 1].mean;
  const auto wn = static_cast<double>(nodes_[n - 1].weight);
  if (x > mn) {  // the right tail
    const double width = max_ - mn;
    if (width <= 0) return 1;
    if (x == max_) return 1 - 0.5 / total;
    return 1 - (1 + (max_ - x) / width * (wn / 2 - 1)) / total;
  }
  double so_far = 0;  // the weight of centroids before i
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double mi = nodes_[i].mean;
    if (mi == x) {  // centroids exactly at x count half
      double at = 0;
      for (std::size_t j = i; j < n && nodes_[j].mean == x; ++j) {
        at += static_cast<double>(nodes_[j].weight);
      }
      return (so_far + at / 2) / total;
    }
    const double mr = nodes_[i + 1].mean;
    if (mi <= x && x < mr) {
      const auto wl = static_cast<double>(nodes_[i].weight);
      const auto wr = static_cast<double>(nodes_[i + 1].weight);
      const double dw = (wl + wr) / 2;
      if (mr - mi <= 0) return (so_far + dw) / total;
      double left_excluded = 0;
      double right_excluded = 0;
      if (wl == 1) {
        if (wr == 1) return (so_far + 1) / total;  // two singletons: no interpolation
        left_excluded = 0.5;
      } else if (wr == 1) {
        right_excluded = 0.5;
      }
      const double base = so_far + wl / 2 + left_excluded;
      return (base + (dw - left_excluded - right_excluded) * (x - mi) / (mr - mi)) / total;
    }
    so_far += static_cast<double>(nodes_[i].weight);
  }
  return 1 - 0.5 / total;
}

std::int64_t tdigest::rank(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a rank point must be a number, not NaN");
  return detail::rank_from_cdf(empty(), x<min_, x> max_, empty() ? 0 : cdf(x), count(), false);
}

std::int64_t tdigest::rev_rank(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a rank point must be a number, not NaN");
  return detail::rank_from_cdf(empty(), x<min_, x> max_, empty() ? 0 : cdf(x), count(), true);
}

double tdigest::by_rank(std::uint64_t r) const {
  const std::uint64_t n = count();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if (r == 0) return min_;
  if (r >= n) return std::numeric_limits<double>::infinity();
  return quantile(static_cast<double>(r) / static_cast<double>(n));
}

double tdigest::by_rev_rank(std::uint64_t r) const {
  const std::uint64_t n = count();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if (r == 0) return max_;
  if (r >= n) return -std::numeric_limits<double>::infinity();
  return quantile(static_cast<double>(n - r - 1) / static_cast<double>(n));
}

double tdigest::trimmed_mean(double lo, double hi) const {
  detail::check_trim(lo, hi);
  if (empty()) return std::numeric_limits<double>::quiet_NaN();
  std::optional<tdigest> scratch;
  const tdigest& d = compressed(scratch);
  if (d.nodes_.size() == 1) return d.nodes_[0].mean;
  std::vector<std::pair<double, std::uint64_t>> pairs;
  pairs.reserve(d.nodes_.size());
  for (const centroid& c : d.nodes_) pairs.emplace_back(c.mean, c.weight);
  return weighted_trimmed_mean(pairs, static_cast<double>(d.merged_weight_), lo, hi);
}

tdigest tdigest::from_state(double compression, double min, double max, double sum,
                            std::uint64_t total_compressions, std::size_t merged_nodes,
                            std::span<const centroid> nodes) {
  if (!(compression >= 1 && compression <= max_compression)) {
    throw data_error(fmt::format("the t-digest compression {} is outside [1, {}]", compression,
                                 max_compression));
  }
  tdigest d(compression);
  if (nodes.size() >= d.capacity_ || merged_nodes > nodes.size()) {
    throw data_error(fmt::format("the t-digest holds {} nodes ({} merged) but its capacity is {}",
                                 nodes.size(), merged_nodes, d.capacity_));
  }
  std::uint64_t merged_weight = 0;
  std::uint64_t unmerged_weight = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const centroid& c = nodes[i];
    if (!std::isfinite(c.mean) || c.weight == 0 || c.weight > max_weight) {
      throw data_error(
          fmt::format("t-digest node {} is not a finite mean with a weight in [1, 2^63)", i));
    }
    if (i > 0 && i < merged_nodes && nodes[i - 1].mean > c.mean) {
      throw data_error(fmt::format("the t-digest's merged centroids are not sorted at node {}", i));
    }
    std::uint64_t& w = i < merged_nodes ? merged_weight : unmerged_weight;
    if (c.weight > max_weight - merged_weight - unmerged_weight) {
      throw data_error("the t-digest's total weight passes 2^63 - 1");
    }
    w += c.weight;
    if (c.mean < min || c.mean > max) {
      throw data_error(fmt::format("t-digest node {} lies outside the digest's [min, max]", i));
    }
  }
  if (nodes.empty()) {
    if (sum != 0) throw data_error("an empty t-digest records a non-zero sum");
  } else if (!(std::isfinite(min) && std::isfinite(max) && min <= max) || std::isnan(sum)) {
    throw data_error("the t-digest's min, max or sum is not a finite number");
  }
  d.nodes_.assign(nodes.begin(), nodes.end());
  d.merged_nodes_ = merged_nodes;
  d.merged_weight_ = merged_weight;
  d.unmerged_weight_ = unmerged_weight;
  d.total_compressions_ = total_compressions;
  if (!nodes.empty()) {
    d.min_ = min;
    d.max_ = max;
    d.sum_ = sum;
  }
  return d;
}

}  // namespace ringbloom
