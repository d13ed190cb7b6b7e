// The ring behind the placement interface places exactly as hash_ring does.
#include "ringbloom/placement/ring_placement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(RingPlacement, NativePlacesLikeTheRing) {
  std::vector<placement_node> nodes = nodes_named(6);
  nodes[2].weight = 3;
  const ring_placement p(nodes, {160, hash_kind::sha256, ring_scheme::native});
  hash_ring ring({160, hash_kind::sha256, ring_scheme::native});
  for (const auto& n : nodes) ring.add_node(n.name, static_cast<std::uint32_t>(n.weight));
  EXPECT_EQ(p.kind_name(), "ring");
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(p.node_for(key), ring.node_for(key));
    const auto idx = p.node_indexes_for_hash(p.key_hash(key), 3);
    const auto names = ring.nodes_for(key, 3);
    ASSERT_EQ(idx.size(), 3u);
    for (std::size_t r = 0; r < 3; ++r) ASSERT_EQ(p.node_name(idx[r]), names[r]);
  }
  EXPECT_EQ(p.memory_bytes(), ring.lookup_bytes());
}

TEST(RingPlacement, KetamaPlacesLikeTheKetamaRing) {
  const std::vector<placement_node> nodes{{"10.0.0.1:11211", 1}, {"10.0.0.2:11211", 2}};
  const ring_placement p(nodes, ring_options::ketama());
  hash_ring ring(ring_options::ketama());
  ring.add_node("10.0.0.1:11211", 1);
  ring.add_node("10.0.0.2:11211", 2);
  EXPECT_EQ(p.kind_name(), "ketama");
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(p.node_for(key), ring.node_for(key));
  }
}

TEST(RingPlacement, ReweightIsTheRingBuiltWithThatWeight) {
  ring_placement p(nodes_named(4), {100, hash_kind::xxh3, ring_scheme::native});
  p.set_weight("n2", 4);
  std::vector<placement_node> nodes = nodes_named(4);
  nodes[1].weight = 4;
  const ring_placement q(nodes, {100, hash_kind::xxh3, ring_scheme::native});
  const auto hs = key_hashes(5000);
  EXPECT_EQ(owners(p, hs), owners(q, hs));
}

TEST(RingPlacement, AddingMovesTheMinimumWith160Vnodes) {
  const auto hs = key_hashes(100000);
  ring_placement p(nodes_named(10), {160, hash_kind::xxh3, ring_scheme::native});
  const auto before = owners(p, hs);
  p.add_node({"n11", 1});
  const auto m = count_moves(before, owners(p, hs), "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  // The new node's share with 160 points spreads about 1/sqrt(160) = 8%
  // around 1/11; these node names land within 5%.
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(RingPlacement, BadInputIsAClearError) {
  const std::vector<placement_node> half{{"a", 1.5}};
  EXPECT_THAT([&] { ring_placement p(half); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("whole numbers")));
  EXPECT_THROW(ring_placement(std::vector<placement_node>{}), std::invalid_argument);
  EXPECT_THROW(ring_placement(hash_ring{}), std::invalid_argument);
  ring_placement p(nodes_named(2));
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.set_weight("zz", 2), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 0.5), std::invalid_argument);
  p.remove_node("n2");
  EXPECT_THROW(p.remove_node("n1"), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
