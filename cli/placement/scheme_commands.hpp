// cli/placement/scheme_commands.hpp: the system schemes (nginx, haproxy,
// twemproxy, redis-cluster) in `ring import`, `ring lookup`, `ring diff` and
// `ring simulate`. ring_commands.cpp hands over to these when a topology
// file or --scheme names a system scheme.
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

/// Whether `scheme` is a system scheme, or `file` (if not empty) is a
/// topology whose "scheme" is one. Reads the file; throws what reading does.
/// Throws data_error "<source>: node name ... ; ..." unless every node name of
/// `p` follows the ring's rule (check_node_name: no control characters, no
/// commas, 1 to 256 bytes), so that `key<TAB>node` output stays one line.
void require_node_names(const placement& p, std::string_view source);

[[nodiscard]] bool uses_system_scheme(const std::string& scheme, const std::string& file);

/// `ring lookup` for a system scheme: from a topology file, or --scheme with
/// --nodes NAME[=W],... ; prints key<TAB>server (or JSON lines).
void run_scheme_lookup(const std::string& file, const std::string& scheme, const std::string& nodes,
                       std::size_t replicas, const std::vector<std::string>& keys, bool json);

/// `ring lookup` over the placement `p` (from a topology or a configuration).
void print_scheme_lookup(const placement& p, std::size_t replicas,
                         const std::vector<std::string>& keys, bool json);

/// `ring diff OLD NEW` for system schemes. `keys` is a count of generated
/// keys (key_format) or the path of a file of keys (one a line), whose moved
/// keys are then listed one by one.
void run_scheme_diff(const std::string& old_file, const std::string& new_file,
                     const std::string& keys, const std::string& key_format, bool json);

/// `ring diff` of two placements of one system (`old_name`, `new_name` name
/// them in messages): as run_scheme_diff.
void print_scheme_diff(const placement& before, const placement& after, const std::string& old_name,
                       const std::string& new_name, const std::string& keys,
                       const std::string& key_format, bool json);

/// `ring simulate --scheme SYSTEM`: balance and movement under that
/// system's rule when nodes are added or removed.
void run_scheme_simulate(const std::string& scheme, const std::string& nodes,
                         const std::string& add, const std::string& remove, std::uint64_t keys,
                         const std::string& key_format, bool json);

}  // namespace ringbloom::cli
