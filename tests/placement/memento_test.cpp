// MementoHash: jump hash when nothing is removed, minimal movement under any
// sequence of changes, balance after removals, errors.
#include "ringbloom/placement/memento.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ringbloom/placement/jump.hpp"
#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

TEST(Memento, IsJumpHashWhileNothingIsRemoved) {
  memento_placement p(nodes_named(13));
  for (const auto h : key_hashes(10000)) ASSERT_EQ(p.node_index_for_hash(h), jump_hash(h, 13));
  p.add_node({"n14", 1.0});
  for (const auto h : key_hashes(10000)) ASSERT_EQ(p.bucket_for_hash(h), jump_hash(h, 14));
  p.remove_node("n14");  // the last bucket: shrinks back, as jump would
  EXPECT_EQ(p.bucket_array_size(), 13u);
}

TEST(Memento, GoldenPlacementsAfterRemovals) {
  memento_placement p(nodes_named(8));
  p.remove_node("n3");
  p.remove_node("n6");
  std::vector<std::string> got;
  for (int i = 0; i < 8; ++i) got.push_back(p.node_for("key-" + std::to_string(i)));
  EXPECT_EQ(got, (std::vector<std::string>{"n2", "n8", "n8", "n1", "n4", "n8", "n7", "n8"}));
}

TEST(Memento, EveryChangeMovesOnlyTheChangedNodesKeys) {
  const auto hs = key_hashes(10000);
  memento_placement p(nodes_named(20));
  std::mt19937_64 rng(12);
  std::size_t next_name = 21;
  auto before = owners(p, hs);
  for (int step = 0; step < 80; ++step) {
    std::string changed;
    const bool remove = p.node_count() > 1 && rng() % 2 == 0;
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

TEST(Memento, RemovingMovesTheMinimum) {
  const auto hs = key_hashes(100000);
  memento_placement p(nodes_named(11));
  const auto before = owners(p, hs);
  p.remove_node("n5");
  const auto m = count_moves(before, owners(p, hs), "n5");
  EXPECT_EQ(m.moved_not_via, 0u);
  EXPECT_NEAR(m.fraction(hs.size()), 1.0 / 11, 0.05 / 11);
}

TEST(Memento, BalancedAfterTenPercentRemoved) {
  const std::size_t keys = 200000;
  memento_placement p(nodes_named(100));
  for (int i = 1; i <= 10; ++i) p.remove_node("n" + std::to_string(i * 7));
  EXPECT_LE(peak_to_average(owners(p, key_hashes(keys)), 90), 1.0 + sampling_slack(keys, 90));
}

TEST(Memento, BadInputIsAClearError) {
  EXPECT_THROW(memento_placement({}), std::invalid_argument);
  const std::vector<placement_node> weighted{{"a", 0.5}};
  EXPECT_THAT([&] { memento_placement p(weighted); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("has no weights")));
  memento_placement p(nodes_named(2));
  EXPECT_THROW(p.remove_node("zz"), std::invalid_argument);
  EXPECT_THROW(p.add_node({"n2", 1.0}), std::invalid_argument);
  EXPECT_THROW(p.set_weight("n1", 2), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
