// Hostile input to `ringbloom ring ...`: each row is a command a
// script, a typo or an attacker could produce, and must be refused with the
// exit code, one sentence naming the option, file or name, nothing written,
// and bounded memory and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/placement/topology.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// DIR/t.json: nodes a, b and c with tokens [5, 9]; DIR/u.json: a and b.
void topologies(const std::string& dir) {
  topology t;
  t.nodes = {{"a", 1, {}}, {"b", 1, {}}, {"c", 1, {5, 9}}};
  save_topology(dir + "/t.json", t);
  t.nodes.pop_back();
  save_topology(dir + "/u.json", t);
}

// A topology file whose "nodes" member is `nodes` and whose other members
// are `extra` (JSON text put in as is).
std::function<void(const std::string&)> topology_file(const std::string& nodes,
                                                      const std::string& extra = "") {
  return [=](const std::string& dir) {
    write_text(dir + "/t.json", R"({"format":"ringbloom-topology","version":1,"scheme":"ring",)" +
                                    extra + R"("nodes":)" + nodes + "}");
  };
}

std::vector<std::string> lookup(std::vector<std::string> options) {
  std::vector<std::string> args{"ring", "lookup"};
  args.insert(args.end(), options.begin(), options.end());
  args.emplace_back("key");
  return args;
}

