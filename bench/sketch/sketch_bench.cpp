// Sketch benchmarks and accuracy runs: HyperLogLog, Count-Min,
// Top-K, each against the exact answer (std::unordered_set / unordered_map)
// in the same run, and HyperLogLog also against real Redis (PFADD / PFCOUNT
// through a redis-server on loopback, when one is installed).
//
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), fastest of
// --repeat runs, per item; Redis times are wall-clock per item with PFADD
// batches of 1,000 items per command (client and server share the machine).
// Every result feeds a checksum that is printed, so nothing is optimised away.
//
// Build and run (docs/performance.md):
//   cmake --preset bench && cmake --build build/bench --target sketch_bench -j2
//   build/bench/bench/sketch_bench                 # everything (~1-2 min)
//   build/bench/bench/sketch_bench --only hll-accuracy --max-n 100M
//
// Options: --only hll|hll-accuracy|cms|topk|redis  --repeat N (default 3)
//          --max-n N  (largest distinct count of the HLL accuracy run, default 100M)
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../../tests/sketch/redis_server.hpp"
#include "ringbloom/mix.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace {

using namespace ringbloom;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double wall_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int repeat = 3;
std::uint64_t sink = 0;

/// Nanoseconds per item.
double per(double seconds, std::size_t items) { return 1e9 * seconds / static_cast<double>(items); }

/// Fastest of `repeat` runs of fn (which re-initialises its own state), in seconds.
double fastest(const std::function<void()>& fn) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = cpu_now();
    fn();
    best = std::min(best, cpu_now() - t0);
  }
  return best;
}

/// n distinct 16-byte keys.
std::vector<std::string> keys16(std::size_t n, std::uint64_t seed) {
  std::vector<std::string> out(n);
  static constexpr char hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t v = splitmix64_next(seed);
    std::string k(16, '0');
    for (int d = 0; d < 16; ++d, v >>= 4) k[static_cast<std::size_t>(d)] = hex[v & 15];
    out[i] = std::move(k);
  }
  return out;
}

/// A Zipf(1.0) stream of n draws over `universe` ranks (rank 0 most frequent).
std::vector<std::uint32_t> zipf(std::size_t n, std::uint32_t universe, std::uint64_t seed) {
  std::vector<double> cdf(universe);
  double sum = 0;
  for (std::uint32_t i = 0; i < universe; ++i) cdf[i] = (sum += 1.0 / (i + 1));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::uint32_t> out(n);
  for (auto& x : out) {
    x = static_cast<std::uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
  }
  return out;
}

/// The stream as it would arrive: each draw's 16-byte key laid out in order in
/// one buffer (so the benchmark measures the sketch, not cache misses on
/// scattered key strings). `buffer` must outlive the views.
std::vector<std::string_view> laid_out(const std::vector<std::string>& keys,
                                       const std::vector<std::uint32_t>& stream,
                                       std::string& buffer) {
  buffer.assign(stream.size() * 16, '\0');
  std::vector<std::string_view> out(stream.size());
  for (std::size_t i = 0; i < stream.size(); ++i) {
    buffer.replace(16 * i, 16, keys[stream[i]]);
    out[i] = std::string_view(buffer).substr(16 * i, 16);
  }
  return out;
}

void hll_speed() {
  fmt::print("\n== HyperLogLog p = 14: speed (per item, CPU time, fastest of {})\n", repeat);
  constexpr std::size_t n = 10'000'000;
  std::vector<std::uint64_t> hashes(n);
  std::uint64_t st = 1;
  for (auto& h : hashes) h = splitmix64_next(st);
  const auto keys = keys16(2'000'000, 2);
  std::vector<std::string_view> views(keys.begin(), keys.end());

  const double pre = fastest([&] {
    hyperloglog h;
    h.add_hashes(hashes);
    sink += h.registers()[7];
  });
  const double one = fastest([&] {
    hyperloglog h;
    for (const auto& k : keys) h.add(k);
    sink += h.registers()[9];
  });
  const double many = fastest([&] {
    hyperloglog h;
    h.add_many(views);
    sink += h.registers()[11];
  });
  hyperloglog full;
  full.add_hashes(hashes);
  const double count = fastest([&] {
    for (int i = 0; i < 1000; ++i) sink += full.count();
  });
  const double exact = fastest([&] {
    std::unordered_set<std::string_view> s;
    s.reserve(keys.size());
    for (const auto& k : views) s.insert(k);
    sink += s.size();
  });
  fmt::print("  add, pre-hashed          {:8.2f} ns/item   (goal <= 5)\n", per(pre, n));
  fmt::print("  add, 16-byte items       {:8.2f} ns/item   (goal <= 10)\n", per(one, keys.size()));
  fmt::print("  add_many, 16-byte items  {:8.2f} ns/item\n", per(many, keys.size()));
  fmt::print("  count                    {:8.2f} us        (goal <= 20)\n", 1e6 * count / 1000);
  fmt::print(
      "  unordered_set insert     {:8.2f} ns/item   (exact peer; {} MiB for 2M keys vs 16 KiB)\n",
      per(exact, keys.size()), (keys.size() * (16 + 32 + 8)) >> 20);
}

