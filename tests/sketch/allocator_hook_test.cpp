// The library-wide allocator hook (ringbloom/allocator_hook.hpp) for the
// sketches: off by default, and when installed every array a Count-Min
// sketch, a Top-K or a HyperLogLog owns is allocated and freed through it.
#include "ringbloom/allocator_hook.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace {

std::size_t live_bytes = 0;

void* counting_allocate(std::size_t bytes, std::size_t alignment) {
  live_bytes += bytes;
  return ::operator new (bytes, std::align_val_t{alignment});
}

void counting_deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  live_bytes -= bytes;
  ::operator delete (p, std::align_val_t{alignment});
}

constexpr ringbloom::allocator_hook counting{counting_allocate, counting_deallocate};

// Installs the counting hook for one test and removes it after.
struct AllocatorHook : ::testing::Test {
  void SetUp() override {
    live_bytes = 0;
    ringbloom::set_allocator_hook(&counting);
  }
  void TearDown() override { ringbloom::set_allocator_hook(nullptr); }
};

TEST(AllocatorHookDefault, OffByDefault) {
  EXPECT_EQ(ringbloom::installed_allocator_hook(), nullptr);
}

TEST_F(AllocatorHook, CountMinCountersGoThroughTheHook) {
  {
    ringbloom::count_min_sketch c(1000, 5);
    EXPECT_EQ(live_bytes, 1000u * 5 * 4);
    c.increment("x", 3);
    const auto copy = c;  // copies allocate too
    EXPECT_EQ(live_bytes, 2u * 1000 * 5 * 4);
    const auto loaded = ringbloom::count_min_sketch::from_counters(
        1000, 5, false, 0, c.total(),
        std::vector<std::uint32_t>(c.counters().begin(), c.counters().end()));
    EXPECT_EQ(loaded, c);
    EXPECT_EQ(live_bytes, 3u * 1000 * 5 * 4);
  }
  EXPECT_EQ(live_bytes, 0u);
}

TEST_F(AllocatorHook, TopKArraysGoThroughTheHook) {
  {
    ringbloom::top_k t(50, 2000, 4);
    // buckets (8 bytes each), the heap slots and their fingerprints, the decay table
    const std::size_t expected = 2000u * 4 * sizeof(ringbloom::top_k::bucket) +
                                 50u * sizeof(ringbloom::top_k::entry) + 50u * 4 + 256u * 8;
    EXPECT_EQ(live_bytes, expected);
    EXPECT_EQ(t.memory_bytes(), expected);  // what MEMORY USAGE reports for a TOPK value
    for (int i = 0; i < 200; ++i) t.add("item" + std::to_string(i % 20));
    EXPECT_EQ(live_bytes, expected);  // adding allocates no array
    const auto again = ringbloom::top_k::from_state(
        t.k(), t.width(), t.depth(), t.decay(), t.seed(), t.rng_state(),
        {t.buckets().begin(), t.buckets().end()}, t.heap());
    EXPECT_EQ(again, t);
    EXPECT_EQ(live_bytes, 2 * expected);
  }
  EXPECT_EQ(live_bytes, 0u);
}

TEST_F(AllocatorHook, TopKLongLeaderNamesGoThroughTheHook) {
  {
    ringbloom::top_k t(10, 2000, 4);
    const std::size_t arrays = live_bytes;
    // 10 leaders of 40 bytes each: each name beyond the 15-byte inline
    // buffer owns at least 41 bytes, all of them from the hook.
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 10; ++i) t.add(std::string(36, 'x') + std::to_string(1000 + i));
    }
    ASSERT_EQ(t.list().size(), 10u);
    EXPECT_GE(live_bytes, arrays + 10 * 41);
    EXPECT_EQ(live_bytes, t.memory_bytes());  // memory_bytes counts every byte, the table too
    const auto again = ringbloom::top_k::from_state(
        t.k(), t.width(), t.depth(), t.decay(), t.seed(), t.rng_state(),
        {t.buckets().begin(), t.buckets().end()}, t.heap());
    EXPECT_EQ(again, t);
  }
  EXPECT_EQ(live_bytes, 0u);
}

TEST_F(AllocatorHook, HyperLogLogRegistersGoThroughTheHook) {
  {
    ringbloom::hyperloglog h(14);
    EXPECT_EQ(live_bytes, std::size_t{1} << 14);
  }
  EXPECT_EQ(live_bytes, 0u);
}

TEST(AllocatorHookDefault, NothingGoesThroughAnUninstalledHook) {
  live_bytes = 0;
  ringbloom::count_min_sketch c(100, 3);
  ringbloom::top_k t(10);
  EXPECT_EQ(live_bytes, 0u);
}

}  // namespace
