// Every setting of each system's configuration that changes where a key goes
// is reproduced or refused with a sentence, never ignored: one test per row
// of the settings tables in docs/placement.md. The rows whose system Debian
// ships are also checked key for key against the running system in
// scheme_peers_test.cpp; these tests pin the rules and the messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::schemes {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

const haproxy_placement& as_haproxy(const imported_config& c) {
  return dynamic_cast<const haproxy_placement&>(*c.scheme);
}

imported_config haproxy(const std::string& text, const std::string& backend = "b") {
  config_options o;
  o.section = backend;
  return import_config("haproxy", text, "haproxy.cfg", o);
}

std::string haproxy_error(const std::string& text, const std::string& backend = "b") {
  return error_of([&] { (void)haproxy(text, backend); });
}

// ------------------------------------------------------------------ haproxy

TEST(HaproxySettings, BalanceSourceHashesTheAddressBytes) {
  const auto c = haproxy(
      "backend b\n  balance source\n  hash-type consistent\n  server s1 10.0.0.1:80\n"
      "  server s2 10.0.0.2:80\n");
  const haproxy_placement& p = as_haproxy(c);
  EXPECT_EQ(p.options().key, haproxy_key::source_address);
  // get_server_sh: the address as one big-endian word (IPv4), full_hash on top.
  EXPECT_EQ(haproxy_source_word("192.0.2.7"), 0xC0000207u);
  EXPECT_EQ(p.hash32("192.0.2.7"), haproxy_full_hash(0xC0000207u));
  // IPv6: the four words XORed.
  EXPECT_EQ(haproxy_source_word("2001:db8::1"), 0x20010db8u ^ 0u ^ 0u ^ 1u);
  EXPECT_EQ(haproxy_source_word("::ffff:192.0.2.7"), 0x0000ffffu ^ 0xC0000207u);
  EXPECT_THAT(error_of([&] { (void)p.node_for("user-42"); }),
              HasSubstr("the key 'user-42' is not an IPv4 or IPv6 address; under 'balance "
                        "source' HAProxy hashes the client's address"));
  // The topology keeps what a key is.
  const auto back = parse_scheme_topology(scheme_topology_json(p), "t.json");
  EXPECT_EQ(dynamic_cast<const haproxy_placement&>(*back).options(), p.options());
  EXPECT_EQ(back->node_for("192.0.2.7"), p.node_for("192.0.2.7"));
}

TEST(HaproxySettings, BalanceUriCutsTheUriAsHaproxyDoes) {
  haproxy_options o;
  o.key = haproxy_key::uri;
  EXPECT_EQ(haproxy_uri_part("/a/b/c?x=1", o), "/a/b/c");
  o.uri_whole = true;
  EXPECT_EQ(haproxy_uri_part("/a/b/c?x=1", o), "/a/b/c?x=1");
  o.uri_whole = false;
  o.uri_depth = 2;
  EXPECT_EQ(haproxy_uri_part("/a/b/c?x=1", o), "/a/b");
  EXPECT_EQ(haproxy_uri_part("/a?x=/y/z", o), "/a");
  o.uri_len = 3;
  EXPECT_EQ(haproxy_uri_part("/abcdef", o), "/ab");
  const auto c = haproxy(
      "backend b\n  balance uri whole depth 3 len 40\n  hash-type consistent\n"
      "  server s1 10.0.0.1:80\n  server s2 10.0.0.2:80\n");
  const haproxy_options& got = as_haproxy(c).options();
  EXPECT_EQ(got.key, haproxy_key::uri);
  EXPECT_TRUE(got.uri_whole);
  EXPECT_EQ(got.uri_depth, 3u);
  EXPECT_EQ(got.uri_len, 40u);
  EXPECT_EQ(as_haproxy(c).hash32("/a/b/c/d"), as_haproxy(c).hash32("/a/b/c"));
  EXPECT_THAT(haproxy_error("backend b\n  balance uri path-only\n  hash-type consistent\n"
                            "  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:2: 'balance uri ... path-only' is not reproduced"));
}