void hll_accuracy(std::uint64_t max_n) {
  fmt::print(
      "\n== HyperLogLog p = 14: accuracy over independent sketches (pre-hashed random values)\n");
  fmt::print("  goal: relative standard error <= 1.1 x 1.04/sqrt(m) = {:.4f}%, |bias| <= 0.5%\n",
             110 * 1.04 / 128.0);
  std::vector<std::uint64_t> points;
  for (std::uint64_t n = 1000; n <= max_n; n *= 10) {
    points.push_back(n);
    if (n == 10000) points.push_back(40960);  // 2.5 m: the classic estimator's switch
  }
  std::uint64_t seed = 99;
  std::size_t i = 0;
  while (i < points.size()) {
    // Sketches per group: many for the small counts, fewer for 10^7 and 10^8.
    const std::uint64_t top =
        points[i] <= 1'000'000 ? std::min<std::uint64_t>(max_n, 1'000'000) : points[i];
    const int sketches = top <= 1'000'000 ? 1000 : top <= 10'000'000 ? 200 : 40;
    std::vector<std::uint64_t> group;
    for (; i < points.size() && points[i] <= top; ++i) group.push_back(points[i]);
    std::vector<double> sum(group.size()), sum_sq(group.size());
    for (int s = 0; s < sketches; ++s) {
      hyperloglog h;
      std::uint64_t added = 0;
      for (std::size_t g = 0; g < group.size(); ++g) {
        for (; added < group[g]; ++added) h.add_hash(splitmix64_next(seed));
        const double e = h.estimate() / static_cast<double>(group[g]) - 1;
        sum[g] += e;
        sum_sq[g] += e * e;
      }
    }
    for (std::size_t g = 0; g < group.size(); ++g) {
      const double bias = sum[g] / sketches;
      const double rse = std::sqrt(sum_sq[g] / sketches);
      fmt::print(
          "  n = {:>11}  sketches {:>5}  RSE {:.4f}% ({:.3f} x 1.04/sqrt(m))  bias {:+.4f}% "
          "(+-{:.4f}% s.e.)\n",
          group[g], sketches, 100 * rse, rse / (1.04 / 128.0), 100 * bias,
          100 * rse / std::sqrt(sketches));
    }
  }
}

