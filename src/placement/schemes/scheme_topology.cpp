// Topology files of the system schemes (see scheme_topology.hpp).
#include "ringbloom/placement/schemes/scheme_topology.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "placement/json_words.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/guava.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

using json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 9> scheme_names = {
    "nginx",      "haproxy", "twemproxy",       "redis-cluster", "cassandra",
    "groupcache", "guava",   "envoy-ring-hash", "envoy-maglev"};

[[noreturn]] void refuse(std::string_view source, std::string_view what) {
  throw data_error(fmt::format("{}: {}", source, what));
}

void check_members(const json& object, std::initializer_list<std::string_view> known,
                   std::string_view where, std::string_view source) {
  for (const auto& [key, value] : object.items()) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) {
      refuse(source, fmt::format("{} has the unknown member \"{}\"; the known ones are {}", where,
                                 key, fmt::join(known, ", ")));
    }
  }
}

const json& member(const json& object, std::string_view name, std::string_view where,
                   std::string_view source) {
  const auto it = object.find(std::string(name));
  if (it == object.end()) refuse(source, fmt::format("{} has no \"{}\" member", where, name));
  return *it;
}

std::string string_member(const json& object, std::string_view name, std::string_view where,
                          std::string_view source) {
  const json& v = member(object, name, where, source);
  if (!v.is_string()) refuse(source, fmt::format("\"{}\" of {} is not a string", name, where));
  return v.get<std::string>();
}

std::uint32_t uint_value(const json& v, std::string_view what, std::uint64_t max,
                         std::string_view source) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max) {
    refuse(source, fmt::format("{} is not an integer in [0, {}]", what, max));
  }
  return static_cast<std::uint32_t>(v.get<std::uint64_t>());
}

std::uint32_t weight_of(const json& node, std::string_view where, std::string_view source) {
  const auto it = node.find("weight");
  if (it == node.end()) return 1;
  return uint_value(*it, fmt::format("the weight of {}", where), 0xFFFFFFFFu, source);
}