TEST(HaproxySettings, TextBalancesHashTheKeyBytes) {
  for (const char* balance : {"url_param id", "hash req.hdr(k)"}) {
    const auto c = haproxy(std::string("backend b\n  balance ") + balance +
                           "\n  hash-type consistent\n  server s1 10.0.0.1:80\n");
    EXPECT_EQ(as_haproxy(c).options().key, haproxy_key::bytes) << balance;
    EXPECT_EQ(c.scheme->node_for(""), "s1");
  }
  // A header or RDP cookie: bytes too, but an empty one goes round robin.
  for (const char* balance : {"hdr(X-Key)", "rdp-cookie"}) {
    const auto c = haproxy(std::string("backend b\n  balance ") + balance +
                           "\n  hash-type consistent\n  server s1 10.0.0.1:80\n");
    EXPECT_EQ(as_haproxy(c).options().key, haproxy_key::header) << balance;
    EXPECT_EQ(as_haproxy(c).hash32("k"), haproxy_placement({}, {{"s1", 1, 0}}).hash32("k"));
    EXPECT_THAT(error_of([&] { (void)c.scheme->node_for(""); }),
                HasSubstr("HAProxy balances a request whose header (or RDP cookie) is empty"));
  }
  EXPECT_THAT(haproxy_error("backend b\n  balance hdr(host) use_domain_only\n"
                            "  hash-type consistent\n  server s1 10.0.0.1:80\n"),
              HasSubstr("hashes part of the header only"));
}

TEST(HaproxySettings, NoBalanceLineIsRoundRobinAndRefused) {
  EXPECT_THAT(
      haproxy_error("backend b\n  hash-type consistent\n  server s1 10.0.0.1:80\n"),
      HasSubstr("haproxy.cfg:1: backend 'b' has no 'balance' line (nor do its defaults), so "
                "HAProxy balances round robin"));
}

TEST(HaproxySettings, BalanceInDefaultsIsInherited) {
  EXPECT_THAT(haproxy_error("defaults\n  balance roundrobin\n  hash-type consistent\n"
                            "backend b\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:2: 'balance roundrobin' places no key by hash"));
  const auto c = haproxy(
      "defaults\n  balance source\n  hash-type consistent djb2\n"
      "backend b\n  server s1 10.0.0.1:80\n  server s2 10.0.0.2:80\n");
  EXPECT_EQ(as_haproxy(c).options().key, haproxy_key::source_address);
  EXPECT_EQ(as_haproxy(c).options().function, haproxy_hash::djb2);
  // The backend's own line wins over the defaults.
  const auto own = haproxy(
      "defaults\n  balance roundrobin\nbackend b\n  balance hdr(X-Key)\n"
      "  hash-type consistent\n  server s1 10.0.0.1:80\n");
  EXPECT_EQ(as_haproxy(own).options().key, haproxy_key::header);
  // A new defaults section starts afresh: the balance above it is gone.
  EXPECT_THAT(haproxy_error("defaults\n  balance source\n  hash-type consistent\ndefaults\n"
                            "  mode http\nbackend b\n  server s1 10.0.0.1:80\n"),
              HasSubstr("does not use 'hash-type consistent'"));
}

TEST(HaproxySettings, NamedDefaultsAndFrom) {
  const std::string cfg =
      "defaults hashing\n  balance hdr(X-Key)\n  hash-type consistent wt6\n"
      "  default-server weight 3\n"
      "defaults plain\n  balance roundrobin\n  hash-type consistent\n"
      "backend web from hashing\n  server s1 10.0.0.1:80\n  server s2 10.0.0.2:80 weight 1\n"
      "backend other\n  server s1 10.0.0.1:80\n";
  const auto c = haproxy(cfg, "web");
  EXPECT_EQ(as_haproxy(c).options().function, haproxy_hash::wt6);
  EXPECT_EQ(as_haproxy(c).servers()[0].weight, 3u);
  EXPECT_EQ(as_haproxy(c).servers()[1].weight, 1u);
  // Without `from`, the last defaults section (named or not) applies.
  EXPECT_THAT(haproxy_error(cfg, "other"), HasSubstr("'balance roundrobin' places no key"));
  EXPECT_THAT(haproxy_error("backend b from nowhere\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:1: 'from nowhere' names no defaults section before it"));
  // A defaults section may itself inherit from a named one.
  const auto chained = haproxy(
      "defaults base\n  hash-type consistent crc32\n"
      "defaults web from base\n  balance url_param id\n"
      "backend b from web\n  server s1 10.0.0.1:80\n");
  EXPECT_EQ(as_haproxy(chained).options().function, haproxy_hash::crc32);
}

