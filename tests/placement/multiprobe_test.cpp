// Multi-probe consistent hashing: order independence, minimal movement,
// balance with 21 probes, errors.
#include "ringbloom/placement/multiprobe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(Multiprobe, PlacementDoesNotDependOnNodeOrder) {
  auto nodes = nodes_named(40);
  const multiprobe_placement a(nodes);
  std::reverse(nodes.begin(), nodes.end());
  const multiprobe_placement b(nodes);
  const auto hs = key_hashes(20000);
  EXPECT_EQ(owners(a, hs), owners(b, hs));
}

TEST(Multiprobe, GoldenPlacements) {
  const multiprobe_placement p(nodes_named(5));
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got, (std::vector<std::string>{"n2", "n5", "n1", "n1", "n5", "n2", "n4", "n4"}));
}

TEST(Multiprobe, AddingAndRemovingMoveOnlyTheChangedNodesKeys) {
  const auto hs = key_hashes(100000);
  multiprobe_placement p(nodes_named(10));
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto after = owners(p, hs);
  const auto m = count_moves(before, after, "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  // The new node's share is that of one point among 11 with 21 probes:
  // 1/11 within the strategy's own spread (peak/avg 1.06) and sampling.
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.15 / 11);
  p.remove_node("n5");
  const auto m2 = count_moves(after, owners(p, hs), "n5");
  EXPECT_EQ(m2.moved_not_via, 0u);
  EXPECT_EQ(m2.moved, counts(after)["n5"]);
}

TEST(Multiprobe, TwentyOneProbesBalanceOneHundredNodes) {
  const std::size_t keys = 400000;
  const multiprobe_placement p(nodes_named(100), {21, 0});
  // The paper's peak-to-mean for k = 21 is about 1.05; plus sampling.
  EXPECT_LE(peak_to_average(owners(p, key_hashes(keys)), 100), 1.06 + sampling_slack(keys, 100));
  // One probe is a plain ring with one point per node: far worse.
  const multiprobe_placement one(nodes_named(100), {1, 0});
  EXPECT_GT(peak_to_average(owners(one, key_hashes(keys)), 100), 2.0);
}

TEST(Multiprobe, BadInputIsAClearError) {
  EXPECT_THAT(
      [] {
        multiprobe_placement p(nodes_named(3), {0, 0});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("outside 1..1024")));
  EXPECT_THROW(multiprobe_placement({}), std::invalid_argument);
  const std::vector<placement_node> weighted{{"a", 2.0}};
  EXPECT_THAT([&] { multiprobe_placement p(weighted); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("has no weights")));
  multiprobe_placement p(nodes_named(2));
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 2), std::invalid_argument);
  EXPECT_THROW((void)p.node_indexes_for_hash(1, 2), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
