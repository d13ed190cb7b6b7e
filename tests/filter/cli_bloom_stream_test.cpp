// The guarantees of the streamed `ringbloom bloom add`, with real
// processes:
//   - SIGKILL at any moment of a long stream leaves a loadable file holding
//     a prefix of the stream at least as long as what was seen durable;
//   - four processes streaming into one file at once lose nothing;
//   - a producer that pauses longer than the checkpoint interval sees its
//     items durable while it pauses, and the file is not locked meanwhile.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ringbloom/filter/filter_file.hpp"
#include "support/cli_run.hpp"

extern char** environ;

namespace ringbloom {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using test::cli_result;
using test::run_cli;
using test::temp_dir;

std::string numbered_lines(const std::string& prefix, int from, int to) {
  std::string text;
  for (int i = from; i < to; ++i) text += prefix + std::to_string(i) + "\n";
  return text;
}

/// `ringbloom bloom add FILE ...` with its stdin a pipe the test writes to,
/// its output discarded.
class streamed_add {
 public:
  explicit streamed_add(const std::vector<std::string>& args) {
#ifndef RINGBLOOM_CLI_PATH
    (void)args;
    throw std::runtime_error("this test was built without the CLI (RINGBLOOM_CLI_PATH)");
#else
    std::vector<std::string> strings{RINGBLOOM_CLI_PATH, "bloom", "add"};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const test::sigpipe_default_in_child attr;
    const int spawned = ::posix_spawn(&pid_, argv[0], &actions, attr.get(), argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    in_ = in[1];
    if (spawned != 0) throw std::runtime_error("posix_spawn failed");
#endif
  }
  streamed_add(const streamed_add&) = delete;
  streamed_add& operator=(const streamed_add&) = delete;
  ~streamed_add() {
    close_input();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      (void)wait();
    }
  }

  void write(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(in_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      ASSERT_GT(n, 0) << "the adder stopped reading";
      done += static_cast<std::size_t>(n);
    }
  }
  void close_input() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }
  void kill() const { ::kill(pid_, SIGKILL); }
  /// The raw waitpid status.
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }
  [[nodiscard]] bool running() const {
    int status = 0;
    return ::waitpid(pid_, &status, WNOHANG) == 0;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
};

std::uint64_t items_in(const std::string& path) { return load_filter(path).items_added(); }

void create(const std::string& path, const std::string& capacity) {
  const cli_result r =
      run_cli({"bloom", "create", path, "--capacity", capacity, "--fpr", "0.01", "--force"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliBloomStream, SigkillLeavesALoadableFileWithADurablePrefix) {
  temp_dir dir;
  const std::string path = dir.file("big.rbf");
  // 24 MB: a checkpoint takes long enough that kills land inside them too.
  create(path, "20000000");
  std::uint64_t before_round = 0;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string prefix = "r" + std::to_string(round) + ":";
    std::uint64_t seen = 0;
    int written = 0;
    {
      streamed_add adder({path, "--checkpoint-seconds", "0.02"});
      const auto give_up = clock_type::now() + 30s;
      // Stream until a few checkpoints are on disk, then a little more.
      while (seen < before_round + 20000 && clock_type::now() < give_up) {
        adder.write(numbered_lines(prefix, written, written + 5000));
        written += 5000;
        seen = items_in(path);
      }
      ASSERT_GE(seen, before_round + 20000) << "no checkpoint reached the file in 30 s";
      adder.write(numbered_lines(prefix, written, written + 5000));
      written += 5000;
      std::this_thread::sleep_for(std::chrono::milliseconds(7 * round));
      adder.kill();
      const int status = adder.wait();
      ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    }
    const any_filter f = load_filter(path);  // throws if the kill tore the file
    const std::uint64_t now = f.items_added();
    EXPECT_GE(now, seen) << "items seen durable were lost";
    EXPECT_LE(now, before_round + static_cast<std::uint64_t>(written));
    // Checkpoints fold the stream in order: the durable items are a prefix.
    for (std::uint64_t i = 0; i < now - before_round; ++i) {
      ASSERT_TRUE(f.may_contain(prefix + std::to_string(i))) << "lost " << prefix << i;
    }
    before_round = now;
  }
}

TEST(CliBloomStream, SigkillDuringInPlacePatchesLeavesTheStateBeforeOrAfter) {
  // Checkpoints of 10 items into a 24 MB file change a few regions each, so
  // each is patched in place through the journal; kills land in every step of
  // it over the rounds. Loading (which completes or discards a journal left
  // behind) must give the items of a whole number of checkpoints, in order.
  temp_dir dir;
  const std::string path = dir.file("big.rbf");
  create(path, "20000000");
  const std::uintmax_t size = std::filesystem::file_size(path);
  std::uint64_t before_round = 0;
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string prefix = "p" + std::to_string(round) + ":";
    int written = 0;
    {
      streamed_add adder({path, "--checkpoint-items", "10"});
      const auto give_up = clock_type::now() + 30s;
      while (items_in(path) < before_round + 30 && clock_type::now() < give_up) {
        adder.write(numbered_lines(prefix, written, written + 10));
        written += 10;
        std::this_thread::sleep_for(5ms);
      }
      adder.write(numbered_lines(prefix, written, written + 10));
      written += 10;
      std::this_thread::sleep_for(std::chrono::microseconds(1500 * round));
      adder.kill();
      (void)adder.wait();
    }
    const any_filter f = load_filter(path);  // throws if the kill tore the file
    const std::uint64_t now = f.items_added();
    EXPECT_GE(now, before_round + 30);
    EXPECT_EQ((now - before_round) % 10, 0U) << "a checkpoint was applied in part";
    EXPECT_LE(now, before_round + static_cast<std::uint64_t>(written));
    for (std::uint64_t i = 0; i < now - before_round; ++i) {
      ASSERT_TRUE(f.may_contain(prefix + std::to_string(i))) << "lost " << prefix << i;
    }
    EXPECT_EQ(std::filesystem::file_size(path), size);
    EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
    before_round = now;
  }
}

