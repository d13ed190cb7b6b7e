// ringbloom/placement/open.hpp: one front door from a file to a placement.
//
// What it is. open_placement reads a topology file of any scheme, a native
// ring's (`ringbloom ring init`) or a system scheme's (`ringbloom ring
// import`), and returns the one `placement` (placement.hpp) that places its
// keys: a ring_placement, or the system's scheme. A system's own
// configuration (nginx.conf, haproxy.cfg, nutcracker.yml, Envoy YAML,
// nodetool ring, CLUSTER NODES/SLOTS) comes in through
// schemes::import_config_file (schemes/config_import.hpp) instead; both end
// in a placement, so lookups, diffs and movement (change.hpp) take either.
//
// Guarantees: the placement has at least one node, and every node name
// follows the ring's rule (check_node_name), so `key<TAB>node` output stays
// one line. A native ring topology is checked as load_topology checks it
// (at most max_topology_points points).
//
// Errors: data_error "FILE: ...; ..." for a bad or empty topology, io_error
// for the OS.
//
// Example:
//
//   std::unique_ptr<ringbloom::placement> p = ringbloom::open_placement("cluster.json");
//   const std::string& node = p->node_for("user:42");
#pragma once

#include <filesystem>
#include <memory>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

/// Whether `path` is a topology of a system scheme (nginx, haproxy,
/// twemproxy, envoy, redis-cluster, cassandra ...) rather than a native
/// ring's. Reads the file; throws what reading and topology_scheme throw.
[[nodiscard]] bool is_system_topology(const std::filesystem::path& path);

/// The placement of the topology file `path` (see the header).
[[nodiscard]] std::unique_ptr<placement> open_placement(const std::filesystem::path& path);

}  // namespace ringbloom
