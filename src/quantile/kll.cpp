// The KLL sketch (include/ringbloom/quantile/kll.hpp).
#include "ringbloom/quantile/kll.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/mix.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace ringbloom {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

void check_k(std::uint32_t k) {
  if (k < kll_sketch::min_k || k > kll_sketch::max_k) {
    throw std::invalid_argument(fmt::format(
        "the KLL parameter k must be between {} and {}, not {}; 200 gives a 1.33% rank error",
        kll_sketch::min_k, kll_sketch::max_k, k));
  }
}

}  // namespace

kll_sketch::kll_sketch(std::uint32_t k, std::uint64_t seed) : k_(k), seed_(seed), rng_(seed) {
  check_k(k);
  capacities_.reserve(1);  // so that reset(), which sizes it to 1, never allocates
  reset();
}

void kll_sketch::reset() noexcept {
  view_.drop();
  levels_.clear();
  levels_.emplace_back();
  refresh_sizes();
  n_ = 0;
  rng_ = seed_;
  min_ = std::numeric_limits<double>::max();
  max_ = -std::numeric_limits<double>::max();
}

double kll_sketch::min() const noexcept { return empty() ? nan : min_; }
double kll_sketch::max() const noexcept { return empty() ? nan : max_; }
double kll_sketch::rank_error(bool double_sided) const { return kll_rank_error(k_, double_sided); }

std::size_t kll_sketch::retained() const noexcept { return retained_; }

void kll_sketch::refresh_sizes() {
  retained_ = 0;
  for (const auto& l : levels_) retained_ += l.size();
  refresh_capacities();
}

void kll_sketch::refresh_capacities() {
  if (capacities_.size() == levels_.size()) return;
  capacities_.resize(levels_.size());
  total_capacity_ = 0;
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    capacities_[h] = level_capacity(k_, levels_.size(), h);
    total_capacity_ += capacities_[h];
  }
  level0_capacity_ = capacities_[0];
}

std::size_t kll_sketch::memory_bytes() const noexcept {
  return retained() * sizeof(double) + levels_.size() * sizeof(std::uint32_t);
}

std::size_t kll_sketch::allocated_bytes() const noexcept {
  std::size_t bytes =
      levels_.capacity() * sizeof(levels_[0]) + capacities_.capacity() * sizeof(capacities_[0]);
  for (const auto& level : levels_) bytes += level.capacity() * sizeof(double);
  if (const query_view* v = view_.get()) {
    bytes += 2 * sizeof(void*) + sizeof(query_view) + v->values.capacity() * sizeof(double) +
             v->cumulative.capacity() * sizeof(std::uint64_t);
  }
  return bytes;
}

std::uint32_t kll_sketch::level_capacity(std::uint32_t k, std::size_t levels,
                                         std::size_t h) noexcept {
  const std::size_t depth = levels - 1 - h;
  // round(k (2/3)^depth), in integers: (2k 2^depth / 3^depth + 1) / 2. Past
  // depth 30 every k <= 65535 is below the minimum anyway.
  if (depth > 30) return min_level_capacity;
  std::uint64_t three = 1;
  for (std::size_t i = 0; i < depth; ++i) three *= 3;
  const std::uint64_t cap = ((std::uint64_t{2} * k << depth) / three + 1) / 2;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(min_level_capacity, cap));
}

std::size_t kll_sketch::total_capacity() const noexcept {
  std::size_t total = 0;
  for (std::size_t h = 0; h < levels_.size(); ++h) total += level_capacity(k_, levels_.size(), h);
  return total;
}

bool kll_sketch::next_bit() noexcept { return (splitmix64_next(rng_) >> 63) != 0; }

