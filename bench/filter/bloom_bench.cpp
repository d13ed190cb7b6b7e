// Bloom filter benchmarks: this project's classic, blocked and blocked-batched
// filters side by side with libbloom (a classic C filter, Debian
// libbloom-dev) and std::unordered_set<std::string> (the exact baseline), at
// equal bits per key (10), for 1M, 10M and 100M keys, in one run.
//
// Every variant is driven through one small adapter (filter_api<T>, after
// fastfilter_cpp's FilterAPI<T>) on the same pre-built 16-byte keys. For
// each: insert ns/key, positive and negative lookup ns/key, the measured
// false-positive rate and the bits per key actually used. Times are the
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID), fastest of --repeat runs. Lookups feed
// benchmark::DoNotOptimize and a checksum that is printed, so none can be
// optimised away.
//
// Build and run (docs/performance.md):
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DRINGBLOOM_BUILD_BENCH=ON
//   cmake --build build-bench --target bloom_bench -j2
//   build-bench/bench/filter/bloom_bench                         # the comparison table
//   build-bench/bench/filter/bloom_bench --keys 1M,10M --set-max-keys 10M
//   build-bench/bench/filter/bloom_bench --micro [--benchmark_filter=...]   # Google Benchmark
//
// Options of the table driver:
//   --keys LIST          key counts, e.g. 1M,10M,100M (the default)
//   --lookups N          probes per lookup measurement (default 10M, at most the key count)
//   --set-max-keys N     largest key count std::unordered_set runs at (default 10M:
//                        at 100M it would need ~10 GiB on a machine shared with others)
//   --repeat N           timed repetitions at <= 10M keys; the fastest is reported (default 3)
//   --micro              run the Google Benchmark micro benchmarks instead
//   --vs-boost ROUNDS    only the blocked kinds (blocked64, fast, blocked) against
//                        Boost.Bloom's fast_multiblock32<8>, ROUNDS alternating rounds,
//                        medians and per-round ratios (needs the Boost peer;
//                        docs/performance.md)
//   --equal-fpr          bits per key of every blocked filter (ours, Boost's, fastfilter_cpp's)
//                        sized to measure a 1.0% rate, 1M keys, 4M strangers
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ringbloom/filter/blocked1024_bloom.hpp"
#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/simd.hpp"
#include "ringbloom/filter/fast_bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/mix.hpp"

#ifdef RINGBLOOM_HAVE_BOOST_BLOOM
#include "filter/boost_bloom_peer.hpp"
#endif
#ifdef RINGBLOOM_HAVE_BLOCKED64_AVX2_LOOPS
#include "filter/blocked64_avx2_loops.hpp"
#endif
#ifdef RINGBLOOM_HAVE_FASTFILTER_BLOCKED
#include "filter/fastfilter_blocked_peer.hpp"
#endif

#ifdef RINGBLOOM_HAVE_LIBBLOOM
#include <bloom.h>
#endif

namespace {

constexpr double bits_per_key = 10.0;
constexpr std::size_t key_bytes = 16;

// --- keys ---------------------------------------------------------------------------

/// n keys of exactly 16 bytes (16 hex digits of a 64-bit value), in one flat
/// buffer. Members have the top bit of the value clear (first digit 0-7),
/// strangers set (8-f), so no stranger is ever a member.
class key_set {
 public:
  key_set(std::size_t n, std::uint64_t seed, bool strangers) : n_(n), bytes_(n * key_bytes) {
    std::uint64_t state = seed;
    constexpr char digits[] = "0123456789abcdef";
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t v = ringbloom::splitmix64_next(state);
      v = strangers ? (v | (1ULL << 63)) : (v & ~(1ULL << 63));
      char* out = bytes_.data() + i * key_bytes;
      for (std::size_t d = 0; d < key_bytes; ++d) out[d] = digits[(v >> (60 - 4 * d)) & 15];
    }
  }
  /// A shuffled copy of the first `count` keys of `from`.
  key_set(const key_set& from, std::size_t count, std::uint64_t seed)
      : n_(count), bytes_(count * key_bytes) {
    std::vector<std::uint32_t> order(from.size());
    std::iota(order.begin(), order.end(), 0U);
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i = 0; i < count; ++i) {
      std::memcpy(bytes_.data() + i * key_bytes, from.bytes_.data() + order[i] * key_bytes,
                  key_bytes);
    }
  }
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] const char* data() const { return bytes_.data(); }
  [[nodiscard]] std::string_view operator[](std::size_t i) const {
    return {bytes_.data() + i * key_bytes, key_bytes};
  }

 private:
  std::size_t n_;
  std::vector<char> bytes_;
};

// --- the adapter ------------------------------------------------------------------------

/// filter_api<T>: make(n) at 10 bits per key, add_all(keys), count(keys)
/// (how many answer "maybe"), bits_per_key(n), name. Every peer goes through
/// this, so the loops timed are the same shape for all.
template <class T>
struct filter_api;

// Not inlined into measure(), so that callgrind can count each variant's
// loop by name (docs/performance.md's instruction table); one call per loop.
template <class Add>
[[gnu::noinline]] void add_loop(const key_set& keys, Add&& add) {
  for (std::size_t i = 0; i < keys.size(); ++i) add(keys[i]);
}

template <class Test>
[[gnu::noinline]] std::size_t count_loop(const key_set& keys, Test&& test) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool hit = test(keys[i]);
    benchmark::DoNotOptimize(hit);
    found += hit ? 1 : 0;
  }
  return found;
}

/// The k a classic filter gets at 10 bits per key: round(10 ln 2) = 7.
std::uint32_t classic_k() { return ringbloom::bloom_math::optimal_hashes(bits_per_key, 1.0); }

