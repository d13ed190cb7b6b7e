// The strategy factory and the side-by-side comparison.
#include "ringbloom/placement/strategies.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/anchor.hpp"
#include "ringbloom/placement/bounded_load.hpp"
#include "ringbloom/placement/jump_placement.hpp"
#include "ringbloom/placement/maglev.hpp"
#include "ringbloom/placement/memento.hpp"
#include "ringbloom/placement/multiprobe.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/rendezvous.hpp"
#include "ringbloom/placement/ring_placement.hpp"
#include "ringbloom/placement/skeleton.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom {

namespace {

constexpr std::array<std::string_view, 11> names_in_order{
    "ring",   "ketama",  "rendezvous", "maglev",   "bounded", "multiprobe",
    "anchor", "memento", "jump",       "jumpback", "skeleton"};

std::string known_names() {
  std::string list;
  for (const auto name : names_in_order) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The range of node weights everywhere else (topology files, --nodes
// NAME=WEIGHT, the ring): 1 to 2^32 - 1. Fractions inside it are kept for the
// strategies that weigh by real numbers (rendezvous, maglev, bounded); the
// ring refuses them itself.
constexpr double max_change_weight = 4294967295.0;

double parse_weight(std::string_view text, std::string_view step) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value) || value < 1.0 || value > max_change_weight) {
    throw std::invalid_argument(
        fmt::format("change '{}' has no valid weight; write a number from 1 to 4294967295 "
                    "(2^32 - 1, the range of node weights) after '='",
                    step));
  }
  return value;
}

}  // namespace

double check_node_weight(double weight, std::string_view what) {
  if (!std::isfinite(weight) || weight < 1.0 || weight > max_change_weight) {
    throw std::invalid_argument(fmt::format(
        "{} is {}; give a number from 1 to 4294967295 (2^32 - 1, the range of node weights)", what,
        weight));
  }
  return weight;
}

std::span<const std::string_view> strategy_names() noexcept { return names_in_order; }

std::unique_ptr<placement> make_strategy(std::string_view name,
                                         std::span<const placement_node> nodes,
                                         const strategy_options& o) {
  if (name == "ring") {
    return std::make_unique<ring_placement>(
        nodes, ring_options{o.ring_vnodes, o.ring_hash, ring_scheme::native});
  }
  if (name == "ketama") return std::make_unique<ring_placement>(nodes, ring_options::ketama());
  if (name == "rendezvous") return std::make_unique<rendezvous_placement>(nodes);
  if (name == "maglev")
    return std::make_unique<maglev_placement>(nodes, maglev_options{o.maglev_table});
  if (name == "bounded") {
    return std::make_unique<bounded_load_placement>(nodes,
                                                    bounded_load_options{o.ring_vnodes, o.epsilon});
  }
  if (name == "multiprobe") {
    return std::make_unique<multiprobe_placement>(nodes, multiprobe_options{o.probes, 0});
  }
  if (name == "anchor") {
    return std::make_unique<anchor_placement>(nodes, anchor_options{o.anchor_capacity});
  }
  if (name == "memento") return std::make_unique<memento_placement>(nodes);
  if (name == "jump") return std::make_unique<jump_placement>(nodes);
  if (name == "jumpback") {
    return std::make_unique<jump_placement>(nodes, jump_algorithm::jump_back);
  }
  if (name == "skeleton") {
    return std::make_unique<skeleton_placement>(nodes, skeleton_options{o.skeleton_fanout, 0});
  }
  throw std::invalid_argument(
      fmt::format("'{}' is not a placement strategy; use one of {}", name, known_names()));
}

std::vector<std::string> change_names(unsigned bits) {
  static constexpr std::array<std::pair<unsigned, std::string_view>, 5> all{{
      {placement_change::add, "add"},
      {placement_change::remove_any, "remove_any"},
      {placement_change::remove_last, "remove_last"},
      {placement_change::reweight, "reweight"},
      {placement_change::replicas, "replicas"},
  }};
  std::vector<std::string> out;
  for (const auto& [bit, name] : all) {
    if ((bits & bit) != 0) out.emplace_back(name);
  }
  return out;
}

