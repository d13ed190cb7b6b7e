// Sketch files: golden bytes from tests/sketch/sketch_golden.py, round trips
// of every kind, and corruption: every single-byte flip and every truncation
// of small files is refused with data_error.
#include "ringbloom/sketch/sketch_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"

namespace ringbloom {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests/sketch/data";

std::string golden(const std::string& name) { return io::read_file(data_dir / name); }

TEST(SketchFile, GoldenRedisHllFilesMatchTheLibrary) {
  hyperloglog h = hyperloglog::redis();
  for (int i = 0; i < 100; ++i) h.add("user:" + std::to_string(i));
  EXPECT_EQ(serialize_sketch(h), golden("hll_redis_100.rbs"));
  EXPECT_EQ(to_redis_string(h, redis_hll_encoding::dense), golden("redis_hll_100_dense.bin"));
  EXPECT_EQ(to_redis_string(h, redis_hll_encoding::sparse), golden("redis_hll_100_sparse.bin"));
  EXPECT_TRUE(std::get<hyperloglog>(deserialize_sketch(golden("hll_redis_100.rbs"))) == h);
}

TEST(SketchFile, GoldenCountMinFileMatchesTheLibrary) {
  count_min_sketch c(64, 3);
  c.increment("apple", 3);
  c.increment("pear", 1);
  c.increment("plum", 7);
  c.increment("apple", 2);
  EXPECT_EQ(serialize_sketch(c), golden("cms_64x3.rbs"));
  const auto back = std::get<count_min_sketch>(deserialize_sketch(golden("cms_64x3.rbs")));
  EXPECT_GE(back.estimate("apple"), 5u);
  EXPECT_EQ(back.total(), 13u);
}

std::vector<std::string> small_files() {
  hyperloglog h(4, 7);
  h.add("a");
  count_min_sketch c(8, 2, true, 3);
  c.increment("x", 9);
  top_k t(2, 4, 2, 0.9, 5);
  t.add("alpha", 3);
  t.add("beta");
  return {serialize_sketch(h), serialize_sketch(c), serialize_sketch(t)};
}

TEST(SketchFile, EveryKindRoundTrips) {
  top_k t(3, 16, 4, 0.8, 1);
  for (int i = 0; i < 1000; ++i) t.add("i" + std::to_string(i % 13), 1 + i % 3);
  const any_sketch back = deserialize_sketch(serialize_sketch(t));
  EXPECT_TRUE(std::get<top_k>(back) == t);
  count_min_sketch c = count_min_sketch::for_error(0.01, 0.05, true, 99);
  c.increment("q", 5);
  EXPECT_TRUE(std::get<count_min_sketch>(deserialize_sketch(serialize_sketch(c))) == c);
  hyperloglog h(18, 3);
  h.add("z");
  EXPECT_TRUE(std::get<hyperloglog>(deserialize_sketch(serialize_sketch(h))) == h);
}

TEST(SketchFile, EverySingleByteFlipIsRefused) {
  for (const std::string& file : small_files()) {
    for (std::size_t i = 0; i < file.size(); ++i) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ 0x20);
      EXPECT_THROW((void)deserialize_sketch(bad), data_error) << "byte " << i;
    }
  }
}

TEST(SketchFile, EveryTruncationIsRefused) {
  for (const std::string& file : small_files()) {
    for (std::size_t n = 0; n < file.size(); ++n) {
      EXPECT_THROW((void)deserialize_sketch(file.substr(0, n)), data_error) << n;
    }
  }
}

TEST(SketchFile, ForeignFilesAndWrongKindsSaySo) {
  try {
    (void)deserialize_sketch("\x89RBF\r\n\x1a\n and the rest of a filter file");
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a ringbloom sketch file"), std::string::npos);
  }
  const auto dir = std::filesystem::temp_directory_path() / "ringbloom_sketch_file_test";
  std::filesystem::create_directories(dir);
  save_sketch(dir / "c.rbs", count_min_sketch(10, 2));
  try {
    (void)load_sketch_as<hyperloglog>(dir / "c.rbs");
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds a Count-Min sketch, not a HyperLogLog"),
              std::string::npos)
        << e.what();
  }
  update_sketch_file(dir / "c.rbs",
                     [](any_sketch& s) { std::get<count_min_sketch>(s).increment("k", 4); });
  EXPECT_EQ(load_sketch_as<count_min_sketch>(dir / "c.rbs").estimate("k"), 4u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ringbloom
