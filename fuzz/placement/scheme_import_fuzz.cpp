// libFuzzer target over the system-scheme readers: nginx.conf, haproxy.cfg,
// CLUSTER NODES, CLUSTER SLOTS (raw, terminal and JSON), nodetool ring,
// nutcracker.yml and its server lines, Envoy YAML, the import_config
// dispatcher, and scheme topology files (config_import.hpp,
// scheme_topology.hpp).
//
// The contract: any byte string either gives a placement or throws
// ringbloom::data_error; never a crash, a hang, a huge allocation (the
// schemes refuse more than 2^24 points), a sanitizer report or another
// exception. A placement's topology text must parse back to a placement that
// places keys identically.
//
// Seed corpus: fuzz/placement/corpus/scheme_import_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"

namespace {

void check(const ringbloom::placement& p) {
  const auto again = ringbloom::schemes::parse_scheme_topology(
      ringbloom::schemes::scheme_topology_json(p), "again");
  if (p.node_count() == 0) return;
  for (std::string_view key : {"", "anna", "user:42", "\xd0\xba\xd0\xbb"}) {
    try {
      if (p.node_for(key) != again->node_for(key)) std::abort();
    } catch (const ringbloom::data_error&) {  // a Redis slot without a master
    } catch (const std::logic_error&) {       // no node can own a key (all weights 0)
    }
  }
}

template <class F>
void attempt(F&& f) {
  try {
    const std::unique_ptr<ringbloom::placement> p = f();
    check(*p);
  } catch (const ringbloom::data_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  using namespace ringbloom::schemes;
  attempt([&] { return import_nginx(bytes, "fuzz", "u"); });
  attempt([&] { return import_haproxy(bytes, "fuzz", "b"); });
  attempt([&] { return import_redis_cluster_nodes(bytes, "fuzz"); });
  attempt([&] { return import_redis_cluster_slots(bytes, "fuzz"); });
  attempt([&] { return import_redis_cluster(bytes, "fuzz"); });
  attempt([&] { return import_nodetool_ring(bytes, "fuzz", cassandra_replication::simple(2)); });
  attempt([&] { return parse_scheme_topology(bytes, "fuzz"); });
  attempt([&] {
    std::vector<std::string> notes;
    return import_twemproxy(bytes, "fuzz", "alpha", notes);
  });
  try {  // no cluster named: several (or no) hashing clusters is a usage error
    attempt([&] { return import_envoy(bytes, "fuzz", ""); });
  } catch (const std::invalid_argument&) {
  }
  attempt([&] { return import_envoy(bytes, "fuzz", "web"); });
  attempt([&] { return import_config("redis-cluster", bytes, "fuzz").scheme; });
  try {
    (void)twemproxy_server_from_line(bytes, "fuzz");
  } catch (const ringbloom::data_error&) {
  }
  return 0;
}
