// Maglev: the table's balance, order independence, movement, weights,
// errors.
#include "ringbloom/placement/maglev.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

std::vector<std::size_t> slots_per_node(const maglev_placement& p) {
  std::vector<std::size_t> slots(p.node_count(), 0);
  for (const auto owner : p.table()) ++slots[owner];
  return slots;
}

TEST(Maglev, EveryNodeOwnsItsShareOfTheTableToOneSlot) {
  // Paper, section 3.4: with equal weights the turns alternate, so slot
  // counts differ by at most one.
  const maglev_placement p(nodes_named(100), {65537});
  const auto slots = slots_per_node(p);
  const auto [lo, hi] = std::minmax_element(slots.begin(), slots.end());
  EXPECT_LE(*hi - *lo, 1u);
  EXPECT_LE(static_cast<double>(*hi) / (65537.0 / 100), 1.02);
}

TEST(Maglev, TableDoesNotDependOnNodeOrder) {
  auto nodes = nodes_named(30);
  const maglev_placement a(nodes, {4099});
  std::reverse(nodes.begin(), nodes.end());
  const maglev_placement b(nodes, {4099});
  const auto hs = key_hashes(20000);
  EXPECT_EQ(owners(a, hs), owners(b, hs));
}

TEST(Maglev, GoldenPlacements) {
  const maglev_placement p(nodes_named(5), {65537});
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got, (std::vector<std::string>{"n2", "n4", "n3", "n4", "n1", "n2", "n4", "n4"}));
}

TEST(Maglev, AddingMovesSomewhatMoreThanTheMinimum) {
  // Maglev trades minimal disruption for balance: most moves go to the new
  // node, some shuffle between old nodes. Measured: see docs/placement.md.
  const auto hs = key_hashes(100000);
  maglev_placement p(nodes_named(10), {65537});
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto after = owners(p, hs);
  const auto m = count_moves(before, after, "n11");
  const double ideal = 1.0 / 11;
  EXPECT_GE(m.fraction(hs.size()), ideal * 0.95);
  EXPECT_LE(m.fraction(hs.size()), ideal * 1.5);
  EXPECT_NEAR(static_cast<double>(counts(after)["n11"]) / 100000, ideal, 0.05 * ideal);
}

TEST(Maglev, RemovingMovesTheRemovedKeysAndFewOthers) {
  const auto hs = key_hashes(100000);
  maglev_placement p(nodes_named(10), {65537});
  const auto before = owners(p, hs);
  p.remove_node("n3");
  const auto m = count_moves(before, owners(p, hs), "n3");
  EXPECT_LE(static_cast<double>(m.moved_not_via), 0.5 * static_cast<double>(m.moved));
}

TEST(Maglev, WeightsSetTheShareOfSlots) {
  std::vector<placement_node> nodes = nodes_named(3);
  nodes[0].weight = 2.0;
  nodes[2].weight = 0.5;
  const maglev_placement p(nodes, {65537});
  const auto slots = slots_per_node(p);
  EXPECT_NEAR(static_cast<double>(slots[0]) / 65537, 2.0 / 3.5, 0.002);
  EXPECT_NEAR(static_cast<double>(slots[1]) / 65537, 1.0 / 3.5, 0.002);
  EXPECT_NEAR(static_cast<double>(slots[2]) / 65537, 0.5 / 3.5, 0.002);
}

TEST(Maglev, BadInputIsAClearError) {
  EXPECT_THAT([] { maglev_placement p(nodes_named(3), {65536}); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("is not prime")));
  EXPECT_THAT([] { maglev_placement p(nodes_named(20), {13}); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("smaller than the 20")));
  EXPECT_THROW(maglev_placement(nodes_named(3), {1}), std::invalid_argument);
  EXPECT_THROW(maglev_placement({}, {}), std::invalid_argument);
  const std::vector<placement_node> zero{{"a", 0.0}};
  EXPECT_THROW(maglev_placement{zero}, std::invalid_argument);
  maglev_placement p(nodes_named(2), {13});
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 0), std::invalid_argument);
  EXPECT_TRUE(maglev_placement::is_prime(65537));
  EXPECT_FALSE(maglev_placement::is_prime(65535));
  EXPECT_FALSE(maglev_placement::is_prime(1));
}

}  // namespace
}  // namespace ringbloom