std::vector<placement_step> parse_placement_changes(std::string_view text) {
  std::vector<placement_step> steps;
  constexpr std::string_view forms = "write add:NAME[=W], remove:NAME or reweight:NAME=W";
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (part.empty()) continue;
    const auto colon = part.find(':');
    if (colon == std::string_view::npos) {
      throw std::invalid_argument(fmt::format("change '{}' has no ':'; {}", part, forms));
    }
    const std::string_view verb = part.substr(0, colon);
    std::string_view rest = trim(part.substr(colon + 1));
    placement_step step;
    if (verb == "add") {
      step.what = placement_step::kind::add;
    } else if (verb == "remove") {
      step.what = placement_step::kind::remove;
    } else if (verb == "reweight") {
      step.what = placement_step::kind::reweight;
    } else {
      throw std::invalid_argument(fmt::format(
          "change '{}' starts with '{}', which is not a change; {}", part, verb, forms));
    }
    const auto eq = rest.find('=');
    if (eq != std::string_view::npos) {
      if (step.what == placement_step::kind::remove) {
        throw std::invalid_argument(
            fmt::format("change '{}' gives a weight to a removal; {}", part, forms));
      }
      step.weight = parse_weight(trim(rest.substr(eq + 1)), part);
      rest = trim(rest.substr(0, eq));
    } else if (step.what == placement_step::kind::reweight) {
      throw std::invalid_argument(fmt::format("change '{}' has no '=W'; {}", part, forms));
    }
    if (rest.empty()) {
      throw std::invalid_argument(fmt::format("change '{}' names no node; {}", part, forms));
    }
    step.name = std::string(rest);
    steps.push_back(std::move(step));
  }
  if (steps.empty()) {
    throw std::invalid_argument(fmt::format("the change list is empty; {}", forms));
  }
  return steps;
}

std::string format_placement_changes(std::span<const placement_step> steps) {
  std::string out;
  for (const auto& s : steps) {
    if (!out.empty()) out += ',';
    switch (s.what) {
      case placement_step::kind::add:
        out += s.weight == 1.0 ? fmt::format("add:{}", s.name)
                               : fmt::format("add:{}={}", s.name, s.weight);
        break;
      case placement_step::kind::remove:
        out += fmt::format("remove:{}", s.name);
        break;
      case placement_step::kind::reweight:
        out += fmt::format("reweight:{}={}", s.name, s.weight);
        break;
    }
  }
  return out;
}

std::vector<std::string> parse_strategy_list(std::string_view list, std::string_view option) {
  const auto known = strategy_names();
  std::vector<std::string> out;
  if (trim(list) == "all") {
    for (const auto name : known) out.emplace_back(name);
    return out;
  }
  for (const std::string_view name : split_list(list)) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::invalid_argument(fmt::format("{} '{}' is not a strategy; use one of {} or all",
                                              option, printable(name), fmt::join(known, ", ")));
    }
    out.emplace_back(name);
  }
  if (out.empty()) {
    throw std::invalid_argument(fmt::format("{} names no strategy; give a name or all", option));
  }
  return out;
}

std::vector<placement_node> apply_steps(std::vector<placement_node> nodes,
                                        std::span<const placement_step> steps) {
  for (const auto& step : steps) {
    const auto it = std::find_if(nodes.begin(), nodes.end(),
                                 [&](const placement_node& n) { return n.name == step.name; });
    switch (step.what) {
      case placement_step::kind::add:
        if (it != nodes.end()) {
          throw std::invalid_argument(fmt::format(
              "change add:{} adds a node that is already there; choose a new name", step.name));
        }
        nodes.push_back({step.name, step.weight});
        break;
      case placement_step::kind::remove:
      case placement_step::kind::reweight:
        if (it == nodes.end()) {
          throw std::invalid_argument(fmt::format(
              "change {}:{} names a node that is not there; name one of the nodes",
              step.what == placement_step::kind::remove ? "remove" : "reweight", step.name));
        }
        if (step.what == placement_step::kind::remove) {
          nodes.erase(it);
        } else {
          it->weight = step.weight;
        }
        break;
    }
  }
  if (nodes.empty()) {
    throw std::invalid_argument("the changes remove every node; keep at least one");
  }
  return nodes;
}

void apply_step(placement& p, const placement_step& step) {
  switch (step.what) {
    case placement_step::kind::add:
      p.add_node({step.name, step.weight});
      return;
    case placement_step::kind::remove:
      p.remove_node(step.name);
      return;
    case placement_step::kind::reweight:
      p.set_weight(step.name, step.weight);
      return;
  }
}

double ideal_moved_fraction(std::span<const placement_node> before,
                            std::span<const placement_node> after) {
  std::map<std::string, std::pair<double, double>> shares;
  double total_before = 0;
  double total_after = 0;
  for (const auto& n : before) total_before += n.weight;
  for (const auto& n : after) total_after += n.weight;
  for (const auto& n : before) shares[n.name].first = n.weight / total_before;
  for (const auto& n : after) shares[n.name].second = n.weight / total_after;
  double sum = 0;
  for (const auto& [name, s] : shares) sum += std::abs(s.first - s.second);
  return sum / 2;
}