std::unique_ptr<placement> build(std::string_view scheme, const json& doc,
                                 std::string_view source) {
  const json& nodes = member(doc, "nodes", "the topology", source);
  if (!nodes.is_array()) refuse(source, "\"nodes\" is not an array");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = fmt::format("node {}", i + 1);
    if (!nodes[i].is_object()) refuse(source, fmt::format("{} is not an object", where));
    names.push_back(string_member(nodes[i], "name", where, source));
  }
  if (scheme == "nginx") {
    check_members(doc, {"format", "version", "scheme", "nodes"}, "the topology", source);
    std::vector<nginx_server> servers;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = fmt::format("node '{}'", names[i]);
      check_members(nodes[i], {"name", "weight"}, where, source);
      servers.push_back({names[i], weight_of(nodes[i], where, source)});
    }
    return std::make_unique<nginx_placement>(std::move(servers));
  }
  if (scheme == "haproxy") {
    check_members(doc,
                  {"format", "version", "scheme", "hash", "avalanche", "key", "uri_whole",
                   "uri_len", "uri_depth", "nodes"},
                  "the topology", source);
    const std::string hash = string_member(doc, "hash", "the topology", source);
    const auto function = find_haproxy_hash(hash);
    if (!function)
      refuse(source,
             fmt::format("\"hash\" is '{}'; HAProxy's are sdbm, djb2, wt6 and crc32", hash));
    const json& avalanche = member(doc, "avalanche", "the topology", source);
    if (!avalanche.is_boolean()) refuse(source, "\"avalanche\" is not true or false");
    haproxy_options options{*function, avalanche.get<bool>()};
    if (const auto it = doc.find("key"); it != doc.end()) {
      const auto key = it->is_string() ? find_haproxy_key(it->get<std::string>()) : std::nullopt;
      if (!key) refuse(source, "\"key\" is not \"bytes\", \"uri\", \"source\" or \"header\"");
      options.key = *key;
    }
    if (const auto it = doc.find("uri_whole"); it != doc.end()) {
      if (!it->is_boolean()) refuse(source, "\"uri_whole\" is not true or false");
      options.uri_whole = it->get<bool>();
    }
    if (const auto it = doc.find("uri_len"); it != doc.end())
      options.uri_len = uint_value(*it, "\"uri_len\"", 0xFFFFFFFFu, source);
    if (const auto it = doc.find("uri_depth"); it != doc.end())
      options.uri_depth = uint_value(*it, "\"uri_depth\"", 0xFFFFFFFFu, source);
    std::vector<haproxy_server> servers;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = fmt::format("node '{}'", names[i]);
      check_members(nodes[i], {"name", "weight", "id"}, where, source);
      std::uint32_t id = 0;
      if (const auto it = nodes[i].find("id"); it != nodes[i].end()) {
        id = uint_value(*it, fmt::format("the id of {}", where), haproxy_placement::max_id, source);
        if (id == 0)
          refuse(source, fmt::format("the id of {} is 0; HAProxy ids start at 1", where));
      }
      servers.push_back({names[i], weight_of(nodes[i], where, source), id});
    }
    return std::make_unique<haproxy_placement>(options, std::move(servers));
  }
  if (scheme == "twemproxy") {
    check_members(doc, {"format", "version", "scheme", "hash", "nodes"}, "the topology", source);
    const std::string hash = string_member(doc, "hash", "the topology", source);
    const auto function = find_twemproxy_hash(hash);
    if (!function) {
      refuse(
          source,
          fmt::format("\"hash\" is '{}'; the twemproxy scheme reproduces md5, fnv1a_64, fnv1_64, "
                      "fnv1a_32 and fnv1_32",
                      hash));
    }
    std::vector<twemproxy_server> servers;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = fmt::format("node '{}'", names[i]);
      check_members(nodes[i], {"name", "weight"}, where, source);
      servers.push_back({names[i], weight_of(nodes[i], where, source)});
    }
    return std::make_unique<twemproxy_placement>(*function, std::move(servers));
  }
  if (scheme == "envoy-ring-hash" || scheme == "envoy-maglev") {
    const bool ring = scheme == "envoy-ring-hash";
    if (ring) {
      check_members(
          doc, {"format", "version", "scheme", "minimum_ring_size", "maximum_ring_size", "nodes"},
          "the topology", source);
    } else {
      check_members(doc, {"format", "version", "scheme", "table_size", "nodes"}, "the topology",
                    source);
    }
    std::vector<envoy_host> hosts;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = fmt::format("node '{}'", names[i]);
      check_members(nodes[i], {"name", "weight"}, where, source);
      hosts.push_back({names[i], weight_of(nodes[i], where, source)});
    }
    const auto number = [&](const char* name, std::uint64_t fallback) -> std::uint64_t {
      const auto it = doc.find(name);
      if (it == doc.end()) return fallback;
      if (!it->is_number_unsigned())
        refuse(source, fmt::format("\"{}\" is not a positive integer", name));
      return it->get<std::uint64_t>();
    };
    if (ring) {
      return std::make_unique<envoy_ring_hash_placement>(
          std::move(hosts),
          number("minimum_ring_size", envoy_ring_hash_placement::default_minimum_ring_size),
          number("maximum_ring_size", envoy_ring_hash_placement::default_maximum_ring_size));
    }
    return std::make_unique<envoy_maglev_placement>(
        std::move(hosts), number("table_size", envoy_maglev_placement::default_table_size));
  }
  if (scheme == "groupcache") {
    check_members(doc, {"format", "version", "scheme", "replicas", "nodes"}, "the topology",
                  source);
    const std::uint32_t replicas =
        uint_value(member(doc, "replicas", "the topology", source), "\"replicas\"",
                   groupcache_placement::max_replicas, source);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      check_members(nodes[i], {"name"}, fmt::format("node '{}'", names[i]), source);
    }
    return std::make_unique<groupcache_placement>(replicas, names);
  }
  if (scheme == "guava") {
    check_members(doc, {"format", "version", "scheme", "nodes"}, "the topology", source);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      check_members(nodes[i], {"name"}, fmt::format("node '{}'", names[i]), source);
      if (names[i] != std::to_string(i)) {
        refuse(source, fmt::format("guava buckets are numbered 0..N-1; node {} is named '{}'",
                                   i + 1, names[i]));
      }
    }
    return std::make_unique<guava_placement>(static_cast<std::uint32_t>(nodes.size()));
  }
  if (scheme == "cassandra") {
    check_members(doc, {"format", "version", "scheme", "replication", "nodes"}, "the topology",
                  source);
    const json& rep = member(doc, "replication", "the topology", source);
    if (!rep.is_object()) refuse(source, "\"replication\" is not an object");
    cassandra_replication replication;
    const std::string cls = string_member(rep, "class", "\"replication\"", source);
    if (cls == "SimpleStrategy") {
      check_members(rep, {"class", "replication_factor"}, "\"replication\"", source);
      replication = cassandra_replication::simple(
          uint_value(member(rep, "replication_factor", "\"replication\"", source),
                     "replication_factor", 1000, source));
    } else if (cls == "NetworkTopologyStrategy") {
      std::map<std::string, std::uint32_t> per_dc;
      for (const auto& [key, value] : rep.items()) {
        if (key != "class")
          per_dc[key] = uint_value(value, fmt::format("the factor of '{}'", key), 1000, source);
      }
      replication = cassandra_replication::network(std::move(per_dc));
    } else {
      refuse(source,
             fmt::format("replication class '{}' is not SimpleStrategy or NetworkTopologyStrategy",
                         cls));
    }
    std::vector<cassandra_node> list;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string where = fmt::format("node '{}'", names[i]);
      check_members(nodes[i], {"name", "datacenter", "rack", "tokens"}, where, source);
      cassandra_node n{names[i],
                       string_member(nodes[i], "datacenter", where, source),
                       string_member(nodes[i], "rack", where, source),
                       {}};
      const json& tokens = member(nodes[i], "tokens", where, source);
      if (!tokens.is_array())
        refuse(source, fmt::format("\"tokens\" of {} is not an array", where));
      for (const json& t : tokens) {
        if (!t.is_number_integer() ||
            (t.is_number_unsigned() && t.get<std::uint64_t>() > 0x7FFFFFFFFFFFFFFFu)) {
          refuse(source, fmt::format("a token of {} is not a signed 64-bit integer", where));
        }
        n.tokens.push_back(t.get<std::int64_t>());
      }
      list.push_back(std::move(n));
    }
    return std::make_unique<cassandra_placement>(std::move(list), std::move(replication));
  }
  // redis-cluster
  check_members(doc, {"format", "version", "scheme", "nodes"}, "the topology", source);
  std::vector<redis_master> masters;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = fmt::format("node '{}'", names[i]);
    check_members(nodes[i], {"name", "slots"}, where, source);
    const json& slots = member(nodes[i], "slots", where, source);
    if (!slots.is_array()) refuse(source, fmt::format("\"slots\" of {} is not an array", where));
    redis_master m{names[i], {}};
    for (const json& range : slots) {
      if (!range.is_array() || range.size() != 2) {
        refuse(source, fmt::format("a slot range of {} is not [first, last]", where));
      }
      m.slots.push_back({uint_value(range[0], fmt::format("a slot of {}", where), 16383, source),
                         uint_value(range[1], fmt::format("a slot of {}", where), 16383, source)});
    }
    masters.push_back(std::move(m));
  }
  return std::make_unique<redis_cluster_placement>(std::move(masters));
}

}  // namespace

