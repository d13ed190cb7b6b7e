// The counting Bloom filter: removal, saturation, refusals.
#include "ringbloom/filter/counting_bloom.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "ringbloom/filter/bloom.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

TEST(CountingFilter, SharesTheClassicPositions) {
  counting_bloom_filter c(16, 2, hash_kind::sha256);
  bloom_filter b(16, 2, hash_kind::sha256);
  for (const char* item : {"anna", "bora", "cem", "user5"}) {
    EXPECT_EQ(c.positions(item), b.positions(item)) << item;
  }
  c.add("anna");
  c.add("bora");
  // The German walkthrough again: counters 3, 4 and 15 are set; 15 twice.
  EXPECT_EQ(c.counter(3), 1U);
  EXPECT_EQ(c.counter(4), 1U);
  EXPECT_EQ(c.counter(15), 2U);
  EXPECT_FALSE(c.may_contain("cem"));
  EXPECT_TRUE(c.may_contain("user5"));
}

TEST(CountingFilter, RemoveUndoesAdd) {
  auto f = counting_bloom_filter::for_capacity(1000, 0.01);
  const counting_bloom_filter empty = f;
  for (int i = 0; i < 1000; ++i) f.add("k" + std::to_string(i));
  for (int i = 0; i < 1000; i += 2) f.remove("k" + std::to_string(i));
  for (int i = 1; i < 1000; i += 2) {
    EXPECT_TRUE(f.may_contain("k" + std::to_string(i))) << "false negative after removals";
  }
  EXPECT_EQ(f.items_added(), 500U);
  for (int i = 1; i < 1000; i += 2) f.remove("k" + std::to_string(i));
  EXPECT_TRUE(f == empty);  // every counter back to 0
}

TEST(CountingFilter, RemovingANeverAddedItemIsRefusedAndChangesNothing) {
  counting_bloom_filter f(1000, 4);
  f.add("anna");
  const counting_bloom_filter before = f;
  try {
    f.remove("bora");
    FAIL() << "removed an item that was never added";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot remove 'bora': it is not in the filter"));
    EXPECT_THAT(e.what(), HasSubstr("remove only items that were added"));
  }
  EXPECT_TRUE(f == before);
  f.remove("anna");
  EXPECT_THROW(f.remove("anna"), std::invalid_argument);  // already removed
}

TEST(CountingFilter, DuplicatePositionsAreCountedTwice) {
  // m = 2, k = 4: positions must repeat. add increments a repeated position
  // twice; remove must decrement it twice, and refuse when it cannot.
  counting_bloom_filter f(2, 4);
  f.add("x");
  std::uint32_t total = f.counter(0) + f.counter(1);
  EXPECT_EQ(total, 4U);
  f.remove("x");
  EXPECT_EQ(f.counter(0) + f.counter(1), 0U);
}

TEST(CountingFilter, CountersSaturateAndStayAt15) {
  counting_bloom_filter f(1, 1);  // every item hits counter 0
  for (int i = 0; i < 20; ++i) f.add("i" + std::to_string(i));
  EXPECT_EQ(f.counter(0), 15U);
  EXPECT_EQ(f.saturated_counters(), 1U);
  // Removing all 20 never takes the counter down: its true count is unknown,
  // and reaching 0 while items remain would be a false negative.
  for (int i = 0; i < 20; ++i) f.remove("i" + std::to_string(i));
  EXPECT_EQ(f.counter(0), 15U);
  EXPECT_TRUE(f.may_contain("i0"));
}

TEST(CountingFilter, UnionAddsAndIntersectionTakesTheMinimum) {
  counting_bloom_filter a(64, 3);
  counting_bloom_filter b(64, 3);
  a.add("x");
  a.add("y");
  b.add("x");
  counting_bloom_filter u = a;
  u.merge(b);
  counting_bloom_filter x = a;
  x.intersect(b);
  for (std::uint64_t p = 0; p < 64; ++p) {
    EXPECT_EQ(u.counter(p), std::min(15U, a.counter(p) + b.counter(p)));
    EXPECT_EQ(x.counter(p), std::min(a.counter(p), b.counter(p)));
  }
  u.remove("x");  // the union holds x twice
  EXPECT_TRUE(u.may_contain("x"));
  EXPECT_THROW(a.merge(counting_bloom_filter(65, 3)), std::invalid_argument);
}

TEST(CountingFilter, StatsCountNonZeroCounters) {
  counting_bloom_filter f(8000, 7, hash_kind::sha256);
  bloom_filter b(8000, 7, hash_kind::sha256);
  for (int i = 0; i < 1000; ++i) {
    f.add("user" + std::to_string(i) + "@example.com");
    b.add("user" + std::to_string(i) + "@example.com");
  }
  const filter_stats s = f.stats();
  EXPECT_EQ(s.kind, filter_kind::counting);
  EXPECT_EQ(s.bits_set, 4660U);  // as the classic filter (bloom_golden.py)
  EXPECT_DOUBLE_EQ(s.expected_fpr, b.stats().expected_fpr);
  EXPECT_DOUBLE_EQ(s.estimated_items, b.stats().estimated_items);
  EXPECT_EQ(s.memory_bytes, 4000U);  // 8000 counters * 4 bits
}

TEST(CountingFilter, TailCountersStayZero) {
  counting_bloom_filter f(17, 3);  // 2 words, 15 unused nibbles
  for (int i = 0; i < 200; ++i) f.add(std::to_string(i));
  EXPECT_EQ(f.words()[1] >> 4, 0U);
}

}  // namespace
}  // namespace ringbloom
