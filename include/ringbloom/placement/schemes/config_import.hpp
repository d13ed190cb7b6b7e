// ringbloom/placement/schemes/config_import.hpp: read a system's own
// configuration (or status output) into the scheme that places its keys.
//
// What it reads:
//   - nginx.conf: the `upstream NAME { hash KEY consistent; server ...; }`
//     block (at any depth; `include` is not followed and is refused when it
//     appears inside the upstream). Server text as written, `weight=N`.
//   - haproxy.cfg: the `backend NAME` (or `listen NAME`) section, with the
//     `hash-type` and `default-server weight` it inherits from the last
//     `defaults` section before it. `server NAME ADDR [weight N] [id N]`.
//   - one `servers:` entry of nutcracker.yml ("host:port:weight [name]"):
//     twemproxy_server_from_line; the YAML itself is read by the caller.
//   - `redis-cli CLUSTER NODES` output: masters with their slot ranges.
//   - `redis-cli CLUSTER SLOTS` output, in the three forms redis-cli prints:
//     raw (its default when the output is a file or a pipe: one value a line),
//     the terminal rendering (`1) 1) (integer) 0`, also with --no-raw) and
//     --json. The first node of each entry is the master; replicas are read
//     past. import_redis_cluster tells NODES and the SLOTS forms apart by
//     their first line (see detect_redis_cluster_output).
//   - `nodetool ring` output: each node's address, data centre, rack and
//     tokens (the lines under "Datacenter: NAME"), with the replication
//     given by the caller (nodetool ring does not show it).
// Settings that change placement but that the scheme does not reproduce
// (nginx `down`/`backup`, HAProxy `hash-balance-factor`, backup or disabled
// servers, a non-consistent balance) are refused with the reason, never
// ignored.
//
// Errors: data_error "FILE:LINE: what is wrong; what to do". Nothing is
// returned from a file with an error.
//
// Example:
//
//   auto up = ringbloom::schemes::import_nginx(text, "nginx.conf", "backend");
//   ringbloom::schemes::save_scheme_topology("backend.json", *up);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace ringbloom::schemes {

/// The upstream `upstream` of nginx.conf text `text` (`source` names it in
/// messages) as an nginx_placement.
[[nodiscard]] std::unique_ptr<placement> import_nginx(std::string_view text,
                                                      std::string_view source,
                                                      std::string_view upstream);

/// The backend `backend` of haproxy.cfg text as a haproxy_placement.
[[nodiscard]] std::unique_ptr<placement> import_haproxy(std::string_view text,
                                                        std::string_view source,
                                                        std::string_view backend);

/// One nutcracker.yml server entry, "host:port:weight [name]" or
/// "/path/to/socket:weight [name]", as the server ketama hashes. `where`
/// prefixes messages ("nutcracker.yml:12").
[[nodiscard]] twemproxy_server twemproxy_server_from_line(std::string_view line,
                                                          std::string_view where);

/// The masters of `CLUSTER NODES` output as a redis_cluster_placement.
[[nodiscard]] std::unique_ptr<placement> import_redis_cluster_nodes(std::string_view text,
                                                                    std::string_view source);

/// The forms of Redis Cluster output that import_redis_cluster reads.
enum class redis_cluster_output {
  nodes,       // CLUSTER NODES: "ID IP:PORT@CPORT FLAGS ..." lines
  slots_raw,   // CLUSTER SLOTS, `redis-cli cluster slots > FILE`: a number first
  slots_tty,   // CLUSTER SLOTS as shown on a terminal (or --no-raw): "1) 1) (integer) 0"
  slots_json,  // CLUSTER SLOTS, `redis-cli --json cluster slots`: "[[0,5460,[...]]]"
};

/// The form of `text`, from its first non-empty line: "[" JSON, "1) " the
/// terminal rendering, a number raw CLUSTER SLOTS, anything else CLUSTER NODES.
[[nodiscard]] redis_cluster_output detect_redis_cluster_output(std::string_view text);

/// The masters of CLUSTER SLOTS output (raw, terminal or JSON form), each
/// reported as "host:port" with the host as the reply gives it. Slots no
/// entry lists have no owner. Throws data_error "SOURCE:LINE: ..." for a cut
/// or malformed reply, a slot listed twice, a port outside 1-65535, an
/// unknown endpoint ("?"), or a Redis error reply saved in the file.
[[nodiscard]] std::unique_ptr<placement> import_redis_cluster_slots(std::string_view text,
                                                                    std::string_view source);

/// CLUSTER NODES or CLUSTER SLOTS output, whichever `text` is.
[[nodiscard]] std::unique_ptr<placement> import_redis_cluster(std::string_view text,
                                                              std::string_view source);

/// The nodes of `nodetool ring` output as a cassandra_placement with
/// `replication`.
[[nodiscard]] std::unique_ptr<placement> import_nodetool_ring(
    std::string_view text, std::string_view source, const cassandra_replication& replication);

}  // namespace ringbloom::schemes
