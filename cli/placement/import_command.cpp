// `ringbloom ring import SYSTEM FILE ... -o T.json`: a system's own
// configuration (or status output) in, a topology file out.
//
//   ring import nginx FILE --upstream NAME -o T.json
//   ring import haproxy FILE --backend NAME -o T.json
//   ring import twemproxy FILE --pool NAME -o T.json      (nutcracker.yml)
//   ring import envoy FILE --cluster NAME -o T.json
//   ring import cassandra FILE [--rf N|--dc-rf DC=N,...] -o T.json  (nodetool ring)
//   ring import redis-cluster FILE -o T.json    (CLUSTER NODES or CLUSTER SLOTS output)
//
// import_config() is the one reader of these files: `ring lookup --from` and
// `ring diff --from` call it too.
//
// The parsing and every check live in ringbloom/placement/schemes/
// config_import.hpp; nutcracker.yml is read here with yaml-cpp (a CLI-only
// dependency, so that the library keeps OpenSSL as its only one). Errors
// name FILE:LINE and exit 3; nothing is written then.
#include <fmt/core.h>

#include <charconv>
#include <map>
#include <memory>
#include <string>

#if defined(RINGBLOOM_HAVE_YAML_CPP)
#include <yaml-cpp/yaml.h>
#endif

#include "common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "scheme_commands.hpp"

namespace ringbloom::cli {
namespace {

struct import_options {
  config_source source;
  std::string output;
  bool json = false;
};

// --rf N (SimpleStrategy) or --dc-rf DC=N,... (NetworkTopologyStrategy). As
// in Cassandra, a data centre's factor may be 0 (no replica there; the
// placement skips it), but not every one: a keyspace without any replica
// places nothing. A data centre given twice is refused, not overwritten.
constexpr std::uint32_t max_dc_rf = 100'000;  // as --rf

schemes::cassandra_replication replication_from(const config_source& o) {
  if (o.dc_rf.empty()) return schemes::cassandra_replication::simple(o.rf);
  std::map<std::string, std::uint32_t> per_dc;
  std::string_view rest = o.dc_rf;
  std::uint64_t replicas = 0;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw usage_error(
          fmt::format("--dc-rf '{}' is not DC=N; write e.g. --dc-rf dc1=3,dc2=2", printable(item)));
    }
    const std::string dc(item.substr(0, eq));
    const std::uint32_t rf = parse_number(
        item.substr(eq + 1), fmt::format("--dc-rf '{}'", printable(item)),
        between<std::uint32_t>(0, max_dc_rf),
        "give each data centre a replication factor from 0 (no replica there) to 100000, "
        "e.g. --dc-rf dc1=3,dc2=2");
    if (!per_dc.emplace(dc, rf).second) {
      throw usage_error(fmt::format(
          "--dc-rf names data centre '{}' twice; give each data centre once", printable(dc)));
    }
    replicas += rf;
  }
  if (replicas == 0) {
    throw usage_error(fmt::format(
        "--dc-rf '{}' gives every data centre replication factor 0, so no key would have a "
        "replica; give at least one data centre a factor of 1 or more",
        printable(o.dc_rf)));
  }
  return schemes::cassandra_replication::network(std::move(per_dc));
}

