// tests/filter/bloom_cli_checks.hpp: running `ringbloom bloom ...` in a test
// and checking its exit code and its error line in the house format, shared
// by the bloom CLI test files.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_run.hpp"

namespace ringbloom::test {

/// `ringbloom bloom ARGS...` with `stdin_text` on its standard input.
inline cli_result bloom(std::vector<std::string> args, const std::string& stdin_text = {}) {
  args.insert(args.begin(), "bloom");
  return run_cli(args, stdin_text);
}

/// The exit code and both streams, for a failure message.
inline std::string describe(const cli_result& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

/// Runs a command that must exit with `code` and returns its result.
inline cli_result expect_exit(int code, std::vector<std::string> args, const std::string& in = {}) {
  cli_result r = bloom(std::move(args), in);
  EXPECT_EQ(r.exit_code, code) << describe(r);
  return r;
}

/// Runs a command that must fail with `code`, printing one error line in the
/// house format ("ringbloom: error: ...; what to do") that contains `needle`.
inline void expect_error(int code, std::vector<std::string> args, const std::string& needle,
                         const std::string& in = {}) {
  const cli_result r = bloom(std::move(args), in);
  EXPECT_EQ(r.exit_code, code) << describe(r);
  EXPECT_THAT(r.err, ::testing::StartsWith("ringbloom: error: ")) << describe(r);
  EXPECT_THAT(r.err, ::testing::HasSubstr(needle)) << describe(r);
  EXPECT_THAT(r.err, ::testing::HasSubstr(";")) << "errors say what to do: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace ringbloom::test
