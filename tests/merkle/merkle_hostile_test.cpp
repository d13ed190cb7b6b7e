// Hostile input to `ringbloom merkle ...`: each row is a command a
// script, a typo or an attacker could produce, and must be refused with the
// exit code, one sentence naming the option or file, nothing written, and
// bounded memory and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/merkle/merkle_file.hpp"
#include "ringbloom/merkle/merkle_tree.hpp"
#include "ringbloom/placement/topology.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void sub_directory(const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }

// DIR/rows.tsv, DIR/a.rbm (depth 4) and DIR/b.rbm (depth 5), DIR/ring.json
// (nodes a and b).
void files(const std::string& dir) {
  write_text(dir + "/rows.tsv", "k1\tv1\nk2\tv2\n");
  for (const unsigned depth : {4u, 5u}) {
    merkle_options o;
    o.depth = depth;
    merkle_builder b(o);
    b.add("k1", "v1");
    save_tree(dir + (depth == 4 ? "/a.rbm" : "/b.rbm"), b.finish());
  }
  topology t;
  t.nodes = {{"a", 1, {}}, {"b", 1, {}}};
  save_topology(dir + "/ring.json", t);
}

std::vector<std::string> build(std::vector<std::string> options) {
  std::vector<std::string> args{"merkle", "build", "{dir}/rows.tsv", "-o", "{dir}/t.rbm"};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

const std::vector<hostile_case> cases = {
    {"depth_40", build({"--depth", "40"}), 2, {"--depth", "'40'", "from 1 to 22"}, {}, files},
    {"depth_zero", build({"--depth", "0"}), 2, {"--depth", "'0'"}, {}, files},
    {"depth_negative", build({"--depth", "-16"}), 2, {"--depth", "'-16'"}, {}, files},
    {"depth_past_2_to_32",
     build({"--depth", "4294967312"}),
     2,
     {"--depth", "'4294967312'"},
     {},
     files},
    {"replicas_zero",
     build({"--ring", "{dir}/ring.json", "--node", "a", "--replicas", "0"}),
     2,
     {"--replicas", "'0'"},
     {},
     files},
    {"replicas_negative",
     build({"--ring", "{dir}/ring.json", "--node", "a", "--replicas", "-1"}),
     2,
     {"--replicas", "'-1'"},
     {},
     files},
    {"hash_unknown", build({"--hash", "crc"}), 2, {"crc"}, {}, files},
    {"node_without_ring", build({"--node", "a"}), 2, {"--node", "--ring"}, {}, files},
    {"ring_is_a_directory",
     build({"--ring", "{dir}/sub", "--node", "a"}),
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) {
       files(dir);
       sub_directory(dir);
     }},
    {"rows_device",
     {"merkle", "build", "/dev/zero", "-o", "{dir}/t.rbm"},
     3,
     {"'/dev/zero'", "is a device"}},
    {"rows_directory",
     {"merkle", "build", "{dir}", "-o", "{dir}/t.rbm"},
     3,
     {"'{dir}'", "is a directory"}},
    {"rows_stdin_line_over_16_mib",
     {"merkle", "build", "-", "-o", "{dir}/t.rbm"},
     3,
     {"standard input", "line 1", "16 MiB"},
     std::string(17u << 20, 'k')},
    {"rows_without_tab",
     build({}),
     3,
     {"{dir}/rows.tsv", "line 2", "TAB"},
     {},
     [](const std::string& dir) { write_text(dir + "/rows.tsv", "k1\tv1\nbinary\x01junk\n"); }},
    {"output_is_a_directory",
     {"merkle", "build", "{dir}/rows.tsv", "-o", "{dir}/sub", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) {
       files(dir);
       sub_directory(dir);
     }},
    {"info_device", {"merkle", "info", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"info_not_a_tree", {"merkle", "info", "{dir}/rows.tsv"}, 3, {"{dir}/rows.tsv"}, {}, files},
    {"info_truncated",
     {"merkle", "info", "{dir}/a.rbm"},
     3,
     {"{dir}/a.rbm"},
     {},
     [](const std::string& dir) {
       files(dir);
       std::filesystem::resize_file(dir + "/a.rbm", 64);
     }},
    {"diff_different_depths",
     {"merkle", "diff", "{dir}/a.rbm", "{dir}/b.rbm"},
     2,
     {"{dir}/a.rbm", "{dir}/b.rbm"},
     {},
     files},
    {"ring_without_node", build({"--ring", "{dir}/ring.json"}), 2, {"--ring", "--node"}, {}, files},
    {"node_not_in_ring",
     build({"--ring", "{dir}/ring.json", "--node", "zz"}),
     2,
     {"zz"},
     {},
     files},
    {"diff_rows_a_without_rows_b",
     {"merkle", "diff", "{dir}/a.rbm", "{dir}/a.rbm", "--rows-a", "{dir}/rows.tsv"},
     2,
     {"--rows-a", "--rows-b"},
     {},
     files},
    {"diff_rows_device",
     {"merkle", "diff", "{dir}/a.rbm", "{dir}/a.rbm", "--rows-a", "/dev/zero", "--rows-b",
      "{dir}/rows.tsv"},
     3,
     {"'/dev/zero'", "is a device"},
     {},
     files},
};

class MerkleHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(MerkleHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, MerkleHostile, ::testing::ValuesIn(cases), test::hostile_label{});

}  // namespace
}  // namespace ringbloom
