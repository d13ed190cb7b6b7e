// tests/support/hostile.hpp: table-driven hostile-input tests of the CLI.
// Each family's *_hostile_test.cpp lists command lines a script,
// a typo or an attacker could produce; every one must be refused cleanly:
//   - the expected exit code (2 usage, 3 bad data or I/O);
//   - stdout empty, and stderr exactly one line
//     "ringbloom: error: <what>; <what to do>" that names the option, file or
//     value at fault and holds no raw library text (std::bad_alloc,
//     "filesystem error" ...);
//   - nothing written: the case's directory holds the same files with the
//     same bytes afterwards (no half-written output, no temporary left);
//   - bounded: the command runs under an address-space limit (512 MiB, like
//     `prlimit --as`; not under the sanitizers, which reserve terabytes of
//     address space, so there the peak resident memory is checked instead)
//     and is killed after 20 seconds (like `timeout`).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace ringbloom::test {

/// What run_cli_bounded saw (out, err, exit_code, timed_out, max_rss_kb).
using bounded_result = child_exchange;

/// The limits of run_cli_bounded.
struct run_limits {
  unsigned long long address_space = 512ull << 20;  // bytes; ignored under sanitizers
  int seconds = 20;                                 // wall-clock time before SIGKILL
};

/// Runs the CLI with `args` under `limits`, feeding `stdin_text`.
bounded_result run_cli_bounded(const std::vector<std::string>& args,
                               const std::string& stdin_text = {}, const run_limits& limits = {});

/// Whether this build runs under a sanitizer (no address-space limit then).
[[nodiscard]] bool sanitized_build() noexcept;

/// One hostile command line and what its refusal must say.
struct hostile_case {
  std::string label;              // a gtest name: letters, digits and '_'
  std::vector<std::string> args;  // "{dir}" is replaced by the case's directory
  int exit_code = 2;
  std::vector<std::string> names;  // stderr must contain each ("{dir}" replaced too)
  std::string stdin_text = {};
  /// Creates the files the case needs in its directory before the run.
  std::function<void(const std::string& dir)> setup = {};
};

/// Runs `c` in a fresh temporary directory and checks every rule above with
/// gtest EXPECTs.
void expect_clean_refusal(const hostile_case& c);

/// For INSTANTIATE_TEST_SUITE_P: the case's label as the test name.
struct hostile_label {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param.label;
  }
};

}  // namespace ringbloom::test
