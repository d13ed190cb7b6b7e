// `ringbloom ring simulate --strategy ...`: one table of every strategy on
// the same keys and the same change. Every number comes from
// compare_strategies (ringbloom/placement/strategies.hpp); docs/placement.md
// explains the columns.
#include "simulate_strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "../common.hpp"
#include "ringbloom/placement/node_list.hpp"

namespace ringbloom::cli {

namespace {

using json = nlohmann::ordered_json;

std::string bytes(std::size_t n) {
  if (n >= 10 * 1024 * 1024) return fmt::format("{} MiB", n / (1024 * 1024));
  if (n >= 10 * 1024) return fmt::format("{} KiB", n / 1024);
  return fmt::format("{} B", n);
}

json row_json(const strategy_result& r) {
  json row;
  row["name"] = r.name;
  row["supported"] = r.supported;
  if (r.supported) {
    row["moved"] = r.moved;
    row["moved_fraction"] = r.moved_fraction;
  } else {
    row["moved"] = nullptr;
    row["moved_fraction"] = nullptr;
  }
  row["ideal_fraction"] = r.ideal_fraction;
  if (r.supported) {
    row["changed_share"] = r.changed_share;
    row["peak_avg"] = r.peak_avg;
    row["min_share"] = r.min_share;
    row["max_share"] = r.max_share;
  } else {
    for (const char* f : {"changed_share", "peak_avg", "min_share", "max_share"}) row[f] = nullptr;
  }
  // From placement::ownership() after the change: exact shares of the hash
  // space, the algorithm's expected shares, or bounded's counted keys.
  if (r.supported && !r.ownership_basis.empty()) {
    row["ownership"] = r.ownership_basis;
    row["owned_peak_avg"] = r.owned_peak_avg;
    row["owned_min_share"] = r.owned_min_share;
    row["owned_max_share"] = r.owned_max_share;
  } else {
    for (const char* f : {"ownership", "owned_peak_avg", "owned_min_share", "owned_max_share"}) {
      row[f] = nullptr;
    }
  }
  row["memory_bytes"] = r.memory_bytes;
  row["lookup_ns"] = r.supported ? json(r.lookup_ns) : json(nullptr);
  row["supports"] = r.supports;
  if (!r.supported) row["reason"] = r.unsupported_reason;
  return row;
}

// The owned peak/avg column: exact for the hash space ("1.012"), the
// algorithm's expectation marked "~" ("~1.000"), "-" for bounded (its
// counted keys are the peak/avg column already) and where none is defined.
std::string owned(const strategy_result& r) {
  if (r.ownership_basis == "hash_space") return fmt::format("{:.3f}", r.owned_peak_avg);
  if (r.ownership_basis == "expectation") return fmt::format("~{:.3f}", r.owned_peak_avg);
  return "-";
}

void print_table(const strategy_comparison& c, std::span<const placement_step> steps,
                 std::string_view key_format) {
  fmt::print("{} keys ({}), {} nodes -> {} nodes ({}); the minimum movement is {}\n\n", c.keys,
             key_format, c.before.size(), c.after.size(), format_placement_changes(steps),
             percent(c.ideal_fraction));
  fmt::print("{:<11} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}  {}\n", "strategy",
             "moved", "x min", "changed", "peak/avg", "min share", "max share", "owned p/a",
             "memory", "ns/key", "supports");
  for (const auto& r : c.strategies) {
    if (!r.supported) {
      fmt::print("{:<11} {:>8} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8}  {}\n", r.name, "-",
                 "-", "-", "-", "-", "-", "-", bytes(r.memory_bytes), "-",
                 fmt::join(r.supports, ","));
      continue;
    }
    const std::string ratio =
        r.ideal_fraction > 0 ? fmt::format("{:.3f}", r.moved_fraction / r.ideal_fraction) : "-";
    fmt::print("{:<11} {:>8} {:>7} {:>8} {:>8.3f} {:>9} {:>9} {:>9} {:>9} {:>8.1f}  {}\n", r.name,
               percent(r.moved_fraction), ratio, percent(r.changed_share), r.peak_avg,
               percent(r.min_share), percent(r.max_share), owned(r), bytes(r.memory_bytes),
               r.lookup_ns, fmt::join(r.supports, ","));
  }
  for (const auto& r : c.strategies) {
    if (!r.supported) fmt::print("\n{}: {}", r.name, r.unsupported_reason);
  }
  fmt::print("\n");
  fmt::print(
      "moved: keys on another node after the change; x min: moved / minimum; changed: the share "
      "of moves to or from a changed node; owned p/a: peak/avg of the nodes' shares of the hash "
      "space (exact, from the placement's points or table; ~: the algorithm's expected shares); "
      "ns/key: CPU time per pre-hashed lookup after the "
      "change, through the virtual call\n");
}

}  // namespace

void apply_strategy_option(strategy_options& options, std::string_view key_value,
                           std::size_t node_count) {
  constexpr std::string_view option = "--strategy-option";
  const std::size_t equals = key_value.find('=');
  const std::string_view key = key_value.substr(0, equals);
  const std::string_view text =
      equals == std::string_view::npos ? std::string_view{} : key_value.substr(equals + 1);
  const auto count = [&] {
    return parse_number<std::uint32_t>(text, fmt::format("{} {}", option, key),
                                       between<std::uint32_t>(0, UINT32_MAX));
  };
  std::string_view strategy;
  if (key == "maglev-table") {
    options.maglev_table = count(), strategy = "maglev";
  } else if (key == "probes") {
    options.probes = count(), strategy = "multiprobe";
  } else if (key == "epsilon") {
    options.epsilon = parse_number<double>(text, fmt::format("{} {}", option, key),
                                           number_range<double>{0, 100, true, false});
    strategy = "bounded";
  } else if (key == "anchor-capacity") {
    options.anchor_capacity = count(), strategy = "anchor";
  } else if (key == "skeleton-fanout") {
    options.skeleton_fanout = count(), strategy = "skeleton";
  } else {
    throw usage_error(fmt::format(
        "{} '{}' is not a strategy option; give KEY=VALUE with KEY one of maglev-table, probes, "
        "epsilon, anchor-capacity, skeleton-fanout",
        option, key_value));
  }
  std::vector<placement_node> nodes;
  for (std::size_t i = 1; i <= node_count; ++i) nodes.push_back({fmt::format("n{}", i), 1.0});
  try {
    (void)make_strategy(strategy, nodes, options);
  } catch (const std::invalid_argument& e) {
    throw usage_error(fmt::format("{} {}: {}", option, key_value, e.what()));
  }
}

void run_strategy_simulation(std::string_view strategies, std::span<const placement_node> nodes,
                             std::span<const placement_step> steps,
                             std::span<const std::string> keys, std::string_view key_format,
                             const strategy_options& options, bool as_json) {
  strategy_comparison c;
  try {
    c = compare_strategies(nodes, steps, parse_strategy_list(strategies), keys, options, true);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());  // nodes and changes came from the arguments
  }
  if (!as_json) {
    print_table(c, steps, key_format);
    return;
  }
  json doc;
  doc["keys"] = c.keys;
  doc["nodes_before"] = c.before.size();
  doc["nodes_after"] = c.after.size();
  doc["changes"] = format_placement_changes(steps);
  doc["ideal_fraction"] = c.ideal_fraction;
  json rows = json::array();
  for (const auto& r : c.strategies) rows.push_back(row_json(r));
  doc["strategies"] = rows;
  print_json(doc);
}

}  // namespace ringbloom::cli
