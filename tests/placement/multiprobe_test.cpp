// Multi-probe consistent hashing: order independence, minimal movement,
// balance with 21 probes, errors.
#include "ringbloom/placement/multiprobe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ringbloom/hash.hpp"
#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using namespace ringbloom::test;

// The exact expected share of every node, from the node positions alone
// (the header: node x at xxh3_64(x, seed)), for k independent uniform probes.
//
// Let L_i be the arc from the point before node i to node i's point (as a
// fraction of the circle). A probe's clockwise distance to the next point
// exceeds d with probability S(d) = 1 - sum_j min(d, L_j). The key goes to
// node i when one of its k probes falls in arc i at distance d and the other
// k - 1 are farther:
//
//     share_i = integral_0^{L_i} k S(d)^(k-1) dd.
//
// S is linear between two consecutive arc lengths (slope -c, c the number of
// arcs longer than d), so each piece integrates in closed form to
// (S(a)^k - S(b)^k) / c.
std::vector<double> exact_shares(const std::vector<placement_node>& nodes, std::uint32_t k,
                                 std::uint64_t seed) {
  std::vector<std::uint64_t> points;
  for (const auto& node : nodes) points.push_back(xxh3_64(node.name, seed));
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return points[a] < points[b]; });
  std::vector<double> arc(points.size());
  for (std::size_t r = 0; r < order.size(); ++r) {
    const std::uint64_t before = points[order[(r + order.size() - 1) % order.size()]];
    arc[order[r]] = std::ldexp(static_cast<double>(points[order[r]] - before), -64);
  }
  std::vector<double> sorted = arc;
  std::sort(sorted.begin(), sorted.end());
  const auto share_of = [&](double length) {
    double share = 0, d = 0, s = 1;
    for (std::size_t j = 0; j < sorted.size() && d < length; ++j) {
      const double c = static_cast<double>(sorted.size() - j);  // arcs at least sorted[j]
      const double to = std::min(sorted[j], length);
      if (to <= d) continue;
      const double s_to = s - c * (to - d);
      share += (std::pow(s, k) - std::pow(s_to, k)) / c;
      s = s_to;
      d = to;
    }
    return share;
  };
  std::vector<double> shares;
  for (const double length : arc) shares.push_back(share_of(length));
  return shares;
}

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

// The placement against the algorithm's exact expectation, node by node: a
// probe hash that is not independent of the key hash or of the other probes,
// a wrong distance rule or a successor search that misses points would
// shift shares away from it. n1..n100 (seed 0) is an unlucky set: n47's
// point falls 0.001 of a mean arc after n50's, so n47 is expected to get
// 0.021 of a fair share, and the largest expected share is 1.078 x fair.
TEST(Multiprobe, EveryNodesShareIsTheAlgorithmsExactExpectation) {
  const std::size_t keys = 400000;
  const auto nodes = nodes_named(100);
  const multiprobe_placement p(nodes, {21, 0});
  const auto expected = exact_shares(nodes, 21, 0);
  double total = 0;
  for (const double e : expected) total += e;
  ASSERT_NEAR(total, 1.0, 1e-9);  // the formula itself
  auto got = counts(owners(p, key_hashes(keys)));
  double smallest = 1, largest = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const double mean = expected[i] * static_cast<double>(keys);
    // 5 standard deviations of a binomial count, plus one key.
    EXPECT_NEAR(static_cast<double>(got[nodes[i].name]), mean, 5 * std::sqrt(mean) + 1)
        << nodes[i].name;
    smallest = std::min(smallest, expected[i]);
    largest = std::max(largest, expected[i]);
  }
  EXPECT_NEAR(smallest * 100, 0.0208, 0.0005);
  EXPECT_NEAR(largest * 100, 1.078, 0.001);
  EXPECT_EQ(got["n47"], std::size_t{69});  // of 83 expected (400,000 x 0.0208%): a real sliver
}

// The paper's 1.05 for 21 probes is an average over node sets: over these
// 20 sets of 100 names the expected peak/avg averages 1.054, and 3 of the
// 20 are above 1.07. The minimum share is the algorithm's weak side: the
// median set's smallest node gets an eighth of a fair share.
TEST(Multiprobe, TwentyOneProbesAverageAPeakOf1_05OverNodeSets) {
  double sum = 0, smallest_median = 0;
  std::vector<double> smallest;
  for (int set = 0; set < 20; ++set) {
    std::vector<placement_node> nodes;
    for (int i = 0; i < 100; ++i)
      nodes.push_back({"set" + std::to_string(set) + "-node" + std::to_string(i), 1.0});
    const auto shares = exact_shares(nodes, 21, 0);
    sum += *std::max_element(shares.begin(), shares.end()) * 100;
    smallest.push_back(*std::min_element(shares.begin(), shares.end()) * 100);
  }
  std::sort(smallest.begin(), smallest.end());
  smallest_median = smallest[10];
  EXPECT_LE(sum / 20, 1.06);
  EXPECT_GT(sum / 20, 1.03);
  EXPECT_LT(smallest_median, 0.5);
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
