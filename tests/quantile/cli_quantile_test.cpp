// The `ringbloom quantile` commands: spellings, stdin streaming, JSON, exit
// codes and error sentences (the CLI is a thin skin; the numbers come from
// the library, whose answers the test compares against).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ringbloom/io/file_io.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;

std::string numbers(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += std::to_string(i) + "\n";
  return s;
}

TEST(CliQuantile, TDigestCreateAddQueryInfo) {
  test::temp_dir dir;
  const auto f = dir.file("lat.rbq");
  ASSERT_EQ(
      run_cli({"quantile", "create", f, "--kind", "tdigest", "--compression", "200"}).exit_code, 0);
  ASSERT_EQ(run_cli({"quantile", "add", f, "1", "2.5"}).exit_code, 0);
  const auto add = run_cli({"quantile", "add", f, "--json"}, numbers(3, 10000));
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(nlohmann::json::parse(add.out)["count"], 10000);
  const auto q = run_cli({"quantile", "query", f, "--quantile", "0.5,0.99", "--json"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  const auto doc = nlohmann::json::parse(q.out);
  const auto td = load_quantile_as<tdigest>(f);
  EXPECT_EQ(doc["kind"], "tdigest");
  EXPECT_EQ(doc["quantiles"][0]["value"].get<double>(), td.quantile(0.5));
  EXPECT_EQ(doc["quantiles"][1]["value"].get<double>(), td.quantile(0.99));
  const auto text = run_cli(
      {"quantile", "query", f, "--cdf", "5000", "--rank", "100", "--trimmed-mean", "0.1,0.9"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("cdf 5000: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("rank 100: " + std::to_string(td.rank(100))), std::string::npos);
  EXPECT_NE(text.out.find("trimmed mean 0.1..0.9: "), std::string::npos);
  const auto info = nlohmann::json::parse(run_cli({"quantile", "info", f, "--json"}).out);
  EXPECT_EQ(info["compression"], 200.0);
  EXPECT_EQ(info["min"], 1.0);
  EXPECT_EQ(info["max"], 10000.0);
}

TEST(CliQuantile, KllAndMerge) {
  test::temp_dir dir;
  const auto a = dir.file("a.rbq"), b = dir.file("b.rbq"), m = dir.file("m.rbq");
  ASSERT_EQ(
      run_cli({"quantile", "create", a, "--kind", "kll", "--k", "100", "--seed", "3"}).exit_code,
      0);
  ASSERT_EQ(run_cli({"quantile", "create", b, "--kind", "kll", "--k", "100"}).exit_code, 0);
  ASSERT_EQ(run_cli({"quantile", "add", a}, numbers(1, 5000)).exit_code, 0);
  ASSERT_EQ(run_cli({"quantile", "add", b}, numbers(5001, 10000)).exit_code, 0);
  const auto merged = run_cli({"quantile", "merge", a, b, "-o", m});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(load_quantile_as<kll_sketch>(m).count(), 10000u);
  const auto info = nlohmann::json::parse(run_cli({"quantile", "info", m, "--json"}).out);
  EXPECT_EQ(info["k"], 100);
  EXPECT_NEAR(info["rank_error"].get<double>(), 0.0261, 0.0001);  // 2.296 / 100^0.9723
  // The merged median is within the rank error of 5000.
  const double median = load_quantile_as<kll_sketch>(m).quantile(0.5);
  EXPECT_NEAR(median, 5000, 0.0261 * 10000);
}

TEST(CliQuantile, Refusals) {
  test::temp_dir dir;
  const auto t = dir.file("t.rbq"), k = dir.file("k.rbq");
  ASSERT_EQ(run_cli({"quantile", "create", t, "--kind", "tdigest"}).exit_code, 0);
  ASSERT_EQ(run_cli({"quantile", "create", k, "--kind", "kll"}).exit_code, 0);
  const auto exists = run_cli({"quantile", "create", t, "--kind", "tdigest"});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_NE(exists.err.find("already exists; pass --force"), std::string::npos) << exists.err;
  const auto mixed =
      run_cli({"quantile", "create", dir.file("x.rbq"), "--kind", "kll", "--compression", "100"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--compression is for --kind tdigest"), std::string::npos);
  const auto bad_line = run_cli({"quantile", "add", t}, "1\n2\nabc\n4\n");
  EXPECT_EQ(bad_line.exit_code, 2);
  EXPECT_NE(bad_line.err.find("line 3: 'abc' is not a finite number"), std::string::npos)
      << bad_line.err;
  EXPECT_EQ(load_quantile_as<tdigest>(t).count(), 2u);  // the lines before it were added
  EXPECT_EQ(run_cli({"quantile", "add", t, "inf"}).exit_code, 2);
  EXPECT_EQ(load_quantile_as<tdigest>(t).count(), 2u);
  const auto missing = run_cli({"quantile", "add", dir.file("none.rbq"), "1"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("ringbloom quantile create"), std::string::npos) << missing.err;
  const auto kinds = run_cli({"quantile", "merge", t, k, "-o", dir.file("m.rbq")});
  EXPECT_EQ(kinds.exit_code, 2);
  EXPECT_NE(kinds.err.find("merge files of one kind"), std::string::npos) << kinds.err;
  const auto q = run_cli({"quantile", "query", t, "--quantile", "1.5"});
  EXPECT_EQ(q.exit_code, 2);
  EXPECT_NE(q.err.find("between 0 and 1"), std::string::npos) << q.err;
  EXPECT_EQ(run_cli({"quantile", "query", t}).exit_code, 2);
  io::write_file_atomic(dir.file("bad.rbq"), "\x89RBQ\r\n\x1a\n not a sketch");
  const auto bad = run_cli({"quantile", "info", dir.file("bad.rbq")});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("damaged"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ringbloom
