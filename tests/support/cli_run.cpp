// Runs the ringbloom CLI as a child process (see cli_run.hpp).
#include "support/cli_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace ringbloom::test {
namespace {

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

/// run_cli's bound on one run: far above any CLI test's need, so that a
/// hung CLI fails its test instead of stalling CI.
constexpr std::chrono::seconds run_cli_limit{600};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

child_exchange exchange_with_child(pid_t pid, int in, int out, int err,
                                   const std::string& stdin_text,
                                   std::chrono::steady_clock::time_point deadline) {
  child_exchange result;
  std::size_t written = 0;
  int stdin_fd = in;
  if (stdin_text.empty()) {
    ::close(stdin_fd);
    stdin_fd = -1;
  } else {
    ::fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  }
  std::array<int, 2> outputs{out, err};
  std::array<char, 65536> buffer{};
  while (outputs[0] >= 0 || outputs[1] >= 0 || stdin_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    std::array<pollfd, 3> fds{
        {{outputs[0], POLLIN, 0}, {outputs[1], POLLIN, 0}, {stdin_fd, POLLOUT, 0}}};
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    for (std::size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer.data(), static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        outputs[i] = -1;
      }
    }
    if (stdin_fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = ::write(stdin_fd, stdin_text.data() + written, stdin_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == stdin_text.size()) {
        ::close(stdin_fd);
        stdin_fd = -1;
      }
    }
  }
  for (const int fd : {outputs[0], outputs[1], stdin_fd}) {
    if (fd >= 0) ::close(fd);
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) fail("wait4");
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.max_rss_kb = usage.ru_maxrss;
  return result;
}

cli_result run_cli(const std::vector<std::string>& args, const std::string& stdin_text,
                   const std::vector<std::string>& env) {
#ifndef RINGBLOOM_CLI_PATH
  (void)args, (void)stdin_text, (void)env;
  throw std::runtime_error("this test was built without the CLI (RINGBLOOM_CLI_PATH)");
#else
  std::vector<std::string> argv_strings{RINGBLOOM_CLI_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), env.begin(), env.end());

  std::array<int, 2> in{}, out{}, err{};
  if (::pipe2(in.data(), O_CLOEXEC) != 0 || ::pipe2(out.data(), O_CLOEXEC) != 0 ||
      ::pipe2(err.data(), O_CLOEXEC) != 0) {
    fail("pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);
  const sigpipe_default_in_child attr;
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, attr.get(), argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (spawned != 0) {
    errno = spawned;
    fail("posix_spawn");
  }

  const child_exchange done = exchange_with_child(pid, in[1], out[0], err[0], stdin_text,
                                                  std::chrono::steady_clock::now() + run_cli_limit);
  cli_result result{.exit_code = done.exit_code, .out = done.out, .err = done.err};
  if (done.timed_out)
    result.err += "\n[test support: killed after " + std::to_string(run_cli_limit.count()) + " s]";
  return result;
#endif
}

cli_process::cli_process(const std::vector<std::string>& args) {
#ifndef RINGBLOOM_CLI_PATH
  (void)args;
  throw std::runtime_error("this test was built without the CLI (RINGBLOOM_CLI_PATH)");
#else
  std::vector<std::string> argv_strings{RINGBLOOM_CLI_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::array<int, 2> in{}, out{};
  if (::pipe2(in.data(), O_CLOEXEC) != 0 || ::pipe2(out.data(), O_CLOEXEC) != 0) fail("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  auto argv = c_strings(argv_strings);
  const sigpipe_default_in_child attr;
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, attr.get(), argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (spawned != 0) {
    errno = spawned;
    fail("posix_spawn");
  }
  pid_ = pid;
  in_ = in[1];
  out_ = out[0];
#endif
}

cli_process::~cli_process() {
  if (pid_ >= 0) (void)finish();
}

void cli_process::write_line(const std::string& line) {
  const std::string bytes = line + "\n";
  if (::write(in_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) fail("write");
}

std::optional<std::string> cli_process::read_line(int timeout_ms) {
  for (;;) {
    const auto end = pending_.find('\n');
    if (end != std::string::npos) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      return line;
    }
    pollfd request{out_, POLLIN, 0};
    if (::poll(&request, 1, timeout_ms) <= 0) return std::nullopt;
    std::array<char, 4096> buffer{};
    const ssize_t n = ::read(out_, buffer.data(), buffer.size());
    if (n <= 0) return std::nullopt;
    pending_.append(buffer.data(), static_cast<std::size_t>(n));
  }
}

int cli_process::finish() {
  if (pid_ < 0) return exit_code_;
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
  in_ = out_ = -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid");
  }
  pid_ = -1;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_code_;
}

temp_dir::temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ringbloom-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) fail("mkdtemp");
  path_ = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ringbloom::test
