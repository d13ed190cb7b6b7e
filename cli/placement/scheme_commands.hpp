// cli/placement/scheme_commands.hpp: printing `ring lookup` over any
// placement, and the system schemes (nginx, haproxy, twemproxy,
// redis-cluster, envoy, cassandra) in `ring import`, `ring diff` and `ring
// simulate`. ring_commands.cpp hands over to these when a topology file,
// --from or --scheme names a system scheme.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom::cli {

/// `ring import SYSTEM FILE ... -o T.json` (import_command.cpp).
void add_ring_import(CLI::App& ring);

/// A system's configuration file and the section of it to read: what
/// `ring import` reads, and `ring lookup --from` / `ring diff --from` too.
struct config_source {
  std::string system;  // nginx, haproxy, twemproxy, envoy, redis-cluster, cassandra
  std::string file;
  std::string upstream;  // nginx
  std::string backend;   // haproxy
  std::string pool;      // twemproxy
  std::string cluster;   // envoy
  std::uint32_t rf = 1;  // cassandra: SimpleStrategy factor ...
  std::string dc_rf;     // ... or NetworkTopologyStrategy DC=N,...
};

/// The placement `source` describes, read by the same parser as `ring
/// import`. Throws data_error "FILE:LINE: ...; ..." for a bad file and
/// usage_error for an unknown system or a missing section name.
[[nodiscard]] std::unique_ptr<placement> import_config(const config_source& source);

/// Adds --upstream, --backend, --pool, --cluster, --rf and --dc-rf to `cmd`;
/// with `from` (the command's --from), each of them needs it.
void add_config_options(CLI::App& cmd, config_source& source, CLI::Option* from);

/// The placement of system scheme `scheme` holding --nodes `nodes`
/// (NAME[=W],... or a count; node_list.hpp). Throws usage_error when `nodes`
/// is empty or the scheme refuses a node.
[[nodiscard]] std::unique_ptr<placement> scheme_from_nodes(const std::string& scheme,
                                                           const std::string& nodes);

/// `ring lookup` over the placement `p` (a topology, a configuration or
/// --nodes): key<TAB>node, or key<TAB>node,node,... with --replicas (a native
/// ring lists the nodes for any --replicas, a system scheme from 2, and
/// refuses it when it places a key on one server); JSON lines with `json`.
void print_lookup(const placement& p, std::size_t replicas, bool native_ring,
                  const std::vector<std::string>& keys, bool json);

/// Whether a --keys value names a file of keys rather than a count.
[[nodiscard]] bool is_keys_file(const std::string& keys);

/// `ring diff` of two placements of one system, or of two native rings with
/// a --keys FILE (`old_name`, `new_name` name them in messages): the keys'
/// movement by flow, and with a keys file the moved keys.
void print_scheme_diff(const placement& before, const placement& after, const std::string& old_name,
                       const std::string& new_name, const std::string& keys,
                       const std::string& key_format, bool json);

/// `ring simulate --scheme SYSTEM`: balance and movement under that
/// system's rule when nodes are added or removed.
void run_scheme_simulate(const std::string& scheme, const std::string& nodes,
                         const std::string& add, const std::string& remove, std::uint64_t keys,
                         const std::string& key_format, bool json);

}  // namespace ringbloom::cli
