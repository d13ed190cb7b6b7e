// Concurrent queries of one KLL sketch: every thread races to build the
// shared query view (kll.hpp, "Queries") and must get the answers a single
// thread gets. Built and run under ThreadSanitizer as well (`make test`, the
// tsan preset), which would report a data race on the view.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/streams.hpp"

namespace ringbloom {
namespace {

TEST(KllConcurrency, ConstQueriesRaceToBuildTheViewAndAgree) {
  const auto xs = make_stream(stream_kind::lognormal, 50000, 3);
  const double qs[] = {0.01, 0.5, 0.9, 0.99, 0.999};
  kll_sketch reference(200, 4);
  reference.add_many(xs);
  std::vector<double> want;
  for (const double q : qs) want.push_back(reference.quantile(q));
  const double want_cdf = reference.cdf(2.0);

  for (int round = 0; round < 20; ++round) {
    kll_sketch s(200, 4);
    s.add_many(xs);  // no view yet: the threads below race to build it
    constexpr int threads = 4;
    std::vector<std::vector<double>> got(threads);
    std::vector<double> got_cdf(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        got_cdf[static_cast<std::size_t>(t)] = s.cdf(2.0);
        for (const double q : qs) got[static_cast<std::size_t>(t)].push_back(s.quantile(q));
      });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
      EXPECT_EQ(got[static_cast<std::size_t>(t)], want) << "round " << round << " thread " << t;
      EXPECT_EQ(got_cdf[static_cast<std::size_t>(t)], want_cdf);
    }
    // A change drops the view; the next queries see the new values.
    s.add(1e9);
    EXPECT_EQ(s.quantile(1.0), 1e9);
    EXPECT_EQ(s.count(), xs.size() + 1);
  }
}

TEST(KllConcurrency, ACopyAnswersLikeItsOriginal) {
  kll_sketch s(100, 1);
  s.add_many(make_stream(stream_kind::uniform, 20000, 1));
  s.warm_up();
  const kll_sketch copy = s;  // starts without a view, builds its own
  EXPECT_EQ(copy.quantile(0.5), s.quantile(0.5));
  kll_sketch assigned(100, 9);
  assigned.add(1);
  (void)assigned.quantile(0.5);  // a view of its old values
  assigned = s;
  EXPECT_EQ(assigned.quantile(0.5), s.quantile(0.5));
  EXPECT_EQ(assigned.memory_bytes(), s.retained() * 8 + s.levels() * 4);
}

}  // namespace
}  // namespace ringbloom
