// Tests of ringbloom/tour/tour.hpp: the tour's figures against the library and
// against the lessons' published numbers. Exact counts marked "python" were
// computed independently with Python's hashlib:
//   h = lambda s: int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big")
// over key-0..key-19999, rings with bisect_right over sorted h("n<j>#<i>").
#include "ringbloom/tour/tour.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/placement/ring.hpp"

namespace ringbloom::tour {
namespace {

const rebalance_row& row(const rebalance_section& s, hash_kind hash, std::uint32_t n) {
  for (const auto& r : s.rows) {
    if (r.hash == hash && r.from_nodes == n) return r;
  }
  throw std::logic_error("no such row");
}

const share_table& shares(const vnode_section& s, hash_kind hash, std::uint32_t vnodes) {
  for (const auto& t : s.shares) {
    if (t.hash == hash && t.vnodes == vnodes) return t;
  }
  throw std::logic_error("no such share table");
}

// Rounds a fraction to a percentage with one decimal, as the lessons print.
double percent1(double fraction) { return std::round(fraction * 1000) / 10; }

TEST(TourRebalance, ModuloMovesExactlyTheGermanLessonsKeys) {
  const rebalance_section s = measure_rebalance();  // the lesson's real size: 20000 keys
  const auto& four = row(s, hash_kind::sha256, 4);
  const auto& ten = row(s, hash_kind::sha256, 10);
  EXPECT_EQ(four.keys, 20000u);
  EXPECT_EQ(four.modulo_moved, 15918u);  // python
  EXPECT_EQ(ten.modulo_moved, 18164u);   // python
  EXPECT_DOUBLE_EQ(percent1(four.modulo_fraction()), 100 * lesson_figures::modulo_4_to_5);
  EXPECT_DOUBLE_EQ(percent1(ten.modulo_fraction()), 100 * lesson_figures::modulo_10_to_11);
}

TEST(TourRebalance, RingMovesAboutOneOverNPlusOneAllOntoTheNewNode) {
  const rebalance_section s = measure_rebalance();
  for (const auto& r : s.rows) {
    SCOPED_TRACE(std::string(hash_name(r.hash)) + " from " + std::to_string(r.from_nodes));
    EXPECT_EQ(r.ring_moved_to_new, r.ring_moved);
    EXPECT_GT(r.modulo_fraction(), 0.75);
    if (r.hash == hash_kind::poly31) continue;  // section 4: every key on one node
    // 100 points per node: the new node's share is within a factor 1.5 of
    // 1/(N+1) (the spread of shares at 100 vnodes is about 10%).
    EXPECT_GT(r.ring_fraction(), r.ideal_fraction() / 1.5);
    EXPECT_LT(r.ring_fraction(), r.ideal_fraction() * 1.5);
  }
  // lab11: about 80% against about 20% for 4 -> 5.
  EXPECT_NEAR(row(s, hash_kind::xxh3, 4).modulo_fraction(), lesson_figures::lab11_modulo, 0.02);
  EXPECT_NEAR(row(s, hash_kind::xxh3, 4).ring_fraction(), lesson_figures::lab11_ring, 0.05);
}

TEST(TourRebalance, CurveAgreesWithAnIndependentCount) {
  const tour_options o = tour_options::quick();
  const rebalance_section s = measure_rebalance(o);
  ASSERT_EQ(s.curve.size(), o.max_nodes);
  for (const auto& p : s.curve) {
    // Recount hash % N directly with sha256_64.
    std::uint64_t moved = 0;
    for (std::uint32_t i = 0; i < o.keys; ++i) {
      const std::uint64_t h = sha256_64(tour_key(i));
      moved += h % p.from_nodes != h % (p.from_nodes + 1) ? 1 : 0;
    }
    EXPECT_DOUBLE_EQ(p.modulo, static_cast<double>(moved) / o.keys);
    EXPECT_DOUBLE_EQ(p.ideal, 1.0 / (p.from_nodes + 1));
    if (p.from_nodes >= 2) {
      EXPECT_LT(p.ring, p.modulo);
    }
  }
}

TEST(TourRemoval, OnlyTheRemovedNodesKeysMoveToTheClockwiseNeighbour) {
  const auto cases = measure_removal();
  ASSERT_EQ(cases.size(), 2u);
  for (const auto& c : cases) {
    EXPECT_GT(c.keys_on_removed, 0u);
    EXPECT_EQ(c.moved, c.keys_on_removed);
    EXPECT_EQ(c.moved_from_others, 0u);
    EXPECT_EQ(c.moved_to_clockwise_neighbour, c.moved);
    EXPECT_EQ(c.moved_to.count(c.removed), 0u);
  }
  EXPECT_EQ(cases[0].vnodes, 1u);
  EXPECT_EQ(cases[0].moved_to.size(), 1u);  // one point per node: one heir
  EXPECT_EQ(cases[1].moved_to.size(), 4u);  // 100 points: every other node inherits
  // Cross-check with a ring built here.
  hash_ring ring(ring_options{1, hash_kind::sha256});
  for (const char* n : {"n1", "n2", "n3", "n4", "n5"}) ring.add_node(n);
  std::uint64_t on_n3 = 0;
  for (std::uint32_t i = 0; i < 20000; ++i) on_n3 += ring.node_for(tour_key(i)) == "n3" ? 1 : 0;
  EXPECT_EQ(cases[0].keys_on_removed, on_n3);
}

TEST(TourVnodes, SharesAreTheGermanLessons) {
  const vnode_section s = measure_vnodes(tour_options::quick());
  const auto& one = shares(s, hash_kind::sha256, 1);
  const auto& hundred = shares(s, hash_kind::sha256, 100);
  ASSERT_EQ(one.key_shares.size(), 4u);
  ASSERT_EQ(hundred.key_shares.size(), 4u);
  // python: n1..n4 key counts / 20000.
  const double py_one[] = {0.32285, 0.0728, 0.37065, 0.2337};
  const double py_hundred[] = {0.25865, 0.24505, 0.2578, 0.2385};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(one.key_shares[i], py_one[i], 1e-12) << one.nodes[i];
    EXPECT_NEAR(hundred.key_shares[i], py_hundred[i], 1e-12) << hundred.nodes[i];
  }
  // The lesson: "between 7 and 37 percent", "between 24 and 26 percent".
  EXPECT_NEAR(std::round(one.min_share() * 100), 100 * lesson_figures::share_1_vnode_low, 1e-9);
  EXPECT_NEAR(std::round(one.max_share() * 100), 100 * lesson_figures::share_1_vnode_high, 1e-9);
  EXPECT_NEAR(std::round(hundred.min_share() * 100), 100 * lesson_figures::share_100_vnodes_low,
              1e-9);
  EXPECT_NEAR(std::round(hundred.max_share() * 100), 100 * lesson_figures::share_100_vnodes_high,
              1e-9);
  // Space shares sum to 1.
  double sum = 0;
  for (double x : hundred.space_shares) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(TourVnodes, SweepTradesMemoryForBalance) {
  const tour_options o = tour_options::quick();
  const vnode_section s = measure_vnodes(o);
  ASSERT_EQ(s.sweep.size(), o.vnode_sweep.size());
  for (std::size_t i = 0; i < s.sweep.size(); ++i) {
    const auto& r = s.sweep[i];
    EXPECT_EQ(r.points, std::size_t{r.vnodes} * o.sweep_nodes);
    EXPECT_EQ(r.add_points, r.vnodes);
    EXPECT_GE(r.space_peak_to_average, 1.0);
    EXPECT_GE(r.add_donors, 1u);
    EXPECT_LE(r.add_donors, o.sweep_nodes);
    if (i > 0) {
      EXPECT_GT(r.memory_bytes, s.sweep[i - 1].memory_bytes);
    }
  }
  EXPECT_EQ(s.sweep.front().add_donors, 1u);  // one point: one donor
  EXPECT_EQ(s.sweep.back().add_donors, o.sweep_nodes);
  // 1000 points per node: within 10% of even (the spread is ~1/sqrt(1000)).
  EXPECT_LT(s.sweep.back().space_peak_to_average, 1.1);
  EXPECT_GT(s.sweep.front().space_peak_to_average, s.sweep.back().space_peak_to_average);
}

TEST(TourPoly31, ShortKeysClusterAndUnbalanceTheRing) {
  const poly31_section p = measure_poly31(tour_options::quick());
  EXPECT_EQ(p.hash_key_1, 130572514u);  // python: lab11's hash_str("key-1")
  EXPECT_EQ(p.hash_key_2 - p.hash_key_1, 1u);
  // Pairs that differ only in the last digit: 9 of every 10.
  EXPECT_EQ(p.adjacent_pairs, 18000u);
  EXPECT_LT(p.poly31_keys.occupied_arcs, 10u);
  EXPECT_GT(p.xxh3_keys.occupied_arcs, 1000u);  // 20000 keys in 1024 arcs
  EXPECT_GT(p.poly31_shares.max_share(), 0.9);
  EXPECT_LT(p.xxh3_shares.peak_to_average, 1.25);
}

TEST(TourExercises, MatchTheLessonsAnswers) {
  const auto exercises = run_token_exercises();
  ASSERT_EQ(exercises.size(), 2u);
  EXPECT_EQ(exercises[0].before, "ABCCA");
  EXPECT_EQ(exercises[0].after, "ABDCA");
  EXPECT_EQ(exercises[0].moved, 1u);
  EXPECT_EQ(exercises[1].before, "XYZXXY");
  EXPECT_EQ(exercises[1].after, "XZZXXZ");
  EXPECT_EQ(exercises[1].moved, 2u);
  for (const auto& e : exercises) {
    EXPECT_EQ(e.before, e.lesson_before);
    EXPECT_EQ(e.after, e.lesson_after);
    EXPECT_EQ(e.moved, e.lesson_moved);
  }
}

TEST(TourBloom, WalkthroughIsTheGermanLessons) {
  const bloom_walkthrough w = run_bloom_walkthrough();
  EXPECT_EQ(w.bit_string, "0001100000000001");
  ASSERT_EQ(w.probes.size(), 4u);
  // The lesson (and python): anna [4, 15], bora [3, 15], cem [5, 3], user5 [15, 3].
  const std::vector<std::vector<std::uint64_t>> expected{{4, 15}, {3, 15}, {5, 3}, {15, 3}};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(w.probes[i].positions, expected[i]);
  const bloom_probe& cem = w.probes[2];
  EXPECT_EQ(cem.item, "cem");
  EXPECT_FALSE(cem.may_contain);
  EXPECT_FALSE(cem.bits[0]);  // bit 5
  const bloom_probe& user5 = w.probes[3];
  EXPECT_FALSE(user5.added);
  EXPECT_TRUE(user5.may_contain);
  EXPECT_EQ(user5.set_by[0], (std::vector<std::string>{"anna", "bora"}));  // bit 15
  EXPECT_EQ(user5.set_by[1], (std::vector<std::string>{"bora"}));          // bit 3
}

TEST(TourBloom, ExerciseHasNoFalseNegativesAndTheFormulasRate) {
  const auto rows = run_fpr_exercise();  // the lesson's real size
  ASSERT_EQ(rows.size(), 3u);
  // python: (1 - exp(-7*1000/8000))**7
  const double formula = 0.022929748877108;
  for (const auto& e : rows) {
    SCOPED_TRACE(std::string(hash_name(e.hash)));
    EXPECT_EQ(e.items, 1000u);
    EXPECT_EQ(e.strangers, 5000u);
    EXPECT_EQ(e.false_negatives, 0u);
    EXPECT_NEAR(e.formula, formula, 1e-12);
    EXPECT_GT(e.false_positives, 0u);  // "Bloom-typical, not zero"
    // Binomial sd at 5000 probes is 0.21 points; allow 4 sd.
    EXPECT_NEAR(e.measured(), formula, 0.0085);
  }
  EXPECT_EQ(rows[0].hash, hash_kind::sha256);
  EXPECT_EQ(rows[0].false_positives, 100u);  // python, with the lesson's positionen()
}

TEST(TourBloom, FillCurveFollowsTheFormula) {
  tour_options o = tour_options::quick();
  // A million strangers per step: at half load the rate is 2.5e-4, about 250
  // false positives with a binomial sd of 16, so 4 sd is 25% of the rate
  // (5,000 strangers, the quick default, see about one, and the old bound of
  // 4 sd + 10% + 1e-3 accepted 8 times the rate there).
  o.fill_strangers = 1'000'000;
  const fill_curve c = measure_fill(o);
  ASSERT_EQ(c.points.size(), o.fill_steps.size());
  // python: the smallest m over k of ceil(-k n / log1p(-p^(1/k))), n = 2000,
  // p = 0.01 (the rule of bloom_math::classic_size_for, re-derived).
  EXPECT_EQ(c.size.bits, 19186u);
  EXPECT_EQ(c.size.hashes, 7u);
  // python: (1 - exp(-7 n / 19186))**7 at n = 1000, 2000, 4000, 6000.
  const double formula[] = {0.0002494915714054214, 0.00999977559689564, 0.15705032664746207,
                            0.4353407613239116};
  // python: the expected fill 1 - (1 - 1/19186)**(7 n), and its sd
  // sqrt(q (1 - q) / m) (the bits' negative correlation only narrows it).
  const double fill[] = {0.3057053757067255, 0.5179549746774608, 0.7676325935617925,
                         0.8879884476793615};
  const double fill_sd[] = {0.0033261, 0.0036074, 0.0030491, 0.0022769};
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const fill_point& p = c.points[i];
    SCOPED_TRACE(p.load);
    EXPECT_NEAR(p.formula, formula[i], 1e-12 * formula[i]);
    // The filter's fill is the expected one within 4 sd.
    EXPECT_NEAR(p.fill_ratio, fill[i], 4 * fill_sd[i]);
    // Given this filter, a stranger's k positions are independent and
    // uniform, so it is reported "maybe" with probability fill^k: the
    // measured rate is that within 4 binomial sd (plus 1% for the hash).
    const double given = std::pow(p.fill_ratio, 7);
    const double sd = std::sqrt(given * (1 - given) / static_cast<double>(c.strangers));
    EXPECT_NEAR(p.measured, given, 4 * sd + 0.01 * given);
    // And the formula, which averages over fills, within the spread that 4
    // fill sd allow (4 k sd / fill, relative: 30% at half load, 20% at
    // capacity), plus 4 binomial sd.
    EXPECT_NEAR(p.measured, formula[i], 4 * sd + formula[i] * 4 * 7 * fill_sd[i] / fill[i]);
  }
  for (std::size_t i = 1; i < c.points.size(); ++i) {
    EXPECT_GT(c.points[i].measured, c.points[i - 1].measured);
  }
  EXPECT_GT(c.formula_curve.size(), 10u);
}

TEST(TourBloom, FilterIsFarSmallerThanAnExactSet) {
  const auto rows = measure_memory(tour_options::quick());
  ASSERT_FALSE(rows.empty());
  for (const auto& m : rows) {
    EXPECT_GT(m.set_bytes, m.item_bytes);  // a set holds the items and more
    EXPECT_EQ(m.filter_bytes, (m.size.bits + 63) / 64 * 8);
    const double bits_per_item = static_cast<double>(m.size.bits) / static_cast<double>(m.items);
    EXPECT_NEAR(bits_per_item, 9.6, 0.2);  // classic filter at 1%
    EXPECT_GT(m.set_bytes, 20 * m.filter_bytes);
  }
}

TEST(TourOptions, RejectsImpossibleSizes) {
  tour_options o;
  o.keys = 0;
  EXPECT_THROW((void)run_tour(o), std::invalid_argument);
  o = tour_options{};
  o.vnode_sweep = {0};
  EXPECT_THROW((void)measure_vnodes(o), std::invalid_argument);
  o = tour_options{};
  o.fill_steps = {-1};
  EXPECT_THROW((void)measure_fill(o), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::tour