void kll_sketch::add_many(std::span<const double> xs) {
  for (const double x : xs) require_finite(x);
  view_.drop();
  // add_unchecked value by value, in runs: a value needs a compression
  // first only when level 0 is at its capacity and the sketch at its total,
  // so the next max(the two rooms) values can be appended at once.
  while (!xs.empty()) {
    const std::size_t level0 = levels_[0].size();
    const std::size_t room =
        std::max(level0 < level0_capacity_ ? level0_capacity_ - level0 : 0,
                 retained_ < total_capacity_ ? total_capacity_ - retained_ : 0);
    if (room == 0) {
      compress();
      continue;
    }
    const auto run = xs.first(std::min(room, xs.size()));
    auto& level = levels_[0];
    level.insert(level.end(), run.begin(), run.end());
    double lo = min_;
    double hi = max_;
    for (const double x : run) {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    min_ = lo;
    max_ = hi;
    retained_ += run.size();
    n_ += run.size();
    xs = xs.subspan(run.size());
  }
}

void kll_sketch::compress() {
  while (retained_ >= total_capacity_) {
    std::size_t h = 0;
    while (levels_[h].size() < capacities_[h]) ++h;
    if (h + 1 == levels_.size()) {
      levels_.emplace_back();
      refresh_capacities();
    }
    compact(h);
  }
}

void kll_sketch::compact(std::size_t h) {
  auto& from = levels_[h];
  if (h == 0) std::sort(from.begin(), from.end());
  // An odd one out (the smallest) stays; of the rest, the values at even or
  // odd positions (one random bit) go up a level with twice the weight.
  // The chosen values are gathered in place behind the odd one out (the
  // write position never passes the read position), then merged into the
  // level above from the back, so no buffer is allocated beyond the level's
  // own growth (DataSketches merges within one array in the same spirit).
  const std::size_t keep = from.size() % 2;
  const std::size_t offset = keep + (next_bit() ? 1 : 0);
  std::size_t up = keep;
  for (std::size_t i = offset; i < from.size(); i += 2) from[up++] = from[i];
  auto& to = levels_[h + 1];
  std::size_t a = to.size();  // to[0, a) and from[keep, b) remain to merge
  std::size_t b = up;
  // Grow once to the level's nominal capacity (or what is needed, if more),
  // not by doubling: memory stays near what is kept, and a level fills up
  // without a reallocation per compaction.
  const std::size_t need = a + (up - keep);
  if (to.capacity() < need) to.reserve(std::max<std::size_t>(need, capacities_[h + 1]));
  to.resize(need);
  std::size_t w = to.size();
  // Ties take the value from below first, as std::merge(to, from) orders
  // them. Without branches on the values (a conditional move each): the
  // comparisons of a random level are unpredictable.
  while (b > keep && a > 0) {
    const double x = to[a - 1];
    const double y = from[b - 1];
    const bool upper = x > y;
    to[--w] = upper ? x : y;
    a -= upper ? 1 : 0;
    b -= upper ? 0 : 1;
  }
  while (b > keep) to[--w] = from[--b];
  retained_ -= from.size() - up;  // the dropped half
  from.resize(keep);
  // A compacted upper level that had grown past twice its nominal capacity
  // gives that memory back (keeping every level at its largest size ever
  // would triple what the sketch holds); one within it keeps its array, so
  // that refilling it costs no allocation (freeing and reallocating every
  // upper level at each compaction was about 25 instructions per add).
  // Level 0 keeps its buffer, which refills at once.
  if (h > 0 && from.capacity() > 2 * std::size_t{capacities_[h]}) from.shrink_to_fit();
}

void kll_sketch::merge(const kll_sketch& other) {
  if (other.k_ != k_) {
    throw std::invalid_argument(fmt::format(
        "incompatible KLL sketches: k = {} and k = {}; merge sketches created with the same k", k_,
        other.k_));
  }
  if (other.empty()) return;
  view_.drop();
  if (&other == this) {  // the loop below changes this sketch's levels
    const kll_sketch copy(other);
    merge(copy);
    return;
  }
  while (levels_.size() < other.levels_.size()) levels_.emplace_back();
  for (std::size_t h = 0; h < other.levels_.size(); ++h) {
    auto& to = levels_[h];
    const auto& from = other.levels_[h];
    if (h == 0) {
      to.insert(to.end(), from.begin(), from.end());
    } else {
      hooked_vector<double> joined;
      joined.reserve(to.size() + from.size());
      std::merge(to.begin(), to.end(), from.begin(), from.end(), std::back_inserter(joined));
      to.swap(joined);
    }
  }
  n_ += other.n_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  refresh_sizes();
  if (retained_ >= total_capacity_) compress();
}

const kll_sketch::query_view& kll_sketch::view() const {
  if (const query_view* built = view_.get()) return *built;
  auto v = std::allocate_shared<query_view>(hooked_allocator<query_view>{});
  // Level 0 is sorted (a copy); every other level is sorted already, so the
  // levels are merged upward, one at a time, without branches on the values
  // (DataSketches builds its sorted view by merging too). Ties: the lower
  // level's value first.
  const std::size_t n = retained();
  hooked_vector<weighted> merged(n);
  hooked_vector<weighted> scratch(n);
  std::size_t size = levels_[0].size();
  {
    hooked_vector<double> level0(levels_[0].begin(), levels_[0].end());
    std::sort(level0.begin(), level0.end());
    for (std::size_t i = 0; i < size; ++i) merged[i] = {level0[i], 1};
  }
  for (std::size_t h = 1; h < levels_.size(); ++h) {
    const auto& level = levels_[h];
    const std::uint64_t weight = std::uint64_t{1} << h;
    std::size_t i = 0;
    std::size_t j = 0;
    std::size_t out = 0;
    while (i < size && j < level.size()) {
      const bool below = !(level[j] < merged[i].value);
      scratch[out++] = below ? merged[i] : weighted{level[j], weight};
      i += below ? 1 : 0;
      j += below ? 0 : 1;
    }
    for (; i < size; ++i) scratch[out++] = merged[i];
    for (; j < level.size(); ++j) scratch[out++] = {level[j], weight};
    size = out;
    std::swap(merged, scratch);
  }
  v->values.resize(n);
  v->cumulative.resize(n);
  std::uint64_t so_far = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v->values[i] = merged[i].value;
    v->cumulative[i] = so_far += merged[i].weight;
  }
  return *view_.publish(std::move(v));
}

