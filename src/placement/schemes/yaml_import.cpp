// The two YAML readers of config_import.hpp: twemproxy's nutcracker.yml and
// an Envoy cluster. yaml-cpp is a private dependency of the library; a build
// without it (RINGBLOOM_HAVE_YAML_CPP unset) refuses these two systems with
// what to install.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(RINGBLOOM_HAVE_YAML_CPP)
#include <yaml-cpp/yaml.h>
#endif

#include "ringbloom/error.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace ringbloom::schemes {

#if defined(RINGBLOOM_HAVE_YAML_CPP)
namespace {

std::unique_ptr<placement> read_twemproxy(std::string_view text, const std::string& file,
                                          const std::string& pool_name,
                                          std::vector<std::string>& notes) {
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw data_error(
        fmt::format("{}:{}: not valid YAML ({}); fix the file", file, e.mark.line + 1, e.msg));
  }
  if (!doc.IsMap())
    throw data_error(fmt::format("{}:1: expected pools (a YAML mapping) at the top", file));
  std::string name = pool_name;
  if (name.empty()) {
    if (doc.size() != 1) {
      throw std::invalid_argument(
          fmt::format("{} has {} pools; name one with --pool", file, doc.size()));
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
    static const char* const nutcrackers[] = {"one_at_a_time", "hsieh", "murmur", "jenkins",
                                              "crc16",         "crc32", "crc32a"};
    const bool known =
        std::find(std::begin(nutcrackers), std::end(nutcrackers), hash) != std::end(nutcrackers);
    throw data_error(
        fmt::format("{}:{}: pool '{}' hashes its keys with '{}', {}", file, line_of(pool["hash"]),
                    printable(name), printable(hash),
                    known ? "a nutcracker hash that ringbloom does not reproduce"
                          : "which is not a hash nutcracker has"),
        known ? "ringbloom places keys of pools hashed with md5, fnv1a_64, fnv1_64, fnv1a_32 or "
                "fnv1_32 only, so this pool cannot be imported"
              : "nutcracker refuses this file; give one of its hashes (md5, fnv1a_64, fnv1_64, "
                "fnv1a_32, fnv1_32 are the ones ringbloom reproduces)");
  }
  if (pool["hash_tag"]) {
    throw data_error(fmt::format(
        "{}:{}: 'hash_tag' hashes part of each key, which the twemproxy scheme does not "
        "model; remove it to import the pool",
        file, line_of(pool["hash_tag"])));
  }
  if (pool["auto_eject_hosts"] && pool["auto_eject_hosts"].as<std::string>() == "true") {
    notes.push_back(
        fmt::format("{}: pool '{}' ejects failing servers (auto_eject_hosts); the topology places "
                    "keys as when every server is up",
                    file, name));
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
// Envoy parses enum values case-insensitively: `ring_hash` is RING_HASH.
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The load-balancing settings of a cluster, from the typed
// load_balancing_policy (which takes precedence) or lb_policy and its
// *_lb_config fields.
struct envoy_policy {
  std::string policy;             // RING_HASH, MAGLEV, or what else the cluster uses
  YAML::Node where;               // the node that named it (for line numbers)
  YAML::Node config;              // ring_hash_lb_config / maglev_lb_config or the typed config
  YAML::Node consistent_hashing;  // consistent_hashing_lb_config
  YAML::Node locality_weighted;   // locality_weighted_lb_config
  bool typed = false;
};

// The typed policies Envoy ships, by the end of their @type.
std::string typed_policy_name(const std::string& type) {
  static const std::pair<const char*, const char*> known[] = {
      {".ring_hash.v3.RingHash", "RING_HASH"},
      {".maglev.v3.Maglev", "MAGLEV"},
      {".round_robin.v3.RoundRobin", "ROUND_ROBIN"},
      {".least_request.v3.LeastRequest", "LEAST_REQUEST"},
      {".random.v3.Random", "RANDOM"},
      {".cluster_provided.v3.ClusterProvided", "CLUSTER_PROVIDED"},
      {".client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin",
       "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN"},
      {".wrr_locality.v3.WrrLocality", "WRR_LOCALITY"},
      {".subset.v3.Subset", "SUBSET"},
      {".pick_first.v3.PickFirst", "PICK_FIRST"},
  };
  for (const auto& [suffix, name] : known) {
    const std::string_view s(suffix);
    if (type.size() >= s.size() && type.compare(type.size() - s.size(), s.size(), s) == 0)
      return name;
  }
  return "";
}

// An Envoy cluster (a bootstrap's static_resources.clusters, a top-level
// clusters list, or one cluster) with the ring hash or Maglev policy.
std::unique_ptr<placement> read_envoy(std::string_view text, const std::string& file,
                                      const std::string& name) {
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw data_error(
        fmt::format("{}:{}: not valid YAML ({}); fix the file", file, e.mark.line + 1, e.msg));
  }
  const auto line_of = [&](const YAML::Node& n) { return n.Mark().line + 1; };
  const auto fail = [&](const YAML::Node& n, const std::string& what) -> data_error {
    return data_error(
        fmt::format("{}:{}: {}", file, n.IsDefined() && n.Mark().line >= 0 ? line_of(n) : 1, what));
  };
  YAML::Node clusters;
  if (doc.IsMap() && doc["static_resources"] && doc["static_resources"]["clusters"]) {
    clusters = doc["static_resources"]["clusters"];
  } else if (doc.IsMap() && doc["clusters"]) {
    clusters = doc["clusters"];
  } else if (doc.IsMap() && doc["name"]) {
    clusters.push_back(doc);
  } else if (doc.IsSequence()) {
    clusters = doc;
  }
  // The policy a cluster uses (without refusing anything yet). yaml-cpp's
  // Node assignment writes through to the node assigned to, so every Node
  // here is built by copy, never assigned.
  const auto policy_of = [&](YAML::Node c) -> envoy_policy {
    YAML::Node lbp = c["load_balancing_policy"];
    if (lbp && lbp.IsMap() && lbp["policies"] && lbp["policies"].IsSequence() &&
        lbp["policies"].size() > 0) {
      // Envoy uses the first policy of the list (it refuses one it does not know).
      YAML::Node entry = lbp["policies"][0];
      YAML::Node ext = entry["typed_extension_config"];
      YAML::Node typed = ext ? ext["typed_config"] : YAML::Node(YAML::NodeType::Undefined);
      const std::string type =
          typed && typed["@type"] ? typed["@type"].as<std::string>() : std::string();
      const std::string policy = typed_policy_name(type);
      YAML::Node where = ext ? ext : entry;
      if (policy.empty()) {
        throw fail(where, fmt::format("load_balancing_policy names '{}', a policy ringbloom "
                                      "does not know; use Envoy's ring_hash or maglev policy",
                                      printable(type.empty() ? std::string("?") : type)));
      }
      return envoy_policy{
          policy,
          where,
          typed,
          typed ? typed["consistent_hashing_lb_config"] : YAML::Node(YAML::NodeType::Undefined),
          typed ? typed["locality_weighted_lb_config"] : YAML::Node(YAML::NodeType::Undefined),
          true};
    }
    const std::string policy =
        c["lb_policy"] ? upper(c["lb_policy"].as<std::string>()) : "ROUND_ROBIN";
    YAML::Node common = c["common_lb_config"];
    return envoy_policy{
        policy,
        c["lb_policy"],
        c[policy == "MAGLEV" ? "maglev_lb_config" : "ring_hash_lb_config"],
        common ? common["consistent_hashing_lb_config"] : YAML::Node(YAML::NodeType::Undefined),
        common ? common["locality_weighted_lb_config"] : YAML::Node(YAML::NodeType::Undefined),
        false};
  };
  const auto hashing = [](const envoy_policy& p) {
    return p.policy == "RING_HASH" || p.policy == "MAGLEV";
  };
  std::vector<std::string> all;
  std::vector<std::string> hashed;
  YAML::Node cluster(YAML::NodeType::Undefined);
  bool found = false;
  for (YAML::Node c : clusters) {
    if (!c.IsMap() || !c["name"]) continue;
    const std::string n = c["name"].as<std::string>();
    all.push_back(n);
    try {
      if (hashing(policy_of(c))) hashed.push_back(n);
    } catch (const data_error&) {
      // a cluster with an unknown policy is no candidate
    }
    if (!found && n == name) {
      cluster.reset(c);
      found = true;
    }
  }
  const auto names = [](const std::vector<std::string>& list) {
    std::string out;
    for (const std::string& n : list) out += (out.empty() ? "'" : ", '") + printable(n) + "'";
    return out;
  };
  if (name.empty() && !found) {
    // No name: the only cluster, or the only one that hashes.
    const std::vector<std::string>& pick = all.size() == 1 ? all : hashed;
    if (pick.size() != 1) {
      throw std::invalid_argument(
          all.empty() ? fmt::format("{} has no cluster; give an Envoy cluster, a clusters list "
                                    "or a bootstrap with static_resources.clusters",
                                    file)
          : hashed.empty()
              ? fmt::format("{} has {} clusters and none uses RING_HASH or MAGLEV; give one "
                            "that does",
                            file, all.size())
              : fmt::format("{} has {} clusters that hash ({}); name one with --cluster", file,
                            hashed.size(), names(hashed)));
    }
    for (YAML::Node c : clusters) {
      if (c.IsMap() && c["name"] && c["name"].as<std::string>() == pick[0]) {
        cluster.reset(c);
        found = true;
        break;
      }
    }
  }
  if (!found) {
    throw data_error(
        fmt::format("{}: no cluster '{}'; name one of the file's clusters with --cluster ({})",
                    file, printable(name),
                    all.empty()      ? std::string("the file has none")
                    : hashed.empty() ? "none of " + names(all) + " uses RING_HASH or MAGLEV"
                                     : "those that hash: " + names(hashed)));
  }
  const envoy_policy policy = policy_of(cluster);
  if (!hashing(policy)) {
    throw fail(policy.where.IsDefined() && !policy.where.IsNull() ? policy.where : cluster,
               fmt::format("{} {} places no key by hash; the envoy schemes read RING_HASH and "
                           "MAGLEV (lb_policy or load_balancing_policy)",
                           policy.typed ? "load_balancing_policy" : "lb_policy", policy.policy));
  }
  // ring_hash_lb_config or RingHash: use_hostname_for_hashing and
  // hash_balance_factor, either at the top (older) or in consistent_hashing.
  bool by_hostname = false;
  for (YAML::Node n : {policy.consistent_hashing,
                       policy.typed ? policy.config : YAML::Node(YAML::NodeType::Undefined)}) {
    if (!n || !n.IsMap()) continue;
    if (n["use_hostname_for_hashing"]) by_hostname = n["use_hostname_for_hashing"].as<bool>();
    if (n["hash_balance_factor"] && n["hash_balance_factor"].as<std::uint32_t>() != 0) {
      throw fail(n["hash_balance_factor"],
                 "hash_balance_factor bounds each host's load and moves keys off busy hosts at run "
                 "time, which ringbloom does not model; remove it to import the plain placement");
    }
  }
  if (policy.locality_weighted) {
    throw fail(policy.locality_weighted,
               "locality weighting (locality_weighted_lb_config) is not modelled; remove it to "
               "import");
  }
  const std::string type = cluster["type"] ? upper(cluster["type"].as<std::string>()) : "STATIC";
  const bool dns = type == "STRICT_DNS" || type == "LOGICAL_DNS";
  if (type != "STATIC" && !dns) {
    throw fail(cluster["type"],
               fmt::format("cluster type {} gets its hosts at run time ({}), so the file does not "
                           "hold what Envoy hashes; give a STATIC copy of the cluster with the "
                           "hosts Envoy has (its admin page /clusters lists them)",
                           type, type == "EDS" ? "from the EDS server" : "from the connection"));
  }
  std::vector<schemes::envoy_host> hosts;
  const YAML::Node localities = cluster["load_assignment"]["endpoints"];
  if (!localities || !localities.IsSequence())
    throw fail(cluster, "the cluster has no load_assignment.endpoints");
  std::uint64_t weight_sum = 0;
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
      // ThreadAwareLoadBalancerBase's hash key: the envoy.lb hash_key
      // metadata when it is a non-empty string, else the hostname or address.
      std::string host;
      YAML::Node lb_copy = lb;
      YAML::Node metadata = lb_copy["metadata"];
      if (metadata.IsMap() && metadata["filter_metadata"].IsMap() &&
          metadata["filter_metadata"]["envoy.lb"].IsMap()) {
        YAML::Node key = metadata["filter_metadata"]["envoy.lb"]["hash_key"];
        if (key && key.IsScalar()) host = key.as<std::string>();
      }
      if (!host.empty()) {
        // hashed as given
      } else if (by_hostname) {
        if (!endpoint["hostname"])
          throw fail(endpoint, "use_hostname_for_hashing is on but the endpoint has no hostname");
        host = endpoint["hostname"].as<std::string>();
      } else if (dns) {
        throw fail(socket["address"],
                   fmt::format("cluster type {}: Envoy hashes each address '{}' resolves to, "
                               "which the file does not hold; give a STATIC copy of the cluster "
                               "with the resolved addresses (Envoy's admin page /clusters lists "
                               "them), or hash by name with use_hostname_for_hashing",
                               type, printable(socket["address"].as<std::string>())));
      } else {
        const std::string address = socket["address"].as<std::string>();
        const std::string port = socket["port_value"].as<std::string>();
        host = address.find(':') != std::string::npos ? "[" + address + "]:" + port
                                                      : address + ":" + port;
      }
      std::uint32_t weight = 1;
      if (lb["load_balancing_weight"]) weight = lb["load_balancing_weight"].as<std::uint32_t>();
      if (weight == 0)
        throw fail(lb["load_balancing_weight"],
                   "load_balancing_weight is 0; Envoy's is at least 1");
      weight_sum += weight;
      if (weight_sum > schemes::envoy_max_weight) {
        throw fail(lb["load_balancing_weight"],
                   "the endpoints' load_balancing_weight sum is above 4294967295, which Envoy "
                   "refuses; lower the weights");
      }
      for (const auto& other : hosts) {
        if (other.name == host)
          throw fail(lb, fmt::format("host {} is listed twice", printable(host)));
      }
      hosts.push_back({host, weight});
    }
  }
  try {
    const YAML::Node config = policy.config;
    if (policy.policy == "MAGLEV") {
      const std::uint64_t size = config && config["table_size"]
                                     ? config["table_size"].as<std::uint64_t>()
                                     : schemes::envoy_maglev_placement::default_table_size;
      return std::make_unique<schemes::envoy_maglev_placement>(std::move(hosts), size);
    }
    if (config && config["hash_function"] &&
        upper(config["hash_function"].as<std::string>()) != "XX_HASH") {
      throw fail(config["hash_function"],
                 "hash_function MURMUR_HASH_2 is not reproduced; only XX_HASH (the default)");
    }
    const auto ring_size = [&](const char* field, std::uint64_t fallback) {
      if (!config || !config[field]) return fallback;
      const std::uint64_t v = config[field].as<std::uint64_t>();
      if (v > schemes::envoy_ring_hash_placement::default_maximum_ring_size) {
        throw fail(config[field],
                   fmt::format("{} {} is above Envoy's limit of 8388608, so Envoy refuses the "
                               "cluster; give at most 8388608",
                               field, v));
      }
      return v;
    };
    const std::uint64_t min = ring_size(
        "minimum_ring_size", schemes::envoy_ring_hash_placement::default_minimum_ring_size);
    const std::uint64_t max = ring_size(
        "maximum_ring_size", schemes::envoy_ring_hash_placement::default_maximum_ring_size);
    return std::make_unique<schemes::envoy_ring_hash_placement>(std::move(hosts), min, max);
  } catch (const std::invalid_argument& e) {
    throw data_error(fmt::format("{}:{}: {}", file, line_of(cluster), e.what()));
  } catch (const YAML::Exception& e) {
    throw data_error(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
}
/// A value of the wrong type (YAML's as<...>) as a data_error at its line.
template <class F>
std::unique_ptr<placement> wrong_types_as_data_errors(const std::string& file, F&& read) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    throw data_error(fmt::format("{}:{}: a value of the wrong type ({}); fix the file", file,
                                 e.mark.line + 1, e.msg));
  }
}

}  // namespace

