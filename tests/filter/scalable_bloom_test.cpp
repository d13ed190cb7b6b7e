// The scalable Bloom filter: layers, budgets, duplicates.
#include "ringbloom/filter/scalable_bloom.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ringbloom {
namespace {

TEST(ScalableFilter, LayersGrowAndTighten) {
  scalable_bloom_filter f(100, 0.01);
  for (int i = 0; i < 1500; ++i) f.add("k" + std::to_string(i));
  // 100 + 200 + 400 + 800 = 1500: exactly four full layers.
  ASSERT_EQ(f.layers().size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& l = f.layers()[i];
    EXPECT_EQ(l.capacity, 100U << i);
    const filter_size expected = bloom_math::classic_size_for(
        l.capacity, bloom_math::scalable_layer_fpr(0.01, 0.5, static_cast<std::uint32_t>(i)));
    EXPECT_EQ(l.filter.bits(), expected.bits);
    EXPECT_EQ(l.filter.hashes(), expected.hashes);
  }
  EXPECT_GT(f.layers()[3].filter.hashes(), f.layers()[0].filter.hashes());
  for (int i = 0; i < 1500; ++i) ASSERT_TRUE(f.may_contain("k" + std::to_string(i)));
  // Layer items sum to the distinct additions (false positives are skipped:
  // 11.5 of the 1,500 on average over 200 item sets, at most 20; this set
  // skips 15, so the bound is 30).
  EXPECT_LE(f.items_added(), 1500U);
  EXPECT_GE(f.items_added(), 1470U);
  // A new layer starts exactly when the newest is full.
  int i = 1500;
  while (f.layers().size() == 4) f.add("k" + std::to_string(i++));
  EXPECT_EQ(f.layers()[3].filter.items_added(), 800U);
  EXPECT_EQ(f.layers()[4].filter.items_added(), 1U);
}

TEST(ScalableFilter, DuplicatesDoNotUseCapacity) {
  scalable_bloom_filter f(10, 0.01);
  for (int round = 0; round < 100; ++round) f.add("same");
  EXPECT_EQ(f.items_added(), 1U);
  EXPECT_EQ(f.layers().size(), 1U);
}

TEST(ScalableFilter, CompoundRateStaysUnderTheTarget) {
  scalable_bloom_filter f(50, 0.02, hash_kind::sha256);
  for (int i = 0; i < 20'000; ++i) f.add("k" + std::to_string(i));
  EXPECT_GE(f.layers().size(), 9U);
  int hits = 0;
  for (int i = 0; i < 50'000; ++i) hits += f.may_contain("stranger" + std::to_string(i));
  // 1000 expected at 2%, sd 31: allow 3 sd above the target.
  EXPECT_LE(hits, 1000 + 3 * 31);
  EXPECT_LT(f.stats().expected_fpr, 0.02 * 1.1);
}

TEST(ScalableFilter, FromSizeUsesTheGivenFirstLayer) {
  auto f = scalable_bloom_filter::from_size(8000, 7, hash_kind::sha256);
  EXPECT_EQ(f.layers()[0].filter.bits(), 8000U);
  EXPECT_EQ(f.layers()[0].filter.hashes(), 7U);
  // n = floor(8000 ln 2 / 7) = 792; p = classic_fpr(792, 8000, 7) / 0.5.
  EXPECT_EQ(f.initial_capacity(), 792U);
  EXPECT_DOUBLE_EQ(f.target_fpr(), 2 * bloom_math::classic_fpr(792, 8000, 7));
  // Positions of layer 0 are the classic filter's: the German exercise again.
  for (int i = 0; i < 792; ++i) f.add("user" + std::to_string(i) + "@example.com");
  EXPECT_EQ(f.layers().size(), 1U);
}

TEST(ScalableFilter, ExplainCoversEveryLayer) {
  scalable_bloom_filter f(10, 0.1);
  for (int i = 0; i < 40; ++i) f.add("k" + std::to_string(i));
  const auto probes = f.explain("k0");
  std::size_t expected = 0;
  for (const auto& l : f.layers()) expected += l.filter.hashes();
  EXPECT_EQ(probes.size(), expected);
  EXPECT_EQ(probes.back().layer, f.layers().size() - 1);
}

TEST(ScalableFilter, RefusesBadParameters) {
  EXPECT_THROW(scalable_bloom_filter(0, 0.01), std::invalid_argument);
  EXPECT_THROW(scalable_bloom_filter(10, 0), std::invalid_argument);
  EXPECT_THROW(scalable_bloom_filter(10, 0.01, hash_kind::xxh3, 0, 0), std::invalid_argument);
  EXPECT_THROW(scalable_bloom_filter(10, 0.01, hash_kind::xxh3, 0, 2, 1.0), std::invalid_argument);
  EXPECT_THROW(scalable_bloom_filter(10, 0.01, hash_kind::md5, 3), std::invalid_argument);
}

TEST(ScalableFilter, StopsAtTheLayerLimit) {
  scalable_bloom_filter f(1, 0.5, hash_kind::xxh3, 0, 1, 0.9);  // growth 1: one item per layer
  int added = 0;
  try {
    for (int i = 0; i < 100'000; ++i, ++added) f.add("k" + std::to_string(i));
    FAIL() << "no layer limit";
  } catch (const std::length_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("maximum of 64 layers"));
  }
  EXPECT_EQ(f.layers().size(), scalable_bloom_filter::max_layers);
}

TEST(ScalableFilter, MergeNeedsTheSameLayers) {
  scalable_bloom_filter a(100, 0.01);
  scalable_bloom_filter b(100, 0.01);
  for (int i = 0; i < 50; ++i) a.add("a" + std::to_string(i));
  for (int i = 0; i < 50; ++i) b.add("b" + std::to_string(i));
  scalable_bloom_filter u = a;
  u.merge(b);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(u.may_contain("a" + std::to_string(i)));
    EXPECT_TRUE(u.may_contain("b" + std::to_string(i)));
  }
  for (int i = 0; i < 200; ++i) b.add("more" + std::to_string(i));  // b grows a layer
  try {
    a.merge(b);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("the first has 1 layers and the second 2"));
  }
  EXPECT_THROW(a.merge(scalable_bloom_filter(100, 0.02)), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
