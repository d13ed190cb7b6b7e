// Atomic writes and locked updates of io/file_io.hpp.
#include "ringbloom/io/file_io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/line_reader.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::io {
namespace {

namespace fs = std::filesystem;

std::size_t entries_in(const std::string& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(FileIo, WriteThenReadRoundTripsBinaryBytes) {
  test::temp_dir dir;
  const std::string bytes("a\0b\xff\n", 5);
  write_file_atomic(dir.file("f"), bytes);
  EXPECT_EQ(read_file(dir.file("f")), bytes);
  write_file_atomic(dir.file("f"), "second");
  EXPECT_EQ(read_file(dir.file("f")), "second");
  EXPECT_EQ(entries_in(dir.path()), 1u) << "a temporary file was left behind";
}

TEST(FileIo, ReadingAMissingFileNamesItAndTheReason) {
  test::temp_dir dir;
  try {
    (void)read_file(dir.file("absent"));
    FAIL() << "read_file succeeded on a missing file";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find("absent"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(FileIo, FailedWriteLeavesOldFileAndNoTemporary) {
  test::temp_dir dir;
  write_file_atomic(dir.file("f"), "old");
  // Renaming a file over a non-empty directory fails after the temporary was written.
  fs::create_directory(dir.file("d"));
  write_file_atomic(dir.file("d/inner"), "x");
  EXPECT_THROW(write_file_atomic(dir.file("d"), "new"), io_error);
  EXPECT_EQ(read_file(dir.file("f")), "old");
  EXPECT_EQ(entries_in(dir.path()), 2u) << "a temporary file was left behind";
}

TEST(FileIo, UpdateOfAMissingFileIsRefused) {
  test::temp_dir dir;
  EXPECT_THROW(update_file_locked(dir.file("absent"), [](const std::string& s) { return s; }),
               io_error);
  EXPECT_FALSE(fs::exists(dir.file("absent")));
}

TEST(FileIo, ThrowingTransformLeavesFileUntouched) {
  test::temp_dir dir;
  write_file_atomic(dir.file("f"), "kept");
  EXPECT_THROW(update_file_locked(
                   dir.file("f"),
                   [](const std::string&) -> std::string { throw std::invalid_argument("no"); }),
               std::invalid_argument);
  EXPECT_EQ(read_file(dir.file("f")), "kept");
  EXPECT_EQ(entries_in(dir.path()), 1u);
}

// Several processes append to one file through update_file_locked at the same
// time: every line of every process must be there at the end.
TEST(FileIo, ConcurrentProcessesLoseNoUpdate) {
  test::temp_dir dir;
  const std::string path = dir.file("log");
  write_file_atomic(path, "");
  constexpr int processes = 4;
  constexpr int updates = 50;
  for (int p = 0; p < processes; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int u = 0; u < updates; ++u) {
        update_file_locked(path, [&](const std::string& current) {
          return current + std::to_string(p) + ":" + std::to_string(u) + "\n";
        });
      }
      ::_exit(0);
    }
  }
  for (int p = 0; p < processes; ++p) {
    int status = 0;
    ::wait(&status);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::istringstream lines(read_file(path));
  std::set<std::string> seen;
  for (std::string line; std::getline(lines, line);) seen.insert(line);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(processes * updates));
  EXPECT_EQ(entries_in(dir.path()), 1u);
}

// --- lines ------------------------------------------------------------------------

TEST(LineReader, ReadsLinesOfAFileWithoutCrAndClosesIt) {
  test::temp_dir dir;
  const std::string path = dir.file("keys.txt");
  write_file_atomic(path, "anna\r\nbora\n\ncem");
  std::vector<std::string> lines;
  {
    line_reader in = line_reader::open(path, "--from keys.txt");
    std::string line;
    while (in.next(line)) lines.push_back(line);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"anna", "bora", "", "cem"}));
  // read_lines drops the empty lines.
  EXPECT_EQ(read_lines(path, 1 << 20, "--keys keys.txt"),
            (std::vector<std::string>{"anna", "bora", "cem"}));
}

TEST(LineReader, RefusalsNameTheInput) {
  test::temp_dir dir;
  try {
    (void)line_reader::open(dir.path(), "--from " + dir.path());
    FAIL() << "a directory was opened";
  } catch (const io_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--from " + dir.path() + ": ", 0), 0u) << e.what();
  }
  EXPECT_THROW((void)line_reader::open(dir.file("absent"), "--from absent"), io_error);
  const std::string path = dir.file("long.txt");
  write_file_atomic(path, std::string(max_line_bytes + 1, 'x') + "\n");
  try {
    (void)read_lines(path, std::uint64_t{64} << 20, "--keys long.txt");
    FAIL() << "a line over the limit was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("line 1 of --keys long.txt is longer than 16 MiB", 0), 0u)
        << e.what();
  }
}

// A 100 MB line that ends in a newline is refused once 16 MiB of it are held,
// by next() and by next_until() (bloom add's path) alike: the reader's
// offset in the file shows how much was read before the refusal.
TEST(LineReader, RefusesAHugeLineEndingInANewlineEarly) {
  test::temp_dir dir;
  const std::string path = dir.file("huge.txt");
  constexpr off_t huge = off_t{100} << 20;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    // A sparse file: 100 MiB of NUL bytes, no disk used, then the newline.
    ASSERT_EQ(::pwrite(fd, "\n", 1, huge), 1);
    ::close(fd);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  for (const bool until : {false, true}) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    line_reader in(fd, "huge.txt");
    std::string line;
    try {
      if (until) {
        (void)in.next_until(line, deadline);
      } else {
        (void)in.next(line);
      }
      ADD_FAILURE() << "a 100 MiB line was accepted (next_until: " << until << ")";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("line 1 of huge.txt is longer than 16 MiB", 0), 0u)
          << e.what();
    }
    // At most the limit and one 64 KiB read beyond it.
    EXPECT_LE(::lseek(fd, 0, SEEK_CUR), static_cast<off_t>(max_line_bytes + (1 << 16)))
        << "next_until: " << until;
    ::close(fd);
  }
}