#if defined(RINGBLOOM_HAVE_YAML_CPP)
std::unique_ptr<placement> import_twemproxy(const std::string& text, const std::string& file,
                                            const std::string& pool_name) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw data_error(
        fmt::format("{}:{}: not valid YAML ({}); fix the file", file, e.mark.line + 1, e.msg));
  }
  if (!doc.IsMap())
    throw data_error(fmt::format("{}:1: expected pools (a YAML mapping) at the top", file));
  std::string name = pool_name;
  if (name.empty()) {
    if (doc.size() != 1) {
      throw usage_error(fmt::format("{} has {} pools; name one with --pool", file, doc.size()));
    }
    name = doc.begin()->first.as<std::string>();
  }
  const YAML::Node pool = doc[name];
  if (!pool)
    throw data_error(fmt::format(
        "{}: no pool '{}'; give the name of a pool of the file with --pool", file, name));
  const auto line_of = [&](const YAML::Node& n) { return n.Mark().line + 1; };
  if (!pool.IsMap())
    throw data_error(fmt::format("{}:{}: pool '{}' is not a mapping", file, line_of(pool), name));
  const std::string distribution =
      pool["distribution"] ? pool["distribution"].as<std::string>() : "ketama";
  if (distribution != "ketama") {
    throw data_error(
        fmt::format("{}:{}: pool '{}' uses 'distribution: {}'; the twemproxy scheme reproduces "
                    "ketama only",
                    file, line_of(pool["distribution"]), name, distribution));
  }
  const std::string hash = pool["hash"] ? pool["hash"].as<std::string>() : "fnv1a_64";
  const auto function = schemes::find_twemproxy_hash(hash);
  if (!function) {
    throw data_error(
        fmt::format("{}:{}: 'hash: {}' is not one the twemproxy scheme reproduces (md5, fnv1a_64, "
                    "fnv1_64, fnv1a_32, fnv1_32)",
                    file, line_of(pool["hash"]), hash));
  }
  if (pool["hash_tag"]) {
    throw data_error(fmt::format(
        "{}:{}: 'hash_tag' hashes part of each key, which the twemproxy scheme does not "
        "model; remove it to import the pool",
        file, line_of(pool["hash_tag"])));
  }
  if (pool["auto_eject_hosts"] && pool["auto_eject_hosts"].as<std::string>() == "true") {
    fmt::print(stderr,
               "ringbloom: note: {}: pool '{}' ejects failing servers (auto_eject_hosts); the "
               "topology places keys "
               "as when every server is up\n",
               file, name);
  }
  const YAML::Node servers = pool["servers"];
  if (!servers || !servers.IsSequence() || servers.size() == 0) {
    throw data_error(
        fmt::format("{}:{}: pool '{}' has no 'servers:' list", file, line_of(pool), name));
  }
  std::vector<schemes::twemproxy_server> list;
  for (const YAML::Node& entry : servers) {
    const std::string where = fmt::format("{}:{}", file, line_of(entry));
    schemes::twemproxy_server s =
        schemes::twemproxy_server_from_line(entry.as<std::string>(), where);
    for (const auto& other : list) {
      if (other.name == s.name) {
        throw data_error(fmt::format("{}: server name '{}' is used twice; nutcracker refuses that",
                                     where, s.name));
      }
    }
    list.push_back(std::move(s));
  }
  try {
    return std::make_unique<schemes::twemproxy_placement>(*function, std::move(list));
  } catch (const std::invalid_argument& e) {
    throw data_error(fmt::format("{}: {}", file, e.what()));
  }
}
// An Envoy cluster (a bootstrap's static_resources.clusters, a top-level
// clusters list, or one cluster) with lb_policy RING_HASH or MAGLEV.
std::unique_ptr<placement> import_envoy(const std::string& text, const std::string& file,
                                        const std::string& name) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw data_error(
        fmt::format("{}:{}: not valid YAML ({}); fix the file", file, e.mark.line + 1, e.msg));
  }
  const auto line_of = [&](const YAML::Node& n) { return n.Mark().line + 1; };
  const auto fail = [&](const YAML::Node& n, const std::string& what) -> data_error {
    return data_error(fmt::format("{}:{}: {}", file, n.IsDefined() ? line_of(n) : 1, what));
  };
  YAML::Node clusters;
  if (doc["static_resources"] && doc["static_resources"]["clusters"]) {
    clusters = doc["static_resources"]["clusters"];
  } else if (doc["clusters"]) {
    clusters = doc["clusters"];
  } else if (doc["name"]) {
    clusters.push_back(doc);
  }
  YAML::Node cluster;
  for (const YAML::Node& c : clusters) {
    if (c["name"] && (name.empty() || c["name"].as<std::string>() == name)) {
      cluster = c;
      break;
    }
  }
  if (!cluster)
    throw data_error(fmt::format(
        "{}: no cluster '{}'; name one of the file's clusters with --cluster", file, name));
  const std::string policy =
      cluster["lb_policy"] ? cluster["lb_policy"].as<std::string>() : "ROUND_ROBIN";
  if (policy != "RING_HASH" && policy != "MAGLEV") {
    throw fail(
        cluster["lb_policy"],
        fmt::format(
            "lb_policy {} places no key by hash; the envoy schemes read RING_HASH and MAGLEV",
            policy));
  }
  const YAML::Node common = cluster["common_lb_config"];
  bool by_hostname = false;
  if (common) {
    const YAML::Node chc = common["consistent_hashing_lb_config"];
    if (chc && chc["use_hostname_for_hashing"])
      by_hostname = chc["use_hostname_for_hashing"].as<bool>();
    if (chc && chc["hash_balance_factor"] && chc["hash_balance_factor"].as<std::uint32_t>() != 0) {
      throw fail(chc["hash_balance_factor"],
                 "hash_balance_factor bounds each host's load and moves keys off busy hosts at run "
                 "time, which "
                 "ringbloom does not model; remove it to import the plain placement");
    }
    if (common["locality_weighted_lb_config"]) {
      throw fail(common["locality_weighted_lb_config"],
                 "locality weighting is not modelled; remove it to import");
    }
  }
  std::vector<schemes::envoy_host> hosts;
  const YAML::Node localities = cluster["load_assignment"]["endpoints"];
  if (!localities || !localities.IsSequence())
    throw fail(cluster, "the cluster has no load_assignment.endpoints");
  for (const YAML::Node& locality : localities) {
    if (locality["priority"] && locality["priority"].as<std::uint32_t>() != 0) {
      throw fail(locality["priority"],
                 "endpoints of priority > 0 (failover) are not modelled; remove them to import");
    }
    for (const YAML::Node& lb : locality["lb_endpoints"]) {
      const YAML::Node endpoint = lb["endpoint"];
      const YAML::Node socket = endpoint["address"]["socket_address"];
      if (!socket || !socket["address"] || !socket["port_value"]) {
        throw fail(lb, "an endpoint has no address.socket_address with address and port_value");
      }
      std::string host;
      if (by_hostname) {
        if (!endpoint["hostname"])
          throw fail(endpoint, "use_hostname_for_hashing is on but the endpoint has no hostname");
        host = endpoint["hostname"].as<std::string>();
      } else {
        const std::string address = socket["address"].as<std::string>();
        const std::string port = socket["port_value"].as<std::string>();
        host = address.find(':') != std::string::npos ? "[" + address + "]:" + port
                                                      : address + ":" + port;
      }
      std::uint32_t weight = 1;
      if (lb["load_balancing_weight"]) weight = lb["load_balancing_weight"].as<std::uint32_t>();
      if (weight == 0 || weight > 128)
        throw fail(lb["load_balancing_weight"], "load_balancing_weight is not in Envoy's 1..128");
      for (const auto& other : hosts) {
        if (other.name == host) throw fail(lb, fmt::format("host {} is listed twice", host));
      }
      hosts.push_back({host, weight});
    }
  }
  try {
    if (policy == "MAGLEV") {
      const YAML::Node config = cluster["maglev_lb_config"];
      const std::uint64_t size = config && config["table_size"]
                                     ? config["table_size"].as<std::uint64_t>()
                                     : schemes::envoy_maglev_placement::default_table_size;
      return std::make_unique<schemes::envoy_maglev_placement>(std::move(hosts), size);
    }
    const YAML::Node config = cluster["ring_hash_lb_config"];
    if (config && config["hash_function"] &&
        config["hash_function"].as<std::string>() != "XX_HASH") {
      throw fail(config["hash_function"],
                 "hash_function MURMUR_HASH_2 is not reproduced; only XX_HASH (the default)");
    }
    const std::uint64_t min = config && config["minimum_ring_size"]
                                  ? config["minimum_ring_size"].as<std::uint64_t>()
                                  : schemes::envoy_ring_hash_placement::default_minimum_ring_size;
    const std::uint64_t max = config && config["maximum_ring_size"]
                                  ? config["maximum_ring_size"].as<std::uint64_t>()
                                  : schemes::envoy_ring_hash_placement::default_maximum_ring_size;
    return std::make_unique<schemes::envoy_ring_hash_placement>(std::move(hosts), min, max);
  } catch (const std::invalid_argument& e) {
    throw data_error(fmt::format("{}:{}: {}", file, line_of(cluster), e.what()));
  } catch (const YAML::Exception& e) {
    throw data_error(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
}
#else
std::unique_ptr<placement> import_envoy(const std::string&, const std::string& file,
                                        const std::string&) {
  throw data_error(
      fmt::format("{}: this ringbloom was built without yaml-cpp and cannot read Envoy YAML; "
                  "install libyaml-cpp-dev (scripts/install-deps) and rebuild",
                  file));
}
std::unique_ptr<placement> import_twemproxy(const std::string&, const std::string& file,
                                            const std::string&) {
  throw data_error(
      fmt::format("{}: this ringbloom was built without yaml-cpp and cannot read nutcracker.yml; "
                  "install libyaml-cpp-dev (scripts/install-deps) and rebuild",
                  file));
}
#endif

std::string unknown_system(const std::string& system) {
  return fmt::format(
      "'{}' is not a system whose configuration ringbloom reads; give nginx, haproxy, "
      "twemproxy, redis-cluster, cassandra or envoy",
      system);
}

/// The largest configuration file read (a real one is a few kilobytes).
constexpr std::uint64_t max_config_bytes = std::uint64_t{16} << 20;

/// Refuses a configuration holding a control byte (other than tab and CR):
/// binary or compressed data, never a text configuration.
void refuse_binary(std::string_view text, const std::string& file) {
  std::uint64_t line = 1;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line;
    } else if ((byte < 0x20 && c != '\t' && c != '\r') || byte == 0x7f) {
      throw data_error(fmt::format(
          "{}:{}: holds the control byte {:#04x}, which no text configuration has; give the "
          "text file itself (not a binary or compressed one)",
          file, line, byte));
    }
  }
}

