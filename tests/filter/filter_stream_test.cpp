// add_to_filter_bytes and add_filter_stream: the checkpoint fold of the
// filter files. Adding items to a file's bytes (in place for classic and
// blocked filters) must give exactly the bytes of load, add, serialize; a
// damaged file is refused and left alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

std::vector<std::string> numbered(std::string_view prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(std::string(prefix) + std::to_string(i));
  return out;
}

std::vector<std::string_view> views_of(const std::vector<std::string>& items) {
  return {items.begin(), items.end()};
}

// The reference: decode, add one at a time, encode.
std::string added_by_load_add_save(const std::string& bytes,
                                   const std::vector<std::string>& items) {
  any_filter f = deserialize_filter(bytes);
  for (const auto& item : items) f.add(item);
  return serialize_filter(f);
}

void expect_same_as_reference(const any_filter& start, int n) {
  SCOPED_TRACE(std::string(filter_kind_name(start.kind())) + " " +
               std::string(hash_name(start.hash())));
  const std::string before = serialize_filter(start);
  const auto items = numbered("item:", n);
  std::string patched = before;
  add_to_filter_bytes(patched, views_of(items));
  const std::string expected = added_by_load_add_save(before, items);
  ASSERT_EQ(patched.size(), expected.size());
  EXPECT_TRUE(patched == expected) << "add_to_filter_bytes differs from load, add, save";
  const any_filter after = deserialize_filter(patched);
  if (start.kind() != filter_kind::scalable) {  // a scalable filter skips items it has
    EXPECT_EQ(after.items_added(), start.items_added() + static_cast<std::uint64_t>(n));
  }
  for (const auto& item : items) ASSERT_TRUE(after.may_contain(item)) << item;
}

filter_spec spec_of(filter_kind kind, hash_kind hash, std::uint64_t capacity = 5000) {
  filter_spec s;
  s.kind = kind;
  s.hash = hash;
  s.capacity = capacity;
  s.fpr = 0.01;
  return s;
}

TEST(AddToFilterBytes, EqualsLoadAddSaveForEveryKindAndHash) {
  for (const filter_kind kind :
       {filter_kind::blocked, filter_kind::classic, filter_kind::counting, filter_kind::scalable}) {
    for (const hash_kind hash :
         {hash_kind::xxh3, hash_kind::sha256, hash_kind::poly31, hash_kind::md5}) {
      any_filter f = make_filter(spec_of(kind, hash));
      f.add("already there");
      expect_same_as_reference(f, 3000);
    }
  }
}

TEST(AddToFilterBytes, SeededAndScalableGrowingLayers) {
  filter_spec seeded = spec_of(filter_kind::blocked, hash_kind::xxh3);
  seeded.seed = 42;
  expect_same_as_reference(make_filter(seeded), 2000);
  // 200 items of capacity for 3000 added: the scalable filter adds layers,
  // so its file grows (decoded and re-encoded).
  expect_same_as_reference(make_filter(spec_of(filter_kind::scalable, hash_kind::xxh3, 200)), 3000);
}

TEST(AddToFilterBytes, NothingToAddKeepsTheBytes) {
  const std::string before =
      serialize_filter(make_filter(spec_of(filter_kind::blocked, hash_kind::xxh3)));
  std::string bytes = before;
  add_to_filter_bytes(bytes, {});
  EXPECT_TRUE(bytes == before);
}

TEST(AddToFilterBytes, RefusesDamagedBytesAndLeavesThem) {
  std::string bytes = serialize_filter(make_filter(spec_of(filter_kind::blocked, hash_kind::xxh3)));
  bytes[100] = static_cast<char>(bytes[100] ^ 1);
  const std::string damaged = bytes;
  const std::vector<std::string_view> items{"a", "b"};
  EXPECT_THROW(add_to_filter_bytes(bytes, items), data_error);
  EXPECT_TRUE(bytes == damaged);
  std::string foreign = "not a filter at all";
  EXPECT_THROW(add_to_filter_bytes(foreign, items), data_error);
}

TEST(AddFilterStream, CheckpointsMakeItemsDurableAndReportTheCount) {
  test::temp_dir dir;
  const std::string path = dir.file("s.rbf");
  save_filter(path, make_filter(spec_of(filter_kind::blocked, hash_kind::xxh3)));
  std::uint64_t in_file = 0;
  io::checkpoint_policy policy;
  policy.max_items = 100;
  auto stream = add_filter_stream(path, policy, &in_file);
  const auto items = numbered("s:", 250);
  for (const auto& item : items) {
    stream.add(item);
    if (stream.full()) stream.checkpoint();
  }
  EXPECT_EQ(stream.stats().checkpoints, 2U);
  EXPECT_EQ(in_file, 200U);
  EXPECT_EQ(load_filter(path).items_added(), 200U) << "two checkpoints of 100 are on disk";
  stream.checkpoint();
  EXPECT_EQ(in_file, 250U);
  const any_filter f = load_filter(path);
  for (const auto& item : items) ASSERT_TRUE(f.may_contain(item)) << item;
}