TEST(HaproxySettings, ServerTemplateMakesItsServers) {
  const auto c = haproxy(
      "backend b\n  balance hdr(X-Key)\n  hash-type consistent\n"
      "  server first 10.0.0.1:80\n"
      "  server-template web 3 app.example:80 weight 2\n"
      "  server-template api 5-6 api.example:80\n");
  const haproxy_placement& p = as_haproxy(c);
  ASSERT_EQ(p.servers().size(), 6u);
  const std::vector<std::string> names = {"first", "web1", "web2", "web3", "api5", "api6"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(p.servers()[i].name, names[i]);
  EXPECT_EQ(p.servers()[2].weight, 2u);
  EXPECT_EQ(p.servers()[4].weight, 1u);
  EXPECT_EQ(p.ids(), (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_THAT(c.notes[0], HasSubstr("haproxy.cfg:5: 'server-template web 3' is placed as when all "
                                    "its servers have an address"));
  EXPECT_THAT(haproxy_error("backend b\n  balance hdr(X-Key)\n  hash-type consistent\n"
                            "  server-template web 0 app.example:80\n"),
              HasSubstr("haproxy.cfg:4: '0' is not a server count or a range LOW-HIGH"));
}

TEST(HaproxySettings, DisabledAndBackupFromDefaultServerAreRefused) {
  EXPECT_THAT(haproxy_error("defaults\n  default-server disabled\n  balance source\n"
                            "  hash-type consistent\nbackend b\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:6: server 's1' is 'disabled' (from 'default-server "
                        "disabled' on line 2)"));
  EXPECT_THAT(haproxy_error("backend b\n  balance source\n  hash-type consistent\n"
                            "  default-server backup\n  server s1 10.0.0.1:80\n"),
              HasSubstr("server 's1' is 'backup'"));
  // `enabled` on the server line overrides the default.
  const auto c = haproxy(
      "defaults\n  default-server disabled\n  balance source\n  hash-type consistent\n"
      "backend b\n  server s1 10.0.0.1:80 enabled\n");
  EXPECT_EQ(c.scheme->node_count(), 1u);
  // default-server lines apply to the servers after them only.
  const auto later = haproxy(
      "backend b\n  balance source\n  hash-type consistent\n  server s1 10.0.0.1:80\n"
      "  default-server weight 5\n  server s2 10.0.0.2:80\n");
  EXPECT_EQ(as_haproxy(later).servers()[0].weight, 1u);
  EXPECT_EQ(as_haproxy(later).servers()[1].weight, 5u);
}

TEST(HaproxySettings, RunTimeSettingsAreRefusedWhereverTheyAreWritten) {
  const std::string backend = "backend b\n  server s1 10.0.0.1:80\n";
  EXPECT_THAT(haproxy_error("defaults\n  balance source\n  hash-type consistent\n"
                            "  hash-balance-factor 150\n" +
                            backend),
              HasSubstr("haproxy.cfg:4: 'hash-balance-factor' (set on line 4, in the defaults it "
                        "inherits) bounds each server's load"));
  EXPECT_THAT(haproxy_error("backend b\n  balance source\n  hash-type consistent\n"
                            "  hash-balance-factor 125\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:4: 'hash-balance-factor' bounds"));
  EXPECT_EQ(haproxy("backend b\n  balance source\n  hash-type consistent\n"
                    "  hash-balance-factor 0\n  server s1 10.0.0.1:80\n")
                .scheme->node_count(),
            1u);
  EXPECT_THAT(haproxy_error("backend b\n  balance source\n  hash-type consistent\n"
                            "  hash-preserve-affinity maxconn\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:4: 'hash-preserve-affinity maxconn' sends keys away from "
                        "full servers"));
  EXPECT_EQ(haproxy("backend b\n  balance source\n  hash-type consistent\n"
                    "  hash-preserve-affinity always\n  server s1 10.0.0.1:80\n")
                .scheme->node_count(),
            1u);
  EXPECT_THAT(haproxy_error("defaults\n  hash-key addr-port\nbackend b\n  balance source\n"
                            "  hash-type consistent\n  server s1 10.0.0.1:80\n"),
              HasSubstr("haproxy.cfg:2: 'hash-key addr-port' (set on line 2, in the defaults it "
                        "inherits) places a server's points by its address"));
}

TEST(HaproxySettings, RefusalsNameTheCandidatesAndASingleOneIsUsed) {
  const std::string cfg =
      "defaults\n  hash-type consistent\n"
      "backend static\n  balance roundrobin\n  server s1 10.0.0.1:80\n"
      "backend api\n  balance hdr(X-User)\n  server s1 10.0.0.1:80\n"
      "listen cache\n  balance uri\n  server s1 10.0.0.1:80\n";
  EXPECT_THAT(haproxy_error(cfg, "nope"),
              HasSubstr("no 'backend nope' or 'listen nope' section; give the name of a backend "
                        "of the file with --backend (those that hash consistently: 'api', "
                        "'cache')"));
  EXPECT_EQ(error_of([&] { (void)import_config("haproxy", cfg, "h.cfg"); }),
            "haproxy h.cfg needs --backend NAME; name the section to read, one of the 2 backends "
            "that hash consistently: 'api', 'cache'");
  EXPECT_THAT(error_of([&] { (void)import_config("haproxy", "global\n", "h.cfg"); }),
              HasSubstr("(the file has no backend that hashes consistently)"));
  const std::string one =
      "backend static\n  balance roundrobin\n  server s1 10.0.0.1:80\n"
      "backend api\n  balance hdr(X-User)\n  hash-type consistent\n  server s1 10.0.0.1:80\n";
  const auto c = import_config("haproxy", one, "h.cfg");
  EXPECT_EQ(c.scheme->kind_name(), "haproxy");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "h.cfg: read backend 'api', the only one of the file that hashes");
}

// -------------------------------------------------------------------- nginx

TEST(NginxSettings, RefusalsNameTheCandidatesAndASingleOneIsUsed) {
  const std::string conf =
      "http {\n  upstream rr { server a:80; }\n"
      "  upstream one { hash $uri consistent; server a:80; server b:80; }\n"
      "  upstream two { hash $arg_id consistent; server c:80; }\n}\n";
  EXPECT_EQ(error_of([&] { (void)import_config("nginx", conf, "n.conf"); }),
            "nginx n.conf needs --upstream NAME; name the section to read, one of the 2 "
            "upstreams that hash consistently: 'one', 'two'");
  config_options o;
  o.section = "nope";
  EXPECT_THAT(error_of([&] { (void)import_config("nginx", conf, "n.conf", o); }),
              HasSubstr("(those with 'hash KEY consistent': 'one', 'two')"));
  const std::string single =
      "http {\n  upstream rr { server a:80; }\n"
      "  upstream one { hash $uri consistent; server a:80; server b:80; }\n}\n";
  const auto c = import_config("nginx", single, "n.conf");
  EXPECT_EQ(c.scheme->node_count(), 2u);
  EXPECT_EQ(c.notes.at(0), "n.conf: read upstream 'one', the only one of the file that hashes");
}

TEST(NginxSettings, AnEmptyKeyHasNoServer) {
  const auto c =
      import_config("nginx", "upstream u { hash $arg_id consistent; server a:80; }", "n.conf", [] {
        config_options o;
        o.section = "u";
        return o;
      }());
  EXPECT_EQ(c.scheme->node_for("x"), "a:80");
  EXPECT_THAT(error_of([&] { (void)c.scheme->node_for(""); }),
              HasSubstr("nginx sends a request whose hash key is empty round robin"));
}

TEST(NginxSettings, IncludesAreFollowedFromTheMainFilesDirectory) {
  // Debian's layout: the upstream in conf.d/, included by a wildcard.
  test::temp_dir dir;
  std::filesystem::create_directories(dir.file("conf.d"));
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
  };
  write("nginx.conf",
        "events {}\nhttp {\n  include mime.types;\n  include conf.d/*.conf;\n  include "
        "sites/*;\n}\n");
  write("mime.types", "types { text/html html; }\n");
  write("conf.d/app.conf",
        "upstream app {\n  hash $request_uri consistent;\n  server 10.0.0.1:80;\n  server "
        "10.0.0.2:80 weight=2;\n}\n");
  write("conf.d/bad.conf", "upstream other {\n  hash $x consistent;\n  server a:1 down;\n}\n");
  config_options o;
  o.section = "app";
  const auto c = import_config_file("nginx", dir.file("nginx.conf"), o);
  EXPECT_EQ(c.scheme->node_count(), 2u);
  // An error inside an included file names that file and line.
  o.section = "other";
  EXPECT_THAT(error_of([&] { (void)import_config_file("nginx", dir.file("nginx.conf"), o); }),
              HasSubstr(dir.file("conf.d/bad.conf") + ":3: server 'a:1' is marked 'down'"));
  // A file that does not exist, without wildcards, is refused as nginx does.
  write("missing.conf", "http {\n  include nothere.conf;\n}\n");
  EXPECT_THAT(error_of([&] { (void)import_config_file("nginx", dir.file("missing.conf"), o); }),
              HasSubstr("missing.conf:2: 'include nothere.conf' names no file"));
  // Text without a path: includes are not followed, and the refusal says so.
  o.section = "app";
  EXPECT_THAT(error_of([&] {
                (void)import_config("nginx", "http { include conf.d/*.conf; }", "n.conf", o);
              }),
              HasSubstr("its include lines were not followed (it was not read from a path)"));
}

// ---------------------------------------------------------------- twemproxy

TEST(TwemproxySettings, TiedPointsGoToTheServerWhoseNameSortsFirst) {
  // Names that agree on their first 272 bytes get the same points (nutcracker
  // cuts "NAME-k" there); the peer test checks these sets against nutcracker.
  const std::string stem(268, 'n');
  const std::string a = stem + "aaaaaa";
  const std::string b = stem + "aaaabb";
  const std::string longer = stem + "aaaa" + std::string(10, 'a');
  for (const auto& servers : {std::vector<twemproxy_server>{{b, 3}, {"c", 1}, {a, 1}},
                              std::vector<twemproxy_server>{{a, 1}, {b, 1}, {"c", 1}},
                              std::vector<twemproxy_server>{{longer, 1}, {b, 1}, {"c", 1}}}) {
    const twemproxy_placement p(twemproxy_hash::fnv1a_64, servers);
    const std::string& winner = servers[0].name == longer ? b : a;
    std::map<std::string, int> load;
    for (int i = 0; i < 20000; ++i) ++load[p.node_for("key-" + std::to_string(i))];
    EXPECT_GT(load[winner], 0);
    EXPECT_EQ(load.size(), 2u) << "the server whose name sorts after should take no key";
  }
  EXPECT_THAT(error_of([] {
                (void)import_config("twemproxy", "alpha:\n  hash: hsieh\n  servers:\n   - a:1:1\n",
                                    "n.yml");
              }),
              "n.yml:2: pool 'alpha' hashes its keys with 'hsieh', a nutcracker hash that "
              "ringbloom does not reproduce; ringbloom places keys of pools hashed with md5, "
              "fnv1a_64, fnv1_64, fnv1a_32 or fnv1_32 only, so this pool cannot be imported");
}

// ---------------------------------------------------------------- cassandra

std::string data_file(const std::string& name) {
  return io::read_file(
      std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests" / "placement" / "data" / name,
      max_config_bytes);
}

imported_config nodetool(const std::string& text, const cassandra_replication& r) {
  config_options o;
  o.replication = r;
  return import_config("cassandra", text, "ring.txt", o);
}

TEST(CassandraSettings, EveryVersionsOutputReadsAsTheSameRing) {
  // One ring (2 data centres, 4 vnodes a node) as nodetool ring prints it in
  // 3.11 (no keyspace: the trailing Note), 4.0/4.1 (a keyspace: ownership),
  // 5.0 with --print-port, and the older form with a leading Note (DSE).
  const auto nts = cassandra_replication::network({{"dc1", 2}, {"dc2", 1}});
  const auto reference = nodetool(data_file("nodetool_ring_3.11.txt"), nts);
  EXPECT_EQ(reference.scheme->node_count(), 5u);
  EXPECT_TRUE(reference.notes.empty());
  for (const char* file : {"nodetool_ring_4.0.txt", "nodetool_ring_dse.txt"}) {
    SCOPED_TRACE(file);
    const auto other = nodetool(data_file(file), nts);
    ASSERT_EQ(other.scheme->node_count(), 5u);
    for (int i = 0; i < 2000; ++i) {
      const std::string key = "key-" + std::to_string(i);
      const std::uint64_t h = reference.scheme->key_hash(key);
      ASSERT_EQ(other.scheme->node_indexes_for_hash(h, 3),
                reference.scheme->node_indexes_for_hash(h, 3))
          << key;
    }
  }
  // With the port, every node's name carries it and nothing else changes.
  const auto pp = nodetool(data_file("nodetool_ring_5.0_pp.txt"), nts);
  ASSERT_EQ(pp.scheme->node_count(), 5u);
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    EXPECT_EQ(pp.scheme->node_for(key), reference.scheme->node_for(key) + ":7000");
  }
}

