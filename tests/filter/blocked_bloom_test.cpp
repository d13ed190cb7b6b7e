// The blocked (cache-line) Bloom filter.
//
// Expected positions come from tests/filter/bloom_golden.py (XXH3-128 by xxhsum,
// the multiply-shift rule re-implemented in Python).
#include "ringbloom/filter/blocked_bloom.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {
namespace {

using ::testing::ElementsAre;

TEST(BlockedFilter, PositionsAreThePythonReference) {
  blocked_bloom_filter f(512 * 1000, 7);
  EXPECT_THAT(f.positions("anna"),
              ElementsAre(480589, 480513, 480375, 480716, 480349, 480674, 480564));
  EXPECT_THAT(f.positions("user:42"),
              ElementsAre(169507, 169643, 169949, 169773, 169638, 169536, 169480));
  blocked_bloom_filter g(512 * 1000, 12);
  EXPECT_THAT(g.positions("anna"), ElementsAre(480589, 480513, 480375, 480716, 480349, 480674,
                                               480564, 480543, 480283, 480506, 480518, 480411));
  EXPECT_THAT(g.positions("user:42"), ElementsAre(169507, 169643, 169949, 169773, 169638, 169536,
                                                  169480, 169922, 169876, 169798, 169547, 169630));
}

TEST(BlockedFilter, AllBitsOfAnItemShareOneCacheLine) {
  blocked_bloom_filter f(1 << 20, 8);
  std::array<int, 8> per_word{};
  for (int i = 0; i < 1000; ++i) {
    const auto p = f.positions("k" + std::to_string(i));
    for (std::uint64_t q : p) EXPECT_EQ(q / 512, p[0] / 512);
    for (std::uint64_t q : p) ++per_word[q % 512 / 64];
  }
  // The bits fall anywhere in the block, not one per word: each word gets
  // about 8000 / 8 = 1000 of them (binomial sd 30; the band is 5 sd).
  for (int count : per_word) EXPECT_NEAR(count, 1000, 150);
  // The words are 64-byte aligned, so a block is a cache line.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.words().data()) % 64, 0U);
}

TEST(BlockedFilter, MaskIsTheUnionOfThePositions) {
  // The scalar mask is the reference the SIMD code must reproduce.
  const std::uint64_t h2 = 0x0123456789abcdefULL;
  for (std::uint32_t k = 1; k <= 16; ++k) {
    const auto mask = detail::block_mask(h2, k);
    std::array<std::uint64_t, 8> expected{};
    for (std::uint32_t j = 0; j < k; ++j) {
      const std::uint32_t half = static_cast<std::uint32_t>(j < 8 ? h2 : h2 >> 32);
      const std::uint32_t position =
          static_cast<std::uint32_t>(half * detail::block_multipliers[j]) >> 23;
      expected[position / 64] |= std::uint64_t{1} << (position % 64);
    }
    EXPECT_EQ(mask, expected) << k;
  }
}

TEST(BlockedFilter, SizeIsRoundedUpToWholeBlocks) {
  blocked_bloom_filter f(16, 2);
  EXPECT_EQ(f.bits(), 512U);
  EXPECT_EQ(f.blocks(), 1U);
  EXPECT_EQ(blocked_bloom_filter(1025, 2).bits(), 1536U);
  EXPECT_THROW(blocked_bloom_filter(0, 2), std::invalid_argument);
  EXPECT_THROW(blocked_bloom_filter(512, 17), std::invalid_argument);
  EXPECT_THROW(blocked_bloom_filter(512, 3, hash_kind::poly31, 1), std::invalid_argument);
}

TEST(BlockedFilter, SizingMeetsTheTargetByTheBlockedFormula) {
  const filter_size s = bloom_math::blocked_size_for(1'000'000, 0.01);
  EXPECT_EQ(s.bits % 512, 0U);
  EXPECT_LE(bloom_math::blocked_fpr(1e6, s.bits, s.hashes), 0.01);
  EXPECT_GT(bloom_math::blocked_fpr(1e6, s.bits - 512, s.hashes), 0.01);
  // Blocking costs memory against the classic optimum, and more than the
  // classic formula would predict for the same (m, k).
  EXPECT_GT(s.bits, bloom_math::classic_size_for(1'000'000, 0.01).bits);
  EXPECT_GT(bloom_math::blocked_fpr(1e6, s.bits, s.hashes),
            bloom_math::classic_fpr(1e6, static_cast<double>(s.bits), s.hashes));
  EXPECT_EQ(blocked_bloom_filter::bits_for(1'000'000, 0.01), s.bits);
}

TEST(BlockedFilter, FormulaWithOneItemPerBlockIsExact) {
  // One block, one item, k = 1: a stranger hits the item's single bit of
  // the block with probability 1/512, exactly.
  EXPECT_NEAR(bloom_math::blocked_fpr(1, 512, 1), 0.0, 1.0 / 512 + 1e-12);
  // With lambda = 1 item per block: sum_i Poisson(i; 1) (1 - (511/512)^i),
  // = 1 - e^(-1/512), by hand.
  EXPECT_NEAR(bloom_math::blocked_fpr(1000, 512 * 1000, 1), -std::expm1(-1.0 / 512), 1e-12);
  // k = 2, lambda = 1, by hand. A block with i items has had t = 2i bits
  // thrown at it. The stranger's two positions coincide with probability
  // 1/512 (then one bit must be set: 1 - q^t), else two distinct bits must
  // both be set: 1 - 2 q^t + r^t by inclusion-exclusion, with q = 511/512 and
  // r = 510/512. Averaged over Poisson(i; 1), using sum_i P(i) x^i = e^(x-1):
  //   1/512 (1 - e^(q^2-1)) + 511/512 (1 - 2 e^(q^2-1) + e^(r^2-1)).
  const double q = 511.0 / 512.0;
  const double r = 510.0 / 512.0;
  const double same = 1 - std::exp(q * q - 1);
  const double distinct = 1 - 2 * std::exp(q * q - 1) + std::exp(r * r - 1);
  EXPECT_NEAR(bloom_math::blocked_fpr(1000, 512 * 1000, 2), same / 512 + distinct * 511 / 512,
              1e-12);
}

TEST(BlockedFilter, NoFalseNegativesAcrossHashes) {
  for (auto hash : {hash_kind::xxh3, hash_kind::sha256, hash_kind::md5, hash_kind::poly31}) {
    auto f = blocked_bloom_filter::for_capacity(5000, 0.01, hash);
    for (int i = 0; i < 5000; ++i) f.add("item-" + std::to_string(i));
    for (int i = 0; i < 5000; ++i) {
      ASSERT_TRUE(f.may_contain("item-" + std::to_string(i))) << hash_name(hash) << " " << i;
      ASSERT_TRUE(f.may_contain_concurrent("item-" + std::to_string(i)));
    }
  }
}

TEST(BlockedFilter, ExplainShowsTheMissingBits) {
  blocked_bloom_filter f(512, 4);
  f.add("present");
  for (const bit_probe& p : f.explain("present")) EXPECT_EQ(p.value, 1U);
  int zeros = 0;
  for (const bit_probe& p : f.explain("absent")) zeros += p.value == 0 ? 1 : 0;
  EXPECT_EQ(zeros > 0, !f.may_contain("absent"));
}

TEST(BlockedFilter, StatsAreExactForTheBits) {
  blocked_bloom_filter f(512 * 100, 8);
  for (int i = 0; i < 700; ++i) f.add("x" + std::to_string(i));
  const filter_stats s = f.stats();
  EXPECT_EQ(s.kind, filter_kind::blocked);
  EXPECT_EQ(s.items_added, 700U);
  // Recompute the expected rate from the words independently of stats().
  double sum = 0;
  for (std::size_t b = 0; b < 100; ++b) {
    int ones = 0;
    for (std::size_t w = 0; w < 8; ++w) ones += std::popcount(f.words()[b * 8 + w]);
    sum += std::pow(ones / 512.0, 8);
  }
  EXPECT_NEAR(s.expected_fpr, sum / 100, 1e-15);
  // Swamidass-Baldi over the 51200 bits with k = 8, independently.
  std::uint64_t ones = 0;
  for (std::uint64_t w : f.words()) ones += static_cast<std::uint64_t>(std::popcount(w));
  EXPECT_NEAR(s.estimated_items, -51200.0 / 8 * std::log1p(-static_cast<double>(ones) / 51200),
              1e-9);
  EXPECT_NEAR(s.estimated_items, 700, 700 * 0.05);
  EXPECT_EQ(s.memory_bytes, 6400U);
}

TEST(BlockedFilter, UnionIntersectionAndIncompatibility) {
  blocked_bloom_filter a(1 << 16, 8);
  blocked_bloom_filter b(1 << 16, 8);
  for (int i = 0; i < 300; ++i) a.add("a" + std::to_string(i));
  for (int i = 0; i < 300; ++i) b.add("b" + std::to_string(i));
  a.add("both");
  b.add("both");
  blocked_bloom_filter u = a;
  u.merge(b);
  blocked_bloom_filter x = a;
  x.intersect(b);
  for (int i = 0; i < 300; ++i) {
    EXPECT_TRUE(u.may_contain("a" + std::to_string(i)));
    EXPECT_TRUE(u.may_contain("b" + std::to_string(i)));
  }
  EXPECT_TRUE(x.may_contain("both"));
  const blocked_bloom_filter before = a;
  EXPECT_THROW(a.merge(blocked_bloom_filter(1 << 17, 8)), std::invalid_argument);
  EXPECT_THROW(a.intersect(blocked_bloom_filter(1 << 16, 7)), std::invalid_argument);
  EXPECT_TRUE(a == before);
}

TEST(BlockedFilter, HashedCallsMatchPlainCalls) {
  blocked_bloom_filter a(4096, 6, hash_kind::sha256);
  blocked_bloom_filter b(4096, 6, hash_kind::sha256);
  a.add("item");
  b.add_hash(b.hash_item("item"));
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(b.may_contain_hash(a.hash_item("item")));
  // Other hashes go through XXH3-128 of hash64's 8 little-endian bytes.
  const std::uint64_t h = sha256_64("item");
  std::string le;
  for (int i = 0; i < 8; ++i) le.push_back(static_cast<char>((h >> (8 * i)) & 0xff));
  EXPECT_EQ(a.hash_item("item"), xxh3_128(le));
}

}  // namespace
}  // namespace ringbloom
