// Consistent hashing with bounded loads: the cap holds by construction,
// loads are counted and released, stateless lookups agree with assignment,
// movement, errors.
#include "ringbloom/placement/bounded_load.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ringbloom/placement/ring.hpp"
#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

std::vector<std::string> names_of(const bounded_load_placement& p,
                                  const std::vector<std::uint32_t>& idx) {
  std::vector<std::string> out;
  for (const auto i : idx) out.push_back(p.node_name(i));
  return out;
}

TEST(BoundedLoad, NoNodeExceedsItsCapacity) {
  for (const double eps : {0.05, 0.25, 1.0}) {
    bounded_load_placement p(nodes_named(100), {100, eps});
    const auto hs = key_hashes(100000);
    const auto placed = p.assign_all(hs);
    // By construction: at most ceil((1 + eps) x m / N) keys per node.
    const double cap = std::ceil((1 + eps) * 100000.0 / 100);
    for (std::uint32_t i = 0; i < 100; ++i) EXPECT_LE(static_cast<double>(p.load(i)), cap);
    EXPECT_LE(peak_to_average(names_of(p, placed), 100), (1 + eps) + 100.0 / 100000);
    EXPECT_EQ(p.assigned(), 100000u);
  }
}

TEST(BoundedLoad, WithRoomToSpareItPlacesLikeTheRing) {
  // Before any load, every node has room: the first key goes where the
  // native xxh3 ring with the same vnodes puts it.
  const auto nodes = nodes_named(8);
  const bounded_load_placement p(nodes, {100, 0.25});
  hash_ring ring({100, hash_kind::xxh3, ring_scheme::native});
  for (const auto& n : nodes) ring.add_node(n.name);
  for (const auto h : key_hashes(5000))
    ASSERT_EQ(p.node_name(p.node_index_for_hash(h)), ring.node_for_hash(h));
}

TEST(BoundedLoad, ReleaseUncountsAndLookupIsWhereAssignWouldGo) {
  bounded_load_placement p(nodes_named(5), {10, 0.1});
  const auto hs = key_hashes(1000);
  for (const auto h : hs) {
    const auto predicted = p.node_index_for_hash(h);
    ASSERT_EQ(p.assign_hash(h), predicted);
  }
  const auto before = p.load(2);
  p.release(2);
  EXPECT_EQ(p.load(2), before - 1);
  EXPECT_EQ(p.assigned(), 999u);
  p.clear_loads();
  EXPECT_THAT([&] { p.release(2); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("holds no keys")));
  EXPECT_THROW(p.release(99), std::invalid_argument);
}

TEST(BoundedLoad, AddingMovesMoreThanTheRingButBounded) {
  // Reassigning the same keys in the same order after an add: the new node
  // takes about its share and the cascade of full nodes moves some others.
  const auto hs = key_hashes(100000);
  bounded_load_placement p(nodes_named(10), {100, 0.25});
  const auto before = names_of(p, p.assign_all(hs));
  p.add_node({"n11", 1.0});
  const auto after = names_of(p, p.assign_all(hs));
  const auto m = count_moves(before, after, "n11");
  EXPECT_GE(m.fraction(hs.size()), 0.95 / 11);
  EXPECT_LE(m.fraction(hs.size()), 3.0 / 11);
}

TEST(BoundedLoad, WeightsScaleTheCapacity) {
  std::vector<placement_node> nodes = nodes_named(4);
  nodes[0].weight = 3.0;
  bounded_load_placement p(nodes, {100, 0.1});
  (void)p.assign_all(key_hashes(60000));
  EXPECT_LE(static_cast<double>(p.load(0)), std::ceil(1.1 * 60000 * 3 / 6));
  EXPECT_GT(static_cast<double>(p.load(0)), 0.8 * 60000 * 3 / 6);
}

TEST(BoundedLoad, BadInputIsAClearError) {
  EXPECT_THAT(
      [] {
        bounded_load_placement p(nodes_named(2), {100, 0.0});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("epsilon 0")));
  EXPECT_THROW(bounded_load_placement(nodes_named(2), {0, 0.25}), std::invalid_argument);
  EXPECT_THROW(bounded_load_placement({}), std::invalid_argument);
  bounded_load_placement p(nodes_named(2));
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 0), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
