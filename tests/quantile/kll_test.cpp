// The KLL sketch: exact answers while nothing is compacted, the rank-error
// guarantee over many seeded runs, merging, determinism, the refusals.
#include "ringbloom/quantile/kll.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "quantile/stream_helpers.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace {

using ringbloom::kll_sketch;
static_assert(ringbloom::quantile_sketch<kll_sketch>);

TEST(KllMath, RankErrorOfK) {
  EXPECT_NEAR(ringbloom::kll_rank_error(200), 0.0133, 0.00005);
  EXPECT_NEAR(ringbloom::kll_rank_error(200, true), 0.0165, 0.00005);
  EXPECT_EQ(ringbloom::kll_k_for_error(ringbloom::kll_rank_error(200)), 200u);
  EXPECT_LE(ringbloom::kll_rank_error(ringbloom::kll_k_for_error(0.01)), 0.01);
  EXPECT_GT(ringbloom::kll_rank_error(ringbloom::kll_k_for_error(0.01) - 1), 0.01);
  EXPECT_THROW((void)ringbloom::kll_rank_error(7), std::invalid_argument);
  EXPECT_THROW((void)ringbloom::kll_k_for_error(0.9), std::invalid_argument);
}

TEST(Kll, LevelCapacitiesShrinkByTwoThirds) {
  EXPECT_EQ(kll_sketch::level_capacity(200, 1, 0), 200u);
  EXPECT_EQ(kll_sketch::level_capacity(200, 2, 0), 133u);  // round(200 * 2/3)
  EXPECT_EQ(kll_sketch::level_capacity(200, 3, 0), 89u);   // round(200 * 4/9)
  EXPECT_EQ(kll_sketch::level_capacity(200, 20, 0), 8u);   // the minimum
}

TEST(Kll, SmallInputsAreExact) {
  kll_sketch s(200, 1);
  const std::vector<double> xs{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5};
  s.add_many(xs);
  const std::vector<std::int64_t> want_rank{-1, 0, 2, 4, 8, 12, 15};
  const std::vector<std::int64_t> want_rev{15, 14, 13, 10, 7, 2, -1};
  for (int x = 0; x <= 6; ++x) {
    EXPECT_EQ(s.rank(x), want_rank[static_cast<std::size_t>(x)]) << x;
    EXPECT_EQ(s.rev_rank(x), want_rev[static_cast<std::size_t>(x)]) << x;
  }
  for (std::uint64_t r = 0; r < 15; ++r) {
    EXPECT_EQ(s.by_rank(r), xs[r]) << r;
    EXPECT_EQ(s.by_rev_rank(r), xs[14 - r]) << r;
  }
  EXPECT_EQ(s.by_rank(15), std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.quantile(0.5), 4);  // 0-based rank floor(7.5) = 7
  EXPECT_EQ(s.quantile(0), 1);
  EXPECT_EQ(s.quantile(1), 5);
  EXPECT_DOUBLE_EQ(s.normalized_rank(3), 6.0 / 15);
  const double splits[] = {2, 4};
  const auto pmf = s.pmf(splits);
  ASSERT_EQ(pmf.size(), 3u);
  EXPECT_DOUBLE_EQ(pmf[0], 3.0 / 15);
  EXPECT_DOUBLE_EQ(pmf[1], 7.0 / 15);
  EXPECT_DOUBLE_EQ(pmf[2], 5.0 / 15);
  kll_sketch t(200);
  for (int x = 0; x < 20; ++x) t.add(x);
  EXPECT_NEAR(t.trimmed_mean(0.1, 0.9), 9.5, 1e-12);
  EXPECT_EQ(t.rank(10), 10);
  EXPECT_EQ(t.rev_rank(10), 9);
}

TEST(Kll, MemoryStaysBoundedAndCountExact) {
  kll_sketch s(200, 3);
  const auto xs = quantile_test::stream("uniform", 1000000, 3);
  s.add_many(xs);
  EXPECT_EQ(s.count(), 1000000u);
  EXPECT_EQ(s.min(), *std::min_element(xs.begin(), xs.end()));
  EXPECT_EQ(s.max(), *std::max_element(xs.begin(), xs.end()));
  EXPECT_LE(s.retained(), 3u * 200u + 8u * s.levels());  // about 3k, and 8 a level
  std::uint64_t weight = 0;
  for (std::size_t h = 0; h < s.levels(); ++h) weight += s.level(h).size() << h;
  EXPECT_EQ(weight, s.count());
}

// allocated_bytes() is what the sketch holds from the allocator hook, byte
// for byte: a counting hook sees the same total, with and without the query
// view, so a host (the Redis module's MEMORY USAGE) reports it exactly.
std::size_t outstanding = 0;
void* counting_allocate(std::size_t bytes, std::size_t /*alignment*/) {
  outstanding += bytes;
  return ::operator new(bytes);
}
void counting_free(void* p, std::size_t bytes, std::size_t /*alignment*/) noexcept {
  outstanding -= bytes;
  ::operator delete(p);
}

