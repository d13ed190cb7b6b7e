// The two quantile sketches on the streams of quantile/streams.hpp: KLL's
// rank error stays within its stated bound at its stated confidence on
// every stream, the t-digest-hard one included; the t-digest's does not on
// that stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/quantile_math.hpp"
#include "ringbloom/quantile/streams.hpp"
#include "ringbloom/quantile/tdigest.hpp"

namespace {

using ringbloom::stream_kind;

// The largest distance, over `probes` evenly spaced values of the stream,
// between a sketch's cdf-style estimate and the true normalized rank
// interval of the value ([count below, count at or below] / n).
template <class Estimate>
double max_rank_error(const std::vector<double>& sorted, int probes, Estimate estimate) {
  const auto n = static_cast<double>(sorted.size());
  double worst = 0;
  for (int i = 0; i < probes; ++i) {
    const std::size_t at =
        static_cast<std::size_t>(i) * sorted.size() / static_cast<std::size_t>(probes);
    const double x = sorted[at];
    const auto lo = std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
    const auto hi = std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
    const double est = estimate(x);
    const double err =
        std::max({0.0, static_cast<double>(lo) / n - est, est - static_cast<double>(hi) / n});
    worst = std::max(worst, err);
  }
  return worst;
}

TEST(Streams, AreSeededFiniteAndShaped) {
  for (const stream_kind kind : ringbloom::all_stream_kinds()) {
    const auto a = ringbloom::make_stream(kind, 1000, 5);
    EXPECT_EQ(a, ringbloom::make_stream(kind, 1000, 5)) << ringbloom::stream_name(kind);
    EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](double x) { return std::isfinite(x); }));
  }
  EXPECT_NE(ringbloom::make_stream(stream_kind::normal, 10, 1),
            ringbloom::make_stream(stream_kind::normal, 10, 2));
  const auto sorted = ringbloom::make_stream(stream_kind::sorted, 100, 0);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto rev = ringbloom::make_stream(stream_kind::reverse_sorted, 100, 0);
  EXPECT_TRUE(std::is_sorted(rev.rbegin(), rev.rend()));
  EXPECT_EQ(rev.front(), 99);
  const auto pareto = ringbloom::make_stream(stream_kind::pareto, 10000, 3);
  EXPECT_GE(*std::min_element(pareto.begin(), pareto.end()), 1.0);
  // D_hard: magnitudes from 10^-E to 10^E, E = floor(log10(DBL_MAX / n)) =
  // 304 for n = 10^4, with most of them tiny (u^2 squeezes the exponent).
  const auto hard = ringbloom::make_stream(stream_kind::tdigest_hard, 10000, 3);
  double biggest = 0;
  std::size_t tiny = 0;
  for (const double x : hard) {
    biggest = std::max(biggest, std::fabs(x));
    if (std::fabs(x) < 1e-100) ++tiny;
  }
  EXPECT_LE(biggest, 1e304);
  EXPECT_GT(biggest, 1e290);
  EXPECT_GT(tiny, hard.size() / 3);  // u^2 < 1/3, about 58%
  EXPECT_LT(tiny, hard.size() * 2 / 3);
  EXPECT_THROW((void)ringbloom::make_stream(stream_kind::tdigest_hard, 0, 1),
               std::invalid_argument);
}

// The guarantee of kll.hpp: with probability 99% every rank estimate is
// within kll_rank_error(k) * n. 1,000 runs (each its own stream seed and
// sketch seed), cycling through the seven streams, 20,000 values each, the
// error measured at 200 evenly spaced values of the stream. At a failure
// rate of 1%, more than 18 failing runs of 1,000 has probability 0.7%: the
// test allows 18. About 2 s in a release build.
TEST(KllGuarantee, HoldsOnEveryStreamIncludingTheTDigestHardOne) {
  constexpr std::uint32_t k = 200;
  const double eps = ringbloom::kll_rank_error(k);
  constexpr int runs = 1000;
  const auto kinds = ringbloom::all_stream_kinds();
  int over = 0;
  std::map<std::string, double> worst;
  for (int run = 0; run < runs; ++run) {
    const stream_kind kind = kinds[static_cast<std::size_t>(run) % kinds.size()];
    const auto xs = ringbloom::make_stream(kind, 20000, 500 + static_cast<std::uint64_t>(run));
    ringbloom::kll_sketch s(k, 9000 + static_cast<std::uint64_t>(run));
    s.add_many(xs);
    auto sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const double err = max_rank_error(sorted, 200, [&](double x) { return s.normalized_rank(x); });
    auto& w = worst[std::string(ringbloom::stream_name(kind))];
    w = std::max(w, err);
    if (err > eps) ++over;
  }
  for (const auto& [name, w] : worst) {
    std::printf("KLL k=%u on %s: worst max rank error %.4f (bound %.4f)\n", k, name.c_str(), w,
                eps);
  }
  std::printf("KLL k=%u: %d of %d runs over the bound\n", k, over, runs);
  EXPECT_LE(over, 18);
  EXPECT_EQ(worst.size(), kinds.size());
}

// The failure: on the t-digest-hard stream (10^5 values, compression 100,
// RedisBloom's default) the t-digest's worst rank error is far beyond KLL's
// bound in every one of 10 seeded runs, while KLL (k = 200) on the same
// values stays within it. The figures printed are those of
// docs/sketches.md.
TEST(TDigestVsKll, TDigestHardStreamDrivesTDigestFarAboveKll) {
  const double eps = ringbloom::kll_rank_error(200);
  double least_td = 1;
  double most_kll = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto xs = ringbloom::make_stream(stream_kind::tdigest_hard, 100000, seed);
    ringbloom::tdigest td(100);
    td.add_many(xs);
    ringbloom::kll_sketch kll(200, seed);
    kll.add_many(xs);
    auto sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const double td_err = max_rank_error(sorted, 1000, [&](double x) { return td.cdf(x); });
    const double kll_err = max_rank_error(sorted, 1000, [&](double x) { return kll.cdf(x); });
    least_td = std::min(least_td, td_err);
    most_kll = std::max(most_kll, kll_err);
    EXPECT_GT(td_err, 10 * eps) << "seed " << seed;
    EXPECT_LE(kll_err, eps) << "seed " << seed;
  }
  std::printf(
      "tdigest-hard, 10^5 values: t-digest c=100 least worst error %.3f; KLL k=200 "
      "most worst error %.4f (bound %.4f)\n",
      least_td, most_kll, eps);
  // The same t-digest is accurate on an ordinary stream of the same size.
  const auto normal = ringbloom::make_stream(stream_kind::normal, 100000, 1);
  ringbloom::tdigest td(100);
  td.add_many(normal);
  auto sorted = normal;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(max_rank_error(sorted, 1000, [&](double x) { return td.cdf(x); }), eps);
}

}  // namespace
