// `ringbloom merkle ...` end to end: build (file and stdin), diff with and
// without rows files, info, --json shapes, exit codes and bad input. The
// expected answers come from the library (merkle_test checks the library
// against independent counts) and from the rows the test wrote.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ringbloom/merkle/merkle_file.hpp"
#include "ringbloom/merkle/merkle_rows.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using json = nlohmann::json;
using test::cli_result;
using test::run_cli;
using test::temp_dir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string describe(const cli_result& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

cli_result merkle(std::vector<std::string> args, const std::string& in = {}) {
  args.insert(args.begin(), "merkle");
  return run_cli(args, in);
}

// Replica a: 5000 rows; b: key7 changed, key8 missing, "extra" added.
struct fixture {
  temp_dir dir;
  std::string a_rows = dir.file("a.tsv");
  std::string b_rows = dir.file("b.tsv");
  std::string a_tree = dir.file("a.rbm");
  std::string b_tree = dir.file("b.rbm");
  std::string b_text;
  fixture() {
    std::ofstream a(a_rows);
    std::ofstream b(b_rows);
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "key" + std::to_string(i);
      const std::string value = "value" + std::to_string(i * 31);
      a << key << '\t' << value << '\n';
      if (i == 7) {
        b_text += key + "\tCHANGED\n";
      } else if (i != 8) {
        b_text += key + '\t' + value + '\n';
      }
    }
    b_text += "extra\tnew\n";
    b << b_text;
  }
};

