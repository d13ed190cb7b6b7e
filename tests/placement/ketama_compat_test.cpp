// The ketama scheme against the reference: Debian's libmemcached, which
// computes placement locally (no server, no network). Key-for-key agreement
// on 100,000 random keys (fixed seeds) over several server lists with
// weights and ports, at most 100 servers (libmemcached's Debian build aborts
// above 100).
#include <gtest/gtest.h>
#include <libmemcached/memcached.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/placement/ring.hpp"

namespace ringbloom {
namespace {

struct server {
  std::string host;
  in_port_t port;
  std::uint32_t weight;
  // The ring's name: "host" when written without a port (11211 implied),
  // else "host:port".
  std::string name;
};

struct memcached_deleter {
  void operator()(memcached_st* m) const noexcept { memcached_free(m); }
};
using memcached_ptr = std::unique_ptr<memcached_st, memcached_deleter>;

memcached_ptr make_reference(const std::vector<server>& servers) {
  memcached_ptr memc(memcached_create(nullptr));
  EXPECT_EQ(memcached_behavior_set(memc.get(), MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1),
            MEMCACHED_SUCCESS);
  for (const auto& s : servers) {
    EXPECT_EQ(memcached_server_add_with_weight(memc.get(), s.host.c_str(), s.port, s.weight),
              MEMCACHED_SUCCESS);
  }
  EXPECT_EQ(memcached_server_count(memc.get()), servers.size());
  return memc;
}

hash_ring make_ring(const std::vector<server>& servers) {
  hash_ring ring(ring_options::ketama());
  for (const auto& s : servers) ring.add_node(s.name, s.weight);
  return ring;
}

std::string random_key(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> length(1, 60);
  std::uniform_int_distribution<int> ch(33, 126);  // printable, no space: memcached keys
  std::string key(static_cast<std::size_t>(length(rng)), 'x');
  for (char& c : key) c = static_cast<char>(ch(rng));
  return key;
}

// Every key goes to the same server index in both.
void expect_agreement(const std::vector<server>& servers, std::uint64_t seed, int keys = 100000) {
  const auto memc = make_reference(servers);
  const auto ring = make_ring(servers);
  std::mt19937_64 rng(seed);
  int mismatches = 0;
  for (int i = 0; i < keys; ++i) {
    const std::string key = random_key(rng);
    const std::uint32_t expected = memcached_generate_hash(memc.get(), key.data(), key.size());
    const std::uint32_t got = ring.node_index_for_hash(ring.key_hash(key));
    if (expected != got && ++mismatches <= 5) {
      ADD_FAILURE() << "key '" << key << "': libmemcached says server " << expected << " ("
                    << servers[expected].name << "), ringbloom says " << got << " ("
                    << servers[got].name << ")";
    }
  }
  EXPECT_EQ(mismatches, 0) << "over " << keys << " keys and " << servers.size() << " servers";
}

server plain(const std::string& host, std::uint32_t weight = 1) {
  return {host, 11211, weight, host};
}
server with_port(const std::string& host, in_port_t port, std::uint32_t weight = 1) {
  return {host, port, weight, host + ":" + std::to_string(port)};
}

TEST(KetamaPeer, TwentyFiveEqualServersTheSpecial156PointsCase) {
  // 1/25 * 160 / 4 * 25 in float is 39.999996: 39 digests, 156 points each.
  // Equal-weight lists of 25, 47, 50, 55, 61, 71, 94 and 100 servers do this.
  std::vector<server> servers;
  for (int i = 0; i < 25; ++i) servers.push_back(plain("cache-" + std::to_string(i)));
  const auto ring = make_ring(servers);
  for (const auto& node : ring.nodes()) EXPECT_EQ(node.points, 156u);
  expect_agreement(servers, 1);
}

TEST(KetamaPeer, ThreeEqualServers) {
  const std::vector<server> servers = {plain("cache-a"), plain("cache-b"), plain("cache-c")};
  const auto ring = make_ring(servers);
  for (const auto& node : ring.nodes()) EXPECT_EQ(node.points, 160u);
  expect_agreement(servers, 11);
}

TEST(KetamaPeer, FourEqualServersGet160Points) {
  const std::vector<server> servers = {plain("10.0.0.1"), plain("10.0.0.2"), plain("10.0.0.3"),
                                       plain("10.0.0.4")};
  const auto ring = make_ring(servers);
  for (const auto& node : ring.nodes()) EXPECT_EQ(node.points, 160u);
  expect_agreement(servers, 2);
}

TEST(KetamaPeer, PortsAndWeights) {
  const std::vector<server> servers = {
      with_port("10.0.1.1", 11211, 1),  // written with its port, hashed as "10.0.1.1-k"
      with_port("10.0.1.2", 11212, 2),  // "10.0.1.2:11212-k"
      plain("memcache-east", 3),       with_port("memcache-west", 22122, 1),
      with_port("10.0.1.5", 11211, 5), plain("localhost", 1),
      with_port("localhost", 11213, 2)};
  expect_agreement(servers, 3);
}

TEST(KetamaPeer, OneServerTakesEverything) {
  expect_agreement({with_port("solo", 4000, 7)}, 4, 20000);
}

TEST(KetamaPeer, RandomServerListsUpTo100Servers) {
  std::mt19937_64 rng(2024);
  for (const std::size_t count : {2u, 5u, 13u, 31u, 64u, 100u}) {
    std::vector<server> servers;
    std::uniform_int_distribution<int> weight(1, 10);
    std::uniform_int_distribution<int> port(11210, 11215);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string host =
          "10." + std::to_string(i / 200) + "." + std::to_string(i % 200) + ".7";
      servers.push_back(with_port(host, static_cast<in_port_t>(port(rng)),
                                  static_cast<std::uint32_t>(weight(rng))));
    }
    SCOPED_TRACE(count);
    expect_agreement(servers, count);
  }
}

TEST(KetamaPeer, RemovingAServerMatchesAFreshList) {
  std::vector<server> servers;
  for (int i = 0; i < 12; ++i) {
    servers.push_back(with_port("node" + std::to_string(i), static_cast<in_port_t>(11300 + i),
                                static_cast<std::uint32_t>(1 + i % 4)));
  }
  auto ring = make_ring(servers);
  ring.remove_node(servers[4].name);
  servers.erase(servers.begin() + 4);
  const auto memc = make_reference(servers);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const std::string key = random_key(rng);
    ASSERT_EQ(ring.node_index_for_hash(ring.key_hash(key)),
              memcached_generate_hash(memc.get(), key.data(), key.size()))
        << key;
  }
}

}  // namespace
}  // namespace ringbloom
