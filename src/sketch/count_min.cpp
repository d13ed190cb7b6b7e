// Count-Min sketch (include/ringbloom/sketch/count_min.hpp).
#include "ringbloom/sketch/count_min.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom {

namespace {

constexpr std::uint32_t counter_max = std::numeric_limits<std::uint32_t>::max();

void check_size(std::uint32_t width, std::uint32_t depth) {
  if (width < 1 || width > count_min_sketch::max_width) {
    throw std::invalid_argument(
        fmt::format("Count-Min width {} is out of range; give a width from 1 to {}", width,
                    count_min_sketch::max_width));
  }
  if (depth < 1 || depth > count_min_sketch::max_depth) {
    throw std::invalid_argument(
        fmt::format("Count-Min depth {} is out of range; give a depth from 1 to {}", depth,
                    count_min_sketch::max_depth));
  }
  if (std::uint64_t{width} * depth > count_min_sketch::max_counters) {
    throw std::invalid_argument(fmt::format(
        "a Count-Min sketch of {} x {} counters is too large; keep width x depth at most 2^31",
        width, depth));
  }
}

// Checked before the counters are allocated (a sentence, not std::bad_alloc);
// small sketches skip reading the operating system's figures, which costs
// more than allocating them.
void check_memory(std::uint32_t width, std::uint32_t depth) {
  const std::uint64_t bytes = std::uint64_t{width} * depth * sizeof(std::uint32_t);
  if (bytes < (std::uint64_t{1} << 26)) return;
  io::require_memory(bytes, fmt::format("a Count-Min sketch of {} x {} counters", width, depth),
                     "give a smaller width or depth (or a larger error)");
}

void check_probability(std::string_view name, double v) {
  if (!(v > 0.0 && v < 1.0)) {
    throw std::invalid_argument(
        fmt::format("the Count-Min {} {} is out of range; give a value between 0 and 1 "
                    "(exclusive), for example 0.001",
                    name, v));
  }
}

std::uint32_t to_dimension(double v) {
  if (!(v <= static_cast<double>(count_min_sketch::max_width))) {
    throw std::invalid_argument(
        "these error bounds need a sketch wider than 2^30 counters; give a larger error");
  }
  return static_cast<std::uint32_t>(v);
}

std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) noexcept {
  const std::uint32_t s = a + b;
  return s < a ? counter_max : s;
}

}  // namespace

count_min_sketch::count_min_sketch(std::uint32_t width, std::uint32_t depth, bool conservative,
                                   std::uint64_t seed)
    : width_((check_size(width, depth), width)),
      depth_(depth),
      conservative_(conservative),
      seed_(seed),
      counters_((check_memory(width, depth), static_cast<std::size_t>(width) * depth), 0) {}

std::pair<std::uint32_t, std::uint32_t> count_min_sketch::dimensions_for_error(double eps,
                                                                               double delta) {
  check_probability("error eps", eps);
  check_probability("failure probability delta", delta);
  return {to_dimension(std::ceil(std::numbers::e / eps)),
          to_dimension(std::ceil(std::log(1.0 / delta)))};
}

std::pair<std::uint32_t, std::uint32_t> count_min_sketch::redis_dimensions(double error,
                                                                           double probability) {
  check_probability("error", error);
  check_probability("probability", probability);
  // RedisBloom computes the depth in float (log10f); so do we, to match it.
  const float depth = std::ceil(std::log10(static_cast<float>(probability)) / std::log10(0.5f));
  return {to_dimension(std::ceil(2.0 / error)), to_dimension(static_cast<double>(depth))};
}

count_min_sketch count_min_sketch::for_error(double eps, double delta, bool conservative,
                                             std::uint64_t seed) {
  const auto [width, depth] = dimensions_for_error(eps, delta);
  return count_min_sketch(width, depth, conservative, seed);
}

count_min_sketch count_min_sketch::from_counters(std::uint32_t width, std::uint32_t depth,
                                                 bool conservative, std::uint64_t seed,
                                                 std::uint64_t total,
                                                 std::vector<std::uint32_t> counters) {
  count_min_sketch s(width, depth, conservative, seed);
  if (counters.size() != s.counters_.size()) {
    throw data_error(fmt::format("a Count-Min sketch of {} x {} has {} counters, but {} were given",
                                 width, depth, s.counters_.size(), counters.size()));
  }
  s.counters_.assign(counters.begin(), counters.end());
  s.total_ = total;
  return s;
}

double count_min_sketch::epsilon() const noexcept { return std::numbers::e / width_; }
double count_min_sketch::delta() const noexcept { return std::exp(-static_cast<double>(depth_)); }

