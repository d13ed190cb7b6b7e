// ringbloom/placement/schemes/config_import.hpp: read a system's own
// configuration (or status output) into the scheme that places its keys.
//
// What it reads:
//   - nginx.conf: the `upstream NAME { hash KEY consistent; server ...; }`
//     block (at any depth), following `include` as nginx does when read from
//     a path. Server text as written, `weight=N`.
//   - haproxy.cfg: the `backend NAME` (or `listen NAME`) section, with the
//     `hash-type`, `balance`, `default-server` and run-time settings it
//     inherits from its defaults (the section `from NAME` names, else the
//     last `defaults` before it). `server NAME ADDR [weight N] [id N]` and
//     `server-template`. What a key is follows `balance` (haproxy_key).
//   - nutcracker.yml (twemproxy): one pool, `distribution: ketama`, its
//     `hash`, its `servers:` ("host:port:weight [name]", one entry read by
//     twemproxy_server_from_line).
//   - Envoy YAML: a cluster (in a bootstrap's static_resources.clusters, a
//     top-level clusters list, or alone) with lb_policy RING_HASH or MAGLEV.
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
// servers, a non-consistent balance, Envoy DNS clusters ...) are refused with
// the reason, never ignored; docs/placement.md lists every setting of each
// system. With no section named, a file's only section that hashes is read
// (imported_config::notes says which); with several, the refusal lists them.
//
// The front door is import_config (text) and import_config_file (a path):
// the system by name, the section to read, and every rule that refuses a
// file (control bytes, a missing section name, node names the ring would
// refuse) in one place, used by `ringbloom ring import`, `ring lookup
// --from`, `ring diff --from` and Python's ringbloom.import_config. The two
// YAML readers (twemproxy, Envoy) use yaml-cpp, a private dependency of the
// library; a build without it refuses those two systems with what to install
// (reads_yaml() tells).
//
// Errors: data_error "FILE:LINE: what is wrong; what to do". Nothing is
// returned from a file with an error.
//
// Example:
//
//   ringbloom::schemes::config_options o;
//   o.section = "backend";
//   auto up = ringbloom::schemes::import_config_file("nginx", "nginx.conf", o);
//   ringbloom::schemes::save_scheme_topology("backend.json", *up.scheme);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace ringbloom::schemes {

/// The upstream `upstream` of nginx.conf text `text` (`source` names it in
/// messages) as an nginx_placement. With `include_directory` (the directory
/// of the main nginx.conf), `include` directives are followed as nginx
/// follows them: relative patterns from that directory, wildcards in sorted
/// order, a missing file without wildcards refused; without it they are not
/// followed, and a missing upstream says so.
[[nodiscard]] std::unique_ptr<placement> import_nginx(std::string_view text,
                                                      std::string_view source,
                                                      std::string_view upstream,
                                                      const std::string& include_directory = {});

/// The upstreams of nginx.conf text with a `hash KEY consistent` directive,
/// in file order: the ones import_nginx may read.
[[nodiscard]] std::vector<std::string> nginx_hashing_upstreams(
    std::string_view text, std::string_view source, const std::string& include_directory = {});

/// The backend `backend` of haproxy.cfg text as a haproxy_placement, with
/// what it inherits from its defaults section (the one `from NAME` names,
/// else the last one before it). A setting the placement reproduces but a
/// reader should know of (a server-template's slots) is appended to `notes`.
[[nodiscard]] std::unique_ptr<placement> import_haproxy(std::string_view text,
                                                        std::string_view source,
                                                        std::string_view backend,
                                                        std::vector<std::string>& notes);
[[nodiscard]] std::unique_ptr<placement> import_haproxy(std::string_view text,
                                                        std::string_view source,
                                                        std::string_view backend);

/// The backends (and listen sections) of haproxy.cfg text that hash with
/// `hash-type consistent` and a hashing `balance`, in file order: the ones
/// import_haproxy may read.
[[nodiscard]] std::vector<std::string> haproxy_hashing_backends(std::string_view text,
                                                                std::string_view source);

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

/// The nodes of `nodetool ring` output (3.11 to 5.0 and DSE, one or several
/// data centres, with the Warning/Note lines nodetool prints around the
/// table) as a cassandra_placement with `replication`. A Joining node is left
/// out (its tokens own no key until it is Normal); Down, Leaving and Moving
/// nodes still own their tokens and are placed. Each is named in `notes`.
/// Throws std::invalid_argument when `replication` names a data centre the
/// ring does not have.
[[nodiscard]] std::unique_ptr<placement> import_nodetool_ring(
    std::string_view text, std::string_view source, const cassandra_replication& replication,
    std::vector<std::string>& notes);
[[nodiscard]] std::unique_ptr<placement> import_nodetool_ring(
    std::string_view text, std::string_view source, const cassandra_replication& replication);

