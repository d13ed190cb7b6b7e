// Envoy's RING_HASH and MAGLEV (envoy.hpp), pinned with the expected values
// of Envoy's own unit tests. Envoy is not packaged in Debian, so these
// vectors stand in for a running peer:
//   - test/extensions/load_balancing_policies/ring_hash/ring_hash_lb_test.cc,
//     tests Basic and BasicWithHostname: the twelve ring positions Envoy
//     prints for hosts 127.0.0.1:90..95 (and hostnames "90".."95") with
//     minimum_ring_size 12, and the hosts chosen for hashes 0, 2^64 - 1 and
//     the exact positions;
//   - test/extensions/load_balancing_policies/maglev/maglev_lb_test.cc,
//     tests Basic, BasicWithHostName and Weighted: the full tables of size 7
//     and 17 (hash i goes to entry i % size).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "ringbloom/placement/schemes/envoy.hpp"

namespace ringbloom::schemes {
namespace {

std::vector<envoy_host> hosts_90_to_95(bool hostnames) {
  std::vector<envoy_host> hosts;
  for (int port = 90; port <= 95; ++port) {
    hosts.push_back({hostnames ? std::to_string(port) : "127.0.0.1:" + std::to_string(port), 1});
  }
  return hosts;
}

TEST(EnvoyRingHash, BasicRingFromEnvoysTest) {
  const envoy_ring_hash_placement ring(hosts_90_to_95(false), 12);
  // ring_hash_lb_test.cc Basic: "port | position".
  const std::vector<std::pair<std::uint64_t, int>> expected = {
      {833437586790550860u, 94},   {928266305478181108u, 92},   {1033482794131418490u, 90},
      {3551244743356806947u, 95},  {3851675632748031481u, 93},  {5583722120771150861u, 91},
      {6311230543546372928u, 91},  {7700377290971790572u, 93},  {13144177310400110813u, 95},
      {13444792449719432967u, 92}, {15516499411664133160u, 94}, {16117243373044804889u, 90}};
  ASSERT_EQ(ring.positions().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ring.positions()[i], expected[i].first) << i;
    EXPECT_EQ(ring.node_name(ring.owners()[i]), "127.0.0.1:" + std::to_string(expected[i].second))
        << i;
  }
  // The chooseHost expectations of the same test (hosts_[4] is :94 ...).
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(0)), "127.0.0.1:94");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(std::numeric_limits<std::uint64_t>::max())),
            "127.0.0.1:94");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(3551244743356806947u)), "127.0.0.1:95");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(3551244743356806948u)), "127.0.0.1:93");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(16117243373044804880u)), "127.0.0.1:90");
}

TEST(EnvoyRingHash, BasicWithHostnameFromEnvoysTest) {
  const envoy_ring_hash_placement ring(hosts_90_to_95(true), 12);
  const std::vector<std::pair<std::uint64_t, int>> expected = {
      {1975508444536362413u, 95},  {2376063919839173711u, 95},  {2386806903309390596u, 93},
      {6749904478991551885u, 94},  {6803900775736438537u, 93},  {7225015537174310577u, 92},
      {8787465352164086522u, 90},  {11282020843382717940u, 92}, {13723418369486627818u, 91},
      {13776502110861797421u, 90}, {14338313586354474791u, 91}, {15364271037087512980u, 94}};
  ASSERT_EQ(ring.positions().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ring.positions()[i], expected[i].first) << i;
    EXPECT_EQ(ring.node_name(ring.owners()[i]), std::to_string(expected[i].second)) << i;
  }
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(0)), "95");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(7225015537174310577u)), "92");
  EXPECT_EQ(ring.node_name(ring.node_index_for_hash(6803900775736438537u)), "93");
}

TEST(EnvoyRingHash, DefaultSizesAndWeights) {
  // 3 equal hosts and minimum 1024: ceil(1/3 * 1024) / (1/3) = 1026 points.
  const envoy_ring_hash_placement ring({{"a:1", 1}, {"b:1", 1}, {"c:1", 1}});
  EXPECT_EQ(ring.positions().size(), 1026u);
  // Weights 1 and 3: the lighter host gets ceil(0.25 * 1024) = 256 points.
  const envoy_ring_hash_placement weighted({{"a:1", 1}, {"b:1", 3}});
  std::size_t a = 0;
  for (std::uint32_t o : weighted.owners()) a += o == 0 ? 1 : 0;
  EXPECT_EQ(a, 256u);
  EXPECT_EQ(weighted.positions().size(), 1024u);
  EXPECT_THROW(envoy_ring_hash_placement({{"a:1", 1}}, 20, 10), std::invalid_argument);
}

std::vector<std::string> table_names(const envoy_maglev_placement& m) {
  std::vector<std::string> names;
  for (std::uint32_t i : m.table()) names.push_back(m.node_name(i));
  return names;
}

std::vector<std::string> expected_names(const std::vector<envoy_host>& hosts,
                                        const std::vector<int>& indexes) {
  std::vector<std::string> names;
  for (int i : indexes) names.push_back(hosts[static_cast<std::size_t>(i)].name);
  return names;
}

TEST(EnvoyMaglev, BasicTablesFromEnvoysTests) {
  const auto by_address = hosts_90_to_95(false);
  EXPECT_EQ(table_names(envoy_maglev_placement(by_address, 7)),
            expected_names(by_address, {2, 4, 0, 1, 5, 0, 3}));
  const auto by_hostname = hosts_90_to_95(true);
  EXPECT_EQ(table_names(envoy_maglev_placement(by_hostname, 7)),
            expected_names(by_hostname, {2, 5, 0, 3, 4, 1, 0}));
  // Hash i goes to entry i % 7.
  const envoy_maglev_placement m(by_address, 7);
  EXPECT_EQ(m.node_name(m.node_index_for_hash(10)), "127.0.0.1:91");
}

TEST(EnvoyMaglev, WeightedTableFromEnvoysTest) {
  const std::vector<envoy_host> hosts = {{"127.0.0.1:90", 1}, {"127.0.0.1:91", 2}};
  EXPECT_EQ(table_names(envoy_maglev_placement(hosts, 17)),
            expected_names(hosts, {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1}));
}

TEST(EnvoyMaglev, RefusesTableSizesEnvoyRefuses) {
  EXPECT_THROW(envoy_maglev_placement({{"a:1", 1}}, 8), std::invalid_argument);
  EXPECT_NO_THROW(envoy_maglev_placement({{"a:1", 1}}));
  EXPECT_EQ(envoy_maglev_placement({{"a:1", 1}}).table().size(), 65537u);
}

}  // namespace
}  // namespace ringbloom::schemes
