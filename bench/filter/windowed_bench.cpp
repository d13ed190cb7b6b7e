// The windowed filter (windowed_bloom.hpp) against the blocked filters it is
// built from, in the same run: add and lookup, one at a time and batched,
// for n items per window at 1%. Every filter goes through one adapter
// (filter_api below), on the same pre-built 16-byte keys.
//
//   windowed_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// The benchmarks are registered from two tables below (the sizes, and one
// row per filter with its function for each operation).
//
// The windowed filter is sized for n items in one window (a time window of
// an hour). Adds are timed at one time, so no generation turns over inside a
// timed loop (the cost of turning over, one AND pass over the array per
// W/3, is in BM_windowed_generation_turnover); lookups run in the steady
// state, the n members spread over the four live generations, and ask n/2
// members and n/2 strangers. docs/performance.md ("Windowed filter") holds the current
// ratios and the load they were taken under.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/windowed_bloom.hpp"

namespace {

using namespace ringbloom;

constexpr double rate = 0.01;
constexpr double at = 1'700'000'000.0;  // every call's time: one generation

/// `count` distinct 16-byte keys from a seed, and their views.
struct keys {
  std::string bytes;
  std::vector<std::string_view> views;
  keys(std::size_t count, std::uint64_t seed) : bytes(count * 16, '\0') {
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t a = rng(), b = rng();
      std::memcpy(bytes.data() + 16 * i, &a, 8);
      std::memcpy(bytes.data() + 16 * i + 8, &b, 8);
    }
    views.reserve(count);
    for (std::size_t i = 0; i < count; ++i) views.emplace_back(bytes.data() + 16 * i, 16);
  }
};

/// The members (first n) and the lookup mix (n/2 members, n/2 strangers).
struct key_sets {
  keys members;
  keys lookups;
  explicit key_sets(std::size_t n) : members(n, 1), lookups(n, 2) {
    for (std::size_t i = 0; i < n; i += 2) {
      std::memcpy(lookups.bytes.data() + 16 * i, members.bytes.data() + 16 * i, 16);
    }
  }
};

const key_sets& sets(std::size_t n) {
  static std::size_t made = 0;
  static std::unique_ptr<key_sets> s;
  if (made != n) {
    s = std::make_unique<key_sets>(n);
    made = n;
  }
  return *s;
}

/// filter_api<F>: make(n), add(f, key), may(f, key), add_many, may_many.
template <class F>
struct filter_api;

template <>
struct filter_api<windowed_bloom_filter> {
  static windowed_bloom_filter make(std::size_t n) {
    return windowed_bloom_filter::for_time(3600, n, rate);
  }
  static void add(windowed_bloom_filter& f, std::string_view k) { f.add(k, at); }
  static bool may(const windowed_bloom_filter& f, std::string_view k) {
    return f.may_contain(k, at);
  }
  static void add_many(windowed_bloom_filter& f, std::span<const std::string_view> k) {
    f.add_many(k, at);
  }
  static std::size_t may_many(const windowed_bloom_filter& f, std::span<const std::string_view> k,
                              std::span<bool> out) {
    return f.may_contain_many(k, at, out);
  }
};

template <class F>
struct plain_api {
  static F make(std::size_t n) { return F::for_capacity(n, rate); }
  static void add(F& f, std::string_view k) { f.add(k); }
  static bool may(const F& f, std::string_view k) { return f.may_contain(k); }
  static void add_many(F& f, std::span<const std::string_view> k) { f.add_many(k); }
  static std::size_t may_many(const F& f, std::span<const std::string_view> k,
                              std::span<bool> out) {
    return f.may_contain_many(k, out);
  }
};
template <>
struct filter_api<blocked_bloom_filter> : plain_api<blocked_bloom_filter> {};
template <>
struct filter_api<blocked64_bloom_filter> : plain_api<blocked64_bloom_filter> {};