std::unique_ptr<placement> import_twemproxy(std::string_view text, std::string_view source,
                                            std::string_view pool,
                                            std::vector<std::string>& notes) {
  const std::string file(source);
  return wrong_types_as_data_errors(
      file, [&] { return read_twemproxy(text, file, std::string(pool), notes); });
}

std::unique_ptr<placement> import_envoy(std::string_view text, std::string_view source,
                                        std::string_view cluster) {
  const std::string file(source);
  return wrong_types_as_data_errors(file,
                                    [&] { return read_envoy(text, file, std::string(cluster)); });
}

bool reads_yaml() noexcept { return true; }

#else

std::unique_ptr<placement> import_twemproxy(std::string_view, std::string_view source,
                                            std::string_view, std::vector<std::string>&) {
  throw data_error(
      fmt::format("{}: this ringbloom was built without yaml-cpp and cannot read nutcracker.yml; "
                  "install libyaml-cpp-dev (scripts/install-deps) and rebuild",
                  source));
}

std::unique_ptr<placement> import_envoy(std::string_view, std::string_view source,
                                        std::string_view) {
  throw data_error(
      fmt::format("{}: this ringbloom was built without yaml-cpp and cannot read Envoy YAML; "
                  "install libyaml-cpp-dev (scripts/install-deps) and rebuild",
                  source));
}

bool reads_yaml() noexcept { return false; }

#endif

}  // namespace ringbloom::schemes
