// The Merkle tree: digests pinned, order independence, incremental updates
// equal a rebuild, diff finds exactly the changed leaves with ~2 d depth
// digests, ring ranges, and bad arguments.
#include "ringbloom/merkle/merkle_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ringbloom/merkle/merkle_ranges.hpp"
#include "ringbloom/placement/ring.hpp"

namespace ringbloom {
namespace {

using rows_t = std::vector<std::pair<std::string, std::string>>;

rows_t make_rows(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  rows_t rows;
  for (std::size_t i = 0; i < n; ++i) {
    rows.emplace_back("key-" + std::to_string(i), "value-" + std::to_string(rng()));
  }
  return rows;
}

merkle_tree build(const rows_t& rows, merkle_options options = {}) {
  merkle_builder builder(std::move(options));
  for (const auto& [k, v] : rows) builder.add(k, v);
  return builder.finish();
}

TEST(MerkleDigest, RowDigestMatchesXxhsum) {
  // printf '\x06\0\0\0\0\0\0\0user:1anna' | xxhsum -H2 -   (high half first)
  EXPECT_EQ(row_digest("user:1", "anna"), (hash128{0x0dcb975d51ecd09cu, 0x19f0d961d687b4ffu}));
  EXPECT_EQ(row_digest("a", "1"), (hash128{0x7a7279549da88445u, 0x3ceed400ae68dfcbu}));
  // The length prefix keeps the split between key and value.
  EXPECT_NE(row_digest("ab", "c"), row_digest("a", "bc"));
}

TEST(MerkleDigest, SumIsModulo2To128WithCarry) {
  const hash128 max{~0ull, ~0ull};
  EXPECT_EQ(digest_add(max, {1, 0}), (hash128{0, 0}));
  EXPECT_EQ(digest_add({~0ull, 0}, {1, 0}), (hash128{0, 1}));
  EXPECT_EQ(digest_sub({0, 1}, {1, 0}), (hash128{~0ull, 0}));
  EXPECT_EQ(digest_sub(digest_add({5, 7}, {~0ull, 3}), {~0ull, 3}), (hash128{5, 7}));
  EXPECT_EQ(digest_hex({0x1, 0xab}), "00000000000000ab0000000000000001");
}

TEST(MerkleTree, EmptyTreesAgreeAndHoldNothing) {
  merkle_tree a({.depth = 4});
  merkle_tree b({.depth = 4});
  EXPECT_EQ(a.root(), b.root());
  EXPECT_EQ(a.rows(), 0u);
  EXPECT_EQ(a.leaf_count(), 16u);
  EXPECT_EQ(a.node(4, 3), hash128{});
  EXPECT_EQ(a.node(3, 0), inner_digest({}, {}));
  EXPECT_TRUE(diff(a, b).empty());
}

TEST(MerkleTree, LeafIsTheTopBitsOfTheKeyHash) {
  merkle_tree tree({.depth = 10});
  const std::uint64_t h = xxh3_64("user:42");
  EXPECT_EQ(tree.key_position("user:42"), h);
  EXPECT_EQ(tree.leaf_of(h), h >> 54);
  const hash_range r = tree.leaf_range(tree.leaf_of(h));
  EXPECT_LE(r.first, h);
  EXPECT_GE(r.last, h);
  EXPECT_EQ(r.last - r.first + 1, std::uint64_t{1} << 54);
  EXPECT_EQ(tree.leaf_range(1023).last, ~0ull);
}

TEST(MerkleTree, OrderOfRowsDoesNotMatter) {
  rows_t rows = make_rows(5000, 1);
  const merkle_tree forward = build(rows, {.depth = 8});
  std::mt19937_64 rng(2);
  for (int round = 0; round < 3; ++round) {
    std::shuffle(rows.begin(), rows.end(), rng);
    EXPECT_EQ(build(rows, {.depth = 8}), forward);
  }
  EXPECT_EQ(forward.rows(), 5000u);
}

TEST(MerkleTree, BuilderEqualsAddingOneByOne) {
  const rows_t rows = make_rows(2000, 3);
  merkle_tree tree({.depth = 9});
  for (const auto& [k, v] : rows) tree.add(k, v);
  EXPECT_EQ(tree, build(rows, {.depth = 9}));
}

TEST(MerkleTree, IncrementalUpdatesEqualARebuild) {
  std::map<std::string, std::string> store;
  merkle_tree tree({.depth = 7});
  std::mt19937_64 rng(4);
  for (int step = 0; step < 20000; ++step) {
    const std::string key = "k" + std::to_string(rng() % 3000);
    const std::string value = "v" + std::to_string(rng() % 5);
    const auto it = store.find(key);
    if (it == store.end()) {
      tree.add(key, value);
      store[key] = value;
    } else if (rng() % 2 == 0) {
      tree.remove(key, it->second);
      store.erase(it);
    } else {
      tree.update(key, it->second, value);
      it->second = value;
    }
  }
  rows_t final_rows(store.begin(), store.end());
  const merkle_tree rebuilt = build(final_rows, {.depth = 7});
  EXPECT_EQ(tree, rebuilt);
  EXPECT_EQ(tree.rows(), store.size());
}

TEST(MerkleTree, ADuplicatedRowIsCountedNotCancelled) {
  // A sum keeps a row given twice visible; XOR would cancel it.
  merkle_tree once({.depth = 4});
  merkle_tree twice({.depth = 4});
  merkle_tree never({.depth = 4});
  once.add("k", "v");
  twice.add("k", "v");
  twice.add("k", "v");
  EXPECT_NE(twice.root(), once.root());
  EXPECT_NE(twice.root(), never.root());
  EXPECT_EQ(twice.rows(), 2u);
}

TEST(MerkleTree, CoarsenedEqualsBuildingAtThatDepth) {
  const rows_t rows = make_rows(3000, 5);
  const merkle_tree fine = build(rows, {.depth = 12});
  for (const unsigned depth : {1u, 5u, 11u, 12u}) {
    EXPECT_EQ(fine.coarsened(depth), build(rows, {.depth = depth})) << depth;
  }
  EXPECT_THROW((void)fine.coarsened(13), std::invalid_argument);
}

TEST(MerkleTree, BadArgumentsAreRefusedWithASentence) {
  EXPECT_THAT([] { merkle_tree t({.depth = 0}); }, testing::ThrowsMessage<std::invalid_argument>(
                                                       testing::HasSubstr("between 1 and 22")));
  EXPECT_THROW(merkle_tree({.depth = 23}), std::invalid_argument);
  EXPECT_THROW(merkle_tree({.depth = 4, .ranges = {{5, 9}, {2, 3}}}), std::invalid_argument);
  merkle_tree tree({.depth = 4});
  EXPECT_THAT([&] { tree.remove("k", "v"); },
              testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr("holds no rows")));
  EXPECT_THROW(tree.update("k", "v", "w"), std::invalid_argument);
  EXPECT_EQ(tree, merkle_tree({.depth = 4}));  // unchanged
  EXPECT_THROW((void)merkle_tree::from_leaves({.depth = 2}, std::vector<merkle_leaf>(3)),
               std::invalid_argument);
  std::vector<merkle_leaf> leaves(4);
  leaves[1].sum = {1, 0};  // a digest without rows
  EXPECT_THROW((void)merkle_tree::from_leaves({.depth = 2}, leaves), std::invalid_argument);
}

TEST(MerkleDiff, IncomparableTreesAreRefused) {
  const merkle_tree a({.depth = 10});
  EXPECT_THAT([&] { (void)diff(a, merkle_tree({.depth = 12})); },
              testing::ThrowsMessage<std::invalid_argument>(
                  testing::HasSubstr("cannot compare trees of depth 10 and 12")));
  EXPECT_THAT([&] { (void)diff(a, merkle_tree({.depth = 10, .key_hash = hash_kind::sha256})); },
              testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr("xxh3 and sha256")));
  EXPECT_THROW((void)diff(a, merkle_tree({.depth = 10, .ranges = {{0, 100}}})),
               std::invalid_argument);
}