void kll_sketch::warm_up() const {
  if (!empty()) (void)view();
}

double kll_sketch::value_at_rank(const query_view& view, std::uint64_t r) const {
  // The first item whose cumulative weight passes r holds rank r.
  const auto at = std::upper_bound(view.cumulative.begin(), view.cumulative.end(), r);
  if (at == view.cumulative.end()) return max_;
  return view.values[static_cast<std::size_t>(at - view.cumulative.begin())];
}

double kll_sketch::quantile(double q) const {
  require_fraction(q, "a quantile");
  if (empty()) return nan;
  if (q == 0) return min_;
  if (q == 1) return max_;
  const auto r = std::min(n_ - 1, static_cast<std::uint64_t>(q * static_cast<double>(n_)));
  return value_at_rank(view(), r);
}

std::vector<double> kll_sketch::quantiles(std::span<const double> qs) const {
  for (const double q : qs) require_fraction(q, "a quantile");
  std::vector<double> out;
  out.reserve(qs.size());
  if (empty()) {
    out.assign(qs.size(), nan);
    return out;
  }
  const query_view& v = view();
  for (const double q : qs) {
    if (q == 0) {
      out.push_back(min_);
    } else if (q == 1) {
      out.push_back(max_);
    } else {
      out.push_back(value_at_rank(
          v, std::min(n_ - 1, static_cast<std::uint64_t>(q * static_cast<double>(n_)))));
    }
  }
  return out;
}

std::pair<double, double> kll_sketch::weight_below_and_at(double x) const {
  const query_view& v = view();
  const auto& values = v.values;
  const auto lower = std::lower_bound(values.begin(), values.end(), x);
  // Usually x is not a kept value: then nothing is at x and no second
  // search is needed.
  const auto upper =
      lower == values.end() || x < *lower ? lower : std::upper_bound(lower, values.end(), x);
  const auto weight_before = [&](auto it) -> std::uint64_t {
    const auto i = static_cast<std::size_t>(it - values.begin());
    return i == 0 ? 0 : v.cumulative[i - 1];
  };
  const std::uint64_t below = weight_before(lower);
  return {static_cast<double>(below), static_cast<double>(weight_before(upper) - below)};
}

double kll_sketch::cdf(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a cdf point must be a number, not NaN");
  if (empty()) return nan;
  if (x < min_) return 0;
  if (x > max_) return 1;
  const auto [below, at] = weight_below_and_at(x);
  return (below + at / 2) / static_cast<double>(n_);
}

double kll_sketch::normalized_rank(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a rank point must be a number, not NaN");
  if (empty()) return nan;
  const auto [below, at] = weight_below_and_at(x);
  return (below + at) / static_cast<double>(n_);
}

std::vector<double> kll_sketch::pmf(std::span<const double> splits) const {
  for (std::size_t i = 0; i < splits.size(); ++i) {
    require_finite(splits[i], "a pmf split point");
    if (i > 0 && !(splits[i - 1] < splits[i])) {
      throw std::invalid_argument(
          "pmf split points must be strictly increasing; sort them and drop repeats");
    }
  }
  std::vector<double> out(splits.size() + 1, empty() ? nan : 0.0);
  if (empty()) return out;
  // Mass of (s_{i-1}, s_i]: the weight at or below s_i less that at or
  // below s_{i-1}.
  double before = 0;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto [below, at] = weight_below_and_at(splits[i]);
    out[i] = (below + at - before) / static_cast<double>(n_);
    before = below + at;
  }
  out.back() = (static_cast<double>(n_) - before) / static_cast<double>(n_);
  return out;
}