TEST(CassandraSettings, NodeStatesAreReportedAndJoiningNodesLeftOut) {
  const auto c = nodetool(data_file("nodetool_ring_states.txt"), cassandra_replication::simple(3));
  EXPECT_EQ(c.scheme->node_count(), 5u) << "the Joining node owns no key yet";
  ASSERT_EQ(c.notes.size(), 4u);
  EXPECT_THAT(c.notes[0], HasSubstr("node 10.0.1.4 is Joining, so its tokens are left out"));
  EXPECT_THAT(c.notes[1], HasSubstr("node 10.0.1.2 is Down Normal; it still owns its tokens"));
  EXPECT_THAT(c.notes[2], HasSubstr("node 10.0.1.3 is Up Leaving"));
  EXPECT_THAT(c.notes[3], HasSubstr("node 10.0.2.2 is Up Moving"));
  // The same ring without the Joining node places every key the same.
  const auto plain =
      nodetool(data_file("nodetool_ring_3.11.txt"), cassandra_replication::simple(3));
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_EQ(c.scheme->node_for(key), plain.scheme->node_for(key));
  }
}

TEST(CassandraSettings, AnUnknownDataCentreIsRefusedNamingTheRingsOwn) {
  EXPECT_EQ(error_of([] {
              (void)nodetool(data_file("nodetool_ring_4.0.txt"),
                             cassandra_replication::network({{"DC1", 3}}));
            }),
            "the replication names the data centre 'DC1', which is not in ring.txt (its data "
            "centres are 'dc1', 'dc2'; names are case-sensitive); give the data centres as the "
            "ring names them");
}

