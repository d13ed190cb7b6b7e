// The bounds rule of io/file_io.hpp and the memory budget of io/memory.hpp:
// what is not a regular file is refused or read with a cap, a
// size is checked before a byte is read, a pipe without a writer does not
// hold a read forever, and no rename replaces a device, a directory or a pipe.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/memory.hpp"
#include "support/cli_run.hpp"
#include "support/hostile.hpp"

namespace ringbloom::io {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The message of the io_error `fn` throws ("" when it throws none).
template <class Fn>
std::string io_message(Fn&& fn) {
  try {
    fn();
  } catch (const io_error& e) {
    return e.what();
  }
  return "";
}

// Writes `bytes` into the FIFO `path` from another thread (opening it waits
// for the reader), then closes it.
std::thread feed(const std::string& path, std::string bytes) {
  return std::thread([path, bytes = std::move(bytes)] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
}

TEST(ReadBounds, DirectoriesAndDevicesAreRefusedWithTheirOwnSentence) {
  const test::temp_dir dir;
  EXPECT_EQ(io_message([&] { (void)read_file(dir.path()); }),
            "'" + dir.path() + "' is a directory, not a file; give the path of a file");
  EXPECT_EQ(io_message([] { (void)read_file("/dev/zero"); }),
            "'/dev/zero' is a device, not a file; give the path of a regular file (or of a pipe)");
  EXPECT_THROW((void)check_input("/dev/null"), io_error);
  EXPECT_NE(io_message([&] {
              (void)check_input(dir.path() + "/absent");
            }).find("cannot open '" + dir.path() + "/absent': No such file or directory"),
            std::string::npos);
}

TEST(ReadBounds, ARegularFileLargerThanTheLimitIsRefusedBeforeReading) {
  const test::temp_dir dir;
  write_file_atomic(dir.file("f"), std::string(3000, 'x'));
  EXPECT_EQ(read_file(dir.file("f"), 3000).size(), 3000u);
  const std::string message = io_message([&] { (void)read_file(dir.file("f"), 2999); });
  EXPECT_NE(message.find("is 2.9 KiB (3000 bytes), more than the limit of 2.9 KiB"),
            std::string::npos)
      << message;
}

TEST(ReadBounds, APipeIsReadUpToItsCap) {
  const test::temp_dir dir;
  const std::string pipe = dir.file("pipe");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0644), 0);
  EXPECT_EQ(check_input(pipe), input_kind::pipe);
  std::thread writer = feed(pipe, "twelve bytes");
  EXPECT_EQ(read_file(pipe, 100), "twelve bytes");
  writer.join();

  writer = feed(pipe, std::string(5000, 'y'));
  const std::string message = io_message([&] { (void)read_file(pipe, 4096); });
  writer.join();
  EXPECT_NE(message.find("holds more than 4.0 KiB, the limit of 4.0 KiB for this pipe"),
            std::string::npos)
      << message;
}

TEST(ReadBounds, APipeWithoutAWriterIsNotWaitedForForever) {
  const test::temp_dir dir;
  const std::string pipe = dir.file("pipe");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = io_message([&] { (void)read_file(pipe, no_size_limit, 200ms); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(message, "nothing arrived on the pipe '" + pipe +
                         "' within 200 ms; start the program that writes to it first, or give a "
                         "regular file");
}

TEST(ReadBounds, NoRenameReplacesADirectoryOrAPipe) {
  const test::temp_dir dir;
  fs::create_directory(dir.file("sub"));
  ASSERT_EQ(::mkfifo(dir.file("pipe").c_str(), 0644), 0);
  EXPECT_NE(io_message([&] { write_file_atomic(dir.file("sub"), "x"); }).find("is a directory"),
            std::string::npos);
  EXPECT_NE(io_message([&] { write_file_atomic(dir.file("pipe"), "x"); }).find("is a pipe"),
            std::string::npos);
  EXPECT_NE(io_message([&] {
              update_file_locked(dir.file("pipe"), [](const std::string& s) { return s; });
            }).find("is a pipe"),
            std::string::npos);
  EXPECT_NE(io_message([&] {
              update_file_locked(dir.file("sub"), [](const std::string& s) { return s; });
            }).find("is a directory"),
            std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir.file("sub")));
  EXPECT_TRUE(fs::is_fifo(dir.file("pipe")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2)
      << "no temporary file left behind";
}

TEST(MemoryBudget, NamesTheAddressSpaceLimitWhenItIsTheSmallest) {
  if (test::sanitized_build()) GTEST_SKIP() << "the sanitizers need an unlimited address space";
  // In a child, so that the limit does not stay on the test process.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const rlimit limit{256u << 20, 256u << 20};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(2);
    const memory_budget budget = available_memory();
    const bool ok = budget.bytes < (256u << 20) && budget.bytes > (64u << 20) &&
                    budget.source.find("ulimit -v") != std::string_view::npos;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(MemoryBudget, FormatsBytesForMessages) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{128} << 30), "128.0 GiB");
  EXPECT_GT(available_memory().bytes, 0u);
}

}  // namespace
}  // namespace ringbloom::io
