// Tests of hash_ring: the placement rules, the seed lessons' figures, errors.
//
// Expected figures marked "python" come from tests/placement/ring_golden.py, an
// independent re-implementation in Python with hashlib (run it to check).
#include "ringbloom/placement/ring.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/placement/jump.hpp"

namespace ringbloom {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> numbered(int n) {
  std::vector<std::string> names;
  for (int j = 1; j <= n; ++j) names.push_back("n" + std::to_string(j));
  return names;
}

std::vector<std::string> lesson_keys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back("key-" + std::to_string(i));
  return keys;
}

hash_ring make_ring(int nodes, std::uint32_t vnodes, hash_kind hash) {
  hash_ring ring({vnodes, hash, ring_scheme::native});
  for (const auto& name : numbered(nodes)) ring.add_node(name);
  return ring;
}

// The owner by the definition, with no index: first point >= h, else the
// first point.
std::string reference_owner(const hash_ring& ring, std::uint64_t h) {
  const auto positions = ring.positions();
  auto it = std::lower_bound(positions.begin(), positions.end(), h);
  const std::size_t i =
      it == positions.end() ? 0 : static_cast<std::size_t>(it - positions.begin());
  return ring.nodes()[ring.point_owners()[i]].name;
}

// --- the German exercise, through explicit tokens ----------------------------

std::string owners_of(const hash_ring& ring, const std::vector<std::uint64_t>& hashes) {
  std::string out;
  for (const auto h : hashes) out += ring.node_for_hash(h);
  return out;
}

TEST(RingLesson, GermanExerciseWithTokens) {
  hash_ring ring;
  ring.add_node_at("X", std::vector<std::uint64_t>{20});
  ring.add_node_at("Y", std::vector<std::uint64_t>{55});
  ring.add_node_at("Z", std::vector<std::uint64_t>{90});
  const std::vector<std::uint64_t> keys = {3, 21, 56, 91, 99, 54};
  const std::string before = owners_of(ring, keys);
  EXPECT_EQ(before, "XYZXXY");
  ring.remove_node("Y");
  const std::string after = owners_of(ring, keys);
  EXPECT_EQ(after, "XZZXXZ");
  int moved = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) moved += before[i] != after[i] ? 1 : 0;
  EXPECT_EQ(moved, 2);
}

TEST(RingLesson, GermanAddExample) {
  // A at 10, B at 45, C at 80, then D at 60: only key 47 moves, to D. (The
  // lesson uses "first point > h"; no key sits on a point, so ">=" agrees.)
  hash_ring ring;
  ring.add_node_at("A", std::vector<std::uint64_t>{10});
  ring.add_node_at("B", std::vector<std::uint64_t>{45});
  ring.add_node_at("C", std::vector<std::uint64_t>{80});
  const std::vector<std::uint64_t> keys = {5, 30, 47, 70, 90};
  EXPECT_EQ(owners_of(ring, keys), "ABCCA");
  ring.add_node_at("D", std::vector<std::uint64_t>{60});
  EXPECT_EQ(owners_of(ring, keys), "ABDCA");
}

// --- the seed figures over key-0..key-19999 ----------------------------------

TEST(RingLesson, ModuloMovesAlmostEverything) {
  const auto keys = lesson_keys();
  // python: 15918 of 20000 (79.59%) for 4 -> 5, 18164 (90.82%) for 10 -> 11.
  const modulo_placement m4(numbered(4), hash_kind::sha256);
  const modulo_placement m5(numbered(5), hash_kind::sha256);
  EXPECT_EQ(count_moved(m4, m5, keys).moved, 15918u);
  const modulo_placement m10(numbered(10), hash_kind::sha256);
  const modulo_placement m11(numbered(11), hash_kind::sha256);
  const auto moved = count_moved(m10, m11, keys);
  EXPECT_EQ(moved.moved, 18164u);
  EXPECT_NEAR(moved.moved_fraction(), 0.9082, 1e-12);
}

TEST(RingLesson, RingMovesAboutOneInNPlusOneAndOnlyToTheNewNode) {
  const auto keys = lesson_keys();
  // python: 3171 keys move for 4 -> 5, 1738 for 10 -> 11, all to the new node.
  auto before = make_ring(4, 100, hash_kind::sha256);
  auto after = before;
  after.add_node("n5");
  const auto m45 = count_moved(before, after, keys);
  EXPECT_EQ(m45.moved, 3171u);
  EXPECT_EQ(m45.moved_to, (std::map<std::string, std::uint64_t>{{"n5", 3171}}));

  auto before10 = make_ring(10, 100, hash_kind::sha256);
  auto after10 = before10;
  after10.add_node("n11");
  const auto m1011 = count_moved(before10, after10, keys);
  EXPECT_EQ(m1011.moved, 1738u);
  EXPECT_EQ(m1011.moved_to.size(), 1u);
  EXPECT_EQ(m1011.moved_to.begin()->first, "n11");
}

TEST(RingLesson, VirtualNodesEvenTheLoad) {
  const auto keys = lesson_keys();
  // python: 1 vnode: 6457/1456/7413/4674 (32.3/7.3/37.1/23.4 %);
  //         100 vnodes: 5173/4901/5156/4770 (25.9/24.5/25.8/23.9 %).
  const auto one = load(make_ring(4, 1, hash_kind::sha256), keys);
  EXPECT_THAT(one.counts, ElementsAre(6457u, 1456u, 7413u, 4674u));
  const auto hundred = load(make_ring(4, 100, hash_kind::sha256), keys);
  EXPECT_THAT(hundred.counts, ElementsAre(5173u, 4901u, 5156u, 4770u));
  EXPECT_NEAR(one.max_minus_min, (7413.0 - 1456.0) / 20000.0, 1e-12);
  EXPECT_NEAR(hundred.max_minus_min, (5173.0 - 4770.0) / 20000.0, 1e-12);
  EXPECT_NEAR(hundred.peak_to_average, 5173.0 / 5000.0, 1e-12);
}

TEST(RingLesson, Poly31PutsShortKeysOnOneNode) {
  // lab11's hash: "key-i" hashes to less than 31^9, far below every point
  // but the smallest, so every key lands on one node (python agrees: all
  // 20000 on n1, and adding n5 moves none). docs/ring.md explains.
  const auto keys = lesson_keys();
  const auto report = load(make_ring(4, 100, hash_kind::poly31), keys);
  EXPECT_THAT(report.counts, ElementsAre(20000u, 0u, 0u, 0u));
  auto after = make_ring(4, 100, hash_kind::poly31);
  after.add_node("n5");
  EXPECT_EQ(count_moved(make_ring(4, 100, hash_kind::poly31), after, keys).moved, 0u);
}

TEST(RingRules, PointsAreHashesOfNameHashIndex) {
  // python: sha256 of "n1#0".."n4#0", first 8 bytes big-endian.
  const auto ring = make_ring(4, 1, hash_kind::sha256);
  EXPECT_THAT(std::vector<std::uint64_t>(ring.positions().begin(), ring.positions().end()),
              ElementsAre(3939278377548038660u, 5283742421586394684u, 9620257731839518978u,
                          16443467684566196102u));
  std::vector<std::string> owners;
  for (const auto id : ring.point_owners()) owners.push_back(ring.nodes()[id].name);
  EXPECT_THAT(owners, ElementsAre("n1", "n2", "n4", "n3"));
}

TEST(RingRules, Poly31PointsAreSaltedWithTheReplicaNumber) {
  // python: hash_str("n1#7", salt=7) == 17159990183290127.
  hash_ring ring({8, hash_kind::poly31, ring_scheme::native});
  ring.add_node("n1");
  const auto positions = ring.positions();
  EXPECT_NE(std::find(positions.begin(), positions.end(), 17159990183290127u), positions.end());
  EXPECT_EQ(ring.key_hash("key-1"), poly31("key-1", 0));
}

