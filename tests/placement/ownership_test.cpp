// placement::ownership() against placed hashes, for every strategy and every
// system scheme.
//
// Two checks, with their tolerances stated:
//   - hash_space: lookups on an even grid of 2^20 hashes over the placement's
//     own space. A node owns a union of at most P intervals (P: points or
//     table slots of the whole placement), and the grid puts floor or ceil of
//     length/step grid hashes in each interval, so the grid share of every
//     node is within P / 2^20 of the exact share. No randomness at all.
//   - expectation: 400,000 hashes from splitmix64 (seed 7); each node's
//     sampled share within 5 standard deviations sqrt(s(1-s)/n) of the
//     expected share s, plus 0.002 for the gap between the ideal random
//     function and the real hash (rendezvous's fmix64 scores, jump's LCG).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "ringbloom/placement/anchor.hpp"
#include "ringbloom/placement/bounded_load.hpp"
#include "ringbloom/placement/jump_placement.hpp"
#include "ringbloom/placement/maglev.hpp"
#include "ringbloom/placement/memento.hpp"
#include "ringbloom/placement/multiprobe.hpp"
#include "ringbloom/placement/rendezvous.hpp"
#include "ringbloom/placement/ring_placement.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/guava.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "ringbloom/placement/skeleton.hpp"
#include "ringbloom/placement/strategies.hpp"
#include "strategy_test_support.hpp"

