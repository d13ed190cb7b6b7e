// The strategy factory, change lists, the minimum movement and the
// side-by-side comparison.
#include "ringbloom/placement/strategies.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

TEST(Strategies, EveryNameBuildsItsStrategy) {
  const std::vector<placement_node> nodes{{"a:11211", 1}, {"b:11211", 1}, {"c:11211", 1}};
  for (const auto name : strategy_names()) {
    const auto p = make_strategy(name, nodes);
    EXPECT_EQ(p->kind_name(), name);
    EXPECT_EQ(p->node_count(), 3u);
    const std::string& owner = p->node_for("key-1");
    EXPECT_TRUE(owner == "a:11211" || owner == "b:11211" || owner == "c:11211");
  }
  EXPECT_THAT([&] { (void)make_strategy("chord", nodes); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  HasSubstr("'chord' is not a placement strategy; use one of ring, ketama")));
}

TEST(Strategies, ParsesChangeLists) {
  const auto steps = parse_placement_changes("add:x, remove:n2,reweight:n3=2.5,add:y=3");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0], (placement_step{placement_step::kind::add, "x", 1.0}));
  EXPECT_EQ(steps[1], (placement_step{placement_step::kind::remove, "n2", 1.0}));
  EXPECT_EQ(steps[2], (placement_step{placement_step::kind::reweight, "n3", 2.5}));
  EXPECT_EQ(steps[3], (placement_step{placement_step::kind::add, "y", 3.0}));
  EXPECT_THAT([] { (void)parse_placement_changes("grow:x"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("'grow', which is not")));
  EXPECT_THROW((void)parse_placement_changes("reweight:x"), std::invalid_argument);
  EXPECT_THROW((void)parse_placement_changes("reweight:x=0"), std::invalid_argument);
  // Node weights range from 1 to 2^32 - 1 everywhere (topology files, --nodes).
  EXPECT_THAT([] { (void)parse_placement_changes("reweight:x=1e308"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("from 1 to 4294967295")));
  EXPECT_THROW((void)parse_placement_changes("add:x=4294967296"), std::invalid_argument);
  EXPECT_THROW((void)parse_placement_changes("reweight:x=0.5"), std::invalid_argument);
  EXPECT_EQ(parse_placement_changes("reweight:x=4294967295")[0].weight, 4294967295.0);
  EXPECT_THROW((void)parse_placement_changes("remove:x=2"), std::invalid_argument);
  EXPECT_THROW((void)parse_placement_changes("add:"), std::invalid_argument);
  EXPECT_THROW((void)parse_placement_changes(""), std::invalid_argument);
}

TEST(Strategies, IdealMovementIsTheTotalVariation) {
  const auto four = numbered_nodes(4);
  EXPECT_DOUBLE_EQ(ideal_moved_fraction(four, numbered_nodes(5)), 1.0 / 5);
  EXPECT_DOUBLE_EQ(ideal_moved_fraction(numbered_nodes(5), four), 1.0 / 5);
  auto heavier = four;
  heavier[0].weight = 2;  // n1: 1/4 -> 2/5; the others 1/4 -> 1/5
  EXPECT_NEAR(ideal_moved_fraction(four, heavier), 0.15, 1e-12);
  EXPECT_THROW((void)apply_steps(four, parse_placement_changes("remove:n9")),
               std::invalid_argument);
  EXPECT_THROW((void)apply_steps(four, parse_placement_changes("add:n1")), std::invalid_argument);
}

TEST(Strategies, ComparisonOnTheLessonsExperiment) {
  // N -> N+1 with 10 nodes and 100,000 keys: the minimal strategies move
  // within 5% of 1/11, every move to the new node.
  const auto keys = numbered_keys(100000);
  std::vector<std::string> names(strategy_names().begin(), strategy_names().end());
  const auto steps = parse_placement_changes("add:n11");
  const auto result = compare_strategies(numbered_nodes(10), steps, names, keys, {}, false);
  ASSERT_EQ(result.strategies.size(), names.size());
  EXPECT_DOUBLE_EQ(result.ideal_fraction, 1.0 / 11);
  for (const auto& r : result.strategies) {
    SCOPED_TRACE(r.name);
    ASSERT_TRUE(r.supported) << r.unsupported_reason;
    EXPECT_EQ(r.keys, 100000u);
    EXPECT_EQ(r.lookup_ns, 0.0);
    if (r.name == "jump" || r.name == "jumpback") {
      EXPECT_EQ(r.memory_bytes, 0u);  // no lookup structure
    } else {
      EXPECT_GT(r.memory_bytes, 0u);
    }
    // The skeleton with 11 nodes is one leaf cluster (f = 32): plain
    // weighted rendezvous, minimal.
    if (r.name == "ring" || r.name == "rendezvous" || r.name == "anchor" || r.name == "memento" ||
        r.name == "jump" || r.name == "jumpback" || r.name == "multiprobe" ||
        r.name == "skeleton") {
      EXPECT_DOUBLE_EQ(r.changed_share, 1.0);
    }
    if (r.name == "ring" || r.name == "rendezvous" || r.name == "anchor" || r.name == "memento" ||
        r.name == "jump" || r.name == "jumpback" || r.name == "skeleton") {
      EXPECT_NEAR(r.moved_fraction, 1.0 / 11, 0.05 / 11);
    }
    // Every strategy defines ownership(); the shares' peak/avg is >= 1.
    EXPECT_FALSE(r.ownership_basis.empty());
    EXPECT_GE(r.owned_peak_avg, 1.0 - 1e-12);
    EXPECT_GE(r.moved_fraction, 0.9 / 11);
    EXPECT_GE(r.peak_avg, 1.0);
  }
}

TEST(Strategies, AnUnsupportedChangeIsReportedNotThrown) {
  const auto keys = numbered_keys(1000);
  const std::vector<std::string> names{"jump", "memento", "multiprobe"};
  const auto steps = parse_placement_changes("remove:n2,reweight:n3=2");
  const auto result = compare_strategies(numbered_nodes(5), steps, names, keys, {}, false);
  EXPECT_FALSE(result.strategies[0].supported);
  EXPECT_THAT(result.strategies[0].unsupported_reason, HasSubstr("not its last node"));
  EXPECT_FALSE(result.strategies[1].supported);
  EXPECT_THAT(result.strategies[1].unsupported_reason, HasSubstr("memento"));
  EXPECT_FALSE(result.strategies[2].supported);
  const std::vector<std::string> bad{"chord"};
  EXPECT_THROW((void)compare_strategies(numbered_nodes(5), steps, bad, keys),
               std::invalid_argument);
  EXPECT_THROW((void)compare_strategies(numbered_nodes(5), steps, names, {}),
               std::invalid_argument);
}

TEST(Strategies, ComparisonSizeIsBoundedBeforeAnyWork) {
  EXPECT_NO_THROW(check_comparison_size(9'999, 1, 1'000'000, 160));
  EXPECT_THAT([] { check_comparison_size(9'999, 2, 10, 1); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  HasSubstr("more than the 10000 nodes and changes")));
  EXPECT_THAT([] { check_comparison_size(100, 1, 10, 200'000); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("give fewer vnodes")));
  EXPECT_THAT([] { check_comparison_size(10, 3, 10'000'000, 160); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  HasSubstr("30000000 key lookups per strategy, more than 20000000")));
  EXPECT_NO_THROW(check_comparison_size(10, 0, 20'000'000, 160));  // no change: one pass
}

}  // namespace
}  // namespace ringbloom
