// Quantile sketch benchmarks: adds (one at a time and batched) and queries
// of the t-digest and KLL, beside the exact answer (copy + nth_element) in
// the same run, so that the ratios say what a sketch buys; and, when built
// with it, Apache DataSketches' kll_sketch (k = 200) on the same doubles:
// adds, queries (cached and right after an add) and memory.
//
// Build and run (a short run; compare ratios within one run, and say the
// machine was loaded when it was):
//   cmake --preset bench && cmake --build build/bench --target quantile_bench -j2
//   build/bench/bench/quantile_bench --benchmark_min_time=0.2
// With DataSketches (a checkout outside this repository, header-only):
//   cmake --preset bench -DRINGBLOOM_DATASKETCHES_INCLUDE=/path/to/datasketches-cpp
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ringbloom/allocator_hook.hpp"
#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/tdigest.hpp"

#ifdef RINGBLOOM_HAVE_DATASKETCHES_KLL
#include "quantile/datasketches_kll_peer.hpp"
#endif

namespace {

const std::vector<double>& values() {
  static const std::vector<double> v = [] {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(0, 1);
    std::vector<double> out(1 << 20);
    for (auto& x : out) x = d(rng);
    return out;
  }();
  return v;
}

template <class Sketch>
Sketch make();
template <>
ringbloom::tdigest make<ringbloom::tdigest>() {
  return ringbloom::tdigest(100);
}
template <>
ringbloom::kll_sketch make<ringbloom::kll_sketch>() {
  return ringbloom::kll_sketch(200, 1);
}

template <class Sketch>
void add_one(benchmark::State& state) {
  const auto& xs = values();
  for (auto _ : state) {
    Sketch s = make<Sketch>();
    for (const double x : xs) s.add(x);
    benchmark::DoNotOptimize(s.count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * xs.size()));
}

template <class Sketch>
void add_batch(benchmark::State& state) {
  const auto& xs = values();
  for (auto _ : state) {
    Sketch s = make<Sketch>();
    s.add_many(xs);
    benchmark::DoNotOptimize(s.count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * xs.size()));
}

template <class Sketch>
void query_p99(benchmark::State& state) {
  Sketch s = make<Sketch>();
  s.add_many(values());
  if constexpr (std::is_same_v<Sketch, ringbloom::tdigest>) s.compress();
  double q = 0.99;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.quantile(q));
    q = q == 0.99 ? 0.999 : 0.99;
  }
}

template <class Sketch>
void query_cdf(benchmark::State& state) {
  Sketch s = make<Sketch>();
  s.add_many(values());
  if constexpr (std::is_same_v<Sketch, ringbloom::tdigest>) s.compress();
  double x = 3.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.cdf(x));
    x = x == 3.0 ? 5.0 : 3.0;
  }
}

// The first query after a change: one add, then a p99 (KLL sorts its kept
// values again; the t-digest compresses a copy of its buffer).
template <class Sketch>
void query_after_add(benchmark::State& state) {
  Sketch s = make<Sketch>();
  s.add_many(values());
  double x = 1.0;
  for (auto _ : state) {
    s.add(x);
    benchmark::DoNotOptimize(s.quantile(0.99));
    x = x == 1.0 ? 2.0 : 1.0;
  }
}

// Bytes each sketch keeps after all the values (1M lognormal), as counters:
// "kept" is memory_bytes(); "allocated" is every byte its vectors hold,
// spare capacity included, counted through the allocator hook.
std::size_t hooked_live = 0;
void* count_alloc(std::size_t bytes, std::size_t /*alignment*/) {
  hooked_live += bytes;
  return ::operator new(bytes);
}
void count_free(void* p, std::size_t bytes, std::size_t /*alignment*/) noexcept {
  hooked_live -= bytes;
  ::operator delete(p);
}
constexpr ringbloom::allocator_hook counting_hook{count_alloc, count_free};

template <class Sketch>
void memory(benchmark::State& state) {
  ringbloom::set_allocator_hook(&counting_hook);
  hooked_live = 0;
  for (auto _ : state) {
    Sketch s = make<Sketch>();
    s.add_many(values());
    state.counters["kept"] = static_cast<double>(s.memory_bytes());
    state.counters["allocated"] = static_cast<double>(hooked_live);
  }
  ringbloom::set_allocator_hook(nullptr);
}