TEST(RingRules, KeyBelongsToFirstPointAtOrAfterItsHashWrapping) {
  hash_ring ring;
  ring.add_node_at("a", std::vector<std::uint64_t>{100});
  ring.add_node_at("b", std::vector<std::uint64_t>{200});
  EXPECT_EQ(ring.node_for_hash(0), "a");
  EXPECT_EQ(ring.node_for_hash(100), "a");  // equal counts as at-or-after
  EXPECT_EQ(ring.node_for_hash(101), "b");
  EXPECT_EQ(ring.node_for_hash(200), "b");
  EXPECT_EQ(ring.node_for_hash(201), "a");  // past the last point: wrap
  EXPECT_EQ(ring.node_for_hash(~std::uint64_t{0}), "a");
}

TEST(RingRules, TiesAreOrderedByNameNotByInsertion) {
  hash_ring one;
  one.add_node_at("b", std::vector<std::uint64_t>{50});
  one.add_node_at("a", std::vector<std::uint64_t>{50});
  hash_ring two;
  two.add_node_at("a", std::vector<std::uint64_t>{50});
  two.add_node_at("b", std::vector<std::uint64_t>{50});
  EXPECT_EQ(one.node_for_hash(10), "a");
  EXPECT_EQ(two.node_for_hash(10), "a");
  one.remove_node("a");
  EXPECT_EQ(one.node_for_hash(10), "b");
}

TEST(RingRules, PlacementDoesNotDependOnInsertionOrder) {
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) names.push_back("server-" + std::to_string(i));
  hash_ring forward({50, hash_kind::xxh3, ring_scheme::native});
  for (const auto& n : names) forward.add_node(n, 1 + static_cast<std::uint32_t>(n.size() % 3));
  std::mt19937 shuffle_rng(7);
  std::shuffle(names.begin(), names.end(), shuffle_rng);
  hash_ring shuffled({50, hash_kind::xxh3, ring_scheme::native});
  for (const auto& n : names) shuffled.add_node(n, 1 + static_cast<std::uint32_t>(n.size() % 3));
  ASSERT_EQ(forward.point_count(), shuffled.point_count());
  EXPECT_TRUE(std::equal(forward.positions().begin(), forward.positions().end(),
                         shuffled.positions().begin()));
  for (std::size_t i = 0; i < forward.point_count(); ++i) {
    ASSERT_EQ(forward.nodes()[forward.point_owners()[i]].name,
              shuffled.nodes()[shuffled.point_owners()[i]].name);
  }
}

TEST(RingRules, BulkAddEqualsOneByOne) {
  std::vector<ring_node> batch;
  hash_ring one_by_one({100, hash_kind::xxh3, ring_scheme::native});
  for (int i = 0; i < 60; ++i) {
    const std::string name = "node-" + std::to_string((i * 37) % 60);
    const auto weight = static_cast<std::uint32_t>(1 + i % 3);
    batch.push_back({name, weight, {}, 0});
    one_by_one.add_node(name, weight);
  }
  // Ties inside one batch and against nodes already there.
  batch.push_back({"tie-b", 1, {77, 1000}, 0});
  batch.push_back({"tie-a", 1, {77}, 0});
  one_by_one.add_node_at("tie-b", std::vector<std::uint64_t>{77, 1000});
  one_by_one.add_node_at("tie-a", std::vector<std::uint64_t>{77});
  hash_ring bulk({100, hash_kind::xxh3, ring_scheme::native});
  bulk.add_nodes(batch);  // > 2048 points: the radix sort path
  ASSERT_EQ(bulk.point_count(), one_by_one.point_count());
  EXPECT_EQ(bulk.node_for_hash(50), "tie-a");
  for (std::size_t i = 0; i < bulk.point_count(); ++i) {
    ASSERT_EQ(bulk.positions()[i], one_by_one.positions()[i]);
    ASSERT_EQ(bulk.nodes()[bulk.point_owners()[i]].name,
              one_by_one.nodes()[one_by_one.point_owners()[i]].name);
  }
  hash_ring later = bulk;
  later.add_nodes(std::vector<ring_node>{{"tie-0", 1, {77}, 0}});
  EXPECT_EQ(later.node_for_hash(50), "tie-0");
}