/// The k with the lowest blocked rate at 10 bits per key for blocks of
/// `block_bits` (bloom_math::blocked_fpr): 6 for 512-bit blocks, 7 for 1024.
std::uint32_t blocked_k(std::size_t n, std::uint64_t block_bits = 512) {
  const std::uint64_t m =
      (static_cast<std::uint64_t>(bits_per_key * static_cast<double>(n)) + block_bits - 1) /
      block_bits * block_bits;
  const auto rate = [&](std::uint32_t k) {
    return ringbloom::bloom_math::blocked_fpr(static_cast<double>(n), m, k, block_bits);
  };
  std::uint32_t best = 1;
  for (std::uint32_t k = 2; k <= ringbloom::max_blocked_hashes; ++k) {
    if (rate(k) < rate(best)) best = k;
  }
  return best;
}

struct classic_one {};
struct classic_old_rule {};
struct classic_batched {};
struct blocked_one {};
struct blocked_batched {};

/// The adapter of a filter F made from (bits, k) with add and may_contain:
/// one call per key. Each kind adds its name and make().
template <class F>
struct one_at_a_time_api {
  using filter = F;
  static filter make_with(std::size_t n, std::uint32_t k) {
    return filter(static_cast<std::uint64_t>(bits_per_key * static_cast<double>(n)), k);
  }
  static void add_all(filter& f, const key_set& k) {
    add_loop(k, [&](std::string_view s) { f.add(s); });
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return count_loop(k, [&](std::string_view s) { return f.may_contain(s); });
  }
  static double bits(const filter& f, std::size_t n) {
    return static_cast<double>(f.bits()) / static_cast<double>(n);
  }
};

template <>
struct filter_api<classic_one> : one_at_a_time_api<ringbloom::bloom_filter> {
  static constexpr const char* name = "ringbloom classic";
  static filter make(std::size_t n) { return make_with(n, classic_k()); }
};

/// Batches of string_views built on the fly from the key buffer, as a caller
/// with its own storage would.
constexpr std::size_t batch_items = 1024;

template <class Fn>
void for_each_batch(const key_set& keys, Fn&& fn) {
  std::array<std::string_view, batch_items> views;
  for (std::size_t first = 0; first < keys.size(); first += batch_items) {
    const std::size_t count = std::min(batch_items, keys.size() - first);
    for (std::size_t i = 0; i < count; ++i) views[i] = keys[first + i];
    fn(std::span<const std::string_view>(views.data(), count));
  }
}

/// The batched adapter over a one-at-a-time one: add_many and
/// may_contain_many over batches of batch_items keys.
template <class One>
struct batched_api : One {
  using typename One::filter;
  static void add_all(filter& f, const key_set& k) {
    for_each_batch(k, [&](std::span<const std::string_view> b) { f.add_many(b); });
  }
  static std::size_t count(const filter& f, const key_set& keys) {
    std::array<bool, batch_items> out;
    std::size_t found = 0;
    for_each_batch(keys, [&](std::span<const std::string_view> batch) {
      found += f.may_contain_many(batch, out);
      benchmark::DoNotOptimize(out.data());
    });
    return found;
  }
};

/// The classic filter with the positions of files before format version 3
/// (plain double hashing, no mix): what the mix costs, in the same run.
template <>
struct filter_api<classic_old_rule> : one_at_a_time_api<ringbloom::bloom_filter> {
  static constexpr const char* name = "ringbloom classic, old positions";
  static filter make(std::size_t n) {
    const auto m = static_cast<std::uint64_t>(bits_per_key * static_cast<double>(n));
    return ringbloom::bloom_filter::from_words(
        m, classic_k(), ringbloom::hash_kind::xxh3, 0, 0,
        ringbloom::detail::word_store(static_cast<std::size_t>((m + 63) / 64)),
        ringbloom::position_rule::double_hashing);
  }
};

template <>
struct filter_api<classic_batched> : batched_api<filter_api<classic_one>> {
  static constexpr const char* name = "ringbloom classic, batched";
};

template <>
struct filter_api<blocked_one> : one_at_a_time_api<ringbloom::blocked_bloom_filter> {
  static constexpr const char* name = "ringbloom blocked";
  static filter make(std::size_t n) { return make_with(n, blocked_k(n)); }
};

template <>
struct filter_api<blocked_batched> : batched_api<filter_api<blocked_one>> {
  static constexpr const char* name = "ringbloom blocked, batched";
};

/// blocked64 (blocked64_bloom.hpp), at the blocked kind's k: one call per
/// key from this file (plain x86-64: a direct call to the AVX-512 or AVX2
/// test), and batched.
struct blocked64_one {};
struct blocked64_batched {};

template <>
struct filter_api<blocked64_one> : one_at_a_time_api<ringbloom::blocked64_bloom_filter> {
  static constexpr const char* name = "ringbloom blocked64";
  static filter make(std::size_t n) { return make_with(n, blocked_k(n)); }
};

template <>
struct filter_api<blocked64_batched> : batched_api<filter_api<blocked64_one>> {
  static constexpr const char* name = "ringbloom blocked64, batched";
};

/// blocked1024 (blocked1024_bloom.hpp) at its own best k: one call per key
/// (plain x86-64: a direct call to the AVX-512 or AVX2 test), and batched.
/// Its block is two cache lines: these rows show what the second one costs.
struct blocked1024_one {};
struct blocked1024_batched {};

template <>
struct filter_api<blocked1024_one> : one_at_a_time_api<ringbloom::blocked1024_bloom_filter> {
  static constexpr const char* name = "ringbloom blocked1024";
  static filter make(std::size_t n) { return make_with(n, blocked_k(n, 1024)); }
};

template <>
struct filter_api<blocked1024_batched> : batched_api<filter_api<blocked1024_one>> {
  static constexpr const char* name = "ringbloom blocked1024, batched";
};