// d changed rows (a third changed, a third only in a, a third only in b).
struct replicas {
  merkle_tree a;
  merkle_tree b;
  std::set<std::string> changed_keys;
};

replicas make_replicas(std::size_t n, std::size_t d, unsigned depth, std::uint64_t seed) {
  rows_t rows = make_rows(n, seed);
  rows_t rows_b = rows;
  std::set<std::string> changed;
  for (std::size_t i = 0; i < d; ++i) {
    const std::size_t at = i * (n / d);
    changed.insert(rows_b[at].first);
    if (i % 3 == 0) rows_b[at].second += "!";
    if (i % 3 == 1) rows_b[at].first += "-gone";  // a has key, b has another
    if (i % 3 == 2) rows_b[at].first = "new-" + std::to_string(i);
    if (i % 3 != 0) changed.insert(rows_b[at].first);
  }
  return {build(rows, {.depth = depth}), build(rows_b, {.depth = depth}), changed};
}

TEST(MerkleDiff, FindsExactlyTheLeavesOfTheChangedRows) {
  const replicas r = make_replicas(20000, 30, 12, 6);
  const merkle_diff d = diff(r.a, r.b);
  std::set<std::uint64_t> expected;
  for (const std::string& key : r.changed_keys) expected.insert(r.a.leaf_of(r.a.key_position(key)));
  EXPECT_EQ(std::set<std::uint64_t>(d.leaves.begin(), d.leaves.end()), expected);
  EXPECT_TRUE(std::is_sorted(d.leaves.begin(), d.leaves.end()));
  std::uint64_t rows_a = 0;
  for (const std::uint64_t leaf : d.leaves) rows_a += r.a.leaf(leaf).rows;
  EXPECT_EQ(d.rows_a, rows_a);
  for (const hash_range& range : d.ranges) {
    EXPECT_TRUE(expected.contains(r.a.leaf_of(range.first)));
    EXPECT_TRUE(expected.contains(r.a.leaf_of(range.last)));
  }
  EXPECT_TRUE(diff(r.a, r.a).empty());
  EXPECT_EQ(diff(r.a, r.a).digests_exchanged, 1u);
}