std::int64_t kll_sketch::rank(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a rank point must be a number, not NaN");
  return detail::rank_from_cdf(empty(), x<min_, x> max_, empty() ? 0 : cdf(x), n_, false);
}

std::int64_t kll_sketch::rev_rank(double x) const {
  if (std::isnan(x)) throw std::invalid_argument("a rank point must be a number, not NaN");
  return detail::rank_from_cdf(empty(), x<min_, x> max_, empty() ? 0 : cdf(x), n_, true);
}

double kll_sketch::by_rank(std::uint64_t r) const {
  if (empty()) return nan;
  if (r == 0) return min_;
  if (r >= n_) return std::numeric_limits<double>::infinity();
  return value_at_rank(view(), r);
}

double kll_sketch::by_rev_rank(std::uint64_t r) const {
  if (empty()) return nan;
  if (r == 0) return max_;
  if (r >= n_) return -std::numeric_limits<double>::infinity();
  return value_at_rank(view(), n_ - 1 - r);
}

double kll_sketch::trimmed_mean(double lo, double hi) const {
  detail::check_trim(lo, hi);
  if (empty()) return nan;
  // The weighted values the shared formula takes, from the view's
  // cumulative weights (only this query needs them one by one).
  const query_view& v = view();
  std::vector<weighted> pairs(v.values.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    pairs[i] = {v.values[i], v.cumulative[i] - (i == 0 ? 0 : v.cumulative[i - 1])};
  }
  return weighted_trimmed_mean(pairs, static_cast<double>(n_), lo, hi);
}

kll_sketch kll_sketch::from_state(std::uint32_t k, std::uint64_t seed, std::uint64_t rng_state,
                                  std::uint64_t n, double min, double max,
                                  std::vector<std::vector<double>> levels) {
  if (k < min_k || k > max_k) {
    throw data_error(fmt::format("the KLL parameter k = {} is outside [{}, {}]", k, min_k, max_k));
  }
  if (levels.empty() || levels.size() > max_levels) {
    throw data_error(
        fmt::format("a KLL sketch has 1 to {} levels, not {}", max_levels, levels.size()));
  }
  kll_sketch s(k, seed);
  s.levels_.clear();
  std::uint64_t weight = 0;
  std::size_t kept = 0;
  for (std::size_t h = 0; h < levels.size(); ++h) {
    const auto& l = levels[h];
    kept += l.size();
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (!std::isfinite(l[i]) || l[i] < min || l[i] > max) {
        throw data_error(
            fmt::format("KLL level {} holds a value outside the sketch's [min, max]", h));
      }
      if (h > 0 && i > 0 && l[i - 1] > l[i]) {
        throw data_error(fmt::format("KLL level {} is not sorted", h));
      }
    }
    const std::uint64_t w = std::uint64_t{1} << h;
    if (!l.empty() && (l.size() > (std::numeric_limits<std::uint64_t>::max() - weight) / w)) {
      throw data_error("the KLL sketch's weights overflow 64 bits");
    }
    weight += l.size() * w;
    s.levels_.emplace_back(l.begin(), l.end());
  }
  // Level 0 fills up to its own capacity before a compaction is considered,
  // so a sketch may hold up to that many values beyond the total.
  s.refresh_sizes();
  const std::size_t limit = s.total_capacity() + level_capacity(k, s.levels_.size(), 0);
  if (kept > limit) {
    throw data_error(
        fmt::format("the KLL sketch keeps {} values, more than its capacity {}", kept, limit));
  }
  if (weight != n) {
    throw data_error(
        fmt::format("the KLL sketch's levels weigh {} but it records {} values", weight, n));
  }
  if (n > 0 && !(std::isfinite(min) && std::isfinite(max) && min <= max)) {
    throw data_error("the KLL sketch's min or max is not a finite number");
  }
  s.n_ = n;
  s.rng_ = rng_state;
  if (n > 0) {
    s.min_ = min;
    s.max_ = max;
  }
  return s;
}

}  // namespace ringbloom