/// The fast kind (fast_bloom.hpp): one bit per 64-bit word of a 512-bit
/// block, k = 8 (what sizing gives at 10 bits per key), one call per key
/// from this file (plain x86-64: the AVX2 add or test inline as assembly),
/// and batched.
struct fast_one {};
struct fast_batched {};

template <>
struct filter_api<fast_one> : one_at_a_time_api<ringbloom::fast_bloom_filter> {
  static constexpr const char* name = "ringbloom fast";
  static filter make(std::size_t n) { return make_with(n, 8); }
};

template <>
struct filter_api<fast_batched> : batched_api<filter_api<fast_one>> {
  static constexpr const char* name = "ringbloom fast, batched";
};

#ifdef RINGBLOOM_HAVE_BLOCKED64_AVX2_LOOPS
/// blocked64 one at a time with the loop compiled for AVX2 (as Boost's).
struct blocked64_avx2 {};

template <>
struct filter_api<blocked64_avx2> : filter_api<blocked64_one> {
  static constexpr const char* name = "ringbloom blocked64, -mavx2";
  static void add_all(filter& f, const key_set& k) {
    ringbloom::bench::blocked64_add_each_avx2(f, k.data(), k.size(), key_bytes);
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return ringbloom::bench::blocked64_count_each_avx2(f, k.data(), k.size(), key_bytes);
  }
};

/// blocked64 and fast one at a time, the same loops compiled for plain
/// x86-64 (plain_loops.cpp).
struct blocked64_plain {};
struct fast_plain {};

template <>
struct filter_api<blocked64_plain> : filter_api<blocked64_one> {
  static constexpr const char* name = "ringbloom blocked64, plain";
  static void add_all(filter& f, const key_set& k) {
    ringbloom::bench::blocked64_add_each_plain(f, k.data(), k.size(), key_bytes);
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return ringbloom::bench::blocked64_count_each_plain(f, k.data(), k.size(), key_bytes);
  }
};

template <>
struct filter_api<fast_plain> : filter_api<fast_one> {
  static constexpr const char* name = "ringbloom fast, plain";
  static void add_all(filter& f, const key_set& k) {
    ringbloom::bench::fast_add_each_plain(f, k.data(), k.size(), key_bytes);
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return ringbloom::bench::fast_count_each_plain(f, k.data(), k.size(), key_bytes);
  }
};

/// The fast kind one at a time, its loop compiled for AVX2.
struct fast_avx2 {};

template <>
struct filter_api<fast_avx2> : filter_api<fast_one> {
  static constexpr const char* name = "ringbloom fast, -mavx2";
  static void add_all(filter& f, const key_set& k) {
    ringbloom::bench::fast_add_each_avx2(f, k.data(), k.size(), key_bytes);
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return ringbloom::bench::fast_count_each_avx2(f, k.data(), k.size(), key_bytes);
  }
};
#endif

#ifdef RINGBLOOM_HAVE_BOOST_BLOOM
/// Boost.Bloom fast_multiblock32<8>, K = 1, default hash, 10 bits per key
/// (boost_bloom_peer.hpp): one call per key, and its bulk API.
struct boost_one {};
struct boost_bulk {};

template <>
struct filter_api<boost_one> {
  using filter = ringbloom::bench::boost_fmb32;
  static constexpr const char* name = "Boost.Bloom fast_multiblock32<8>";
  static filter make(std::size_t n) {
    return filter(static_cast<std::size_t>(bits_per_key * static_cast<double>(n)));
  }
  static void add_all(filter& f, const key_set& k) { f.insert_each(k.data(), k.size(), key_bytes); }
  static std::size_t count(const filter& f, const key_set& k) {
    return f.count_each(k.data(), k.size(), key_bytes);
  }
  static double bits(const filter& f, std::size_t n) {
    return static_cast<double>(f.bits()) / static_cast<double>(n);
  }
};

template <>
struct filter_api<boost_bulk> : filter_api<boost_one> {
  static constexpr const char* name = "Boost.Bloom fmb32<8>, bulk";
  static void add_all(filter& f, const key_set& k) { f.insert_bulk(k.data(), k.size(), key_bytes); }
  static std::size_t count(const filter& f, const key_set& k) {
    return f.count_bulk(k.data(), k.size(), key_bytes);
  }
};
#endif

#ifdef RINGBLOOM_HAVE_LIBBLOOM
/// libbloom owns a malloc'ed bit array; this frees it.
struct libbloom_filter {
  struct bloom b {};
  libbloom_filter() = default;
  libbloom_filter(const libbloom_filter&) = delete;
  libbloom_filter& operator=(const libbloom_filter&) = delete;
  libbloom_filter(libbloom_filter&& o) noexcept : b(o.b) { o.b.ready = 0; }
  ~libbloom_filter() {
    if (b.ready != 0) bloom_free(&b);
  }
};

template <>
struct filter_api<libbloom_filter> {
  using filter = libbloom_filter;
  static constexpr const char* name = "libbloom 1.6";
  static filter make(std::size_t n) {
    // libbloom sizes by bits per entry bpe = -ln(p) / ln(2)^2, so p = exp(-10 ln(2)^2)
    // gives 10 bits per key (and k = ceil(bpe ln 2) = 7, like ours).
    const double p = std::exp(-bits_per_key * std::log(2.0) * std::log(2.0));
    filter f;
    if (bloom_init(&f.b, static_cast<int>(n), p) != 0)
      throw std::runtime_error("bloom_init failed");
    return f;
  }
  static void add_all(filter& f, const key_set& k) {
    add_loop(k, [&](std::string_view s) { bloom_add(&f.b, s.data(), static_cast<int>(s.size())); });
  }
  static std::size_t count(const filter& f, const key_set& k) {
    auto* b = const_cast<struct bloom*>(&f.b);  // bloom_check takes a non-const pointer
    return count_loop(k, [&](std::string_view s) {
      return bloom_check(b, s.data(), static_cast<int>(s.size())) == 1;
    });
  }
  static double bits(const filter& f, std::size_t n) {
    return static_cast<double>(f.b.bits) / static_cast<double>(n);
  }
};
#endif