const std::vector<hostile_case> cases = {
    // Numbers read as what they mean, with the range in the message.
    {"simulate_keys_2_to_64_minus_1",
     {"ring", "simulate", "--nodes", "4", "--keys", "18446744073709551615"},
     2,
     {"--keys", "18446744073709551615", "from 1 to 100000000"}},
    {"simulate_keys_negative",
     {"ring", "simulate", "--nodes", "4", "--keys", "-1"},
     2,
     {"--keys", "'-1'"}},
    {"simulate_keys_zero",
     {"ring", "simulate", "--nodes", "4", "--keys", "0"},
     2,
     {"--keys", "'0'"}},
    {"diff_keys_huge",
     {"ring", "diff", "{dir}/t.json", "{dir}/u.json", "--keys", "1000000000000"},
     2,
     {"--keys", "1000000000000"},
     {},
     topologies},
    {"lookup_replicas_zero",
     lookup({"--nodes", "a,b", "--replicas", "0"}),
     2,
     {"--replicas", "'0'", "from 1 to"}},
    {"lookup_replicas_negative",
     lookup({"--nodes", "a,b", "--replicas", "-1"}),
     2,
     {"--replicas", "'-1'"}},
    {"lookup_vnodes_negative",
     lookup({"--nodes", "a,b", "--vnodes", "-1"}),
     2,
     {"--vnodes", "'-1'"}},
    {"lookup_vnodes_zero", lookup({"--nodes", "a,b", "--vnodes", "0"}), 2, {"--vnodes", "'0'"}},
    {"lookup_vnodes_past_2_to_32",
     lookup({"--nodes", "a,b", "--vnodes", "4294967296"}),
     2,
     {"--vnodes", "4294967296"}},
    {"lookup_node_count_zero", lookup({"--nodes", "0"}), 2, {"--nodes", "'0'"}},
    {"lookup_node_count_too_large", lookup({"--nodes", "100001"}), 2, {"--nodes", "100000"}},
    {"simulate_add_zero", {"ring", "simulate", "--nodes", "4", "--add", "0"}, 2, {"--add", "'0'"}},
    {"lookup_weight_zero", lookup({"--nodes", "a=0,b"}), 2, {"'a=0'", "weight"}},
    {"lookup_weight_negative", lookup({"--nodes", "a=-1,b"}), 2, {"'a=-1'"}},
    {"lookup_weight_past_2_to_32", lookup({"--nodes", "a=4294967296"}), 2, {"4294967296"}},
    {"add_token_negative",
     {"ring", "add", "{dir}/t.json", "d", "--tokens", "-1"},
     2,
     {"--tokens", "'-1'"},
     {},
     topologies},
    // Sizes refused before building.
    {"lookup_points_past_the_limit",
     lookup({"--nodes", "100000", "--vnodes", "1000"}),
     2,
     {"100000000 points", "16777216"}},
    {"lookup_scheme_unknown", lookup({"--nodes", "a,b", "--scheme", "maglev2"}), 2, {"maglev2"}},
    // Names that would break `key<TAB>node` output, or are absurd.
    {"lookup_name_with_tab", lookup({"--nodes", "a\tb,c"}), 2, {"'a\\tb'", "control character"}},
    {"lookup_name_with_newline",
     lookup({"--nodes", "x\ny,z"}),
     2,
     {"'x\\ny'", "control character"}},
    {"lookup_name_too_long", lookup({"--nodes", std::string(300, 'n')}), 2, {"300 bytes", "256"}},
    {"init_name_with_tab",
     {"ring", "init", "{dir}/new.json", "--nodes", "a\tb"},
     2,
     {"control character"}},
    {"add_name_with_newline",
     {"ring", "add", "{dir}/t.json", "d\ne"},
     2,
     {"'d\\ne'"},
     {},
     topologies},
    {"show_name_with_nul",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"{dir}/t.json", "'a\\x00b'"},
     {},
     topology_file(R"([{"name":"a\u0000b"}])")},
    {"show_name_with_comma",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"'a,b'", "comma"},
     {},
     topology_file(R"([{"name":"a,b"}])")},
    {"show_name_of_a_megabyte",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"1000000 bytes"},
     {},
     topology_file(R"([{"name":")" + std::string(1000000, 'x') + R"("}])")},
    // Contradictions in topology files.
    {"show_format_given_twice",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"{dir}/t.json", "\"format\" appears twice"},
     {},
     topology_file("[]", R"("format":"ringbloom-topology",)")},
    {"show_weight_given_twice",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"\"weight\" appears twice", "one node"},
     {},
     topology_file(R"([{"name":"a","weight":1,"weight":2}])")},
    {"show_token_twice_in_a_node",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"token 1 is given twice", "'a'"},
     {},
     topology_file(R"([{"name":"a","tokens":[1,1]}])")},
    {"show_token_twice_across_nodes",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"token 7", "'a' and 'b'"},
     {},
     topology_file(R"([{"name":"a","tokens":[7]},{"name":"b","tokens":[3,7]}])")},
    {"add_token_twice",
     {"ring", "add", "{dir}/t.json", "d", "--tokens", "8,8"},
     2,
     {"token 8 is given twice"},
     {},
     topologies},
    {"add_token_of_another_node",
     {"ring", "add", "{dir}/t.json", "d", "--tokens", "9"},
     2,
     {"token 9", "'c' and 'd'"},
     {},
     topologies},
    {"show_not_json",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"{dir}/t.json", "not valid JSON"},
     {},
     [](const std::string& dir) { write_text(dir + "/t.json", "hello"); }},
    {"show_vnodes_past_2_to_64",
     {"ring", "show", "{dir}/t.json"},
     3,
     {"{dir}/t.json"},
     {},
     topology_file("[]", R"("vnodes":184467440737095516160,)")},
    // Files that are not regular files.
    {"show_device", {"ring", "show", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"show_directory", {"ring", "show", "{dir}"}, 3, {"'{dir}'", "is a directory"}},
    {"lookup_ring_directory", lookup({"--ring", "{dir}"}), 3, {"'{dir}'", "is a directory"}},
    {"add_to_directory",
     {"ring", "add", "{dir}/sub", "d"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }},
    {"add_to_pipe",
     {"ring", "add", "{dir}/pipe", "d"},
     3,
     {"'{dir}/pipe'", "pipe"},
     {},
     [](const std::string& dir) { ::mkfifo((dir + "/pipe").c_str(), 0644); }},
    {"init_forced_over_directory",
     {"ring", "init", "{dir}/sub", "--nodes", "a", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }},
    {"show_missing", {"ring", "show", "{dir}/absent.json"}, 3, {"{dir}/absent.json"}},
    {"lookup_key_with_a_newline",
     {"ring", "lookup", "--nodes", "a,b", "k1", "k\r2"},
     2,
     {"item 2", "'k\\r2'", "line break"}},
    // Standard input is read line by line, each line capped.
    {"lookup_line_over_16_mib",
     {"ring", "lookup", "--nodes", "a,b"},
     2,
     {"line 1", "16 MiB"},
     std::string(17u << 20, 'k')},
};

class RingHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(RingHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, RingHostile, ::testing::ValuesIn(cases), test::hostile_label{});

// 16 million points fit the points limit but not 512 MiB: refused before the
// ring is built, naming the points and the options. Only meaningful under the
// address-space limit (the sanitizer builds run without one).
TEST(RingHostileInputs, RingLargerThanTheMemoryLimitIsRefusedBeforeBuilding) {
  if (test::sanitized_build()) GTEST_SKIP() << "no address-space limit under the sanitizers";
  test::expect_clean_refusal({"ring_of_16_million_points",
                              lookup({"--nodes", "160", "--vnodes", "100000"}),
                              2,
                              {"16000000 points", "--vnodes 100000", "of memory"}});
}

}  // namespace
}  // namespace ringbloom
