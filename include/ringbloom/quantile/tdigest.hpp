// ringbloom/quantile/tdigest.hpp: the merging t-digest (Dunning and Ertl,
// "Computing extremely accurate quantiles using t-digests", 2019), with the
// compression parameter, buffer, merge rule and interpolation of
// RedisBloom's t-digest (the t-digest-c library behind TDIGEST.*), so that
// the module's TDIGEST commands answer as RedisBloom's do.
//
// When to use it: latency percentiles and other tail quantiles of ordinary
// data, where it is very accurate at p99 and p99.9 for a few KB. When not:
// when the error must be bounded whatever the stream; use kll_sketch
// (kll.hpp), whose rank error is guaranteed (quantile_math.hpp, and
// docs/sketches.md "Quantiles: t-digest or KLL").
//
// How it works. Values go into a buffer of nodes (mean, weight); when the
// buffer holds capacity - 1 nodes (capacity = 6 * compression + 10) all
// nodes are sorted by mean and merged left to right into centroids. A
// centroid of weight w, covering quantiles [q0, q2] of a digest of total
// weight n, may absorb the next node while
//
//     w * delta / (2 pi n ln n) <= q (1 - q)   at both q = q0 and q = q2,
//
// delta being the compression: centroids stay small (down to single values)
// near q = 0 and q = 1 and grow to about n / delta in the middle. This is
// the scale function of t-digest-c (a q(1-q) bound, the "K_2"-style limit of
// Dunning's MergingDigest with the normalizer 2 pi n ln n). Queries
// interpolate between centroid means, treating weight-1 centroids as exact
// values and the extremes min and max as known samples (MergingDigest's
// interpolation, as t-digest-c implements it).
//
// Guaranteed: count(), min(), max() and sum() are exact; quantile(0) is
// min() and quantile(1) is max(); results are deterministic (no
// randomness); merging loses no weight; memory is fixed at creation
// (capacity nodes of 16 bytes). Not guaranteed: any bound on the quantile or
// rank error. On smooth data the error at the tails is tiny (measured in
// tests/quantile/tdigest_test.cpp: uniform, normal, lognormal and sorted
// streams) but adversarial streams (Cormode, Mishra, Ross, Vesely, KDD
// 2021) can drive it arbitrarily high. The mean of a centroid is a running
// average in double precision, so values far beyond 2^53 lose precision.
//
// Thread safety: const members are safe to call concurrently; anything else
// needs exclusive access.
//
// Example:
//
//   ringbloom::tdigest td(100);                 // compression 100, 610 nodes
//   for (double ms : latencies) td.add(ms);
//   double p99 = td.quantile(0.99);
//   double share_under_200 = td.cdf(200.0);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom {

class tdigest {
 public:
  static constexpr double default_compression = 100;  // RedisBloom's TDIGEST.CREATE default
  /// 600,010 nodes, 9.6 MB: far beyond any useful accuracy (RedisBloom has
  /// no limit but the allocator's).
  static constexpr double max_compression = 100000;

  /// One node: the mean of `weight` values.
  struct centroid {
    double mean;
    std::uint64_t weight;
  };

  /// The figures TDIGEST.INFO reports.
  struct stats {
    std::size_t merged_nodes;
    std::size_t unmerged_nodes;
    std::uint64_t merged_weight;
    std::uint64_t unmerged_weight;
    std::uint64_t total_compressions;
  };

  /// An empty digest. Throws std::invalid_argument unless 1 <= compression
  /// <= max_compression. The capacity is 6 * floor(compression) + 10 nodes.
  explicit tdigest(double compression = default_compression);

  /// Copies keep the whole node array reserved (memory stays fixed).
  tdigest(const tdigest& other);
  tdigest& operator=(const tdigest& other);
  tdigest(tdigest&&) noexcept = default;
  tdigest& operator=(tdigest&&) noexcept = default;
  ~tdigest() = default;

