// Commands that read items from stdin answer each line before the next one
// arrives, so another program can drive them as a co-process (write a key,
// wait for its answer, write the next) without a deadlock.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.hpp"

namespace ringbloom::test {
namespace {

// Long enough for a loaded machine under a sanitizer; a stalled command
// would never answer at all.
constexpr int answer_timeout_ms = 20000;

TEST(CliStream, BloomCheckAnswersEachLineBeforeTheNextArrives) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  ASSERT_EQ(run_cli({"bloom", "create", file, "--capacity", "1000", "--fpr", "0.01"}).exit_code, 0);
  ASSERT_EQ(run_cli({"bloom", "add", file, "anna"}).exit_code, 0);

  cli_process check({"bloom", "check", file});
  check.write_line("anna");
  EXPECT_EQ(check.read_line(answer_timeout_ms), "anna\tmaybe");
  check.write_line("never-added-item");
  EXPECT_EQ(check.read_line(answer_timeout_ms), "never-added-item\tno");
  EXPECT_EQ(check.finish(), 1);  // one item was definitely absent
}

TEST(CliStream, RingLookupAnswersEachLineBeforeTheNextArrives) {
  cli_process lookup({"ring", "lookup", "--nodes", "a,b,c"});
  for (const std::string key : {"user:1", "user:2", "user:3"}) {
    lookup.write_line(key);
    const auto answer = lookup.read_line(answer_timeout_ms);
    ASSERT_TRUE(answer.has_value()) << "no answer for " << key;
    const auto expected = run_cli({"ring", "lookup", "--nodes", "a,b,c", key}).out;
    EXPECT_EQ(*answer + "\n", expected);
  }
  EXPECT_EQ(lookup.finish(), 0);
}

}  // namespace
}  // namespace ringbloom::test
