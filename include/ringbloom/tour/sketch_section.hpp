// ringbloom/tour/sketch_section.hpp: section 7 of the tour, the German
// lesson's unchecked claims about Bloom's relatives, measured on the library.
//
// The lesson says, marked "not measured here, please check before passing
// them on": HyperLogLog counts distinct items in little memory with a small
// relative error in both directions; Count-Min estimates frequencies and
// only ever overestimates. This section checks both, and adds the two
// structures production systems pair with them:
//   - hll:    the signed relative error of many independent HyperLogLogs
//             (p = 14) at 10^3 .. 10^7 distinct items (and at 2.5 m, where
//             the classic estimator has its bump): both directions, a
//             histogram, against 1.04 / sqrt(m); memory against an exact set;
//   - cms:    Count-Min (eps 0.001, delta 0.01) on a Zipf(1.0) stream against
//             exact counts: never under, how far over, against eps x N, with
//             and without conservative update;
//   - topk:   Top-K (HeavyKeeper) recall of the exact top 10 on that stream;
//   - cuckoo: the cuckoo filter's rate and bits per item at load 0.5 / 0.9 /
//             0.95 against the counting Bloom filter at the same rate.
//
// Deterministic: HLL values are a fixed splitmix64 sequence (a stand-in for
// a perfect hash), stream keys are "key-<i>" drawn by a fixed sequence; the
// same options give the same numbers everywhere.
//
// Example:
//
//   auto s = ringbloom::tour::run_sketch_section();
//   double rse = s.hll.points.back().rse;   // about 0.008 at p = 14
#pragma once

#include <cstdint>
#include <vector>

namespace ringbloom::tour {

struct sketch_options {
  /// HLL: distinct counts measured, sketches per count up to 10^6, and
  /// (fewer) for the larger counts.
  std::vector<std::uint64_t> hll_points{1000, 10000, 40960, 100000, 1000000, 10000000};
  std::uint32_t hll_sketches = 64;
  std::uint32_t hll_sketches_large = 8;
  /// The Zipf stream of the Count-Min and Top-K parts.
  std::uint64_t stream = 1'000'000;
  std::uint32_t universe = 100'000;
  /// Probes for the cuckoo / counting Bloom comparison.
  std::uint64_t cuckoo_strangers = 200'000;

  /// Smaller sizes for sanitizer builds and tests.
  [[nodiscard]] static sketch_options quick();
};

/// One distinct count: the signed relative errors (estimate / n - 1) of the sketches.
struct hll_point {
  std::uint64_t n = 0;
  std::uint32_t sketches = 0;
  double rse = 0;   ///< root mean square of the errors
  double bias = 0;  ///< mean error
  double min_error = 0;
  double max_error = 0;
  std::uint32_t under = 0;  ///< sketches below n
  std::uint32_t over = 0;   ///< sketches above n
  /// Errors in bins of width hll_section::bin_width, centred on 0, from
  /// -bins/2 to +bins/2 (the outer bins take everything beyond).
  std::vector<std::uint32_t> histogram;
  std::uint64_t exact_set_bytes = 0;  ///< estimate: n x 40 (unordered_set<uint64_t> node + bucket)
};

struct hll_section {
  unsigned precision = 14;
  std::uint64_t registers = 0;
  std::uint64_t memory_bytes = 0;
  double expected_rse = 0;  ///< 1.04 / sqrt(m)
  double bin_width = 0;     ///< histogram bin: expected_rse / 2
  std::vector<hll_point> points;
};

struct cms_row {
  bool conservative = false;
  std::uint64_t total = 0;  ///< N
  std::uint64_t keys = 0;   ///< distinct keys in the stream
  double error_bound = 0;   ///< eps x N
  std::uint64_t under = 0;  ///< keys estimated below their count (the claim: 0)
  std::uint64_t exact = 0;  ///< keys estimated exactly
  double mean_over = 0;     ///< mean estimate - count
  std::uint64_t max_over = 0;
  std::uint64_t beyond_bound = 0;  ///< keys over by more than eps x N
};

struct cms_section {
  std::uint32_t width = 0;
  std::uint32_t depth = 0;
  std::vector<cms_row> rows;  ///< plain, conservative
};

struct topk_row {
  std::uint32_t width = 0;
  std::uint32_t depth = 0;
  std::uint32_t found = 0;  ///< of the exact top k
  double recall = 0;
};

struct topk_section {
  std::uint32_t k = 10;
  std::vector<topk_row> rows;
};

struct cuckoo_row {
  double load = 0;
  double fpr = 0;
  double formula_fpr = 0;
  double cuckoo_bits_per_item = 0;
  double counting_bloom_bits_per_item =
      0;  ///< a counting Bloom filter sized for the same items and rate
};

struct cuckoo_section {
  std::uint32_t bucket_size = 4;
  std::uint32_t fingerprint_bits = 8;
  std::vector<cuckoo_row> rows;
};

struct sketch_section {
  hll_section hll;
  cms_section cms;
  topk_section topk;
  cuckoo_section cuckoo;
};

/// Runs all four parts. Throws std::invalid_argument for empty or zero sizes.
[[nodiscard]] sketch_section run_sketch_section(const sketch_options& options = {});

}  // namespace ringbloom::tour