std::span<const std::string_view> system_scheme_names() noexcept { return scheme_names; }

bool is_system_scheme(std::string_view name) noexcept {
  for (std::string_view s : scheme_names) {
    if (s == name) return true;
  }
  return false;
}

std::string topology_scheme(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    refuse(source, fmt::format("{}; give a topology file written by ringbloom",
                               ringbloom::detail::json_error_words(text, e)));
  }
  if (!doc.is_object()) refuse(source, "the topology is not a JSON object");
  return string_member(doc, "scheme", "the topology", source);
}

std::unique_ptr<placement> parse_scheme_topology(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    refuse(source, fmt::format("{}; give a topology file written by ringbloom",
                               ringbloom::detail::json_error_words(text, e)));
  }
  if (!doc.is_object()) refuse(source, "the topology is not a JSON object");
  if (string_member(doc, "format", "the topology", source) != "ringbloom-topology") {
    refuse(source, "\"format\" is not \"ringbloom-topology\"; this is not a topology file");
  }
  const json& version = member(doc, "version", "the topology", source);
  if (!version.is_number_integer() || version.get<std::int64_t>() != 1) {
    refuse(source, "\"version\" is not 1; this ringbloom reads version 1 only");
  }
  const std::string scheme = string_member(doc, "scheme", "the topology", source);
  if (!is_system_scheme(scheme)) {
    refuse(source, fmt::format("\"scheme\" is '{}', not a system scheme ({})", scheme,
                               fmt::join(scheme_names, ", ")));
  }
  try {
    return build(scheme, doc, source);
  } catch (const std::invalid_argument& e) {
    refuse(source, e.what());
  }
}

