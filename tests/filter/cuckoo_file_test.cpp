// Cuckoo filter files: golden bytes from tests/filter/cuckoo_golden.py, round
// trips with growth, and every single-byte flip and truncation refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/file_io.hpp"

namespace ringbloom {
namespace {

TEST(CuckooFile, GoldenFileMatchesTheLibrary) {
  cuckoo_filter::options o;
  o.bucket_size = 4;
  o.fingerprint_bits = 12;
  cuckoo_filter f(64, o);
  for (const char* x : {"anna", "bora", "cleo", "dana", "emil"}) f.add(x);
  const std::string golden = io::read_file(std::filesystem::path(RINGBLOOM_SOURCE_DIR) /
                                           "tests/filter/data/cuckoo_64_b4_f12.rbc");
  EXPECT_EQ(serialize_cuckoo(f), golden);
  const cuckoo_filter back = deserialize_cuckoo(golden);
  EXPECT_TRUE(back == f);
  EXPECT_TRUE(back.may_contain("cleo"));
}

TEST(CuckooFile, GrownFiltersRoundTrip) {
  cuckoo_filter::options o;
  o.expansion = 2;
  o.fingerprint_bits = 16;
  cuckoo_filter f(100, o);
  for (int i = 0; i < 1000; ++i) f.add("x" + std::to_string(i));
  f.remove("x7");
  ASSERT_GT(f.sub_filters().size(), 1u);
  const cuckoo_filter back = deserialize_cuckoo(serialize_cuckoo(f));
  EXPECT_TRUE(back == f);
  for (int i = 0; i < 1000; ++i) {
    if (i != 7) {
      EXPECT_TRUE(back.may_contain("x" + std::to_string(i)));
    }
  }
}

TEST(CuckooFile, EveryFlipAndTruncationIsRefused) {
  cuckoo_filter f(16);
  f.add("a");
  f.add("b");
  const std::string file = serialize_cuckoo(f);
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string bad = file;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_THROW((void)deserialize_cuckoo(bad), data_error) << "byte " << i;
  }
  for (std::size_t n = 0; n < file.size(); ++n) {
    EXPECT_THROW((void)deserialize_cuckoo(file.substr(0, n)), data_error) << n;
  }
  try {
    (void)deserialize_cuckoo("\x89RBS\r\n\x1a\n a sketch file");
    FAIL();
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a ringbloom cuckoo filter file"), std::string::npos);
  }
}

}  // namespace
}  // namespace ringbloom
