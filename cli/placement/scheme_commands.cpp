// The system schemes in `ring lookup`, `ring diff` and `ring simulate`
// (see scheme_commands.hpp). A thin skin over
// ringbloom/placement/schemes/: every placement comes from a library call.
#include "scheme_commands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::cli {
namespace {

using json = nlohmann::ordered_json;

std::string percent(double fraction) { return fmt::format("{:.2f}%", 100.0 * fraction); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

/// A count N (n1..nN, numbered from `first`) or NAME[=WEIGHT],... (a weight
/// may be 0 where the system allows it).
std::vector<placement_node> parse_node_list(std::string_view list, std::size_t first = 1) {
  std::vector<placement_node> nodes;
  if (const auto count = parse_count(trim(list))) {
    if (*count > 100000)
      throw usage_error(fmt::format(
          "{} nodes is more than this command makes (100000); give at most 100000", *count));
    for (std::uint64_t i = 0; i < *count; ++i)
      nodes.push_back({fmt::format("n{}", first + i), 1.0});
    return nodes;
  }
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view spec = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (spec.empty()) continue;
    const std::size_t eq = spec.rfind('=');
    placement_node node{std::string(trim(spec.substr(0, eq))), 1.0};
    if (eq != std::string_view::npos) {
      const auto w = parse_count(trim(spec.substr(eq + 1)));
      if (!w)
        throw usage_error(
            fmt::format("'{}' has no valid weight; write NAME=WEIGHT with an integer", spec));
      node.weight = static_cast<double>(*w);
    }
    if (node.name.empty())
      throw usage_error(fmt::format("'{}' has no node name; write NAME or NAME=WEIGHT", spec));
    nodes.push_back(std::move(node));
  }
  if (nodes.empty())
    throw usage_error("--nodes names no nodes; give a count (4) or names (a,b,c or a=1,b=2)");
  return nodes;
}

std::unique_ptr<placement> from_nodes(const std::string& scheme,
                                      const std::vector<placement_node>& nodes) {
  try {
    for (const auto& n : nodes) check_node_name(n.name);
    return schemes::make_scheme_placement(scheme, nodes);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

std::unique_ptr<placement> load(const std::string& file) {
  std::unique_ptr<placement> p = schemes::load_scheme_topology(file);
  require_node_names(*p, file);
  if (p->node_count() == 0) throw data_error(fmt::format("{}: the topology has no nodes", file));
  return p;
}

/// Keys from `keys`: a count of generated keys (key_format) or a file.
struct key_source {
  std::vector<std::string> from_file;
  std::uint64_t count = 0;
  std::string format;
  bool is_file = false;

  [[nodiscard]] std::uint64_t size() const { return is_file ? from_file.size() : count; }
  template <class F>
  void each(F&& f) const {
    if (is_file) {
      for (const std::string& k : from_file) f(std::string_view(k));
      return;
    }
    std::string key;
    for (std::uint64_t i = 0; i < count; ++i) {
      key.clear();
      std::string_view rest = format;
      const std::string number = std::to_string(i);
      for (auto at = rest.find("{}"); at != std::string_view::npos; at = rest.find("{}")) {
        key.append(rest.substr(0, at));
        key.append(number);
        rest.remove_prefix(at + 2);
      }
      key.append(rest);
      f(std::string_view(key));
    }
  }
};

/// The most keys a count may ask for (as `ring diff` for native rings), and
/// the largest keys file.
constexpr std::uint64_t max_scheme_keys = 100'000'000;
constexpr std::uint64_t max_keys_file_bytes = std::uint64_t{1} << 30;

key_source make_keys(const std::string& keys, const std::string& format,
                     std::uint64_t default_count) {
  key_source src;
  src.format = format;
  if (src.format.find("{}") == std::string::npos) {
    throw usage_error(fmt::format(
        "--key-format '{}' has no '{{}}' for the key number; write e.g. 'key-{{}}'", format));
  }
  if (keys.empty()) {
    src.count = default_count;
  } else if (keys.find_first_not_of("+-0123456789") == std::string::npos) {
    // A count, read as `ring diff` reads it for native rings (no wrap-around).
    src.count =
        parse_number<std::uint64_t>(keys, "--keys", between<std::uint64_t>(1, max_scheme_keys));
  } else {
    src.is_file = true;
    const std::string text = io::read_file(keys, max_keys_file_bytes);
    const auto lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    require_memory(lines * (sizeof(std::string) + 32),
                   fmt::format("--keys {} ({} lines)", keys, lines), "give a file with fewer keys");
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!line.empty()) src.from_file.emplace_back(line);
      pos = end + 1;
    }
  }
  return src;
}

}  // namespace

void require_node_names(const placement& p, std::string_view source) {
  for (std::uint32_t i = 0; i < p.node_count(); ++i) {
    try {
      check_node_name(p.node_name(i));
    } catch (const std::invalid_argument& e) {
      throw data_error(fmt::format("{}: {}", source, e.what()));
    }
  }
}

