// Topology files: versioned JSON that rebuilds the identical ring.
#include "ringbloom/placement/topology.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "placement/json_words.hpp"
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
    refuse(source, fmt::format("{} must be a non-negative integer, not {}; write an integer from "
                               "0 to {}",
                               what, value.dump(), max));
  }
  const auto n = value.get<std::uint64_t>();
  if (n > max) {
    refuse(source,
           fmt::format("{} is {}, more than the largest allowed, {}; lower it", what, n, max));
  }
  return n;
}

// A parser callback that refuses a member given twice in one object
// ({"format": ..., "format": ...}): nlohmann keeps the last silently. One set
// of keys per open object; the callback sees each key before its value.
json::parser_callback_t refuse_duplicate_members(std::string_view source) {
  auto open = std::make_shared<std::vector<std::set<std::string>>>();
  return [open, source](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open->emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open->pop_back();
    } else if (event == json::parse_event_t::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open->back().insert(key).second) {
        refuse(source, fmt::format("the member \"{}\" appears twice in {}; keep one of them",
                                   printable(key), depth <= 1 ? "the document" : "one node"));
      }
    }
    return true;
  };
}

// Refuses an explicit token given twice, within a node or across nodes.
void check_tokens_unique(const topology& topo) {
  std::vector<std::uint64_t> tokens;
  for (const topology_node& node : topo.nodes) {
    tokens.insert(tokens.end(), node.tokens.begin(), node.tokens.end());
  }
  std::sort(tokens.begin(), tokens.end());
  const auto twice = std::adjacent_find(tokens.begin(), tokens.end());
  if (twice == tokens.end()) return;
  std::vector<std::string_view> owners;
  for (const topology_node& node : topo.nodes) {
    for (const std::uint64_t t : node.tokens) {
      if (t == *twice) owners.push_back(node.name);
    }
  }
  throw std::invalid_argument(fmt::format(
      "token {} is given twice ({}); every token is one position of one node, so remove one",
      *twice,
      owners[0] == owners[1]
          ? fmt::format("both by node '{}'", printable(owners[0]))
          : fmt::format("by nodes '{}' and '{}'", printable(owners[0]), printable(owners[1]))));
}

}  // namespace

std::uint64_t topology_points(const topology& topo) noexcept {
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
  return points;
}

void check_node_name(std::string_view name) {
  const auto refuse_name = [&](std::string_view why) {
    throw std::invalid_argument(fmt::format(
        "node name '{}' {}; a name is 1 to {} bytes without control characters (tab, newline, "
        "NUL ...) or commas",
        printable(name), why, max_node_name_bytes));
  };
  if (name.empty()) refuse_name("is empty");
  if (name.size() > max_node_name_bytes) {
    refuse_name(fmt::format("is {} bytes long", name.size()));
  }
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) refuse_name("holds a control character");
    if (c == ',') refuse_name("holds a comma, which separates names in lists");
  }
}

hash_ring build_ring(const topology& topo) {
  const std::uint64_t points = topology_points(topo);
  if (points > max_topology_points) {
    throw data_error(fmt::format(
        "the topology has {} points, more than the limit of {} for a topology file (and for a "
        "ring given on the command line); lower vnodes, weights or the number of nodes",
        points, max_topology_points));
  }
  try {
    for (const topology_node& node : topo.nodes) check_node_name(node.name);
    check_tokens_unique(topo);
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
    doc = json::parse(text.begin(), text.end(), refuse_duplicate_members(source));
  } catch (const json::exception& e) {  // parse_error, and out_of_range for huge numbers
    refuse(source, fmt::format("{}; check the file or recreate it with 'ringbloom ring init'",
                               detail::json_error_words(text, e)));
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
  try {
    (void)build_ring(topo);
  } catch (const data_error& e) {
    refuse(source, e.what());
  }
  return topo;
}

topology load_topology(const std::filesystem::path& path) {
  return parse_topology(io::read_file(path, max_topology_bytes), path.string());
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
    if (topo.nodes.empty()) {
      throw std::invalid_argument(fmt::format(
          "the change would leave {} without nodes, and a ring needs at least one to place "
          "keys; add the node that takes over first ('ringbloom ring add {} NAME'), then remove "
          "the last one",
          path.string(), path.string()));
    }
    (void)build_ring(topo);
    return to_json(topo);
  });
}

}  // namespace ringbloom
