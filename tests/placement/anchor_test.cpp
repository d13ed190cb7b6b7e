// AnchorHash: minimal movement under any sequence of removals and
// additions, balance after removals, capacity, errors.
#include "ringbloom/placement/anchor.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(Anchor, GoldenPlacements) {
  const anchor_placement p(nodes_named(5), {16});
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got, (std::vector<std::string>{"n3", "n3", "n1", "n5", "n3", "n2", "n5", "n5"}));
}

TEST(Anchor, EveryChangeMovesOnlyTheChangedNodesKeys) {
  // A fixed random walk of 60 removals and additions on 10,000 keys:
  // after each step every key is on a working node, a removal moves exactly
  // the removed node's keys and an addition moves keys only onto the new
  // node.
  const auto hs = key_hashes(10000);
  anchor_placement p(nodes_named(20), {40});
  std::mt19937_64 rng(11);
  std::size_t next_name = 21;
  auto before = owners(p, hs);
  for (int step = 0; step < 60; ++step) {
    std::string changed;
    const bool remove = p.node_count() > 1 && (p.node_count() == 40 || rng() % 2 == 0);
    if (remove) {
      changed = p.node_name(static_cast<std::uint32_t>(rng() % p.node_count()));
      p.remove_node(changed);
    } else {
      changed = "n" + std::to_string(next_name++);
      p.add_node({changed, 1.0});
    }
    const auto after = owners(p, hs);
    const auto m = count_moves(before, after, changed);
    ASSERT_EQ(m.moved_not_via, 0u) << "step " << step << " (" << changed << ")";
    if (remove) {
      ASSERT_EQ(m.moved, counts(before)[changed]);
    }
    std::set<std::string> working;
    for (std::uint32_t i = 0; i < p.node_count(); ++i) working.insert(p.node_name(i));
    for (const auto& o : after) ASSERT_EQ(working.count(o), 1u);
    before = after;
  }
}

TEST(Anchor, AddingMovesTheMinimum) {
  const auto hs = key_hashes(100000);
  anchor_placement p(nodes_named(10), {20});
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto m = count_moves(before, owners(p, hs), "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(Anchor, BalancedAfterTenPercentRemoved) {
  const std::size_t keys = 200000;
  anchor_placement p(nodes_named(100), {100});
  for (int i = 1; i <= 10; ++i) p.remove_node("n" + std::to_string(i * 7));
  // AnchorHash keeps the expected shares exactly equal (paper, Theorem 1).
  EXPECT_LE(peak_to_average(owners(p, key_hashes(keys)), 90), 1.0 + sampling_slack(keys, 90));
}

TEST(Anchor, AddingRestoresTheLastRemovedBucket) {
  anchor_placement p(nodes_named(4), {8});
  const std::uint32_t b = p.bucket_of(1);  // n2's bucket
  p.remove_node("n2");
  p.add_node({"x", 1.0});
  EXPECT_EQ(p.bucket_of(static_cast<std::uint32_t>(p.node_count() - 1)), b);
}

TEST(Anchor, BadInputIsAClearError) {
  EXPECT_THROW(anchor_placement({}), std::invalid_argument);
  EXPECT_THAT([] { anchor_placement p(nodes_named(5), {4}); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("cannot hold 5 nodes")));
  const std::vector<placement_node> weighted{{"a", 2.0}};
  EXPECT_THROW(anchor_placement{weighted}, std::invalid_argument);
  anchor_placement p(nodes_named(2), {2});
  EXPECT_THAT(
      [&] {
        p.add_node({"n3", 1.0});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("larger capacity")));
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 2), std::invalid_argument);
  EXPECT_EQ(p.node_count(), 2u);
}

}  // namespace
}  // namespace ringbloom
