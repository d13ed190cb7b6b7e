// The word-allocator hook of the filters' word arrays
// (ringbloom/filter/detail/bloom_storage.hpp): off by default, and when
// installed every array of a filter is allocated and freed through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "ringbloom/allocator_hook.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"

namespace {

std::size_t live_bytes = 0;
std::size_t allocations = 0;

void* counting_allocate(std::size_t bytes, std::size_t alignment) {
  live_bytes += bytes;
  ++allocations;
  return ::operator new (bytes, std::align_val_t{alignment});
}

void counting_deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  live_bytes -= bytes;
  ::operator delete (p, std::align_val_t{alignment});
}

constexpr ringbloom::detail::word_allocator counting{counting_allocate, counting_deallocate};

TEST(WordAllocator, OffByDefault) {
  EXPECT_EQ(ringbloom::detail::installed_word_allocator(), nullptr);
}

TEST(WordAllocator, EveryArrayGoesThroughTheHook) {
  ringbloom::detail::set_word_allocator(&counting);
  {
    auto f = ringbloom::blocked_bloom_filter::for_capacity(10'000, 0.01);
    EXPECT_EQ(live_bytes, f.bits() / 8);
    auto copy = f;  // copies allocate too
    EXPECT_EQ(live_bytes, 2 * f.bits() / 8);
    f.add("x");
    EXPECT_TRUE(f.may_contain("x"));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.words().data()) % 64, 0u);
    ringbloom::bloom_filter classic(4096, 3);
    EXPECT_EQ(live_bytes, 2 * f.bits() / 8 + 4096 / 8);
  }
  EXPECT_EQ(live_bytes, 0u);
  EXPECT_GE(allocations, 3u);
  ringbloom::detail::set_word_allocator(nullptr);
  const std::size_t before = allocations;
  auto g = ringbloom::blocked_bloom_filter::for_capacity(1000, 0.01);
  EXPECT_EQ(allocations, before);  // the default again
}

TEST(WordAllocator, CuckooBucketsGoThroughTheSameHook) {
  ringbloom::detail::set_word_allocator(&counting);
  live_bytes = 0;
  {
    ringbloom::cuckoo_filter f(10'000);
    EXPECT_EQ(f.memory_bytes(), f.sub_filters()[0].bytes.size());
    // the sub-filter's bytes and the one-element array of sub-filters
    EXPECT_EQ(live_bytes, f.memory_bytes() + sizeof(ringbloom::cuckoo_filter::sub_filter));
    for (int i = 0; i < 30'000; ++i) f.add("item" + std::to_string(i));  // grows
    ASSERT_GT(f.sub_filters().size(), 1u);
    EXPECT_GE(live_bytes, f.memory_bytes());
    const auto copy = f;
    EXPECT_EQ(copy, f);
  }
  EXPECT_EQ(live_bytes, 0u);
  ringbloom::detail::set_word_allocator(nullptr);
}

// A hook with allocate_zeroed: the word arrays come from it, already zero,
// and the library writes nothing into them before use.
std::size_t zeroed_calls = 0;

void* zeroed_allocate(std::size_t bytes, std::size_t alignment) {
  ++zeroed_calls;
  void* p = ::operator new (bytes, std::align_val_t{alignment});
  std::memset(p, 0, bytes);
  return p;
}

// Without allocate_zeroed, allocate's bytes may hold anything: the library
// zeroes them itself.
void* dirty_allocate(std::size_t bytes, std::size_t alignment) {
  void* p = ::operator new (bytes, std::align_val_t{alignment});
  std::memset(p, 0xA5, bytes);
  return p;
}

void plain_deallocate(void* p, std::size_t /*bytes*/, std::size_t alignment) noexcept {
  ::operator delete (p, std::align_val_t{alignment});
}

constexpr ringbloom::allocator_hook with_zeroed{dirty_allocate, plain_deallocate, zeroed_allocate};
constexpr ringbloom::allocator_hook without_zeroed{dirty_allocate, plain_deallocate, nullptr};

TEST(WordAllocator, WordArraysComeFromAllocateZeroedWhenTheHookHasIt) {
  ringbloom::set_allocator_hook(&with_zeroed);
  {
    zeroed_calls = 0;
    auto f = ringbloom::blocked_bloom_filter::for_capacity(10'000, 0.01);
    EXPECT_EQ(zeroed_calls, 1u);
    for (const std::uint64_t w : f.words()) ASSERT_EQ(w, 0u);
    EXPECT_FALSE(f.may_contain("x"));
    f.add("x");
    auto copy = f;  // a copy holds the same words, not zeros
    EXPECT_TRUE(copy.may_contain("x"));
    EXPECT_TRUE(std::equal(f.words().begin(), f.words().end(), copy.words().begin()));
  }
  ringbloom::set_allocator_hook(&without_zeroed);
  {
    auto f = ringbloom::blocked_bloom_filter::for_capacity(10'000, 0.01);
    for (const std::uint64_t w : f.words()) ASSERT_EQ(w, 0u);  // zeroed by the library
    ringbloom::bloom_filter classic(4096, 3);
    EXPECT_FALSE(classic.may_contain("y"));
  }
  ringbloom::set_allocator_hook(nullptr);
}

}  // namespace