std::unique_ptr<placement> load_scheme_topology(const std::filesystem::path& path) {
  return parse_scheme_topology(io::read_file(path), path.string());
}

std::string scheme_topology_json(const placement& p) {
  json doc;
  doc["format"] = "ringbloom-topology";
  doc["version"] = 1;
  doc["scheme"] = std::string(p.kind_name());
  json nodes = json::array();
  if (const auto* n = dynamic_cast<const nginx_placement*>(&p)) {
    for (const auto& s : n->servers()) nodes.push_back({{"name", s.server}, {"weight", s.weight}});
  } else if (const auto* h = dynamic_cast<const haproxy_placement*>(&p)) {
    doc["hash"] = std::string(haproxy_hash_name(h->options().function));
    doc["avalanche"] = h->options().avalanche;
    const haproxy_options& o = h->options();
    if (o.key != haproxy_key::bytes) doc["key"] = std::string(haproxy_key_name(o.key));
    if (o.key == haproxy_key::uri) {
      if (o.uri_whole) doc["uri_whole"] = true;
      if (o.uri_len != 0) doc["uri_len"] = o.uri_len;
      if (o.uri_depth != 0) doc["uri_depth"] = o.uri_depth;
    }
    for (const auto& s : h->servers()) {
      json node = {{"name", s.name}, {"weight", s.weight}};
      if (s.id != 0) node["id"] = s.id;
      nodes.push_back(std::move(node));
    }
  } else if (const auto* t = dynamic_cast<const twemproxy_placement*>(&p)) {
    doc["hash"] = std::string(twemproxy_hash_name(t->hash()));
    for (const auto& s : t->servers()) nodes.push_back({{"name", s.name}, {"weight", s.weight}});
  } else if (const auto* er = dynamic_cast<const envoy_ring_hash_placement*>(&p)) {
    doc["minimum_ring_size"] = er->minimum_ring_size();
    doc["maximum_ring_size"] = er->maximum_ring_size();
    for (const auto& host : er->hosts())
      nodes.push_back({{"name", host.name}, {"weight", host.weight}});
  } else if (const auto* em = dynamic_cast<const envoy_maglev_placement*>(&p)) {
    doc["table_size"] = em->table_size();
    for (const auto& host : em->hosts())
      nodes.push_back({{"name", host.name}, {"weight", host.weight}});
  } else if (const auto* g = dynamic_cast<const groupcache_placement*>(&p)) {
    doc["replicas"] = g->replicas();
    for (const auto& peer : g->peers()) nodes.push_back({{"name", peer}});
  } else if (const auto* b = dynamic_cast<const guava_placement*>(&p)) {
    for (std::uint32_t i = 0; i < b->node_count(); ++i)
      nodes.push_back({{"name", b->node_name(i)}});
  } else if (const auto* c = dynamic_cast<const cassandra_placement*>(&p)) {
    json rep;
    if (c->replication().network_topology) {
      rep["class"] = "NetworkTopologyStrategy";
      for (const auto& [dc, rf] : c->replication().per_datacenter) rep[dc] = rf;
    } else {
      rep = {{"class", "SimpleStrategy"}, {"replication_factor", c->replication().factor}};
    }
    doc["replication"] = std::move(rep);
    for (const auto& node : c->nodes()) {
      nodes.push_back({{"name", node.address},
                       {"datacenter", node.datacenter},
                       {"rack", node.rack},
                       {"tokens", node.tokens}});
    }
  } else if (const auto* r = dynamic_cast<const redis_cluster_placement*>(&p)) {
    for (const auto& m : r->masters()) {
      json slots = json::array();
      for (const auto& range : m.slots) slots.push_back({range.first, range.last});
      nodes.push_back({{"name", m.address}, {"slots", std::move(slots)}});
    }
  } else {
    throw std::invalid_argument(
        fmt::format("a {} placement has no system-scheme topology; save it with its own format",
                    p.kind_name()));
  }
  doc["nodes"] = std::move(nodes);
  // One node per line: diffs of topology files stay readable.
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    if (!first) out += ",\n";
    first = false;
    out += fmt::format("  \"{}\": ", key);
    if (key == "nodes") {
      out += "[";
      for (std::size_t i = 0; i < value.size(); ++i) {
        out += i == 0 ? "\n    " : ",\n    ";
        try {
          out += value[i].dump();  // strict: a name must be valid UTF-8
        } catch (const json::exception&) {
          throw data_error(
              fmt::format("the name of node {} is not valid UTF-8; a topology file is JSON text, "
                          "so rename the server "
                          "(or save its text in UTF-8)",
                          i + 1));
        }
      }
      out += value.empty() ? "]" : "\n  ]";
    } else {
      out += value.dump();
    }
  }
  out += "\n}\n";
  return out;
}

