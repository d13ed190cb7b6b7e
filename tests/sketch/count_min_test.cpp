// Count-Min: sizing, saturation, conservative update, weighted merge, and the
// error bound over 10^6 increments with fixed seeds.
#include "ringbloom/sketch/count_min.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ringbloom/error.hpp"

namespace ringbloom {
namespace {

TEST(CountMin, TextbookSizing) {
  // width = ceil(e / 0.001) = 2719, depth = ceil(ln 100) = 5
  const auto [w, d] = count_min_sketch::dimensions_for_error(0.001, 0.01);
  EXPECT_EQ(w, 2719u);
  EXPECT_EQ(d, 5u);
  const auto s = count_min_sketch::for_error(0.001, 0.01);
  EXPECT_NEAR(s.epsilon(), 0.001, 1e-6);
  EXPECT_LE(s.delta(), 0.01);
}

TEST(CountMin, RedisBloomInitByProbSizing) {
  // RedisBloom CMS_DimFromProb: ceil(2 / 0.001) = 2000, ceil(log10(0.01) / log10(0.5)) = 7
  EXPECT_EQ(count_min_sketch::redis_dimensions(0.001, 0.01), std::make_pair(2000u, 7u));
  EXPECT_EQ(count_min_sketch::redis_dimensions(0.01, 0.5), std::make_pair(200u, 1u));
}

TEST(CountMin, OutOfRangeParametersNameTheRange) {
  for (const double bad : {0.0, 1.0, -0.5, 2.0, std::nan("")}) {
    try {
      (void)count_min_sketch::for_error(bad, 0.01);
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("between 0 and 1"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)count_min_sketch::for_error(0.01, bad), std::invalid_argument);
  }
  EXPECT_THROW(count_min_sketch(0, 5), std::invalid_argument);
  EXPECT_THROW(count_min_sketch(10, 0), std::invalid_argument);
  EXPECT_THROW(count_min_sketch(10, 65), std::invalid_argument);
}

TEST(CountMin, CountersSaturateInsteadOfWrapping) {
  count_min_sketch s(16, 3);
  s.increment("x", 4'000'000'000u);
  EXPECT_EQ(s.increment("x", 4'000'000'000u), 4'294'967'295u);
  EXPECT_EQ(s.estimate("x"), 4'294'967'295u);
  EXPECT_EQ(s.total(), 8'000'000'000u);
}

TEST(CountMin, WeightedMergeSumsCounters) {
  count_min_sketch a(100, 4), b(100, 4);
  a.increment("x", 3);
  b.increment("x", 5);
  b.increment("y", 1);
  const std::array<const count_min_sketch*, 2> both{&a, &b};
  const std::array<std::int64_t, 2> weights{2, 3};
  const auto m = count_min_sketch::merged(both, weights);
  EXPECT_EQ(m.estimate("x"), 2 * 3 + 3 * 5u);
  EXPECT_GE(m.estimate("y"), 3u);
  EXPECT_EQ(m.total(), 2 * 3 + 3 * 6u);
  a.merge(b);
  EXPECT_EQ(a.estimate("x"), 8u);
  EXPECT_THROW(a.merge(count_min_sketch(100, 5)), std::invalid_argument);
  const std::array<std::int64_t, 2> negative{1, -1};
  const std::array<const count_min_sketch*, 2> ab{&b, &a};
  EXPECT_THROW((void)count_min_sketch::merged(ab, negative), std::invalid_argument);
}

// merged_exact refuses what merged saturates or floors, as RedisBloom's
// CMS.MERGE does, and is exact inside the bounds.
TEST(CountMin, ExactMergeRefusesOverflow) {
  count_min_sketch a(2, 2), b(2, 2);
  a.increment("foo", 4'000'000'000u);
  b.increment("foo", 4'000'000'000u);
  const std::array<const count_min_sketch*, 2> both{&a, &b};
  const auto refused = [&](std::int64_t wa, std::int64_t wb) {
    const std::array<std::int64_t, 2> w{wa, wb};
    try {
      (void)count_min_sketch::merged_exact(both, w);
    } catch (const std::overflow_error& e) {
      EXPECT_NE(std::string(e.what()).find("the weighted merge overflows"), std::string::npos);
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused(1, -2));  // below zero
  EXPECT_TRUE(refused(2, 0));   // above 2^32 - 1
  EXPECT_TRUE(refused(-1, -1));
  EXPECT_FALSE(refused(1, -1));
  // The weights-empty form is the all-ones sum: 8e9 passes 2^32 - 1.
  EXPECT_THROW((void)count_min_sketch::merged_exact(both), std::overflow_error);
  // merged() saturates the same sum instead.
  EXPECT_EQ(count_min_sketch::merged(both).estimate("foo"), 4'294'967'295u);

  count_min_sketch c(2, 2), d(2, 2);
  c.increment("foo", 4);
  d.increment("foo", 4);
  const std::array<const count_min_sketch*, 2> small{&c, &d};
  const std::array<std::int64_t, 2> past_64_bits{std::numeric_limits<std::int64_t>::max(),
                                                 -4'000'000'000};
  EXPECT_THROW((void)count_min_sketch::merged_exact(small, past_64_bits), std::overflow_error);
  const std::array<std::int64_t, 2> cancelling{-922'337'203'685'477'500, 922'337'203'685'477'502};
  const auto m = count_min_sketch::merged_exact(small, cancelling);
  EXPECT_EQ(m.estimate("foo"), 8u);
  EXPECT_EQ(m.total(), 8u);
}

// A Zipf(1.0) stream of 10^6 increments over 10^5 keys, fixed seed.
std::vector<std::uint32_t> zipf_stream(std::size_t n, std::uint32_t keys, std::uint64_t seed) {
  std::vector<double> cdf(keys);
  double sum = 0;
  for (std::uint32_t i = 0; i < keys; ++i) cdf[i] = (sum += 1.0 / (i + 1));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::uint32_t> out(n);
  for (auto& x : out) {
    x = static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
  }
  return out;
}

// The rule: no underestimate ever over 10^6 items; and the
// Cormode-Muthukrishnan bound f + eps N holds for at least 1 - delta of the
// keys (per key it fails with probability <= delta = 1%; we allow 1%).
TEST(CountMinAccuracy, NeverUnderAndWithinTheBound) {
  const auto stream = zipf_stream(1'000'000, 100'000, 42);
  for (const bool conservative : {false, true}) {
    auto s = count_min_sketch::for_error(0.001, 0.01, conservative);
    std::unordered_map<std::uint32_t, std::uint32_t> exact;
    for (const auto k : stream) {
      s.increment("key:" + std::to_string(k));
      ++exact[k];
    }
    std::size_t under = 0, beyond = 0;
    double over_sum = 0;
    for (const auto& [k, f] : exact) {
      const std::uint32_t e = s.estimate("key:" + std::to_string(k));
      under += e < f ? 1 : 0;
      beyond += e > f + s.error_bound() ? 1 : 0;
      over_sum += e - f;
    }
    EXPECT_EQ(under, 0u) << "conservative " << conservative;
    EXPECT_LE(static_cast<double>(beyond), 0.01 * static_cast<double>(exact.size()))
        << "conservative " << conservative;
    RecordProperty(conservative ? "mean_over_conservative" : "mean_over_plain",
                   std::to_string(over_sum / static_cast<double>(exact.size())));
  }
}

TEST(CountMinAccuracy, ConservativeUpdateOverestimatesLess) {
  const auto stream = zipf_stream(300'000, 50'000, 7);
  auto plain = count_min_sketch::for_error(0.001, 0.01, false);
  auto cons = count_min_sketch::for_error(0.001, 0.01, true);
  std::unordered_map<std::uint32_t, std::uint32_t> exact;
  for (const auto k : stream) {
    const std::string key = "k" + std::to_string(k);
    plain.increment(key);
    cons.increment(key);
    ++exact[k];
  }
  double over_plain = 0, over_cons = 0;
  for (const auto& [k, f] : exact) {
    const std::string key = "k" + std::to_string(k);
    over_plain += plain.estimate(key) - f;
    over_cons += cons.estimate(key) - f;
    EXPECT_GE(cons.estimate(key), f);
    EXPECT_LE(cons.estimate(key), plain.estimate(key));
  }
  // Measured: about half (0.51 with this seed); the rule leaves room for other seeds.
  EXPECT_LT(over_cons, 0.7 * over_plain);
}

TEST(CountMinLines, ItemOrItemTabCount) {
  EXPECT_EQ(parse_increment_line("/index"),
            (std::pair<std::string_view, std::uint32_t>{"/index", 1}));
  EXPECT_EQ(parse_increment_line("a\tb\t40"),
            (std::pair<std::string_view, std::uint32_t>{"a\tb", 40}));
  for (const std::string_view bad : {"x\t", "x\t0", "x\t-1", "x\t4294967296", "x\t1.5"}) {
    EXPECT_THROW((void)parse_increment_line(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace ringbloom
