// Merkle tree benchmarks: building from 10M rows of 32 bytes, the
// diff of two depth-16 trees with 10 differing rows, and the digests a diff
// exchanges for d differences against d x depth x 2.
//
// Peers in the same run, through the same rows: the floor of a build (reading
// and splitting the file without hashing: what any streaming builder pays),
// hashing alone (what the digests cost), and for the diff, comparing every
// leaf of two flat lists (a tree of depth 0 over 2^16 buckets, as a
// replica would do without the inner levels).
//
// Build and run (docs/performance.md):
//   cmake --preset bench && cmake --build build/bench --target merkle_bench -j2
//   build/bench/bench/merkle_bench --benchmark_min_time=0.5
// The 10M-row file (340 MB) is written once to $TMPDIR (default /tmp) as
// ringbloom-merkle-bench-10M.tsv and reused.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/merkle/merkle_rows.hpp"
#include "ringbloom/merkle/merkle_tree.hpp"

namespace {

using namespace ringbloom;  // NOLINT: a benchmark file, not a header

constexpr std::uint64_t big_rows = 10'000'000;

// Row i: a 16-byte key and a 16-byte value (32 bytes a row, plus TAB and '\n').
std::string key_of(std::uint64_t i) { return fmt::format("k{:015d}", i); }
std::string value_of(std::uint64_t i) {
  return fmt::format("v{:015d}", (i * 2654435761u) % 1'000'000'000'000'000u);
}

std::filesystem::path big_file() {
  const char* dir = std::getenv("TMPDIR");
  std::filesystem::path path =
      std::filesystem::path(dir ? dir : "/tmp") / "ringbloom-merkle-bench-10M.tsv";
  const std::uint64_t expected = big_rows * 34;
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) == expected) return path;
  std::ofstream out(path, std::ios::binary);
  std::string block;
  for (std::uint64_t i = 0; i < big_rows; ++i) {
    block += key_of(i);
    block += '\t';
    block += value_of(i);
    block += '\n';
    if (block.size() > (1u << 20)) {
      out << block;
      block.clear();
    }
  }
  out << block;
  return path;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The whole build: read, split, hash, sum, inner digests.
void BM_BuildFromFile10M(benchmark::State& state) {
  const auto path = big_file();
  const auto depth = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    const merkle_tree tree = build_tree_from_rows(path, {.depth = depth});
    benchmark::DoNotOptimize(tree.root());
    if (tree.rows() != big_rows) state.SkipWithError("wrong row count");
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(big_rows),
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
BENCHMARK(BM_BuildFromFile10M)
    ->Arg(16)
    ->Arg(20)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Peer: the floor: read and split every line, no hashing.
void BM_ScanOnly10M(benchmark::State& state) {
  const auto path = big_file();
  for (auto _ : state) {
    std::uint64_t bytes = 0;
    scan_rows_file(path, [&](std::string_view k, std::string_view v, std::uint64_t) {
      bytes += k.size() + v.size();
    });
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_ScanOnly10M)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The hashing alone, rows in memory: key hash (XXH3-64) + row digest (XXH3-128).
void BM_HashRows(benchmark::State& state) {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    keys.push_back(key_of(i));
    values.push_back(value_of(i));
  }
  for (auto _ : state) {
    hash128 sum;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      benchmark::DoNotOptimize(xxh3_64(keys[i]));
      sum = digest_add(sum, row_digest(keys[i], values[i]));
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 1'000'000);
}
BENCHMARK(BM_HashRows)->Unit(benchmark::kMillisecond);

// The builder on rows in memory (no file): hashing + leaf sums + inner digests.
void BM_BuildInMemory(benchmark::State& state) {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    keys.push_back(key_of(i));
    values.push_back(value_of(i));
  }
  for (auto _ : state) {
    merkle_builder builder({.depth = 16});
    for (std::size_t i = 0; i < keys.size(); ++i) builder.add(keys[i], values[i]);
    benchmark::DoNotOptimize(builder.finish().root());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 1'000'000);
}
BENCHMARK(BM_BuildInMemory)->Unit(benchmark::kMillisecond);

// Two replicas of 1M rows differing in d rows, at depth 16.
struct replica_pair {
  merkle_tree a;
  merkle_tree b;
};

replica_pair make_pair(std::uint64_t d, unsigned depth = 16) {
  merkle_builder a({.depth = depth});
  merkle_builder b({.depth = depth});
  const std::uint64_t n = 1'000'000;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::string key = key_of(i);
    const std::string value = value_of(i);
    a.add(key, value);
    b.add(key, d > 0 && i % (n / d) == 0 ? value + "!" : value);
  }
  return {a.finish(), b.finish()};
}

void BM_Diff(benchmark::State& state) {
  const auto d = static_cast<std::uint64_t>(state.range(0));
  static std::vector<std::pair<std::uint64_t, replica_pair>> cache;
  const replica_pair* pair = nullptr;
  for (const auto& [key, p] : cache) {
    if (key == d) pair = &p;
  }
  if (pair == nullptr) pair = &cache.emplace_back(d, make_pair(d)).second;
  merkle_diff result;
  for (auto _ : state) {
    result = diff(pair->a, pair->b);
    benchmark::DoNotOptimize(result.leaves.data());
  }
  state.counters["differing_leaves"] = static_cast<double>(result.leaves.size());
  state.counters["digests"] = static_cast<double>(result.digests_exchanged);
  state.counters["d_x_depth_x_2"] = static_cast<double>(result.leaves.size() * 16 * 2);
  state.counters["rows_to_compare"] = static_cast<double>(result.rows_a + result.rows_b);
}
BENCHMARK(BM_Diff)->Arg(10)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

// Peer: compare every leaf of two flat lists (no inner levels).
void BM_FlatLeafCompare(benchmark::State& state) {
  static const replica_pair pair = make_pair(10);
  for (auto _ : state) {
    std::uint64_t differing = 0;
    for (std::uint64_t i = 0; i < pair.a.leaf_count(); ++i)
      differing += pair.a.leaf(i) != pair.b.leaf(i) ? 1 : 0;
    benchmark::DoNotOptimize(differing);
  }
  state.counters["digests"] = static_cast<double>(pair.a.leaf_count());
}
BENCHMARK(BM_FlatLeafCompare)->Unit(benchmark::kMicrosecond);

// Incremental update: one row changed, O(depth) inner digests.
void BM_IncrementalUpdate(benchmark::State& state) {
  merkle_tree tree({.depth = static_cast<unsigned>(state.range(0))});
  for (int i = 0; i < 1000; ++i) tree.add(key_of(static_cast<std::uint64_t>(i)), "v");
  std::uint64_t i = 0;
  for (auto _ : state) {
    const std::string key = key_of(i++ % 1000);
    tree.update(key, "v", "w");
    tree.update(key, "w", "v");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 2);
}
BENCHMARK(BM_IncrementalUpdate)->Arg(16)->Arg(20);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  fmt::print("ringbloom merkle_bench: one thread; the machine is shared, expect noise\n");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