/// The placement of `o`, without the YAML type errors wrapped.
std::unique_ptr<placement> read_config(const config_source& o) {
  const std::string text = io::read_file(o.file, max_config_bytes);
  refuse_binary(text, o.file);
  std::unique_ptr<placement> p;
  const auto require = [&](const std::string& value, const char* flag) {
    if (value.empty())
      throw usage_error(
          fmt::format("{} {} needs {} NAME; name the section to read", o.system, o.file, flag));
  };
  if (o.system == "nginx") {
    require(o.upstream, "--upstream");
    p = schemes::import_nginx(text, o.file, o.upstream);
  } else if (o.system == "haproxy") {
    require(o.backend, "--backend");
    p = schemes::import_haproxy(text, o.file, o.backend);
  } else if (o.system == "twemproxy") {
    p = import_twemproxy(text, o.file, o.pool);
  } else if (o.system == "redis-cluster") {
    p = schemes::import_redis_cluster(text, o.file);
  } else if (o.system == "envoy") {
    p = import_envoy(text, o.file, o.cluster);
  } else if (o.system == "cassandra") {
    p = schemes::import_nodetool_ring(text, o.file, replication_from(o));
  } else {
    throw usage_error(unknown_system(o.system));
  }
  require_node_names(*p, o.file);
  return p;
}