TEST(RingRules, IndexedLookupAgreesWithPlainBinarySearch) {
  std::mt19937_64 rng(42);
  for (const int nodes : {1, 2, 3, 10, 100}) {
    for (const std::uint32_t vnodes : {1u, 7u, 160u}) {
      const auto ring = make_ring(nodes, vnodes, hash_kind::xxh3);
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t h = rng();
        ASSERT_EQ(ring.node_for_hash(h), reference_owner(ring, h));
      }
      // Exactly on, just before and just after every point.
      for (const std::uint64_t p : ring.positions()) {
        for (const std::uint64_t h : {p - 1, p, p + 1}) {
          ASSERT_EQ(ring.node_for_hash(h), reference_owner(ring, h));
        }
      }
    }
  }
}

TEST(RingRules, CrowdedTokensInASmallRangeStillResolve) {
  hash_ring ring;
  std::vector<std::uint64_t> tokens;
  for (std::uint64_t t = 0; t < 1000; t += 3) tokens.push_back(t);
  ring.add_node_at("low", tokens);
  ring.add_node_at("mid", std::vector<std::uint64_t>{500, 501, 502});
  ring.add_node_at("high", std::vector<std::uint64_t>{~std::uint64_t{0}});
  for (std::uint64_t h = 0; h < 1100; ++h)
    ASSERT_EQ(ring.node_for_hash(h), reference_owner(ring, h));
  EXPECT_EQ(ring.node_for_hash(1000), "high");
}

TEST(RingRules, WeightMultipliesPointsAndShare) {
  hash_ring ring({200, hash_kind::xxh3, ring_scheme::native});
  ring.add_node("light");
  ring.add_node("heavy", 3);
  EXPECT_EQ(ring.nodes()[0].points, 200u);
  EXPECT_EQ(ring.nodes()[1].points, 600u);
  EXPECT_EQ(ring.point_count(), 800u);
  // With 800 points the share's spread is a few percent: 0.75 +- 0.05.
  const auto shares = ownership(ring);
  EXPECT_NEAR(shares[1].share, 0.75, 0.05);
}

TEST(RingLesson, WeightedRingMatchesAnIndependentImplementation) {
  // python (tests/placement/ring_golden.py, "weighted ring"): a node of
  // weight w has vnodes * w points "name#0" .. "name#(vnodes*w - 1)"; nodes
  // a=1, b=2, c=3, d=4 with 40 vnodes and sha256 give 400 points.
  hash_ring ring({40, hash_kind::sha256, ring_scheme::native});
  ring.add_node("a", 1);
  ring.add_node("b", 2);
  ring.add_node("c", 3);
  ring.add_node("d", 4);
  ASSERT_EQ(ring.point_count(), 400u);
  std::map<std::string, int> counts;
  for (const auto& key : lesson_keys()) ++counts[ring.node_for(key)];
  EXPECT_EQ(counts,
            (std::map<std::string, int>{{"a", 2567}, {"b", 3529}, {"c", 5554}, {"d", 8350}}));
  std::string first;
  for (int i = 0; i < 12; ++i) first += ring.node_for("key-" + std::to_string(i));
  EXPECT_EQ(first, "bcdcbdbddcca");
  // Exact arcs / 2^64, rounded to 12 digits by the script.
  const auto shares = ownership(ring);
  EXPECT_NEAR(shares[0].share, 0.122492092189, 1e-11);
  EXPECT_NEAR(shares[1].share, 0.180275960488, 1e-11);
  EXPECT_NEAR(shares[2].share, 0.286886623071, 1e-11);
  EXPECT_NEAR(shares[3].share, 0.410345324253, 1e-11);
}

