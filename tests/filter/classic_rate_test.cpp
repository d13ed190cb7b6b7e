// The classic positions (bloom.hpp, mixed double hashing) meet their rate in
// small filters at tight rates, for every kind that uses them: classic,
// counting and scalable, 100 and 1,000 items, p = 1e-6 and 1e-4.
//
// Each case adds n items "i0".."i{n-1}" (xxh3, fixed seed) and counts the
// false positives among 2,000,000 strangers "s0".."s1999999". The bound is
// 1.5 times the formula's count plus 4 standard deviations of a Poisson
// count: a particular set of 100 items fills a few thousand bits unevenly,
// so one filter's rate varies by about 16% around the formula
// (tests/filter/layered_bloom_test.cpp measured the same for the Redis BF's
// classic layers). The formula is bloom_math::classic_fpr(n, m, k) of the
// filter's own m and k (for the scalable filter, its one layer's). The
// classic case also meets 1.15 times the rate its own bits give (fill^k),
// which takes the item set's luck out: measured 3 / 2 / 272 / 228 false
// positives where fill^k says 2.2 / 2.1 / 265 / 214.
//
// The same items in a filter of the plain double hashing of files before
// version 3 measure far above that bound (about 56x at 100 items and 1e-6),
// which shows the test can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/scalable_bloom.hpp"

