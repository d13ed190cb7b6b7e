// The merging t-digest: exact answers on small inputs (the conventions of
// RedisBloom's TDIGEST commands), accuracy on four streams within stated
// tolerances, merging, and the refusals.
#include "ringbloom/quantile/tdigest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "quantile/stream_helpers.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace {

using ringbloom::tdigest;
static_assert(ringbloom::quantile_sketch<tdigest>);

TEST(TDigest, EmptyAnswersNaNAndSentinels) {
  const tdigest td;
  EXPECT_TRUE(std::isnan(td.min()));
  EXPECT_TRUE(std::isnan(td.max()));
  EXPECT_TRUE(std::isnan(td.quantile(0.5)));
  EXPECT_TRUE(std::isnan(td.cdf(1)));
  EXPECT_TRUE(std::isnan(td.trimmed_mean(0.1, 0.9)));
  EXPECT_TRUE(std::isnan(td.by_rank(0)));
  EXPECT_EQ(td.rank(1), -2);
  EXPECT_EQ(td.rev_rank(1), -2);
  EXPECT_EQ(td.capacity(), 610u);
}

TEST(TDigest, SmallInputsAreExact) {
  tdigest td(500);
  for (int x = 0; x < 20; ++x) td.add(x);
  EXPECT_EQ(td.count(), 20u);
  EXPECT_EQ(td.sum(), 190);
  EXPECT_EQ(td.rank(-1), -1);
  EXPECT_EQ(td.rank(0), 0);
  EXPECT_EQ(td.rank(10), 10);
  EXPECT_EQ(td.rank(19), 19);
  EXPECT_EQ(td.rank(20), 20);
  EXPECT_EQ(td.rev_rank(20), -1);
  EXPECT_EQ(td.rev_rank(0), 19);
  EXPECT_EQ(td.rev_rank(10), 9);
  EXPECT_EQ(td.rev_rank(-5), 20);
  EXPECT_EQ(td.quantile(0), 0);
  EXPECT_EQ(td.quantile(1), 19);
  EXPECT_NEAR(td.trimmed_mean(0.1, 0.9), 9.5, 1e-9);
  EXPECT_NEAR(td.trimmed_mean(0, 1), 9.5, 1e-9);
}

TEST(TDigest, ByRankOfRepeatedValues) {
  tdigest td(1000);
  const std::vector<double> xs{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5};
  td.add_many(xs);
  const std::vector<std::int64_t> want_rank{-1, 0, 2, 4, 8, 12, 15};
  const std::vector<std::int64_t> want_rev{15, 14, 13, 10, 7, 2, -1};
  for (int x = 0; x <= 6; ++x) {
    EXPECT_EQ(td.rank(x), want_rank[static_cast<std::size_t>(x)]) << x;
    EXPECT_EQ(td.rev_rank(x), want_rev[static_cast<std::size_t>(x)]) << x;
  }
  std::vector<double> sorted = xs;
  for (std::uint64_t r = 0; r < 15; ++r) {
    EXPECT_EQ(td.by_rank(r), sorted[r]) << r;
    EXPECT_EQ(td.by_rev_rank(r), sorted[14 - r]) << r;
  }
  EXPECT_EQ(td.by_rank(15), std::numeric_limits<double>::infinity());
  EXPECT_EQ(td.by_rev_rank(15), -std::numeric_limits<double>::infinity());
}

TEST(TDigest, TrimmedMeanCutsACentroidInProportion) {
  tdigest td(100);
  for (int i = 0; i < 9; ++i) td.add(1.0);
  td.add(5.0);
  EXPECT_NEAR(td.trimmed_mean(0.1, 0.9), 1.0, 1e-9);
  EXPECT_NEAR(td.trimmed_mean(0.05, 0.95), 1.4, 1e-9);
}

TEST(TDigest, BufferCompressesAtCapacity) {
  tdigest td(100);
  for (int i = 0; i < 100; ++i) td.add(i);
  EXPECT_EQ(td.statistics().unmerged_nodes, 100u);
  EXPECT_EQ(td.statistics().merged_nodes, 0u);
  for (int i = 100; i < 10000; ++i) td.add(i);
  const auto s = td.statistics();
  EXPECT_GT(s.total_compressions, 0u);
  EXPECT_LT(s.merged_nodes + s.unmerged_nodes, td.capacity());
  EXPECT_EQ(s.merged_weight + s.unmerged_weight, 10000u);
  td.compress();
  EXPECT_EQ(td.statistics().unmerged_nodes, 0u);
  // A q(1-q) scale keeps the centroids few: far below the capacity.
  EXPECT_LT(td.statistics().merged_nodes, 200u);
}

// Rank error of a quantile estimate: the distance from q to the rank of the
// estimate in the sorted stream. Compression 100, 200,000 values, seed 42.
// Measured (recorded as test properties): at q = 0.001 and 0.999 at most
// 0.00005 on all four streams; in the middle up to 0.0050 (normal, median),
// since RedisBloom's merge rule lets a centroid near the median hold ~19%
// of the weight. Tolerances: 4x the tail figure, 2x the middle one.
struct stream_case {
  const char* name;
  double tail_tol;    // q in {0.001, 0.999}
  double middle_tol;  // q in {0.01, 0.1, 0.5, 0.9, 0.99}
};

