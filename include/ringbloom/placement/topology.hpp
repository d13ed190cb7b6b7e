// ringbloom/placement/topology.hpp: the topology file, from which any process builds
// the identical ring.
//
// What it is. A small versioned JSON document naming the scheme, the hash,
// the points per unit of weight and the nodes, each with a weight or with
// explicit tokens. Two processes that load the same file build rings that
// place every key identically. Example (the bytes save_topology writes):
//
//   {
//     "format": "ringbloom-topology",
//     "version": 1,
//     "scheme": "ring",
//     "hash": "xxh3",
//     "vnodes": 100,
//     "nodes": [
//       {"name": "a", "weight": 1},
//       {"name": "b", "tokens": [20, 55]}
//     ]
//   }
//
// Fields: "format" must be "ringbloom-topology"; "version" 1 (a reader
// refuses any other: a future change of meaning bumps it); "scheme" "ring"
// or "ketama"; "hash" a name from hash.hpp; "vnodes" >= 1; "nodes" an array
// of objects with a non-empty unique "name" and either "weight" (an integer
// >= 1, default 1) or "tokens" (a non-empty array of integers in
// [0, 2^64)). A ketama topology has hash "md5" and vnodes 160, and no tokens.
// Unknown members are refused too, so that a typo ("wieght") is not silently
// ignored. At most max_topology_points points in all. Node order is kept:
// it is the server order of ketama.
//
// Names and tokens (build_ring checks them, so files, the command line and
// library callers meet the same rules; docs/ring.md lists every refusal):
//   - a node name is 1 to max_node_name_bytes bytes with no control
//     character (bytes 0-31 and 127: tab, newline, carriage return, NUL ...)
//     and no comma, so that `key<TAB>node` lines and the comma-separated
//     `--replicas` lists stay parseable;
//   - no token appears twice, within a node or across nodes (two owners of
//     one position would be decided by name order, silently);
//   - no member appears twice in one JSON object ("format" or "weight"
//     given twice is refused, not decided by the last one);
//   - a topology file is read up to max_topology_bytes.
//
// Errors. Anything else is refused with ringbloom::data_error naming the
// problem and, for files, the path; OS failures are ringbloom::io_error.
//
// Example:
//
//   auto topo = ringbloom::load_topology("cluster.json");
//   ringbloom::hash_ring ring = ringbloom::build_ring(topo);
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/ring.hpp"

namespace ringbloom {

/// The only topology format version this library reads and writes.
inline constexpr int topology_version = 1;

/// The most points (vnodes x weight, or tokens, summed over the nodes) a
/// topology file may describe: 2^24, about 340 MB of ring. Real clusters are
/// far smaller (1,000 nodes x 256 vnodes is 2^18); the limit stops a short
/// malicious file from allocating gigabytes.
inline constexpr std::uint64_t max_topology_points = std::uint64_t{1} << 24;

/// The longest node name: 256 bytes (a 253-character DNS name with a port
/// fits; a hostile 50 MB name does not).
inline constexpr std::size_t max_node_name_bytes = 256;

/// The largest topology file read: 512 MiB (2^24 tokens of 20 digits fit).
inline constexpr std::uint64_t max_topology_bytes = std::uint64_t{1} << 29;

/// One node of a topology: a weight, or explicit tokens (then weight is
/// ignored).
struct topology_node {
  std::string name;
  std::uint32_t weight = 1;
  std::vector<std::uint64_t> tokens;
  friend bool operator==(const topology_node&, const topology_node&) = default;
};

/// A whole topology: the ring's options and its nodes in order.
struct topology {
  ring_options options;
  std::vector<topology_node> nodes;
  friend bool operator==(const topology&, const topology&) = default;
};

/// The ring described by `topo`. Throws data_error if a node is refused by
/// the ring (duplicate name, weight 0, tokens in a ketama ring ...) or by the
/// rules above (a bad name, a token given twice, more than
/// max_topology_points points), naming the node.
[[nodiscard]] hash_ring build_ring(const topology& topo);

/// The points the ring of `topo` would have (vnodes x weight, or the tokens,
/// summed; 160 per ketama server), computed without building it.
[[nodiscard]] std::uint64_t topology_points(const topology& topo) noexcept;

/// Throws std::invalid_argument, naming the name (escaped) and the rule,
/// unless `name` is a valid node name (see the top of this file).
void check_node_name(std::string_view name);

/// The topology that rebuilds `ring`.
[[nodiscard]] topology describe(const hash_ring& ring);

/// The JSON text of `topo` (pretty, two-space indent, a final newline).
/// Stable: the same topology always gives the same bytes.
[[nodiscard]] std::string to_json(const topology& topo);

/// Parses topology JSON and checks every rule above. Throws data_error.
/// `source` names the input in messages (a path, or "standard input").
[[nodiscard]] topology parse_topology(std::string_view json, std::string_view source = "topology");

/// Reads and parses the file `path`. Throws io_error or data_error.
[[nodiscard]] topology load_topology(const std::filesystem::path& path);

/// Writes `topo` to `path` atomically (a crash leaves the old or the new
/// file, never a torn one). Checks first that it builds a valid ring.
void save_topology(const std::filesystem::path& path, const topology& topo);

/// Under an exclusive lock of the existing file `path`, loads it, applies
/// `change` and saves the result, so that concurrent updaters never lose each
/// other's changes. If `change` throws, the file is untouched. A change
/// that leaves no node is refused (std::invalid_argument): a ring needs a
/// node to place keys, and every later command would refuse the file.
void update_topology(const std::filesystem::path& path,
                     const std::function<void(topology&)>& change);

}  // namespace ringbloom
