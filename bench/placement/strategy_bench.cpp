// Placement strategy benchmarks: pre-hashed lookups of every strategy beside
// the ring, at 10, 100, 1,000 and 10,000 nodes, in one run, on the same
// 2^16 random 64-bit key hashes. Each strategy is called through its
// concrete (final) class, so the call is direct, as an application that
// picked one would make it.
//
// Build and run (docs/performance.md, "Placement strategies"):
//   cmake --preset release
//   cmake --build build/release --target strategy_bench -j2
//   build/release/bench/placement/strategy_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/placement/anchor.hpp"
#include "ringbloom/placement/bounded_load.hpp"
#include "ringbloom/placement/jump_placement.hpp"
#include "ringbloom/placement/maglev.hpp"
#include "ringbloom/placement/memento.hpp"
#include "ringbloom/placement/multiprobe.hpp"
#include "ringbloom/placement/rendezvous.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/skeleton.hpp"

namespace {

using namespace ringbloom;

constexpr std::size_t key_count = 1 << 16;

const std::vector<std::uint64_t>& hashes() {
  static const std::vector<std::uint64_t> h = [] {
    std::vector<std::uint64_t> v(key_count);
    std::mt19937_64 rng(7);
    for (auto& x : v) x = rng();
    return v;
  }();
  return h;
}

std::vector<placement_node> nodes(std::size_t n) {
  std::vector<placement_node> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back({fmt::format("cache-{}.example.net", i), 1.0});
  return out;
}

// A prime of at least 100 x nodes (and at least 65537), for maglev's table.
std::uint32_t maglev_size(std::size_t n) {
  auto m = static_cast<std::uint32_t>(std::max<std::size_t>(65537, 100 * n));
  while (!maglev_placement::is_prime(m)) ++m;
  return m;
}

// Removes every tenth node: the "10% removed".
template <class P>
void remove_tenth(P& p, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 10) p.remove_node(fmt::format("cache-{}.example.net", i));
}

template <class P>
void run_lookups(benchmark::State& state, const P& p) {
  const auto& hs = hashes();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.node_index_for_hash(hs[i++ & (key_count - 1)]));
  }
  state.counters["memory_bytes"] = static_cast<double>(p.memory_bytes());
}

void ring_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  hash_ring ring({160, hash_kind::xxh3, ring_scheme::native});
  std::vector<ring_node> ring_nodes;
  for (const auto& node : nodes(n)) ring_nodes.push_back({node.name, 1, {}, 0});
  ring.add_nodes(ring_nodes);  // one merge: 10,000 add_node calls would be quadratic
  const auto& hs = hashes();
  std::size_t i = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(ring.node_index_for_hash(hs[i++ & (key_count - 1)]));
  state.counters["memory_bytes"] = static_cast<double>(ring.memory_bytes());
}

void rendezvous_lookup(benchmark::State& state) {
  run_lookups(state, rendezvous_placement(nodes(static_cast<std::size_t>(state.range(0)))));
}

void rendezvous_weighted_lookup(benchmark::State& state) {
  auto ns = nodes(static_cast<std::size_t>(state.range(0)));
  ns[0].weight = 2.0;  // any unequal weight takes the logarithmic path
  run_lookups(state, rendezvous_placement(ns));
}

void maglev_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  run_lookups(state, maglev_placement(nodes(n), {maglev_size(n)}));
}

void multiprobe_lookup(benchmark::State& state) {
  run_lookups(state,
              multiprobe_placement(nodes(static_cast<std::size_t>(state.range(0))), {21, 0}));
}

void bounded_lookup(benchmark::State& state) {
  // At steady state: 100 keys per node assigned, so some lookups walk past
  // full nodes, as they would in service.
  const auto n = static_cast<std::size_t>(state.range(0));
  bounded_load_placement p(nodes(n), {160, 0.25});
  std::mt19937_64 rng(3);
  for (std::size_t k = 0; k < 100 * n; ++k) (void)p.assign_hash(rng());
  run_lookups(state, p);
}

void anchor_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  anchor_placement p(nodes(n), {static_cast<std::uint32_t>(n)});
  remove_tenth(p, n);
  run_lookups(state, p);
}

void memento_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  memento_placement p(nodes(n));
  remove_tenth(p, n);
  run_lookups(state, p);
}

void memento_no_removal_lookup(benchmark::State& state) {
  run_lookups(state, memento_placement(nodes(static_cast<std::size_t>(state.range(0)))));
}

void jump_lookup(benchmark::State& state) {
  run_lookups(state, jump_placement(nodes(static_cast<std::size_t>(state.range(0)))));
}

void jump_back_lookup(benchmark::State& state) {
  run_lookups(state, jump_placement(nodes(static_cast<std::size_t>(state.range(0))),
                                    jump_algorithm::jump_back));
}

void skeleton_lookup(benchmark::State& state) {
  run_lookups(state, skeleton_placement(nodes(static_cast<std::size_t>(state.range(0))), {32, 0}));
}

// 10,000 nodes under fan-outs 8 to 128 (levels 5, 4, 3, 3, 2).
void skeleton_fanout_lookup(benchmark::State& state) {
  run_lookups(state,
              skeleton_placement(nodes(10000), {static_cast<std::uint32_t>(state.range(0)), 0}));
}

// Through the virtual interface, as `ring simulate` times them: the cost of
// the indirect call on top of maglev's table read.
void maglev_virtual_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::unique_ptr<placement> p = std::make_unique<maglev_placement>(nodes(n));
  run_lookups(state, *p);
}

#define RINGBLOOM_NODES ->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)
BENCHMARK(ring_lookup) RINGBLOOM_NODES;
BENCHMARK(rendezvous_lookup) RINGBLOOM_NODES;
BENCHMARK(rendezvous_weighted_lookup) RINGBLOOM_NODES;
BENCHMARK(maglev_lookup) RINGBLOOM_NODES;
BENCHMARK(maglev_virtual_lookup)->Arg(100);
BENCHMARK(multiprobe_lookup) RINGBLOOM_NODES;
BENCHMARK(bounded_lookup) RINGBLOOM_NODES;
BENCHMARK(anchor_lookup) RINGBLOOM_NODES;
BENCHMARK(memento_lookup) RINGBLOOM_NODES;
BENCHMARK(memento_no_removal_lookup) RINGBLOOM_NODES;
BENCHMARK(jump_lookup) RINGBLOOM_NODES;
BENCHMARK(jump_back_lookup) RINGBLOOM_NODES;
BENCHMARK(skeleton_lookup) RINGBLOOM_NODES;
BENCHMARK(skeleton_fanout_lookup)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Arg(128);

}  // namespace

BENCHMARK_MAIN();
