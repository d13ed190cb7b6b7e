// Quantile sketch benchmarks: adds (one at a time and batched) and queries
// of the t-digest and KLL, beside the exact answer (copy + nth_element) in
// the same run, so that the ratios say what a sketch buys.
//
// Build and run (a short run; compare ratios within one run, and say the
// machine was loaded when it was):
//   cmake --preset bench && cmake --build build/bench --target quantile_bench -j2
//   build/bench/bench/quantile_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/tdigest.hpp"

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
BENCHMARK(exact_p99)->Name("quantile/exact_nth_element")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
