// Cuckoo filter benchmark: lookups at 10M items (out of cache),
// single and batched; false-positive rate and bits per item at load factors
// 0.5, 0.9 and 0.95 against the counting Bloom filter sized for the same
// rate, and std::unordered_set as the exact peer, in one run.
//
// Times are the thread's CPU time, fastest of --repeat runs, per item.
//
// Build and run (docs/performance.md):
//   cmake --preset bench && cmake --build build/bench --target cuckoo_bench -j2
//   build/bench/bench/cuckoo_bench [--items 10M] [--repeat 3]
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/mix.hpp"

namespace {

using namespace ringbloom;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int repeat = 3;
std::uint64_t sink = 0;

/// Nanoseconds per item.
double per(double seconds, std::size_t items) { return 1e9 * seconds / static_cast<double>(items); }

double fastest(const std::function<void()>& fn) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = cpu_now();
    fn();
    best = std::min(best, cpu_now() - t0);
  }
  return best;
}

std::vector<std::string> keys16(std::size_t n, std::uint64_t seed) {
  std::vector<std::string> out(n);
  static constexpr char hex[] = "0123456789abcdef";
  for (auto& k : out) {
    std::uint64_t z = ringbloom::splitmix64_next(seed);
    k.assign(16, '0');
    for (int d = 0; d < 16; ++d, z >>= 4) k[static_cast<std::size_t>(d)] = hex[z & 15];
  }
  return out;
}

void speed(std::size_t n) {
  fmt::print("\n== lookups at {} items, bucket size 4, 8-bit fingerprints (fastest of {})\n", n,
             repeat);
  cuckoo_filter::options o;
  o.bucket_size = 4;
  o.max_kicks = 500;
  // Capacity n / 0.95 so that n items reach about 0.95 of one sub-filter... rounded to a power
  // of two buckets, so the load is n / slots.
  cuckoo_filter f(n, o);
  const auto keys = keys16(n, 1);
  const double t_add = cpu_now();
  for (const auto& k : keys) f.add(k);
  const double add = cpu_now() - t_add;
  const auto probes = keys16(n, 2);
  std::vector<std::string_view> pv(probes.begin(), probes.end());
  std::vector<std::string_view> kv(keys.begin(), keys.end());
  const double single_pos = fastest([&] {
    for (const auto& k : kv) sink += f.may_contain(k) ? 1 : 0;
  });
  const double single_neg = fastest([&] {
    for (const auto& k : pv) sink += f.may_contain(k) ? 1 : 0;
  });
  std::unique_ptr<bool[]> answers(new bool[n]);
  const double batch_neg = fastest([&] {
    f.may_contain_many(pv, std::span<bool>(answers.get(), n));
    sink += answers[n / 2] ? 1 : 0;
  });
  std::unordered_set<std::string_view> exact(kv.begin(), kv.end());
  const double set_neg = fastest([&] {
    for (const auto& k : pv) sink += exact.count(k);
  });
  fmt::print("  load {:.3f}, {:.2f} bits/item, {} sub-filter(s)\n", f.load_factor(),
             8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(f.items()),
             f.sub_filters().size());
  fmt::print("  add                      {:7.2f} ns/item\n", per(add, n));
  fmt::print("  lookup, present          {:7.2f} ns/item\n", per(single_pos, n));
  fmt::print("  lookup, absent           {:7.2f} ns/item   (goal <= 20)\n", per(single_neg, n));
  fmt::print("  lookup, absent, batched  {:7.2f} ns/item   (goal <= 20)\n", per(batch_neg, n));
  fmt::print("  unordered_set, absent    {:7.2f} ns/item   (exact peer)\n", per(set_neg, n));
}

void space() {
  fmt::print(
      "\n== FPR and space at load factors 0.5 / 0.9 / 0.95 against the counting Bloom filter\n");
  constexpr std::uint64_t buckets = 1 << 18;
  const auto probes = keys16(2'000'000, 3);
  for (const std::uint32_t bits : {8u, 12u, 16u}) {
    for (const double load : {0.5, 0.9, 0.95}) {
      cuckoo_filter::options o;
      o.bucket_size = 4;
      o.fingerprint_bits = bits;
      o.max_kicks = 500;
      o.expansion = 0;
      cuckoo_filter f(buckets * 4, o);
      const auto n = static_cast<std::size_t>(load * static_cast<double>(f.slots()));
      const auto keys = keys16(n, 4 + bits);
      std::size_t stored = 0;
      for (const auto& k : keys) stored += f.add(k) ? 1 : 0;
      std::uint64_t fp = 0;
      for (const auto& p : probes) fp += f.may_contain(p) ? 1 : 0;
      const double fpr = static_cast<double>(fp) / static_cast<double>(probes.size());
      const double cf_bits =
          8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(stored);
      // The counting Bloom filter for the same items and the measured rate.
      const auto cbf = counting_bloom_filter::for_capacity(stored, std::max(fpr, 1e-7));
      const double cbf_bits =
          static_cast<double>(cbf.stats().memory_bytes) * 8.0 / static_cast<double>(stored);
      fmt::print(
          "  f = {:2} bits, load {:.2f}: fpr {:.5f} (formula {:.5f}), {:5.2f} bits/item; "
          "counting Bloom at that fpr {:5.2f} bits/item ({:.2f} x)\n",
          bits, f.load_factor(), fpr, cuckoo_filter::expected_fpr(4, bits, f.load_factor()),
          cf_bits, cbf_bits, cbf_bits / cf_bits);
    }
  }
  cuckoo_filter::options o;
  o.bucket_size = 4;
  o.max_kicks = 500;
  o.expansion = 0;
  cuckoo_filter f(1 << 20, o);
  const auto keys = keys16(2 << 20, 9);
  for (const auto& k : keys) {
    if (!f.add(k)) break;
  }
  fmt::print("  bucket size 4, 500 kicks: first failed insertion at load {:.4f} (goal >= 0.95)\n",
             f.load_factor());
  o.bucket_size = 2;
  cuckoo_filter g(1 << 20, o);
  for (const auto& k : keys) {
    if (!g.add(k)) break;
  }
  fmt::print("  bucket size 2, 500 kicks: first failed insertion at load {:.4f}\n",
             g.load_factor());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t items = 10'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--items") {
      std::string v = argv[i + 1];
      std::size_t mult = 1;
      if (!v.empty() && v.back() == 'M') {
        mult = 1'000'000;
        v.pop_back();
      }
      items = std::stoull(v) * mult;
    }
  }
  fmt::print("cuckoo_bench: CPU time per item, a shared, noisy machine\n");
  space();
  speed(items);
  fmt::print("\nchecksum {}\n", sink);
  benchmark::DoNotOptimize(sink);
  return 0;
}
