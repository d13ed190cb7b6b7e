// sstable_filter: a Bloom filter in front of an expensive read, as Cassandra
// keeps one per SSTable. Build the filter from the keys a "table" holds, save
// it, map it back read-only, and count the disk reads it saves.
//
//   build: see examples/CMakeLists.txt (uses the installed ringbloom package)
//   run:   ./sstable_filter [DIR]
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ringbloom/filter/filter_file.hpp>
#include <string>
#include <unordered_set>
#include <vector>

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path();
  const std::filesystem::path file = dir / "sstable-0001.rbf";

  // The table's keys (the "disk").
  std::unordered_set<std::string> table;
  for (int i = 0; i < 200000; i += 2) table.insert("row:" + std::to_string(i));

  // A blocked filter for them at 1% false positives, saved atomically.
  ringbloom::filter_spec spec;
  spec.capacity = table.size();
  spec.fpr = 0.01;
  ringbloom::any_filter filter = ringbloom::make_filter(spec);
  for (const auto& key : table) filter.add(key);
  ringbloom::save_filter(file, filter);

  // A reader maps it (no copy of the bits) and asks before every read.
  const ringbloom::any_filter mapped = ringbloom::open_filter_mapped(file);
  long reads = 0, saved = 0, wasted = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::string key = "row:" + std::to_string(i);
    if (!mapped.may_contain(key)) {
      ++saved;  // definitely not in this table: skip the disk
      continue;
    }
    ++reads;
    if (table.count(key) == 0) ++wasted;  // a false positive costs one read
  }
  const auto stats = mapped.stats();
  std::printf("filter: %s, %llu bits, k=%u, %.1f bits per key, expected fpr %.3f%%\n",
              std::string(ringbloom::filter_kind_name(stats.kind)).c_str(),
              static_cast<unsigned long long>(stats.bits), stats.hashes,
              static_cast<double>(stats.bits) / static_cast<double>(table.size()),
              100 * stats.expected_fpr);
  std::printf("200000 lookups: %ld reads skipped, %ld reads done, %ld of them wasted (%.2f%%)\n",
              saved, reads, wasted, 100.0 * static_cast<double>(wasted) / 100000);
  std::filesystem::remove(file);
  // Every present key must have been read: a Bloom filter has no false negatives.
  return reads - wasted == static_cast<long>(table.size()) ? 0 : 1;
}