TEST(MerkleDiff, DigestsExchangedAreTwicePerDifferingInnerNode) {
  // Counted independently: the distinct ancestors of the differing leaves.
  for (const std::size_t d : {1u, 10u, 100u}) {
    const replicas r = make_replicas(100000, d, 16, 7 + d);
    const merkle_diff result = diff(r.a, r.b);
    std::set<std::pair<unsigned, std::uint64_t>> inner;
    for (std::uint64_t leaf : result.leaves) {
      for (unsigned level = 16; level-- > 0;) inner.insert({level, leaf >>= 1});
    }
    EXPECT_EQ(result.digests_exchanged, 1 + 2 * inner.size()) << d;
    // Close to d x depth x 2: at most that (plus the root); at least
    // 2 L (depth - ceil(log2 L)) for L differing leaves, since only the top
    // ceil(log2 L) levels can be shared between their paths.
    const auto leaves = static_cast<double>(result.leaves.size());
    EXPECT_LE(static_cast<double>(result.digests_exchanged), 2.0 * leaves * 16 + 1);
    EXPECT_GE(static_cast<double>(result.digests_exchanged),
              2.0 * leaves * (16 - std::ceil(std::log2(leaves))))
        << d;
  }
}

// --- ring ranges --------------------------------------------------------------------

TEST(MerkleRanges, NormalizeMergesAndSorts) {
  EXPECT_EQ(normalize_ranges({{10, 20}, {0, 4}, {5, 6}, {15, 30}}),
            (std::vector<hash_range>{{0, 6}, {10, 30}}));
  EXPECT_EQ(normalize_ranges({{0, ~0ull}, {7, 9}}), (std::vector<hash_range>{{0, ~0ull}}));
  EXPECT_THROW((void)normalize_ranges({{3, 2}}), std::invalid_argument);
  EXPECT_EQ(intersect_ranges({{0, 10}, {20, 30}}, {{5, 25}}),
            (std::vector<hash_range>{{5, 10}, {20, 25}}));
  EXPECT_TRUE(ranges_contain({{5, 10}}, 5));
  EXPECT_FALSE(ranges_contain({{5, 10}}, 11));
  EXPECT_TRUE(ranges_overlap({{5, 10}}, {0, 5}));
  EXPECT_FALSE(ranges_overlap({{5, 10}}, {11, 40}));
}