void cms_bench() {
  fmt::print("\n== Count-Min eps = 0.001, delta = 0.01 (2719 x 5): per item, fastest of {}\n",
             repeat);
  const auto keys = keys16(100'000, 5);
  const auto stream = zipf(5'000'000, 100'000, 6);
  std::string buffer;
  const auto items = laid_out(keys, stream, buffer);
  for (const bool conservative : {false, true}) {
    const double t = fastest([&] {
      auto c = count_min_sketch::for_error(0.001, 0.01, conservative);
      for (const auto& it : items) c.increment(it);
      sink += c.total();
    });
    fmt::print("  increment{}  {:8.2f} ns/item   (goal <= 15)\n",
               conservative ? ", conservative" : "              ", per(t, items.size()));
  }
  auto c = count_min_sketch::for_error(0.001, 0.01);
  for (const auto& it : items) c.increment(it);
  const double q = fastest([&] {
    for (const auto& it : items) sink += c.estimate(it);
  });
  const double exact = fastest([&] {
    std::unordered_map<std::string_view, std::uint32_t> m;
    for (const auto& it : items) ++m[it];
    sink += m.size();
  });
  fmt::print("  query                      {:8.2f} ns/item\n", per(q, items.size()));
  fmt::print("  unordered_map ++ (exact)   {:8.2f} ns/item\n", per(exact, items.size()));
  // Accuracy on the same stream.
  std::unordered_map<std::uint32_t, std::uint32_t> truth;
  for (const auto k : stream) ++truth[k];
  for (const bool conservative : {false, true}) {
    auto s = count_min_sketch::for_error(0.001, 0.01, conservative);
    for (const auto& it : items) s.increment(it);
    std::size_t under = 0, beyond = 0;
    double over = 0, worst = 0;
    for (const auto& [k, f] : truth) {
      const double e = s.estimate(keys[k]);
      under += e < f ? 1 : 0;
      beyond += e > f + s.error_bound() ? 1 : 0;
      over += e - f;
      worst = std::max(worst, e - f);
    }
    fmt::print(
        "  {:<12} N = {}: under {} of {}, mean over {:.2f}, worst over {:.0f}, "
        "bound eps N = {:.0f}, beyond bound {}\n",
        conservative ? "conservative" : "plain", s.total(), under, truth.size(),
        over / static_cast<double>(truth.size()), worst, s.error_bound(), beyond);
  }
}

void topk_bench() {
  fmt::print("\n== Top-K k = 100 on Zipf(1.0), 10^7 items over 10^6 keys\n");
  const auto keys = keys16(1'000'000, 7);
  const auto stream = zipf(10'000'000, 1'000'000, 8);
  std::unordered_map<std::uint32_t, std::uint32_t> truth;
  for (const auto k : stream) ++truth[k];
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by(truth.begin(), truth.end());
  std::sort(by.begin(), by.end(), [](auto& a, auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::set<std::string_view> top;
  for (int i = 0; i < 100; ++i) top.insert(keys[by[static_cast<std::size_t>(i)].first]);
  struct shape {
    std::uint32_t width, depth;
  };
  std::string buffer;
  const auto items = laid_out(keys, stream, buffer);
  for (const shape s : {shape{8, 7}, shape{1000, 5}, shape{2000, 5}, shape{4000, 4}}) {
    top_k t(100, s.width, s.depth, 0.9, 1);
    const double t0 = cpu_now();
    for (const auto& item : items) t.add(item);
    const double secs = cpu_now() - t0;
    int hits = 0;
    for (const auto& e : t.list()) hits += top.count(e.item) ? 1 : 0;
    fmt::print(
        "  width {:>5} depth {}: recall {:.2f}   {:6.2f} ns/item (goal recall >= 0.95, <= 60 ns)\n",
        s.width, s.depth, static_cast<double>(hits) / 100.0, per(secs, stream.size()));
  }
  const double t0 = cpu_now();
  std::unordered_map<std::string_view, std::uint32_t> m;
  for (const auto& item : items) ++m[item];
  fmt::print("  unordered_map ++ (exact)     {:6.2f} ns/item, {} keys\n",
             per(cpu_now() - t0, stream.size()), m.size());
}

void redis_peer() {
  fmt::print("\n== HyperLogLog against Redis 7.0 (redis-server on loopback)\n");
  std::unique_ptr<ringbloom::test::redis_server> redis;
  try {
    redis = std::make_unique<ringbloom::test::redis_server>();
  } catch (const std::exception& e) {
    fmt::print("  skipped: {}\n", e.what());
    return;
  }
  const auto keys = keys16(1'000'000, 9);
  double t0 = wall_now();
  for (std::size_t start = 0; start < keys.size(); start += 1000) {
    std::vector<std::string> cmd{"PFADD", "bench"};
    cmd.insert(cmd.end(), keys.begin() + static_cast<std::ptrdiff_t>(start),
               keys.begin() + static_cast<std::ptrdiff_t>(std::min(keys.size(), start + 1000)));
    redis->command(cmd);
  }
  const double pfadd = wall_now() - t0;
  t0 = wall_now();
  for (int i = 0; i < 1000; ++i)
    redis->command({"PFADD", "bench", keys[0]});  // invalidates nothing
  redis->command({"PFADD", "bench2", "x"});
  t0 = wall_now();
  long long count = 0;
  for (int i = 0; i < 200; ++i) {
    redis->command({"PFADD", "bench", "fresh" + std::to_string(i)});  // cache invalidated
    count = redis->command({"PFCOUNT", "bench"}).integer;
  }
  const double pfcount = (wall_now() - t0) / 200;
  hyperloglog ours = hyperloglog::redis();
  const double ta = cpu_now();
  for (const auto& k : keys) ours.add(k);
  const double add = cpu_now() - ta;
  for (int i = 0; i < 200; ++i) ours.add("fresh" + std::to_string(i));
  fmt::print(
      "  Redis PFADD (1000 per command)  {:8.2f} ns/item wall; ours (Redis mode) {:6.2f} ns/item\n",
      per(pfadd, keys.size()), per(add, keys.size()));
  fmt::print("  Redis PFADD+PFCOUNT round trip  {:8.2f} us; counts: Redis {}, ours {}\n",
             1e6 * pfcount, count, ours.count());
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  std::uint64_t max_n = 100'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--only") only = argv[i + 1];
    if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--max-n") {
      std::string v = argv[i + 1];
      std::uint64_t mult = 1;
      if (!v.empty() && (v.back() == 'M' || v.back() == 'K')) {
        mult = v.back() == 'M' ? 1'000'000 : 1'000;
        v.pop_back();
      }
      max_n = std::stoull(v) * mult;
    }
  }
  fmt::print("sketch_bench: {} (CPU time per item unless marked wall; a shared, noisy machine)\n",
             only.empty() ? "all" : only);
  if (only.empty() || only == "hll") hll_speed();
  if (only.empty() || only == "redis") redis_peer();
  if (only.empty() || only == "cms") cms_bench();
  if (only.empty() || only == "topk") topk_bench();
  if (only.empty() || only == "hll-accuracy") hll_accuracy(max_n);
  fmt::print("\nchecksum {}\n", sink);
  benchmark::DoNotOptimize(sink);
  return 0;
}