namespace ringbloom {
namespace {

constexpr std::uint64_t seed = 0x5eed;
constexpr int strangers = 2'000'000;

std::string item(std::uint64_t i) { return "i" + std::to_string(i); }
std::string stranger(int i) { return "s" + std::to_string(i); }

template <class Filter>
int false_positives(const Filter& f) {
  int hits = 0;
  for (int i = 0; i < strangers; ++i) hits += f.may_contain(stranger(i)) ? 1 : 0;
  return hits;
}

double bound(double expected) { return 1.5 * expected + 4 * std::sqrt(expected); }

// The tighter bound given the bits: with independent positions a stranger
// passes with probability fill^k (stats().expected_fpr), whatever the item
// set drew; 1.15 times that count plus 4 standard deviations.
double fill_bound(double expected) { return 1.15 * expected + 4 * std::sqrt(expected); }

// The measured count and the formula's, in the test's XML report
// (--gtest_output=xml): "<hits> of <expected>".
void record(const std::string& kind, std::uint64_t items, double fpr, int hits, double expected) {
  ::testing::Test::RecordProperty(kind + "_" + std::to_string(items) + "_at_" +
                                      std::to_string(static_cast<int>(-std::log10(fpr))),
                                  std::to_string(hits) + " of " + std::to_string(expected));
}

struct rate_case {
  std::uint64_t items;
  double fpr;
};

const rate_case cases[] = {{100, 1e-6}, {1000, 1e-6}, {100, 1e-4}, {1000, 1e-4}};

bloom_filter filled_classic(const rate_case& c, position_rule rule) {
  const filter_size size = bloom_math::classic_size_for(c.items, c.fpr);
  bloom_filter f = bloom_filter::from_words(
      size.bits, size.hashes, hash_kind::xxh3, seed, 0,
      detail::word_store(static_cast<std::size_t>((size.bits + 63) / 64)), rule);
  for (std::uint64_t i = 0; i < c.items; ++i) f.add(item(i));
  return f;
}

TEST(ClassicRate, ClassicMeetsItsFormula) {
  for (const rate_case& c : cases) {
    const bloom_filter f = filled_classic(c, position_rule::mixed);
    ASSERT_EQ(f.rule(), position_rule::mixed);
    const double expected =
        bloom_filter::fpr_for(c.items, f.bits(), f.hashes()) * static_cast<double>(strangers);
    const int hits = false_positives(f);
    EXPECT_LE(hits, bound(expected)) << c.items << " items at " << c.fpr << ": m = " << f.bits()
                                     << ", k = " << f.hashes() << ", formula " << expected;
    const double given_bits = f.stats().expected_fpr * static_cast<double>(strangers);
    EXPECT_LE(hits, fill_bound(given_bits)) << c.items << " items at " << c.fpr;
    record("classic", c.items, c.fpr, hits, expected);
  }
}

TEST(ClassicRate, NewFiltersUseTheMixedRule) {
  EXPECT_EQ(bloom_filter::for_capacity(100, 1e-6, hash_kind::xxh3, seed).rule(),
            position_rule::mixed);
  EXPECT_EQ(counting_bloom_filter::for_capacity(100, 1e-6, hash_kind::xxh3, seed).rule(),
            position_rule::mixed);
  EXPECT_EQ(scalable_bloom_filter(100, 1e-6, hash_kind::xxh3, seed).rule(), position_rule::mixed);
}

// Counts the strangers `f` lets through and checks them against the
// formula's count for a layer of m bits, k hashes and n items.
template <class Filter>
void check_against_formula(const std::string& kind, const rate_case& c, const Filter& f,
                           std::uint64_t n, std::uint64_t m, std::uint32_t k) {
  const double expected =
      bloom_math::classic_fpr(static_cast<double>(n), static_cast<double>(m), k) *
      static_cast<double>(strangers);
  const int hits = false_positives(f);
  EXPECT_LE(hits, bound(expected))
      << kind << ", " << c.items << " items at " << c.fpr << ": formula " << expected;
  record(kind, c.items, c.fpr, hits, expected);
}

TEST(ClassicRate, CountingMeetsItsFormula) {
  for (const rate_case& c : cases) {
    counting_bloom_filter f =
        counting_bloom_filter::for_capacity(c.items, c.fpr, hash_kind::xxh3, seed);
    for (std::uint64_t i = 0; i < c.items; ++i) f.add(item(i));
    check_against_formula("counting", c, f, c.items, f.counters(), f.hashes());
  }
}

TEST(ClassicRate, ScalableMeetsItsFormula) {
  for (const rate_case& c : cases) {
    scalable_bloom_filter f(c.items, c.fpr, hash_kind::xxh3, seed);
    for (std::uint64_t i = 0; i < c.items; ++i) f.add(item(i));
    ASSERT_EQ(f.layers().size(), 1U);  // n items fit the first layer
    const bloom_filter& layer = f.layers()[0].filter;
    check_against_formula("scalable", c, f, layer.items_added(), layer.bits(), layer.hashes());
  }
}

// The control: the rule of files before version 3 measures far above the
// bounds the mixed rule meets (92 false positives where the formula says 2
// at 100 items and 1e-6; 479 where the filter's own fill^k says 234 at 1e-4).
TEST(ClassicRate, OldRuleMeasuresAboveTheBound) {
  const rate_case tight{100, 1e-6};
  const bloom_filter f = filled_classic(tight, position_rule::double_hashing);
  const double expected =
      bloom_filter::fpr_for(tight.items, f.bits(), f.hashes()) * static_cast<double>(strangers);
  const int hits = false_positives(f);
  EXPECT_GT(hits, 4 * bound(expected)) << "formula " << expected;
  record("old_rule_classic", tight.items, tight.fpr, hits, expected);
  // At 1e-4 the old rule stays under the loose bound but not under the one
  // given its bits (the mixed rule meets both).
  const rate_case loose{100, 1e-4};
  const bloom_filter g = filled_classic(loose, position_rule::double_hashing);
  const double given_bits = g.stats().expected_fpr * static_cast<double>(strangers);
  const int old_hits = false_positives(g);
  EXPECT_GT(old_hits, fill_bound(given_bits)) << "fill^k gives " << given_bits;
  record("old_rule_classic", loose.items, loose.fpr, old_hits, given_bits);
}

// A scalable filter read from an old file keeps the old rule in the layers
// it grows, so every layer is probed as its bits were set.
TEST(ClassicRate, ScalableGrowsLayersInItsOwnRule) {
  const filter_size size = bloom_math::classic_size_for(10, 0.01);
  std::vector<scalable_bloom_filter::layer> layers;
  layers.push_back(
      {bloom_filter::from_words(size.bits, size.hashes, hash_kind::xxh3, seed, 0,
                                detail::word_store(static_cast<std::size_t>((size.bits + 63) / 64)),
                                position_rule::double_hashing),
       10});
  scalable_bloom_filter f = scalable_bloom_filter::from_layers(0.02, 2, 0.5, std::move(layers));
  for (std::uint64_t i = 0; i < 100; ++i) f.add(item(i));
  ASSERT_GT(f.layers().size(), 1U);
  for (const auto& l : f.layers()) EXPECT_EQ(l.filter.rule(), position_rule::double_hashing);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_TRUE(f.may_contain(item(i))) << i;
}

TEST(ClassicRate, RulesAreNotMerged) {
  bloom_filter a = bloom_filter::for_capacity(100, 0.01, hash_kind::xxh3, seed);
  const bloom_filter b =
      bloom_filter::from_words(a.bits(), a.hashes(), hash_kind::xxh3, seed, 0,
                               detail::word_store(a.words().size()), position_rule::double_hashing);
  std::string why;
  EXPECT_FALSE(a.compatible_with(b, &why));
  EXPECT_NE(why.find("double hashing (files before version 3)"), std::string::npos) << why;
  EXPECT_THROW(a.merge(b), std::invalid_argument);
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace ringbloom