/// std::hash over string_view, marked transparent so that lookups take a
/// string_view without building a std::string (C++20 heterogeneous lookup).
struct transparent_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

/// The exact baseline. Its "bits per key" is the heap it holds (mallinfo2).
struct exact_set {
  std::unordered_set<std::string, transparent_hash, std::equal_to<>> set;
  std::size_t heap_bytes = 0;
};

template <>
struct filter_api<exact_set> {
  using filter = exact_set;
  static constexpr const char* name = "std::unordered_set<std::string>";
  static filter make(std::size_t n) {
    filter f;
    f.set.reserve(n);
    return f;
  }
  static void add_all(filter& f, const key_set& k) {
    const std::size_t before = mallinfo2().uordblks;
    add_loop(k, [&](std::string_view s) { f.set.emplace(s); });
    f.heap_bytes = mallinfo2().uordblks - before;
  }
  static std::size_t count(const filter& f, const key_set& k) {
    return count_loop(k, [&](std::string_view s) { return f.set.contains(s); });
  }
  static double bits(const filter& f, std::size_t n) {
    return 8.0 * static_cast<double>(f.heap_bytes) / static_cast<double>(n);
  }
};

// --- the driver ---------------------------------------------------------------------

/// The time this thread has run, not the wall clock: the machine is shared,
/// and a thread waiting for a core should not count as work. Cache and
/// memory-bandwidth interference from other jobs still shows.
struct clock_type {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
};

double seconds_since(double start) { return clock_type::now() - start; }

struct row {
  std::size_t n;
  std::string name;
  double bits_per_key;
  double insert_ns;
  double positive_ns;
  double negative_ns;
  double fpr;
};

std::uint64_t checksum = 0;  // printed: the answers are used

template <class T>
row measure(std::size_t n, const key_set& members, const key_set& positives,
            const key_set& negatives, int repeat) {
  using api = filter_api<T>;
  row r{n, api::name, 0, 1e300, 1e300, 1e300, 0};
  std::unique_ptr<typename api::filter> f;
  for (int rep = 0; rep < repeat; ++rep) {
    f.reset();  // free the previous one first
    f = std::make_unique<typename api::filter>(api::make(n));
    const auto start = clock_type::now();
    api::add_all(*f, members);
    r.insert_ns = std::min(r.insert_ns, seconds_since(start) * 1e9 / static_cast<double>(n));
  }
  r.bits_per_key = api::bits(*f, n);
  std::size_t false_positives = 0;
  for (int rep = 0; rep < repeat; ++rep) {
    auto start = clock_type::now();
    const std::size_t found = api::count(*f, positives);
    r.positive_ns =
        std::min(r.positive_ns, seconds_since(start) * 1e9 / static_cast<double>(positives.size()));
    if (found != positives.size()) {
      throw std::runtime_error(fmt::format("{}: a false negative", api::name));
    }
    start = clock_type::now();
    false_positives = api::count(*f, negatives);
    r.negative_ns =
        std::min(r.negative_ns, seconds_since(start) * 1e9 / static_cast<double>(negatives.size()));
    checksum += found + false_positives;
  }
  r.fpr = static_cast<double>(false_positives) / static_cast<double>(negatives.size());
  return r;
}

/// A key count as the tables print it: "10M" for whole millions, else digits.
std::string key_label(std::size_t n) {
  return n >= 1000000 && n % 1000000 == 0 ? fmt::format("{}M", n / 1000000) : std::to_string(n);
}

void print_row(const row& r) {
  fmt::print("| {:>5} | {:<32} | {:>8.2f} | {:>9.1f} | {:>9.1f} | {:>9.1f} | {:>7.3f}% |\n",
             key_label(r.n), r.name, r.bits_per_key, r.insert_ns, r.positive_ns, r.negative_ns,
             100 * r.fpr);
  std::fflush(stdout);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return fmt::format("{} {} {}", a, b, c);
}

std::size_t parse_count(std::string_view s) {
  std::size_t mult = 1;
  if (!s.empty() && (s.back() == 'M' || s.back() == 'm')) {
    mult = 1000000;
    s.remove_suffix(1);
  } else if (!s.empty() && (s.back() == 'K' || s.back() == 'k')) {
    mult = 1000;
    s.remove_suffix(1);
  }
  return static_cast<std::size_t>(std::stoull(std::string(s))) * mult;
}

std::vector<std::size_t> parse_list(std::string_view s) {
  std::vector<std::size_t> out;
  while (!s.empty()) {
    const auto comma = s.find(',');
    out.push_back(parse_count(s.substr(0, comma)));
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
  }
  return out;
}

