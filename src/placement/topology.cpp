// Topology files: versioned JSON that rebuilds the identical ring.
#include "ringbloom/placement/topology.hpp"

#include <fmt/core.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"

namespace ringbloom {
namespace {

constexpr std::string_view format_name = "ringbloom-topology";

using json = nlohmann::json;

[[noreturn]] void refuse(std::string_view source, std::string_view what) {
  throw data_error(fmt::format("{}: {}", source, what));
}

std::string json_string(std::string_view s) {
  try {
    return json(std::string(s)).dump();
  } catch (const json::exception&) {
    throw std::invalid_argument(
        fmt::format("node name '{}' is not valid UTF-8; topology files hold UTF-8 names only", s));
  }
}

void check_members(const json& object, std::initializer_list<std::string_view> known,
                   std::string_view source, std::string_view where) {
  for (const auto& item : object.items()) {
    bool ok = false;
    for (const auto name : known) ok = ok || item.key() == name;
    if (!ok) {
      refuse(source, fmt::format("{} has an unknown member \"{}\"; remove it (check the spelling)",
                                 where, item.key()));
    }
  }
}

const json& member(const json& object, std::string_view name, std::string_view source) {
  const auto it = object.find(std::string(name));
  if (it == object.end()) {
    refuse(source,
           fmt::format("the member \"{}\" is missing; a {} file needs it", name, format_name));
  }
  return *it;
}

std::string string_member(const json& object, std::string_view name, std::string_view source) {
  const json& value = member(object, name, source);
  if (!value.is_string()) {
    refuse(source, fmt::format("\"{}\" must be a string", name));
  }
  return value.get<std::string>();
}

std::uint64_t unsigned_value(const json& value, std::string_view what, std::string_view source,
                             std::uint64_t max) {
  if (!value.is_number_unsigned() &&
      !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
    refuse(source, fmt::format("{} must be a non-negative integer, not {}", what, value.dump()));
  }
  const auto n = value.get<std::uint64_t>();
  if (n > max)
    refuse(source, fmt::format("{} is {}, more than the largest allowed, {}", what, n, max));
  return n;
}

}  // namespace

hash_ring build_ring(const topology& topo) {
  try {
    hash_ring ring(topo.options);
    std::vector<ring_node> nodes;
    nodes.reserve(topo.nodes.size());
    for (const topology_node& node : topo.nodes) {
      nodes.push_back(ring_node{node.name, node.weight, node.tokens, 0});
    }
    ring.add_nodes(nodes);
    return ring;
  } catch (const std::invalid_argument& e) {
    throw data_error(fmt::format("the topology does not describe a valid ring: {}", e.what()));
  }
}

topology describe(const hash_ring& ring) {
  topology topo;
  topo.options = ring.options();
  for (const ring_node& node : ring.nodes()) {
    topology_node t;
    t.name = node.name;
    t.weight = node.tokens.empty() ? node.weight : 1;
    t.tokens = node.tokens;
    topo.nodes.push_back(std::move(t));
  }
  return topo;
}

std::string to_json(const topology& topo) {
  std::string out = fmt::format(
      "{{\n  \"format\": \"{}\",\n  \"version\": {},\n  \"scheme\": \"{}\",\n"
      "  \"hash\": \"{}\",\n  \"vnodes\": {},\n  \"nodes\": [",
      format_name, topology_version, scheme_name(topo.options.scheme), hash_name(topo.options.hash),
      topo.options.vnodes);
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const topology_node& node = topo.nodes[i];
    out += i == 0 ? "\n    " : ",\n    ";
    out += "{\"name\": " + json_string(node.name);
    if (node.tokens.empty()) {
      out += fmt::format(", \"weight\": {}}}", node.weight);
    } else {
      out += ", \"tokens\": [";
      for (std::size_t t = 0; t < node.tokens.size(); ++t) {
        if (t > 0) out += ", ";
        out += fmt::format("{}", node.tokens[t]);
      }
      out += "]}";
    }
  }
  out += topo.nodes.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

topology parse_topology(std::string_view text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for huge numbers
    refuse(source, fmt::format("not valid JSON ({}); check the file or recreate it with "
                               "'ringbloom ring init'",
                               e.what()));
  }
  if (!doc.is_object()) {
    refuse(source, fmt::format("not a {} document (a JSON object was expected)", format_name));
  }
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || format->get<std::string>() != format_name) {
    refuse(source,
           fmt::format("not a {} document (\"format\" must be \"{}\")", format_name, format_name));
  }
  check_members(doc, {"format", "version", "scheme", "hash", "vnodes", "nodes"}, source,
                "the document");
  const json& version = member(doc, "version", source);
  if (!version.is_number_integer() || version.get<std::int64_t>() != topology_version) {
    refuse(source, fmt::format("topology version {} is not supported; this ringbloom reads "
                               "version {} only (upgrade ringbloom to read newer files)",
                               version.dump(), topology_version));
  }
  topology topo;
  const std::string scheme = string_member(doc, "scheme", source);
  const auto found_scheme = find_scheme(scheme);
  if (!found_scheme) {
    refuse(source,
           fmt::format("unknown scheme \"{}\"; known schemes are \"ring\" and \"ketama\"", scheme));
  }
  topo.options = *found_scheme == ring_scheme::ketama ? ring_options::ketama() : ring_options{};
  if (doc.contains("hash")) {
    const std::string hash = string_member(doc, "hash", source);
    const auto kind = find_hash(hash);
    if (!kind) {
      refuse(source, fmt::format("unknown hash \"{}\"; known hashes are xxh3, sha256, poly31 and "
                                 "md5",
                                 hash));
    }
    topo.options.hash = *kind;
  }
  if (doc.contains("vnodes")) {
    topo.options.vnodes = static_cast<std::uint32_t>(unsigned_value(
        doc["vnodes"], "\"vnodes\"", source, std::numeric_limits<std::uint32_t>::max()));
    if (topo.options.vnodes == 0) refuse(source, "\"vnodes\" must be at least 1");
  }
  if (topo.options.scheme == ring_scheme::ketama && topo.options != ring_options::ketama()) {
    refuse(source,
           "a ketama topology must have hash \"md5\" and vnodes 160 (libmemcached's rules)");
  }
  const json& nodes = member(doc, "nodes", source);
  if (!nodes.is_array()) refuse(source, "\"nodes\" must be an array");
  std::set<std::string> names;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const json& entry = nodes[i];
    const std::string where = fmt::format("node {}", i + 1);
    if (!entry.is_object()) refuse(source, fmt::format("{} must be a JSON object", where));
    check_members(entry, {"name", "weight", "tokens"}, source, where);
    topology_node node;
    node.name = string_member(entry, "name", source);
    if (node.name.empty()) refuse(source, fmt::format("{} has an empty name", where));
    if (!names.insert(node.name).second) {
      refuse(source,
             fmt::format("the name \"{}\" appears twice; node names must be unique", node.name));
    }
    if (entry.contains("weight") && entry.contains("tokens")) {
      refuse(source,
             fmt::format("node \"{}\" has both a weight and tokens; give one of them", node.name));
    }
    if (entry.contains("weight")) {
      node.weight = static_cast<std::uint32_t>(
          unsigned_value(entry["weight"], fmt::format("the weight of node \"{}\"", node.name),
                         source, std::numeric_limits<std::uint32_t>::max()));
      if (node.weight == 0) {
        refuse(source, fmt::format("node \"{}\" has weight 0; weights are integers >= 1 (remove "
                                   "the node instead)",
                                   node.name));
      }
    }
    if (entry.contains("tokens")) {
      const json& tokens = entry["tokens"];
      if (!tokens.is_array() || tokens.empty()) {
        refuse(source, fmt::format("the tokens of node \"{}\" must be a non-empty array of "
                                   "integers",
                                   node.name));
      }
      for (const json& token : tokens) {
        node.tokens.push_back(unsigned_value(token,
                                             fmt::format("a token of node \"{}\"", node.name),
                                             source, std::numeric_limits<std::uint64_t>::max()));
      }
    }
    topo.nodes.push_back(std::move(node));
  }
  std::uint64_t points = 0;
  for (const topology_node& node : topo.nodes) {
    // A ketama server has about 160 points whatever its weight: weights
    // only split the 160 x servers points among the servers.
    if (topo.options.scheme == ring_scheme::ketama) {
      points += 160;
    } else {
      points += node.tokens.empty() ? std::uint64_t{topo.options.vnodes} * node.weight
                                    : node.tokens.size();
    }
  }
  if (points > max_topology_points) {
    refuse(source, fmt::format("the topology has {} points, more than the limit of {} for a "
                               "topology file; lower vnodes or weights",
                               points, max_topology_points));
  }
  try {
    (void)build_ring(topo);
  } catch (const data_error& e) {
    refuse(source, e.what());
  }
  return topo;
}

topology load_topology(const std::filesystem::path& path) {
  return parse_topology(io::read_file(path), path.string());
}

void save_topology(const std::filesystem::path& path, const topology& topo) {
  (void)build_ring(topo);
  io::write_file_atomic(path, to_json(topo));
}

void update_topology(const std::filesystem::path& path,
                     const std::function<void(topology&)>& change) {
  io::update_file_locked(path, [&](const std::string& current) {
    topology topo = parse_topology(current, path.string());
    change(topo);
    (void)build_ring(topo);
    return to_json(topo);
  });
}

}  // namespace ringbloom
