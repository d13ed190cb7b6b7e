// The `ringbloom hll|cms|topk` and `ringbloom cuckoo` commands: spellings,
// stdin streaming, exit codes and error sentences (the CLI is a thin skin;
// the numbers come from the library, tested in the other suites).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "ringbloom/io/file_io.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;

TEST(CliHll, CreateAddCountMergeInfo) {
  test::temp_dir dir;
  const auto a = dir.file("a.hll"), b = dir.file("b.hll"), u = dir.file("u.hll");
  ASSERT_EQ(run_cli({"hll", "create", a}).exit_code, 0);
  ASSERT_EQ(run_cli({"hll", "create", b}).exit_code, 0);
  ASSERT_EQ(run_cli({"hll", "add", a, "anna", "bora", "anna"}).exit_code, 0);
  ASSERT_EQ(run_cli({"hll", "add", b}, "bora\ncem\ndora\n").exit_code, 0);
  EXPECT_EQ(run_cli({"hll", "count", a}).out, "2\n");
  EXPECT_EQ(run_cli({"hll", "count", a, b}).out, "4\n");
  ASSERT_EQ(run_cli({"hll", "merge", u, a, b}).exit_code, 0);
  EXPECT_EQ(run_cli({"hll", "count", u}).out, "4\n");
  const auto info = run_cli({"hll", "info", u, "--json"});
  EXPECT_NE(info.out.find("\"precision\":14"), std::string::npos) << info.out;
}

TEST(CliHll, RedisImportExportAndBadInput) {
  test::temp_dir dir;
  const auto r = dir.file("r.hll"), blob = dir.file("r.blob"), back = dir.file("back.hll");
  ASSERT_EQ(run_cli({"hll", "create", r, "--redis"}).exit_code, 0);
  ASSERT_EQ(run_cli({"hll", "add", r, "x", "y", "z"}).exit_code, 0);
  ASSERT_EQ(run_cli({"hll", "export-redis", r, "-o", blob}).exit_code, 0);
  EXPECT_EQ(from_redis_string(io::read_file(blob)).count(), 3u);
  ASSERT_EQ(run_cli({"hll", "import-redis", blob, "-o", back}).exit_code, 0);
  EXPECT_EQ(run_cli({"hll", "count", back}).out, "3\n");

  io::write_file_atomic(blob, "HYLL but not really");
  const auto bad = run_cli({"hll", "import-redis", blob, "-o", dir.file("x.hll")});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("not a valid Redis HyperLogLog"), std::string::npos) << bad.err;
  const auto p = run_cli({"hll", "create", dir.file("p.hll"), "--precision", "19"});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.err.find("from 4 to 18"), std::string::npos) << p.err;
}