  /// Adds one value (weight 1) or `weight` copies of it. Throws
  /// std::invalid_argument if x is NaN or infinite, or weight is 0;
  /// std::overflow_error if the total weight would pass 2^63 - 1 (the digest
  /// is then unchanged).
  void add(double x);
  void add(double x, std::uint64_t weight);
  /// Adds every value; all are checked before any is added (a NaN anywhere
  /// refuses the batch and leaves the digest unchanged).
  void add_many(std::span<const double> xs);

  /// Adds other's centroids (compressed first, on a copy if need be) to
  /// this digest, keeping this digest's compression. Throws
  /// std::overflow_error as add does; on that error this digest may hold
  /// part of other.
  void merge(const tdigest& other);
  /// A new digest of the given compression holding every input's weight,
  /// merged in order (TDIGEST.MERGE). Throws std::invalid_argument for a bad
  /// compression, std::overflow_error as add does.
  [[nodiscard]] static tdigest merged(std::span<const tdigest* const> inputs, double compression);

  /// Sorts and merges the buffer into the centroids (queries do this on a
  /// copy when the buffer is not empty; call it to make later queries cheap).
  void compress();
  /// Empties the digest, keeping its compression.
  void reset() noexcept;

  [[nodiscard]] double compression() const noexcept { return compression_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::uint64_t count() const noexcept { return merged_weight_ + unmerged_weight_; }
  [[nodiscard]] bool empty() const noexcept { return count() == 0; }
  /// Exact. NaN when empty.
  [[nodiscard]] double min() const noexcept;
  [[nodiscard]] double max() const noexcept;
  /// The exact sum of the values added (as double), and sum / count (NaN if empty).
  [[nodiscard]] double sum() const noexcept { return sum_; }
  [[nodiscard]] double mean() const noexcept;
  [[nodiscard]] stats statistics() const noexcept;
  /// Merged centroids first (sorted by mean), then the buffered nodes.
  [[nodiscard]] std::span<const centroid> nodes() const noexcept { return nodes_; }
  /// The bytes of the node array (fixed: capacity * 16).
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

  /// The value below which a fraction q of the weight lies. Throws
  /// std::invalid_argument unless 0 <= q <= 1. NaN when empty.
  [[nodiscard]] double quantile(double q) const;
  /// The estimated fraction of the weight below x plus half the weight at
  /// x (0 below min, 1 above max). NaN when empty. Throws
  /// std::invalid_argument if x is NaN.
  [[nodiscard]] double cdf(double x) const;
  /// TDIGEST.RANK / REVRANK / BYRANK / BYREVRANK (quantile_math.hpp,
  /// quantile_sketch). rank throws std::invalid_argument if x is NaN.
  [[nodiscard]] std::int64_t rank(double x) const;
  [[nodiscard]] std::int64_t rev_rank(double x) const;
  [[nodiscard]] double by_rank(std::uint64_t r) const;
  [[nodiscard]] double by_rev_rank(std::uint64_t r) const;
  /// The mean of the values between quantiles lo and hi (TDIGEST.TRIMMED_MEAN).
  /// Throws std::invalid_argument unless 0 <= lo < hi <= 1. NaN when empty.
  [[nodiscard]] double trimmed_mean(double lo, double hi) const;

  /// A digest from saved state (the file loader; every field is checked).
  /// Throws data_error naming the inconsistency.
  [[nodiscard]] static tdigest from_state(double compression, double min, double max, double sum,
                                          std::uint64_t total_compressions,
                                          std::size_t merged_nodes,
                                          std::span<const centroid> nodes);

 private:
  void add_unchecked(double x, std::uint64_t weight);
  void add_one(double x);
  [[nodiscard]] const tdigest& compressed(std::optional<tdigest>& scratch) const;
  [[nodiscard]] double quantile_merged(double q) const;
  [[nodiscard]] double cdf_merged(double x) const;

  double compression_;
  std::size_t capacity_;
  hooked_vector<centroid> nodes_;  // reserved to capacity_
  std::size_t merged_nodes_ = 0;
  std::uint64_t merged_weight_ = 0;
  std::uint64_t unmerged_weight_ = 0;
  std::uint64_t total_compressions_ = 0;
  double min_;
  double max_;
  double sum_ = 0;
};

}  // namespace ringbloom
