// Skeleton-based hierarchical rendezvous: order independence, equality with
// flat rendezvous inside one leaf cluster, movement on add and remove against
// the minimum 1/(N+1), balance and weights with fixed keys, bad input.
#include "ringbloom/placement/skeleton.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(Skeleton, ConstructionDoesNotDependOnNodeOrder) {
  auto nodes = nodes_named(300);
  const skeleton_placement a(nodes, {4, 0});
  std::reverse(nodes.begin(), nodes.end());
  const skeleton_placement b(nodes, {4, 0});
  const auto hs = key_hashes(20000);
  EXPECT_EQ(owners(a, hs), owners(b, hs));
  EXPECT_EQ(a.levels(), 5u);  // 4^4 = 256 < 300 <= 4^5
}

TEST(Skeleton, GoldenPlacements) {
  // Pinned: changing these changes every deployed placement.
  const skeleton_placement p(nodes_named(40), {4, 0});
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got,
            (std::vector<std::string>{"n33", "n23", "n35", "n21", "n19", "n18", "n24", "n28"}));
  std::cout << "\n";
}

TEST(Skeleton, OneLeafClusterRemovalMovesOnlyThatNodesKeys) {
  // Up to f nodes the skeleton is one weighted rendezvous choice among the
  // nodes: removing one moves its keys and nothing else.
  const auto hs = key_hashes(100000);
  const std::vector<placement_node> weighted{{"a", 1}, {"b", 2.5}, {"c", 0.5}, {"d", 4}};
  skeleton_placement p(weighted);
  EXPECT_EQ(p.levels(), 1u);
  const auto before = owners(p, hs);
  p.remove_node("b");
  const auto m = count_moves(before, owners(p, hs), "b");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_EQ(m.moved, counts(before)["b"]);
}

// Movement on 100,000 keys. The minimum is 1/(N+1) (add) or 1/N (remove);
// the skeleton moves about 1 + (L - 1)(1 - 1/f) times it (the header): with
// f = 4 and 200 -> 201 nodes (L = 4) about 3.25 times. Bounds: at least the
// minimum less 5 sampling deviations, at most 4 times it; the new node gets
// its fair share 1/(N+1) within 5 deviations (sqrt(100000 / 201) = 22 keys).
TEST(Skeleton, AddingMovesABoundedMultipleOfTheMinimum) {
  const auto hs = key_hashes(100000);
  skeleton_placement p(nodes_named(200), {4, 0});
  ASSERT_EQ(p.levels(), 4u);
  const auto before = owners(p, hs);
  p.add_node({"n201", 1.0});
  const auto after = owners(p, hs);
  const auto m = count_moves(before, after, "n201");
  const double minimum = 1.0 / 201;
  EXPECT_GT(m.fraction(hs.size()), minimum);
  EXPECT_LT(m.fraction(hs.size()), 4 * minimum);
  EXPECT_NEAR(static_cast<double>(counts(after)["n201"]), 100000.0 / 201, 5 * 22.4);
}

TEST(Skeleton, RemovingMovesTheNodesKeysAndABoundedMultiple) {
  const auto hs = key_hashes(100000);
  skeleton_placement p(nodes_named(200), {4, 0});
  const auto before = owners(p, hs);
  p.remove_node("n77");
  const auto after = owners(p, hs);
  const auto m = count_moves(before, after, "n77");
  EXPECT_EQ(counts(after).count("n77"), 0u);
  EXPECT_GE(m.moved, counts(before)["n77"]);
  EXPECT_LT(m.fraction(hs.size()), 4.0 / 200);
}

TEST(Skeleton, OneLeafClusterMovesTheMinimum) {
  // Inside one cluster (N + 1 <= f) adding is rendezvous: only to the new node.
  const auto hs = key_hashes(100000);
  skeleton_placement p(nodes_named(10), {32, 0});
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto m = count_moves(before, owners(p, hs), "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(Skeleton, AFreedSlotIsReusedAndTheTreeGrowsALevel) {
  skeleton_placement p(nodes_named(16), {4, 0});
  EXPECT_EQ(p.levels(), 2u);
  const std::uint32_t slot = p.slot(4);  // n13 sorts after n12: slots follow names
  p.remove_node(p.node_name(4));
  p.add_node({"x", 1.0});
  EXPECT_EQ(p.slot(static_cast<std::uint32_t>(p.node_count() - 1)), slot);
  p.add_node({"y", 1.0});  // the 17th slot
  EXPECT_EQ(p.levels(), 3u);
  // Growing a level keeps the old tree as the root's first child: keys move
  // only towards y's new subtree, and y gets about 1/17.
  const auto hs = key_hashes(100000);
  skeleton_placement q(nodes_named(16), {4, 0});
  const auto before = owners(q, hs);
  q.add_node({"y", 1.0});
  const auto m = count_moves(before, owners(q, hs), "y");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 17, 5 * std::sqrt(100000.0 / 17) / 100000);
}