#ifdef RINGBLOOM_HAVE_DATASKETCHES_KLL
using ringbloom::bench::datasketches_kll;

void ds_add_one(benchmark::State& state) {
  const auto& xs = values();
  for (auto _ : state) {
    datasketches_kll s(200);
    s.add_each(xs.data(), xs.size());
    benchmark::DoNotOptimize(s.count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * xs.size()));
}

void ds_query_p99(benchmark::State& state) {
  datasketches_kll s(200);
  s.add_each(values().data(), values().size());
  double q = 0.99;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.quantile(q));
    q = q == 0.99 ? 0.999 : 0.99;
  }
}

void ds_query_cdf(benchmark::State& state) {
  datasketches_kll s(200);
  s.add_each(values().data(), values().size());
  double x = 3.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.rank(x));
    x = x == 3.0 ? 5.0 : 3.0;
  }
}

void ds_query_after_add(benchmark::State& state) {
  datasketches_kll s(200);
  s.add_each(values().data(), values().size());
  double x = 1.0;
  for (auto _ : state) {
    s.add_each(&x, 1);
    benchmark::DoNotOptimize(s.quantile(0.99));
    x = x == 1.0 ? 2.0 : 1.0;
  }
}

// "heap" is every byte its allocator holds after a query (items, levels,
// sorted view), "heap_before_query" before it, "serialized" its image.
void ds_memory(benchmark::State& state) {
  for (auto _ : state) {
    datasketches_kll s(200);
    s.add_each(values().data(), values().size());
    state.counters["heap_before_query"] = static_cast<double>(s.heap_bytes());
    benchmark::DoNotOptimize(s.quantile(0.5));
    state.counters["heap"] = static_cast<double>(s.heap_bytes());
    state.counters["serialized"] = static_cast<double>(s.serialized_bytes());
    state.counters["retained"] = static_cast<double>(s.retained());
  }
}

BENCHMARK(ds_add_one)->Name("add/one/datasketches_kll_k200")->Unit(benchmark::kMillisecond);
BENCHMARK(ds_query_p99)->Name("quantile/datasketches_kll_k200");
BENCHMARK(ds_query_cdf)->Name("cdf/datasketches_kll_k200");
BENCHMARK(ds_query_after_add)->Name("add_then_quantile/datasketches_kll_k200");
BENCHMARK(ds_memory)->Name("memory/datasketches_kll_k200")->Iterations(1);
#endif

// The exact p99 of the same values: a copy and nth_element, per query.
void exact_p99(benchmark::State& state) {
  const auto& xs = values();
  std::vector<double> copy;
  for (auto _ : state) {
    copy = xs;
    const auto at =
        copy.begin() + static_cast<std::ptrdiff_t>(0.99 * static_cast<double>(copy.size()));
    std::nth_element(copy.begin(), at, copy.end());
    benchmark::DoNotOptimize(*at);
  }
}

BENCHMARK(add_one<ringbloom::tdigest>)->Name("add/one/tdigest_c100")->Unit(benchmark::kMillisecond);
BENCHMARK(add_one<ringbloom::kll_sketch>)->Name("add/one/kll_k200")->Unit(benchmark::kMillisecond);
BENCHMARK(add_batch<ringbloom::tdigest>)
    ->Name("add/batch/tdigest_c100")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(add_batch<ringbloom::kll_sketch>)
    ->Name("add/batch/kll_k200")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(query_p99<ringbloom::tdigest>)->Name("quantile/tdigest_c100");
BENCHMARK(query_p99<ringbloom::kll_sketch>)->Name("quantile/kll_k200");
BENCHMARK(query_cdf<ringbloom::tdigest>)->Name("cdf/tdigest_c100");
BENCHMARK(query_cdf<ringbloom::kll_sketch>)->Name("cdf/kll_k200");
BENCHMARK(query_after_add<ringbloom::tdigest>)->Name("add_then_quantile/tdigest_c100");
BENCHMARK(query_after_add<ringbloom::kll_sketch>)->Name("add_then_quantile/kll_k200");
BENCHMARK(memory<ringbloom::tdigest>)->Name("memory/tdigest_c100")->Iterations(1);
BENCHMARK(memory<ringbloom::kll_sketch>)->Name("memory/kll_k200")->Iterations(1);
BENCHMARK(exact_p99)->Name("quantile/exact_nth_element")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
