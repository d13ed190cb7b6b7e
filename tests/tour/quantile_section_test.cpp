// The tour's quantile section against the sketches run here on the same
// streams, and the failure it exists to show.
#include "ringbloom/tour/quantile_section.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/quantile_math.hpp"
#include "ringbloom/quantile/streams.hpp"
#include "ringbloom/quantile/tdigest.hpp"

namespace ringbloom::tour {
namespace {

TEST(QuantileSection, TDigestFailsOnTheHardStreamAndKllHoldsItsBound) {
  const quantile_tour_options o = quantile_tour_options::quick();
  const quantile_section s = measure_quantiles(o);
  ASSERT_EQ(s.streams.size(), all_stream_kinds().size());
  EXPECT_DOUBLE_EQ(s.kll_bound, kll_rank_error(o.k));
  for (std::size_t i = 0; i < s.streams.size(); ++i) {
    EXPECT_EQ(s.streams[i].stream, stream_name(all_stream_kinds()[i]));
    EXPECT_LE(s.streams[i].kll_worst, s.kll_bound) << s.streams[i].stream;
  }
  const auto& hard = s.streams.back();
  EXPECT_EQ(hard.stream, "tdigest-hard");
  EXPECT_GT(hard.tdigest_worst, 10 * s.kll_bound);
  // The same t-digest misses by ten times less on every ordinary stream.
  for (std::size_t i = 0; i + 1 < s.streams.size(); ++i) {
    EXPECT_LT(10 * s.streams[i].tdigest_worst, hard.tdigest_worst) << s.streams[i].stream;
  }
  // The curve: one point per probe, by rank, its largest error the row's.
  ASSERT_EQ(s.curve.size(), o.probes);
  EXPECT_TRUE(std::is_sorted(s.curve.begin(), s.curve.end(),
                             [](const auto& a, const auto& b) { return a.rank < b.rank; }));
  double worst = 0;
  for (const auto& p : s.curve) worst = std::max(worst, std::abs(p.tdigest_error));
  EXPECT_DOUBLE_EQ(worst, hard.tdigest_worst);
  // The answers are the sketches' own, on the same stream.
  const auto xs = make_stream(stream_kind::tdigest_hard, o.values, o.seed);
  tdigest td(o.compression);
  td.add_many(xs);
  kll_sketch kll(o.k, o.seed);
  kll.add_many(xs);
  ASSERT_EQ(s.answers.size(), 3u);
  for (const auto& a : s.answers) {
    EXPECT_EQ(a.tdigest_value, td.quantile(a.q));
    EXPECT_EQ(a.kll_value, kll.quantile(a.q));
    EXPECT_LE(std::abs(a.kll_rank - a.q), s.kll_bound) << a.q;
  }
}

TEST(QuantileSection, RefusesTooFewValuesOrProbes) {
  quantile_tour_options o = quantile_tour_options::quick();
  o.values = 50;
  EXPECT_THROW((void)measure_quantiles(o), std::invalid_argument);
  o = quantile_tour_options::quick();
  o.probes = o.values + 1;
  EXPECT_THROW((void)measure_quantiles(o), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::tour