TEST(CliBloomStream, FourConcurrentStreamedWritersLoseNothing) {
  temp_dir dir;
  const std::string path = dir.file("shared.rbf");
  create(path, "1000000");
  constexpr int writers = 4;
  constexpr int per_writer = 20000;
  std::vector<cli_result> results(writers);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      // Many small checkpoints, so that the four interleave under the lock.
      results[w] = run_cli({"bloom", "add", path, "--checkpoint-items", "1000", "--json"},
                           numbered_lines("w" + std::to_string(w) + ":", 0, per_writer));
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t w = 0; w < writers; ++w) {
    ASSERT_EQ(results[w].exit_code, 0) << results[w].err;
    EXPECT_NE(results[w].out.find("\"added\":20000"), std::string::npos) << results[w].out;
  }
  const any_filter f = load_filter(path);
  EXPECT_EQ(f.items_added(), std::uint64_t{writers * per_writer});
  for (int w = 0; w < writers; ++w) {
    for (int i = 0; i < per_writer; ++i) {
      ASSERT_TRUE(f.may_contain("w" + std::to_string(w) + ":" + std::to_string(i)));
    }
  }
}

TEST(CliBloomStream, PausedProducerSeesItsItemsDurableAndTheFileUnlocked) {
  temp_dir dir;
  const std::string path = dir.file("tail.rbf");
  create(path, "100000");
  streamed_add adder({path, "--checkpoint-seconds", "0.2"});
  const auto sent = clock_type::now();
  adder.write(numbered_lines("p:", 0, 100));
  // The producer now pauses (the pipe stays open). The items must become
  // durable within the interval plus one checkpoint; 10 s is only the test's
  // give-up time on a loaded machine.
  while (items_in(path) < 100 && clock_type::now() < sent + 10s) {
    std::this_thread::sleep_for(20ms);
  }
  const auto waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - sent);
  ASSERT_EQ(items_in(path), 100U) << "the paused producer's items are not durable";
  ASSERT_TRUE(adder.running()) << "the adder exited instead of waiting for more input";
  RecordProperty("durable_after_ms", static_cast<int>(waited.count()));

  // Not locked while it waits: another writer gets its turn at once.
  const cli_result other = run_cli({"bloom", "add", path, "other"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(items_in(path), 101U);

  adder.write(numbered_lines("p:", 100, 150));
  adder.close_input();
  const int status = adder.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const any_filter f = load_filter(path);
  EXPECT_EQ(f.items_added(), 151U);
  for (int i = 0; i < 150; ++i) ASSERT_TRUE(f.may_contain("p:" + std::to_string(i)));
  EXPECT_TRUE(f.may_contain("other"));
}

TEST(CliBloomStream, CheckpointOptionsAreChecked) {
  temp_dir dir;
  const std::string path = dir.file("o.rbf");
  create(path, "1000");
  const cli_result zero = run_cli({"bloom", "add", path, "a", "--checkpoint-seconds", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--checkpoint-seconds must be above 0"), std::string::npos) << zero.err;
  const cli_result items = run_cli({"bloom", "add", path, "a", "--checkpoint-items", "0"});
  EXPECT_EQ(items.exit_code, 2);
  EXPECT_NE(items.err.find("--checkpoint-items must be at least 1"), std::string::npos)
      << items.err;
  EXPECT_EQ(items_in(path), 0U) << "a refused command wrote";
}

}  // namespace
}  // namespace ringbloom
