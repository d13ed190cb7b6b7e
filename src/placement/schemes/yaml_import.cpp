// The two YAML readers of config_import.hpp: twemproxy's nutcracker.yml and
// an Envoy cluster. yaml-cpp is a private dependency of the library; a build
// without it (RINGBLOOM_HAVE_YAML_CPP unset) refuses these two systems with
// what to install.
#include <fmt/core.h>

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
// An Envoy cluster (a bootstrap's static_resources.clusters, a top-level
// clusters list, or one cluster) with lb_policy RING_HASH or MAGLEV.
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