TEST(CliCms, IncrFromArgsAndTabbedStdinQueryMerge) {
  test::temp_dir dir;
  const auto c = dir.file("c.cms"), m = dir.file("m.cms");
  ASSERT_EQ(run_cli({"cms", "create", c, "--error", "0.001", "--probability", "0.01"}).exit_code,
            0);
  ASSERT_EQ(run_cli({"cms", "incr", c, "a", "b", "a"}).exit_code, 0);
  ASSERT_EQ(run_cli({"cms", "incr", c}, "a\t40\nz\n").exit_code, 0);
  EXPECT_EQ(run_cli({"cms", "query", c, "a", "z", "q"}).out, "a\t42\nz\t1\nq\t0\n");
  ASSERT_EQ(run_cli({"cms", "merge", m, c, c, "--weights", "1", "2"}).exit_code, 0);
  EXPECT_EQ(run_cli({"cms", "query", m, "a"}).out, "a\t126\n");
  EXPECT_EQ(run_cli({"cms", "incr", c}, "a\tmany\n").exit_code, 2);
  const auto bad =
      run_cli({"cms", "create", dir.file("x"), "--error", "1.5", "--probability", "0.1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--error must be a number greater than 0 and less than 1"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(run_cli({"cms", "create", dir.file("y"), "--width", "10"}).exit_code, 2);
}

// Two processes counting into one file at once: the locked updates lose nothing.
TEST(CliCms, ConcurrentIncrementsAreAllCounted) {
  test::temp_dir dir;
  const auto c = dir.file("c.cms");
  ASSERT_EQ(run_cli({"cms", "create", c, "--width", "1000", "--depth", "3"}).exit_code, 0);
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "k" + std::to_string(i % 50) + "\n";
  int first = -1, second = -1;
  std::thread a([&] { first = run_cli({"cms", "incr", c}, lines).exit_code; });
  std::thread b([&] { second = run_cli({"cms", "incr", c}, lines).exit_code; });
  a.join();
  b.join();
  ASSERT_EQ(first, 0);
  ASSERT_EQ(second, 0);
  const auto info = run_cli({"cms", "info", c, "--json"});
  EXPECT_NE(info.out.find("\"total\":40000"), std::string::npos) << info.out;
}

TEST(CliTopK, AddListQuery) {
  test::temp_dir dir;
  const auto t = dir.file("t.topk");
  ASSERT_EQ(run_cli({"topk", "create", t, "--k", "2", "--width", "64", "--depth", "4"}).exit_code,
            0);
  ASSERT_EQ(run_cli({"topk", "add", t}, "a\na\na\nb\nb\nc\n").exit_code, 0);
  EXPECT_EQ(run_cli({"topk", "list", t}).out, "a\nb\n");
  EXPECT_EQ(run_cli({"topk", "list", t, "--with-counts"}).out, "a\t3\nb\t2\n");
  const auto q = run_cli({"topk", "query", t, "a", "c"});
  EXPECT_EQ(q.out, "a\tyes\nc\tno\n");
  EXPECT_EQ(q.exit_code, 1);
  EXPECT_EQ(run_cli({"topk", "create", dir.file("z"), "--k", "0"}).exit_code, 2);
  EXPECT_EQ(run_cli({"topk", "create", dir.file("z"), "--k", "3", "--decay", "0"}).exit_code, 2);
}

// An item that is not UTF-8 is listed by --json with its bad bytes replaced
// (U+FFFD), as every --json output does, not refused with the JSON library's text.
TEST(CliTopK, JsonListReplacesBytesThatAreNotUtf8) {
  test::temp_dir dir;
  const auto t = dir.file("t.topk");
  ASSERT_EQ(run_cli({"topk", "create", t, "--k", "3"}).exit_code, 0);
  ASSERT_EQ(run_cli({"topk", "add", t, "caf\xe9", "caf\xe9", "ok"}).exit_code, 0);
  auto r = run_cli({"topk", "list", t, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["items"].size(), 2u);
  EXPECT_EQ(doc["items"][0]["item"], "caf\xef\xbf\xbd");
  EXPECT_EQ(doc["items"][0]["count"], 2);
  r = run_cli({"topk", "query", t, "caf\xe9", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["item"], "caf\xef\xbf\xbd");
  r = run_cli({"topk", "add", t, "caf\xe9", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
}

TEST(CliCuckoo, AddCheckRemoveAndCorruptFiles) {
  test::temp_dir dir;
  const auto f = dir.file("s.cf");
  ASSERT_EQ(run_cli({"cuckoo", "create", f, "--capacity", "1000", "--bucket-size", "4",
                     "--fingerprint-bits", "16"})
                .exit_code,
            0);
  ASSERT_EQ(run_cli({"cuckoo", "add", f}, "s1\ns2\n").exit_code, 0);
  auto check = run_cli({"cuckoo", "check", f, "s1", "nope"});
  EXPECT_EQ(check.out, "s1\tmaybe\nnope\tno\n");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(run_cli({"cuckoo", "remove", f, "s1"}).exit_code, 0);
  EXPECT_EQ(run_cli({"cuckoo", "check", f, "s1"}).exit_code, 1);
  EXPECT_EQ(run_cli({"cuckoo", "remove", f, "s2", "never-added"}).exit_code, 1);
  EXPECT_EQ(run_cli({"cuckoo", "check", f, "s2"}).exit_code, 0);  // batch left unchanged
  EXPECT_EQ(run_cli({"cuckoo", "create", dir.file("b"), "--capacity", "9", "--bucket-size", "256"})
                .exit_code,
            2);
  std::string bytes = io::read_file(f);
  bytes[100] = static_cast<char>(bytes[100] ^ 1);
  io::write_file_atomic(f, bytes);
  const auto bad = run_cli({"cuckoo", "check", f, "s2"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("checksum"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ringbloom
