// python/bench/cpp_baseline.cpp: the C++ side of the Python benchmark
// (python/bench/bench_python.py runs it in the same session and prints the
// ratios). It times, in C++ alone, exactly what the Python benchmark times
// through the bindings: the same keys, the same filter and ring, the same
// batch calls.
//
//   cpp_baseline N   ->  one JSON object of nanoseconds per key
//
// Keys are "key-0" .. "key-(N-1)". The filter is blocked, sized for N at 1%,
// filled with all N keys; lookups ask for all N. The ring has 10 nodes
// n1..n10 with 100 virtual nodes (xxh3).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/placement/ring.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// The best of `runs` timings of fn(), in nanoseconds per key.
template <class Fn>
double best_ns_per_key(std::size_t keys, int runs, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    const auto start = clock_type::now();
    fn();
    const std::chrono::duration<double, std::nano> elapsed = clock_type::now() - start;
    best = std::min(best, elapsed.count() / static_cast<double>(keys));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) keys.push_back("key-" + std::to_string(i));
  const std::vector<std::string_view> views(keys.begin(), keys.end());

  auto filter = ringbloom::blocked_bloom_filter::for_capacity(n, 0.01);
  const double add = best_ns_per_key(n, 1, [&] { filter.add_many(views); });
  auto answers = std::make_unique<bool[]>(n);
  std::size_t found = 0;
  const double lookup = best_ns_per_key(n, 3, [&] {
    found = filter.may_contain_many(views, {answers.get(), n});
  });

  ringbloom::hash_ring ring;
  for (int i = 1; i <= 10; ++i) ring.add_node("n" + std::to_string(i));
  std::vector<std::uint32_t> owners(n);
  const double ring_batch = best_ns_per_key(n, 3, [&] {
    for (std::size_t i = 0; i < n; ++i)
      owners[i] = ring.node_index_for_hash(ring.key_hash(views[i]));
  });
  std::size_t sum = 0;
  const double node_for = best_ns_per_key(n, 3, [&] {
    for (std::size_t i = 0; i < n; ++i) sum += ring.node_for(views[i]).size();
  });

  std::printf(
      "{\"keys\": %zu, \"found\": %zu, \"bloom_add_many_ns\": %.2f, "
      "\"bloom_may_contain_many_ns\": %.2f, \"ring_batch_ns\": %.2f, \"ring_node_for_ns\": %.2f, "
      "\"checksum\": %zu}\n",
      n, found, add, lookup, ring_batch, node_for, sum + owners[n / 2]);
  return found == n ? 0 : 1;
}
