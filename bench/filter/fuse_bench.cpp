// fuse_bench: ringbloom's binary fuse 8 filters (3-wise fuse8 and 4-wise
// fuse8-4wise) against fastfilter_cpp's 3-wise and 4-wise ones (Graf and
// Lemire's reference C++), on the same 64-bit keys: build time per key,
// lookups one at a time (members and strangers), bits per key and the
// measured false-positive rate. CPU time of this thread, best of 5 rounds;
// each round measures every filter once, in turn, so that a change in the
// machine's load falls on all of them alike.
//
//   cmake --preset bench [-DRINGBLOOM_FASTFILTER_INCLUDE=/path/to/fastfilter_cpp/src]
//   cmake --build build/bench --target fuse_bench -j2
//   build/bench/bench/fuse_bench [--keys 1M,10M]
//
// fastfilter_cpp is a peer only when a developer points at a checkout of its
// src/ (with benchmarks/timing.h copied next to it); nothing here fetches it.
// Keys are integers because that is fastfilter_cpp's item type: both filters
// get the same 64-bit values and mix them with one multiply-xorshift
// finaliser (ringbloom: build_from_hashes / may_contain_hash).
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/fuse_filter.hpp"
#include "ringbloom/mix.hpp"

#ifdef RINGBLOOM_HAVE_FASTFILTER
#include "xorfilter/3wise_xor_binary_fuse_filter_lowmem.h"
#include "xorfilter/4wise_xor_binary_fuse_filter_lowmem.h"
#endif

namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// splitmix64 (Steele, Lea, Flood 2014); members have the top bit clear,
/// strangers set, so no stranger is a member.
std::vector<std::uint64_t> make_keys(std::size_t n, std::uint64_t seed, bool strangers) {
  std::vector<std::uint64_t> out(n);
  for (auto& k : out) {
    const std::uint64_t z = ringbloom::splitmix64_next(seed);
    k = strangers ? (z | (1ULL << 63)) : (z & ~(1ULL << 63));
  }
  return out;
}

struct result {
  double build_ns = 1e300, positive_ns = 1e300, negative_ns = 1e300, bits = 0, fpr = 0;
};

std::uint64_t checksum = 0;

constexpr int rounds = 5;

/// One round: builds the filter and probes it, keeping the best times in `r`.
template <class Build, class Contains>
void measure(result& r, const std::vector<std::uint64_t>& members,
             const std::vector<std::uint64_t>& strangers, Build&& build, Contains&& contains) {
  const double start = cpu_now();
  auto f = build(members, r.bits);
  r.build_ns =
      std::min(r.build_ns, (cpu_now() - start) * 1e9 / static_cast<double>(members.size()));
  // Each key looked up one at a time; the CPU time per key and the hits.
  auto probe = [&](const std::vector<std::uint64_t>& keys, double& best_ns) {
    const double begin = cpu_now();
    std::size_t hits = 0;
    for (const auto k : keys) {
      const bool hit = contains(f, k);
      benchmark::DoNotOptimize(hit);
      hits += hit ? 1 : 0;
    }
    best_ns = std::min(best_ns, (cpu_now() - begin) * 1e9 / static_cast<double>(keys.size()));
    return hits;
  };
  const std::size_t found = probe(members, r.positive_ns);
  if (found != members.size()) throw std::runtime_error("a false negative");
  const std::size_t false_positives = probe(strangers, r.negative_ns);
  r.fpr = static_cast<double>(false_positives) / static_cast<double>(strangers.size());
  checksum += found + false_positives;
}

void print(std::size_t n, std::string_view name, const result& r) {
  fmt::print("| {:>4}M | {:<34} | {:>8.2f} | {:>8.1f} | {:>7.1f} | {:>7.1f} | {:>7.3f}% |\n",
             n / 1000000, name, r.bits, r.build_ns, r.positive_ns, r.negative_ns, 100 * r.fpr);
  std::fflush(stdout);
}

