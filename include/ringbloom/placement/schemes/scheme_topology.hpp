// ringbloom/placement/schemes/scheme_topology.hpp: topology files of the
// system schemes (nginx, haproxy, twemproxy, redis-cluster), what
// `ring import` writes and `ring lookup --ring` / `ring diff` read.
//
// What it is. The topology document of topology.hpp, with a system scheme in
// "scheme" and that system's own settings. The same envelope and version (a
// reader that does not know a scheme refuses the file, so no version bump is
// needed to add one). The bytes scheme_topology_json writes:
//
//   {
//     "format": "ringbloom-topology",
//     "version": 1,
//     "scheme": "haproxy",
//     "hash": "sdbm",                  // haproxy: sdbm|djb2|wt6|crc32;
//     "avalanche": true,               //   twemproxy: md5|fnv1a_64|fnv1_64|fnv1a_32|fnv1_32
//     "nodes": [
//       {"name": "s1", "weight": 1},
//       {"name": "s2", "weight": 2, "id": 7}           // haproxy: explicit `id`
//     ]
//   }
//
// Per scheme: nginx nodes {"name": server text, "weight" >= 1}, no other
// member; haproxy "hash", "avalanche", nodes {"name", "weight" 0..256, "id"?},
// and what a key is when it is not its bytes: "key": "uri" (with "uri_whole",
// "uri_len", "uri_depth" when set), "source" or "header" (haproxy_key);
// twemproxy "hash", nodes {"name" (hashed verbatim), "weight" >= 1};
// redis-cluster nodes {"name": "ip:port", "slots": [[first, last], ...]}.
// Node order is the configuration order and is kept (it decides nginx and
// twemproxy ties and HAProxy's automatic ids). Unknown members are refused.
//
// Errors: data_error naming the file and the problem; io_error for the OS.
//
// Example:
//
//   auto p = ringbloom::schemes::load_scheme_topology("backend.json");
//   std::cout << p->node_for("user:42") << '\n';
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom::schemes {

/// The system schemes this folder implements, as the CLI spells them.
[[nodiscard]] std::span<const std::string_view> system_scheme_names() noexcept;
[[nodiscard]] bool is_system_scheme(std::string_view name) noexcept;

/// The "scheme" member of a topology document (any scheme, also "ring"), or
/// data_error if the text is not a JSON object with a string "scheme".
[[nodiscard]] std::string topology_scheme(std::string_view json, std::string_view source);

/// Parses a system-scheme topology and builds its placement. Throws
/// data_error for anything the format above refuses, including what the
/// scheme itself refuses (duplicate names, weights out of range...).
[[nodiscard]] std::unique_ptr<placement> parse_scheme_topology(std::string_view json,
                                                               std::string_view source);

/// Reads and parses `path`. Throws io_error or data_error.
[[nodiscard]] std::unique_ptr<placement> load_scheme_topology(const std::filesystem::path& path);

/// The topology text of `p` (an nginx, haproxy, twemproxy or redis-cluster
/// placement); std::invalid_argument for any other placement, data_error
/// when a node name is not valid UTF-8. Stable bytes.
[[nodiscard]] std::string scheme_topology_json(const placement& p);

/// Writes scheme_topology_json(p) to `path` atomically.
void save_scheme_topology(const std::filesystem::path& path, const placement& p);

/// A placement of `scheme` from a plain node list, with each system's
/// defaults: haproxy `hash-type consistent` (sdbm, avalanche) and automatic
/// ids; twemproxy fnv1a_64; redis-cluster redis-cli's even split (weights
/// must be 1). Throws std::invalid_argument for an unknown scheme or a node
/// the scheme refuses.
[[nodiscard]] std::unique_ptr<placement> make_scheme_placement(
    std::string_view scheme, const std::vector<placement_node>& nodes);

}  // namespace ringbloom::schemes
