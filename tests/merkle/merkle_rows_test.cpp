// Rows files and the row comparison: parsing, bad lines, duplicates, stale
// rows, and that diff + row comparison finds exactly the changed keys.
#include "ringbloom/merkle/merkle_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> scanned(const std::string& path) {
  std::vector<std::string> out;
  scan_rows_file(path, [&](std::string_view k, std::string_view v, std::uint64_t line) {
    out.push_back(std::to_string(line) + ":" + std::string(k) + "=" + std::string(v));
  });
  return out;
}

TEST(MerkleRows, SplitsAtTheFirstTabAndAcceptsCrlfAndNoFinalNewline) {
  test::temp_dir dir;
  write(dir.file("r.tsv"), "a\t1\r\nb\tx\ty\n\t\nc\t");
  EXPECT_THAT(scanned(dir.file("r.tsv")), testing::ElementsAre("1:a=1", "2:b=x\ty", "3:=", "4:c="));
  write(dir.file("empty.tsv"), "");
  EXPECT_TRUE(scanned(dir.file("empty.tsv")).empty());
}

TEST(MerkleRows, LinesLongerThanABlockAreRead) {
  test::temp_dir dir;
  const std::string value(3 << 20, 'v');
  write(dir.file("long.tsv"), "k1\t" + value + "\nk2\tshort\n");
  std::vector<std::size_t> sizes;
  scan_rows_file(dir.file("long.tsv"), [&](std::string_view, std::string_view v, std::uint64_t) {
    sizes.push_back(v.size());
  });
  EXPECT_THAT(sizes, testing::ElementsAre(value.size(), 5u));
}

TEST(MerkleRows, ALineWithoutTabNamesTheFileAndLine) {
  test::temp_dir dir;
  write(dir.file("bad.tsv"), "a\t1\nb\t2\nno tab here\n");
  EXPECT_THAT([&] { (void)scanned(dir.file("bad.tsv")); },
              testing::ThrowsMessage<data_error>(testing::HasSubstr("bad.tsv line 3 has no TAB")));
  write(dir.file("blank.tsv"), "a\t1\n\n");
  EXPECT_THROW((void)scanned(dir.file("blank.tsv")), data_error);
  EXPECT_THROW((void)scanned(dir.file("missing.tsv")), io_error);
}

TEST(MerkleRows, BuildFromFileEqualsBuildingInMemory) {
  test::temp_dir dir;
  std::string text;
  merkle_tree expected({.depth = 8});
  for (int i = 0; i < 3000; ++i) {
    text += "key" + std::to_string(i) + "\tvalue" + std::to_string(i * 7) + "\n";
    expected.add("key" + std::to_string(i), "value" + std::to_string(i * 7));
  }
  write(dir.file("rows.tsv"), text);
  EXPECT_EQ(build_tree_from_rows(dir.file("rows.tsv"), {.depth = 8}), expected);
}

TEST(MerkleRows, DiffThenRowComparisonFindsExactlyTheChangedKeys) {
  std::map<std::string, std::string> a;
  std::mt19937_64 rng(21);
  for (int i = 0; i < 50000; ++i) a["key" + std::to_string(i)] = std::to_string(rng());
  std::map<std::string, std::string> b = a;
  std::vector<key_difference> expected;
  for (int i = 0; i < 40; ++i) {
    const std::string key = "key" + std::to_string(i * 1237);
    if (i % 3 == 0) {
      b[key] += "x";
      expected.push_back({key, key_change::changed, a[key], b[key]});
    } else if (i % 3 == 1) {
      expected.push_back({key, key_change::only_in_a, a[key], std::nullopt});
      b.erase(key);
    } else {
      const std::string added = "fresh" + std::to_string(i);
      b[added] = "new";
      expected.push_back({added, key_change::only_in_b, std::nullopt, "new"});
    }
  }
  std::sort(expected.begin(), expected.end(),
            [](const key_difference& x, const key_difference& y) { return x.key < y.key; });
  merkle_builder ba({.depth = 14});
  merkle_builder bb({.depth = 14});
  for (const auto& [k, v] : a) ba.add(k, v);
  for (const auto& [k, v] : b) bb.add(k, v);
  const merkle_tree ta = ba.finish();
  const merkle_tree tb = bb.finish();
  const merkle_diff d = diff(ta, tb);
  row_collector ca(ta, d.leaves);
  row_collector cb(tb, d.leaves);
  for (const auto& [k, v] : a) ca.offer(k, v);
  for (const auto& [k, v] : b) cb.offer(k, v);
  EXPECT_NO_THROW(ca.check_against_tree());
  EXPECT_NO_THROW(cb.check_against_tree());
  EXPECT_EQ(ca.size(), d.rows_a);  // only the rows of the differing leaves are kept
  EXPECT_LT(ca.size(), 200u);
  EXPECT_EQ(compare_rows(ca, cb), expected);
}

TEST(MerkleRows, ADuplicateKeyInACollectedRangeIsRefused) {
  merkle_tree tree({.depth = 2});
  tree.add("k", "1");
  row_collector collector(tree, {tree.leaf_of(tree.key_position("k"))});
  collector.offer("k", "1", 3);
  EXPECT_THAT([&] { collector.offer("k", "2", 9); },
              testing::ThrowsMessage<data_error>(
                  testing::HasSubstr("key 'k' appears twice, on lines 3 and 9")));
}

TEST(MerkleRows, RowsThatDoNotMatchTheTreeAreRefused) {
  merkle_tree tree({.depth = 2});
  tree.add("k", "1");
  row_collector collector(tree, {tree.leaf_of(tree.key_position("k"))});
  collector.offer("k", "2");  // the rows changed after the tree was built
  EXPECT_THAT([&] { collector.check_against_tree(); },
              testing::ThrowsMessage<data_error>(testing::HasSubstr("rebuild the tree")));
  EXPECT_THROW(row_collector(tree, {4}), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom
