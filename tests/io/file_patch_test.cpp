// In-place patches through a journal (io/file_patch.hpp): the patch lands and
// no journal is left; a journal left by a killed process is completed by the
// next reader or updater whether the file holds none, some or all of its
// ranges; a torn, foreign or stale journal is discarded without touching the
// file. The journals here are written by hand from the layout documented in
// src/io/file_patch.cpp, so the reader is checked against the documentation.
#include "ringbloom/io/file_patch.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::io {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct hand_range {
  std::uint64_t offset;
  std::string old_bytes;
  std::string new_bytes;
};

// A journal as the layout says: magic, device, inode, size, N, the ranges
// (offset, length, XXH3-64 of the old bytes, the new bytes padded to 8), and
// XXH3-64 of everything before.
std::string journal_for(const fs::path& file, const std::vector<hand_range>& ranges) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0);
  std::string j("\x89RBJ\r\n\x1a\n", 8);
  put_u64(j, static_cast<std::uint64_t>(st.st_dev));
  put_u64(j, static_cast<std::uint64_t>(st.st_ino));
  put_u64(j, static_cast<std::uint64_t>(st.st_size));
  put_u64(j, ranges.size());
  for (const auto& r : ranges) {
    put_u64(j, r.offset);
    put_u64(j, r.new_bytes.size());
    put_u64(j, xxh3_64(r.old_bytes, 0));
    j += r.new_bytes;
    j.append((8 - r.new_bytes.size() % 8) % 8, '\0');
  }
  put_u64(j, xxh3_64(j, 0));
  return j;
}

// Writes `bytes` over `file` at `offset` in place (as a killed patcher would
// have left part of its work).
void overwrite(const fs::path& file, std::uint64_t offset, const std::string& bytes) {
  std::string all = read_file(file);
  all.replace(static_cast<std::size_t>(offset), bytes.size(), bytes);
  // Same inode: truncate and write through the existing file.
  FILE* f = std::fopen(file.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(all.data(), 1, all.size(), f), all.size());
  std::fclose(f);
}

const std::string original = std::string(100, 'a') + std::string(100, 'b');
const std::vector<hand_range> two_ranges = {{10, std::string(5, 'a'), "HELLO"},
                                            {150, std::string(3, 'b'), "XYZ"}};
std::string patched() {
  std::string s = original;
  s.replace(10, 5, "HELLO");
  s.replace(150, 3, "XYZ");
  return s;
}

TEST(FilePatch, StagedRangesLandAndNoJournalIsLeft) {
  temp_dir dir;
  const fs::path file = dir.file("f");
  write_file_atomic(file, original);
  patch_file_locked(file, [](locked_file& f) {
    EXPECT_EQ(f.size(), 200U);
    char c = 0;
    f.read(150, &c, 1);
    EXPECT_EQ(c, 'b');
    f.write(10, "HELLO");
    f.write(150, "XYZ");
    EXPECT_EQ(f.staged_bytes(), 8U);
    EXPECT_THROW(f.write(198, "abc"), std::invalid_argument);  // past the end
  });
  EXPECT_EQ(read_file(file), patched());
  EXPECT_FALSE(fs::exists(journal_path(file)));
}

TEST(FilePatch, AnEditThatThrowsLeavesTheFileAndNoJournal) {
  temp_dir dir;
  const fs::path file = dir.file("f");
  write_file_atomic(file, original);
  EXPECT_THROW(patch_file_locked(file,
                                 [](locked_file& f) {
                                   f.write(0, "zz");
                                   throw std::runtime_error("refused");
                                 }),
               std::runtime_error);
  EXPECT_EQ(read_file(file), original);
  EXPECT_FALSE(fs::exists(journal_path(file)));
}

TEST(FilePatch, ReplaceWritesTheWholeFileAtomically) {
  temp_dir dir;
  const fs::path file = dir.file("f");
  write_file_atomic(file, original);
  patch_file_locked(file, [](locked_file& f) {
    f.write(0, "ignored");
    f.replace("new content");
  });
  EXPECT_EQ(read_file(file), "new content");
}

TEST(FilePatch, AJournalLeftBehindIsCompletedWhateverPartOfItLanded) {
  // Killed after the journal was flushed: none, one or both ranges written.
  for (int landed = 0; landed <= 2; ++landed) {
    SCOPED_TRACE("ranges landed " + std::to_string(landed));
    for (const bool by_reader : {true, false}) {
      temp_dir dir;
      const fs::path file = dir.file("f");
      write_file_atomic(file, original);
      write_file_atomic(journal_path(file), journal_for(file, two_ranges));
      if (landed >= 1) overwrite(file, 10, "HELLO");
      if (landed >= 2) overwrite(file, 150, "XYZ");
      if (by_reader) {
        const read_lock lock(file);
      } else {
        patch_file_locked(file, [](locked_file& f) { f.write(0, "Z"); });
      }
      std::string expected = patched();
      if (!by_reader) expected[0] = 'Z';
      EXPECT_EQ(read_file(file), expected);
      EXPECT_FALSE(fs::exists(journal_path(file)));
    }
  }
}

TEST(FilePatch, TornForeignAndStaleJournalsAreDiscardedWithoutTouchingTheFile) {
  temp_dir dir;
  const fs::path file = dir.file("f");
  const auto check_discarded = [&](const std::string& why, const std::string& expected = original) {
    SCOPED_TRACE(why);
    const read_lock lock(file);
    EXPECT_EQ(read_file(file), expected);
    EXPECT_FALSE(fs::exists(journal_path(file)));
  };
  write_file_atomic(file, original);
  const std::string good = journal_for(file, two_ranges);
  // Torn: prefixes of it (the writer was killed while writing it).
  for (std::size_t n = 0; n < good.size(); n += 7) {
    write_file_atomic(journal_path(file), good.substr(0, n));
    check_discarded("torn at " + std::to_string(n));
  }
  // Foreign: a range whose bytes are neither the old nor the new ones.
  write_file_atomic(journal_path(file), journal_for(file, {{10, "aaaaa", "HELLO"}}));
  overwrite(file, 10, "12345");
  std::string edited = original;
  edited.replace(10, 5, "12345");
  check_discarded("foreign", edited);
  // Stale: the journal of an earlier file at this path (another inode).
  write_file_atomic(journal_path(file), good);
  write_file_atomic(file, original);
  check_discarded("stale");
}

}  // namespace
}  // namespace ringbloom::io