/// The two parts of a batched blocked lookup, measured apart on the negative
/// probes: XXH3-128 of each 16-byte key (into an array), then
/// may_contain_many over those pre-computed hashes under each SIMD path.
/// Prints the share of hashing in a batched lookup with the best path.
void hash_share_and_simd_paths(std::size_t n, const key_set& members, const key_set& negatives) {
  auto f = filter_api<blocked_one>::make(n);
  filter_api<blocked_batched>::add_all(f, members);
  const std::size_t count = negatives.size();
  // Hashing as the batched path does it: keys streamed from memory, hashes
  // into a small buffer that stays in L1 (not a 16-byte-per-key array, whose
  // memory traffic would be charged to hashing).
  double hash_ns = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    std::array<ringbloom::hash128, 1024> ring{};
    const auto start = clock_type::now();
    for (std::size_t i = 0; i < count; ++i) ring[i & 1023] = f.hash_item(negatives[i]);
    hash_ns = std::min(hash_ns, seconds_since(start) * 1e9 / static_cast<double>(count));
    benchmark::DoNotOptimize(ring.data());
  }
  std::vector<ringbloom::hash128> hashes(count);
  for (std::size_t i = 0; i < count; ++i) hashes[i] = f.hash_item(negatives[i]);
  auto out = std::make_unique<bool[]>(count);
  fmt::print(
      "{} keys, blocked: XXH3-128 of a 16-byte key {:.2f} ns; batched probe of a "
      "pre-hashed key:",
      key_label(n), hash_ns);
  double best_probe = 1e300;
  for (auto p :
       {ringbloom::simd_path::scalar, ringbloom::simd_path::avx2, ringbloom::simd_path::avx512}) {
    if (!ringbloom::simd_path_supported(p)) continue;
    f.use_simd_path(p);
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const auto start = clock_type::now();
      checksum +=
          f.may_contain_many(std::span<const ringbloom::hash128>(hashes), {out.get(), count});
      best = std::min(best, seconds_since(start) * 1e9 / static_cast<double>(count));
    }
    best_probe = std::min(best_probe, best);
    fmt::print(" {} {:.2f} ns,", ringbloom::simd_path_name(p), best);
  }
  fmt::print(" hashing = {:.0f}% of a batched lookup\n", 100 * hash_ns / (hash_ns + best_probe));
}

// --- bits per key at equal rate (--equal-fpr) -----------------------------------------

/// The bits per key at which `rate(bits_per_key)` measures `target`: a rate
/// falls as bits grow, so bisection over [lo, hi] (14 halvings, 0.002 bits
/// at most apart), then linear interpolation between the two last points.
/// NaN when even `hi` bits per key stay above the target.
template <class Rate>
double bits_for_rate(Rate&& rate, double target, double lo = 4.0, double hi = 40.0) {
  double rate_lo = rate(lo);
  double rate_hi = rate(hi);
  if (rate_hi > target) return std::nan("");
  for (int i = 0; i < 14; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double r = rate(mid);
    if (r > target) {
      lo = mid;
      rate_lo = r;
    } else {
      hi = mid;
      rate_hi = r;
    }
  }
  if (rate_lo == rate_hi) return hi;
  return lo + (hi - lo) * (rate_lo - target) / (rate_lo - rate_hi);
}

/// Each blocked filter sized to measure a 1.0% rate: ours (512-bit blocks:
/// blocked, blocked64; 1024-bit blocks: blocked1024) at k = 4..10, every
/// Boost blocked subfilter at K = 4..12 (filter K = 1: one block per lookup),
/// fastfilter_cpp's SimdBlockFilterFixed; the best k of each family first.
int run_equal_fpr(std::size_t n, std::size_t m) {
  constexpr double target = 0.01;
  const key_set members(n, 42, false);
  const key_set strangers(m, 43, true);
  fmt::print("command: bloom_bench --equal-fpr\nmachine: {}, load average {}\n", cpu_model(),
             load_average());
  fmt::print("{} members, {} strangers (16-byte keys); bits per key at a measured {:.1f}%\n\n", n,
             m, 100 * target);
  struct result {
    std::string family, config;
    double bits;
  };
  std::vector<result> results;
  auto ours = [&](const char* family, auto make, std::uint32_t k_first = 4,
                  std::uint32_t k_last = 10) {
    for (std::uint32_t k = k_first; k <= k_last; ++k) {
      const double bits = bits_for_rate(
          [&](double b) {
            auto f = make(static_cast<std::uint64_t>(b * static_cast<double>(n)), k);
            for (std::size_t i = 0; i < n; ++i) f.add(members[i]);
            std::size_t hits = 0;
            for (std::size_t i = 0; i < m; ++i) hits += f.may_contain(strangers[i]) ? 1 : 0;
            return static_cast<double>(hits) / static_cast<double>(m);
          },
          target);
      results.push_back({family, fmt::format("k = {}", k), bits});
    }
  };
  ours("ringbloom blocked", [](std::uint64_t bits, std::uint32_t k) {
    return ringbloom::blocked_bloom_filter(bits, k);
  });
  ours("ringbloom blocked64", [](std::uint64_t bits, std::uint32_t k) {
    return ringbloom::blocked64_bloom_filter(bits, k);
  });
  ours("ringbloom blocked1024", [](std::uint64_t bits, std::uint32_t k) {
    return ringbloom::blocked1024_bloom_filter(bits, k);
  });
  ours(
      "ringbloom fast",
      [](std::uint64_t bits, std::uint32_t k) { return ringbloom::fast_bloom_filter(bits, k); }, 8,
      8);
#ifdef RINGBLOOM_HAVE_BOOST_BLOOM
  const auto names = ringbloom::bench::boost_blocked_variants();
  for (std::size_t v = 0; v < names.size(); ++v) {
    const double bits = bits_for_rate(
        [&](double b) {
          return ringbloom::bench::boost_blocked_fpr(v, b, members.data(), n, strangers.data(), m,
                                                     key_bytes);
        },
        target);
    // "multiblock<uint64_t,7>, stride 1" -> family "...<uint64_t,K>...", K = 7
    std::string family = "Boost " + names[v];
    const auto close = family.find('>');
    const auto open = family.rfind('<', close);
    const auto comma = family.rfind(',', close);
    const auto start = comma != std::string::npos && comma > open ? comma + 1 : open + 1;
    const std::string config = family.substr(start, close - start);
    family.replace(start, close - start, "K");
    results.push_back({family, "K = " + config, bits});
  }
#endif
#ifdef RINGBLOOM_HAVE_FASTFILTER_BLOCKED
  results.push_back(
      {"fastfilter_cpp SimdBlockFilterFixed", "8 bits in 256",
       bits_for_rate([&](double b) { return ringbloom::bench::fastfilter_blocked_fpr(b, n, m); },
                     target)});
#endif
  // The best configuration of each family, then every row.
  std::vector<std::string> families;
  for (const auto& r : results) {
    if (std::find(families.begin(), families.end(), r.family) == families.end()) {
      families.push_back(r.family);
    }
  }
  fmt::print("| family | best configuration | bits/key at 1.0% |\n|---|---|---:|\n");
  for (const auto& family : families) {
    const result* best = nullptr;
    for (const auto& r : results) {
      if (r.family == family && !std::isnan(r.bits) && (best == nullptr || r.bits < best->bits)) {
        best = &r;
      }
    }
    if (best == nullptr) {
      fmt::print("| {} | none reaches 1.0% below 40 bits/key | — |\n", family);
    } else {
      fmt::print("| {} | {} | {:.2f} |\n", family, best->config, best->bits);
    }
  }
  fmt::print("\nevery configuration:\n");
  for (const auto& r : results) fmt::print("  {:<40} {:<10} {:.2f}\n", r.family, r.config, r.bits);
#ifndef RINGBLOOM_HAVE_FASTFILTER_BLOCKED
  fmt::print("fastfilter_cpp is not built in (-DRINGBLOOM_FASTFILTER_INCLUDE=<its src dir>)\n");
#endif
  fmt::print("load average at the end {}\n", load_average());
  return 0;
}

