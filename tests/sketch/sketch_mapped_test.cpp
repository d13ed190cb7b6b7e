// Memory-mapped sketch files (open_sketch_mapped): a mapped
// HyperLogLog or Count-Min sketch answers exactly as the loaded one, read in
// place; a mapped Top-K is the loaded one; every flip and truncation of a
// file on disk is refused before anything is answered; replacing a mapped
// file by a save leaves the open view answering from the old content.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;

using test::temp_dir;

TEST(SketchMapped, HyperLogLogCountsInPlaceAsTheLoadedOne) {
  const temp_dir dir;
  for (const unsigned p : {4u, 14u, 18u}) {
    hyperloglog h(p, 11);
    for (int i = 0; i < 50'000; ++i) h.add("visitor-" + std::to_string(i));
    save_sketch(dir / "h.rbs", h);
    const auto loaded = load_sketch_as<hyperloglog>(dir / "h.rbs");
    const auto view = open_sketch_mapped_as<hll_view>(dir / "h.rbs");
    EXPECT_EQ(view.count(), loaded.count()) << "p = " << p;
    EXPECT_EQ(view.estimate(), loaded.estimate());
    EXPECT_EQ(view.precision(), p);
    EXPECT_EQ(view.seed(), 11u);
    EXPECT_EQ(view.register_count(), loaded.register_count());
    EXPECT_EQ(view.standard_error(), loaded.standard_error());
    EXPECT_TRUE(view.copy() == loaded);
  }
  // Redis mode, and a union taken from mapped files.
  hyperloglog a = hyperloglog::redis();
  hyperloglog b = hyperloglog::redis();
  for (int i = 0; i < 3000; ++i) (i % 2 == 0 ? a : b).add("k" + std::to_string(i));
  save_sketch(dir / "a.rbs", a);
  save_sketch(dir / "b.rbs", b);
  hyperloglog u = a;
  u.merge(b);
  hyperloglog mapped_union = open_sketch_mapped_as<hll_view>(dir / "a.rbs").copy();
  mapped_union.merge(open_sketch_mapped_as<hll_view>(dir / "b.rbs"));
  EXPECT_TRUE(mapped_union == u);
  EXPECT_EQ(open_sketch_mapped_as<hll_view>(dir / "a.rbs").mode(), hll_mode::redis);
}

TEST(SketchMapped, CountMinQueriesInPlaceAsTheLoadedOne) {
  const temp_dir dir;
  for (const bool conservative : {false, true}) {
    count_min_sketch c(1000, 5, conservative, 42);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20'000; ++i) c.increment("item-" + std::to_string(rng() % 3000), 1 + i % 4);
    save_sketch(dir / "c.rbs", c);
    const auto loaded = load_sketch_as<count_min_sketch>(dir / "c.rbs");
    const auto view = open_sketch_mapped_as<count_min_view>(dir / "c.rbs");
    for (int i = 0; i < 4000; ++i) {  // present and absent items
      const std::string item = "item-" + std::to_string(i);
      ASSERT_EQ(view.estimate(item), loaded.estimate(item)) << item;
    }
    EXPECT_EQ(view.width(), 1000u);
    EXPECT_EQ(view.depth(), 5u);
    EXPECT_EQ(view.conservative(), conservative);
    EXPECT_EQ(view.total(), loaded.total());
    EXPECT_EQ(view.error_bound(), loaded.error_bound());
    EXPECT_EQ(view.delta(), loaded.delta());
    EXPECT_EQ(view.memory_bytes(), loaded.memory_bytes());
    EXPECT_TRUE(view.copy() == loaded);
  }
}

TEST(SketchMapped, TopKIsDecodedAsTheLoadedOne) {
  const temp_dir dir;
  top_k t(5, 64, 4, 0.9, 3);
  for (int i = 0; i < 5000; ++i) t.add("url-" + std::to_string(i % 37 * (i % 5)));
  save_sketch(dir / "t.rbs", t);
  EXPECT_TRUE(open_sketch_mapped_as<top_k>(dir / "t.rbs") == load_sketch_as<top_k>(dir / "t.rbs"));
  EXPECT_TRUE(std::get<top_k>(open_sketch_mapped(dir / "t.rbs")) == t);
}

std::vector<std::string> small_files() {
  hyperloglog h(4, 7);
  h.add("a");
  count_min_sketch c(8, 2, true, 3);
  c.increment("x", 9);
  top_k t(2, 4, 2, 0.9, 5);
  t.add("alpha", 3);
  return {serialize_sketch(h), serialize_sketch(c), serialize_sketch(t)};
}

TEST(SketchMapped, EveryFlipAndTruncationOnDiskIsRefused) {
  const temp_dir dir;
  const fs::path path = dir / "s.rbs";
  for (const std::string& file : small_files()) {
    io::write_file_atomic(path, file);
    EXPECT_NO_THROW((void)open_sketch_mapped(path));
    for (std::size_t i = 0; i < file.size(); ++i) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ 0x20);
      io::write_file_atomic(path, bad);
      EXPECT_THROW((void)open_sketch_mapped(path), data_error) << "byte " << i;
    }
    for (std::size_t n = 0; n < file.size(); n += 7) {
      io::write_file_atomic(path, file.substr(0, n));
      EXPECT_THROW((void)open_sketch_mapped(path), data_error) << n << " bytes";
    }
  }
}

TEST(SketchMapped, RefusalsNameTheFileAndTheKind) {
  const temp_dir dir;
  save_sketch(dir / "c.rbs", count_min_sketch(10, 2));
  try {
    (void)open_sketch_mapped_as<hll_view>(dir / "c.rbs");
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("c.rbs holds a Count-Min sketch, not a HyperLogLog"),
              std::string::npos)
        << e.what();
  }
  std::string bytes = serialize_sketch(count_min_sketch(10, 2));
  bytes[70] = 1;  // a counter, so only the checksum notices
  io::write_file_atomic(dir / "bad.rbs", bytes);
  try {
    (void)open_sketch_mapped_as<count_min_view>(dir / "bad.rbs");
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.rbs: the sketch file's checksum does not match"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)open_sketch_mapped(dir / "missing.rbs"), io_error);
  EXPECT_THROW((void)open_sketch_mapped(fs::path("/dev/zero")), io_error);
}

TEST(SketchMapped, ASaveOverAMappedFileLeavesTheOpenViewOnTheOldContent) {
  const temp_dir dir;
  count_min_sketch c(64, 3);
  c.increment("k", 5);
  save_sketch(dir / "c.rbs", c);
  const auto view = open_sketch_mapped_as<count_min_view>(dir / "c.rbs");
  update_sketch_file(dir / "c.rbs",
                     [](any_sketch& s) { std::get<count_min_sketch>(s).increment("k", 100); });
  EXPECT_EQ(view.estimate("k"), 5u);  // the old inode, still mapped
  EXPECT_EQ(open_sketch_mapped_as<count_min_view>(dir / "c.rbs").estimate("k"), 105u);
}

}  // namespace
}  // namespace ringbloom