// Row r's column: Kirsch and Mitzenmacher 2006, g_r = h1 + r h2 from one
// 128-bit hash (h2 forced odd), then the high 32 bits of g_r scaled to the
// width (Lemire's multiply-shift range reduction, no division). The walks
// below recompute the columns rather than store them: two multiplies per row.
namespace {

struct row_walk {
  std::uint64_t g;
  std::uint64_t step;
  std::uint32_t width;
  std::uint32_t next() noexcept {
    const auto column = static_cast<std::uint32_t>(((g >> 32) * width) >> 32);
    g += step;
    return column;
  }
};

}  // namespace

std::uint32_t count_min_sketch::increment(std::string_view item, std::uint32_t n) noexcept {
  const hash128 h = xxh3_128(item, seed_);
  total_ = total_ + n < total_ ? std::numeric_limits<std::uint64_t>::max() : total_ + n;
  std::uint32_t* row = counters_.data();
  std::uint32_t smallest = counter_max;
  if (!conservative_) {
    row_walk walk{h.low, h.high | 1, width_};
    for (std::uint32_t r = 0; r < depth_; ++r, row += width_) {
      std::uint32_t& c = row[walk.next()];
      c = saturating_add(c, n);
      smallest = std::min(smallest, c);
    }
    return smallest;
  }
  row_walk first{h.low, h.high | 1, width_};
  for (std::uint32_t r = 0; r < depth_; ++r, row += width_) {
    smallest = std::min(smallest, row[first.next()]);
  }
  const std::uint32_t target = saturating_add(smallest, n);
  row = counters_.data();
  row_walk second{h.low, h.high | 1, width_};
  for (std::uint32_t r = 0; r < depth_; ++r, row += width_) {
    std::uint32_t& c = row[second.next()];
    c = std::max(c, target);
  }
  return target;
}

namespace {

// The smallest of the item's depth counters; counter(i) reads counter i
// (row-major), wherever the counters live.
template <class Counter>
std::uint32_t smallest_counter(std::string_view item, std::uint64_t seed, std::uint32_t width,
                               std::uint32_t depth, Counter counter) noexcept {
  const hash128 h = xxh3_128(item, seed);
  row_walk walk{h.low, h.high | 1, width};
  std::uint32_t smallest = counter_max;
  std::size_t row = 0;
  for (std::uint32_t r = 0; r < depth; ++r, row += width) {
    smallest = std::min(smallest, counter(row + walk.next()));
  }
  return smallest;
}

}  // namespace

std::uint32_t count_min_sketch::estimate(std::string_view item) const noexcept {
  const std::uint32_t* c = counters_.data();
  return smallest_counter(item, seed_, width_, depth_, [c](std::size_t i) { return c[i]; });
}

count_min_sketch count_min_sketch::merged(std::span<const count_min_sketch* const> sources,
                                          std::span<const std::int64_t> weights) {
  if (sources.empty()) throw std::invalid_argument("merging Count-Min sketches needs at least one");
  if (!weights.empty() && weights.size() != sources.size()) {
    throw std::invalid_argument(fmt::format(
        "{} weights were given for {} sketches; give one weight per sketch, or none for all 1",
        weights.size(), sources.size()));
  }
  const count_min_sketch& first = *sources[0];
  bool conservative = true;
  for (const auto* s : sources) {
    if (s->width_ != first.width_ || s->depth_ != first.depth_ || s->seed_ != first.seed_) {
      throw std::invalid_argument(fmt::format(
          "cannot merge incompatible Count-Min sketches: one is {} x {} with seed {}, another {} "
          "x {} with seed {}; only sketches of the same width, depth and seed can be merged",
          first.width_, first.depth_, first.seed_, s->width_, s->depth_, s->seed_));
    }
    conservative = conservative && s->conservative_;
  }
  count_min_sketch out(first.width_, first.depth_, conservative, first.seed_);
  auto weight = [&](std::size_t k) { return weights.empty() ? std::int64_t{1} : weights[k]; };
  for (std::size_t i = 0; i < out.counters_.size(); ++i) {
    // In long double (64-bit mantissa on x86-64): exact for counters times the
    // usual small weights, and never overflowing for any weight.
    long double sum = 0;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      sum +=
          static_cast<long double>(sources[k]->counters_[i]) * static_cast<long double>(weight(k));
    }
    if (sum < 0) {
      throw std::invalid_argument(fmt::format(
          "the weighted merge makes counter {} negative ({}); use weights that keep every "
          "count at or above zero",
          i, static_cast<double>(sum)));
    }
    out.counters_[i] = sum >= counter_max ? counter_max : static_cast<std::uint32_t>(sum);
  }
  long double total = 0;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    total += static_cast<long double>(sources[k]->total_) * static_cast<long double>(weight(k));
  }
  constexpr auto total_max = std::numeric_limits<std::uint64_t>::max();
  out.total_ = total <= 0                                     ? 0
               : total >= static_cast<long double>(total_max) ? total_max
                                                              : static_cast<std::uint64_t>(total);
  return out;
}

