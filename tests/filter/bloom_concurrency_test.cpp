// Concurrent adds: many threads fill one filter with add_concurrent while
// others query it with may_contain_concurrent. Built and run under
// ThreadSanitizer as well (`make test`, the tsan preset), which would report
// any data race; here we check the results: nothing lost, no false negatives
// while writers run, and the same bits as a single-threaded fill (setting
// bits and incrementing saturating counters commute).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/counting_bloom.hpp"

namespace ringbloom {
namespace {

constexpr int writers = 4;
constexpr int readers = 2;
constexpr int per_writer = 5000;
constexpr int preloaded = 1000;

std::string item(int writer, int i) {
  return "w" + std::to_string(writer) + ":" + std::to_string(i);
}
std::string early(int i) { return "early:" + std::to_string(i); }

template <class Filter>
void fill_concurrently(Filter& f) {
  for (int i = 0; i < preloaded; ++i) f.add(early(i));
  std::atomic<bool> done{false};
  std::atomic<int> false_negatives{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < readers; ++r) {
    threads.emplace_back([&] {
      while (!done.load(std::memory_order_acquire)) {
        for (int i = 0; i < preloaded; ++i) {
          if (!f.may_contain_concurrent(early(i))) false_negatives.fetch_add(1);
        }
      }
    });
  }
  std::vector<std::thread> adders;
  for (int w = 0; w < writers; ++w) {
    adders.emplace_back([&f, w] {
      for (int i = 0; i < per_writer; ++i) f.add_concurrent(item(w, i));
    });
  }
  for (auto& t : adders) t.join();
  done.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  EXPECT_EQ(false_negatives.load(), 0);
}

template <class Filter>
void check_against_sequential(const Filter& concurrent, Filter sequential) {
  for (int i = 0; i < preloaded; ++i) sequential.add(early(i));
  for (int w = 0; w < writers; ++w) {
    for (int i = 0; i < per_writer; ++i) sequential.add(item(w, i));
  }
  EXPECT_EQ(concurrent.items_added(), static_cast<std::uint64_t>(preloaded + writers * per_writer));
  EXPECT_TRUE(concurrent == sequential) << "concurrent adds lost or changed bits";
  for (int w = 0; w < writers; ++w) {
    for (int i = 0; i < per_writer; ++i) ASSERT_TRUE(concurrent.may_contain(item(w, i)));
  }
}

TEST(ConcurrentAdd, Classic) {
  auto f = bloom_filter::for_capacity(30'000, 0.01);
  fill_concurrently(f);
  check_against_sequential(f, bloom_filter::for_capacity(30'000, 0.01));
}

TEST(ConcurrentAdd, ClassicSmallFilterWithHeavyContention) {
  // 1024 bits: every word is hit by every thread all the time.
  bloom_filter f(1024, 3);
  fill_concurrently(f);
  check_against_sequential(f, bloom_filter(1024, 3));
}

TEST(ConcurrentAdd, Blocked) {
  auto f = blocked_bloom_filter::for_capacity(30'000, 0.01);
  fill_concurrently(f);
  check_against_sequential(f, blocked_bloom_filter::for_capacity(30'000, 0.01));
}

TEST(ConcurrentAdd, CountingIncludingSaturation) {
  // 4096 counters for 21,000 items of 3 hashes: many counters saturate, and
  // saturation must come out the same as in a single thread.
  counting_bloom_filter f(4096, 3);
  fill_concurrently(f);
  EXPECT_GT(f.saturated_counters(), 0U);
  check_against_sequential(f, counting_bloom_filter(4096, 3));
}

}  // namespace
}  // namespace ringbloom
