// ringbloom/sketch/count_min.hpp: the Count-Min sketch (Cormode and
// Muthukrishnan 2005), frequency estimates that never undercount.
//
// What: depth rows of width 32-bit counters. increment(x, n) adds n to one
// counter per row (row i's column comes from the item's hash); estimate(x) is
// the smallest of those counters. Every counter an item touches has received
// at least all of that item's increments, so
//
//     estimate(x) >= f(x)                         always (no underestimate), and
//     estimate(x) <= f(x) + eps N                 with probability >= 1 - delta,
//
// where N is the sum of all increments, eps = e / width and delta =
// e^-depth (Cormode and Muthukrishnan 2005, theorem 1). for_error(eps, delta)
// sizes the sketch by those formulas: width = ceil(e / eps), depth =
// ceil(ln(1 / delta)). RedisBloom's CMS.INITBYPROB uses other formulas
// (width = ceil(2 / error), depth = ceil(log10(probability) / log10(0.5)),
// src/cms.c CMS_DimFromProb); redis_dimensions gives those, for the module.
//
// Counters saturate at 2^32 - 1 instead of wrapping, so an overflow can only
// raise an estimate, never lower it.
//
// Conservative update (Estan and Varghese 2002), an option chosen at
// creation: increment raises each of the item's counters only as far as
// needed, to max(counter, estimate + n). Estimates stay >= the truth and are
// often much closer; decrements are impossible (none are offered anyway).
//
// Merging: a weighted sum of sketches of the same width, depth and seed
// (RedisBloom's CMS.MERGE ... WEIGHTS). With weights >= 1 the merged sketch
// still never undercounts the union stream. A negative result refuses the
// merge; sums above 2^32 - 1 saturate. merged_exact() refuses those too, as
// RedisBloom's CMS.MERGE does ("CMS: MERGE overflow").
//
// Example:
//
//   auto cms = ringbloom::count_min_sketch::for_error(0.001, 0.01);  // 2719 x 5
//   cms.increment("GET /", 3);
//   cms.increment("POST /login");
//   std::uint32_t n = cms.estimate("GET /");   // >= 3, and 3 unless collisions
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom {

class count_min_sketch {
 public:
  static constexpr std::uint32_t max_width = std::uint32_t{1} << 30;
  static constexpr std::uint32_t max_depth = 64;
  /// The most counters (width x depth) a sketch may have.
  static constexpr std::uint64_t max_counters = std::uint64_t{1} << 31;

  /// A sketch of depth rows of width counters. Throws std::invalid_argument
  /// naming the range unless 1 <= width <= 2^30, 1 <= depth <= 64 and width
  /// x depth <= 2^31 counters.
  count_min_sketch(std::uint32_t width, std::uint32_t depth, bool conservative = false,
                   std::uint64_t seed = 0);

  /// Sized by the textbook formulas: width = ceil(e / eps), depth =
  /// ceil(ln(1 / delta)). Throws std::invalid_argument unless eps and delta
  /// are in (0, 1).
  [[nodiscard]] static count_min_sketch for_error(double eps, double delta,
                                                  bool conservative = false,
                                                  std::uint64_t seed = 0);
  /// {width, depth} of for_error.
  [[nodiscard]] static std::pair<std::uint32_t, std::uint32_t> dimensions_for_error(double eps,
                                                                                    double delta);
  /// {width, depth} as RedisBloom's CMS.INITBYPROB computes them from
  /// (error, probability): ceil(2 / error), ceil(log10(probability) / log10(0.5)).
  [[nodiscard]] static std::pair<std::uint32_t, std::uint32_t> redis_dimensions(double error,
                                                                                double probability);

  /// A sketch from saved counters (row-major, width x depth). Throws
  /// data_error when the count is wrong, std::invalid_argument for bad sizes.
  [[nodiscard]] static count_min_sketch from_counters(std::uint32_t width, std::uint32_t depth,
                                                      bool conservative, std::uint64_t seed,
                                                      std::uint64_t total,
                                                      std::vector<std::uint32_t> counters);

  [[nodiscard]] std::uint32_t width() const noexcept { return width_; }
  [[nodiscard]] std::uint32_t depth() const noexcept { return depth_; }
  [[nodiscard]] bool conservative() const noexcept { return conservative_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  /// N: the sum of all increments (saturating at 2^64 - 1).
  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  /// eps = e / width, the error factor of the bound.
  [[nodiscard]] double epsilon() const noexcept;
  /// delta = e^-depth, the probability that one estimate exceeds the bound.
  [[nodiscard]] double delta() const noexcept;
  /// eps x N: estimates exceed the truth by at most this, with probability >= 1 - delta.
  [[nodiscard]] double error_bound() const noexcept {
    return epsilon() * static_cast<double>(total_);
  }
  [[nodiscard]] std::span<const std::uint32_t> counters() const noexcept { return counters_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return counters_.size() * 4; }

  /// Adds n to the item's count; returns its new estimate.
  std::uint32_t increment(std::string_view item, std::uint32_t n = 1) noexcept;
  /// The estimated count: >= every increment of the item so far.
  [[nodiscard]] std::uint32_t estimate(std::string_view item) const noexcept;

  /// The weighted sum of `sources` (at least one, all of one width, depth
  /// and seed; `weights` empty for all 1 or one per source). The result is
  /// conservative only if every source is. Throws std::invalid_argument
  /// naming what differs, or when a weighted counter would be negative.
  [[nodiscard]] static count_min_sketch merged(std::span<const count_min_sketch* const> sources,
                                               std::span<const std::int64_t> weights = {});
  /// merged(), refusing instead of saturating, with RedisBloom's rule
  /// (src/cms.c, checkOverflow): every counter's weighted sum, computed in
  /// signed 64-bit integers, must neither overflow nor leave [0, 2^32 - 1],
  /// and the weighted sum of the totals must neither overflow nor be
  /// negative. Throws std::overflow_error naming the first counter (or the
  /// total) that fails, std::invalid_argument as merged(); the sources are
  /// never changed. Within those bounds the result is exact.
  [[nodiscard]] static count_min_sketch merged_exact(
      std::span<const count_min_sketch* const> sources, std::span<const std::int64_t> weights = {});
  /// Adds `other` (weight 1) into this sketch; same rules as merged.
  void merge(const count_min_sketch& other);

  friend bool operator==(const count_min_sketch&, const count_min_sketch&) = default;

 private:
  std::uint32_t width_;
  std::uint32_t depth_;
  bool conservative_;
  std::uint64_t seed_;
  std::uint64_t total_ = 0;
  hooked_vector<std::uint32_t> counters_;  // row-major: row r at [r * width, (r + 1) * width)
};

/// A read-only Count-Min sketch over counters that live elsewhere: the
/// counter bytes of a memory-mapped sketch file (open_sketch_mapped,
/// sketch_file.hpp), width x depth little-endian 32-bit counters, row-major.
/// estimate() reads its depth counters in place, without a copy, and answers
/// exactly as a count_min_sketch with the same counters. `keepalive` keeps
/// their storage (the mapping) alive as long as the view and its copies.
class count_min_view {
 public:
  /// Throws std::invalid_argument for sizes count_min_sketch refuses. The
  /// caller guarantees width x depth x 4 readable bytes at `counters`.
  count_min_view(std::uint32_t width, std::uint32_t depth, bool conservative, std::uint64_t seed,
                 std::uint64_t total, const unsigned char* counters,
                 std::shared_ptr<const void> keepalive = {});

  [[nodiscard]] std::uint32_t width() const noexcept { return width_; }
  [[nodiscard]] std::uint32_t depth() const noexcept { return depth_; }
  [[nodiscard]] bool conservative() const noexcept { return conservative_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  [[nodiscard]] double epsilon() const noexcept;
  [[nodiscard]] double delta() const noexcept;
  [[nodiscard]] double error_bound() const noexcept {
    return epsilon() * static_cast<double>(total_);
  }
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return std::size_t{width_} * depth_ * 4;
  }
  /// count_min_sketch::estimate over the counters in place.
  [[nodiscard]] std::uint32_t estimate(std::string_view item) const noexcept;
  /// A writable sketch with a copy of the counters.
  [[nodiscard]] count_min_sketch copy() const;

 private:
  std::uint32_t width_;
  std::uint32_t depth_;
  bool conservative_;
  std::uint64_t seed_;
  std::uint64_t total_;
  const unsigned char* counters_;
  std::shared_ptr<const void> keepalive_;
};

/// One line of a stream of increments, "item" or "item<TAB>n" (as `ringbloom
/// cms incr` reads standard input): the item and n, 1 without a tab. The
/// item is everything before the last tab. Throws std::invalid_argument
/// when a tab is not followed by a count from 1 to 2^32 - 1.
[[nodiscard]] std::pair<std::string_view, std::uint32_t> parse_increment_line(
    std::string_view line);

}  // namespace ringbloom
