// The system schemes in `ring lookup`, `ring diff` and `ring simulate`
// (see scheme_commands.hpp). A thin skin over
// ringbloom/placement/schemes/: every placement comes from a library call.
#include "scheme_commands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/line_reader.hpp"
#include "ringbloom/io/memory.hpp"
#include "ringbloom/placement/change.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::cli {
namespace {

using json = nlohmann::ordered_json;

/// A node list of --nodes or --add (node_list.hpp). The weight is the
/// system's to check (0 where it allows it, its own largest), so that the
/// refusal names the server and the system's limit.
constexpr node_list_options scheme_weights{.min_weight = 0,
                                           .max_weight = std::numeric_limits<std::uint64_t>::max()};

std::vector<placement_node> parse_node_list(std::string_view list) {
  return ringbloom::parse_node_list(list, scheme_weights);
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

/// The most keys a count may ask for (as `ring diff` for native rings).
constexpr std::uint64_t max_scheme_keys = 100'000'000;

/// --keys: a count of keys of `format` (default `default_count`) or a file.
key_source make_keys(const std::string& keys, const std::string& format,
                     std::uint64_t default_count) {
  key_pattern pattern(format);  // refuses a format without "{}"
  if (!keys.empty() && is_keys_file(keys)) {
    try {
      return key_source::read_file(keys);
    } catch (const io::memory_error& e) {
      throw usage_error(e.what());  // the size the user asked for, as other options' (exit 2)
    }
  }
  // A count, read as `ring diff` reads it for native rings (no wrap-around).
  return {std::move(pattern),
          keys.empty() ? default_count
                       : parse_number<std::uint64_t>(keys, "--keys",
                                                     between<std::uint64_t>(1, max_scheme_keys))};
}

}  // namespace

bool is_keys_file(const std::string& keys) {
  return keys.find_first_not_of("+-0123456789") != std::string::npos;
}

std::unique_ptr<placement> scheme_from_nodes(const std::string& scheme, const std::string& nodes) {
  if (nodes.empty()) throw usage_error(fmt::format("give --nodes LIST with --scheme {}", scheme));
  return from_nodes(scheme, parse_node_list(nodes));
}

void print_lookup(const placement& pl, std::size_t replicas, bool native_ring,
                  const std::vector<std::string>& keys, bool as_json) {
  const placement* p = &pl;
  if (!native_ring && replicas > 1 && (p->supports() & placement_change::replicas) == 0) {
    throw usage_error(fmt::format(
        "the {} scheme places each key on one server; leave --replicas out", p->kind_name()));
  }
  // A native ring lists nodes for any --replicas (also 1); a scheme from 2.
  const bool as_list = native_ring ? replicas > 0 : replicas > 1;
  std::string line;
  for_each_item(keys, [&](std::string_view key) {
    const std::vector<std::string> names =
        as_list ? p->nodes_for(key, replicas) : std::vector<std::string>{p->node_for(key)};
    if (as_json) {
      const json doc =
          as_list ? json{{"key", key}, {"nodes", names}} : json{{"key", key}, {"node", names[0]}};
      fmt::print("{}\n", json_line(doc));
      return;
    }
    line.assign(key);
    line.push_back('\t');
    for (std::size_t i = 0; i < names.size(); ++i) line += (i == 0 ? "" : ",") + names[i];
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  });
}

void print_scheme_diff(const placement& before, const placement& after, const std::string& old_file,
                       const std::string& new_file, const std::string& keys,
                       const std::string& key_format, bool as_json) {
  if (before.kind_name() != after.kind_name()) {
    throw data_error(fmt::format("{} is a {} topology and {} a {} one", old_file,
                                 before.kind_name(), new_file, after.kind_name()),
                     "compare two topologies of one system");
  }
  const key_source src = make_keys(keys, key_format, 100000);
  const change_measure m = measure_change(before, after, src);
  const std::string keys_label = src.label();
  if (as_json) {
    json doc;
    doc["scheme"] = std::string(before.kind_name());
    doc["keys"] = src.size();
    doc["keys_from"] = keys_label;
    doc["moved"] = m.moved;
    doc["moved_fraction"] = m.moved_fraction();
    if (m.slots_moved) {
      doc["slots_moved"] = *m.slots_moved;
      doc["slots_moved_fraction"] = *m.slots_moved_fraction();
    }
    json flow_doc = json::array();
    for (const auto& [pair, count] : m.flows)
      flow_doc.push_back({{"from", pair.first}, {"to", pair.second}, {"keys", count}});
    doc["flows"] = std::move(flow_doc);
    if (src.is_list()) {
      json list = json::array();
      for (const auto& k : m.moved_keys)
        list.push_back({{"key", k.key}, {"from", k.from}, {"to", k.to}});
      doc["moved_keys"] = std::move(list);
    }
    print_json(doc);
    return;
  }
  fmt::print("{}: {} of {} keys ({}) move ({})\n", before.kind_name(), m.moved, src.size(),
             keys_label, percent(m.moved_fraction()));
  if (m.slots_moved)
    fmt::print("{} of 16384 slots change master ({})\n", *m.slots_moved,
               percent(*m.slots_moved_fraction()));
  for (const auto& [pair, count] : m.flows) {
    fmt::print("  {} -> {}: {} keys ({})\n", pair.first, pair.second, count,
               percent(static_cast<double>(count) / static_cast<double>(src.size())));
  }
  if (!m.moved_keys.empty()) {
    fmt::print("\nkey\tfrom\tto\n");
    for (const auto& k : m.moved_keys) fmt::print("{}\t{}\t{}\n", k.key, k.from, k.to);
  }
}

void run_scheme_simulate(const std::string& scheme, const std::string& nodes,
                         const std::string& add, const std::string& remove, std::uint64_t keys,
                         const std::string& key_format, bool as_json) {
  const std::vector<placement_node> before_nodes = parse_node_list(nodes);
  const std::vector<placement_node> after_nodes =
      change_node_list(before_nodes, add, remove, scheme_weights);
  const std::unique_ptr<placement> before = from_nodes(scheme, before_nodes);
  const std::unique_ptr<placement> after = from_nodes(scheme, after_nodes);
  const change_measure m =
      measure_change(*before, *after, key_pattern(key_format), keys, before_nodes, after_nodes);
  if (as_json) {
    json doc;
    doc["scheme"] = scheme;
    doc["keys"] = keys;
    doc["nodes_before"] = before->node_count();
    doc["nodes_after"] = after->node_count();
    doc["moved"] = m.moved;
    doc["moved_fraction"] = m.moved_fraction();
    doc["ideal_moved_fraction"] = m.ideal_fraction;
    doc["peak_to_average_before"] = m.peak_to_average_before;
    doc["peak_to_average_after"] = m.peak_to_average_after;
    json to = json::object();
    for (const auto& [n, c] : m.moved_to) to[n] = c;
    doc["moved_to"] = std::move(to);
    print_json(doc);
    return;
  }
  fmt::print("{} keys ({}), scheme {}\n", keys, key_format, scheme);
  fmt::print("nodes: {} before, {} after\n", before->node_count(), after->node_count());
  fmt::print("moved: {} of {} keys ({}); the least possible is {}\n", m.moved, keys,
             percent(m.moved_fraction()), percent(m.ideal_fraction));
  fmt::print("balance (largest load / average): {:.3f} before, {:.3f} after\n",
             m.peak_to_average_before, m.peak_to_average_after);
  fmt::print("\nmoved keys went to:\n");
  if (m.moved_to.empty()) fmt::print("  (none)\n");
  for (const auto& [n, c] : m.moved_to) fmt::print("  {:<18} {}\n", n, c);
}

}  // namespace ringbloom::cli
