// The command line's one output rule (cli/output.hpp), on the real binary:
// no command writes over one of its own inputs (even with --force, even by
// another name for the same file), and none writes over another existing
// file without --force.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;
using ::testing::HasSubstr;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const std::string nginx_conf =
    "upstream c {\n  hash $uri consistent;\n  server 10.0.0.1:80;\n  server 10.0.0.2:80;\n}\n";

TEST(CliOutput, NoCommandWritesOverItsOwnInput) {
  test::temp_dir dir;
  const std::string conf = dir.file("x.conf");
  write(conf, nginx_conf);
  for (const bool force : {false, true}) {
    std::vector<std::string> args = {"ring",       "import", "nginx", conf,
                                     "--upstream", "c",      "-o",    conf};
    if (force) args.push_back("--force");
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("is also an input of this command"));
    EXPECT_EQ(read(conf), nginx_conf) << "the input must be untouched";
  }
  const std::string rows = dir.file("rows.tsv");
  write(rows, "a\t1\nb\t2\n");
  auto r = run_cli({"merkle", "build", rows, "-o", rows, "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("write the output to another file"));
  EXPECT_EQ(read(rows), "a\t1\nb\t2\n");
  const std::string keys = dir.file("k.txt");
  write(keys, "alpha\nbeta\ngamma\n");
  r = run_cli({"bloom", "create", keys, "--kind", "fuse8", "--from", keys, "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read(keys), "alpha\nbeta\ngamma\n");
  // Another name for the same file (a hard link) is the same input.
  const std::string link = dir.file("link.conf");
  ASSERT_EQ(::link(conf.c_str(), link.c_str()), 0);
  r = run_cli({"ring", "import", "nginx", conf, "--upstream", "c", "-o", link, "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read(conf), nginx_conf);
}

TEST(CliOutput, AnExistingFileIsReplacedOnlyWithForce) {
  test::temp_dir dir;
  const std::string conf = dir.file("x.conf");
  write(conf, nginx_conf);
  const std::string out = dir.file("t.json");
  write(out, "keep me");
  auto r = run_cli({"ring", "import", "nginx", conf, "--upstream", "c", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("already exists; pass --force to replace it"));
  EXPECT_EQ(read(out), "keep me");
  r = run_cli({"ring", "import", "nginx", conf, "--upstream", "c", "-o", out, "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(read(out), HasSubstr("ringbloom-topology"));

  const std::string rows = dir.file("rows.tsv");
  write(rows, "a\t1\n");
  const std::string tree = dir.file("tree.rbm");
  write(tree, "keep me");
  r = run_cli({"merkle", "build", rows, "-o", tree});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read(tree), "keep me");
  r = run_cli({"merkle", "build", rows, "-o", tree, "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;

  // bloom merge: OUT may be A or B (it is updated under its lock), but
  // another existing file needs --force.
  const std::string a = dir.file("a.rbf");
  const std::string b = dir.file("b.rbf");
  ASSERT_EQ(run_cli({"bloom", "create", a, "--capacity", "100", "--fpr", "0.01"}).exit_code, 0);
  ASSERT_EQ(run_cli({"bloom", "create", b, "--capacity", "100", "--fpr", "0.01"}).exit_code, 0);
  const std::string other = dir.file("other.rbf");
  write(other, "keep me");
  r = run_cli({"bloom", "merge", a, b, "-o", other});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read(other), "keep me");
  EXPECT_EQ(run_cli({"bloom", "merge", a, b, "-o", a}).exit_code, 0);
  EXPECT_EQ(run_cli({"bloom", "merge", a, b, "-o", other, "--force"}).exit_code, 0);

  const std::string hll = dir.file("v.hll");
  ASSERT_EQ(run_cli({"hll", "create", hll, "--redis"}).exit_code, 0);
  const std::string blob = dir.file("v.blob");
  write(blob, "keep me");
  r = run_cli({"hll", "export-redis", hll, "-o", blob});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read(blob), "keep me");
  EXPECT_EQ(run_cli({"hll", "export-redis", hll, "-o", blob, "--force"}).exit_code, 0);
}

}  // namespace
}  // namespace ringbloom
