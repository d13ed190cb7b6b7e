// Tests of `ringbloom ring ...`, running the real binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliRingSimulate, ReproducesTheGermanFiguresAsJson) {
  // The figures of tests/placement/ring_golden.py (python): modulo 15918 of 20000,
  // ring 3171, all to n5; shares with 100 vnodes 5173/4901/5156/4770.
  const auto r = run_cli({"ring", "simulate", "--nodes", "4", "--add", "1", "--keys", "20000",
                          "--hash", "sha256", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["keys"], 20000);
  EXPECT_EQ(doc["hash"], "sha256");
  EXPECT_EQ(doc["vnodes"], 100);
  EXPECT_EQ(doc["modulo"]["moved"], 15918);
  EXPECT_DOUBLE_EQ(doc["modulo"]["moved_fraction"].get<double>(), 0.7959);
  EXPECT_EQ(doc["ring"]["moved"], 3171);
  EXPECT_EQ(doc["ring"]["moved_to"], json({{"n5", 3171}}));
  EXPECT_DOUBLE_EQ(doc["ring"]["shares_before"]["n1"].get<double>(), 5173.0 / 20000);
  EXPECT_DOUBLE_EQ(doc["ring"]["shares_before"]["n4"].get<double>(), 4770.0 / 20000);
  EXPECT_EQ(doc["ring"]["shares_after"].size(), 5u);
}

