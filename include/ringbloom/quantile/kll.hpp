// ringbloom/quantile/kll.hpp: the KLL quantile sketch (Karnin, Lang and
// Liberty, "Optimal quantile approximation in streams", FOCS 2016), whose
// rank error is bounded whatever the stream.
//
// When to use it: when an answer must be within a known error (an SLO
// report, a comparison between servers) or the stream may be adversarial
// or sorted; it merges without loss of the guarantee. When not: when the
// far tails of smooth data matter most and RedisBloom compatibility is
// wanted; t-digest (tdigest.hpp) is then more accurate at p99.9 for the
// same bytes (docs/sketches.md, "Quantiles: t-digest or KLL").
//
// How it works. The sketch keeps levels of values; a value at level h
// stands for 2^h values of the stream. Level h holds up to
// max(8, round(k (2/3)^(H - 1 - h))) values, H the number of levels (so
// the top level holds about k and lower ones geometrically fewer). New
// values enter level 0; when the sketch holds more than the sum of the
// capacities, the lowest full level is sorted and compacted: a random
// bit (from the sketch's own generator, seeded at creation) chooses the
// values at even or at odd positions, which move up a level with twice the
// weight, and the others are dropped (an odd one out stays). This is the
// compactor of the paper as DataSketches' kll_sketch implements it.
//
// Guaranteed: with probability 99% (over the sketch's random bits, for any
// stream, adversarial included), every rank estimate is within
// kll_rank_error(k) * n of the truth (quantile_math.hpp: 1.33% at k = 200;
// 1.65% for the mass between two points). A quantile(q) returns a value
// whose true normalized rank is within that error of q. count, min and max
// are exact; up to k values are kept exactly (no compaction yet), so small
// inputs are answered exactly. Memory: about 3 k values kept (k = 200: 620
// after 10^6 values); memory_bytes() is what the sketch keeps, 8 bytes a
// value and 4 a level (k = 200: about 5 KB), as the other sketches count
// their registers or counters; it grows like log(n / k) levels of at least
// 8. Results depend only
// on the values, their order and the seed (deterministic). Not guaranteed:
// relative error at the tails (p99.9 of 10^6 values can be off by the full
// eps * n ranks, i.e. anywhere in the top 1.3%); use a large k or t-digest.
//
// Queries follow the quantile_sketch interface (quantile_math.hpp), with
// the same conventions as the t-digest, so either can stand behind a
// front end; KLL's quantile(q) is the retained value of 0-based rank
// floor(q n) (min at q = 0, max at q = 1): an actual value of the stream.
//
// Queries. The first query after an add or merge builds a query view of
// the kept values in order (level 0 sorted, then the sorted levels merged
// in; values with their cumulative weights, 16 bytes a kept value, not
// counted by memory_bytes(), counted by allocated_bytes()); later queries
// binary-search it (a p99 is then tens of nanoseconds), until the next
// add, merge or reset drops it. warm_up() builds it ahead of a burst of
// queries, so that no query pays for it.
//
// Thread safety: const members are safe to call concurrently, the query
// view included (it is published atomically; two queries that race to
// build it build the same view, the first published is kept and every
// query uses it). Anything else (add,
// merge, reset, assignment) needs exclusive access.
//
// Example:
//
//   ringbloom::kll_sketch s(200, /*seed=*/7);
//   s.add_many(latencies);
//   double p99 = s.quantile(0.99);     // true rank within 1.33% of 0.99, 99% sure
//   double eps = s.rank_error();       // 0.0133
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "ringbloom/allocator_hook.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace ringbloom {

class kll_sketch {
 public:
  static constexpr std::uint32_t default_k = 200;  // DataSketches' default
  static constexpr std::uint32_t min_k = 8;
  static constexpr std::uint32_t max_k = 65535;
  static constexpr std::uint32_t min_level_capacity = 8;  // DataSketches' m
  static constexpr std::size_t max_levels = 61;           // 2^61 > any count