TEST(RingRules, AddingANodeMovesKeysOnlyToIt) {
  auto before = make_ring(20, 100, hash_kind::xxh3);
  auto after = before;
  after.add_node("newcomer", 2);
  std::vector<std::string> keys;
  for (int i = 0; i < 50000; ++i) keys.push_back("user:" + std::to_string(i));
  const auto moved = count_moved(before, after, keys);
  ASSERT_EQ(moved.moved_to.size(), 1u);
  EXPECT_EQ(moved.moved_to.begin()->first, "newcomer");
  // Expected 2/22 = 9.1%; with 200 of 2200 points the spread is about 1%.
  EXPECT_NEAR(moved.moved_fraction(), 2.0 / 22.0, 0.02);
  // Removing it again restores the old ring exactly.
  after.remove_node("newcomer");
  EXPECT_TRUE(std::equal(before.positions().begin(), before.positions().end(),
                         after.positions().begin(), after.positions().end()));
  EXPECT_EQ(count_moved(before, after, keys).moved, 0u);
}

TEST(RingRules, RemovingANodeMovesOnlyItsKeys) {
  auto before = make_ring(8, 100, hash_kind::xxh3);
  auto after = before;
  after.remove_node("n3");
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back("k" + std::to_string(i));
  const auto moved = count_moved(before, after, keys);
  EXPECT_EQ(moved.moved_from.size(), 1u);
  EXPECT_EQ(moved.moved_from.begin()->first, "n3");
  EXPECT_EQ(moved.moved, load(before, keys).counts[2]);
}

TEST(RingRules, NodesForWalksClockwiseOverDistinctNodes) {
  hash_ring ring;
  ring.add_node_at("A", std::vector<std::uint64_t>{10, 40});
  ring.add_node_at("B", std::vector<std::uint64_t>{20});
  ring.add_node_at("C", std::vector<std::uint64_t>{30});
  EXPECT_THAT(ring.nodes_for_hash(15, 3), ElementsAre("B", "C", "A"));
  EXPECT_THAT(ring.nodes_for_hash(35, 2), ElementsAre("A", "B"));
  EXPECT_THAT(ring.nodes_for_hash(41, 5), ElementsAre("A", "B", "C"));  // fewer nodes than n
  const auto big = make_ring(10, 100, hash_kind::xxh3);
  for (int i = 0; i < 200; ++i) {
    const std::string key = "key-" + std::to_string(i);
    const auto replicas = big.nodes_for(key, 3);
    ASSERT_EQ(replicas.size(), 3u);
    EXPECT_EQ(replicas[0], big.node_for(key));
    EXPECT_NE(replicas[0], replicas[1]);
    EXPECT_NE(replicas[1], replicas[2]);
    EXPECT_NE(replicas[0], replicas[2]);
  }
}

TEST(RingRules, KeyHashIsTheNamedHash) {
  const auto ring = make_ring(2, 10, hash_kind::sha256);
  EXPECT_EQ(ring.key_hash("anna"), sha256_64("anna"));
  EXPECT_EQ(ring.node_for("anna"), ring.node_for_hash(sha256_64("anna")));
  EXPECT_EQ(make_ring(2, 10, hash_kind::xxh3).key_hash("anna"), xxh3_64("anna"));
}

TEST(RingRules, MemoryPerPointIsAtMost24Bytes) {
  const auto ring = make_ring(100, 160, hash_kind::xxh3);
  EXPECT_EQ(ring.point_count(), 16000u);
  EXPECT_LE(ring.lookup_bytes(), 24u * ring.point_count());
  EXPECT_GE(ring.lookup_bytes(), 12u * ring.point_count());
  EXPECT_GT(ring.memory_bytes(), ring.lookup_bytes());
}

TEST(RingRules, SchemeNames) {
  EXPECT_EQ(scheme_name(ring_scheme::native), "ring");
  EXPECT_EQ(scheme_name(ring_scheme::ketama), "ketama");
  EXPECT_EQ(parse_scheme("ketama"), ring_scheme::ketama);
  EXPECT_FALSE(find_scheme("Ring").has_value());
  try {
    (void)parse_scheme("maglev");
    FAIL() << "parse_scheme accepted an unknown scheme";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'ring' or 'ketama'"));
  }
}

// --- errors leave the ring unchanged -----------------------------------------

struct ring_state {
  std::vector<std::uint64_t> positions;
  std::vector<std::uint32_t> owners;
  std::vector<std::string> names;
  friend bool operator==(const ring_state&, const ring_state&) = default;
};

