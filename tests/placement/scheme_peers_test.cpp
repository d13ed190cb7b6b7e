// Key for key against the real systems: each scheme of
// include/ringbloom/placement/schemes/ places 10,000+ keys (ASCII, Cyrillic,
// German, CJK, emoji, raw high bytes) exactly where the running system sends
// them, with weights, a server removed from the middle of the list and, where
// the system allows one, a forced point collision.
//
// The systems run on 127.0.0.1 under tests/placement/peers/peer_driver.py,
// which starts them in a temporary directory on free ports, bounds every wait
// and stops them by PID. A missing system FAILS the test (scripts/install-deps
// installs it); it never passes silently.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ringbloom/mix.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/guava.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::schemes {
namespace {

using json = nlohmann::json;

constexpr std::size_t key_count = 10000;

// Keys the four systems all carry verbatim: no space, comma, tab or control
// byte (memcached keys end at a space; HAProxy's hdr() splits at commas).
std::vector<std::string> peer_keys(std::size_t n) {
  static const char* const shapes[] = {"key-{}",
                                       "user:{}:profile",
                                       "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87-{}",  // ключ
                                       "schl\xc3\xbcssel-{}",                  // schlüssel
                                       "\xe9\x8d\xb5/{}",                      // 鍵
                                       "\xf0\x9f\x94\x91{}",                   // 🔑
                                       "{{user{}}}.cart",
                                       "raw\xff\xfe\x80-{}",
                                       "/api/v1/items/{}?q=x",
                                       "{}"};
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string shape = shapes[i % std::size(shapes)];
    keys.push_back(fmt::format(fmt::runtime(shape), i));
  }
  return keys;
}