TEST(CliMerkle, BuildWritesTheTreeTheLibraryBuilds) {
  fixture f;
  const cli_result r = merkle({"build", f.a_rows, "-o", f.a_tree, "--depth", "12"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const merkle_tree expected = build_tree_from_rows(f.a_rows, {.depth = 12});
  EXPECT_EQ(load_tree(f.a_tree), expected);
  EXPECT_THAT(r.out,
              HasSubstr("5000 rows, depth 12 (4096 leaves), root " + digest_hex(expected.root())));
  // From standard input, the same tree.
  const cli_result piped =
      merkle({"build", "-", "-o", f.b_tree, "--depth", "12", "--json"}, "key1\tv\n");
  ASSERT_EQ(piped.exit_code, 0) << describe(piped);
  EXPECT_EQ(json::parse(piped.out)["rows"], 1);
}

TEST(CliMerkle, DiffListsRangesAndWithRowsTheKeys) {
  fixture f;
  ASSERT_EQ(merkle({"build", f.a_rows, "-o", f.a_tree}).exit_code, 0);
  ASSERT_EQ(merkle({"build", f.b_rows, "-o", f.b_tree}).exit_code, 0);
  const cli_result plain = merkle({"diff", f.a_tree, f.b_tree});
  EXPECT_EQ(plain.exit_code, 1) << describe(plain);
  EXPECT_THAT(plain.out, StartsWith("trees differ in 3 leaves"));
  const cli_result keys =
      merkle({"diff", f.a_tree, f.b_tree, "--rows-a", f.a_rows, "--rows-b", f.b_rows});
  EXPECT_EQ(keys.exit_code, 1) << describe(keys);
  EXPECT_THAT(keys.out, HasSubstr("extra\tonly-in-b\nkey7\tchanged\nkey8\tonly-in-a\n"));
  const cli_result doc =
      merkle({"diff", f.a_tree, f.b_tree, "--rows-a", f.a_rows, "--rows-b", f.b_rows, "--json"});
  const json j = json::parse(doc.out);
  EXPECT_EQ(j["equal"], false);
  EXPECT_EQ(j["leaves"].size(), 3u);
  const merkle_diff d = diff(load_tree(f.a_tree), load_tree(f.b_tree));
  EXPECT_EQ(j["digests_exchanged"], d.digests_exchanged);
  ASSERT_EQ(j["keys"].size(), 3u);
  EXPECT_EQ(j["keys"][1], (json{{"key", "key7"},
                                {"change", "changed"},
                                {"value_a", "value217"},
                                {"value_b", "CHANGED"}}));
  EXPECT_TRUE(j["keys"][0]["value_a"].is_null());
  const cli_result same = merkle({"diff", f.a_tree, f.a_tree, "--json"});
  EXPECT_EQ(same.exit_code, 0) << describe(same);
  EXPECT_EQ(json::parse(same.out)["digests_exchanged"], 1);
}

TEST(CliMerkle, InfoDescribesTheFile) {
  fixture f;
  ASSERT_EQ(merkle({"build", f.a_rows, "-o", f.a_tree, "--depth", "10"}).exit_code, 0);
  const cli_result r = merkle({"info", f.a_tree, "--json"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["depth"], 10);
  EXPECT_EQ(j["rows"], 5000);
  EXPECT_EQ(j["key_hash"], "xxh3");
  EXPECT_EQ(j["row_hash"], "xxh3-128");
  EXPECT_EQ(j["file_bytes"], 64 + 24 * 1024 + 8);
  EXPECT_THAT(merkle({"info", f.a_tree}).out, HasSubstr("depth           10 (1024 leaves)"));
}

TEST(CliMerkle, RingLimitedTreesCompareOnlySharedRanges) {
  fixture f;
  ASSERT_EQ(run_cli({"ring", "init", f.dir.file("ring.json"), "--nodes", "a,b,c,d"}).exit_code, 0);
  const std::vector<std::string> ring = {"--ring", f.dir.file("ring.json"), "--replicas", "2"};
  auto args = [&](std::string rows, std::string out, std::string node, std::string peer) {
    std::vector<std::string> v = {"build", rows,     "-o", out,     "--node",
                                  node,    "--peer", peer, "--json"};
    v.insert(v.end(), ring.begin(), ring.end());
    return v;
  };
  const cli_result a = merkle(args(f.a_rows, f.a_tree, "a", "b"));
  ASSERT_EQ(a.exit_code, 0) << describe(a);
  const double covered = json::parse(a.out)["fraction_covered"];
  EXPECT_GT(covered, 0.0);
  EXPECT_LT(covered, 0.5);
  ASSERT_EQ(merkle(args(f.b_rows, f.b_tree, "b", "a")).exit_code, 0);
  const merkle_tree ta = load_tree(f.a_tree);
  EXPECT_LT(ta.rows(), 5000u);
  EXPECT_EQ(load_tree(f.b_tree).options().ranges, ta.options().ranges);
  // Trees limited differently are refused as a usage error.
  ASSERT_EQ(merkle(args(f.b_rows, f.dir.file("c.rbm"), "c", "d")).exit_code, 0);
  const cli_result mixed = merkle({"diff", f.a_tree, f.dir.file("c.rbm")});
  EXPECT_EQ(mixed.exit_code, 2) << describe(mixed);
  EXPECT_THAT(mixed.err, HasSubstr("different hash ranges"));
  EXPECT_EQ(merkle({"build", f.a_rows, "-o", f.a_tree, "--node", "a"}).exit_code, 2);
  EXPECT_EQ(
      merkle({"build", f.a_rows, "-o", f.a_tree, "--ring", f.dir.file("ring.json"), "--node", "zz"})
          .exit_code,
      2);
}

TEST(CliMerkle, BadInputExitsWithASentence) {
  fixture f;
  // A line without a TAB: exit 3, nothing written.
  const cli_result notab = merkle({"build", "-", "-o", f.a_tree}, "a\t1\nno tab\n");
  EXPECT_EQ(notab.exit_code, 3) << describe(notab);
  EXPECT_THAT(notab.err,
              StartsWith("ringbloom: error: standard input line 2 has no TAB; write each row"));
  EXPECT_FALSE(std::filesystem::exists(f.a_tree));
  // Depth out of range: usage.
  const cli_result depth = merkle({"build", f.a_rows, "-o", f.a_tree, "--depth", "30"});
  EXPECT_EQ(depth.exit_code, 2) << describe(depth);
  EXPECT_THAT(depth.err, HasSubstr("--depth must be an integer from 1 to 22"));
  // Trees of different depths: usage.
  ASSERT_EQ(merkle({"build", f.a_rows, "-o", f.a_tree, "--depth", "8", "--force"}).exit_code, 0);
  ASSERT_EQ(merkle({"build", f.b_rows, "-o", f.b_tree, "--depth", "9", "--force"}).exit_code, 0);
  const cli_result depths = merkle({"diff", f.a_tree, f.b_tree});
  EXPECT_EQ(depths.exit_code, 2) << describe(depths);
  EXPECT_THAT(depths.err, HasSubstr("cannot compare trees of depth 8 and 9"));
  // Different key hashes: usage.
  ASSERT_EQ(
      merkle({"build", f.b_rows, "-o", f.b_tree, "--depth", "8", "--hash", "sha256", "--force"})
          .exit_code,
      0);
  EXPECT_EQ(merkle({"diff", f.a_tree, f.b_tree}).exit_code, 2);
  // One rows file without the other: usage.
  EXPECT_EQ(merkle({"diff", f.a_tree, f.a_tree, "--rows-a", f.a_rows}).exit_code, 2);
  // A rows file that is not the tree's: data.
  ASSERT_EQ(merkle({"build", f.b_rows, "-o", f.b_tree, "--depth", "8", "--force"}).exit_code, 0);
  const cli_result stale =
      merkle({"diff", f.a_tree, f.b_tree, "--rows-a", f.b_rows, "--rows-b", f.b_rows});
  EXPECT_EQ(stale.exit_code, 3) << describe(stale);
  EXPECT_THAT(stale.err, HasSubstr("rebuild the tree from these rows"));
  // A duplicated key in a rescanned range: data.
  std::ofstream(f.dir.file("dup.tsv")) << f.b_text << "key7\tagain\n";
  ASSERT_EQ(merkle({"build", f.dir.file("dup.tsv"), "-o", f.dir.file("dup.rbm"), "--depth", "8"})
                .exit_code,
            0);
  const cli_result dup = merkle({"diff", f.a_tree, f.dir.file("dup.rbm"), "--rows-a", f.a_rows,
                                 "--rows-b", f.dir.file("dup.tsv")});
  EXPECT_EQ(dup.exit_code, 3) << describe(dup);
  EXPECT_THAT(dup.err, HasSubstr("key 'key7' appears twice"));
  // A corrupt tree file: data.
  std::ofstream(f.dir.file("bad.rbm")) << "not a tree";
  const cli_result bad = merkle({"info", f.dir.file("bad.rbm")});
  EXPECT_EQ(bad.exit_code, 3) << describe(bad);
  EXPECT_THAT(bad.err, HasSubstr("not a ringbloom Merkle tree file"));
  const cli_result missing = merkle({"info", f.dir.file("missing.rbm")});
  EXPECT_EQ(missing.exit_code, 3) << describe(missing);
  EXPECT_THAT(missing.err, HasSubstr("; check the file names"));
}

}  // namespace
}  // namespace ringbloom
