// `ringbloom ring import|lookup|diff|simulate` with the system schemes,
// running the real binary: configurations in, topologies out, errors that
// name the file and line and write nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::schemes {
namespace {

using test::run_cli;
using ::testing::HasSubstr;
using json = nlohmann::json;

std::string write(const test::temp_dir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

const char* const nginx_conf = R"(events {}
http {
  upstream backend {
    hash $request_uri consistent;
    server 10.0.0.1:8080 weight=2;
    server 10.0.0.2:8080 max_fails=3;
    server unix:/run/app.sock;
    keepalive 16;
  }
}
)";

const char* const haproxy_cfg = R"(global
  maxconn 100
defaults
  mode http
  hash-type consistent djb2 avalanche
  default-server weight 3
backend web
  balance uri
  server s1 10.0.0.1:80
  server s2 10.0.0.2:80 weight 1 id 7
  server s3 10.0.0.3:80 check
backend other
  balance roundrobin
  server x 10.0.0.9:80
)";

TEST(SchemeCliImport, NginxUpstreamRoundTripsThroughATopology) {
  test::temp_dir dir;
  const auto conf = write(dir, "nginx.conf", nginx_conf);
  const auto r =
      run_cli({"ring", "import", "nginx", conf, "--upstream", "backend", "-o", dir.file("t.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(std::ifstream(dir.file("t.json")));
  EXPECT_EQ(doc["scheme"], "nginx");
  ASSERT_EQ(doc["nodes"].size(), 3u);
  EXPECT_EQ(doc["nodes"][0]["name"], "10.0.0.1:8080");
  EXPECT_EQ(doc["nodes"][0]["weight"], 2);
  EXPECT_EQ(doc["nodes"][2]["name"], "unix:/run/app.sock");
  // lookup --ring gives what the library gives for the same upstream.
  const auto placed = import_nginx(nginx_conf, "nginx.conf", "backend");
  const auto l = run_cli({"ring", "lookup", "--ring", dir.file("t.json"), "/a", "/b", "user:42"});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_EQ(l.out, "/a\t" + placed->node_for("/a") + "\n/b\t" + placed->node_for("/b") +
                       "\nuser:42\t" + placed->node_for("user:42") + "\n");
}

TEST(SchemeCliImport, HaproxyBackendInheritsDefaults) {
  const auto p = import_haproxy(haproxy_cfg, "haproxy.cfg", "web");
  const auto& be = dynamic_cast<const haproxy_placement&>(*p);
  EXPECT_EQ(be.options(), (haproxy_options{haproxy_hash::djb2, true, haproxy_key::uri}));
  ASSERT_EQ(be.servers().size(), 3u);
  EXPECT_EQ(be.servers()[0].weight, 3u) << "default-server weight 3";
  EXPECT_EQ(be.servers()[1].weight, 1u);
  EXPECT_EQ(be.servers()[1].id, 7u);
  EXPECT_EQ(be.ids(), (std::vector<std::uint32_t>{1, 7, 3}));
}

struct bad_config {
  std::string system;
  std::string text;
  std::vector<std::string> flags;
  std::string message;  // must appear, after "FILE:LINE"
};

TEST(SchemeCliImport, BadConfigsExitThreeWithFileLineAndWriteNothing) {
  const std::vector<bad_config> cases = {
      {"nginx",
       "upstream u {\n  hash $x consistent;\n  server 10.0.0.1 down;\n}\n",
       {"--upstream", "u"},
       ":3: server '10.0.0.1' is marked 'down'"},
      {"nginx",
       "upstream u {\n  hash $x;\n  server a:1;\n}\n",
       {"--upstream", "u"},
       ":2: 'hash' without 'consistent'"},
      {"nginx",
       "upstream u {\n  hash $x consistent;\n  server a:1;\n  server a:1;\n}\n",
       {"--upstream", "u"},
       ":4: server 'a:1' is listed twice (first on line 3)"},
      {"nginx",
       "upstream u {\n  hash $x consistent;\n  server a:1 weight=x;\n}\n",
       {"--upstream", "u"},
       ":3: 'weight=x' is not a weight nginx accepts"},
      {"nginx",
       "upstream u {\n  hash $x consistent\n  server a:1;\n}\n",
       {"--upstream", "u"},
       ":2: expected ';' after 'hash $x consistent'"},
      {"haproxy",
       "backend b\n  balance uri\n  hash-type consistent\n  server s1 10.0.0.1:80 weight 300\n",
       {"--backend", "b"},
       ":4: server 's1': weight '300' is not in HAProxy's range 0..256"},
      {"haproxy",
       "backend b\n  balance uri\n  hash-type consistent\n  hash-balance-factor 150\n  server s1 "
       "10.0.0.1:80\n",
       {"--backend", "b"},
       ":4: 'hash-balance-factor' bounds each server's load"},
      {"haproxy",
       "backend b\n  balance uri\n  hash-type consistent\n  server s1 10.0.0.1:80\n  server s1 "
       "10.0.0.2:80\n",
       {"--backend", "b"},
       ":5: server name 's1' is used twice (first on line 4)"},
      {"haproxy",
       "backend b\n  balance uri\n  hash-type consistent\n  server s1 10.0.0.1\n",
       {"--backend", "b"},
       ":4: server 's1' has the address '10.0.0.1' without a port"},
      {"haproxy",
       "backend b\n  hash-type map-based\n  server s1 10.0.0.1:80\n",
       {"--backend", "b"},
       ":2: backend 'b' does not use 'hash-type consistent'"},
      {"redis-cluster",
       "abc 10.0.0.1:6379@16379 master - 0 0 1 connected 0-20000\n",
       {},
       ":1: '0-20000' is not a slot or a slot range"},
      {"redis-cluster",
       "a 10.0.0.1:6379@16379 master - 0 0 1 connected 0-100\nb 10.0.0.2:6379@16379 master - 0 0 2 "
       "connected 100\n",
       {},
       "slot 100 is given to both"},
      {"cassandra",
       "Datacenter: dc1\n10.0.0.1  rack1  Up  Normal  1 MiB  50%  12x\n",
       {},
       ":2: the token '12x' is not a 64-bit integer"},
      {"twemproxy",
       "alpha:\n  listen: 127.0.0.1:22121\n  servers:\n   - 10.0.0.1:11211:0 a\n",
       {},
       ":4: server '10.0.0.1:11211:0 a' has no valid weight"},
      {"twemproxy",
       "alpha:\n  hash: murmur\n  servers:\n   - 10.0.0.1:11211:1\n",
       {},
       ":2: pool 'alpha' hashes its keys with 'murmur', a nutcracker hash that ringbloom does not "
       "reproduce; ringbloom places keys"},
      {"twemproxy",
       "alpha:\n  servers:\n   - 10.0.0.1:11211:1 a\n   - 10.0.0.2:11211:1 a\n",
       {},
       ":4: server name 'a' is used twice"},
  };
  for (const bad_config& c : cases) {
    test::temp_dir dir;
    const auto conf = write(dir, "config", c.text);
    std::vector<std::string> args = {"ring", "import", c.system, conf, "-o", dir.file("t.json")};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 3) << c.system << ": " << c.text << r.err;
    EXPECT_THAT(r.err, HasSubstr("ringbloom: error: " + conf)) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("t.json")))
        << "nothing may be written: " << c.text;
  }
}

