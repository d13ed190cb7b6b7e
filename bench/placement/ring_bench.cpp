// Ring benchmarks: lookups (pre-hashed and end to end), building, adding a
// node, memory. Every placement is driven through one small adapter so the
// peers (a plain binary search, libmemcached's ketama, jump hash) run on the
// same keys in the same run.
//
// Build and run (docs/performance.md):
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DRINGBLOOM_BUILD_BENCH=ON
//   cmake --build build-bench --target ring_bench -j2
//   build-bench/bench/placement/ring_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/jump.hpp"
#include "ringbloom/placement/ring.hpp"

#ifdef RINGBLOOM_HAVE_LIBMEMCACHED
#include <libmemcached/memcached.h>
#endif

namespace {

using ringbloom::hash_kind;
using ringbloom::hash_ring;
using ringbloom::ring_options;
using ringbloom::ring_scheme;

constexpr int node_count = 100;
constexpr std::uint32_t points_per_node = 160;
constexpr std::size_t key_count = 1 << 16;  // a power of two: cheap wrap of the key cursor

// 16-byte keys, as the end-to-end target states.
const std::vector<std::string>& keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    std::mt19937_64 rng(1);
    for (std::size_t i = 0; i < key_count; ++i)
      v.push_back(fmt::format("k{:015}", rng() % 1000000000000000ull));
    return v;
  }();
  return k;
}

hash_ring native_ring(int nodes = node_count) {
  hash_ring ring({points_per_node, hash_kind::xxh3, ring_scheme::native});
  for (int i = 0; i < nodes; ++i) ring.add_node(fmt::format("cache-{}.example.net", i));
  return ring;
}

hash_ring ketama_ring() {
  hash_ring ring(ring_options::ketama());
  for (int i = 0; i < node_count; ++i)
    ring.add_node(fmt::format("10.0.{}.{}:11211", i / 250, i % 250));
  return ring;
}

// --- the adapters: each maps a key (or a pre-hashed key) to a node index ------

struct ringbloom_native {
  hash_ring ring = native_ring();
  std::uint64_t prehash(const std::string& key) const { return ring.key_hash(key); }
  std::uint32_t by_hash(std::uint64_t h) const { return ring.node_index_for_hash(h); }
  std::uint32_t by_key(const std::string& key) const {
    return ring.node_index_for_hash(ring.key_hash(key));
  }
};

struct ringbloom_ketama {
  hash_ring ring = ketama_ring();
  std::uint64_t prehash(const std::string& key) const { return ring.key_hash(key); }
  std::uint32_t by_hash(std::uint64_t h) const { return ring.node_index_for_hash(h); }
  std::uint32_t by_key(const std::string& key) const {
    return ring.node_index_for_hash(ring.key_hash(key));
  }
};

// The layout the issue measured at 60-80 ns: a vector of (position, node)
// pairs and std::lower_bound.
struct plain_binary_search {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> points;
  plain_binary_search() {
    const auto ring = native_ring();
    for (std::size_t i = 0; i < ring.point_count(); ++i) {
      points.emplace_back(ring.positions()[i], ring.point_owners()[i]);
    }
  }
  static std::uint64_t prehash(const std::string& key) { return ringbloom::xxh3_64(key); }
  std::uint32_t by_hash(std::uint64_t h) const {
    auto it = std::lower_bound(points.begin(), points.end(), h,
                               [](const auto& p, std::uint64_t v) { return p.first < v; });
    if (it == points.end()) it = points.begin();
    return it->second;
  }
  std::uint32_t by_key(const std::string& key) const { return by_hash(prehash(key)); }
};

struct jump {
  static std::uint64_t prehash(const std::string& key) { return ringbloom::xxh3_64(key); }
  static std::uint32_t by_hash(std::uint64_t h) { return ringbloom::jump_hash(h, node_count); }
  static std::uint32_t by_key(const std::string& key) { return by_hash(prehash(key)); }
};

