// JumpBackHash: consistency (growing n moves keys only to the new bucket),
// balance, range, golden outputs.
#include "ringbloom/placement/jump_back.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ringbloom/placement/jump_placement.hpp"
#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using namespace ringbloom::test;

TEST(JumpBack, GrowingByOneMovesKeysOnlyToTheNewBucket) {
  const auto hs = key_hashes(3000);
  std::vector<std::uint32_t> before(hs.size(), 0);
  for (std::uint32_t n = 1; n <= 300; ++n) {
    for (std::size_t k = 0; k < hs.size(); ++k) {
      const std::uint32_t b = jump_back_hash(hs[k], n);
      ASSERT_LT(b, n);
      ASSERT_TRUE(b == before[k] || b == n - 1) << "key " << k << " n " << n;
      before[k] = b;
    }
  }
}

TEST(JumpBack, MovesTheMinimumAndBalances) {
  const auto hs = key_hashes(100000);
  std::size_t moved = 0;
  std::vector<std::size_t> counts(11, 0);
  for (const auto h : hs) {
    const auto b = jump_back_hash(h, 11);
    ++counts[b];
    moved += jump_back_hash(h, 10) != b;
  }
  EXPECT_NEAR(static_cast<double>(moved) / 100000, 1.0 / 11, 0.05 / 11);
  // Each bucket holds 1/11 of the keys; 5 standard deviations of sampling.
  const double mean = 100000.0 / 11;
  for (const auto c : counts) EXPECT_NEAR(static_cast<double>(c), mean, 5 * std::sqrt(mean));
}

TEST(JumpBack, RangeAndSmallCounts) {
  EXPECT_EQ(jump_back_hash(12345, 0), 0u);
  EXPECT_EQ(jump_back_hash(12345, 1), 0u);
  for (const auto h : key_hashes(1000)) {
    ASSERT_LT(jump_back_hash(h, 0xFFFF'FFFFu), 0xFFFF'FFFFu);
    ASSERT_LT(jump_back_hash(h, 0x8000'0001u), 0x8000'0001u);
    ASSERT_LT(jump_back_hash(h, 2), 2u);
  }
}

TEST(JumpBack, GoldenOutputs) {
  // Pinned: these are placements.
  std::vector<std::uint32_t> got;
  for (std::uint64_t k = 0; k < 6; ++k) got.push_back(jump_back_hash(k, 1000));
  EXPECT_EQ(got, (std::vector<std::uint32_t>{313, 492, 990, 484, 370, 90}));
}

TEST(JumpBack, AsANamedPlacement) {
  jump_placement p(nodes_named(9), jump_algorithm::jump_back);
  EXPECT_EQ(p.kind_name(), "jumpback");
  for (const auto h : key_hashes(2000)) ASSERT_EQ(p.node_index_for_hash(h), jump_back_hash(h, 9));
  EXPECT_THROW(p.remove_node("n3"), std::invalid_argument);
  p.remove_node("n9");
  EXPECT_EQ(p.node_count(), 8u);
}

}  // namespace
}  // namespace ringbloom