void run_import(const import_options& o) {
  const std::unique_ptr<placement> p = import_config(o.source);
  const std::string topology = schemes::scheme_topology_json(*p);
  if (o.output.empty() || o.output == "-") {
    fmt::print("{}", topology);
  } else {
    io::write_file_atomic(o.output, topology);
  }
  if (o.json) return;
  fmt::print(stderr, "ringbloom: {} {}: {} servers{}\n", o.source.system, o.source.file,
             p->node_count(),
             o.output.empty() || o.output == "-" ? "" : fmt::format(", written to {}", o.output));
}

}  // namespace

std::unique_ptr<placement> import_config(const config_source& o) {
#if defined(RINGBLOOM_HAVE_YAML_CPP)
  try {
    return read_config(o);
  } catch (const data_error& e) {  // every refusal says what to do
    if (std::string_view(e.what()).find("; ") != std::string_view::npos) throw;
    throw data_error(fmt::format("{}; fix that line of the file and try again", e.what()));
  } catch (const YAML::Exception& e) {  // a value of the wrong type (as<...>)
    throw data_error(fmt::format("{}:{}: a value of the wrong type ({}); fix the file", o.file,
                                 e.mark.line + 1, e.msg));
  }
#else
  return read_config(o);
#endif
}

void add_config_options(CLI::App& cmd, config_source& o, CLI::Option* from) {
  std::vector<CLI::Option*> added = {
      cmd.add_option("--upstream", o.upstream, "nginx: the upstream block to read"),
      cmd.add_option("--backend", o.backend, "haproxy: the backend (or listen) section to read"),
      cmd.add_option("--pool", o.pool,
                     "twemproxy: the pool to read (optional when the file has one)"),
      cmd.add_option("--cluster", o.cluster, "envoy: the cluster to read (RING_HASH or MAGLEV)"),
      add_number_option(cmd, "--rf", o.rf, between<std::uint32_t>(1, 100'000),
                        "cassandra: SimpleStrategy replication factor (default 1)"),
      cmd.add_option("--dc-rf", o.dc_rf,
                     "cassandra: NetworkTopologyStrategy factors, DC=N,... (e.g. dc1=3,dc2=2)")};
  if (from == nullptr) return;
  for (CLI::Option* option : added) option->needs(from);
}

void add_ring_import(CLI::App& ring) {
  auto o = std::make_shared<import_options>();
  auto* cmd = ring.add_subcommand("import",
                                  "Read a system's configuration (nginx, haproxy, twemproxy, "
                                  "envoy, redis-cluster, cassandra) into a topology file");
  cmd->add_option("system", o->source.system,
                  "nginx, haproxy, twemproxy, envoy, redis-cluster or cassandra")
      ->required();
  cmd->add_option("file", o->source.file,
                  "nginx.conf, haproxy.cfg, nutcracker.yml, an Envoy YAML, or the output of "
                  "'redis-cli cluster nodes', 'redis-cli cluster slots' or 'nodetool ring'")
      ->required();
  add_config_options(*cmd, o->source, nullptr);
  cmd->add_option("-o,--output", o->output,
                  "The topology file to write (default: standard output)");
  cmd->add_flag("--json", o->json, "Print only the topology JSON (no summary on stderr)");
  set_example(
      *cmd, "ringbloom ring import nginx /etc/nginx/nginx.conf --upstream backend -o backend.json");
  cmd->callback([o] { run_import(*o); });
}

}  // namespace ringbloom::cli