// --- the blocked kinds against Boost.Bloom (--vs-boost) --------------------------------

#if defined(RINGBLOOM_HAVE_BOOST_BLOOM) && defined(RINGBLOOM_HAVE_BLOCKED64_AVX2_LOOPS)
/// The median of `v` (the mean of the middle two for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

/// One variant's rows over the rounds of run_vs_boost.
struct round_rows {
  std::string name;
  std::vector<row> rows;
};
#endif

/// The blocked64 and fast kinds, each one at a time
/// compiled for AVX2 as Boost's peer is, the same loops compiled for plain
/// x86-64 (plain_loops.cpp), and batched; the blocked kind one at a time (plain) and
/// batched; Boost.Bloom fast_multiblock32<8> one at a time and bulk. Each round
/// measures every variant once (fresh filter: insert, positive lookups,
/// negative lookups), in an order rotated by one each round, so that a
/// burst of load from other jobs falls on every variant alike. Prints each
/// variant's median, then the median over rounds of each round's ratio
/// (Boost's time / ours: above 1, ours is faster; and the plain caller's time
/// / the -mavx2 caller's), from that round's own pair of measurements, with
/// the lowest and highest round.
int run_vs_boost(const std::vector<std::size_t>& sizes, std::size_t lookups, int rounds) {
#if !defined(RINGBLOOM_HAVE_BOOST_BLOOM) || !defined(RINGBLOOM_HAVE_BLOCKED64_AVX2_LOOPS)
  (void)sizes;
  (void)lookups;
  (void)rounds;
  fmt::print(
      "--vs-boost needs Boost.Bloom (configure with -DRINGBLOOM_BOOST_BLOOM_INCLUDE=<boost include "
      "dir>, Boost 1.90 or later) on x86-64\n");
  return 2;
#else
  if (!ringbloom::simd_path_supported(ringbloom::simd_path::avx2)) {
    fmt::print("--vs-boost needs a CPU with AVX2 (Boost's fast_multiblock32 path)\n");
    return 2;
  }
  fmt::print("machine: {}, SIMD path {}, load average {}\n", cpu_model(),
             ringbloom::simd_path_name(ringbloom::best_simd_path()), load_average());
  fmt::print("keys: 16-byte strings; {} bits per key; {} rounds; ns per key, median\n\n",
             bits_per_key, rounds);
  for (const std::size_t n : sizes) {
    const key_set members(n, 42, false);
    const std::size_t probes = std::min(lookups, n);
    const key_set positives(members, probes, 7);
    const key_set negatives(probes, 43, true);
    using measure_fn = row (*)(std::size_t, const key_set&, const key_set&, const key_set&, int);
    const std::array<std::pair<const char*, measure_fn>, 10> variants = {{
        {"blocked64, one at a time, -mavx2", &measure<blocked64_avx2>},
        {"blocked64, one at a time, plain", &measure<blocked64_plain>},
        {"blocked64, batched", &measure<blocked64_batched>},
        {"fast, one at a time, -mavx2", &measure<fast_avx2>},
        {"fast, one at a time, plain", &measure<fast_plain>},
        {"fast, batched", &measure<fast_batched>},
        {"blocked, one at a time, plain", &measure<blocked_one>},
        {"blocked, batched", &measure<blocked_batched>},
        {"Boost fmb32<8>, one at a time", &measure<boost_one>},
        {"Boost fmb32<8>, bulk", &measure<boost_bulk>},
    }};
    std::array<round_rows, 10> out;
    for (std::size_t v = 0; v < variants.size(); ++v) out[v].name = variants[v].first;
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::size_t v = (i + static_cast<std::size_t>(r)) % variants.size();
        out[v].rows.push_back(variants[v].second(n, members, positives, negatives, 1));
      }
    }
    const auto med = [&](std::size_t v, double row::*field) {
      std::vector<double> xs;
      for (const row& x : out[v].rows) xs.push_back(x.*field);
      return median(xs);
    };
    fmt::print("{} keys, load average {}\n", key_label(n), load_average());
    fmt::print(
        "| variant | insert | positive | negative | fpr | bits/key "
        "|\n|---|---:|---:|---:|---:|---:|\n");
    for (std::size_t v = 0; v < out.size(); ++v) {
      fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.3f}% | {:.2f} |\n", out[v].name,
                 med(v, &row::insert_ns), med(v, &row::positive_ns), med(v, &row::negative_ns),
                 100 * out[v].rows.front().fpr, out[v].rows.front().bits_per_key);
    }
    // Each round's ratio from its own pair: the median over rounds and, in
    // brackets, the lowest and highest.
    const auto ratio = [&](std::size_t num, std::size_t den, double row::*field) {
      std::vector<double> xs;
      for (std::size_t r = 0; r < out[num].rows.size(); ++r)
        xs.push_back(out[num].rows[r].*field / out[den].rows[r].*field);
      const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
      return fmt::format("{:.2f} [{:.2f}-{:.2f}]", median(xs), *lo, *hi);
    };
    fmt::print(
        "\n| ours against Boost (Boost's time / ours) | insert | positive | negative |\n"
        "|---|---:|---:|---:|\n");
    for (const auto& [ours, boost] : std::array<std::pair<std::size_t, std::size_t>, 8>{
             {{0, 8}, {1, 8}, {2, 9}, {3, 8}, {4, 8}, {5, 9}, {6, 8}, {7, 9}}}) {
      fmt::print("| {} / {} | {} | {} | {} |\n", out[ours].name, out[boost].name,
                 ratio(boost, ours, &row::insert_ns), ratio(boost, ours, &row::positive_ns),
                 ratio(boost, ours, &row::negative_ns));
    }
    // The plain x86-64 caller against the -mavx2 one, same kind, same round.
    fmt::print(
        "\n| plain build against -mavx2 (plain's time / -mavx2's) | insert | positive | negative "
        "|\n|---|---:|---:|---:|\n");
    for (const auto& [plain, avx2] :
         std::array<std::pair<std::size_t, std::size_t>, 2>{{{1, 0}, {4, 3}}}) {
      fmt::print("| {} / {} | {} | {} | {} |\n", out[plain].name, out[avx2].name,
                 ratio(plain, avx2, &row::insert_ns), ratio(plain, avx2, &row::positive_ns),
                 ratio(plain, avx2, &row::negative_ns));
    }
    fmt::print("\n");
    std::fflush(stdout);
  }
  fmt::print("checksum {} (answers are used); load average at the end {}\n", checksum,
             load_average());
  return 0;
