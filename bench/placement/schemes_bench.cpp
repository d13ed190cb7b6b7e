// System-scheme benchmarks: lookups of pre-hashed keys at 100 servers for
// every scheme of include/ringbloom/placement/schemes/, against the native
// ring's lookup in the same run (the goal: within 1.5x of it), and
// `ring import` of 1,000-server configurations (goal: under 50 ms).
//
// Build and run (docs/performance.md):
//   cmake --preset bench
//   cmake --build build/bench --target schemes_bench -j2
//   build/bench/bench/schemes_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/guava.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace {

using namespace ringbloom;
using namespace ringbloom::schemes;

constexpr int servers = 100;
constexpr std::size_t key_count = 1 << 16;

// Pre-hashed keys: uniformly random 64-bit values (each scheme reads the
// bits it uses: 32 for nginx/HAProxy/twemproxy/groupcache, 14 for Redis).
const std::vector<std::uint64_t>& hashes() {
  static const std::vector<std::uint64_t> h = [] {
    std::vector<std::uint64_t> v(key_count);
    std::mt19937_64 rng(7);
    for (auto& x : v) x = rng();
    return v;
  }();
  return h;
}

std::vector<placement_node> fleet(const char* format) {
  std::vector<placement_node> nodes;
  for (int i = 0; i < servers; ++i)
    nodes.push_back({fmt::format(fmt::runtime(format), i / 250, i % 250), 1.0});
  return nodes;
}

// The native ring at libmemcached's density (160 points per server), xxh3.
void BM_NativeRingLookup(benchmark::State& state) {
  hash_ring ring({160, hash_kind::xxh3, ring_scheme::native});
  for (int i = 0; i < servers; ++i) ring.add_node(fmt::format("cache-{}", i));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ring.node_index_for_hash(hashes()[i++ & (key_count - 1)]));
  }
}
BENCHMARK(BM_NativeRingLookup);

// A scheme through the placement interface (one virtual call per lookup).
void run_virtual(benchmark::State& state, const placement& p) {
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.node_index_for_hash(hashes()[i++ & (key_count - 1)]));
  }
}

template <class P>
void run_direct(benchmark::State& state, const P& p) {
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        p.owner_of(static_cast<std::uint32_t>(hashes()[i++ & (key_count - 1)])));
  }
}

void BM_Nginx(benchmark::State& state) {
  const auto p = make_scheme_placement("nginx", fleet("10.0.{}.{}:8080"));
  if (state.range(0) == 0) {
    run_virtual(state, *p);
  } else {
    run_direct(state, dynamic_cast<const nginx_placement&>(*p));
  }
}
BENCHMARK(BM_Nginx)->ArgName("direct")->Arg(0)->Arg(1);

void BM_Haproxy(benchmark::State& state) {
  const auto p = make_scheme_placement("haproxy", fleet("s{}-{}"));
  if (state.range(0) == 0) {
    run_virtual(state, *p);
  } else {
    run_direct(state, dynamic_cast<const haproxy_placement&>(*p));
  }
}
BENCHMARK(BM_Haproxy)->ArgName("direct")->Arg(0)->Arg(1);

void BM_Twemproxy(benchmark::State& state) {
  const auto p = make_scheme_placement("twemproxy", fleet("10.0.{}.{}:11211"));
  if (state.range(0) == 0) {
    run_virtual(state, *p);
  } else {
    run_direct(state, dynamic_cast<const twemproxy_placement&>(*p));
  }
}
BENCHMARK(BM_Twemproxy)->ArgName("direct")->Arg(0)->Arg(1);

void BM_Groupcache(benchmark::State& state) {
  const auto p = make_scheme_placement("groupcache", fleet("http://10.0.{}.{}:8080"));
  run_virtual(state, *p);
}
BENCHMARK(BM_Groupcache);

void BM_RedisCluster(benchmark::State& state) {
  const auto p = make_scheme_placement("redis-cluster", fleet("10.0.{}.{}:6379"));
  run_virtual(state, *p);
}
BENCHMARK(BM_RedisCluster);

void BM_Cassandra(benchmark::State& state) {
  // 100 nodes x 16 vnode tokens, SimpleStrategy 3.
  std::vector<cassandra_node> nodes;
  std::mt19937_64 rng(3);
  for (int i = 0; i < servers; ++i) {
    cassandra_node n{fmt::format("10.0.0.{}", i), "dc1", "r1", {}};
    for (int t = 0; t < 16; ++t) n.tokens.push_back(static_cast<std::int64_t>(rng()));
    nodes.push_back(std::move(n));
  }
  const cassandra_placement p(std::move(nodes), cassandra_replication::simple(3));
  run_virtual(state, p);
}
BENCHMARK(BM_Cassandra);

void BM_Guava(benchmark::State& state) {
  const guava_placement p(servers);
  run_virtual(state, p);
}
BENCHMARK(BM_Guava);

void BM_EnvoyRingHash(benchmark::State& state) {
  const auto p = make_scheme_placement("envoy-ring-hash", fleet("10.0.{}.{}:80"));
  run_virtual(state, *p);
}
BENCHMARK(BM_EnvoyRingHash);

void BM_EnvoyMaglev(benchmark::State& state) {
  const auto p = make_scheme_placement("envoy-maglev", fleet("10.0.{}.{}:80"));
  run_virtual(state, *p);
}
BENCHMARK(BM_EnvoyMaglev);

// `ring import` of 1,000 servers: parse, build the placement, write the
// topology text (what the command does, minus the file write).
void BM_ImportNginx1000(benchmark::State& state) {
  std::string conf = "http {\n  upstream backend {\n    hash $request_uri consistent;\n";
  for (int i = 0; i < 1000; ++i)
    conf += fmt::format("    server 10.{}.{}.1:8080 weight={};\n", i / 250, i % 250, 1 + i % 3);
  conf += "  }\n}\n";
  for (auto _ : state) {
    const auto p = import_nginx(conf, "nginx.conf", "backend");
    benchmark::DoNotOptimize(scheme_topology_json(*p));
  }
}
BENCHMARK(BM_ImportNginx1000)->Unit(benchmark::kMillisecond);

void BM_ImportHaproxy1000(benchmark::State& state) {
  std::string cfg = "backend web\n  balance uri\n  hash-type consistent\n";
  for (int i = 0; i < 1000; ++i)
    cfg += fmt::format("  server s{} 10.{}.{}.1:80 weight {}\n", i, i / 250, i % 250, 1 + i % 3);
  for (auto _ : state) {
    const auto p = import_haproxy(cfg, "haproxy.cfg", "web");
    benchmark::DoNotOptimize(scheme_topology_json(*p));
  }
}
BENCHMARK(BM_ImportHaproxy1000)->Unit(benchmark::kMillisecond);

void BM_ImportRedisNodes1000(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    const int first = i * 16384 / 1000;
    const int last = (i + 1) * 16384 / 1000 - 1;
    text += fmt::format("{:040x} 10.{}.{}.1:6379@16379 master - 0 0 {} connected {}-{}\n", i,
                        i / 250, i % 250, i, first, last);
  }
  for (auto _ : state) {
    const auto p = import_redis_cluster_nodes(text, "nodes.txt");
    benchmark::DoNotOptimize(scheme_topology_json(*p));
  }
}
BENCHMARK(BM_ImportRedisNodes1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