TEST(CassandraSettings, WhatIsNotTheRingIsRefusedWithTheLine) {
  EXPECT_THAT(error_of([] {
                (void)nodetool("Datacenter: dc1\nhello world\n", cassandra_replication::simple(1));
              }),
              HasSubstr("ring.txt:2: 'hello world' is not a line of 'nodetool ring'"));
  EXPECT_THAT(error_of([] {
                (void)nodetool("\nError: The keyspace ks, does not exist\n",
                               cassandra_replication::simple(1));
              }),
              HasSubstr("ring.txt:2: nodetool printed an error instead of the ring"));
  EXPECT_THAT(error_of([] {
                (void)nodetool("Datacenter: dc1\n10.0.0.1 r1 Up Joining ? ? 5\n",
                               cassandra_replication::simple(1));
              }),
              HasSubstr("no node lines other than Joining ones"));
}

// -------------------------------------------------------------------- envoy

imported_config envoy(const std::string& text, const std::string& cluster = "") {
  config_options o;
  o.section = cluster;
  return import_config("envoy", text, "envoy.yaml", o);
}

std::string envoy_error(const std::string& text, const std::string& cluster = "") {
  return error_of([&] { (void)envoy(text, cluster); });
}

const std::string envoy_endpoints = R"(load_assignment:
  cluster_name: web
  endpoints:
  - lb_endpoints:
    - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
    - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 80}}}
      load_balancing_weight: 1000
)";