TEST(MerkleRanges, OwnedRangesAgreeWithNodesFor) {
  hash_ring ring;
  for (const char* name : {"a", "b", "c", "d", "e"}) ring.add_node(name);
  for (const std::size_t replicas : {1u, 2u, 3u}) {
    const auto owned_a = owned_ranges(ring, "a", replicas);
    const auto owned_b = owned_ranges(ring, "b", replicas);
    EXPECT_TRUE(ranges_normalized(owned_a));
    EXPECT_NEAR(ranges_fraction(owned_a), static_cast<double>(replicas) / 5, 0.12);
    const auto shared = intersect_ranges(owned_a, owned_b);
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "user:" + std::to_string(i);
      const auto nodes = ring.nodes_for(key, replicas);
      const bool on_a = std::find(nodes.begin(), nodes.end(), "a") != nodes.end();
      const bool on_b = std::find(nodes.begin(), nodes.end(), "b") != nodes.end();
      ASSERT_EQ(ranges_contain(owned_a, ring.key_hash(key)), on_a) << key;
      ASSERT_EQ(ranges_contain(shared, ring.key_hash(key)), on_a && on_b) << key;
    }
  }
  EXPECT_EQ(owned_ranges(ring, "a", 5), (std::vector<hash_range>{{0, ~0ull}}));
  EXPECT_THROW((void)owned_ranges(ring, "zz", 2), std::invalid_argument);
  EXPECT_THROW((void)owned_ranges(ring, "a", 0), std::invalid_argument);
  hash_ring ketama(ring_options::ketama());
  ketama.add_node("10.0.0.1:11211");
  EXPECT_THROW((void)owned_ranges(ketama, "10.0.0.1:11211", 1), std::invalid_argument);
}

TEST(MerkleRanges, LimitedTreesCompareOnlyTheSharedRanges) {
  hash_ring ring;
  for (const char* name : {"a", "b", "c", "d"}) ring.add_node(name);
  const auto shared = intersect_ranges(owned_ranges(ring, "a", 2), owned_ranges(ring, "b", 2));
  ASSERT_FALSE(shared.empty());
  const merkle_options options{.depth = 12, .ranges = shared};
  merkle_builder a(options);
  merkle_builder b(options);
  std::size_t kept = 0;
  std::size_t outside_changed = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = "user:" + std::to_string(i);
    const bool in_shared = ranges_contain(shared, ring.key_hash(key));
    kept += a.add(key, "v") ? 1 : 0;
    // Rows outside the shared ranges differ, but the limited trees ignore them.
    b.add(key, in_shared ? "v" : "other");
    outside_changed += in_shared ? 0 : 1;
  }
  const merkle_tree ta = a.finish();
  merkle_tree tb = b.finish();
  EXPECT_GT(outside_changed, 0u);
  EXPECT_EQ(ta.rows(), kept);
  EXPECT_TRUE(diff(ta, tb).empty());
  // A change inside is found, and its range lies in the shared ranges.
  std::string inside;
  for (int i = 0; inside.empty(); ++i) {
    const std::string key = "user:" + std::to_string(i);
    if (ranges_contain(shared, ring.key_hash(key))) inside = key;
  }
  tb.update(inside, "v", "w");
  const merkle_diff d = diff(ta, tb);
  ASSERT_EQ(d.leaves.size(), 1u);
  for (const hash_range& r : d.ranges) EXPECT_TRUE(ranges_contain(shared, r.first));
  // Fewer digests than an unlimited tree would need: nodes outside are skipped.
  EXPECT_LE(d.digests_exchanged, 1u + 2u * 12u);
}

}  // namespace
}  // namespace ringbloom
