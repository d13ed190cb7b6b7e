// Windowed filter files (windowed_file.hpp): the golden files written by
// tests/filter/bloom_golden.py from docs/format.md's text (not by the
// library) are rebuilt byte for byte, damaged bytes are refused, saves and
// locked updates keep the file whole, the checkpointed stream carries each
// item's time, and the batch dedup path answers as the single calls do.
#include "ringbloom/filter/windowed_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/filter/windowed_dedup.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string golden(const std::string& name) {
  return io::read_file(fs::path(RINGBLOOM_SOURCE_DIR) / "tests/filter/data" / name);
}

/// The filters bloom_golden.py writes, built by the library.
windowed_bloom_filter golden_time() {
  auto f = windowed_bloom_filter::for_time(30, 300, 0.01);
  for (int i = 0; i < 60; ++i) f.add("w" + std::to_string(i), 1000 + 0.9 * i);
  f.add("late", 1030.5);
  return f;
}

windowed_bloom_filter golden_count() {
  auto f = windowed_bloom_filter::for_count(90, 1e-5);
  for (int i = 0; i < 130; ++i) f.add("n" + std::to_string(i));
  return f;
}

TEST(WindowedFile, LibraryWritesTheGoldenBytes) {
  const auto t = golden_time();
  EXPECT_EQ(t.superblocks(), 4u);  // the sizes the generator was given
  EXPECT_EQ(t.hashes(), 5u);
  EXPECT_EQ(t.serialize(), golden("windowed_time_xxh3.rbw"));
  const auto c = golden_count();
  EXPECT_EQ(c.superblocks(), 3u);
  EXPECT_EQ(c.hashes(), 13u);
  EXPECT_EQ(c.serialize(), golden("windowed_count_xxh3.rbw"));
}

TEST(WindowedFile, GoldenFilesLoadAndAnswer) {
  const auto t = windowed_bloom_filter::deserialize(golden("windowed_time_xxh3.rbw"));
  EXPECT_TRUE(t == golden_time());
  // Within the window of the latest time (1053.1): every item added at or
  // after 1023.1 answers maybe; "late" went into an older generation.
  for (int i = 26; i < 60; ++i) EXPECT_TRUE(t.may_contain("w" + std::to_string(i), 1053.1)) << i;
  EXPECT_TRUE(t.may_contain("late", 1060.0));
  const auto c = windowed_bloom_filter::deserialize(golden("windowed_count_xxh3.rbw"));
  EXPECT_TRUE(c == golden_count());
  for (int i = 40; i < 130; ++i) EXPECT_TRUE(c.may_contain("n" + std::to_string(i))) << i;
  EXPECT_EQ(c.items_in_window(), 100u);  // generations 1..4 (generation 0 was cleared)
}

TEST(WindowedFile, VersionOneFilesLoadAsTheSameFilter) {
  // Format version 1 held each generation in its own 384-bit segment; the
  // library reads it, moves every bit to its nibble, and writes version 2.
  const auto t = windowed_bloom_filter::deserialize(golden("windowed_time_xxh3_v1.rbw"));
  EXPECT_TRUE(t == golden_time());
  EXPECT_EQ(t.serialize(), golden("windowed_time_xxh3.rbw"));
  const auto c = windowed_bloom_filter::deserialize(golden("windowed_count_xxh3_v1.rbw"));
  EXPECT_TRUE(c == golden_count());
  EXPECT_EQ(c.serialize(), golden("windowed_count_xxh3.rbw"));
}

TEST(WindowedFile, UnknownVersionIsRefusedWithASentence) {
  std::string bad = golden("windowed_time_xxh3.rbw");
  bad[8] = 3;
  io::seal(bad);
  try {
    (void)windowed_bloom_filter::deserialize(bad);
    ADD_FAILURE() << "version 3 accepted";
  } catch (const data_error& x) {
    EXPECT_THAT(x.what(), HasSubstr("format version 3"));
  }
}

