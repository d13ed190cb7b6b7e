// tests/cli_run.hpp: runs the built `ringbloom` binary for CLI tests.
#pragma once

#include <spawn.h>
#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ringbloom::test {

/// What one run of the CLI printed and returned.
struct cli_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the ringbloom CLI (RINGBLOOM_CLI_PATH) with `args`, feeding
/// `stdin_text` on standard input, and collects its output and exit code.
/// Environment variables in `env` ("NAME=value") are added to the child's.
cli_result run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {},
                   const std::vector<std::string>& env = {});

/// The CLI may exit before it has read all its stdin (a refused command
/// does): writing to it must then fail with EPIPE in the test, not kill the
/// test with SIGPIPE. So the test process ignores SIGPIPE, and the CLI it
/// spawns gets the default action back (an ignored signal would stay ignored
/// across exec, and the CLI's own behaviour on a closed pipe is under test).
/// Every test that spawns the CLI itself passes get() as posix_spawn's
/// attributes.
class sigpipe_default_in_child {
 public:
  sigpipe_default_in_child() {
    ::signal(SIGPIPE, SIG_IGN);
    posix_spawnattr_init(&attr_);
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr_, &pipe_only);
    posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGDEF);
  }
  sigpipe_default_in_child(const sigpipe_default_in_child&) = delete;
  sigpipe_default_in_child& operator=(const sigpipe_default_in_child&) = delete;
  ~sigpipe_default_in_child() { posix_spawnattr_destroy(&attr_); }
  [[nodiscard]] const posix_spawnattr_t* get() const noexcept { return &attr_; }

 private:
  posix_spawnattr_t attr_{};
};

/// What a child wrote while exchange_with_child talked to it, and how it ended.
struct child_exchange {
  std::string out;
  std::string err;
  int exit_code = -1;      // 128 + signal when killed
  bool timed_out = false;  // killed with SIGKILL at the deadline
  long max_rss_kb = 0;     // the child's peak resident memory
};

/// Feeds `stdin_text` to a child's stdin (`in`, closed when all is written or
/// the child stops reading) while draining its stdout (`out`) and stderr
/// (`err`) until both close, so that neither side blocks; then waits for it.
/// At `deadline` the child is killed (every test's wait is bounded). Closes
/// the three descriptors.
child_exchange exchange_with_child(pid_t pid, int in, int out, int err,
                                   const std::string& stdin_text,
                                   std::chrono::steady_clock::time_point deadline);

/// A running CLI process talked to line by line, as a co-process: write a
/// question, wait for its answer, write the next.
class cli_process {
 public:
  /// Starts the CLI with `args`, its stdin and stdout connected to pipes.
  explicit cli_process(const std::vector<std::string>& args);
  cli_process(const cli_process&) = delete;
  cli_process& operator=(const cli_process&) = delete;
  /// Closes the pipes and waits for the process.
  ~cli_process();

  /// Writes `line` and a newline to the process's stdin.
  void write_line(const std::string& line);
  /// The next line of its stdout (without '\n'), or nothing if none arrives
  /// within `timeout_ms` milliseconds.
  std::optional<std::string> read_line(int timeout_ms);
  /// Closes stdin and returns the exit code.
  int finish();

 private:
  int pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string pending_;
  int exit_code_ = -1;
};

/// A fresh empty directory under the system's temporary directory, removed
/// when the object goes out of scope.
class temp_dir {
 public:
  temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const {
    return std::filesystem::path(path_) / name;
  }

 private:
  std::string path_;
};

}  // namespace ringbloom::test