std::vector<placement_node> numbered_nodes(std::size_t count, std::size_t first) {
  std::vector<placement_node> nodes;
  nodes.reserve(count);
  for (std::size_t i = 0; i < count; ++i) nodes.push_back({fmt::format("n{}", first + i), 1.0});
  return nodes;
}

std::vector<std::string> numbered_keys(std::size_t count) {
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i) keys.push_back(fmt::format("key-{}", i));
  return keys;
}

key_owners place_all(placement& p, std::span<const std::uint64_t> hashes) {
  key_owners out;
  out.names.reserve(p.node_count());
  for (std::uint32_t i = 0; i < p.node_count(); ++i) out.names.push_back(p.node_name(i));
  if (auto* bounded = dynamic_cast<bounded_load_placement*>(&p)) {
    out.owners = bounded->assign_all(hashes);
    return out;
  }
  out.owners.reserve(hashes.size());
  for (const std::uint64_t h : hashes) out.owners.push_back(p.node_index_for_hash(h));
  return out;
}

namespace {

std::vector<std::uint64_t> hashes_of(const placement& p, std::span<const std::string> keys) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(keys.size());
  for (const auto& key : keys) hashes.push_back(p.key_hash(key));
  return hashes;
}

// The CPU time of this thread, in nanoseconds: on a shared machine it
// counts only the time the lookups ran, not the time others held the core.
double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The best of a few timed passes over the pre-hashed keys, through the
// virtual call, each pass summing the answers so none is optimised away.
double time_lookups_ns(const placement& p, std::span<const std::uint64_t> hashes) {
  double best = 0;
  double spent = 0;
  std::uint64_t sink = 0;
  for (int pass = 0; pass < 20; ++pass) {
    const double start = thread_cpu_ns();
    for (const std::uint64_t h : hashes) sink += p.node_index_for_hash(h);
    const double ns = thread_cpu_ns() - start;
    spent += ns;
    const double per_key = ns / static_cast<double>(hashes.size());
    if (pass == 0 || per_key < best) best = per_key;
    if (pass >= 2 && spent > 2e8) break;  // at least 3 passes, about 0.2 s of CPU
  }
  volatile std::uint64_t keep = sink;
  (void)keep;
  return best;
}

void fill_balance(strategy_result& r, const key_owners& placed,
                  std::span<const placement_node> nodes) {
  std::map<std::string, double> weight;
  double total = 0;
  for (const auto& n : nodes) {
    weight[n.name] = n.weight;
    total += n.weight;
  }
  std::vector<std::uint64_t> counts(placed.names.size(), 0);
  for (const std::uint32_t o : placed.owners) ++counts[o];
  const auto keys = static_cast<double>(placed.owners.size());
  r.peak_avg = 0;
  r.min_share = 1;
  r.max_share = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double share = static_cast<double>(counts[i]) / keys;
    const double fair = weight[placed.names[i]] / total;
    r.peak_avg = std::max(r.peak_avg, share / fair);
    r.min_share = std::min(r.min_share, share);
    r.max_share = std::max(r.max_share, share);
  }
}

// The balance figures of placement::ownership() after the change, where the
// placement defines it (bounded: after place_all, its counted keys).
void fill_ownership(strategy_result& r, const placement& p, std::span<const placement_node> nodes) {
  const auto own = p.ownership();
  if (!own) return;
  r.ownership_basis = std::string(ownership_basis_name(own->basis));
  std::map<std::string_view, double> weight;
  double total = 0;
  for (const auto& n : nodes) {
    weight[n.name] = n.weight;
    total += n.weight;
  }
  r.owned_peak_avg = 0;
  r.owned_min_share = 1;
  r.owned_max_share = 0;
  for (std::uint32_t i = 0; i < own->shares.size(); ++i) {
    const auto it = weight.find(p.node_name(i));
    const double fair = it == weight.end() ? 0.0 : it->second / total;
    const double share = own->shares[i];
    if (fair > 0) r.owned_peak_avg = std::max(r.owned_peak_avg, share / fair);
    r.owned_min_share = std::min(r.owned_min_share, share);
    r.owned_max_share = std::max(r.owned_max_share, share);
  }
}