TEST(WindowedFile, EveryFlipAndTruncationIsRefused) {
  for (const char* name : {"windowed_time_xxh3.rbw", "windowed_count_xxh3.rbw",
                           "windowed_time_xxh3_v1.rbw", "windowed_count_xxh3_v1.rbw"}) {
    const std::string bytes = golden(name);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ 0x10);
      EXPECT_THROW((void)windowed_bloom_filter::deserialize(bad), data_error) << name << " " << i;
    }
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
      EXPECT_THROW((void)windowed_bloom_filter::deserialize(bytes.substr(0, n)), data_error) << n;
    }
  }
}

TEST(WindowedFile, FieldEditsWithARepairedChecksumAreRefused) {
  const std::string bytes = golden("windowed_time_xxh3.rbw");
  struct edit {
    std::size_t offset;
    unsigned char value;
    const char* says;
  };
  for (const edit& e : {edit{10, 3, "unknown window kind"}, edit{11, 5, "generations"},
                        edit{12, 0, "k = 0"}, edit{120, 1, "reserved"},
                        edit{64, 0x63, "latest generation"}, edit{88, 0xff, "more items"}}) {
    std::string bad = bytes;
    bad[e.offset] = static_cast<char>(e.value);
    io::seal(bad);
    try {
      (void)windowed_bloom_filter::deserialize(bad);
      ADD_FAILURE() << "offset " << e.offset << " accepted";
    } catch (const data_error& x) {
      EXPECT_THAT(x.what(), HasSubstr(e.says)) << e.offset;
    }
  }
}

TEST(WindowedFile, SaveLoadPeekAndNamedRefusal) {
  const test::temp_dir dir;
  const fs::path path = dir / "w.rbw";
  EXPECT_FALSE(peek_windowed_file(path));  // missing
  save_windowed(path, golden_time());
  EXPECT_TRUE(peek_windowed_file(path));
  EXPECT_TRUE(load_windowed(path) == golden_time());
  EXPECT_FALSE(peek_windowed_file(dir.path()));  // a directory
  std::string bad = golden("windowed_time_xxh3.rbw");
  bad[200] = static_cast<char>(bad[200] ^ 1);
  io::write_file_atomic(dir / "bad.rbw", bad);
  try {
    (void)load_windowed(dir / "bad.rbw");
    ADD_FAILURE() << "damaged file loaded";
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.rbw"));
    EXPECT_THAT(e.what(), HasSubstr("checksum"));
  }
}

TEST(WindowedFile, OtherReadersNameWhatTheFileIs) {
  const test::temp_dir dir;
  save_windowed(dir / "w.rbw", golden_time());
  try {
    (void)load_filter(dir / "w.rbw");  // bloom merge / remove read filter files
    ADD_FAILURE() << "a windowed file loaded as a filter file";
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("it is a ringbloom windowed filter file"));
  }
  try {
    (void)windowed_bloom_filter::deserialize(golden("blocked_xxh3.rbf"));
    ADD_FAILURE() << "a filter file loaded as a windowed file";
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("it is a ringbloom filter file"));
  }
}

TEST(WindowedFile, UpdateThatThrowsLeavesTheFile) {
  const test::temp_dir dir;
  const fs::path path = dir / "w.rbw";
  save_windowed(path, golden_time());
  const std::string before = io::read_file(path);
  EXPECT_THROW(update_windowed_file(path,
                                    [](windowed_bloom_filter& f) {
                                      f.add("new", 1060);
                                      f.add("too old", 900);  // more than a window back
                                    }),
               std::invalid_argument);
  EXPECT_EQ(io::read_file(path), before);
  update_windowed_file(path, [](windowed_bloom_filter& f) { f.add("new", 1060); });
  EXPECT_TRUE(load_windowed(path).may_contain("new", 1061));
}

