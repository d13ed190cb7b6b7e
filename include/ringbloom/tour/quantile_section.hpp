// ringbloom/tour/quantile_section.hpp: the tour's quantile section, the
// stream on which t-digest fails and KLL holds its bound.
//
// What it measures. The same values (quantile/streams.hpp) go into a
// t-digest of compression 100 (RedisBloom's default) and a KLL sketch of
// k = 200 (DataSketches' default). For each stream, the worst rank error of
// each sketch over `probes` evenly spaced values of the stream: the
// distance between the sketch's cdf there and the true normalized rank.
// On the tdigest-hard stream (D_hard of Cormode, Mishra, Ross and Vesely,
// KDD 2021) the section also keeps the error at every probe (the chart)
// and three quantiles as each sketch answers them, with the true rank of
// each answer.
//
// Deterministic: the streams are seeded (options.seed); the same options
// give the same numbers on every platform.
//
// Example:
//
//   ringbloom::tour::quantile_section q = ringbloom::tour::measure_quantiles();
//   double td = q.streams.back().tdigest_worst;   // tdigest-hard: tens of percent
//   double kll = q.streams.back().kll_worst;      // within q.kll_bound (1.33%)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ringbloom::tour {

/// The sizes of the quantile section.
struct quantile_tour_options {
  std::size_t values = 100000;  ///< values of each stream
  std::uint64_t seed = 7;       ///< streams and the KLL sketch
  double compression = 100;
  std::uint32_t k = 200;
  std::size_t probes = 200;  ///< evenly spaced values where errors are measured

  /// Smaller sizes for tests and sanitizer builds: 20,000 values, 100 probes.
  [[nodiscard]] static quantile_tour_options quick();
};

/// The worst rank error of each sketch on one stream.
struct quantile_stream_row {
  std::string stream;
  double tdigest_worst = 0;
  double kll_worst = 0;
};

/// One probe of the tdigest-hard stream: the true normalized rank of the
/// value and each sketch's error there (estimate - truth, signed).
struct quantile_error_point {
  double rank = 0;
  double tdigest_error = 0;
  double kll_error = 0;
};

/// A quantile of the tdigest-hard stream as each sketch answers it, and the
/// true normalized rank of each answer (q when exact).
struct quantile_answer {
  double q = 0;
  double truth = 0;
  double tdigest_value = 0;
  double tdigest_rank = 0;
  double kll_value = 0;
  double kll_rank = 0;
};

struct quantile_section {
  std::size_t values = 0;
  double compression = 0;
  std::uint32_t k = 0;
  double kll_bound = 0;                      ///< kll_rank_error(k): 99% sure, any stream
  std::vector<quantile_stream_row> streams;  ///< every stream of streams.hpp, in its order
  std::vector<quantile_error_point> curve;   ///< tdigest-hard, by rank
  std::vector<quantile_answer> answers;      ///< tdigest-hard, q = 0.5, 0.9, 0.99
};

/// Runs the section. Throws std::invalid_argument for fewer than 100
/// values or probes, or more probes than values.
[[nodiscard]] quantile_section measure_quantiles(const quantile_tour_options& options = {});

}  // namespace ringbloom::tour