TEST(EnvoySettings, EnumsAreCaseInsensitiveAndWeightsHaveNoSmallBound) {
  const auto c = envoy("name: web\nlb_policy: ring_hash\ntype: static\n" + envoy_endpoints);
  const auto& ring = dynamic_cast<const envoy_ring_hash_placement&>(*c.scheme);
  EXPECT_EQ(ring.hosts()[1].weight, 1000u);
  EXPECT_EQ(envoy("name: web\nlb_policy: Maglev\n" + envoy_endpoints).scheme->kind_name(),
            "envoy-maglev");
}

TEST(EnvoySettings, TheTypedPolicyTakesPrecedence) {
  const std::string typed = R"(name: web
lb_policy: MAGLEV
maglev_lb_config: {table_size: 65537}
load_balancing_policy:
  policies:
  - typed_extension_config:
      name: envoy.load_balancing_policies.maglev
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.maglev.v3.Maglev
        table_size: 131
)";
  const auto c = envoy(typed + envoy_endpoints);
  EXPECT_EQ(dynamic_cast<const envoy_maglev_placement&>(*c.scheme).table_size(), 131u);
  const std::string ring = R"(name: web
load_balancing_policy:
  policies:
  - typed_extension_config:
      name: envoy.load_balancing_policies.ring_hash
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.ring_hash.v3.RingHash
        minimum_ring_size: 2048
        consistent_hashing_lb_config: {use_hostname_for_hashing: false}
)";
  const auto r = envoy(ring + envoy_endpoints);
  EXPECT_EQ(dynamic_cast<const envoy_ring_hash_placement&>(*r.scheme).minimum_ring_size(), 2048u);
  const std::string rr = R"(name: web