#endif
}

int run_table(int argc, char** argv) {
  std::vector<std::size_t> sizes = {1000000, 10000000, 100000000};
  std::size_t lookups = 10000000;
  std::size_t set_max = 10000000;
  int repeat = 3;
  int rounds = 0;  // --vs-boost ROUNDS
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--equal-fpr") return run_equal_fpr(1000000, 4000000);
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) throw std::invalid_argument(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--keys") {
      sizes = parse_list(value());
    } else if (arg == "--lookups") {
      lookups = parse_count(value());
    } else if (arg == "--set-max-keys") {
      set_max = parse_count(value());
    } else if (arg == "--repeat") {
      repeat = static_cast<int>(parse_count(value()));
    } else if (arg == "--vs-boost") {
      rounds = static_cast<int>(parse_count(value()));
    } else {
      throw std::invalid_argument(
          fmt::format("unknown option '{}'; see the top of bench/filter/bloom_bench.cpp", arg));
    }
  }

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i > 0 ? " " : "") + std::string(argv[i]);
  if (rounds > 0) {
    fmt::print("command: {}\n", command);
    return run_vs_boost(sizes, lookups, rounds);
  }
  fmt::print("command: {}\nmachine: {}, SIMD path {}, load average {}\n", command, cpu_model(),
             ringbloom::simd_path_name(ringbloom::best_simd_path()), load_average());
  fmt::print("keys: 16-byte strings; filters at {} bits per key; classic k = {}\n\n", bits_per_key,
             classic_k());

  fmt::print(
      "|  keys | variant                          | bits/key | insert ns | pos. ns   | neg. ns   | "
      "fpr      |\n"
      "|------:|----------------------------------|---------:|----------:|----------:|----------:|"
      "---------:|\n");
  for (std::size_t n : sizes) {
    const key_set members(n, 42, false);
    const std::size_t probes = std::min(lookups, n);
    const key_set positives(members, probes, 7);
    const key_set negatives(probes, 43, true);
    const int reps = n > 10000000 ? 1 : repeat;
    print_row(measure<classic_one>(n, members, positives, negatives, reps));
    print_row(measure<classic_old_rule>(n, members, positives, negatives, reps));
    print_row(measure<classic_batched>(n, members, positives, negatives, reps));
#ifdef RINGBLOOM_HAVE_LIBBLOOM
    print_row(measure<libbloom_filter>(n, members, positives, negatives, reps));
#endif
    auto blocked = measure<blocked_one>(n, members, positives, negatives, reps);
    blocked.name += fmt::format(" (k={})", blocked_k(n));
    print_row(blocked);
    auto batched = measure<blocked_batched>(n, members, positives, negatives, reps);
    batched.name += fmt::format(" (k={})", blocked_k(n));
    print_row(batched);
    print_row(measure<blocked64_one>(n, members, positives, negatives, reps));
#ifdef RINGBLOOM_HAVE_BLOCKED64_AVX2_LOOPS
    if (ringbloom::simd_path_supported(ringbloom::simd_path::avx2)) {
      print_row(measure<blocked64_avx2>(n, members, positives, negatives, reps));
    }
#endif
    print_row(measure<blocked64_batched>(n, members, positives, negatives, reps));
    auto dense = measure<blocked1024_one>(n, members, positives, negatives, reps);
    dense.name += fmt::format(" (k={})", blocked_k(n, 1024));
    print_row(dense);
    auto dense_batched = measure<blocked1024_batched>(n, members, positives, negatives, reps);
    dense_batched.name += fmt::format(" (k={})", blocked_k(n, 1024));
    print_row(dense_batched);
#ifdef RINGBLOOM_HAVE_BOOST_BLOOM
    print_row(measure<boost_one>(n, members, positives, negatives, reps));
    print_row(measure<boost_bulk>(n, members, positives, negatives, reps));
#endif
    if (n <= set_max) {
      print_row(measure<exact_set>(n, members, positives, negatives, 1));
    } else {
      fmt::print("| {:>5} | {:<32} | skipped above --set-max-keys {} |\n", key_label(n),
                 filter_api<exact_set>::name, set_max);
    }
    hash_share_and_simd_paths(n, members, negatives);
  }
