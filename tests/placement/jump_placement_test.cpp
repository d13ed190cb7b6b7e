// Jump hash as a named placement: same buckets as jump_hash, growth at the
// end, removal of the last node only.
#include "ringbloom/placement/jump_placement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(JumpPlacement, PlacesLikeJumpHash) {
  const jump_placement p(nodes_named(17));
  for (const auto h : key_hashes(5000)) ASSERT_EQ(p.node_index_for_hash(h), jump_hash(h, 17));
  EXPECT_EQ(p.node_for("key-0"), p.node_name(jump_hash(xxh3_64("key-0"), 17)));
}

TEST(JumpPlacement, AddingMovesTheMinimumOntoTheNewNode) {
  const auto hs = key_hashes(100000);
  jump_placement p(nodes_named(10));
  const auto before = owners(p, hs);
  p.add_node({"n11", 1.0});
  const auto m = count_moves(before, owners(p, hs), "n11");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(JumpPlacement, OnlyTheLastNodeCanBeRemoved) {
  jump_placement p(nodes_named(4));
  EXPECT_THAT([&] { p.remove_node("n2"); }, ::testing::ThrowsMessage<std::invalid_argument>(
                                                HasSubstr("not its last node ('n4')")));
  p.remove_node("n4");
  EXPECT_EQ(p.node_count(), 3u);
  EXPECT_THROW(p.set_weight("n1", 2), std::invalid_argument);
  EXPECT_THROW(jump_placement({}), std::invalid_argument);
  const std::vector<placement_node> weighted{{"a", 3.0}};
  EXPECT_THROW(jump_placement{weighted}, std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