TEST(WindowedFile, StreamCarriesEachItemsTime) {
  const test::temp_dir dir;
  const fs::path path = dir / "w.rbw";
  save_windowed(path, windowed_bloom_filter::for_time(30, 300, 0.01));
  auto expect = windowed_bloom_filter::for_time(30, 300, 0.01);
  windowed_add_stream stream(path);
  for (int i = 0; i < 100; ++i) {
    const double t = 5000 + 0.7 * i;
    stream.add("s" + std::to_string(i), t);
    expect.add("s" + std::to_string(i), t);
    if (i % 37 == 0) stream.checkpoint();
  }
  stream.checkpoint();
  EXPECT_EQ(stream.stats().durable_items, 100u);
  EXPECT_EQ(stream.items_added(), 100u);
  EXPECT_EQ(stream.items_in_window(), expect.items_in_window(expect.latest_time()));
  EXPECT_TRUE(load_windowed(path) == expect);

  // A refused time: the checkpoint throws, the file keeps its last state.
  const std::string before = io::read_file(path);
  stream.add("fine", 5070);
  stream.add("ancient", 10);
  EXPECT_THROW(stream.checkpoint(), std::invalid_argument);
  EXPECT_EQ(io::read_file(path), before);
  EXPECT_EQ(stream.pending_items(), 2u);  // the delta is kept
}

TEST(WindowedFile, StreamOfNothingStillValidatesTheFile) {
  const test::temp_dir dir;
  io::write_file_atomic(dir / "not.rbw", "hello, this is not a filter");
  windowed_add_stream stream(dir / "not.rbw");
  EXPECT_THROW(stream.checkpoint(), data_error);
}

TEST(WindowedFile, TestAndAddManyMatchesSingleCalls) {
  std::mt19937_64 rng(25);
  std::vector<std::string> items;
  std::vector<double> times;
  for (int i = 0; i < 5000; ++i) {
    items.push_back("k" + std::to_string(rng() % 2000));  // many repeats, some within a batch
    times.push_back(100 + i * 0.01);
  }
  const std::vector<std::string_view> views(items.begin(), items.end());
  for (const bool by_time : {true, false}) {
    auto batch = by_time ? windowed_bloom_filter::for_time(10, 1000, 0.01)
                         : windowed_bloom_filter::for_count(1000, 0.01);
    auto single = batch;
    std::vector<char> expect;
    for (std::size_t i = 0; i < items.size(); ++i) {
      expect.push_back(static_cast<char>(by_time ? single.test_and_add(items[i], times[i])
                                                 : single.test_and_add(items[i])));
    }
    auto seen = std::make_unique<bool[]>(items.size());
    const std::size_t found = batch.test_and_add_many(
        views, by_time ? std::span<const double>(times) : std::span<const double>{},
        {seen.get(), items.size()});
    std::size_t count = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      EXPECT_EQ(seen[i], expect[i] != 0) << i;
      count += seen[i] ? 1 : 0;
    }
    EXPECT_EQ(found, count);
    EXPECT_TRUE(batch == single);
    EXPECT_GT(count, 0u);
    EXPECT_LT(count, items.size());
  }
  auto f = windowed_bloom_filter::for_time(10, 1000, 0.01);
  bool one[1];
  EXPECT_THROW((void)f.test_and_add_many({views.data(), 1}, {}, {one, 1}), std::invalid_argument);
}

TEST(WindowedDedup, TimeFieldIsRemovedFromTheKeyAndBadFieldsStopAfterGoodLines) {
  auto f = windowed_bloom_filter::for_time(60, 100, 0.01);
  windowed_dedup dedup(f, 2);
  std::string out;
  const std::vector<std::string> lines{"a\t1000\tx", "a\t1010\tx", "b\t1020", "a\t1100\tx"};
  EXPECT_EQ(dedup.feed(lines, 0, out), 3u);
  EXPECT_EQ(out, "a\t1000\tx\nb\t1020\na\t1100\tx\n");  // 100 s > W (1 + 1/3): forgotten
  out.clear();
  const std::vector<std::string> bad{"c\t1101", "d\tsoon", "e\t1102"};
  try {
    dedup.feed(bad, 0, out);
    ADD_FAILURE() << "a line without a time was accepted";
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 6 has 'soon' in field 2"));
  }
  EXPECT_EQ(out, "c\t1101\n");
  EXPECT_EQ(f.items_added(), 5u);  // exactly the lines processed
  auto count = windowed_bloom_filter::for_count(10, 0.01);
  EXPECT_THROW(windowed_dedup(count, 1), std::invalid_argument);
}