namespace ringbloom {
namespace {

using namespace ringbloom::schemes;
using ringbloom::test::nodes_named;

constexpr int grid_bits = 20;
constexpr std::uint64_t grid = std::uint64_t{1} << grid_bits;

// Shares of the grid hashes j x 2^(bits - 20), j < 2^20, over a space of
// 2^bits values (the grid covers the low `bits` bits the placement reads).
std::vector<double> grid_shares(const placement& p, int bits) {
  std::vector<double> counts(p.node_count(), 0.0);
  for (std::uint64_t j = 0; j < grid; ++j)
    counts[p.node_index_for_hash(j << (bits - grid_bits))] += 1;
  for (double& c : counts) c /= static_cast<double>(grid);
  return counts;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<double> sampled_shares(const placement& p, std::size_t samples) {
  std::vector<double> counts(p.node_count(), 0.0);
  std::uint64_t state = 7;
  for (std::size_t i = 0; i < samples; ++i) counts[p.node_index_for_hash(splitmix64(state))] += 1;
  for (double& c : counts) c /= static_cast<double>(samples);
  return counts;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

struct exact_case {
  std::string what;
  std::function<std::unique_ptr<placement>()> make;
  int bits;               // the key-hash space: 2^bits values
  std::size_t intervals;  // P: an upper bound on the intervals of the whole space
};

std::vector<placement_node> weighted_five() {
  return {{"a", 1}, {"b", 2}, {"c", 1}, {"d", 3}, {"e", 1}};
}

std::vector<exact_case> exact_cases() {
  std::vector<exact_case> cases;
  cases.push_back(
      {"ring", [] { return std::make_unique<ring_placement>(weighted_five(), ring_options{40}); },
       64, 8 * 40});
  cases.push_back({"ketama",
                   [] {
                     return std::make_unique<ring_placement>(
                         std::vector<placement_node>{
                             {"10.0.0.1:11211", 1}, {"10.0.0.2:11211", 1}, {"10.0.0.3:11211", 1}},
                         ring_options::ketama());
                   },
                   32, 3 * 160});
  cases.push_back(
      {"maglev",
       [] { return std::make_unique<maglev_placement>(weighted_five(), maglev_options{251}); }, 64,
       251});
  cases.push_back({"nginx",
                   [] {
                     return std::make_unique<nginx_placement>(std::vector<nginx_server>{
                         {"10.0.0.1:80", 1}, {"10.0.0.2:80", 2}, {"10.0.0.3:80", 1}});
                   },
                   32, 4 * 160});
  cases.push_back({"haproxy",
                   [] {
                     return std::make_unique<haproxy_placement>(
                         haproxy_options{},
                         std::vector<haproxy_server>{{"s1", 1, 0}, {"s2", 2, 0}, {"s3", 1, 0}});
                   },
                   32,
                   2 * 4 * 16});  // HAProxy: 16 points per unit of weight; two intervals per point
  cases.push_back({"twemproxy",
                   [] {
                     return std::make_unique<twemproxy_placement>(
                         twemproxy_hash::md5,
                         std::vector<twemproxy_server>{{"a:1", 1}, {"b:1", 3}});
                   },
                   32, 4 * 160});
  cases.push_back({"groupcache",
                   [] {
                     return std::make_unique<groupcache_placement>(
                         5, std::vector<std::string>{"http://a", "http://b", "http://c"});
                   },
                   32, 15});
  cases.push_back({"envoy-ring-hash",
                   [] {
                     return std::make_unique<envoy_ring_hash_placement>(
                         std::vector<envoy_host>{{"a:1", 1}, {"b:1", 3}}, 64, 64);
                   },
                   64, 64});
  cases.push_back({"envoy-maglev",
                   [] {
                     return std::make_unique<envoy_maglev_placement>(
                         std::vector<envoy_host>{{"a:1", 1}, {"b:1", 2}, {"c:1", 1}}, 251);
                   },
                   64, 251});
  cases.push_back({"cassandra",
                   [] {
                     std::vector<cassandra_node> fleet;
                     std::uint64_t state = 3;
                     for (const char* name : {"10.0.0.1", "10.0.0.2", "10.0.0.3"}) {
                       cassandra_node n{name, "dc1", "r1", {}};
                       for (int t = 0; t < 8; ++t)
                         n.tokens.push_back(static_cast<std::int64_t>(splitmix64(state)));
                       fleet.push_back(n);
                     }
                     return std::make_unique<cassandra_placement>(fleet,
                                                                  cassandra_replication::simple(2));
                   },
                   64, 24});
  cases.push_back({"redis-cluster",
                   [] {
                     return std::make_unique<redis_cluster_placement>(std::vector<redis_master>{
                         {"a:1", {{0, 99}, {200, 16383}}}, {"b:1", {{100, 199}}}});
                   },
                   14, 0});  // the grid is every slot: exact
  return cases;
}

TEST(Ownership, HashSpaceSharesMatchAnEvenGridOfHashes) {
  for (const auto& c : exact_cases()) {
    SCOPED_TRACE(c.what);
    const auto p = c.make();
    const auto own = p->ownership();
    ASSERT_TRUE(own.has_value());
    EXPECT_EQ(own->basis, ownership_basis::hash_space);
    ASSERT_EQ(own->shares.size(), p->node_count());
    EXPECT_NEAR(sum(own->shares), 1.0, 1e-9);
    const auto got = c.bits == 14 ? [&] {
      // Redis Cluster: the 16384 slots themselves, one lookup each.
      std::vector<double> counts(p->node_count(), 0.0);
      for (std::uint64_t s = 0; s < 16384; ++s) counts[p->node_index_for_hash(s)] += 1.0 / 16384;
      return counts;
    }()
                                  : grid_shares(*p, c.bits);
    const double tolerance = static_cast<double>(c.intervals) / static_cast<double>(grid) + 1e-12;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(own->shares[i], got[i], tolerance) << p->node_name(static_cast<std::uint32_t>(i));
    }
  }
}

TEST(Ownership, MaglevCountsTheHashesOfEachSlotExactly) {
  // fast_range gives slot s the hashes [ceil(s 2^64/M), ceil((s+1) 2^64/M)):
  // with M = 3 and one node per slot the three shares differ in the last bits.
  const std::vector<placement_node> abc{{"a", 1}, {"b", 1}, {"c", 1}};
  const maglev_placement m(abc, maglev_options{3});
  const auto own = m.ownership();
  ASSERT_TRUE(own.has_value());
  for (const double s : own->shares) EXPECT_NEAR(s, 1.0 / 3, 1e-15);
  EXPECT_NEAR(sum(own->shares), 1.0, 1e-15);
}

TEST(Ownership, RedisClusterUnservedSlotsBelongToNobody) {
  const redis_cluster_placement c({{"a:1", {{0, 8191}}}});
  const auto own = c.ownership();
  ASSERT_TRUE(own.has_value());
  EXPECT_DOUBLE_EQ(own->shares[0], 0.5);
}

TEST(Ownership, HaproxyOneServerOwnsEverything) {
  // One server: every hash is its own, whatever the rule.
  const haproxy_placement one(haproxy_options{}, {{"s1", 1, 0}});
  EXPECT_DOUBLE_EQ(one.ownership()->shares[0], 1.0);
}

struct expected_case {
  std::string what;
  std::function<std::unique_ptr<placement>()> make;
};

std::vector<expected_case> expected_cases() {
  std::vector<expected_case> cases;
  cases.push_back(
      {"rendezvous", [] { return std::make_unique<rendezvous_placement>(nodes_named(10)); }});
  cases.push_back({"rendezvous weighted",
                   [] { return std::make_unique<rendezvous_placement>(weighted_five()); }});
  cases.push_back(
      {"multiprobe", [] { return std::make_unique<multiprobe_placement>(nodes_named(20)); }});
  cases.push_back(
      {"multiprobe k=3", [] {
         return std::make_unique<multiprobe_placement>(nodes_named(20), multiprobe_options{3, 0});
       }});
  cases.push_back({"anchor", [] {
                     auto p =
                         std::make_unique<anchor_placement>(nodes_named(12), anchor_options{16});
                     p->remove_node("n3");
                     p->remove_node("n7");
                     return p;
                   }});
  cases.push_back({"memento", [] {
                     auto p = std::make_unique<memento_placement>(nodes_named(12));
                     p->remove_node("n3");
                     p->remove_node("n7");
                     return p;
                   }});
  cases.push_back({"jump", [] { return std::make_unique<jump_placement>(nodes_named(7)); }});
  cases.push_back(
      {"jumpback",
       [] { return std::make_unique<jump_placement>(nodes_named(7), jump_algorithm::jump_back); }});
  cases.push_back({"guava", [] { return std::make_unique<guava_placement>(6); }});
  cases.push_back(
      {"skeleton f=2 weighted", [] {
         return std::make_unique<skeleton_placement>(weighted_five(), skeleton_options{2, 0});
       }});
  cases.push_back(
      {"skeleton f=4", [] {
         return std::make_unique<skeleton_placement>(nodes_named(70), skeleton_options{4, 0});
       }});
  return cases;
}

TEST(Ownership, ExpectedSharesMatchSampledHashes) {
  constexpr std::size_t samples = 400'000;
  for (const auto& c : expected_cases()) {
    SCOPED_TRACE(c.what);
    const auto p = c.make();
    const auto own = p->ownership();
    ASSERT_TRUE(own.has_value());
    EXPECT_EQ(own->basis, ownership_basis::expectation);
    ASSERT_EQ(own->shares.size(), p->node_count());
    EXPECT_NEAR(sum(own->shares), 1.0, 1e-9);
    const auto got = sampled_shares(*p, samples);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double s = own->shares[i];
      const double sigma = std::sqrt(s * (1 - s) / static_cast<double>(samples));
      EXPECT_NEAR(got[i], s, 5 * sigma + 0.002) << p->node_name(static_cast<std::uint32_t>(i));
    }
  }
}

TEST(Ownership, MultiprobeSharesAreUnevenLikeItsPoints) {
  // One probe: a node's share is its arc; 21 probes even it out.
  const multiprobe_placement one(nodes_named(50), multiprobe_options{1, 0});
  const multiprobe_placement many(nodes_named(50), multiprobe_options{21, 0});
  const auto spread = [](const std::vector<double>& s) {
    return *std::max_element(s.begin(), s.end()) / *std::min_element(s.begin(), s.end());
  };
  EXPECT_GT(spread(one.ownership()->shares), 3 * spread(many.ownership()->shares));
}

TEST(Ownership, BoundedReportsTheCountedLoad) {
  bounded_load_placement b(nodes_named(8), bounded_load_options{40, 0.25});
  const auto empty = b.ownership();
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->basis, ownership_basis::counted_load);
  EXPECT_EQ(sum(empty->shares), 0.0);
  const auto hashes = test::key_hashes(10'000);
  const auto owners = b.assign_all(hashes);
  std::vector<double> counted(8, 0.0);
  for (const auto o : owners) counted[o] += 1.0 / 10'000;
  const auto own = b.ownership();
  for (std::size_t i = 0; i < counted.size(); ++i) EXPECT_NEAR(own->shares[i], counted[i], 1e-12);
  // The bound: no node above (1 + eps) x the fair 1/8.
  for (const double s : own->shares) EXPECT_LE(s, 1.25 / 8 + 1.0 / 10'000);
  b.release(owners[0]);
  EXPECT_NEAR(b.ownership()->shares[owners[0]], (counted[owners[0]] * 10'000 - 1) / 9'999, 1e-12);
}

TEST(Ownership, EveryStrategyByNameAnswers) {
  for (const auto name : strategy_names()) {
    SCOPED_TRACE(std::string(name));
    const auto p = make_strategy(name, nodes_named(5));
    const auto own = p->ownership();
    ASSERT_TRUE(own.has_value());
    EXPECT_EQ(own->shares.size(), 5u);
    if (own->basis != ownership_basis::counted_load) {
      EXPECT_NEAR(sum(own->shares), 1.0, 1e-9);
    }
  }
}

TEST(Ownership, BasisNames) {
  EXPECT_EQ(ownership_basis_name(ownership_basis::hash_space), "hash_space");
  EXPECT_EQ(ownership_basis_name(ownership_basis::expectation), "expectation");
  EXPECT_EQ(ownership_basis_name(ownership_basis::counted_load), "counted_load");
}

}  // namespace
}  // namespace ringbloom
