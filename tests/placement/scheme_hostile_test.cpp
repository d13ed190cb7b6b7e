// Hostile input to `ring import`, the system-scheme paths of `ring
// lookup|diff|simulate` and `ring simulate --strategy/--change`:
// each row must be refused with the exit code, one sentence naming the option
// or file (FILE:LINE for configurations), nothing written, and bounded memory
// and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/cli_run.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const std::string nginx_ok =
    "upstream b {\n  hash $key consistent;\n  server 10.0.0.1:80;\n  server 10.0.0.2:80;\n}\n";

// DIR/ok.json: a two-server nginx scheme topology; DIR/ctl.json: the same
// with a server named "a<0x01>b"; DIR/tab.json with "a<TAB>b".
void topologies(const std::string& dir) {
  const std::string head =
      "{\"format\":\"ringbloom-topology\",\"version\":1,\"scheme\":\"nginx\",\"nodes\":[";
  write_text(dir + "/ok.json", head + "{\"name\":\"a\",\"weight\":1},{\"name\":\"b\"}]}");
  write_text(dir + "/ctl.json", head + "{\"name\":\"a\\u0001b\"},{\"name\":\"b\"}]}");
  write_text(dir + "/tab.json", head + "{\"name\":\"a\\tb\"},{\"name\":\"b\"}]}");
  write_text(dir + "/ok.conf", nginx_ok);
}