  /// An empty sketch. Throws std::invalid_argument unless min_k <= k <= max_k.
  explicit kll_sketch(std::uint32_t k = default_k, std::uint64_t seed = 0);

  /// Adds one value. Throws std::invalid_argument if x is NaN or infinite.
  void add(double x) {
    require_finite(x);
    view_.drop();
    add_unchecked(x);
  }
  /// Adds every value; all are checked first (a NaN anywhere refuses the
  /// batch and leaves the sketch unchanged).
  void add_many(std::span<const double> xs);
  /// Adds other's values. Throws std::invalid_argument unless both have the
  /// same k ("incompatible sketches"). The guarantee holds for the union.
  void merge(const kll_sketch& other);
  void reset() noexcept;

  [[nodiscard]] std::uint32_t k() const noexcept { return k_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
  [[nodiscard]] bool empty() const noexcept { return n_ == 0; }
  [[nodiscard]] double min() const noexcept;
  [[nodiscard]] double max() const noexcept;
  /// kll_rank_error(k(), double_sided).
  [[nodiscard]] double rank_error(bool double_sided = false) const;
  /// Values kept, and their bytes: 8 a value and 4 a level (the query
  /// view, 16 bytes a value while it exists, is not counted).
  [[nodiscard]] std::size_t retained() const noexcept;
  [[nodiscard]] std::size_t memory_bytes() const noexcept;
  /// The bytes the sketch has allocated beyond sizeof(kll_sketch), all
  /// through the allocator hook (allocator_hook.hpp): each level's array at
  /// its capacity, the level tables, and the query view while it exists
  /// (its arrays at their capacity and its shared block, whose control part
  /// is counted as two pointers, libstdc++'s and libc++'s size). What a host
  /// reports as the value's memory (the Redis module's MEMORY USAGE).
  [[nodiscard]] std::size_t allocated_bytes() const noexcept;
  /// Builds the query view now (see "Queries" above) if it is not built.
  void warm_up() const;
  /// The levels (level h weighs 2^h; level 0 is unsorted, the others sorted).
  [[nodiscard]] std::size_t levels() const noexcept { return levels_.size(); }
  [[nodiscard]] std::span<const double> level(std::size_t h) const noexcept { return levels_[h]; }
  /// The capacity of level h of a sketch of `levels` levels.
  [[nodiscard]] static std::uint32_t level_capacity(std::uint32_t k, std::size_t levels,
                                                    std::size_t h) noexcept;

  /// As quantile_sketch (quantile_math.hpp). quantile throws
  /// std::invalid_argument unless 0 <= q <= 1; NaN when empty.
  [[nodiscard]] double quantile(double q) const;
  /// Several quantiles at once (one look-up of the query view).
  [[nodiscard]] std::vector<double> quantiles(std::span<const double> qs) const;
  /// Estimated fraction of values below x plus half of those equal to x.
  [[nodiscard]] double cdf(double x) const;
  /// Estimated fraction of values <= x (DataSketches' inclusive rank).
  [[nodiscard]] double normalized_rank(double x) const;
  /// Masses of (-inf, s0], (s0, s1], ..., (s_last, inf): splits.size() + 1
  /// fractions summing to 1. Throws std::invalid_argument unless the splits
  /// are finite and strictly increasing. Within rank_error(true) each, 99% sure.
  [[nodiscard]] std::vector<double> pmf(std::span<const double> splits) const;
  [[nodiscard]] std::int64_t rank(double x) const;
  [[nodiscard]] std::int64_t rev_rank(double x) const;
  [[nodiscard]] double by_rank(std::uint64_t r) const;
  [[nodiscard]] double by_rev_rank(std::uint64_t r) const;
  [[nodiscard]] double trimmed_mean(double lo, double hi) const;

  /// The generator's state (saved in files so that a loaded sketch goes on
  /// exactly as the saved one would).
  [[nodiscard]] std::uint64_t rng_state() const noexcept { return rng_; }
  /// A sketch from saved state; every field is checked. Throws data_error.
  [[nodiscard]] static kll_sketch from_state(std::uint32_t k, std::uint64_t seed,
                                             std::uint64_t rng_state, std::uint64_t n, double min,
                                             double max, std::vector<std::vector<double>> levels);

 private:
  struct weighted {
    double value;
    std::uint64_t weight;
  };
  // The kept values sorted, with cumulative[i] the weight of values[0..i]
  // (value i weighs cumulative[i] - cumulative[i - 1]).
  struct query_view {
    hooked_vector<double> values;
    hooked_vector<std::uint64_t> cumulative;
  };
  // The published view. The first query after a change builds one and
  // publishes it with a compare-and-swap: the first builder wins and owns
  // it, a builder that loses frees its own and uses the winner's. A
  // published view is only replaced by drop(), which runs in add, merge,
  // reset or assignment, never beside a const call (the class's rule), so
  // queries may read it through a plain pointer, without reference counts.
  // A copy of a sketch starts without a view and builds its own.
  class view_cache {
   public:
    view_cache() noexcept = default;
    view_cache(const view_cache& /*other*/) noexcept {}
    view_cache& operator=(const view_cache& /*other*/) noexcept {
      drop();
      return *this;
    }
    ~view_cache() = default;
    [[nodiscard]] const query_view* get() const noexcept {
      return view_.load(std::memory_order_acquire);
    }
    /// Publishes `v` unless a view is published already; returns the one
    /// that is.
    const query_view* publish(std::shared_ptr<const query_view> v) const noexcept {
      const query_view* expected = nullptr;
      if (view_.compare_exchange_strong(expected, v.get(), std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
        owner_ = std::move(v);  // only the winner writes it; only drop() reads it
        return owner_.get();
      }
      return expected;
    }
    void drop() noexcept {
      if (view_.load(std::memory_order_relaxed) == nullptr) return;
      view_.store(nullptr, std::memory_order_relaxed);
      owner_.reset();
    }

   private:
    mutable std::atomic<const query_view*> view_{nullptr};
    mutable std::shared_ptr<const query_view> owner_;
  };
  [[nodiscard]] const query_view& view() const;
  [[nodiscard]] double value_at_rank(const query_view& view, std::uint64_t r) const;
  [[nodiscard]] std::pair<double, double> weight_below_and_at(double x) const;
  [[nodiscard]] std::size_t total_capacity() const noexcept;
  void refresh_sizes();       // retained_ and the capacities
  void refresh_capacities();  // after the number of levels changed
  // Inline: the common add is a push_back. Level 0 full (its capacity in a
  // sketch of this height) and the sketch at its total capacity: compress
  // first. Both sizes are cached (refresh_sizes) and only change when a
  // level is compacted or added.
  void add_unchecked(double x) {
    if (levels_[0].size() >= level0_capacity_ && retained_ >= total_capacity_) compress();
    levels_[0].push_back(x);
    ++retained_;
    ++n_;
    min_ = x < min_ ? x : min_;
    max_ = x > max_ ? x : max_;
  }
  void compress();
  void compact(std::size_t h);
  [[nodiscard]] bool next_bit() noexcept;

  std::uint32_t k_;
  std::uint64_t seed_;
  std::uint64_t rng_;
  std::uint64_t n_ = 0;
  double min_;
  double max_;
  hooked_vector<hooked_vector<double>> levels_;
  std::size_t retained_ = 0;                 // values in levels_
  std::uint32_t level0_capacity_ = 0;        // capacities_[0]
  std::size_t total_capacity_ = 0;           // the sum of capacities_
  hooked_vector<std::uint32_t> capacities_;  // level_capacity of each level
  view_cache view_;
};

}  // namespace ringbloom
