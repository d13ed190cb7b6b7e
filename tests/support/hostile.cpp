// Bounded runs of the CLI and the clean-refusal checks (see hostile.hpp).
#include "support/hostile.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "support/cli_run.hpp"

extern char** environ;

namespace ringbloom::test {
namespace {

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

std::string replace_dir(std::string text, const std::string& dir) {
  for (auto at = text.find("{dir}"); at != std::string::npos; at = text.find("{dir}", at)) {
    text.replace(at, 5, dir);
    at += dir.size();
  }
  return text;
}

// Every entry under `dir` (recursively) with its type and, for regular
// files, its bytes: equal snapshots mean nothing was written.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto status = e.symlink_status();
    std::string content = "type " + std::to_string(static_cast<int>(status.type()));
    if (fs::is_regular_file(status)) {
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      content += " " + bytes.str();
    }
    entries[e.path().string()] = std::move(content);
  }
  return entries;
}

}  // namespace

bool sanitized_build() noexcept {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

bounded_result run_cli_bounded(const std::vector<std::string>& args, const std::string& stdin_text,
                               const run_limits& limits) {
#ifndef RINGBLOOM_CLI_PATH
  (void)args, (void)stdin_text, (void)limits;
  throw std::runtime_error("this test was built without the CLI (RINGBLOOM_CLI_PATH)");
#else
  std::vector<std::string> argv_strings{RINGBLOOM_CLI_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::array<int, 2> in{}, out{}, err{};
  if (::pipe2(in.data(), O_CLOEXEC) != 0 || ::pipe2(out.data(), O_CLOEXEC) != 0 ||
      ::pipe2(err.data(), O_CLOEXEC) != 0) {
    fail("pipe");
  }
  // The command may stop reading stdin early (that is often the point):
  // writing to it must then fail with EPIPE here, not kill the test.
  ::signal(SIGPIPE, SIG_IGN);
  const bool limit_memory = !sanitized_build();
  const rlimit address_space{limits.address_space, limits.address_space};
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    // The child: only async-signal-safe calls until execve.
    ::signal(SIGPIPE, SIG_DFL);
    if (limit_memory) ::setrlimit(RLIMIT_AS, &address_space);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execve(argv[0], argv.data(), environ);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);

  return exchange_with_child(
      pid, in[1], out[0], err[0], stdin_text,
      std::chrono::steady_clock::now() + std::chrono::seconds(limits.seconds));
#endif
}

void expect_clean_refusal(const hostile_case& c) {
  const temp_dir dir;
  if (c.setup) c.setup(dir.path());
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(replace_dir(a, dir.path()));
  const auto before = snapshot(dir.path());

  const bounded_result r = run_cli_bounded(args, c.stdin_text);

  SCOPED_TRACE("stderr: " + r.err);
  EXPECT_FALSE(r.timed_out) << "killed after 20 s";
  EXPECT_EQ(r.exit_code, c.exit_code);
  EXPECT_EQ(r.out, "") << "a refusal prints nothing on stdout";
  // One line, in the CLI's form, saying what to do.
  EXPECT_EQ(r.err.rfind("ringbloom: error: ", 0), 0u);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line";
  EXPECT_NE(r.err.find("; "), std::string::npos) << "no advice after '; '";
  EXPECT_LT(r.err.size(), 600u);
  for (const auto& name : c.names) {
    EXPECT_NE(r.err.find(replace_dir(name, dir.path())), std::string::npos)
        << "does not name " << name;
  }
  for (const char* raw :
       {"std::", "bad_alloc", "filesystem error", "what()", "terminate", "basic_string",
        "Could not convert", "not in range", "json.exception", "At Most", "required but received",
        "The following argument", "A subcommand"}) {
    EXPECT_EQ(r.err.find(raw), std::string::npos) << "raw library text: " << raw;
  }
  // Bounded: under ASan the limit is not set, so check the peak instead.
  EXPECT_LT(r.max_rss_kb, sanitized_build() ? 1024 * 1024 : 512 * 1024);
  EXPECT_EQ(snapshot(dir.path()), before) << "the command wrote or removed something";
}

}  // namespace ringbloom::test