bool uses_system_scheme(const std::string& scheme, const std::string& file) {
  if (schemes::is_system_scheme(scheme)) return true;
  if (file.empty()) return false;
  return schemes::is_system_scheme(schemes::topology_scheme(io::read_file(file), file));
}

void run_scheme_lookup(const std::string& file, const std::string& scheme, const std::string& nodes,
                       std::size_t replicas, const std::vector<std::string>& keys, bool as_json) {
  if (file.empty() && nodes.empty())
    throw usage_error(fmt::format("give --nodes LIST with --scheme {}", scheme));
  const std::unique_ptr<placement> p =
      file.empty() ? from_nodes(scheme, parse_node_list(nodes)) : load(file);
  print_scheme_lookup(*p, replicas, keys, as_json);
}

void print_scheme_lookup(const placement& pl, std::size_t replicas,
                         const std::vector<std::string>& keys, bool as_json) {
  const placement* p = &pl;
  if (replicas > 1 && (p->supports() & placement_change::replicas) == 0) {
    throw usage_error(fmt::format(
        "the {} scheme places each key on one server; leave --replicas out", p->kind_name()));
  }
  std::string line;
  for_each_item(keys, [&](std::string_view key) {
    if (replicas > 1) {
      const std::vector<std::string> names = p->nodes_for(key, replicas);
      if (as_json) {
        const json doc = {{"key", key}, {"nodes", names}};
        fmt::print("{}\n", doc.dump(-1, ' ', false, json::error_handler_t::replace));
        return;
      }
      line.assign(key);
      line.push_back('\t');
      for (std::size_t i = 0; i < names.size(); ++i) line += (i == 0 ? "" : ",") + names[i];
      line.push_back('\n');
      std::fwrite(line.data(), 1, line.size(), stdout);
      return;
    }
    const std::string& server = p->node_for(key);
    if (as_json) {
      const json doc = {{"key", key}, {"node", server}};
      fmt::print("{}\n", doc.dump(-1, ' ', false, json::error_handler_t::replace));
      return;
    }
    line.assign(key);
    line.push_back('\t');
    line += server;
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  });
}

void run_scheme_diff(const std::string& old_file, const std::string& new_file,
                     const std::string& keys, const std::string& key_format, bool as_json) {
  const std::unique_ptr<placement> before_p = load(old_file);
  const std::unique_ptr<placement> after_p = load(new_file);
  print_scheme_diff(*before_p, *after_p, old_file, new_file, keys, key_format, as_json);
}

void print_scheme_diff(const placement& before_ref, const placement& after_ref,
                       const std::string& old_file, const std::string& new_file,
                       const std::string& keys, const std::string& key_format, bool as_json) {
  const placement* before = &before_ref;
  const placement* after = &after_ref;
  if (before->kind_name() != after->kind_name()) {
    throw data_error(
        fmt::format("{} is a {} topology and {} a {} one; compare two topologies of one system",
                    old_file, before->kind_name(), new_file, after->kind_name()));
  }
  const key_source src = make_keys(keys, key_format, 100000);
  std::map<std::pair<std::string, std::string>, std::uint64_t> flows;
  std::vector<std::array<std::string, 3>> moved_keys;
  std::uint64_t moved = 0;
  src.each([&](std::string_view key) {
    const std::string& from = before->node_for(key);
    const std::string& to = after->node_for(key);
    if (from == to) return;
    ++moved;
    ++flows[{from, to}];
    if (src.is_file) moved_keys.push_back({std::string(key), from, to});
  });
  const double fraction =
      src.size() == 0 ? 0.0 : static_cast<double>(moved) / static_cast<double>(src.size());
  // Redis Cluster: the exact share of the slot space too.
  std::optional<std::uint32_t> slots_moved;
  const auto* rb = dynamic_cast<const schemes::redis_cluster_placement*>(before);
  const auto* ra = dynamic_cast<const schemes::redis_cluster_placement*>(after);
  if (rb != nullptr && ra != nullptr) {
    std::uint32_t n = 0;
    for (std::uint32_t s = 0; s < schemes::redis_slot_count; ++s) {
      const std::uint32_t b = rb->slot_owner(s);
      const std::uint32_t a = ra->slot_owner(s);
      const std::string_view bn = b == rb->no_owner ? std::string_view("(none)") : rb->node_name(b);
      const std::string_view an = a == ra->no_owner ? std::string_view("(none)") : ra->node_name(a);
      n += bn != an ? 1 : 0;
    }
    slots_moved = n;
  }
  const std::string keys_label =
      src.is_file ? keys : fmt::format("{} keys {}", src.count, src.format);
  if (as_json) {
    json doc;
    doc["scheme"] = std::string(before->kind_name());
    doc["keys"] = src.size();
    doc["keys_from"] = keys_label;
    doc["moved"] = moved;
    doc["moved_fraction"] = fraction;
    if (slots_moved) {
      doc["slots_moved"] = *slots_moved;
      doc["slots_moved_fraction"] = *slots_moved / 16384.0;
    }
    json flow_doc = json::array();
    for (const auto& [pair, count] : flows)
      flow_doc.push_back({{"from", pair.first}, {"to", pair.second}, {"keys", count}});
    doc["flows"] = std::move(flow_doc);
    if (src.is_file) {
      json list = json::array();
      for (const auto& m : moved_keys)
        list.push_back({{"key", m[0]}, {"from", m[1]}, {"to", m[2]}});
      doc["moved_keys"] = std::move(list);
    }
    print_json(doc);
    return;
  }
  fmt::print("{}: {} of {} keys ({}) move ({})\n", before->kind_name(), moved, src.size(),
             keys_label, percent(fraction));
  if (slots_moved)
    fmt::print("{} of 16384 slots change master ({})\n", *slots_moved,
               percent(*slots_moved / 16384.0));
  for (const auto& [pair, count] : flows) {
    fmt::print("  {} -> {}: {} keys ({})\n", pair.first, pair.second, count,
               percent(static_cast<double>(count) / static_cast<double>(src.size())));
  }
  if (src.is_file && !moved_keys.empty()) {
    fmt::print("\nkey\tfrom\tto\n");
    for (const auto& m : moved_keys) fmt::print("{}\t{}\t{}\n", m[0], m[1], m[2]);
  }
}

