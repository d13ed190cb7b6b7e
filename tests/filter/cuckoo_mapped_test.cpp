// Memory-mapped cuckoo filter files (open_cuckoo_mapped): the view
// answers may_contain, count and may_contain_many exactly as the loaded
// filter, grown or not, reading the buckets in place; every flip and
// truncation on disk is refused; and a growth this process cannot hold is
// refused before it allocates (io::require_memory), the filter unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/memory.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;

using test::temp_dir;

TEST(CuckooMapped, AnswersAsTheLoadedFilterForEveryGeometry) {
  const temp_dir dir;
  for (const std::uint32_t b : {2u, 4u}) {
    for (const std::uint32_t bits : {8u, 12u, 16u}) {
      cuckoo_filter::options o;
      o.bucket_size = b;
      o.fingerprint_bits = bits;
      o.expansion = 2;
      o.seed = 5;
      cuckoo_filter f(500, o);
      for (int i = 0; i < 2000; ++i) f.add("x" + std::to_string(i));  // grows
      for (int i = 0; i < 2000; i += 9) f.remove("x" + std::to_string(i));
      ASSERT_GT(f.sub_filters().size(), 1u);
      save_cuckoo(dir / "f.rbc", f);
      const cuckoo_filter loaded = load_cuckoo(dir / "f.rbc");
      const cuckoo_view view = open_cuckoo_mapped(dir / "f.rbc");
      std::vector<std::string> items;
      for (int i = 0; i < 6000; ++i) items.push_back("x" + std::to_string(i));  // 2/3 absent
      std::vector<std::string_view> views(items.begin(), items.end());
      std::unique_ptr<bool[]> a(new bool[items.size()]);
      std::unique_ptr<bool[]> m(new bool[items.size()]);
      loaded.may_contain_many(views, {a.get(), items.size()});
      view.may_contain_many(views, {m.get(), items.size()});
      for (std::size_t i = 0; i < items.size(); ++i) {
        ASSERT_EQ(view.may_contain(items[i]), loaded.may_contain(items[i])) << items[i];
        ASSERT_EQ(view.count(items[i]), loaded.count(items[i])) << items[i];
        ASSERT_EQ(m[i], a[i]) << items[i];
      }
      EXPECT_EQ(view.items(), loaded.items());
      EXPECT_EQ(view.deletes(), loaded.deletes());
      EXPECT_EQ(view.capacity(), loaded.capacity());
      EXPECT_EQ(view.slots(), loaded.slots());
      EXPECT_EQ(view.load_factor(), loaded.load_factor());
      EXPECT_EQ(view.memory_bytes(), loaded.memory_bytes());
      EXPECT_EQ(view.sub_filters().size(), loaded.sub_filters().size());
      EXPECT_TRUE(view.copy() == loaded) << "b " << b << " bits " << bits;
    }
  }
}

TEST(CuckooMapped, EveryFlipAndTruncationOnDiskIsRefused) {
  const temp_dir dir;
  const fs::path path = dir / "f.rbc";
  cuckoo_filter f(16);
  f.add("a");
  f.add("b");
  const std::string file = serialize_cuckoo(f);
  io::write_file_atomic(path, file);
  EXPECT_TRUE(open_cuckoo_mapped(path).may_contain("a"));
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    io::write_file_atomic(path, bad);
    EXPECT_THROW((void)open_cuckoo_mapped(path), data_error) << "byte " << i;
  }
  for (std::size_t n = 0; n < file.size(); ++n) {
    io::write_file_atomic(path, file.substr(0, n));
    EXPECT_THROW((void)open_cuckoo_mapped(path), data_error) << n << " bytes";
  }
  io::write_file_atomic(path, "\x89RBS\r\n\x1a\n a sketch file");
  try {
    (void)open_cuckoo_mapped(path);
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("f.rbc: this is not a ringbloom cuckoo filter file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)open_cuckoo_mapped(dir / "missing.rbc"), io_error);
}

TEST(CuckooMapped, ASaveOverAMappedFileLeavesTheOpenViewOnTheOldContent) {
  const temp_dir dir;
  cuckoo_filter f(100);
  f.add("old");
  save_cuckoo(dir / "f.rbc", f);
  const cuckoo_view view = open_cuckoo_mapped(dir / "f.rbc");
  update_cuckoo_file(dir / "f.rbc", [](cuckoo_filter& g) {
    g.remove("old");
    g.add("new");
  });
  EXPECT_TRUE(view.may_contain("old"));
  EXPECT_EQ(view.items(), 1u);
  EXPECT_FALSE(open_cuckoo_mapped(dir / "f.rbc").may_contain("old"));
}

// A first sub-filter of 2^19 buckets of 4 16-bit slots (4 MiB) growing
// 32768-fold: its second sub-filter would take 2^34 x 8 bytes = 128 GiB.
TEST(CuckooGrowth, AGrowthThisProcessCannotHoldIsRefusedBeforeAllocating) {
  cuckoo_filter::options o;
  o.bucket_size = 4;
  o.fingerprint_bits = 16;
  o.expansion = 32768;
  cuckoo_filter f(std::uint64_t{1} << 21, o);
  const std::uint64_t next_bytes = (std::uint64_t{1} << 34) * 8;
  ASSERT_LT(io::available_memory().bytes, next_bytes)
      << "this machine could hold a 128 GiB sub-filter; the test needs one it cannot";
  std::uint64_t added = 0;
  std::string refusal;
  for (std::uint64_t i = 0; i < f.slots(); ++i) {
    const std::string item = "i" + std::to_string(i);
    try {
      ASSERT_TRUE(f.add(item));
      ++added;
    } catch (const io::memory_error& e) {
      refusal = e.what();
      // Unchanged: the item is absent unless a colliding fingerprint says
      // otherwise, every earlier item is there, and nothing grew.
      EXPECT_EQ(f.items(), added);
      EXPECT_EQ(f.sub_filters().size(), 1u);
      for (std::uint64_t j = 0; j < added; j += 97) {
        ASSERT_TRUE(f.may_contain("i" + std::to_string(j))) << j;
      }
      break;
    }
  }
  ASSERT_FALSE(refusal.empty()) << "the filter never needed to grow";
  // With RedisBloom's 20 kicks the first failed insertion comes at about 3/4
  // load (0.76 here): before the slots are all taken.
  EXPECT_GT(f.load_factor(), 0.5);
  EXPECT_LT(f.load_factor(), 1.0);
  EXPECT_NE(refusal.find("sub-filter 2 (17179869184 buckets, expansion 32768) needs 128.0 GiB"),
            std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("unchanged"), std::string::npos) << refusal;
}

}  // namespace
}  // namespace ringbloom