strategy_result measure(std::string_view name, std::span<const placement_node> nodes,
                        std::span<const placement_step> changes,
                        std::span<const placement_node> after_nodes,
                        std::span<const std::string> keys, const strategy_options& options,
                        bool time_lookups) {
  strategy_result r;
  r.name = std::string(name);
  r.keys = keys.size();
  r.ideal_fraction = ideal_moved_fraction(nodes, after_nodes);
  std::unique_ptr<placement> p;
  try {
    p = make_strategy(name, nodes, options);
  } catch (const std::invalid_argument& e) {
    // The strategy cannot hold these nodes (weights it does not have, a
    // ketama name that is not host:port): the row says why.
    r.supported = false;
    r.unsupported_reason = e.what();
    return r;
  }
  r.supports = change_names(p->supports());
  const std::vector<std::uint64_t> hashes = hashes_of(*p, keys);
  const key_owners before = place_all(*p, hashes);
  std::unique_ptr<placement> after = p->clone();
  try {
    for (const auto& step : changes) apply_step(*after, step);
  } catch (const std::exception& e) {
    // A change it does not support, or a strategy's own limit (anchor's capacity, a
    // ring weight that is not whole): the row says why.
    r.supported = false;
    r.unsupported_reason = e.what();
    r.memory_bytes = p->memory_bytes();
    return r;
  }
  const key_owners placed = place_all(*after, hashes);
  std::set<std::string> changed;
  for (const auto& step : changes) changed.insert(step.name);
  std::uint64_t moved_changed = 0;
  for (std::size_t k = 0; k < hashes.size(); ++k) {
    const std::string& from = before.names[before.owners[k]];
    const std::string& to = placed.names[placed.owners[k]];
    if (from == to) continue;
    ++r.moved;
    if (changed.count(from) != 0 || changed.count(to) != 0) ++moved_changed;
  }
  r.moved_fraction = static_cast<double>(r.moved) / static_cast<double>(r.keys);
  r.changed_share =
      r.moved == 0 ? 1.0 : static_cast<double>(moved_changed) / static_cast<double>(r.moved);
  fill_balance(r, placed, after_nodes);
  fill_ownership(r, *after, after_nodes);
  r.memory_bytes = after->memory_bytes();
  if (time_lookups) r.lookup_ns = time_lookups_ns(*after, hashes);
  return r;
}

}  // namespace

strategy_comparison compare_strategies(std::span<const placement_node> nodes,
                                       std::span<const placement_step> changes,
                                       std::span<const std::string> names,
                                       std::span<const std::string> keys,
                                       const strategy_options& options, bool time_lookups) {
  if (keys.empty()) {
    throw std::invalid_argument("the comparison has no keys; give 1 or more keys");
  }
  for (const auto& name : names) {
    if (std::find(names_in_order.begin(), names_in_order.end(), name) == names_in_order.end()) {
      throw std::invalid_argument(
          fmt::format("'{}' is not a placement strategy; use one of {}", name, known_names()));
    }
  }
  strategy_comparison out;
  out.keys = keys.size();
  out.before.assign(nodes.begin(), nodes.end());
  out.after = apply_steps(out.before, changes);
  out.ideal_fraction = ideal_moved_fraction(out.before, out.after);
  for (const auto& name : names) {
    out.strategies.push_back(measure(name, nodes, changes, out.after, keys, options, time_lookups));
  }
  return out;
}

void check_comparison_size(std::size_t nodes, std::size_t changes, std::uint64_t keys,
                           std::uint32_t ring_vnodes) {
  if (nodes + changes > max_comparison_nodes) {
    throw std::invalid_argument(
        fmt::format("a comparison of {} nodes and {} changes is more than the {} nodes and "
                    "changes it takes; give fewer nodes or changes",
                    nodes, changes, max_comparison_nodes));
  }
  const std::uint64_t points = std::uint64_t{ring_vnodes} * (nodes + changes);
  if (points > max_topology_points) {
    throw std::invalid_argument(fmt::format(
        "{} ring points per node for {} nodes and changes make {} points, more than the limit "
        "of {}; give fewer vnodes",
        ring_vnodes, nodes + changes, points, max_topology_points));
  }
  const std::uint64_t lookups = keys * std::max<std::uint64_t>(changes, 1);
  if (lookups > max_comparison_key_lookups) {
    throw std::invalid_argument(fmt::format(
        "a comparison of {} keys over {} changes asks for {} key lookups per strategy, more "
        "than {}; give fewer keys or changes",
        keys, changes, lookups, max_comparison_key_lookups));
  }
}

}  // namespace ringbloom
