// io::checkpointed_stream: when it checkpoints (interval, item and byte
// limits), that a checkpoint folds every pending item in order under the
// file's lock, that a refused fold keeps the delta and the file, and that
// concurrent streams into one file lose nothing.
//
// The file here is plain text, one item per line, so that what the folds
// did can be read back exactly; the filter fold is tested in
// tests/filter/filter_stream_test.cpp.
#include "ringbloom/io/checkpoint.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::io {
namespace {

using namespace std::chrono_literals;
using test::temp_dir;

// Appends each item and a newline.
void append_lines(std::string& file, std::span<const std::string_view> items) {
  for (const std::string_view item : items) {
    file.append(item);
    file.push_back('\n');
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CheckpointPolicy, RefusesZeroLimits) {
  temp_dir dir;
  checkpoint_policy no_interval;
  no_interval.interval = 0ms;
  EXPECT_THROW(checkpointed_stream(dir.file("f"), append_lines, no_interval),
               std::invalid_argument);
  checkpoint_policy no_items;
  no_items.max_items = 0;
  EXPECT_THROW(checkpointed_stream(dir.file("f"), append_lines, no_items), std::invalid_argument);
  EXPECT_THROW(checkpointed_stream(dir.file("f"), nullptr), std::invalid_argument);
}

TEST(CheckpointedStream, DueAfterTheIntervalOfTheOldestItem) {
  temp_dir dir;
  checkpoint_policy policy;
  policy.interval = 500ms;
  checkpointed_stream s(dir.file("f"), append_lines, policy);
  EXPECT_FALSE(s.deadline().has_value());
  EXPECT_FALSE(s.due(checkpointed_stream::clock::now() + 1h)) << "nothing pending, nothing due";
  const auto before = checkpointed_stream::clock::now();
  s.add("a");
  const auto after = checkpointed_stream::clock::now();
  ASSERT_TRUE(s.deadline().has_value());
  EXPECT_GE(*s.deadline(), before + 500ms);
  EXPECT_LE(*s.deadline(), after + 500ms);
  s.add("b");  // a later item does not move the deadline
  EXPECT_LE(*s.deadline(), after + 500ms);
  EXPECT_FALSE(s.due(before));
  EXPECT_TRUE(s.due(after + 500ms));
  EXPECT_FALSE(s.full());
}

TEST(CheckpointedStream, DueOnceTheItemOrByteLimitIsReached) {
  temp_dir dir;
  checkpoint_policy by_items;
  by_items.interval = 1h;
  by_items.max_items = 3;
  checkpointed_stream s(dir.file("f"), append_lines, by_items);
  s.add("a");
  s.add("b");
  EXPECT_FALSE(s.full());
  s.add("c");
  EXPECT_TRUE(s.full());
  EXPECT_TRUE(s.due());

  checkpoint_policy by_bytes;
  by_bytes.interval = 1h;
  by_bytes.max_bytes = 10;
  checkpointed_stream t(dir.file("f"), append_lines, by_bytes);
  t.add("12345");
  EXPECT_FALSE(t.full());
  t.add("67890");
  EXPECT_EQ(t.pending_bytes(), 10U);
  EXPECT_TRUE(t.full());
}

TEST(CheckpointedStream, FoldsEveryPendingItemInOrder) {
  temp_dir dir;
  const std::string path = dir.file("f");
  write_file_atomic(path, "old\n");
  checkpointed_stream s(path, append_lines);
  EXPECT_EQ(s.checkpoint(), 0U) << "an empty checkpoint does nothing";
  EXPECT_EQ(s.stats().checkpoints, 0U);
  s.add("one");
  s.add("");  // an empty item is an item
  s.add("three");
  EXPECT_EQ(s.pending_items(), 3U);
  EXPECT_EQ(s.checkpoint(), 3U);
  EXPECT_EQ(s.pending_items(), 0U);
  EXPECT_EQ(s.pending_bytes(), 0U);
  EXPECT_EQ(read_file(path), "old\none\n\nthree\n");
  s.add("four");
  EXPECT_EQ(s.checkpoint(), 1U);
  EXPECT_EQ(read_file(path), "old\none\n\nthree\nfour\n");
  EXPECT_EQ(s.stats().durable_items, 4U);
  EXPECT_EQ(s.stats().checkpoints, 2U);
}

TEST(CheckpointedStream, EmptyCheckpointLeavesTheFileAlone) {
  temp_dir dir;
  const std::string path = dir.file("f");
  write_file_atomic(path, "x\n");
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  checkpointed_stream s(path, append_lines);
  s.checkpoint();
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "the file was rewritten for nothing";
}

TEST(CheckpointedStream, RefusedFoldKeepsFileAndDelta) {
  temp_dir dir;
  const std::string path = dir.file("f");
  write_file_atomic(path, "old\n");
  bool refuse = true;
  checkpointed_stream s(path, [&](std::string& file, std::span<const std::string_view> items) {
    append_lines(file, items);
    if (refuse) throw std::runtime_error("refused");
  });
  s.add("a");
  EXPECT_THROW(s.checkpoint(), std::runtime_error);
  EXPECT_EQ(read_file(path), "old\n");
  EXPECT_EQ(s.pending_items(), 1U);
  refuse = false;
  EXPECT_EQ(s.checkpoint(), 1U);
  EXPECT_EQ(read_file(path), "old\na\n");
}

TEST(CheckpointedStream, MissingFileIsAnIoError) {
  temp_dir dir;
  checkpointed_stream s(dir.file("absent"), append_lines);
  s.add("a");
  EXPECT_THROW(s.checkpoint(), io_error);
  EXPECT_EQ(s.pending_items(), 1U);
}

TEST(CheckpointedStream, ConcurrentStreamsLoseNothing) {
  temp_dir dir;
  const std::string path = dir.file("f");
  write_file_atomic(path, "");
  constexpr int writers = 4;
  constexpr int per_writer = 2000;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      checkpoint_policy policy;
      policy.max_items = 97;  // many interleaved checkpoints
      checkpointed_stream s(path, append_lines, policy);
      for (int i = 0; i < per_writer; ++i) {
        s.add("w" + std::to_string(w) + ":" + std::to_string(i));
        if (s.due()) s.checkpoint();
      }
      s.checkpoint();
    });
  }
  for (auto& t : threads) t.join();
  const auto lines = lines_of(read_file(path));
  ASSERT_EQ(lines.size(), std::size_t{writers * per_writer});
  // Each writer's items appear once each, in its own order.
  std::vector<int> next(writers, 0);
  for (const auto& line : lines) {
    const auto w = static_cast<std::size_t>(line[1] - '0');
    ASSERT_EQ(line, "w" + std::to_string(w) + ":" + std::to_string(next[w])) << "out of order";
    ++next[w];
  }
}

}  // namespace
}  // namespace ringbloom::io
