// Merkle tree files: golden bytes, round trips, and every corruption refused.
#include "ringbloom/merkle/merkle_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

std::string golden_path() {
  return std::string(RINGBLOOM_SOURCE_DIR) + "/tests/merkle/data/two_rows_depth2.rbm";
}

merkle_tree two_rows() {
  merkle_tree tree({.depth = 2});
  tree.add("user:1", "anna");
  tree.add("user:2", "bora");
  return tree;
}

// Rewrites the checksum so that a field edit reaches the field checks.
void repair_checksum(std::string& bytes) {
  const std::size_t body = bytes.size() - 8;
  const std::uint64_t sum = xxh3_64(std::string_view(bytes.data(), body));
  for (int i = 0; i < 8; ++i)
    bytes[body + static_cast<std::size_t>(i)] = static_cast<char>(sum >> (8 * i));
}

TEST(MerkleFile, WritesTheGoldenBytes) {
  // Written by tests/merkle/merkle_golden.py from docs/format.md, with xxhsum.
  const std::string golden = io::read_file(golden_path());
  ASSERT_EQ(golden.size(), 168u);
  EXPECT_EQ(serialize_tree(two_rows()), golden);
  EXPECT_EQ(deserialize_tree(golden), two_rows());
}

TEST(MerkleFile, RoundTripsWithRanges) {
  merkle_tree tree(
      {.depth = 10, .key_hash = hash_kind::sha256, .ranges = {{0, 99}, {1ull << 62, 1ull << 63}}});
  for (int i = 0; i < 5000; ++i) tree.add("k" + std::to_string(i), "v");
  const std::string bytes = serialize_tree(tree);
  EXPECT_EQ(bytes.size() % 8, 0u);
  const merkle_tree back = deserialize_tree(bytes);
  EXPECT_EQ(back, tree);
  EXPECT_EQ(back.options().ranges.size(), 2u);
}

TEST(MerkleFile, SaveIsAtomicAndLoadNamesTheFile) {
  test::temp_dir dir;
  save_tree(dir.file("t.rbm"), two_rows());
  EXPECT_EQ(load_tree(dir.file("t.rbm")), two_rows());
  std::filesystem::resize_file(dir.file("t.rbm"), 100);
  EXPECT_THAT([&] { (void)load_tree(dir.file("t.rbm")); },
              testing::ThrowsMessage<data_error>(testing::HasSubstr(dir.file("t.rbm"))));
  EXPECT_THROW((void)load_tree(dir.file("missing.rbm")), io_error);
}

TEST(MerkleFile, EveryFlippedByteAndEveryTruncationIsRefused) {
  const std::string good = serialize_tree(two_rows());
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (const int mask : {0x01, 0x80}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      EXPECT_THROW((void)deserialize_tree(bad), data_error) << "byte " << i;
    }
  }
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW((void)deserialize_tree(good.substr(0, n)), data_error) << n;
  }
  EXPECT_THROW((void)deserialize_tree(good + '\0'), data_error);
}

TEST(MerkleFile, RandomCorruptionsAreRefused) {
  merkle_tree tree({.depth = 6});
  for (int i = 0; i < 300; ++i) tree.add("k" + std::to_string(i), "v");
  const std::string good = serialize_tree(tree);
  std::mt19937_64 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (bad == good) continue;
    EXPECT_THROW((void)deserialize_tree(bad), data_error) << round;
  }
}

// Each field edited with the checksum repaired: the field checks refuse it.
TEST(MerkleFile, EachFieldIsCheckedEvenWithAValidChecksum) {
  const std::string good = serialize_tree(two_rows());
  const auto refused = [&](std::size_t offset, char value, const char* message) {
    std::string bad = good;
    bad[offset] = value;
    repair_checksum(bad);
    EXPECT_THAT([&] { (void)deserialize_tree(bad); },
                testing::ThrowsMessage<data_error>(testing::HasSubstr(message)))
        << "offset " << offset;
  };
  refused(8, 2, "version 2 is not supported");
  refused(10, 9, "unknown key hash code 9");
  refused(11, 2, "unknown row hash code 2");
  refused(12, 3, "needs");  // depth 3 does not fit the size
  refused(12, 0, "depth 0");
  refused(13, 1, "reserved");
  refused(16, 5, "header says 5 rows");
  refused(32, 1, "needs");  // one range does not fit the size
  refused(40, 1, "root digest");
  refused(60, 1, "reserved");
  refused(64 + 16, 2, "leaves hold");      // a leaf's row count
  refused(64 + 48 + 5, 1, "no rows but");  // an empty leaf's digest (leaf 2)
  std::string edited = good;
  edited[24] = 0x10;  // the header's size
  repair_checksum(edited);
  EXPECT_THROW((void)deserialize_tree(edited), data_error);
}

TEST(MerkleFile, ForeignFilesAreRefusedByTheMagic) {
  EXPECT_THAT(
      [] { (void)deserialize_tree("\x89RBF\r\n\x1a\n and more bytes of a filter"); },
      testing::ThrowsMessage<data_error>(testing::HasSubstr("not a ringbloom Merkle tree file")));
  EXPECT_THROW((void)deserialize_tree(""), data_error);
}

TEST(MerkleFile, RangesMustBeNormalizedAndLeavesOutsideEmpty) {
  // A tree of depth 1 limited to the low half, edited to list bad ranges.
  merkle_tree tree({.depth = 1, .ranges = {{0, 10}, {20, 30}}});
  std::string bytes = serialize_tree(tree);
  std::string swapped = bytes;
  std::memcpy(swapped.data() + 64, bytes.data() + 80, 16);
  std::memcpy(swapped.data() + 80, bytes.data() + 64, 16);
  repair_checksum(swapped);
  EXPECT_THAT([&] { (void)deserialize_tree(swapped); },
              testing::ThrowsMessage<data_error>(testing::HasSubstr("range table")));
  // Leaf 1 (the high half) lies outside the ranges: rows there are refused.
  std::string outside = bytes;
  outside[128 + 24 + 16] = 1;
  outside[16] = 1;
  repair_checksum(outside);
  EXPECT_THAT([&] { (void)deserialize_tree(outside); },
              testing::ThrowsMessage<data_error>(testing::HasSubstr("outside the tree's ranges")));
}

}  // namespace
}  // namespace ringbloom