count_min_sketch count_min_sketch::merged_exact(std::span<const count_min_sketch* const> sources,
                                                std::span<const std::int64_t> weights) {
  if (!sources.empty() && (weights.empty() || weights.size() == sources.size())) {
    const auto weight = [&](std::size_t k) {
      return weights.empty() ? std::int64_t{1} : weights[k];
    };
    const count_min_sketch& first = *sources[0];
    const bool same_shape = std::all_of(sources.begin(), sources.end(), [&](const auto* s) {
      return s->width_ == first.width_ && s->depth_ == first.depth_;
    });
    // Shapes that differ are merged()'s refusal; check only what it would read.
    if (same_shape) {
      const auto overflow = [](const std::string& what) {
        return std::overflow_error(fmt::format(
            "the weighted merge overflows {}: a weighted sum must fit 64-bit signed integers and "
            "every counter stay within 0 and 2^32 - 1; use smaller weights",
            what));
      };
      for (std::size_t i = 0; i < first.counters_.size(); ++i) {
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < sources.size(); ++k) {
          std::int64_t product = 0;
          if (__builtin_mul_overflow(std::int64_t{sources[k]->counters_[i]}, weight(k), &product) ||
              __builtin_add_overflow(sum, product, &sum)) {
            throw overflow(fmt::format("counter {}", i));
          }
        }
        if (sum < 0 || sum > std::int64_t{counter_max}) {
          throw overflow(fmt::format("counter {} ({})", i, sum));
        }
      }
      std::int64_t total = 0;
      for (std::size_t k = 0; k < sources.size(); ++k) {
        std::int64_t product = 0;
        if (sources[k]->total_ >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
            __builtin_mul_overflow(static_cast<std::int64_t>(sources[k]->total_), weight(k),
                                   &product) ||
            __builtin_add_overflow(total, product, &total)) {
          throw overflow("the total count");
        }
      }
      if (total < 0) throw overflow(fmt::format("the total count ({})", total));
    }
  }
  return merged(sources, weights);
}

void count_min_sketch::merge(const count_min_sketch& other) {
  const std::array<const count_min_sketch*, 2> both{this, &other};
  *this = merged(both);
}

// --- count_min_view ---------------------------------------------------------------

count_min_view::count_min_view(std::uint32_t width, std::uint32_t depth, bool conservative,
                               std::uint64_t seed, std::uint64_t total,
                               const unsigned char* counters, std::shared_ptr<const void> keepalive)
    : width_((check_size(width, depth), width)),
      depth_(depth),
      conservative_(conservative),
      seed_(seed),
      total_(total),
      counters_(counters),
      keepalive_(std::move(keepalive)) {}

double count_min_view::epsilon() const noexcept { return std::numbers::e / width_; }
double count_min_view::delta() const noexcept { return std::exp(-static_cast<double>(depth_)); }

std::uint32_t count_min_view::estimate(std::string_view item) const noexcept {
  const unsigned char* c = counters_;
  return smallest_counter(item, seed_, width_, depth_,
                          [c](std::size_t i) { return io::load_le<std::uint32_t>(c + 4 * i); });
}

count_min_sketch count_min_view::copy() const {
  std::vector<std::uint32_t> counters(std::size_t{width_} * depth_);
  for (std::size_t i = 0; i < counters.size(); ++i) {
    counters[i] = io::load_le<std::uint32_t>(counters_ + 4 * i);
  }
  return count_min_sketch::from_counters(width_, depth_, conservative_, seed_, total_,
                                         std::move(counters));
}

std::pair<std::string_view, std::uint32_t> parse_increment_line(std::string_view line) {
  const auto tab = line.rfind('\t');
  if (tab == std::string_view::npos) return {line, 1};
  const std::string_view number = line.substr(tab + 1);
  std::uint32_t n = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
  if (ec != std::errc{} || end != number.data() + number.size() || n == 0) {
    throw std::invalid_argument(fmt::format(
        "the line '{}' ends in a tab but not in a count from 1 to 4294967295; give 'item' or "
        "'item<TAB>n'",
        printable(line)));
  }
  return {line.substr(0, tab), n};
}

}  // namespace ringbloom