TEST(WindowedDedup, WholeLinesInOrderAgainstAnExactSet) {
  auto f = windowed_bloom_filter::for_count(100000, 0.001);
  windowed_dedup dedup(f);
  std::mt19937_64 rng(7);
  std::vector<std::string> lines;
  for (int i = 0; i < 20000; ++i) lines.push_back("line-" + std::to_string(rng() % 5000));
  std::string out;
  for (std::size_t at = 0; at < lines.size(); at += 1000) {
    dedup.feed(std::span<const std::string>(lines).subspan(at, 1000), 0, out);
  }
  std::string exact;
  std::set<std::string> seen;
  for (const auto& line : lines) {
    if (seen.insert(line).second) exact += line + "\n";
  }
  EXPECT_EQ(out, exact);  // 5,000 distinct lines in a filter for 100,000 at 0.1%
  EXPECT_EQ(dedup.lines_read(), 20000u);
}

// ------------------------------------------------------------ describe

const filter_description::field* field_of(const filter_description& d, std::string_view name) {
  for (const auto& f : d.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(WindowedDescribe, SettingsAndStateAsFieldsAndRows) {
  windowed_bloom_filter f = windowed_bloom_filter::for_time(3600, 1000, 0.01, 7);
  for (int i = 0; i < 100; ++i) f.add("k" + std::to_string(i), 100.0);
  EXPECT_EQ(window_kind_name(f.kind()), "time");
  EXPECT_EQ(describe_window(f),
            "3600 s (items are forgotten 3600 to 4800 s after they were added)");
  EXPECT_EQ(windowed_memory_bytes(1000, 0.01), f.memory_bytes());

  const filter_description settings = windowed_settings(f);
  ASSERT_EQ(settings.fields.size(), 8u);
  EXPECT_TRUE(settings.rows.empty());
  EXPECT_EQ(std::get<std::string>(field_of(settings, "window_kind")->value), "time");
  EXPECT_EQ(std::get<std::string>(field_of(settings, "hash")->value), "xxh3");
  EXPECT_EQ(std::get<std::uint64_t>(field_of(settings, "seed")->value), 7u);
  EXPECT_EQ(std::get<double>(field_of(settings, "fpr")->value), 0.01);

  const filter_description d = describe_windowed(f, 200.0);
  ASSERT_EQ(d.fields.size(), 17u);
  EXPECT_EQ(d.fields[8].name, "generations");
  EXPECT_EQ(std::get<std::uint64_t>(field_of(d, "items_in_window")->value),
            f.items_in_window(200.0));
  EXPECT_EQ(std::get<double>(field_of(d, "at")->value), 200.0);
  EXPECT_EQ(std::get<double>(field_of(d, "expected_fpr")->value), f.expected_fpr(200.0));
  std::vector<std::string> labels;
  for (const auto& r : d.rows) labels.push_back(r.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"kind", "window", "capacity", "bits", "items",
                                              "expected fpr"}));
  EXPECT_EQ(d.rows[0].text, "windowed, by time");
  EXPECT_EQ(d.rows[2].text, "1000 items per window; 4 generations of 334");
  EXPECT_THAT(d.rows[4].text, HasSubstr("in the window at 200.000 (100 added"));
}

TEST(WindowedDescribe, CountWindowsAndOverfullGenerations) {
  windowed_bloom_filter f = windowed_bloom_filter::for_count(1000, 0.01);
  EXPECT_EQ(window_kind_name(f.kind()), "count");
  EXPECT_EQ(describe_window(f),
            "the last 1000 insertions (items are forgotten after 1000 to 1336 more)");
  windowed_bloom_filter t = windowed_bloom_filter::for_time(60, 10, 0.01);
  for (int i = 0; i < 40; ++i) t.add("k" + std::to_string(i), 1.0);  // a burst in one generation
  const filter_description d = describe_windowed(t, 1.0);
  ASSERT_GT(t.overfull_generations(1.0), 0u);
  EXPECT_THAT(d.rows.back().text, HasSubstr("overfull generation"));
}

}  // namespace
}  // namespace ringbloom
