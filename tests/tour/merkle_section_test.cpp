// The tour's Merkle section against trees built here from the rows (B built
// from its own rows, not by the section's incremental updates).
#include "ringbloom/tour/merkle_section.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ringbloom/merkle/merkle_tree.hpp"

namespace ringbloom::tour {
namespace {

merkle_tree build(std::uint64_t rows, unsigned depth, std::uint64_t d) {
  merkle_builder builder({.depth = depth});
  for (std::uint64_t i = 0; i < rows; ++i) {
    std::string value = "value-" + std::to_string(i);
    if (d > 0 && i % (rows / d) == 0 && i / (rows / d) < d) value += "!";
    builder.add("key-" + std::to_string(i), value);
  }
  return builder.finish();
}

TEST(MerkleSection, ExchangesMatchTreesBuiltFromTheRows) {
  merkle_tour_options o;
  o.rows = 20000;
  o.depth = 12;
  o.differences = {1, 10, 1000};
  o.depth_sweep = {4, 8, 12, 14};
  o.sweep_differences = 100;
  const merkle_section s = measure_merkle(o);
  ASSERT_EQ(s.exchanges.size(), 3u);
  const merkle_tree a = build(o.rows, 12, 0);
  for (const merkle_exchange& e : s.exchanges) {
    SCOPED_TRACE(e.differences);
    const merkle_diff d = diff(a, build(o.rows, 12, e.differences));
    EXPECT_EQ(e.digests_exchanged, d.digests_exchanged);
    EXPECT_EQ(e.differing_leaves, d.leaves.size());
    EXPECT_EQ(e.rows_to_compare, d.rows_a);
    EXPECT_EQ(e.estimate, e.differences * 12 * 2);
    EXPECT_EQ(e.rows_without_tree, o.rows);
  }
  EXPECT_EQ(s.exchanges[0].digests_exchanged, 1u + 2u * 12u);  // one difference: one path
  ASSERT_EQ(s.depth_sweep.size(), 4u);
  for (std::size_t i = 1; i < s.depth_sweep.size(); ++i) {
    EXPECT_GT(s.depth_sweep[i].digests_exchanged, s.depth_sweep[i - 1].digests_exchanged);
    EXPECT_LE(s.depth_sweep[i].rows_to_compare, s.depth_sweep[i - 1].rows_to_compare);
  }
  const merkle_tree b14 = build(o.rows, 14, 100);
  EXPECT_EQ(s.depth_sweep.back().digests_exchanged,
            diff(build(o.rows, 14, 0), b14).digests_exchanged);
  EXPECT_DOUBLE_EQ(s.depth_sweep.front().rows_per_leaf, 20000.0 / 16);
}

TEST(MerkleSection, BadOptionsAreRefused) {
  merkle_tour_options o = merkle_tour_options::quick();
  o.differences = {0};
  EXPECT_THROW((void)measure_merkle(o), std::invalid_argument);
  o = merkle_tour_options::quick();
  o.depth_sweep = {8, 4};
  EXPECT_THROW((void)measure_merkle(o), std::invalid_argument);
  o = merkle_tour_options::quick();
  o.rows = 0;
  EXPECT_THROW((void)measure_merkle(o), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::tour