#ifdef RINGBLOOM_HAVE_LIBMEMCACHED
struct libmemcached_ketama {
  memcached_st* memc = memcached_create(nullptr);
  libmemcached_ketama() {
    memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
    for (int i = 0; i < node_count; ++i) {
      const auto host = fmt::format("10.0.{}.{}", i / 250, i % 250);
      memcached_server_add_with_weight(memc, host.c_str(), 11211, 1);
    }
  }
  libmemcached_ketama(const libmemcached_ketama&) = delete;
  libmemcached_ketama& operator=(const libmemcached_ketama&) = delete;
  ~libmemcached_ketama() { memcached_free(memc); }
  std::uint32_t by_key(const std::string& key) const {
    return memcached_generate_hash(memc, key.data(), key.size());
  }
};
#endif

template <class Placement>
void lookup_prehashed(benchmark::State& state) {
  const Placement placement;
  std::vector<std::uint64_t> hashes;
  for (const auto& key : keys()) hashes.push_back(placement.prehash(key));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(placement.by_hash(hashes[i]));
    i = (i + 1) & (key_count - 1);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Placement>
void lookup_key(benchmark::State& state) {
  const Placement placement;
  const auto& k = keys();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(placement.by_key(k[i]));
    i = (i + 1) & (key_count - 1);
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(lookup_prehashed<ringbloom_native>)->Name("lookup_prehashed/ringbloom_native");
BENCHMARK(lookup_prehashed<plain_binary_search>)->Name("lookup_prehashed/plain_binary_search");
BENCHMARK(lookup_prehashed<ringbloom_ketama>)->Name("lookup_prehashed/ringbloom_ketama");
BENCHMARK(lookup_prehashed<jump>)->Name("lookup_prehashed/jump");
BENCHMARK(lookup_key<ringbloom_native>)->Name("lookup_key16/ringbloom_native_xxh3");
BENCHMARK(lookup_key<plain_binary_search>)->Name("lookup_key16/plain_binary_search_xxh3");
BENCHMARK(lookup_key<ringbloom_ketama>)->Name("lookup_key16/ringbloom_ketama_md5");
#ifdef RINGBLOOM_HAVE_LIBMEMCACHED
BENCHMARK(lookup_key<libmemcached_ketama>)->Name("lookup_key16/libmemcached_ketama_md5");
#endif
BENCHMARK(lookup_key<jump>)->Name("lookup_key16/jump_xxh3");

void build_incremental(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto ring = native_ring(nodes);  // one add_node per node
    benchmark::DoNotOptimize(ring.point_count());
  }
}
BENCHMARK(build_incremental)
    ->Name("build/native_add_node_x160")
    ->Arg(100)
    ->Unit(benchmark::kMicrosecond);

void build_bulk(benchmark::State& state) {
  std::vector<ringbloom::ring_node> nodes;
  for (int i = 0; i < state.range(0); ++i) {
    nodes.push_back({fmt::format("cache-{}.example.net", i), 1, {}, 0});
  }
  for (auto _ : state) {
    hash_ring ring({points_per_node, hash_kind::xxh3, ring_scheme::native});
    ring.add_nodes(nodes);  // one sort, one merge
    benchmark::DoNotOptimize(ring.point_count());
  }
}
BENCHMARK(build_bulk)
    ->Name("build/native_add_nodes_x160")
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);

void add_one_node(benchmark::State& state) {
  const hash_ring base = native_ring(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    hash_ring ring = base;
    state.ResumeTiming();
    ring.add_node("newcomer");
    benchmark::DoNotOptimize(ring.point_count());
  }
}
BENCHMARK(add_one_node)->Name("add_node/native_x160")->Arg(1000)->Unit(benchmark::kMicrosecond);

void remove_one_node(benchmark::State& state) {
  const hash_ring base = native_ring(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    hash_ring ring = base;
    state.ResumeTiming();
    ring.remove_node("cache-500.example.net");
    benchmark::DoNotOptimize(ring.point_count());
  }
}
BENCHMARK(remove_one_node)
    ->Name("remove_node/native_x160")
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);

void memory(benchmark::State& state) {
  const auto ring = native_ring();
  for (auto _ : state) benchmark::DoNotOptimize(ring.lookup_bytes());
  state.counters["points"] = static_cast<double>(ring.point_count());
  state.counters["lookup_bytes_per_point"] =
      static_cast<double>(ring.lookup_bytes()) / static_cast<double>(ring.point_count());
  state.counters["total_bytes_per_point"] =
      static_cast<double>(ring.memory_bytes()) / static_cast<double>(ring.point_count());
}
BENCHMARK(memory)->Name("memory/native_100x160")->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