ring_state state_of(const hash_ring& ring) {
  ring_state s{{ring.positions().begin(), ring.positions().end()},
               {ring.point_owners().begin(), ring.point_owners().end()},
               {}};
  for (const auto& n : ring.nodes()) s.names.push_back(n.name);
  return s;
}

template <class F>
void expect_refused(hash_ring& ring, F&& call, const std::string& message_part) {
  const ring_state before = state_of(ring);
  try {
    call(ring);
    ADD_FAILURE() << "expected std::invalid_argument mentioning: " << message_part;
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr(message_part));
  }
  EXPECT_EQ(state_of(ring), before) << "the ring changed although the call failed";
}

TEST(RingErrors, RefusedCallsLeaveTheRingUnchanged) {
  auto ring = make_ring(3, 10, hash_kind::xxh3);
  expect_refused(
      ring, [](hash_ring& r) { r.add_node("n2"); }, "already on the ring");
  expect_refused(
      ring, [](hash_ring& r) { r.add_node_at("n1", std::vector<std::uint64_t>{5}); },
      "already on the ring");
  expect_refused(
      ring, [](hash_ring& r) { r.remove_node("n9"); }, "is not on the ring");
  expect_refused(
      ring, [](hash_ring& r) { r.add_node("n4", 0); }, "weight 0");
  expect_refused(
      ring, [](hash_ring& r) { r.add_node(""); }, "must not be empty");
  expect_refused(
      ring, [](hash_ring& r) { (void)r.nodes_for("k", 0); }, "n >= 1");
  expect_refused(
      ring, [](hash_ring& r) { r.add_node_at("n5", {}); }, "no tokens");
  expect_refused(
      ring, [](hash_ring& r) { r.add_node("n6", 1u << 24); }, "more than the limit");
}

TEST(RingErrors, EmptyRingAndBadOptions) {
  hash_ring empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_THROW((void)empty.node_for("k"), std::invalid_argument);
  EXPECT_THROW((void)empty.nodes_for("k", 1), std::invalid_argument);
  try {
    (void)empty.node_for_hash(1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("add a node before looking up"));
  }
  EXPECT_THROW(hash_ring({0, hash_kind::xxh3, ring_scheme::native}), std::invalid_argument);
  EXPECT_THROW(hash_ring({100, hash_kind::xxh3, ring_scheme::ketama}), std::invalid_argument);
  hash_ring ketama(ring_options::ketama());
  expect_refused(
      ketama, [](hash_ring& r) { r.add_node_at("h:1", std::vector<std::uint64_t>{1}); },
      "explicit tokens need the native ring scheme");
  expect_refused(
      ketama, [](hash_ring& r) { r.add_node("host:0"); }, "port in 1..65535");
  expect_refused(
      ketama, [](hash_ring& r) { r.add_node("host:http"); }, "host:port");
}

// --- jump consistent hash ----------------------------------------------------

TEST(Jump, MatchesThePublishedAlgorithm) {
  // python (tests/placement/ring_golden.py): the paper's loop.
  EXPECT_EQ(jump_hash(0, 1), 0u);
  EXPECT_EQ(jump_hash(1, 10), 6u);
  EXPECT_EQ(jump_hash(0xDEADBEEF, 100), 87u);
  EXPECT_EQ(jump_hash(~std::uint64_t{0}, 1000), 313u);
  EXPECT_EQ(jump_hash(123456789, 7), 0u);
  EXPECT_THROW((void)jump_hash(1, 0), std::invalid_argument);
}

TEST(Jump, GrowingMovesKeysOnlyToTheNewBucket) {
  std::mt19937_64 rng(3);
  int moved = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t key = rng();
    const auto a = jump_hash(key, 10);
    const auto b = jump_hash(key, 11);
    if (a != b) {
      ASSERT_EQ(b, 10u);
      ++moved;
    }
  }
  // Expected 1/11 = 9.09%; binomial sd at 100000 keys is 0.09%.
  EXPECT_NEAR(moved / 100000.0, 1.0 / 11.0, 0.005);
}

}  // namespace
}  // namespace ringbloom