/// One of ours, built from the key hashes and queried by hash.
template <class Filter>
void measure_ours(result& r, const std::vector<std::uint64_t>& members,
                  const std::vector<std::uint64_t>& strangers) {
  measure(
      r, members, strangers,
      [](const std::vector<std::uint64_t>& keys, double& bits) {
        auto f = Filter::build_from_hashes(keys);
        bits = f.bits_per_item();
        return f;
      },
      [](const Filter& f, std::uint64_t k) { return f.may_contain_hash(k); });
}

#ifdef RINGBLOOM_HAVE_FASTFILTER
/// One of fastfilter_cpp's, through its own API; `ok` is its Status Ok.
template <class Peer, auto ok>
void measure_peer(result& r, const std::vector<std::uint64_t>& members,
                  const std::vector<std::uint64_t>& strangers) {
  measure(
      r, members, strangers,
      [](const std::vector<std::uint64_t>& keys, double& bits) {
        auto f = std::make_unique<Peer>(keys.size());
        f->AddAll(keys, 0, keys.size());
        bits = 8.0 * static_cast<double>(f->SizeInBytes()) / static_cast<double>(keys.size());
        return f;
      },
      [](const std::unique_ptr<Peer>& f, std::uint64_t k) { return f->Contain(k) == ok; });
}
#endif

std::vector<std::size_t> parse_keys(int argc, char** argv) {
  std::vector<std::size_t> sizes = {1000000, 10000000};
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) != "--keys") continue;
    sizes.clear();
    std::string list = argv[i + 1];
    std::size_t at = 0;
    while (at < list.size()) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      std::string item = list.substr(at, comma - at);
      std::size_t mult = 1;
      if (!item.empty() && (item.back() == 'M' || item.back() == 'm')) {
        mult = 1000000;
        item.pop_back();
      }
      sizes.push_back(std::stoull(item) * mult);
      at = comma + 1;
    }
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i > 0 ? " " : "") + std::string(argv[i]);
  fmt::print("command: {}\n\n", command);
  fmt::print(
      "|  keys | filter                             | bits/key | build ns | pos. ns | neg. ns | "
      "fpr      |\n"
      "|------:|------------------------------------|---------:|---------:|--------:|--------:|----"
      "-----:|\n");
  for (const std::size_t n : parse_keys(argc, argv)) {
    const auto members = make_keys(n, 42, false);
    const auto strangers = make_keys(std::min<std::size_t>(n, 10000000), 43, true);
#ifdef RINGBLOOM_HAVE_FASTFILTER
    namespace three = xorbinaryfusefilter_lowmem;
    namespace four = xorbinaryfusefilter_lowmem4wise;
    constexpr std::size_t filters = 4;
#else
    constexpr std::size_t filters = 2;
#endif
    std::array<result, filters> best;
    for (int round = 0; round < rounds; ++round) {
      measure_ours<ringbloom::fuse8_filter>(best[0], members, strangers);
      measure_ours<ringbloom::fuse8_4wise_filter>(best[1], members, strangers);
#ifdef RINGBLOOM_HAVE_FASTFILTER
      measure_peer<three::XorBinaryFuseFilter<std::uint64_t, std::uint8_t>, three::Ok>(
          best[2], members, strangers);
      measure_peer<four::XorBinaryFuseFilter<std::uint64_t, std::uint8_t>, four::Ok>(
          best[3], members, strangers);
#endif
    }
    print(n, "ringbloom fuse8", best[0]);
    print(n, "ringbloom fuse8-4wise", best[1]);
#ifdef RINGBLOOM_HAVE_FASTFILTER
    print(n, "fastfilter_cpp binary fuse 8", best[2]);
    print(n, "fastfilter_cpp 4-wise binary fuse 8", best[3]);
#else
    fmt::print(
        "fastfilter_cpp is not built in (configure with -DRINGBLOOM_FASTFILTER_INCLUDE=<its src "
        "dir>)\n");
#endif
  }
  fmt::print("\nchecksum {}\n", checksum);
  return 0;
}
