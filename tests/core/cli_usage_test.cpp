// The command line's usage errors: CLI11's own messages ("--capacity: At
// Most 1 required but received 2") reach users as sentences that name the
// option or argument and the command whose --help shows the usage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;

struct usage_case {
  std::vector<std::string> args;
  std::string message;  // the whole stderr line after "ringbloom: error: "
};

TEST(CliUsage, ParserMessagesAreSentencesNamingTheOption) {
  test::temp_dir dir;
  const std::string f = dir.file("f.rbf");
  const std::vector<usage_case> cases = {
      {{"bloom", "create", f, "--capacity", "10", "--capacity", "20"},
       "--capacity is given more than once; give it once; run 'ringbloom bloom create --help' "
       "to see the usage"},
      {{"bloom", "create", f, "--capacity"},
       "--capacity needs a value after it; run 'ringbloom bloom create --help' to see the usage"},
      {{"bloom", "create", f, "--capacity", "10", "--bogus"},
       "there is no option --bogus; run 'ringbloom bloom create --help' to see the usage"},
      {{"bloom", "create", f, "g.rbf", "--capacity", "10"},
       "'g.rbf' is one argument too many; run 'ringbloom bloom create --help' to see the usage"},
      {{"bloom", "check"}, "file is missing; run 'ringbloom bloom check --help' to see the usage"},
      {{"ring"}, "a command is missing; run 'ringbloom ring --help' to see the usage"},
      {{"ring", "lookup", "--ring", "r.json", "--nodes", "a,b", "k"},
       "--ring and --nodes cannot be given together; give one of them; run 'ringbloom ring "
       "lookup --help' to see the usage"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message;
    EXPECT_EQ(r.err, "ringbloom: error: " + c.message + "\n");
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace ringbloom