TEST(CliRingSimulate, OneVirtualNodeAndTextOutput) {
  const auto r = run_cli(
      {"ring", "simulate", "--nodes", "4", "--add", "1", "--vnodes", "1", "--hash", "sha256"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // python: with 1 vnode n2 holds 1456 of 20000 keys = 7.28%.
  EXPECT_THAT(r.out, HasSubstr("15918 of 20000 keys moved (79.59%)"));
  EXPECT_THAT(r.out, HasSubstr("n2                      7.28%"));
}

TEST(CliRingSimulate, RemoveAndKeyFormat) {
  const auto r = run_cli({"ring", "simulate", "--nodes", "a,b,c=2", "--remove", "b", "--keys",
                          "5000", "--key-format", "user:{}:x", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  // Only b's keys move, to a and c.
  hash_ring before;
  before.add_node("a");
  before.add_node("b");
  before.add_node("c", 2);
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back("user:" + std::to_string(i) + ":x");
  const auto counts = load(before, keys).counts;
  EXPECT_EQ(doc["ring"]["moved"], counts[1]);
  EXPECT_FALSE(doc["ring"]["moved_to"].contains("b"));
  EXPECT_FALSE(doc["ring"]["shares_after"].contains("b"));
}

TEST(CliRingSimulate, UsageErrors) {
  auto r = run_cli({"ring", "simulate", "--nodes", "4", "--add", "1", "--key-format", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, StartsWith("ringbloom: error: --key-format 'nope' has no '{}'"));
  r = run_cli({"ring", "simulate", "--nodes", "a,b", "--remove", "z"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'z', which is not among the nodes"));
  r = run_cli({"ring", "simulate", "--nodes", "a,a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("node 'a' is given twice"));
  r = run_cli({"ring", "simulate", "--nodes", "a=0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("integer weight >= 1"));
  r = run_cli({"ring", "simulate", "--nodes", "4", "--hash", "crc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("crc"));
}

TEST(CliRingLookup, ArgumentsAndStdinAgreeWithTheLibrary) {
  hash_ring ring;
  ring.add_node("a");
  ring.add_node("b");
  ring.add_node("c", 2);
  const auto args = run_cli({"ring", "lookup", "--nodes", "a,b,c=2", "k1", "k2", "k3"});
  ASSERT_EQ(args.exit_code, 0) << args.err;
  EXPECT_EQ(args.out, "k1\t" + ring.node_for("k1") + "\nk2\t" + ring.node_for("k2") + "\nk3\t" +
                          ring.node_for("k3") + "\n");
  std::string input;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "user:" + std::to_string(i);
    input += key + (i % 2 == 0 ? "\n" : "\r\n");
    expected += key + "\t" + ring.node_for(key) + "\n";
  }
  const auto piped = run_cli({"ring", "lookup", "--nodes", "a,b,c=2"}, input);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, expected);
}

TEST(CliRingLookup, ReplicasJsonAndKetama) {
  hash_ring ring({100, hash_kind::sha256, ring_scheme::native});
  for (const char* n : {"a", "b", "c", "d"}) ring.add_node(n);
  const auto r = run_cli(
      {"ring", "lookup", "--nodes", "a,b,c,d", "--hash", "sha256", "--replicas", "3", "anna"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto replicas = ring.nodes_for("anna", 3);
  EXPECT_EQ(r.out, "anna\t" + replicas[0] + "," + replicas[1] + "," + replicas[2] + "\n");

  const auto j =
      run_cli({"ring", "lookup", "--nodes", "a,b,c,d", "--hash", "sha256", "--json", "anna"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(json::parse(j.out), json({{"key", "anna"}, {"node", ring.node_for("anna")}}));

  hash_ring ketama(ring_options::ketama());
  ketama.add_node("10.0.0.1:11211");
  ketama.add_node("10.0.0.2:11212", 3);
  const auto k = run_cli({"ring", "lookup", "--scheme", "ketama", "--nodes",
                          "10.0.0.1:11211,10.0.0.2:11212=3", "foo", "bar"});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(k.out, "foo\t" + ketama.node_for("foo") + "\nbar\t" + ketama.node_for("bar") + "\n");
  const auto bad =
      run_cli({"ring", "lookup", "--scheme", "ketama", "--vnodes", "10", "--nodes", "h", "x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("leave --hash and --vnodes out"));
}

TEST(CliRingFile, InitAddRemoveShowLookupDiff) {
  test::temp_dir dir;
  const std::string file = dir.file("cluster.json");
  auto r = run_cli({"ring", "init", file, "--nodes", "a,b", "--hash", "sha256", "--vnodes", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load_topology(file).nodes.size(), 2u);
  EXPECT_EQ(load_topology(file).options.hash, hash_kind::sha256);

  r = run_cli({"ring", "init", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("already exists; pass --force"));

  const std::string before = dir.file("before.json");
  std::ofstream(before) << to_json(load_topology(file));

  r = run_cli({"ring", "add", file, "c=2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["nodes"].size(), 3u);
  EXPECT_EQ(doc["nodes"][2]["points"], 100);
  // The space that moved is what c owns now.
  const hash_ring now = build_ring(load_topology(file));
  EXPECT_NEAR(doc["moved_fraction"].get<double>(), ownership(now)[2].share, 1e-12);

  r = run_cli({"ring", "add", file, "t", "--tokens", "20,55"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load_topology(file).nodes.back().tokens, (std::vector<std::uint64_t>{20, 55}));

  r = run_cli({"ring", "add", file, "a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("node 'a' is already in"));
  r = run_cli({"ring", "remove", file, "zz"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("node 'zz' is not in"));
  r = run_cli({"ring", "remove", file, "t"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = run_cli({"ring", "show", file, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  EXPECT_EQ(doc["scheme"], "ring");
  EXPECT_EQ(doc["points"], 200);
  double total = 0;
  for (const auto& node : doc["nodes"]) total += node["ownership"].get<double>();
  EXPECT_NEAR(total, 1.0, 1e-12);
  r = run_cli({"ring", "show", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scheme ring, hash sha256, 50 vnodes, 3 nodes, 200 points"));

  r = run_cli({"ring", "lookup", "--ring", file, "anna"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "anna\t" + now.node_for("anna") + "\n");

  r = run_cli({"ring", "diff", before, file, "--keys", "10000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  const auto plan = plan_movement(build_ring(load_topology(before)), now);
  EXPECT_DOUBLE_EQ(doc["moved_fraction"].get<double>(), plan.moved_fraction);
  EXPECT_EQ(doc["ranges"].size(), plan.ranges.size());
  for (const auto& range : doc["ranges"]) EXPECT_EQ(range["to"], "c");
  EXPECT_EQ(doc["keys"]["moved_to"].size(), 1u);
  r = run_cli({"ring", "diff", before, file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(lines_of(r.out)[0], HasSubstr("of the hash space changes owner"));
}

TEST(CliRingFile, BadFilesExit3) {
  test::temp_dir dir;
  const std::string file = dir.file("bad.json");
  std::ofstream(file)
      << R"({"format":"ringbloom-topology","version":7,"scheme":"ring","nodes":[]})";
  auto r = run_cli({"ring", "show", file});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("topology version 7 is not supported"));
  r = run_cli({"ring", "lookup", "--ring", dir.file("missing.json"), "k"});
  EXPECT_EQ(r.exit_code, 3);
  std::ofstream(file, std::ios::trunc)
      << R"({"format":"ringbloom-topology","version":1,"scheme":"ring","nodes":[]})";
  r = run_cli({"ring", "lookup", "--ring", file, "k"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("has no nodes"));
}

// A ring needs a node: removing the last one is refused, and the file keeps it.
TEST(CliRingFile, RemovingTheLastNodeIsRefused) {
  test::temp_dir dir;
  const std::string file = dir.file("one.json");
  ASSERT_EQ(run_cli({"ring", "init", file, "--nodes", "a,b"}).exit_code, 0);
  ASSERT_EQ(run_cli({"ring", "remove", file, "a"}).exit_code, 0);
  auto r = run_cli({"ring", "remove", file, "b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("would leave " + file + " without nodes"));
  EXPECT_THAT(r.err, HasSubstr("add the node that takes over first"));
  ASSERT_EQ(load_topology(file).nodes.size(), 1u);
  EXPECT_EQ(load_topology(file).nodes[0].name, "b");
  // All at once too: nothing is removed.
  ASSERT_EQ(run_cli({"ring", "add", file, "c"}).exit_code, 0);
  r = run_cli({"ring", "remove", file, "b", "c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(load_topology(file).nodes.size(), 2u);
}

// `ring diff OLD NEW --keys FILE` (docs/placement.md) on native rings lists
// the moved keys, as for a system's topologies, and agrees with the library.
TEST(CliRingFile, DiffWithAKeysFileListsTheMovedKeys) {
  test::temp_dir dir;
  const std::string before = dir.file("before.json");
  const std::string after = dir.file("after.json");
  ASSERT_EQ(run_cli({"ring", "init", before, "--nodes", "a,b,c"}).exit_code, 0);
  ASSERT_EQ(run_cli({"ring", "init", after, "--nodes", "a,b,c,d"}).exit_code, 0);
  const std::string keys = dir.file("keys.txt");
  std::vector<std::string> names;
  {
    std::ofstream out(keys);
    for (int i = 0; i < 500; ++i) {
      names.push_back("user:" + std::to_string(i));
      out << names.back() << '\n';
    }
  }
  const hash_ring old_ring = build_ring(load_topology(before));
  const hash_ring new_ring = build_ring(load_topology(after));
  std::size_t moved = 0;
  for (const auto& k : names) moved += old_ring.node_for(k) != new_ring.node_for(k) ? 1 : 0;
  ASSERT_GT(moved, 0u);

  auto r = run_cli({"ring", "diff", before, after, "--keys", keys, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["keys"], 500);
  EXPECT_EQ(doc["moved"], moved);
  ASSERT_EQ(doc["moved_keys"].size(), moved);
  for (const auto& k : doc["moved_keys"]) {
    const std::string key = k["key"];
    EXPECT_EQ(k["from"], old_ring.node_for(key));
    EXPECT_EQ(k["to"], new_ring.node_for(key));
    EXPECT_EQ(k["to"], "d");  // a join moves keys onto the new node only
  }
  r = run_cli({"ring", "diff", before, after, "--keys", keys});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(std::to_string(moved) + " of 500 keys"));
  // A count still gives the plan of hash ranges.
  r = run_cli({"ring", "diff", before, after, "--keys", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(lines_of(r.out)[0], HasSubstr("of the hash space changes owner"));
}

// The --scheme help is the library's list of schemes, every one of them.
TEST(CliRingLookup, HelpListsEveryScheme) {
  const auto r = run_cli({"ring", "lookup", "--help"});
  ASSERT_EQ(r.exit_code, 0);
  std::string help = r.out;
  // CLI11 wraps long help: read it as one line of words.
  for (auto pos = help.find('\n'); pos != std::string::npos; pos = help.find('\n', pos)) {
    const auto next = help.find_first_not_of(' ', pos + 1);
    help.replace(pos, next - pos, " ");
  }
  for (const std::string_view scheme : schemes::system_scheme_names()) {
    EXPECT_THAT(help, HasSubstr(std::string(scheme))) << scheme;
  }
  EXPECT_THAT(help, HasSubstr("ketama"));
}

// A topology file that is empty or not JSON is described in our words,
// never with the JSON parser's text.
TEST(CliRingFile, BrokenJsonIsDescribedInOurWords) {
  test::temp_dir dir;
  const std::string empty = dir.file("empty.txt");
  std::ofstream(empty).flush();
  auto r = run_cli({"ring", "lookup", "--ring", empty, "k"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "ringbloom: error: " + empty +
                       ": the file is empty; give a topology file written by ringbloom\n");
  const std::string cut = dir.file("cut.json");
  std::ofstream(cut) << "{\"format\": \"ringbloom-topology\",\n  \"scheme\": ";
  r = run_cli({"ring", "lookup", "--ring", cut, "k"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("not valid JSON: it ends at line 2 before the JSON is complete"));
  const std::string typo = dir.file("typo.json");
  std::ofstream(typo) << "{\n  \"scheme\": ring\n}";
  r = run_cli({"ring", "show", typo});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("not valid JSON: it goes wrong at line 2, column 13"));
  for (const auto& out : {r.err}) {
    EXPECT_THAT(out, ::testing::Not(HasSubstr("json.exception")));
    EXPECT_THAT(out, ::testing::Not(HasSubstr("parse error")));
  }
}

TEST(CliRing, EveryCommandHasHelpWithAnExample) {
  for (const char* verb : {"simulate", "lookup", "init", "add", "remove", "show", "diff"}) {
    const auto r = run_cli({"ring", verb, "--help"});
    EXPECT_EQ(r.exit_code, 0) << verb;
    EXPECT_THAT(r.out, HasSubstr("Example:\n  ringbloom ring " + std::string(verb))) << verb;
  }
}

}  // namespace
}  // namespace ringbloom