TEST(Skeleton, BalancedAtOneThousandNodes) {
  // 400,000 keys on 1,000 nodes: 400 a node; sampling alone allows 1.25.
  const std::size_t keys = 400000;
  const skeleton_placement p(nodes_named(1000), {8, 0});
  EXPECT_LE(peak_to_average(owners(p, key_hashes(keys)), 1000), 1.0 + sampling_slack(keys, 1000));
}

TEST(Skeleton, WeightsAreHonouredAcrossLevels) {
  // Fan-out 2 puts every choice on a level of its own; shares w_i / W within
  // 5 standard deviations on 200,000 keys.
  std::vector<placement_node> nodes;
  for (int i = 0; i < 9; ++i) nodes.push_back({"w" + std::to_string(i), 1.0 + i});
  const skeleton_placement p(nodes, {2, 0});
  const std::size_t keys = 200000;
  auto c = counts(owners(p, key_hashes(keys)));
  const auto own = p.ownership();
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->basis, ownership_basis::expectation);
  for (std::uint32_t i = 0; i < p.node_count(); ++i) {
    const double s = own->shares[i];
    const double expected = s * static_cast<double>(keys);
    EXPECT_NEAR(static_cast<double>(c[p.node_name(i)]), expected, 5 * std::sqrt(expected * (1 - s)))
        << p.node_name(i);
  }
}

TEST(Skeleton, ReweightingShiftsKeysTowardsTheNode) {
  const auto hs = key_hashes(100000);
  skeleton_placement p(nodes_named(50), {4, 0});
  p.set_weight("n10", 3.0);
  auto c = counts(owners(p, hs));
  // 3/52 of the keys, within 5 deviations (sqrt(100000 x 3/52) = 76).
  EXPECT_NEAR(static_cast<double>(c["n10"]), 100000.0 * 3 / 52, 5 * 76);
}

TEST(Skeleton, CloneAndConstructionAreDeterministic) {
  const skeleton_placement a(nodes_named(500), {8, 0});
  const auto b = a.clone();
  const auto hs = key_hashes(5000);
  EXPECT_EQ(owners(a, hs), owners(*b, hs));
  EXPECT_EQ(owners(a, hs), owners(skeleton_placement(nodes_named(500), {8, 0}), hs));
}

TEST(Skeleton, BadInputIsAClearError) {
  const auto what = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(what([] { skeleton_placement({}); }), HasSubstr("at least one node"));
  EXPECT_THAT(what([] {
                skeleton_placement(nodes_named(3), {1, 0});
              }),
              HasSubstr("fan-out 1 is outside 2..1024"));
  EXPECT_THAT(what([] {
                skeleton_placement(nodes_named(3), {1025, 0});
              }),
              HasSubstr("fan-out 1025"));
  EXPECT_THAT(what([] {
                skeleton_placement(std::vector<placement_node>{{"a", 0.0}});
              }),
              HasSubstr("weight 0"));
  skeleton_placement p(nodes_named(3));
  EXPECT_THAT(what([&] { p.remove_node("nope"); }), HasSubstr("no node is named 'nope'"));
  EXPECT_THAT(what([&] { p.add_node({"n1", 1.0}); }), HasSubstr("already placed"));
  EXPECT_THAT(what([&] { p.set_weight("n1", -1); }), HasSubstr("weight -1"));
  skeleton_placement one(nodes_named(1));
  EXPECT_THAT(what([&] { one.remove_node("n1"); }), HasSubstr("only node"));
  EXPECT_THROW((void)p.node_indexes_for_hash(1, 2), std::invalid_argument);
  EXPECT_EQ(p.node_count(), 3u);  // nothing changed
}

}  // namespace
}  // namespace ringbloom