/// The pool `pool` of nutcracker.yml text (empty: the file's only pool) as
/// a twemproxy_placement. A setting the placement ignores but a reader
/// should know of (auto_eject_hosts) is appended to `notes` as a sentence.
/// Throws data_error "SOURCE:LINE: ..." (also for a value of the wrong type),
/// std::invalid_argument when `pool` is empty and the file has several.
[[nodiscard]] std::unique_ptr<placement> import_twemproxy(std::string_view text,
                                                          std::string_view source,
                                                          std::string_view pool,
                                                          std::vector<std::string>& notes);

/// The cluster `cluster` (empty: the first) of an Envoy YAML as an
/// envoy_ring_hash_placement or envoy_maglev_placement. Refuses what Envoy
/// does at run time and the scheme does not model (hash_balance_factor,
/// locality weighting, priorities above 0, MURMUR_HASH_2).
[[nodiscard]] std::unique_ptr<placement> import_envoy(std::string_view text,
                                                      std::string_view source,
                                                      std::string_view cluster);

/// Whether this build reads the YAML systems (twemproxy, Envoy).
[[nodiscard]] bool reads_yaml() noexcept;

/// The systems import_config reads, in the order its messages list them:
/// nginx, haproxy, twemproxy, redis-cluster, cassandra, envoy.
[[nodiscard]] std::span<const std::string_view> config_systems() noexcept;

/// The largest configuration import_config_file reads (a real one is a few
/// kilobytes): 16 MiB.
inline constexpr std::uint64_t max_config_bytes = std::uint64_t{16} << 20;

/// The largest replication factor a front end accepts (`--rf`, `--dc-rf`,
/// Python's rf= and dc_rf=): far above any real keyspace's, low enough that
/// a replica list stays small.
inline constexpr std::uint32_t max_replication_factor = 100'000;

/// Cassandra's replication from data-centre factors, as the keyspace's
/// NetworkTopologyStrategy gives them. A factor may be 0 (no replica in that
/// data centre), but not every one: a keyspace without any replica places
/// nothing. `what` names the factors in the message (e.g. "--dc-rf
/// 'dc1=0'"). Throws std::invalid_argument "WHAT gives every data centre
/// replication factor 0, ...; ...".
[[nodiscard]] cassandra_replication replication_from_factors(
    std::map<std::string, std::uint32_t> per_datacenter, std::string_view what);

/// NetworkTopologyStrategy factors written as text, "DC=N,..." (`ring
/// import cassandra --dc-rf dc1=3,dc2=2`): each data centre once, each N from
/// 0 (no replica there) to max_replication_factor, not every one 0
/// (replication_from_factors). `what` names the text's option in messages
/// ("--dc-rf"). Throws std::invalid_argument, e.g. "--dc-rf 'dc1=x' must be
/// an integer from 0 to 100000, got 'x'; give each data centre ...".
///
///   parse_datacenter_factors("dc1=3,dc2=0", "--dc-rf").per_datacenter.at("dc1") == 3
[[nodiscard]] cassandra_replication parse_datacenter_factors(std::string_view text,
                                                             std::string_view what);

/// What import_config reads besides the text.
struct config_options {
  /// The section: nginx's upstream and HAProxy's backend (both required),
  /// twemproxy's pool and Envoy's cluster (optional).
  std::string section;
  /// Cassandra: the keyspace's replication (nodetool ring does not show it).
  cassandra_replication replication = cassandra_replication::simple(1);
  /// How the caller's user gives the section, for the message when it is
  /// missing (default: the command line's "--upstream NAME" / "--backend NAME").
  std::string section_option;
  /// nginx: the directory `include` patterns are relative to (the main
  /// nginx.conf's); empty: includes are not followed. import_config_file
  /// sets it to the file's directory.
  std::string include_directory;
};

/// A configuration read: the placement, and notes on settings it models as
/// the system runs when all is well (print them; they are not errors).
struct imported_config {
  std::unique_ptr<placement> scheme;
  std::vector<std::string> notes;
};

/// Reads `text`, a configuration (or status output) of `system` (one of
/// config_systems()), `source` naming it in messages. Refuses a control byte
/// other than tab and CR (binary or compressed data) at SOURCE:LINE, and
/// node names the ring's rule refuses (check_node_name). Throws
/// std::invalid_argument for an unknown system or a missing section name,
/// data_error "SOURCE:LINE: ...; what to do" for a bad file.
[[nodiscard]] imported_config import_config(std::string_view system, std::string_view text,
                                            std::string_view source,
                                            const config_options& options = {});

/// import_config of the file at `path` (at most max_config_bytes; the path
/// names it in messages). Throws io_error when it cannot be read.
[[nodiscard]] imported_config import_config_file(std::string_view system, const std::string& path,
                                                 const config_options& options = {});

}  // namespace ringbloom::schemes