void save_scheme_topology(const std::filesystem::path& path, const placement& p) {
  io::write_file_atomic(path, scheme_topology_json(p));
}

std::unique_ptr<placement> make_scheme_placement(std::string_view scheme,
                                                 const std::vector<placement_node>& nodes) {
  if (scheme == "nginx") {
    std::vector<nginx_server> servers;
    for (const auto& n : nodes) {
      servers.push_back({n.name, detail::integer_weight(scheme, n.name, n.weight, 1,
                                                        nginx_placement::max_weight)});
    }
    return std::make_unique<nginx_placement>(std::move(servers));
  }
  if (scheme == "haproxy") {
    std::vector<haproxy_server> servers;
    for (const auto& n : nodes) {
      servers.push_back(
          {n.name,
           detail::integer_weight(scheme, n.name, n.weight, 0, haproxy_placement::max_weight), 0});
    }
    return std::make_unique<haproxy_placement>(haproxy_options{}, std::move(servers));
  }
  if (scheme == "twemproxy") {
    std::vector<twemproxy_server> servers;
    for (const auto& n : nodes) {
      servers.push_back({n.name, detail::integer_weight(scheme, n.name, n.weight, 1,
                                                        twemproxy_placement::max_weight)});
    }
    return std::make_unique<twemproxy_placement>(twemproxy_hash::fnv1a_64, std::move(servers));
  }
  if (scheme == "redis-cluster") {
    std::vector<std::string> names;
    for (const auto& n : nodes) {
      detail::integer_weight(scheme, n.name, n.weight, 1, 1);
      names.push_back(n.name);
    }
    return std::make_unique<redis_cluster_placement>(redis_even_split(names));
  }
  if (scheme == "envoy-ring-hash" || scheme == "envoy-maglev") {
    std::vector<envoy_host> hosts;
    for (const auto& n : nodes) {
      hosts.push_back(
          {n.name, detail::integer_weight(scheme, n.name, n.weight, 1, envoy_max_weight)});
    }
    if (scheme == "envoy-ring-hash")
      return std::make_unique<envoy_ring_hash_placement>(std::move(hosts));
    return std::make_unique<envoy_maglev_placement>(std::move(hosts));
  }
  if (scheme == "groupcache") {
    std::vector<std::string> peers;
    for (const auto& n : nodes) {
      detail::integer_weight(scheme, n.name, n.weight, 1, 1);
      peers.push_back(n.name);
    }
    return std::make_unique<groupcache_placement>(groupcache_placement::default_replicas,
                                                  std::move(peers));
  }
  if (scheme == "guava") {
    // --nodes N: N buckets "0".."N-1" (the CLI names a count n1..nN).
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name != std::to_string(i) && nodes[i].name != fmt::format("n{}", i + 1)) {
        throw std::invalid_argument(
            "guava: give the number of buckets (--nodes N); buckets have no names");
      }
    }
    return std::make_unique<guava_placement>(static_cast<std::uint32_t>(nodes.size()));
  }
  if (scheme == "cassandra") {
    // Without tokens: one token per node, node i at -2^63 + i * floor((2^64 - 1) / N),
    // SimpleStrategy with factor 1.
    std::vector<cassandra_node> list;
    const std::uint64_t step = ~std::uint64_t{0} / std::max<std::size_t>(nodes.size(), 1);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      detail::integer_weight(scheme, nodes[i].name, nodes[i].weight, 1, 1);
      const std::uint64_t at = step * i;
      list.push_back({nodes[i].name,
                      "datacenter1",
                      "rack1",
                      {static_cast<std::int64_t>(at ^ (std::uint64_t{1} << 63))}});
    }
    return std::make_unique<cassandra_placement>(std::move(list), cassandra_replication::simple(1));
  }
  throw std::invalid_argument(fmt::format("'{}' is not a system scheme; the known ones are {}",
                                          scheme, fmt::join(scheme_names, ", ")));
}

}  // namespace ringbloom::schemes
