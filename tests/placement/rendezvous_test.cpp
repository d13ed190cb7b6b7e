// Rendezvous hashing: order independence, minimal movement, balance,
// weights, replicas, errors.
#include "ringbloom/placement/rendezvous.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(Rendezvous, PlacementDoesNotDependOnNodeOrder) {
  auto nodes = nodes_named(20);
  const rendezvous_placement a(nodes);
  std::reverse(nodes.begin(), nodes.end());
  const rendezvous_placement b(nodes);
  const auto hs = key_hashes(20000);
  EXPECT_EQ(owners(a, hs), owners(b, hs));
}

TEST(Rendezvous, GoldenPlacements) {
  // Pinned: changing these changes every deployed placement.
  const rendezvous_placement p(nodes_named(5));
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got, (std::vector<std::string>{"n1", "n3", "n5", "n1", "n5", "n5", "n5", "n1"}));
}

TEST(Rendezvous, AddingMovesOnlyToTheNewNodeAndTheMinimum) {
  const auto hs = key_hashes(100000);
  rendezvous_placement p(nodes_named(10));
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto m = count_moves(before, owners(p, hs), "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  // 1/11 of the keys, within 5% (the sampling deviation is 1%).
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(Rendezvous, RemovingMovesOnlyTheRemovedNodesKeys) {
  const auto hs = key_hashes(100000);
  rendezvous_placement p(nodes_named(10));
  const auto before = owners(p, hs);
  p.remove_node("n4");
  const auto after = owners(p, hs);
  const auto m = count_moves(before, after, "n4");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_EQ(m.moved, counts(before)["n4"]);
}

TEST(Rendezvous, BalancedAtOneHundredNodes) {
  const std::size_t keys = 200000;
  const rendezvous_placement p(nodes_named(100));
  // Expected shares are exactly equal; all the spread is sampling.
  EXPECT_LE(peak_to_average(owners(p, key_hashes(keys)), 100), 1.0 + sampling_slack(keys, 100));
}

TEST(Rendezvous, WeightsAreHonoured) {
  std::vector<placement_node> nodes = nodes_named(4);
  nodes[0].weight = 3.0;  // n1: 3/6 of the keys
  nodes[1].weight = 0.5;  // n2: 0.5/6
  rendezvous_placement p(nodes);
  const auto hs = key_hashes(100000);
  auto c = counts(owners(p, hs));
  EXPECT_NEAR(static_cast<double>(c["n1"]) / 100000, 3.0 / 5.5, 0.01);
  EXPECT_NEAR(static_cast<double>(c["n2"]) / 100000, 0.5 / 5.5, 0.01);
  EXPECT_NEAR(static_cast<double>(c["n3"]) / 100000, 1.0 / 5.5, 0.01);
  // Reweighting moves keys only to or from the reweighted node.
  const auto before = owners(p, hs);
  p.set_weight("n3", 2.0);
  const auto m = count_moves(before, owners(p, hs), "n3");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_GT(m.moved, 0u);
}

TEST(Rendezvous, EqualWeightsOtherThanOnePlaceLikeWeightOne) {
  auto nodes = nodes_named(7);
  const rendezvous_placement ones(nodes);
  for (auto& n : nodes) n.weight = 2.5;
  const rendezvous_placement twos(nodes);
  const auto hs = key_hashes(10000);
  EXPECT_EQ(owners(ones, hs), owners(twos, hs));
}

TEST(Rendezvous, WeightedPathAgreesWithTheUniformOrder) {
  // One node of weight 1 + 1e-12 switches to the logarithmic scores; the
  // placement must stay that of equal weights for almost every key.
  auto nodes = nodes_named(7);
  const rendezvous_placement uniform(nodes);
  nodes[0].weight = 1.0 + 1e-12;
  const rendezvous_placement weighted(nodes);
  const auto hs = key_hashes(10000);
  const auto a = owners(uniform, hs);
  const auto b = owners(weighted, hs);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
  EXPECT_EQ(differ, 0u);
}

TEST(Rendezvous, NodesForGivesDistinctNodesBestFirst) {
  const rendezvous_placement p(nodes_named(6));
  for (const auto h : key_hashes(1000)) {
    const auto idx = p.node_indexes_for_hash(h, 3);
    ASSERT_EQ(idx.size(), 3u);
    EXPECT_EQ(idx[0], p.node_index_for_hash(h));
    EXPECT_EQ(std::set<std::uint32_t>(idx.begin(), idx.end()).size(), 3u);
  }
  EXPECT_EQ(p.node_indexes_for_hash(1, 10).size(), 6u);
  EXPECT_THROW((void)p.node_indexes_for_hash(1, 0), std::invalid_argument);
}

TEST(Rendezvous, BadInputIsAClearError) {
  const std::vector<placement_node> none;
  EXPECT_THAT([&] { rendezvous_placement p(none); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("at least one node")));
  const std::vector<placement_node> zero{{"a", 0.0}};
  EXPECT_THAT([&] { rendezvous_placement p(zero); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("greater than 0")));
  const std::vector<placement_node> nan{{"a", std::nan("")}};
  EXPECT_THROW(rendezvous_placement{nan}, std::invalid_argument);
  const std::vector<placement_node> twice{{"a", 1}, {"a", 1}};
  EXPECT_THAT([&] { rendezvous_placement p(twice); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("given twice")));
  rendezvous_placement p(nodes_named(2));
  EXPECT_THAT([&] { p.remove_node("zz"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("no node is named 'zz'")));
  EXPECT_THROW(p.add_node({"n1", 1}), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", -1), std::invalid_argument);
  p.remove_node("n2");
  EXPECT_THROW(p.remove_node("n1"), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