lb_policy: RING_HASH
load_balancing_policy:
  policies:
  - typed_extension_config:
      name: envoy.load_balancing_policies.round_robin
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin
)";
  EXPECT_THAT(envoy_error(rr + envoy_endpoints),
              HasSubstr("envoy.yaml:6: load_balancing_policy ROUND_ROBIN places no key by hash"));
  const std::string balance = R"(name: web
load_balancing_policy:
  policies:
  - typed_extension_config:
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.load_balancing_policies.ring_hash.v3.RingHash
        consistent_hashing_lb_config: {hash_balance_factor: 150}
)";
  EXPECT_THAT(envoy_error(balance + envoy_endpoints), HasSubstr("hash_balance_factor bounds"));
}

TEST(EnvoySettings, AHashKeyInTheMetadataIsWhatEnvoyHashes) {
  const std::string text = R"(name: web
lb_policy: RING_HASH
load_assignment:
  endpoints:
  - lb_endpoints:
    - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
      metadata: {filter_metadata: {envoy.lb: {hash_key: "shard-a"}}}
    - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 80}}}
)";
  const auto c = envoy(text);
  EXPECT_EQ(c.scheme->node_name(0), "shard-a");
  EXPECT_EQ(c.scheme->node_name(1), "10.0.0.2:80");
}

TEST(EnvoySettings, DnsClustersAndOutOfRangeRingsAreRefused) {
  EXPECT_THAT(envoy_error("name: web\nlb_policy: RING_HASH\ntype: strict_dns\n" + envoy_endpoints),
              HasSubstr("cluster type STRICT_DNS: Envoy hashes each address '10.0.0.1' resolves "
                        "to, which the file does not hold"));
  EXPECT_THAT(envoy_error("name: web\nlb_policy: RING_HASH\ntype: EDS\n" + envoy_endpoints),
              HasSubstr("envoy.yaml:3: cluster type EDS gets its hosts at run time"));
  EXPECT_THAT(envoy_error("name: web\nlb_policy: RING_HASH\n"
                          "ring_hash_lb_config: {minimum_ring_size: 9000000, maximum_ring_size: "
                          "9000000}\n" +
                          envoy_endpoints),
              HasSubstr("minimum_ring_size 9000000 is above Envoy's limit of 8388608"));
}

TEST(EnvoySettings, AMissingClusterIsNamedWithTheCandidates) {
  const std::string file = R"(static_resources:
  clusters:
  - name: rr
    load_assignment: {endpoints: []}
  - name: web
    lb_policy: MAGLEV
    load_assignment: {endpoints: []}
  - name: api
    lb_policy: RING_HASH
    load_assignment: {endpoints: []}
)";
  EXPECT_EQ(envoy_error(file, "nope"),
            "envoy.yaml: no cluster 'nope'; name one of the file's clusters with --cluster "
            "(those that hash: 'web', 'api')");
  EXPECT_EQ(envoy_error(file),
            "envoy.yaml has 2 clusters that hash ('web', 'api'); name one with --cluster");
}