// ready() remembers the newline it finds for next(): whatever mix of the two
// (ready() not at all, once or twice before a line), the lines are the same,
// also across the reader's 64 KiB reads and for a last line without '\n'.
TEST(LineReader, ReadyBeforeNextChangesNoLine) {
  test::temp_dir dir;
  const std::string path = dir.file("mixed.txt");
  std::string text;
  std::vector<std::string> expected;
  std::uint64_t state = 7;  // a fixed LCG: line lengths 0..299, some with CR
  for (int i = 0; i < 3000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto length = static_cast<std::size_t>((state >> 33) % 300);
    std::string line(length, static_cast<char>('a' + i % 26));
    expected.push_back(line);
    text += line + ((state >> 20) % 5 == 0 ? "\r\n" : "\n");
  }
  text += "last";
  expected.emplace_back("last");
  ASSERT_GT(text.size(), std::size_t{3} << 16);  // several reads
  write_file_atomic(path, text);
  for (int readies = 0; readies <= 2; ++readies) {
    line_reader in = line_reader::open(path, "mixed.txt");
    std::vector<std::string> lines;
    std::string line;
    for (;;) {
      for (int r = 0; r < readies; ++r) EXPECT_TRUE(in.ready());
      if (!in.next(line)) break;
      lines.push_back(line);
    }
    EXPECT_EQ(lines, expected) << readies << " ready() calls before each next()";
  }
}

// A line of exactly the limit is taken, one byte more is not, also when the
// newline arrives in the same read as the line's last bytes.
TEST(LineReader, TheLimitIsExact) {
  test::temp_dir dir;
  const std::string path = dir.file("edge.txt");
  write_file_atomic(
      path, std::string(max_line_bytes, 'x') + "\n" + std::string(max_line_bytes + 1, 'y') + "\n");
  line_reader in = line_reader::open(path, "edge.txt");
  std::string line;
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line.size(), max_line_bytes);
  EXPECT_THROW((void)in.next(line), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::io