void run_scheme_simulate(const std::string& scheme, const std::string& nodes,
                         const std::string& add, const std::string& remove, std::uint64_t keys,
                         const std::string& key_format, bool as_json) {
  std::vector<placement_node> before_nodes = parse_node_list(nodes);
  std::vector<placement_node> after_nodes = before_nodes;
  if (!add.empty()) {
    for (auto& n : parse_node_list(add, before_nodes.size() + 1))
      after_nodes.push_back(std::move(n));
  }
  std::vector<std::string> removed;
  std::string_view rest = remove;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string name(trim(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (name.empty()) continue;
    const auto it = std::find_if(after_nodes.begin(), after_nodes.end(),
                                 [&](const auto& n) { return n.name == name; });
    if (it == after_nodes.end())
      throw usage_error(fmt::format("--remove names '{}', which is not among the nodes", name));
    after_nodes.erase(it);
    removed.push_back(name);
  }
  if (after_nodes.empty()) throw usage_error("--remove removes every node; keep at least one");
  const std::unique_ptr<placement> before = from_nodes(scheme, before_nodes);
  const std::unique_ptr<placement> after = from_nodes(scheme, after_nodes);
  const key_source src = make_keys(std::to_string(keys), key_format, keys);
  std::map<std::string, std::uint64_t> load_before;
  std::map<std::string, std::uint64_t> load_after;
  std::map<std::string, std::uint64_t> moved_to;
  std::uint64_t moved = 0;
  src.each([&](std::string_view key) {
    const std::string& b = before->node_for(key);
    const std::string& a = after->node_for(key);
    ++load_before[b];
    ++load_after[a];
    if (a != b) {
      ++moved;
      ++moved_to[a];
    }
  });
  const auto peak = [&](const std::map<std::string, std::uint64_t>& load, const placement& p) {
    std::uint64_t top = 0;
    for (const auto& [n, c] : load) top = std::max(top, c);
    return keys == 0 ? 0.0
                     : static_cast<double>(top) * static_cast<double>(p.node_count()) /
                           static_cast<double>(keys);
  };
  const double fraction = keys == 0 ? 0.0 : static_cast<double>(moved) / static_cast<double>(keys);
  // The least that must move: the share the new nodes take, plus the share
  // of the removed nodes, under perfect balance.
  double ideal = 0.0;
  for (const auto& n : after_nodes) {
    const bool is_new = std::none_of(before_nodes.begin(), before_nodes.end(),
                                     [&](const auto& b) { return b.name == n.name; });
    if (is_new) ideal += 1.0 / static_cast<double>(after_nodes.size());
  }
  ideal += static_cast<double>(removed.size()) / static_cast<double>(before_nodes.size());
  if (as_json) {
    json doc;
    doc["scheme"] = scheme;
    doc["keys"] = keys;
    doc["nodes_before"] = before->node_count();
    doc["nodes_after"] = after->node_count();
    doc["moved"] = moved;
    doc["moved_fraction"] = fraction;
    doc["ideal_moved_fraction"] = ideal;
    doc["peak_to_average_before"] = peak(load_before, *before);
    doc["peak_to_average_after"] = peak(load_after, *after);
    json to = json::object();
    for (const auto& [n, c] : moved_to) to[n] = c;
    doc["moved_to"] = std::move(to);
    print_json(doc);
    return;
  }
  fmt::print("{} keys ({}), scheme {}\n", keys, key_format, scheme);
  fmt::print("nodes: {} before, {} after\n", before->node_count(), after->node_count());
  fmt::print("moved: {} of {} keys ({}); the least possible is {}\n", moved, keys,
             percent(fraction), percent(ideal));
  fmt::print("balance (largest load / average): {:.3f} before, {:.3f} after\n",
             peak(load_before, *before), peak(load_after, *after));
  fmt::print("\nmoved keys went to:\n");
  if (moved_to.empty()) fmt::print("  (none)\n");
  for (const auto& [n, c] : moved_to) fmt::print("  {:<18} {}\n", n, c);
}

}  // namespace ringbloom::cli