template <class F>
void BM_add(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const key_sets& k = sets(n);
  for (auto _ : state) {
    state.PauseTiming();
    F f = filter_api<F>::make(n);
    state.ResumeTiming();
    for (const std::string_view key : k.members.views) filter_api<F>::add(f, key);
    benchmark::DoNotOptimize(f);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.counters["bits_per_item"] =
      static_cast<double>(filter_api<F>::make(n).bits()) / static_cast<double>(n);
}

template <class F>
void BM_add_many(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const key_sets& k = sets(n);
  for (auto _ : state) {
    state.PauseTiming();
    F f = filter_api<F>::make(n);
    state.ResumeTiming();
    filter_api<F>::add_many(f, k.members.views);
    benchmark::DoNotOptimize(f);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class F>
F filled(std::size_t n) {
  F f = filter_api<F>::make(n);
  filter_api<F>::add_many(f, sets(n).members.views);
  return f;
}

/// The steady state: the members spread over the four live generations
/// (times W, 2W/3, W/3 and 0 before `at`), so a lookup tests four segments.
template <>
windowed_bloom_filter filled<windowed_bloom_filter>(std::size_t n) {
  auto f = filter_api<windowed_bloom_filter>::make(n);
  const auto members = std::span<const std::string_view>(sets(n).members.views);
  for (std::size_t g = 0; g < 4; ++g) {
    f.add_many(members.subspan(g * n / 4, (g + 1) * n / 4 - g * n / 4),
               at - 1200.0 * static_cast<double>(3 - g));
  }
  return f;
}

template <class F>
void BM_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const F f = filled<F>(n);
  const key_sets& k = sets(n);
  std::size_t found = 0;
  for (auto _ : state) {
    for (const std::string_view key : k.lookups.views) found += filter_api<F>::may(f, key) ? 1 : 0;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class F>
void BM_lookup_many(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const F f = filled<F>(n);
  const key_sets& k = sets(n);
  const auto out = std::make_unique<bool[]>(n);
  std::size_t found = 0;
  for (auto _ : state) found += filter_api<F>::may_many(f, k.lookups.views, {out.get(), n});
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

/// The dedup primitive: test_and_add_many over the lookup mix.
void BM_windowed_test_and_add_many(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const key_sets& k = sets(n);
  const std::vector<double> times(n, at);
  const auto out = std::make_unique<bool[]>(n);
  for (auto _ : state) {
    state.PauseTiming();
    windowed_bloom_filter f = filled<windowed_bloom_filter>(n);
    state.ResumeTiming();
    benchmark::DoNotOptimize(f.test_and_add_many(k.lookups.views, times, {out.get(), n}));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

/// One generation turning over: the first add after W/3 clears the oldest
/// generation's bit in every word (per add, amortised over the n/3 adds of
/// a generation).
void BM_windowed_generation_turnover(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  windowed_bloom_filter f = filled<windowed_bloom_filter>(n);
  double t = at;
  for (auto _ : state) {
    t += 1200;  // W / 3
    f.add("turn", t);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

/// The sizes every benchmark runs at: n items per window (and per filter).
/// 10^7 is the largest that fits beside its keys here (two sets of n
/// 16-byte keys with their views: 640 MB at 10^7).
constexpr std::array<std::int64_t, 2> sizes{
    1'000'000,   // about 2.2 MB windowed, 1.2 MB blocked: in the last-level cache
    10'000'000,  // 22 MB windowed, 12 MB blocked: at the edge of a 32 MB one
};

/// The timed operations, and one row per filter with its benchmark of each:
/// registered under the names they always had, "BM_<operation><F>/<n>".
using bench_fn = void (*)(benchmark::State&);
constexpr std::array<const char*, 4> operations{"BM_add", "BM_add_many", "BM_lookup",
                                                "BM_lookup_many"};
struct filter_row {
  const char* name;
  std::array<bench_fn, operations.size()> run;
};
template <class F>
constexpr filter_row row(const char* name) {
  return {name, {&BM_add<F>, &BM_add_many<F>, &BM_lookup<F>, &BM_lookup_many<F>}};
}
constexpr std::array<filter_row, 3> filters{
    row<blocked_bloom_filter>("blocked_bloom_filter"),
    row<blocked64_bloom_filter>("blocked64_bloom_filter"),
    row<windowed_bloom_filter>("windowed_bloom_filter"),
};

void register_all() {
  for (std::size_t op = 0; op < operations.size(); ++op) {
    for (const filter_row& f : filters) {
      const std::string name = std::string(operations[op]) + "<" + f.name + ">";
      auto* b = benchmark::RegisterBenchmark(name.c_str(), f.run[op]);
      for (const std::int64_t n : sizes) b->Arg(n);
      b->Unit(benchmark::kMillisecond);
    }
  }
  auto* dedup =
      benchmark::RegisterBenchmark("BM_windowed_test_and_add_many", BM_windowed_test_and_add_many);
  auto* turnover = benchmark::RegisterBenchmark("BM_windowed_generation_turnover",
                                                BM_windowed_generation_turnover);
  for (const std::int64_t n : sizes) {
    dedup->Arg(n);
    turnover->Arg(n);
  }
  dedup->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