TEST(AddFilterStream, DamagedFileIsNamedInTheError) {
  test::temp_dir dir;
  const std::string path = dir.file("bad.rbf");
  io::write_file_atomic(path, "not a filter");
  auto stream = add_filter_stream(path);
  stream.add("a");
  try {
    stream.checkpoint();
    FAIL() << "a damaged file was accepted";
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// A blocked filter of 400,000 items at 1%: about 120 regions of 4 KiB, so a
// checkpoint of a few items is patched in place.
std::string patched_file(test::temp_dir& dir) {
  const std::string path = dir.file("p.rbf");
  save_filter(path, make_filter(spec_of(filter_kind::blocked, hash_kind::xxh3, 400000)));
  return path;
}

// Byte `at` of the payloads flipped on disk (offset 64 + 32 + 32 + the region
// table, rounded to 64, is where they start).
void flip_payload_byte(const std::string& path, std::uint64_t regions, std::size_t at) {
  std::string bytes = io::read_file(path);
  const std::size_t payload = (128 + 8 * regions + 63) / 64 * 64;
  bytes[payload + at] = static_cast<char>(bytes[payload + at] ^ 0x40);
  io::write_file_atomic(path, bytes);
}

TEST(AddFilterStream, SmallCheckpointsPatchTheFileAsLoadAddSaveWould) {
  test::temp_dir dir;
  const std::string path = patched_file(dir);
  const std::string before = io::read_file(path);
  const auto items = numbered("patch:", 5);
  auto stream = add_filter_stream(path);
  for (const auto& item : items) stream.add(item);
  stream.checkpoint();
  EXPECT_TRUE(io::read_file(path) == added_by_load_add_save(before, items));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST(AddFilterStream, ADamagedRegionIsRefusedWhenAnAddChangesItAndNeverResealed) {
  test::temp_dir dir;
  const std::string path = patched_file(dir);
  const std::uint64_t regions = static_cast<unsigned char>(io::read_file(path)[60]) +
                                256U * static_cast<unsigned char>(io::read_file(path)[61]);
  ASSERT_GT(regions, 100U);
  // Every region damaged: whichever region the item falls in is refused,
  // and the file is left as it was.
  std::string all_bad = io::read_file(path);
  const std::size_t payload = (128 + 8 * regions + 63) / 64 * 64;
  for (std::uint64_t r = 0; r < regions; ++r) all_bad[payload + 4096 * r] ^= 0x40;
  io::write_file_atomic(path, all_bad);
  {
    auto stream = add_filter_stream(path);
    stream.add("x");
    try {
      stream.checkpoint();
      FAIL() << "an add re-sealed a damaged region";
    } catch (const data_error& e) {
      EXPECT_NE(std::string(e.what()).find("does not match its checksum"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(io::read_file(path) == all_bad);
  // One region damaged that the add does not change: the add goes through
  // (it reads only what it changes) and the file is still refused on load.
  const std::string clean =
      serialize_filter(make_filter(spec_of(filter_kind::blocked, hash_kind::xxh3, 400000)));
  io::write_file_atomic(path, clean);
  any_filter probe = deserialize_filter(clean);
  probe.add("y");
  // A region "y" leaves alone: its bytes did not change, and it shares no
  // page with the header (whose page the add writes, so region 0 is checked).
  std::uint64_t untouched = 2;
  const std::string with_y = serialize_filter(probe);
  while (with_y.substr(payload + 4096 * untouched, 4096) !=
         clean.substr(payload + 4096 * untouched, 4096)) {
    ++untouched;
  }
  flip_payload_byte(path, regions, static_cast<std::size_t>(4096 * untouched + 7));
  {
    auto stream = add_filter_stream(path);
    stream.add("y");
    stream.checkpoint();
  }
  EXPECT_THROW((void)load_filter(path), data_error);
}

// A checkpoint of a quarter of the regions' count or more (a long stream)
// reads the file whole into memory, sets the bits there and replaces the
// file: the bytes must still be load, add, save's, for every kind that adds
// in place.
TEST(AddFilterStream, LongCheckpointsRewriteTheFileAsLoadAddSaveWould) {
  test::temp_dir dir;
  for (const filter_kind kind : {filter_kind::blocked, filter_kind::blocked64,
                                 filter_kind::blocked1024, filter_kind::classic}) {
    SCOPED_TRACE(std::string(filter_kind_name(kind)));
    const std::string path = dir.file("long.rbf");
    any_filter start = make_filter(spec_of(kind, hash_kind::xxh3, 400000));
    start.add("already there");
    save_filter(path, start);
    const std::string before = io::read_file(path);
    const auto items = numbered("long:", 20000);  // > 120 regions / 4
    std::uint64_t in_file = 0;
    auto stream = add_filter_stream(path, {}, &in_file);
    for (const auto& item : items) stream.add(item);
    stream.checkpoint();
    EXPECT_EQ(in_file, 20001U);
    EXPECT_TRUE(io::read_file(path) == added_by_load_add_save(before, items));
    EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
  }
}

TEST(AddFilterStream, ALongCheckpointRefusesADamagedRegionAnywhereAndLeavesTheFile) {
  test::temp_dir dir;
  const std::string path = patched_file(dir);
  const std::string clean = io::read_file(path);
  const std::uint64_t regions =
      static_cast<unsigned char>(clean[60]) + 256U * static_cast<unsigned char>(clean[61]);
  // The last region, which a long stream rewrites with everything else.
  flip_payload_byte(path, regions, static_cast<std::size_t>(4096 * (regions - 1) + 3));
  const std::string damaged = io::read_file(path);
  auto stream = add_filter_stream(path);
  for (const auto& item : numbered("many:", 10000)) stream.add(item);
  try {
    stream.checkpoint();
    FAIL() << "a long checkpoint re-sealed a damaged region";
  } catch (const data_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match its checksum"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(io::read_file(path) == damaged);
  EXPECT_EQ(stream.pending_items(), 10000U) << "the refused items are kept";
}

}  // namespace
}  // namespace ringbloom