struct peer_answer {
  json header;
  std::vector<std::pair<std::string, std::string>> rows;  // key, server
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs the driver for `system` on `keys`; fails the test (with the driver's
// own reason) if the system is missing or misbehaves.
peer_answer ask_peer(const std::string& system, const json& spec,
                     const std::vector<std::string>& keys) {
  test::temp_dir dir;
  {
    std::ofstream(dir.file("spec.json")) << spec.dump();
    std::ofstream k(dir.file("keys.txt"), std::ios::binary);
    for (const std::string& key : keys) k << key << '\n';
  }
  const std::string driver =
      std::string(RINGBLOOM_SOURCE_DIR) + "/tests/placement/peers/peer_driver.py";
  const std::string command = fmt::format(
      "timeout 150 /usr/bin/python3 '{}' {} '{}' '{}' >'{}' 2>'{}'", driver, system,
      dir.file("spec.json"), dir.file("keys.txt"), dir.file("out.txt"), dir.file("err.txt"));
  const int status = std::system(command.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  peer_answer answer;
  if (code != 0) {
    ADD_FAILURE() << "the " << system << " peer did not answer (exit " << code
                  << "); install it with scripts/install-deps. Its reason: "
                  << read_all(dir.file("err.txt"));
    return answer;
  }
  std::ifstream out(dir.file("out.txt"), std::ios::binary);
  std::string line;
  std::getline(out, line);
  answer.header = json::parse(line);
  while (std::getline(out, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    answer.rows.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  EXPECT_EQ(answer.rows.size(), keys.size())
      << "the " << system << " peer answered fewer keys than asked";
  return answer;
}

// Compares every key; returns how many keys each server got from the peer.
std::map<std::string, std::size_t> expect_same_placement(const placement& ours,
                                                         const peer_answer& peer,
                                                         std::size_t min_keys = key_count) {
  std::size_t mismatches = 0;
  std::string examples;
  std::map<std::string, std::size_t> per_server;
  for (const auto& [key, server] : peer.rows) {
    ++per_server[server];
    const std::string& mine = ours.node_for(key);
    if (mine != server) {
      if (++mismatches <= 5)
        examples += fmt::format("\n  key '{}': peer {}, ringbloom {}", key, server, mine);
    }
  }
  EXPECT_EQ(mismatches, 0u) << ours.kind_name() << ": " << mismatches << " of " << peer.rows.size()
                            << " keys placed differently:" << examples;
  EXPECT_GE(peer.rows.size(), min_keys);
  return per_server;
}

// `ringbloom ring import SYSTEM` of the configuration the peer ran with,
// then `ring lookup --ring` of every key: the command line agrees with the
// peer too.
void expect_cli_import_matches(const std::string& system,
                               const std::vector<std::string>& import_flags,
                               const peer_answer& peer, const json& config = {}) {
  test::temp_dir dir;
  std::ofstream(dir.file("config"), std::ios::binary)
      << (config.is_string()
              ? config
              : peer.header.at(system == "redis-cluster" ? "cluster_nodes" : "config"))
             .get<std::string>();
  std::vector<std::string> args = {"ring", "import",          system, dir.file("config"),
                                   "-o",   dir.file("t.json")};
  args.insert(args.end(), import_flags.begin(), import_flags.end());
  const test::cli_result imported = test::run_cli(args);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  std::string keys;
  for (const auto& row : peer.rows) keys += row.first + "\n";
  const test::cli_result looked =
      test::run_cli({"ring", "lookup", "--ring", dir.file("t.json")}, keys);
  ASSERT_EQ(looked.exit_code, 0) << looked.err;
  std::istringstream lines(looked.out);
  std::string line;
  std::size_t i = 0;
  std::size_t mismatches = 0;
  while (std::getline(lines, line) && i < peer.rows.size()) {
    if (line != peer.rows[i].first + "\t" + peer.rows[i].second) ++mismatches;
    ++i;
  }
  EXPECT_EQ(i, peer.rows.size()) << "ring lookup printed fewer lines than keys";
  EXPECT_EQ(mismatches, 0u) << "ring import " << system << " + ring lookup disagree with the peer";
  // `ring lookup --from SYSTEM FILE` reads the same file with the same importer.
  std::vector<std::string> from = {"ring", "lookup", "--from", system, dir.file("config")};
  from.insert(from.end(), import_flags.begin(), import_flags.end());
  const test::cli_result direct = test::run_cli(from, keys);
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(direct.out, looked.out) << "ring lookup --from " << system << " disagrees with --ring";
}

std::vector<std::string> header_servers(const peer_answer& peer) {
  std::vector<std::string> names;
  for (const auto& s : peer.header.at("servers")) names.push_back(s.get<std::string>());
  return names;
}

// ------------------------------------------------------------------- nginx

TEST(SchemePeers, NginxWeightsAndNonAsciiKeys) {
  const std::vector<std::uint32_t> weights = {1, 2, 1, 3, 1};
  json spec = {{"servers", json::array()}};
  for (std::uint32_t w : weights) spec["servers"].push_back({{"weight", w}});
  const peer_answer peer = ask_peer("nginx", spec, peer_keys(key_count));
  if (peer.rows.empty()) return;
  std::vector<nginx_server> servers;
  const std::vector<std::string> names = header_servers(peer);
  for (std::size_t i = 0; i < names.size(); ++i) servers.push_back({names[i], weights[i]});
  nginx_placement ours(servers);
  const auto per_server = expect_same_placement(ours, peer);
  EXPECT_EQ(per_server.size(), weights.size()) << "every server should get keys";
  // The configuration nginx ran with, imported, places every key the same.
  expect_same_placement(
      *import_nginx(peer.header.at("config").get<std::string>(), "nginx.conf", "u"), peer);
  expect_cli_import_matches("nginx", {"--upstream", "u"}, peer);

  // The same fleet with the middle server removed: nginx's points depend on
  // each server alone, so only the removed server's keys move.
  servers.erase(servers.begin() + 2);
  spec["servers"].erase(2);
  const peer_answer after = ask_peer("nginx", spec, peer_keys(key_count));
  if (after.rows.empty()) return;
  std::vector<nginx_server> renamed;
  const std::vector<std::string> names_after = header_servers(after);
  for (std::size_t i = 0; i < names_after.size(); ++i)
    renamed.push_back({names_after[i], servers[i].weight});
  expect_same_placement(nginx_placement(renamed), after);
}

TEST(SchemePeers, NginxForcedCollisionGoesToTheServerListedFirst) {
  // Servers 0 and 1 get texts whose CRC-32 registers agree, so all 160 points
  // of server 0 coincide with the first 160 of server 1: nginx keeps server
  // 0's, and server 1 (weight 2) keeps only its second 160.
  const std::vector<std::uint32_t> weights = {1, 2, 1};
  const json spec = {{"servers", {{{"weight", 1}}, {{"weight", 2}}, {{"weight", 1}}}},
                     {"collide", {0, 1}}};
  const peer_answer peer = ask_peer("nginx", spec, peer_keys(key_count));
  if (peer.rows.empty()) return;
  const std::vector<std::string> names = header_servers(peer);
  std::vector<nginx_server> servers;
  for (std::size_t i = 0; i < names.size(); ++i) servers.push_back({names[i], weights[i]});
  nginx_placement ours(servers);
  EXPECT_EQ(ours.points().size(), 4u * 160u - 160u)
      << "160 points should have collided and been dropped";
  expect_same_placement(ours, peer);
}

// ----------------------------------------------------------------- haproxy

void check_haproxy(const std::string& hash_type, haproxy_options options,
                   const std::vector<haproxy_server>& servers) {
  json spec = {{"hash", hash_type}, {"servers", json::array()}};
  for (const haproxy_server& s : servers) {
    json j = {{"name", s.name}, {"weight", s.weight}};
    if (s.id != 0) j["id"] = s.id;
    spec["servers"].push_back(j);
  }
  const peer_answer peer = ask_peer("haproxy", spec, peer_keys(key_count));
  if (peer.rows.empty()) return;
  SCOPED_TRACE("hash-type consistent " + hash_type);
  expect_same_placement(haproxy_placement(options, servers), peer);
  expect_same_placement(
      *import_haproxy(peer.header.at("config").get<std::string>(), "haproxy.cfg", "b"), peer);
}

TEST(SchemePeers, HaproxyDefaultHashWeightsAndIds) {
  // `hash-type consistent` alone: sdbm with avalanche. A weight-0 server
  // gets no key; s4's explicit id shifts the automatic ids after it.
  const std::vector<haproxy_server> servers = {{"s1", 1, 0}, {"s2", 3, 0}, {"s3", 0, 0},
                                               {"s4", 2, 3}, {"s5", 1, 0}, {"s6", 256, 0}};
  check_haproxy("", {haproxy_hash::sdbm, true}, servers);
}

TEST(SchemePeers, HaproxyMiddleServerRemovedRenumbersTheRest) {
  check_haproxy("", {haproxy_hash::sdbm, true},
                {{"s1", 1, 0}, {"s2", 1, 0}, {"s4", 1, 0}, {"s5", 2, 0}});
}

TEST(SchemePeers, HaproxyEveryHashFunction) {
  const std::vector<haproxy_server> servers = {{"a", 1, 0}, {"b", 2, 0}, {"c", 1, 0}, {"d", 1, 7}};
  check_haproxy("sdbm", {haproxy_hash::sdbm, false}, servers);
  check_haproxy("djb2", {haproxy_hash::djb2, false}, servers);
  check_haproxy("wt6 avalanche", {haproxy_hash::wt6, true}, servers);
  check_haproxy("crc32", {haproxy_hash::crc32, false}, servers);
}

// HAProxy run with the test's own defaults and backend `b` (the driver adds
// a front end and answering ports): import_config reads the same text, with
// what the backend inherits, and places every key where haproxy sent it; so
// does the command line.
void check_haproxy_config(const std::string& text, std::size_t ports, const std::string& by,
                          const std::vector<std::string>& keys, bool every_server = true) {
  const json spec = {{"raw", text}, {"ports", ports}, {"by", by}};
  const peer_answer peer = ask_peer("haproxy", spec, keys);
  if (peer.rows.empty()) return;
  config_options o;
  o.section = "b";
  const imported_config imported =
      import_config("haproxy", peer.header.at("config").get<std::string>(), "haproxy.cfg", o);
  const auto per_server = expect_same_placement(*imported.scheme, peer, keys.size());
  if (every_server) {
    EXPECT_EQ(per_server.size(), imported.scheme->node_count()) << "every server should get keys";
  }
  // The topology file keeps what a key is.
  expect_same_placement(*parse_scheme_topology(scheme_topology_json(*imported.scheme), "t.json"),
                        peer, keys.size());
  expect_cli_import_matches("haproxy", {"--backend", "b"}, peer);
}

const std::string haproxy_http_defaults =
    "  mode http\n  timeout connect 2s\n  timeout client 20s\n  timeout server 20s\n";

// Client addresses in 127.0.0.0/8 (every one is the loopback on Linux, so the
// driver connects from each).
std::vector<std::string> loopback_addresses(std::size_t n) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i)
    keys.push_back(fmt::format("127.{}.{}.{}", i * 7 % 251, (i * 37 + 11) % 256, i % 250 + 2));
  return keys;
}

TEST(SchemePeers, HaproxyBalanceSourceHashesTheAddressBytes) {
  const std::string servers =
      "  http-response set-header X-Server %[srv_name]\n"
      "  server s1 127.0.0.1:{PORT0}\n  server s2 127.0.0.1:{PORT1} weight 3\n"
      "  server s3 127.0.0.1:{PORT2} id 9\n  server s4 127.0.0.1:{PORT3}\n";
  check_haproxy_config("defaults\n" + haproxy_http_defaults +
                           "backend b\n  balance source\n  hash-type consistent\n" + servers,
                       4, "source", loopback_addresses(1000));
  // Without avalanche the folded address itself is the point on the ring
  // (the hash function is not used): every 127.0.0.0/8 address lies in the
  // same 1/256 of the ring, so one or two servers take them all.
  check_haproxy_config("defaults\n" + haproxy_http_defaults +
                           "backend b\n  balance source\n  hash-type consistent crc32\n" + servers,
                       4, "source", loopback_addresses(1000), false);
}

TEST(SchemePeers, HaproxyNamedDefaultsDefaultServerAndServerTemplate) {
  // balance, hash-type and default-server come from the named defaults; the
  // template's three servers share one address and are told apart by name.
  const std::string cfg = "defaults hashing\n" + haproxy_http_defaults +
                          "  balance hdr(X-Key)\n  hash-type consistent djb2 avalanche\n"
                          "  default-server weight 2\n"
                          "defaults plain\n" +
                          haproxy_http_defaults +
                          "backend b from hashing\n"
                          "  http-response set-header X-Server %[srv_name]\n"
                          "  server s1 127.0.0.1:{PORT0} weight 1\n"
                          "  server-template web 1-3 127.0.0.1:{PORT1}\n"
                          "  default-server weight 5\n"
                          "  server s9 127.0.0.1:{PORT2}\n";
  check_haproxy_config(cfg, 3, "header", peer_keys(key_count));
}

TEST(SchemePeers, HaproxyBalanceUriCutsAtTheQueryAndTheDepth) {
  std::vector<std::string> uris;
  for (std::size_t i = 0; i < 3000; ++i)
    uris.push_back(fmt::format("/shop/{}/item-{}/photo?v={}&id={}", i % 13, i, i % 3, i));
  const std::string servers =
      "  http-response set-header X-Server %[srv_name]\n"
      "  server s1 127.0.0.1:{PORT0}\n  server s2 127.0.0.1:{PORT1}\n"
      "  server s3 127.0.0.1:{PORT2} weight 2\n";
  for (const char* options : {"", " depth 2", " whole", " len 12"}) {
    SCOPED_TRACE(std::string("balance uri") + options);
    check_haproxy_config("defaults\n" + haproxy_http_defaults + "backend b\n  balance uri" +
                             options + "\n  hash-type consistent\n" + servers,
                         3, "uri", uris);
  }
}

// --------------------------------------------------------------- twemproxy

void check_twemproxy(twemproxy_hash hash, const json& servers_spec,
                     const std::vector<std::uint32_t>& weights) {
  const json spec = {{"hash", std::string(twemproxy_hash_name(hash))}, {"servers", servers_spec}};
  const peer_answer peer = ask_peer("twemproxy", spec, peer_keys(key_count));
  if (peer.rows.empty()) return;
  const std::vector<std::string> names = header_servers(peer);
  std::vector<twemproxy_server> servers;
  for (std::size_t i = 0; i < names.size(); ++i) servers.push_back({names[i], weights[i]});
  SCOPED_TRACE(std::string("hash: ") + std::string(twemproxy_hash_name(hash)));
  expect_same_placement(twemproxy_placement(hash, servers), peer);
  expect_cli_import_matches("twemproxy", {}, peer);
}

TEST(SchemePeers, TwemproxyNamedServersKeepTheirPortAndColon) {
  // Explicit names are hashed verbatim: ":11211" stays, "shard:a" works.
  const json servers = {{{"name", "cache-1:11211"}, {"weight", 1}},
                        {{"name", "shard:a"}, {"weight", 2}},
                        {{"name", "cache-3"}, {"weight", 1}},
                        {{"weight", 1}}};  // no name: "127.0.0.1:PORT"
  check_twemproxy(twemproxy_hash::fnv1a_64, servers, {1, 2, 1, 1});
  check_twemproxy(twemproxy_hash::md5, servers, {1, 2, 1, 1});
}

TEST(SchemePeers, TwemproxyEveryHashAndAMiddleServerRemoved) {
  const json five = {
      {{"name", "m1"}}, {{"name", "m2"}}, {{"name", "m3"}}, {{"name", "m4"}}, {{"name", "m5"}}};
  const json four = {{{"name", "m1"}}, {{"name", "m2"}}, {{"name", "m4"}}, {{"name", "m5"}}};
  check_twemproxy(twemproxy_hash::fnv1_64, five, {1, 1, 1, 1, 1});
  check_twemproxy(twemproxy_hash::fnv1a_32, five, {1, 1, 1, 1, 1});
  check_twemproxy(twemproxy_hash::fnv1_32, five, {1, 1, 1, 1, 1});
  check_twemproxy(twemproxy_hash::fnv1a_64, four, {1, 1, 1, 1});
}

TEST(SchemePeers, TwemproxyForcedCollisionsKeepNutcrackersTieOrder) {
  // nutcracker hashes "NAME-k" cut to 272 bytes, so names that agree on
  // their first 272 bytes put every point at the same positions, and a name
  // of 270 bytes ending in "-1" lands on the points k = 1, 10..19 of its
  // 268-byte stem. nutcracker sorts the servers by name (shorter first,
  // then bytes) before it builds the continuum, glibc's qsort keeps tied
  // points in that order and ketama_dispatch takes the first point >= the
  // hash: the server whose name sorts first wins every tie, wherever it is
  // listed and whatever its weight. Names
  // this long are not valid ringbloom node names, so the placement is built
  // directly rather than imported.
  const std::string stem(268, 'n');
  const std::string x = stem + "xxxxxx";  // 274 bytes
  const std::string y = stem + "xxxxyy";  // the same first 272 bytes
  const std::string part = stem + "-1";   // 270 bytes: collides with some of stem's points
  const std::vector<std::vector<std::pair<std::string, std::uint32_t>>> sets = {
      {{"c1", 1}, {x, 1}, {y, 1}, {"c4", 1}},
      {{y, 1}, {"c1", 1}, {x, 2}},
      {{x, 3}, {y, 1}, {"c3", 1}},
      {{stem, 1}, {"c2", 1}, {part, 1}},
      {{part, 2}, {stem, 1}, {"c3", 1}},
  };
  for (const twemproxy_hash hash : {twemproxy_hash::fnv1a_64, twemproxy_hash::md5}) {
    for (const auto& set : sets) {
      json servers = json::array();
      std::vector<twemproxy_server> ours;
      for (const auto& [name, weight] : set) {
        servers.push_back({{"name", name}, {"weight", weight}});
        ours.push_back({name, weight});
      }
      const json spec = {{"hash", std::string(twemproxy_hash_name(hash))}, {"servers", servers}};
      const peer_answer peer = ask_peer("twemproxy", spec, peer_keys(key_count));
      if (peer.rows.empty()) return;
      expect_same_placement(twemproxy_placement(hash, ours), peer);
    }
  }
}

// ----------------------------------------------------------- redis cluster

TEST(SchemePeers, RedisClusterSlotsAndOwnersOfAThreeMasterCluster) {
  std::vector<std::string> keys = peer_keys(key_count);
  keys.emplace_back("{}x");      // an empty tag hashes the whole key
  keys.emplace_back("x{y");      // no closing brace
  keys.emplace_back("a{b}{c}");  // the first tag only
  const peer_answer peer = ask_peer("redis-cluster", json{{"masters", 3}}, keys);
  if (peer.rows.empty()) return;
  // The slot of every key, as CLUSTER KEYSLOT says.
  const json& slots = peer.header.at("slots");
  ASSERT_EQ(slots.size(), keys.size());
  std::size_t slot_mismatches = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (redis_key_slot(keys[i]) != slots[i].get<std::uint32_t>()) ++slot_mismatches;
  }
  EXPECT_EQ(slot_mismatches, 0u);
  // The owners: the cluster was made by redis-cli from the masters in
  // order, so the even split must reproduce it.
  const redis_cluster_placement ours(redis_even_split(header_servers(peer)));
  expect_same_placement(ours, peer);
  // CLUSTER NODES as the cluster printed it, imported.
  expect_same_placement(
      *import_redis_cluster_nodes(peer.header.at("cluster_nodes").get<std::string>(),
                                  "cluster-nodes.txt"),
      peer);
  expect_cli_import_matches("redis-cluster", {}, peer);
  // CLUSTER SLOTS as redis-cli printed it, in each of its forms.
  for (const char* form : {"raw", "tty", "json"}) {
    const std::string text = peer.header.at("cluster_slots").at(form).get<std::string>();
    SCOPED_TRACE(std::string("CLUSTER SLOTS, ") + form + ":\n" + text);
    EXPECT_EQ(detect_redis_cluster_output(text),
              std::string_view(form) == "raw"   ? redis_cluster_output::slots_raw
              : std::string_view(form) == "tty" ? redis_cluster_output::slots_tty
                                                : redis_cluster_output::slots_json);
    expect_same_placement(*import_redis_cluster_slots(text, form), peer);
    expect_cli_import_matches("redis-cluster", {}, peer, text);
  }
}

// -------------------------------------------------------------- groupcache

TEST(SchemePeers, GroupcacheCollidingPointsGoToThePeerAddedLast) {
  // "x" point 10 and "0x" point 1 both hash "10x" (and 20x, 30x, 40x): the
  // peer added last ("x") owns those points.
  const std::vector<std::string> peers = {"0x",
                                          "http://10.0.0.1:8080",
                                          "http://10.0.0.2:8080",
                                          "http://10.0.0.3:8080",
                                          "http://10.0.0.4:8080",
                                          "x"};
  const peer_answer peer =
      ask_peer("groupcache", json{{"replicas", 50}, {"peers", peers}}, peer_keys(key_count));
  if (peer.rows.empty()) return;
  const groupcache_placement ours(50, peers);
  EXPECT_EQ(ours.points().size(), peers.size() * 50 - 4) << "four points should have collided";
  expect_same_placement(ours, peer);
  // A peer removed from the middle: groupcache builds a new Map.
  std::vector<std::string> fewer = peers;
  fewer.erase(fewer.begin() + 2);
  const peer_answer after =
      ask_peer("groupcache", json{{"replicas", 7}, {"peers", fewer}}, peer_keys(key_count));
  if (after.rows.empty()) return;
  expect_same_placement(groupcache_placement(7, fewer), after);
}

// ------------------------------------------------------------------- guava

std::vector<std::string> utf8_keys(std::size_t n) {
  // Java reads keys as UTF-8 text: leave out the invalid byte strings.
  std::vector<std::string> keys;
  for (std::string& k : peer_keys(n + n / 5)) {
    if (k.rfind("raw", 0) != 0 && keys.size() < n) keys.push_back(std::move(k));
  }
  return keys;
}

TEST(SchemePeers, GuavaConsistentHashOfMurmur3) {
  for (const std::uint32_t buckets : {10u, 1000u}) {
    const peer_answer peer = ask_peer("guava", json{{"buckets", buckets}}, utf8_keys(key_count));
    if (peer.rows.empty()) return;
    SCOPED_TRACE(fmt::format("{} buckets", buckets));
    expect_same_placement(guava_placement(buckets), peer);
  }
}

// --------------------------------------------------------------- cassandra

std::vector<cassandra_node> cassandra_fleet(std::size_t vnodes) {
  // Six nodes in two data centres (racks r1..r3 and r1..r2), vnode tokens
  // from a fixed splitmix64 sequence.
  std::uint64_t state = 20240601;
  const auto next = [&] { return static_cast<std::int64_t>(splitmix64_next(state)); };
  std::vector<cassandra_node> nodes = {
      {"10.0.1.1", "dc1", "r1", {}}, {"10.0.1.2", "dc1", "r2", {}}, {"10.0.1.3", "dc1", "r3", {}},
      {"10.0.1.4", "dc1", "r1", {}}, {"10.0.2.1", "dc2", "r1", {}}, {"10.0.2.2", "dc2", "r2", {}}};
  for (auto& n : nodes) {
    for (std::size_t i = 0; i < vnodes; ++i) n.tokens.push_back(next());
  }
  return nodes;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

TEST(SchemePeers, CassandraTokensOwnersAndReplicasAsTheDriverComputes) {
  const std::vector<cassandra_node> fleet = cassandra_fleet(16);
  json spec = {{"rf", 3}, {"dc_rf", {{"dc1", 3}, {"dc2", 2}}}, {"nodes", json::array()}};
  for (const auto& n : fleet) {
    spec["nodes"].push_back(
        {{"name", n.address}, {"dc", n.datacenter}, {"rack", n.rack}, {"tokens", n.tokens}});
  }
  const std::vector<std::string> keys = peer_keys(key_count);
  const peer_answer peer = ask_peer("cassandra", spec, keys);
  if (peer.rows.empty()) return;
  const cassandra_placement simple(fleet, cassandra_replication::simple(3));
  const cassandra_placement nts(fleet, cassandra_replication::network({{"dc1", 3}, {"dc2", 2}}));
  const json& tokens = peer.header.at("tokens");
  std::size_t token_mismatches = 0;
  std::size_t quirk_keys = 0;  // keys whose Cassandra token differs from reference MurmurHash3
  std::size_t mismatches = 0;
  std::string examples;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (cassandra_token(keys[i]) != tokens[i].get<std::int64_t>()) ++token_mismatches;
    if (static_cast<std::uint64_t>(cassandra_token(keys[i])) != murmur3_x64_128_h1(keys[i]))
      ++quirk_keys;
    const std::string mine = simple.node_for(keys[i]) + "|" + joined(simple.replicas_for(keys[i])) +
                             "|" + joined(nts.replicas_for(keys[i]));
    if (mine != peer.rows[i].second && ++mismatches <= 5) {
      examples +=
          fmt::format("\n  '{}': driver {}, ringbloom {}", keys[i], peer.rows[i].second, mine);
    }
  }
  EXPECT_EQ(token_mismatches, 0u);
  EXPECT_GT(quirk_keys, 100u) << "the signed-tail quirk should be exercised by the non-ASCII keys";
  EXPECT_EQ(mismatches, 0u) << examples;
}

// Replication factor 0 for a data centre is legal in Cassandra and means no
// replica there (`ring import cassandra --dc-rf dc1=2,dc2=0`): the replica
// lists must be the driver's, with no dc2 node in any of them.
TEST(SchemePeers, CassandraZeroFactorDataCentreHasNoReplicasAsTheDriverComputes) {
  const std::vector<cassandra_node> fleet = cassandra_fleet(16);
  json spec = {{"rf", 1}, {"dc_rf", {{"dc1", 2}, {"dc2", 0}}}, {"nodes", json::array()}};
  for (const auto& n : fleet) {
    spec["nodes"].push_back(
        {{"name", n.address}, {"dc", n.datacenter}, {"rack", n.rack}, {"tokens", n.tokens}});
  }
  const std::vector<std::string> keys = peer_keys(2000);
  const peer_answer peer = ask_peer("cassandra", spec, keys);
  if (peer.rows.empty()) return;
  const cassandra_placement simple(fleet, cassandra_replication::simple(1));
  const cassandra_placement nts(fleet, cassandra_replication::network({{"dc1", 2}, {"dc2", 0}}));
  std::size_t mismatches = 0;
  std::size_t in_dc2 = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::vector<std::string> replicas = nts.replicas_for(keys[i]);
    EXPECT_EQ(replicas.size(), 2u) << keys[i];
    for (const auto& r : replicas) {
      for (const auto& n : fleet) in_dc2 += n.address == r && n.datacenter == "dc2" ? 1 : 0;
    }
    const std::string mine = simple.node_for(keys[i]) + "|" + joined(simple.replicas_for(keys[i])) +
                             "|" + joined(replicas);
    if (mine != peer.rows[i].second) ++mismatches;
  }
  EXPECT_EQ(in_dc2, 0u);
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace ringbloom::schemes