// ------------------------------------------------------------ redis cluster

TEST(RedisClusterSettings, PromptLinesAreReadPastAndShardsRefused) {
  for (const char* file : {"cluster_slots_tty.txt", "cluster_nodes.txt"}) {
    SCOPED_TRACE(file);
    const std::string text = data_file(file);
    const auto plain = import_config("redis-cluster", text, "r.txt");
    const std::string command =
        std::string(file) == "cluster_nodes.txt" ? "cluster nodes" : "CLUSTER SLOTS";
    for (const std::string& prompt : {"> " + command, "127.0.0.1:7000> " + command}) {
      const auto copied = import_config("redis-cluster", prompt + "\n" + text, "r.txt");
      ASSERT_EQ(copied.scheme->node_count(), plain.scheme->node_count());
      for (int i = 0; i < 500; ++i) {
        const std::string key = "k" + std::to_string(i);
        // (the saved cluster has a slot gap: those keys have no owner in either)
        const auto owner = [&](const placement& p) {
          return error_of([&] { throw std::runtime_error(p.node_for(key)); });
        };
        EXPECT_EQ(owner(*copied.scheme), owner(*plain.scheme));
      }
    }
  }
  EXPECT_THAT(error_of([] {
                (void)import_config("redis-cluster",
                                    "127.0.0.1:30001> CLUSTER SHARDS\n1) 1) \"slots\"\n", "r.txt");
              }),
              HasSubstr("r.txt:1: this is CLUSTER SHARDS output, which ringbloom does not read; "
                        "save 'redis-cli cluster slots > FILE'"));
  EXPECT_THAT(error_of([] {
                (void)import_config("redis-cluster", "1) 1) \"slots\"\n   2) 1) (integer) 0\n",
                                    "r.txt");
              }),
              HasSubstr("r.txt:1: this is CLUSTER SHARDS output"));
  EXPECT_THAT(error_of([] {
                (void)import_config("redis-cluster", "> CLUSTER INFO\ncluster_state:ok\n", "r.txt");
              }),
              HasSubstr("r.txt:1: this is the output of 'cluster info'"));
}

TEST(RedisClusterSettings, ASuspectedMasterStillServesItsSlots) {
  const std::string a = "aaaa 10.0.0.1:6379@16379 master";
  const std::string rest = " - 0 0 1 connected 0-8000\n";
  const std::string b = "bbbb 10.0.0.2:6379@16379 master - 0 0 2 connected 8001-16383\n";
  EXPECT_EQ(import_config("redis-cluster", a + ",fail?" + rest + b, "n.txt").scheme->node_count(),
            2u);
  EXPECT_THAT(
      error_of([&] { (void)import_config("redis-cluster", a + ",fail" + rest + b, "n.txt"); }),
      HasSubstr("n.txt:1: master 10.0.0.1:6379 is marked fail"));
}

// ------------------------------------------------------------------ goldens

// Configurations shaped like the ones seen in public repositories (our own
// files), each imported to the topology file beside it, byte for byte: a
// change in what an importer reads shows here first.
TEST(ImportGoldens, EachConfigGivesItsTopology) {
  struct golden {
    const char* system;
    const char* file;
    const char* section;
    cassandra_replication replication = cassandra_replication::simple(1);
  };
  const golden goldens[] = {
      {"haproxy", "haproxy_named_defaults.cfg", "b"},
      {"nginx", "nginx_debian_site.conf", ""},
      {"twemproxy", "nutcracker_two_pools.yml", "alpha"},
      {"envoy", "envoy_typed_policy.yaml", ""},
      {"envoy", "envoy_lowercase_ring.yaml", ""},
      {"cassandra", "nodetool_ring_4.0.txt", "",
       cassandra_replication::network({{"dc1", 2}, {"dc2", 1}})},
  };
  for (const golden& g : goldens) {
    SCOPED_TRACE(g.file);
    config_options o;
    o.section = g.section;
    o.replication = g.replication;
    const auto c = import_config(g.system, data_file(g.file), g.file, o);
    std::string name = g.file;
    name = name.substr(0, name.rfind('.')) + ".topology.json";
    EXPECT_EQ(scheme_topology_json(*c.scheme), data_file(name));
  }
}

}  // namespace
}  // namespace ringbloom::schemes