TEST(SchemeCliImport, UnknownSystemIsAUsageError) {
  test::temp_dir dir;
  const auto conf = write(dir, "x.conf", "x");
  const auto r = run_cli({"ring", "import", "memcached", conf, "-o", dir.file("t.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'memcached' is not a system whose configuration ringbloom reads"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.json")));
}

TEST(SchemeCliImport, TwemproxyRedisCassandraAndEnvoy) {
  test::temp_dir dir;
  const auto yml = write(
      dir, "nutcracker.yml",
      "alpha:\n  listen: 127.0.0.1:22121\n  hash: fnv1a_64\n  distribution: ketama\n  servers:\n"
      "   - 10.0.0.1:11211:1 cache-1:11211\n   - 10.0.0.2:11211:2\n   - 10.0.0.3:11212:1\n");
  auto r = run_cli({"ring", "import", "twemproxy", yml, "-o", dir.file("tw.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(std::ifstream(dir.file("tw.json")));
  EXPECT_EQ(doc["hash"], "fnv1a_64");
  EXPECT_EQ(doc["nodes"][0]["name"], "cache-1:11211") << "an explicit name is kept verbatim";
  EXPECT_EQ(doc["nodes"][1]["name"], "10.0.0.2") << "port 11211 without a name: the host alone";
  EXPECT_EQ(doc["nodes"][2]["name"], "10.0.0.3:11212");

  const auto nodes =
      write(dir, "nodes.txt",
            "07c3 10.0.0.1:6379@16379 myself,master - 0 0 1 connected 0-8191\n"
            "1a2b 10.0.0.2:6379@16379,host-b master - 0 0 2 connected 8192-16383 [100->-07c3]\n"
            "3c4d 10.0.0.3:6379@16379 slave 07c3 0 0 1 connected\n");
  r = run_cli({"ring", "import", "redis-cluster", nodes, "-o", dir.file("rc.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli({"ring", "lookup", "--ring", dir.file("rc.json"), "123456789"});  // slot 12739
  EXPECT_EQ(r.out, "123456789\t10.0.0.2:6379\n");

  const auto ring =
      write(dir, "ring.txt",
            "Datacenter: dc1\n==========\nAddress  Rack  Status State Load Owns Token\n"
            "                                          3074457345618258602\n"
            "10.0.0.1 r1 Up Normal 1.1 MiB 33% -9223372036854775808\n"
            "10.0.0.2 r2 Up Normal 1.1 MiB 33% -3074457345618258603\n"
            "10.0.0.3 r1 Up Normal 1.1 MiB 33% 3074457345618258602\n");
  r = run_cli({"ring", "import", "cassandra", ring, "--rf", "2", "-o", dir.file("cs.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli(
      {"ring", "lookup", "--ring", dir.file("cs.json"), "--replicas", "2", "--json", "user:42"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["nodes"].size(), 2u);

  const auto envoy =
      write(dir, "envoy.yaml",
            "clusters:\n- name: web\n  lb_policy: MAGLEV\n  maglev_lb_config: {table_size: 7}\n"
            "  load_assignment:\n    endpoints:\n    - lb_endpoints:\n"
            "      - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 90}}}\n"
            "      - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 91}}}\n"
            "        load_balancing_weight: 2\n");
  r = run_cli({"ring", "import", "envoy", envoy, "--cluster", "web", "-o", dir.file("ev.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(std::ifstream(dir.file("ev.json")));
  EXPECT_EQ(doc["scheme"], "envoy-maglev");
  EXPECT_EQ(doc["table_size"], 7);
  EXPECT_EQ(doc["nodes"][1]["weight"], 2);
}

TEST(SchemeCliLookup, EverySchemeFromANodeList) {
  const std::vector<std::pair<std::string, std::string>> schemes = {
      {"nginx", "a:1,b:1=2"},
      {"haproxy", "s1,s2=0,s3"},
      {"twemproxy", "a,b"},
      {"redis-cluster", "a:1,b:1"},
      {"cassandra", "10.0.0.1,10.0.0.2"},
      {"groupcache", "http://a,http://b"},
      {"guava", "4"},
      {"envoy-ring-hash", "a:1,b:1"},
      {"envoy-maglev", "a:1,b:1"}};
  for (const auto& [scheme, nodes] : schemes) {
    const auto r =
        run_cli({"ring", "lookup", "--scheme", scheme, "--nodes", nodes, "--json"}, "user:42\nk\n");
    ASSERT_EQ(r.exit_code, 0) << scheme << ": " << r.err;
    std::istringstream lines(r.out);
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
      const json doc = json::parse(line);
      const std::string node = doc["node"];
      const auto p = make_scheme_placement(scheme, [&] {
        std::vector<placement_node> list;
        std::string_view rest = nodes;
        if (scheme == "guava") {
          for (int i = 0; i < 4; ++i) list.push_back({std::to_string(i), 1.0});
          return list;
        }
        while (!rest.empty()) {
          const auto comma = rest.find(',');
          std::string_view item = rest.substr(0, comma);
          rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
          const auto eq = item.find('=');
          list.push_back(
              {std::string(item.substr(0, eq)),
               eq == std::string_view::npos ? 1.0 : std::stod(std::string(item.substr(eq + 1)))});
        }
        return list;
      }());
      EXPECT_EQ(node, p->node_for(doc["key"].get<std::string>())) << scheme;
      ++count;
    }
    EXPECT_EQ(count, 2) << scheme;
  }
  const auto bad = run_cli({"ring", "lookup", "--scheme", "haproxy", "--nodes", "a=300", "k"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("not an integer in [0, 256]"));
}

TEST(SchemeCliDiff, ListsTheKeysThatMoveAndTheirServers) {
  test::temp_dir dir;
  const auto before =
      write(dir, "a.conf",
            "upstream u {\n hash $x consistent;\n server a:1;\n server b:1;\n server c:1;\n}\n");
  const auto after =
      write(dir, "b.conf", "upstream u {\n hash $x consistent;\n server a:1;\n server c:1;\n}\n");
  ASSERT_EQ(
      run_cli({"ring", "import", "nginx", before, "--upstream", "u", "-o", dir.file("a.json")})
          .exit_code,
      0);
  ASSERT_EQ(run_cli({"ring", "import", "nginx", after, "--upstream", "u", "-o", dir.file("b.json")})
                .exit_code,
            0);
  std::string keys;
  for (int i = 0; i < 300; ++i) keys += "key-" + std::to_string(i) + "\n";
  write(dir, "keys.txt", keys);
  const auto r = run_cli({"ring", "diff", dir.file("a.json"), dir.file("b.json"), "--keys",
                          dir.file("keys.txt"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  const auto a = load_scheme_topology(dir.file("a.json"));
  const auto b = load_scheme_topology(dir.file("b.json"));
  std::size_t moved = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string key = "key-" + std::to_string(i);
    if (a->node_for(key) != b->node_for(key)) {
      ++moved;
      EXPECT_EQ(a->node_for(key), "b:1") << "only b's keys move when b leaves";
    }
  }
  EXPECT_EQ(doc["keys"], 300);
  EXPECT_EQ(doc["moved"], moved);
  ASSERT_EQ(doc["moved_keys"].size(), moved);
  EXPECT_GT(moved, 50u);
  for (const auto& m : doc["moved_keys"]) EXPECT_EQ(m["from"], "b:1");
  // Two systems cannot be compared.
  ASSERT_EQ(run_cli({"ring", "lookup", "--scheme", "guava", "--nodes", "3"}).exit_code, 0);
  const auto g = write(
      dir, "g.json",
      R"({"format": "ringbloom-topology", "version": 1, "scheme": "guava", "nodes": [{"name": "0"}]})");
  const auto mixed = run_cli({"ring", "diff", dir.file("a.json"), g});
  EXPECT_EQ(mixed.exit_code, 3);
  EXPECT_THAT(mixed.err, HasSubstr("compare two topologies of one system"));
}

// `ring lookup --from SYSTEM FILE` reads the configuration with the importer
// of `ring import`: its answers are those of `ring lookup --ring` of the
// imported topology, key for key, in text and JSON, from arguments and stdin.
struct config_case {
  std::string system;
  std::string file_name;
  std::string text;
  std::vector<std::string> flags;
};

std::vector<config_case> config_cases() {
  // CLUSTER SLOTS as `redis-cli cluster slots > FILE` writes it (raw).
  const std::string id_a(40, 'a');
  const std::string id_b(40, 'b');
  const std::string cluster_slots =
      "0\n8191\n10.0.0.1\n6379\n" + id_a + "\n\n8192\n16383\n10.0.0.2\n6379\n" + id_b + "\n\n";
  return {
      {"nginx", "nginx.conf", nginx_conf, {"--upstream", "backend"}},
      {"haproxy", "haproxy.cfg", haproxy_cfg, {"--backend", "web"}},
      {"twemproxy",
       "nutcracker.yml",
       "alpha:\n  hash: md5\n  distribution: ketama\n  servers:\n   - 10.0.0.1:11211:1 a\n"
       "   - 10.0.0.2:11211:2\n",
       {}},
      {"envoy",
       "envoy.yaml",
       "clusters:\n- name: web\n  lb_policy: RING_HASH\n  load_assignment:\n    endpoints:\n"
       "    - lb_endpoints:\n"
       "      - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}\n"
       "      - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 80}}}\n",
       {"--cluster", "web"}},
      {"cassandra",
       "ring.txt",
       "Datacenter: dc1\n==========\nAddress  Rack  Status State Load Owns Token\n"
       "10.0.0.1 r1 Up Normal 1.1 MiB 33% -9223372036854775808\n"
       "10.0.0.2 r2 Up Normal 1.1 MiB 33% -3074457345618258603\n"
       "10.0.0.3 r1 Up Normal 1.1 MiB 33% 3074457345618258602\n",
       {"--rf", "2"}},
      {"redis-cluster", "slots.txt", cluster_slots, {}},
  };
}

TEST(SchemeCliLookupFrom, AgreesWithLookupOfTheImportedTopology) {
  test::temp_dir dir;
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "user:" + std::to_string(i) + "\n";
  keys += "caf\xC3\xA9\n{tag}.a\n";
  for (const config_case& c : config_cases()) {
    const std::string file = write(dir, c.file_name, c.text);
    std::vector<std::string> import = {"ring", "import",           c.system, file,
                                       "-o",   dir.file("t.json"), "--force"};
    import.insert(import.end(), c.flags.begin(), c.flags.end());
    ASSERT_EQ(run_cli(import).exit_code, 0) << c.system;
    for (const bool as_json : {false, true}) {
      std::vector<std::string> via_ring = {"ring", "lookup", "--ring", dir.file("t.json")};
      std::vector<std::string> via_from = {"ring", "lookup", "--from", c.system, file};
      via_from.insert(via_from.end(), c.flags.begin(), c.flags.end());
      if (c.system == "cassandra") {
        via_ring.insert(via_ring.end(), {"--replicas", "2"});
        via_from.insert(via_from.end(), {"--replicas", "2"});
      }
      if (as_json) {
        via_ring.emplace_back("--json");
        via_from.emplace_back("--json");
      }
      const auto expected = run_cli(via_ring, keys);
      const auto got = run_cli(via_from, keys);
      ASSERT_EQ(got.exit_code, 0) << c.system << ": " << got.err;
      EXPECT_EQ(got.out, expected.out) << c.system;
      EXPECT_EQ(std::count(got.out.begin(), got.out.end(), '\n'), 502) << c.system;
    }
    // Keys as arguments, after or before --from.
    std::vector<std::string> args = {"ring",   "lookup", "user:1", "--from",
                                     c.system, file,     "user:2"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << c.system << ": " << r.err;
    const auto ring = run_cli({"ring", "lookup", "--ring", dir.file("t.json"), "user:1", "user:2"});
    EXPECT_EQ(r.out, ring.out) << c.system;
  }
}

TEST(SchemeCliLookupFrom, RefusesWhatImportRefuses) {
  test::temp_dir dir;
  const auto conf = write(dir, "nginx.conf", nginx_conf);
  // The file's only upstream that hashes is read without --upstream (and said so).
  auto r = run_cli({"ring", "lookup", "--from", "nginx", conf, "k"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("read upstream 'backend', the only one of the file that hashes"));
  const auto two = write(dir, "two.conf",
                         "upstream a { hash $x consistent; server a:1; }\n"
                         "upstream b { hash $y consistent; server b:1; }\n");
  r = run_cli({"ring", "lookup", "--from", "nginx", two, "k"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("needs --upstream NAME; name the section to read, one of the 2 "
                               "upstreams that hash consistently: 'a', 'b'"));
  r = run_cli({"ring", "lookup", "--from", "nginx", conf, "--upstream", "nope", "k"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("no 'upstream nope"));
  const auto bad =
      write(dir, "bad.conf", "upstream u {\n hash $x consistent;\n server a:1 down;\n}\n");
  r = run_cli({"ring", "lookup", "--from", "nginx", bad, "--upstream", "u", "k"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("bad.conf:3:"));
  EXPECT_TRUE(r.out.empty());
  r = run_cli({"ring", "lookup", "--from", "memcached", conf, "k"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'memcached' is not a system"));
  r = run_cli({"ring", "lookup", "--from", "nginx", conf, "--ring", conf, "k"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"ring", "lookup", "--from", "nginx", conf, "--scheme", "ring", "k"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"ring", "lookup", "--from", "nginx"});
  EXPECT_EQ(r.exit_code, 2);
  // A section option without --from would be ignored: refused instead.
  r = run_cli({"ring", "lookup", "--nodes", "a,b", "--upstream", "backend", "k"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--upstream needs --from too"));
  r = run_cli({"ring", "lookup", "--help"});
  EXPECT_THAT(r.out, HasSubstr("ring lookup --from nginx"));
}

TEST(SchemeCliDiffFrom, TwoConfigurationsAsTwoImportedTopologies) {
  test::temp_dir dir;
  const auto before = write(dir, "a.cfg", haproxy_cfg);
  std::string removed = haproxy_cfg;
  removed.erase(removed.find("  server s2"),
                removed.find("  server s3") - removed.find("  server s2"));
  const auto after = write(dir, "b.cfg", removed);
  for (const auto& [file, json_file] :
       {std::pair{before, dir.file("a.json")}, std::pair{after, dir.file("b.json")}}) {
    ASSERT_EQ(
        run_cli({"ring", "import", "haproxy", file, "--backend", "web", "-o", json_file}).exit_code,
        0);
  }
  std::string keys;
  for (int i = 0; i < 400; ++i) keys += "/page/" + std::to_string(i) + "\n";
  const auto key_file = write(dir, "keys.txt", keys);
  const auto expected = run_cli(
      {"ring", "diff", dir.file("a.json"), dir.file("b.json"), "--keys", key_file, "--json"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  const auto got = run_cli({"ring", "diff", "--from", "haproxy", before, after, "--backend", "web",
                            "--keys", key_file, "--json"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, expected.out);
  const json doc = json::parse(got.out);
  EXPECT_GT(doc["moved"].get<int>(), 0);
  // A refusal names the file it comes from.
  const auto broken = write(dir, "c.cfg",
                            "backend web\n  balance uri\n  hash-type consistent\n"
                            "  server s1 10.0.0.1:80 weight 300\n");
  const auto r = run_cli({"ring", "diff", "--from", "haproxy", before, broken, "--backend", "web"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("c.cfg:4:"));
}

TEST(SchemeCliSimulate, HaproxyRenumberingMovesMoreThanTheIdeal) {
  // Removing a server from the middle renumbers the later ones: far more
  // than the removed server's 1/5 of the keys move.
  const auto r = run_cli({"ring", "simulate", "--scheme", "haproxy", "--nodes", "5", "--remove",
                          "n2", "--keys", "20000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_DOUBLE_EQ(doc["ideal_moved_fraction"].get<double>(), 0.2);
  EXPECT_GT(doc["moved_fraction"].get<double>(), 0.4);
  // nginx's points depend on each server alone: only n2's keys move.
  const auto n = run_cli({"ring", "simulate", "--scheme", "nginx", "--nodes", "5", "--remove", "n2",
                          "--keys", "20000", "--json"});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  const json nd = json::parse(n.out);
  EXPECT_LT(nd["moved_fraction"].get<double>(), 0.3);
  EXPECT_EQ(nd["moved_to"].count("n2"), 0u);
}

}  // namespace
}  // namespace ringbloom::schemes