class TDigestAccuracy : public ::testing::TestWithParam<stream_case> {};

TEST_P(TDigestAccuracy, QuantileRankErrorWithinTolerance) {
  const auto& c = GetParam();
  const auto xs = quantile_test::stream(c.name, 200000, 42);
  tdigest td(100);
  td.add_many(xs);
  auto sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  for (const double q : {0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999}) {
    const double err = quantile_test::rank_error_of(sorted, td.quantile(q), q);
    const double tol = (q == 0.001 || q == 0.999) ? c.tail_tol : c.middle_tol;
    EXPECT_LE(err, tol) << c.name << " q=" << q;
    RecordProperty(std::string(c.name) + "_q" + std::to_string(q), std::to_string(err));
  }
}

INSTANTIATE_TEST_SUITE_P(Streams, TDigestAccuracy,
                         ::testing::Values(stream_case{"uniform", 0.0002, 0.01},
                                           stream_case{"normal", 0.0002, 0.01},
                                           stream_case{"lognormal", 0.0002, 0.01},
                                           stream_case{"sorted", 0.0002, 0.01}),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(TDigest, MergeOfPartsMatchesOneDigest) {
  const auto xs = quantile_test::stream("lognormal", 100000, 7);
  tdigest whole(100);
  whole.add_many(xs);
  std::vector<tdigest> parts(4, tdigest(100));
  for (std::size_t i = 0; i < xs.size(); ++i) parts[i % 4].add(xs[i]);
  std::vector<const tdigest*> ptrs;
  for (const auto& p : parts) ptrs.push_back(&p);
  const tdigest merged = tdigest::merged(ptrs, 100);
  EXPECT_EQ(merged.count(), whole.count());
  EXPECT_EQ(merged.min(), whole.min());
  EXPECT_EQ(merged.max(), whole.max());
  EXPECT_NEAR(merged.sum(), whole.sum(), 1e-9 * whole.sum());
  auto sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  // Measured: 0.0122 at the median (four coarse middle centroids merged
  // into one), under 0.001 at q = 0.01 and 0.99. Tolerance 2x.
  for (const double q : {0.01, 0.5, 0.99}) {
    EXPECT_LE(quantile_test::rank_error_of(sorted, merged.quantile(q), q), q == 0.5 ? 0.025 : 0.002)
        << q;
  }
}

TEST(TDigest, MergeKeepsTheDestinationCompression) {
  tdigest a(55);
  tdigest b(200);
  for (int i = 0; i < 10; ++i) b.add(1.0);
  a.merge(b);
  EXPECT_EQ(a.compression(), 55);
  EXPECT_EQ(a.count(), 10u);
  const tdigest* ins[] = {&a, &b};
  EXPECT_EQ(tdigest::merged(ins, 300).count(), 20u);
}

TEST(TDigest, MergeWithItselfDoublesTheWeight) {
  tdigest td(100);
  for (int i = 0; i < 5000; ++i) td.add(i);
  const double median = td.quantile(0.5);
  td.merge(td);
  EXPECT_EQ(td.count(), 10000u);
  EXPECT_EQ(td.sum(), 2 * 4999.0 * 5000 / 2);
  EXPECT_NEAR(td.quantile(0.5), median, 100);
}

TEST(TDigest, RefusesNonFiniteValuesAndBadArguments) {
  tdigest td;
  td.add(1.0);
  try {
    td.add(std::numeric_limits<double>::quiet_NaN());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "a value added to a quantile sketch must be a finite number, not nan; leave NaN "
                 "and infinities out of the stream");
  }
  EXPECT_THROW(td.add(std::numeric_limits<double>::infinity()), std::invalid_argument);
  const std::vector<double> batch{1, 2, -std::numeric_limits<double>::infinity()};
  EXPECT_THROW(td.add_many(batch), std::invalid_argument);
  EXPECT_EQ(td.count(), 1u);  // nothing of the refused batch was added
  try {
    (void)td.quantile(1.5);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "a quantile must be between 0 and 1, not 1.5; give a fraction such as 0.99");
  }
  try {
    tdigest bad(0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "the t-digest compression must be between 1 and 100000, not 0; 100 is the usual "
                 "choice (higher is more accurate and larger)");
  }
  EXPECT_THROW((void)td.trimmed_mean(0.5, 0.5), std::invalid_argument);
  EXPECT_THROW((void)td.cdf(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(TDigest, WeightOverflowIsRefused) {
  tdigest td;
  td.add(1.0, std::uint64_t{1} << 62);
  td.add(2.0, (std::uint64_t{1} << 62) - 1);
  EXPECT_THROW(td.add(3.0, 1), std::overflow_error);
  EXPECT_EQ(td.count(), (std::uint64_t{1} << 63) - 1);
  // Ranks near 2^63 stay within [0, n] (the double rounds to 2^63; found by
  // the fuzz target).
  const auto n = static_cast<std::int64_t>(td.count());
  EXPECT_EQ(td.rank(2.0), n);
  EXPECT_EQ(td.rev_rank(0.5), n);
  EXPECT_GE(td.rank(1.5), 0);
  EXPECT_LE(td.rank(1.5), n);
}

}  // namespace
