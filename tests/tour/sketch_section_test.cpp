// Section 7 of the tour: the German lesson's claims about HyperLogLog and
// Count-Min, with Top-K and the cuckoo filter, checked on the quick sizes
// (deterministic: the same numbers on every run).
#include "ringbloom/tour/sketch_section.hpp"

#include <gtest/gtest.h>

namespace ringbloom::tour {
namespace {

TEST(SketchSection, TheLessonsClaimsHold) {
  const sketch_section s = run_sketch_section(sketch_options::quick());
  // HyperLogLog: errors in both directions, near 1.04/sqrt(m). With 16
  // sketches the RSE itself varies by about 18%, so the bound is 1.6 x.
  ASSERT_EQ(s.hll.points.size(), 4u);
  for (const auto& p : s.hll.points) {
    EXPECT_GT(p.under, 0u) << p.n;
    EXPECT_GT(p.over, 0u) << p.n;
    EXPECT_LE(p.rse, 1.6 * s.hll.expected_rse) << p.n;
    std::uint32_t total = 0;
    for (const auto c : p.histogram) total += c;
    EXPECT_EQ(total, p.sketches);
  }
  // Count-Min: never under; conservative closer; within eps x N here.
  ASSERT_EQ(s.cms.rows.size(), 2u);
  for (const auto& r : s.cms.rows) {
    EXPECT_EQ(r.under, 0u);
    EXPECT_EQ(r.beyond_bound, 0u);
  }
  EXPECT_LT(s.cms.rows[1].mean_over, s.cms.rows[0].mean_over);
  // Top-K: the wider sketches find the whole exact top 10.
  ASSERT_EQ(s.topk.rows.size(), 3u);
  EXPECT_EQ(s.topk.rows[2].found, 10u);
  // Cuckoo: the rate follows its formula and needs fewer bits than counting Bloom.
  ASSERT_EQ(s.cuckoo.rows.size(), 3u);
  for (const auto& r : s.cuckoo.rows) {
    EXPECT_NEAR(r.fpr, r.formula_fpr, 0.15 * r.formula_fpr) << r.load;
    EXPECT_LT(r.cuckoo_bits_per_item, r.counting_bloom_bits_per_item) << r.load;
  }
}

TEST(SketchSection, SameOptionsSameNumbers) {
  const auto a = run_sketch_section(sketch_options::quick());
  const auto b = run_sketch_section(sketch_options::quick());
  EXPECT_EQ(a.hll.points[2].rse, b.hll.points[2].rse);
  EXPECT_EQ(a.cms.rows[0].mean_over, b.cms.rows[0].mean_over);
  EXPECT_THROW((void)run_sketch_section(sketch_options{{}, 1, 1, 1, 1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::tour