#ifndef RINGBLOOM_HAVE_BOOST_BLOOM
  fmt::print(
      "Boost.Bloom is not built in (configure with -DRINGBLOOM_BOOST_BLOOM_INCLUDE=<boost include "
      "dir>, Boost 1.90 or later)\n");
#endif
#ifndef RINGBLOOM_HAVE_LIBBLOOM
  fmt::print("libbloom was not found at configure time (apt install libbloom-dev)\n");
#endif
  fmt::print("\nchecksum {} (answers are used); load average at the end {}\n", checksum,
             load_average());
  return 0;
}

// --- Google Benchmark micro benchmarks (--micro) --------------------------------------

void BM_xxh3_128_16_bytes(benchmark::State& state) {
  const key_set keys(4096, 5, true);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ringbloom::xxh3_128(keys[i++ & 4095]));
  }
}
BENCHMARK(BM_xxh3_128_16_bytes);

/// One in-cache block test per iteration, for each path (range(0) = path).
void BM_block_test(benchmark::State& state) {
  const auto path = static_cast<ringbloom::simd_path>(state.range(0));
  if (!ringbloom::simd_path_supported(path)) {
    state.SkipWithError("path not supported by this CPU");
    return;
  }
  state.SetLabel(std::string(ringbloom::simd_path_name(path)));
  const auto& kernels = ringbloom::detail::kernels_for(path);
  alignas(64) std::array<std::uint64_t, 8> block{};
  block.fill(0xf0f0f0f0f0f0f0f0ULL);
  std::uint64_t h = 1;
  for (auto _ : state) {
    h = h * 0x9e3779b97f4a7c15ULL + 1;
    benchmark::DoNotOptimize(kernels.test(block.data(), h, 8));
  }
}
BENCHMARK(BM_block_test)->DenseRange(0, 2);

/// Blocked lookups in an in-cache filter (64k keys), one by one and batched.
void BM_blocked_lookup_in_cache(benchmark::State& state) {
  const key_set keys(65536, 11, false);
  auto f = filter_api<blocked_one>::make(keys.size());
  filter_api<blocked_one>::add_all(f, keys);
  const bool batched = state.range(0) != 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(batched ? filter_api<blocked_batched>::count(f, keys)
                                     : filter_api<blocked_one>::count(f, keys));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(keys.size()));
  state.SetLabel(batched ? "batched" : "one by one");
}
BENCHMARK(BM_blocked_lookup_in_cache)->Arg(0)->Arg(1);

/// Classic inserts of range(0) keys at 10 bits per key: one at a time
/// (range(1) = 0) or through add_many (1), with the positions of new filters
/// (range(2) = 0) or of files before version 3 (1). Compare builds with
/// --benchmark_filter=classic_add --benchmark_repetitions=5
/// --benchmark_enable_random_interleaving=true (medians).
void BM_classic_add(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const key_set keys(n, 23, false);
  const bool batched = state.range(1) != 0;
  const bool old_rule = state.range(2) != 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto f = old_rule ? filter_api<classic_old_rule>::make(n) : filter_api<classic_one>::make(n);
    state.ResumeTiming();
    if (batched) {
      filter_api<classic_batched>::add_all(f, keys);
    } else {
      filter_api<classic_one>::add_all(f, keys);
    }
    benchmark::DoNotOptimize(f.words().data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n));
  state.SetLabel(std::string(batched ? "add_many" : "add") + (old_rule ? ", old positions" : ""));
}
BENCHMARK(BM_classic_add)
    ->ArgsProduct({{1 << 20, 10 << 20}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

/// Classic lookups in a filter of range(0) keys: one at a time (range(1) =
/// 0) or through may_contain_many (1), of members (range(2) = 0) or of
/// strangers (1). Same flags as BM_classic_add, --benchmark_filter=classic_lookup.
void BM_classic_lookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const key_set members(n, 23, false);
  const key_set probes(n, state.range(2) != 0 ? 29 : 23, state.range(2) != 0);
  auto f = filter_api<classic_one>::make(n);
  filter_api<classic_one>::add_all(f, members);
  const bool batched = state.range(1) != 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(batched ? filter_api<classic_batched>::count(f, probes)
                                     : filter_api<classic_one>::count(f, probes));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n));
  state.SetLabel(std::string(batched ? "may_contain_many" : "may_contain") +
                 (state.range(2) != 0 ? ", strangers" : ", members"));
}
BENCHMARK(BM_classic_lookup)
    ->ArgsProduct({{1 << 20, 10 << 20}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  try {
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]) == "--micro") {
        std::vector<char*> rest;
        for (int j = 0; j < argc; ++j) {
          if (j != i) rest.push_back(argv[j]);
        }
        int rest_count = static_cast<int>(rest.size());
        benchmark::Initialize(&rest_count, rest.data());
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;
      }
    }
    return run_table(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bloom_bench: error: {}\n", e.what());
    return 2;
  }
}
