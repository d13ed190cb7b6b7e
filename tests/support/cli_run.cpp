// Runs the ringbloom CLI as a child process (see cli_run.hpp).
#include "support/cli_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
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

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

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

  // Feed stdin and drain stdout/stderr together so that neither side blocks.
  cli_result result;
  std::size_t written = 0;
  int stdin_fd = in[1];
  if (stdin_text.empty()) {
    ::close(stdin_fd);
    stdin_fd = -1;
  } else {
    ::fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  }
  int open_outputs = 2;
  std::array<char, 65536> buffer{};
  while (open_outputs > 0 || stdin_fd >= 0) {
    std::array<pollfd, 3> fds{{{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {stdin_fd, POLLOUT, 0}}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer.data(), static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        (i == 0 ? out[0] : err[0]) = -1;
        --open_outputs;
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
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid");
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