TEST(Kll, AllocatedBytesAreWhatTheHookHandedOut) {
  static constexpr ringbloom::allocator_hook hook{counting_allocate, counting_free, nullptr};
  outstanding = 0;
  ringbloom::set_allocator_hook(&hook);
  {
    kll_sketch s(200, 5);
    EXPECT_EQ(s.allocated_bytes(), outstanding);
    s.add_many(quantile_test::stream("normal", 100000, 5));
    EXPECT_EQ(s.allocated_bytes(), outstanding);
    EXPECT_GE(s.allocated_bytes(), s.memory_bytes());
    const std::size_t without_view = s.allocated_bytes();
    (void)s.quantile(0.5);  // builds the query view
    EXPECT_EQ(s.allocated_bytes(), outstanding);
    EXPECT_GE(s.allocated_bytes(), without_view + 16 * s.retained());
    s.add(1.0);  // drops it
    EXPECT_EQ(s.allocated_bytes(), outstanding);
    kll_sketch copy = s;
    EXPECT_EQ(s.allocated_bytes() + copy.allocated_bytes(), outstanding);
  }
  EXPECT_EQ(outstanding, 0u);
  ringbloom::set_allocator_hook(nullptr);
}

// The guarantee over 1,000 seeded runs on seven streams, the t-digest-hard
// one included: tests/quantile/quantile_accuracy_test.cpp.

TEST(Kll, MergeOfPartsIsWithinTheBound) {
  const auto xs = quantile_test::stream("lognormal", 200000, 11);
  std::vector<kll_sketch> parts;
  for (std::uint64_t i = 0; i < 4; ++i) parts.emplace_back(200, i);
  for (std::size_t i = 0; i < xs.size(); ++i) parts[i % 4].add(xs[i]);
  kll_sketch merged(200, 99);
  for (const auto& p : parts) merged.merge(p);
  EXPECT_EQ(merged.count(), xs.size());
  auto sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  for (const double q : {0.01, 0.1, 0.5, 0.9, 0.99}) {
    EXPECT_LE(quantile_test::rank_error_of(sorted, merged.quantile(q), q), merged.rank_error())
        << q;
  }
  kll_sketch other(100);
  try {
    merged.merge(other);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "incompatible KLL sketches: k = 200 and k = 100; merge sketches created with "
                 "the same k");
  }
}

TEST(Kll, MergeWithItselfDoublesEveryWeight) {
  kll_sketch s(50, 2);
  for (int i = 0; i < 3000; ++i) s.add(i);
  s.merge(s);
  EXPECT_EQ(s.count(), 6000u);
  std::uint64_t weight = 0;
  for (std::size_t h = 0; h < s.levels(); ++h) weight += s.level(h).size() << h;
  EXPECT_EQ(weight, 6000u);
  EXPECT_NEAR(s.quantile(0.5), 1500, s.rank_error() * 3000 * 2);
}

TEST(Kll, SameSeedSameSketch) {
  const auto xs = quantile_test::stream("normal", 50000, 5);
  kll_sketch a(100, 17);
  kll_sketch b(100, 17);
  kll_sketch c(100, 18);
  kll_sketch d(100, 17);  // batches of uneven sizes: the same sketch again
  a.add_many(xs);
  for (const double x : xs) b.add(x);
  c.add_many(xs);
  for (std::size_t at = 0, n = 1; at < xs.size(); at += n, n = n * 7 % 1000 + 1) {
    d.add_many(std::span<const double>(xs).subspan(at, std::min(n, xs.size() - at)));
  }
  ASSERT_EQ(a.levels(), b.levels());
  ASSERT_EQ(d.levels(), b.levels());
  for (std::size_t h = 0; h < a.levels(); ++h) {
    EXPECT_TRUE(std::ranges::equal(a.level(h), b.level(h)));
    EXPECT_TRUE(std::ranges::equal(d.level(h), b.level(h)));
  }
  EXPECT_EQ(a.rng_state(), b.rng_state());
  EXPECT_EQ(d.rng_state(), b.rng_state());
  EXPECT_EQ(d.min(), b.min());
  EXPECT_EQ(d.max(), b.max());
  EXPECT_EQ(d.count(), b.count());
  bool differs = a.levels() != c.levels();
  for (std::size_t h = 0; !differs && h < a.levels(); ++h) {
    differs = !std::ranges::equal(a.level(h), c.level(h));
  }
  EXPECT_TRUE(differs);
}

TEST(Kll, Refusals) {
  kll_sketch s;
  try {
    s.add(std::numeric_limits<double>::infinity());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "a value added to a quantile sketch must be a finite number, not inf; leave NaN "
                 "and infinities out of the stream");
  }
  const std::vector<double> batch{1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(s.add_many(batch), std::invalid_argument);
  EXPECT_TRUE(s.empty());
  try {
    kll_sketch bad(4);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "the KLL parameter k must be between 8 and 65535, not 4; 200 gives a 1.33% rank "
                 "error");
  }
  EXPECT_THROW((void)s.quantile(-0.1), std::invalid_argument);
  const double bad_splits[] = {2, 1};
  EXPECT_THROW((void)s.pmf(bad_splits), std::invalid_argument);
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  EXPECT_EQ(s.rank(0), -2);
}

}  // namespace