std::vector<std::string> import_file(const std::string& system, const std::string& file,
                                     std::vector<std::string> options = {}) {
  std::vector<std::string> args{"ring", "import", system, "{dir}/" + file, "-o", "{dir}/t.json"};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

std::function<void(const std::string&)> file(const std::string& name, const std::string& text) {
  return [name, text](const std::string& dir) { write_text(dir + "/" + name, text); };
}

const std::string envoy_head =
    "static_resources:\n  clusters:\n  - name: c\n    lb_policy: RING_HASH\n"
    "    load_assignment:\n      endpoints:\n      - lb_endpoints:\n";

const std::vector<hostile_case> import_cases = {
    {"nginx_with_a_nul_byte",
     import_file("nginx", "n.conf", {"--upstream", "b"}),
     3,
     {"{dir}/n.conf:4", "control byte 0x00"},
     {},
     file("n.conf",
          "upstream b {\n  hash $key consistent;\n  server 10.0.0.1:80;\n  server "
          "10.0.0.2:80" +
              std::string(1, '\0') + "junk;\n}\n")},
    {"haproxy_server_name_with_a_control_byte",
     import_file("haproxy", "h.cfg", {"--backend", "be"}),
     3,
     {"{dir}/h.cfg:4", "control byte 0x01"},
     {},
     file("h.cfg",
          "backend be\n  balance uri\n  hash-type consistent\n  server s\x01x 10.0.0.1:80\n")},
    {"nginx_over_16_mib",
     import_file("nginx", "big.conf", {"--upstream", "b"}),
     3,
     {"{dir}/big.conf", "16.0 MiB"},
     {},
     file("big.conf", std::string(17u << 20, '#'))},
    {"nginx_device",
     {"ring", "import", "nginx", "/dev/zero", "--upstream", "b"},
     3,
     {"'/dev/zero'", "is a device"}},
    {"nginx_directory",
     {"ring", "import", "nginx", "{dir}", "--upstream", "b"},
     3,
     {"'{dir}'", "is a directory"}},
    {"nginx_without_upstream",
     import_file("nginx", "two.conf"),
     2,
     {"--upstream", "'b', 'c'"},
     {},
     file("two.conf", nginx_ok + "upstream c {\n  hash $key consistent;\n  server c:80;\n}\n")},
    {"nginx_negative_weight",
     import_file("nginx", "w.conf", {"--upstream", "b"}),
     3,
     {"{dir}/w.conf:3", "weight=-1"},
     {},
     file("w.conf", "upstream b {\n  hash $key consistent;\n  server 10.0.0.1:80 weight=-1;\n}\n")},
    {"haproxy_weight_past_256",
     import_file("haproxy", "h.cfg", {"--backend", "be"}),
     3,
     {"{dir}/h.cfg:4", "300"},
     {},
     file("h.cfg",
          "backend be\n  balance uri\n  hash-type consistent\n  server s1 "
          "10.0.0.1:80 weight 300\n")},
    {"cassandra_rf_negative",
     import_file("cassandra", "ok.conf", {"--rf", "-1"}),
     2,
     {"--rf", "'-1'"},
     {},
     topologies},
    {"cassandra_rf_zero",
     import_file("cassandra", "ok.conf", {"--rf", "0"}),
     2,
     {"--rf", "'0'"},
     {},
     topologies},
    {"cassandra_dc_rf_all_zero",
     import_file("cassandra", "ok.conf", {"--dc-rf", "dc1=0,dc2=0"}),
     2,
     {"--dc-rf", "every data centre", "factor 0"},
     {},
     topologies},
    {"cassandra_dc_rf_negative",
     import_file("cassandra", "ok.conf", {"--dc-rf", "dc1=-1"}),
     2,
     {"--dc-rf 'dc1=-1'", "0", "100000"},
     {},
     topologies},
    {"cassandra_dc_rf_nonsense",
     import_file("cassandra", "ok.conf", {"--dc-rf", "dc1=three"}),
     2,
     {"--dc-rf 'dc1=three'", "100000"},
     {},
     topologies},
    {"cassandra_dc_rf_too_large",
     import_file("cassandra", "ok.conf", {"--dc-rf", "dc1=100001"}),
     2,
     {"--dc-rf 'dc1=100001'", "100000"},
     {},
     topologies},
    {"cassandra_dc_rf_twice",
     import_file("cassandra", "ok.conf", {"--dc-rf", "dc1=3,dc1=2"}),
     2,
     {"--dc-rf", "'dc1' twice"},
     {},
     topologies},
    {"cassandra_dc_rf_without_a_name",
     import_file("cassandra", "ok.conf", {"--dc-rf", "=3"}),
     2,
     {"--dc-rf '=3'", "DC=N"},
     {},
     topologies},
    {"envoy_weight_negative",
     import_file("envoy", "e.yaml"),
     3,
     {"{dir}/e.yaml:9", "wrong type"},
     {},
     file("e.yaml", envoy_head +
                        "        - endpoint: {address: {socket_address: {address: 10.0.0.1, "
                        "port_value: 80}}}\n          load_balancing_weight: -3\n")},
    {"envoy_hostname_with_a_tab",
     import_file("envoy", "e.yaml"),
     3,
     {"{dir}/e.yaml", "'a\\tb'", "control character"},
     {},
     file("e.yaml",
          "static_resources:\n  clusters:\n  - name: c\n    lb_policy: RING_HASH\n"
          "    common_lb_config: {consistent_hashing_lb_config: {use_hostname_for_hashing: "
          "true}}\n    load_assignment:\n      endpoints:\n      - lb_endpoints:\n"
          "        - endpoint: {hostname: \"a\\tb\", address: {socket_address: {address: "
          "10.0.0.1, port_value: 80}}}\n")},
    {"envoy_maglev_table_absurd",
     import_file("envoy", "m.yaml"),
     3,
     {"{dir}/m.yaml:3", "99999999999"},
     {},
     file("m.yaml",
          "static_resources:\n  clusters:\n  - name: c\n    lb_policy: MAGLEV\n"
          "    maglev_lb_config: {table_size: 99999999999}\n    load_assignment:\n"
          "      endpoints:\n      - lb_endpoints:\n        - endpoint: {address: "
          "{socket_address: {address: 10.0.0.1, port_value: 80}}}\n")},
    {"envoy_deeply_nested",
     import_file("envoy", "d.yaml"),
     3,
     {"{dir}/d.yaml:1"},
     {},
     file("d.yaml", "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n")},
    {"twemproxy_server_not_a_string",
     import_file("twemproxy", "t.yml"),
     3,
     {"{dir}/t.yml:3"},
     {},
     file("t.yml", "alpha:\n  servers:\n   - {a: 1}\n")},
    {"redis_cluster_binary",
     import_file("redis-cluster", "nodes.txt"),
     3,
     {"{dir}/nodes.txt:1", "control byte"},
     {},
     file("nodes.txt", std::string("\x1f\x8b\x08\x00gzip", 8))},
    // The system-scheme paths of lookup, diff and simulate.
    {"lookup_topology_with_a_control_name",
     {"ring", "lookup", "--ring", "{dir}/ctl.json", "k"},
     3,
     {"{dir}/ctl.json", "'a\\x01b'"},
     {},
     topologies},
    {"diff_topology_with_a_tab_name",
     {"ring", "diff", "{dir}/ok.json", "{dir}/tab.json"},
     3,
     {"{dir}/tab.json", "'a\\tb'"},
     {},
     topologies},
    {"diff_keys_past_2_to_64",
     {"ring", "diff", "{dir}/ok.json", "{dir}/ok.json", "--keys", "18446744073709551616"},
     2,
     {"--keys", "18446744073709551616", "from 1 to 100000000"},
     {},
     topologies},
    {"diff_keys_max_does_not_run_forever",
     {"ring", "diff", "{dir}/ok.json", "{dir}/ok.json", "--keys", "18446744073709551615"},
     2,
     {"--keys", "from 1 to 100000000"},
     {},
     topologies},
    {"diff_keys_negative",
     {"ring", "diff", "{dir}/ok.json", "{dir}/ok.json", "--keys", "-5"},
     2,
     {"--keys", "'-5'"},
     {},
     topologies},
    {"diff_keys_file_is_a_device",
     {"ring", "diff", "{dir}/ok.json", "{dir}/ok.json", "--keys", "/dev/zero"},
     3,
     {"'/dev/zero'", "is a device"},
     {},
     topologies},
    {"lookup_scheme_node_with_a_tab",
     {"ring", "lookup", "--scheme", "nginx", "--nodes", "a\tb,c", "k"},
     2,
     {"'a\\tb'", "control character"}},
    {"lookup_scheme_too_many_nodes",
     {"ring", "lookup", "--scheme", "nginx", "--nodes", "100001", "k"},
     2,
     {"100001", "100000"}},
    {"lookup_scheme_weight_past_nginx",
     {"ring", "lookup", "--scheme", "nginx", "--nodes", "a=99999999999,b", "k"},
     2,
     {"99999999999", "'a'"}},
    {"lookup_scheme_replicas_zero",
     {"ring", "lookup", "--scheme", "nginx", "--nodes", "a,b", "--replicas", "0", "k"},
     2,
     {"--replicas", "'0'"}},
    {"simulate_scheme_keys_zero",
     {"ring", "simulate", "--scheme", "nginx", "--nodes", "4", "--add", "1", "--keys", "0"},
     2,
     {"--keys", "'0'"}},
};

std::vector<std::string> strategy(std::vector<std::string> options) {
  std::vector<std::string> args{"ring", "simulate", "--strategy", "all"};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

std::string many_changes(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i == 0 ? "" : ",") + std::string(i % 2 ? "remove:x" : "add:x");
  return s;
}

const std::vector<hostile_case> strategy_cases = {
    {"keys_past_the_strategy_limit",
     strategy({"--nodes", "4", "--change", "add:x", "--keys", "20000000"}),
     2,
     {"--keys 20000000", "10000000"}},
    {"keys_negative",
     strategy({"--nodes", "4", "--change", "add:x", "--keys", "-1"}),
     2,
     {"--keys", "'-1'"}},
    {"no_change_refused_before_building_keys",
     strategy({"--nodes", "4", "--keys", "10000000"}),
     2,
     {"--strategy", "--change"}},
    {"too_many_nodes",
     strategy({"--nodes", "100000", "--change", "add:x", "--keys", "1000"}),
     2,
     {"--strategy", "100000 nodes", "10000"}},
    {"too_many_changes",
     strategy({"--nodes", "4", "--change", many_changes(5000)}),
     2,
     {"--strategy", "20000 keys", "5000 changes"}},
    {"vnodes_times_nodes_past_the_ring_limit",
     strategy({"--nodes", "5000", "--vnodes", "16777216", "--change", "add:x", "--keys", "10"}),
     2,
     {"--strategy", "16777216 ring points per node", "give fewer vnodes"}},
    {"change_name_with_a_tab",
     strategy({"--nodes", "4", "--change", "add:a\tb"}),
     2,
     {"'a\\tb'", "control character"}},
    {"nodes_name_with_a_newline",
     strategy({"--nodes", "a\nb,c", "--change", "add:x"}),
     2,
     {"'a\\nb'"}},
    {"change_weight_negative",
     strategy({"--nodes", "4", "--change", "reweight:n1=-1"}),
     2,
     {"--change", "reweight:n1=-1"}},
    {"change_weight_nan",
     strategy({"--nodes", "4", "--change", "reweight:n1=nan"}),
     2,
     {"--change", "reweight:n1=nan"}},
    {"change_weight_huge",
     strategy({"--nodes", "4", "--change", "reweight:n1=1e308"}),
     2,
     {"--change", "reweight:n1=1e308", "from 1 to 4294967295"}},
    {"change_weight_past_32_bits",
     strategy({"--nodes", "4", "--change", "add:x=4294967296"}),
     2,
     {"--change", "add:x=4294967296", "from 1 to 4294967295"}},
    {"change_weight_below_1",
     strategy({"--nodes", "4", "--change", "reweight:n1=1e-300"}),
     2,
     {"--change", "reweight:n1=1e-300", "from 1 to 4294967295"}},
    {"change_unknown", strategy({"--nodes", "4", "--change", "bogus:zz"}), 2, {"'bogus:zz'"}},
    {"change_removes_a_missing_node",
     strategy({"--nodes", "4", "--change", "remove:zz"}),
     2,
     {"remove:zz"}},
    {"strategy_unknown",
     {"ring", "simulate", "--strategy", "bogus", "--nodes", "4", "--change", "add:x"},
     2,
     {"'bogus'"}},
    {"change_without_strategy",
     {"ring", "simulate", "--nodes", "4", "--change", "add:x"},
     2,
     {"--change", "--strategy"}},
};

class ImportHostile : public ::testing::TestWithParam<hostile_case> {};
class StrategyHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(ImportHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }
TEST_P(StrategyHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, ImportHostile, ::testing::ValuesIn(import_cases),
                         test::hostile_label{});
INSTANTIATE_TEST_SUITE_P(Cases, StrategyHostile, ::testing::ValuesIn(strategy_cases),
                         test::hostile_label{});

// The bounds refuse only what is out of bounds: a clean nginx configuration
// is imported.
TEST(SchemeHostileInputs, CleanConfigurationIsImported) {
  const test::temp_dir dir;
  write_text(dir.path() + "/ok.conf", nginx_ok);
  const auto r = test::run_cli_bounded(
      {"ring", "import", "nginx", dir.path() + "/ok.conf", "--upstream", "b", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"10.0.0.2:80\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ringbloom
