// `ringbloom ring ...`: consistent hash rings from the command line.
//
//   simulate --nodes LIST|N --add LIST|N [--remove LIST] [--keys K] ...
//                                   the seed lessons' experiment: modulo vs ring
//   lookup (--ring FILE | --nodes LIST ...) [--replicas N] [KEY...]
//                                   key<TAB>node, streamed from stdin if no keys
//   init FILE --nodes LIST ...      create a topology file
//   add FILE NODE... [--tokens T]   add nodes to a topology file (locked update)
//   remove FILE NAME...             remove nodes from a topology file
//   show FILE                       nodes, points, ownership, memory
//   diff OLD NEW [--keys K|FILE]    the movement plan between two topologies
//   import SYSTEM FILE -o T.json    a system's configuration in (import_command.cpp)
//
// Topologies and --scheme values of a real system (nginx, haproxy, twemproxy,
// redis-cluster) are handed to scheme_commands.cpp.
//
// A thin skin over ringbloom/placement/ring.hpp and ringbloom/placement/topology.hpp: every
// number printed comes from a library call (ownership, load_tally,
// movement_tally, plan_movement). docs/ring.md describes the outputs.
#include <fmt/core.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "placement/scheme_commands.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/placement/change.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/open.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/ring_placement.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"
#include "simulate_strategies.hpp"

namespace ringbloom::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

/// The most keys simulate and diff count: 10^8 takes about 4 minutes with
/// sha256 (20 s with xxh3) on one core; the time is bounded by what was asked.
constexpr std::uint64_t max_keys = 100'000'000;

/// The most --replicas (as many as a count in --nodes makes).
constexpr std::uint64_t max_node_count = max_node_list_count;

/// Peak bytes per ring point while a ring is built (positions, owners and the
/// sorted batch of new points), measured: 16.7 million points took 594 MB.
constexpr std::uint64_t build_bytes_per_point = 40;

topology_node topology_node_of(const placement_node& n) {
  return {n.name, static_cast<std::uint32_t>(n.weight), {}};
}

/// A --nodes list (node_list.hpp) as a topology's nodes.
std::vector<topology_node> parse_nodes(std::string_view list) {
  std::vector<topology_node> nodes;
  for (const auto& n : parse_node_list(list)) nodes.push_back(topology_node_of(n));
  return nodes;
}

/// Options shared by the commands that build a ring from the command line.
struct ring_flags {
  std::uint32_t vnodes = 0;  // 0: the scheme's default
  std::string hash;
  std::string scheme = "ring";
};

void add_ring_flags(CLI::App& cmd, ring_flags& flags) {
  add_number_option(cmd, "--vnodes", flags.vnodes, between<std::uint32_t>(1, max_points_per_node),
                    "Points per unit of weight (default 100)");
  cmd.add_option("--hash", flags.hash, "xxh3 (default), sha256, poly31 or md5");
  cmd.add_option("--scheme", flags.scheme,
                 fmt::format("{} (default), {} (libmemcached's placement; names are host:port), "
                             "or a system: {}",
                             scheme_name(ring_scheme::native), scheme_name(ring_scheme::ketama),
                             fmt::join(schemes::system_scheme_names(), ", ")));
}

ring_options options_from(const ring_flags& flags) {
  const ring_scheme scheme = parse_scheme(flags.scheme);
  if (scheme == ring_scheme::ketama) {
    if (flags.vnodes != 0 || (!flags.hash.empty() && flags.hash != "md5")) {
      throw usage_error(
          "the ketama scheme fixes the hash (md5) and the points per server (160); leave "
          "--hash and --vnodes out");
    }
    return ring_options::ketama();
  }
  ring_options options;
  if (flags.vnodes != 0) options.vnodes = flags.vnodes;
  if (!flags.hash.empty()) options.hash = parse_hash(flags.hash);
  return options;
}

/// The ring of a topology given by the arguments (--nodes, --vnodes ...):
/// its refusals are usage errors, and a ring larger than the memory available
/// is refused before it is built (the points limit is checked first, by
/// build_ring, before anything is allocated).
hash_ring build_from_arguments(const topology& topo) {
  const std::uint64_t points = topology_points(topo);
  if (points <= max_topology_points) {
    require_memory(points * build_bytes_per_point,
                   fmt::format("a ring of {} points ({} nodes, --vnodes {})", points,
                               topo.nodes.size(), topo.options.vnodes),
                   "lower --vnodes, the weights or the number of nodes");
  }
  try {
    return build_ring(topo);
  } catch (const data_error& e) {
    throw usage_error(e.what());  // the topology came from the arguments
  }
}

// --- simulate ----------------------------------------------------------------

struct simulate_options {
  std::string nodes;
  std::string add;
  std::string remove;
  std::uint64_t keys = 20000;
  std::string key_format = "key-{}";
  ring_flags ring;
  bool json = false;
  std::string strategy;  // --strategy: the strategies side by side
  std::string change;
  std::vector<std::string> strategy_settings;  // --strategy-option KEY=VALUE
};

// Bounds of --strategy, checked before any work (check_comparison_size).
void check_strategy_work(const simulate_options& o, const std::vector<placement_node>& nodes,
                         const std::vector<placement_step>& steps) {
  for (const auto& n : nodes) check_node_name(n.name);
  for (const auto& s : steps) check_node_name(s.name);
  if (steps.empty()) {
    throw usage_error(
        "--strategy compares a change, and none was given; add --change add:NAME (or "
        "remove:NAME, reweight:NAME=W), --add or --remove");
  }
  try {
    check_comparison_size(nodes.size(), steps.size(), o.keys, o.ring.vnodes);
  } catch (const std::invalid_argument& e) {
    throw usage_error(fmt::format("--strategy: {}", e.what()));
  }
  require_memory(o.keys * (sizeof(std::string) + o.key_format.size() + 24),
                 fmt::format("--keys {}", o.keys), "give fewer --keys");
}

// --strategy: the same nodes, keys and change for each placement strategy
// (simulate_strategies.cpp prints the table).
void run_strategy_simulate(const simulate_options& o) {
  constexpr std::uint64_t max_strategy_keys = 10'000'000;
  if (o.keys == 0 || o.keys > max_strategy_keys) {
    throw usage_error(fmt::format("--keys {} is outside 1..{} for --strategy; give fewer keys",
                                  o.keys, max_strategy_keys));
  }
  const std::vector<placement_node> nodes = parse_node_list(o.nodes);
  std::vector<placement_step> steps;
  if (!o.add.empty()) {
    for (const auto& n : parse_node_list(o.add, {.first = nodes.size() + 1, .option = "--add"}))
      steps.push_back({placement_step::kind::add, n.name, n.weight});
  }
  for (const auto name : split_list(o.remove))
    steps.push_back({placement_step::kind::remove, std::string(name), 1.0});
  if (!o.change.empty()) {
    try {
      for (auto& step : parse_placement_changes(o.change)) steps.push_back(std::move(step));
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("--change: {}", e.what()));
    }
  }
  check_strategy_work(o, nodes, steps);
  strategy_options options;
  if (o.ring.vnodes != 0) options.ring_vnodes = o.ring.vnodes;
  if (!o.ring.hash.empty()) options.ring_hash = parse_hash(o.ring.hash);
  for (const auto& setting : o.strategy_settings)
    apply_strategy_option(options, setting, nodes.size());
  std::vector<std::string> keys;
  keys.reserve(o.keys);
  key_pattern make_key(o.key_format);
  for (std::uint64_t i = 0; i < o.keys; ++i) keys.push_back(make_key(i));
  run_strategy_simulation(o.strategy, nodes, steps, keys, o.key_format, options, o.json);
}

void run_simulate(const simulate_options& o) {
  if (!o.strategy.empty()) {
    run_strategy_simulate(o);
    return;
  }
  if (!o.change.empty()) {
    throw usage_error("--change needs --strategy; add --strategy all (or a strategy's name)");
  }
  if (!o.strategy_settings.empty()) {
    throw usage_error(
        "--strategy-option needs --strategy; add --strategy with the strategy it sets");
  }
  if (schemes::is_system_scheme(o.ring.scheme)) {
    run_scheme_simulate(o.ring.scheme, o.nodes, o.add, o.remove, o.keys, o.key_format, o.json);
    return;
  }
  const ring_options options = options_from(o.ring);
  const std::vector<placement_node> nodes_before = parse_node_list(o.nodes);
  const std::vector<placement_node> nodes_after = change_node_list(nodes_before, o.add, o.remove);
  const auto build = [&](const std::vector<placement_node>& nodes) {
    topology topo{options, {}};
    for (const auto& n : nodes) topo.nodes.push_back(topology_node_of(n));
    return ring_placement(build_from_arguments(topo));
  };
  const ring_placement before_p = build(nodes_before);
  const ring_placement after_p = build(nodes_after);
  const hash_ring& before = before_p.ring();
  const hash_ring& after = after_p.ring();
  const modulo_placement modulo_before(before);
  const modulo_placement modulo_after(after);

  // The ring's figures (and the least possible, by weight) from
  // measure_change; hash % N beside it, the lesson's contrast.
  change_tally ring_moves(before_p, after_p, nodes_before, nodes_after);
  movement_tally modulo_moves(modulo_before, modulo_after);
  key_pattern make_key(o.key_format);
  for (std::uint64_t i = 0; i < o.keys; ++i) {
    const std::string& key = make_key(i);
    ring_moves.add(key);
    modulo_moves.add(key);
  }
  const change_measure ring_result = ring_moves.result();
  const auto& modulo_result = modulo_moves.result();
  const auto shares_json = [&](const hash_ring& ring, bool after_change) {
    json doc = json::object();
    for (const auto& node : ring.nodes()) {
      doc[node.name] =
          after_change ? ring_result.share_after(node.name) : ring_result.share_before(node.name);
    }
    return doc;
  };

  if (o.json) {
    json moved_to = json::object();
    for (const auto& [node, count] : ring_result.moved_to) moved_to[node] = count;
    json doc;
    doc["keys"] = o.keys;
    doc["scheme"] = scheme_name(options.scheme);
    doc["hash"] = hash_name(options.hash);
    doc["vnodes"] = options.vnodes;
    doc["modulo"] = {{"moved", modulo_result.moved},
                     {"moved_fraction", modulo_result.moved_fraction()}};
    doc["ideal_moved_fraction"] = ring_result.ideal_fraction;
    doc["ring"] = {{"moved", ring_result.moved},
                   {"moved_fraction", ring_result.moved_fraction()},
                   {"shares_before", shares_json(before, false)},
                   {"shares_after", shares_json(after, true)},
                   {"moved_to", moved_to}};
    print_json(doc);
    return;
  }
  fmt::print("{} keys ({}), scheme {}, hash {}, {} vnodes\n", o.keys, o.key_format,
             scheme_name(options.scheme), hash_name(options.hash), options.vnodes);
  fmt::print("nodes: {} before, {} after\n", before.node_count(), after.node_count());
  fmt::print("modulo (hash % N): {} of {} keys moved ({})\n", modulo_result.moved, o.keys,
             percent(modulo_result.moved_fraction()));
  fmt::print("ring:              {} of {} keys moved ({}); the least possible is {}\n",
             ring_result.moved, o.keys, percent(ring_result.moved_fraction()),
             percent(ring_result.ideal_fraction));
  fmt::print("\n{:<20} {:>8} {:>8}\n", "node", "before", "after");
  for (const auto& node : after.nodes()) {
    fmt::print("{:<20} {:>8} {:>8}\n", node.name,
               before.find_node(node.name) ? percent(ring_result.share_before(node.name)) : "-",
               percent(ring_result.share_after(node.name)));
  }
  for (const auto name : split_list(o.remove)) {
    fmt::print("{:<20} {:>8} {:>8}\n", name, percent(ring_result.share_before(std::string(name))),
               "-");
  }
  fmt::print("\nmoved keys went to (ring):\n");
  if (ring_result.moved_to.empty()) fmt::print("  (none)\n");
  for (const auto& [node, count] : ring_result.moved_to) fmt::print("  {:<18} {}\n", node, count);
}

void add_simulate(CLI::App& ring) {
  auto o = std::make_shared<simulate_options>();
  auto* cmd = ring.add_subcommand(
      "simulate", "Measure how many keys move under hash % N and under a ring when nodes change");
  cmd->add_option("--nodes", o->nodes, "The nodes before: a count N (n1..nN) or NAME[=WEIGHT],...")
      ->required();
  cmd->add_option("--add", o->add, "Nodes to add: a count (continuing the numbering) or names");
  cmd->add_option("--remove", o->remove, "Names of nodes to remove, comma-separated");
  add_number_option(*cmd, "--keys", o->keys, between<std::uint64_t>(1, max_keys),
                    "How many keys (default 20000)");
  cmd->add_option("--key-format", o->key_format,
                  "Key pattern, {} is the key number (default key-{})");
  add_ring_flags(*cmd, o->ring);
  cmd->add_option(
      "--strategy", o->strategy,
      "Compare placement strategies on the change: ring, ketama, rendezvous, maglev, "
      "bounded, multiprobe, anchor, memento, jump, jumpback, skeleton, a comma list, or all");
  cmd->add_option("--change", o->change,
                  "With --strategy, a change sequence: add:NAME[=W],remove:NAME,reweight:NAME=W");
  cmd->add_option("--strategy-option", o->strategy_settings,
                  "With --strategy, one strategy's setting as KEY=VALUE (repeatable): "
                  "maglev-table (default 65537), probes (multiprobe, 21), epsilon (bounded, "
                  "0.25), anchor-capacity (0: max(2N, 16)), skeleton-fanout (32)")
      ->type_name("KEY=VALUE");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  set_example(*cmd,
              "ringbloom ring simulate --nodes 4 --add 1 --keys 20000 --hash sha256\n"
              "  ringbloom ring simulate --nodes 100 --change add:n101 --strategy all\n"
              "  ringbloom ring simulate --nodes 1000 --change remove:n7 --strategy skeleton "
              "--strategy-option skeleton-fanout=8");
  cmd->callback([o] { run_simulate(*o); });
}

// --- lookup ------------------------------------------------------------------

struct lookup_options {
  std::string ring_file;
  std::vector<std::string> from;  // SYSTEM FILE
  config_source config;
  std::string nodes;
  ring_flags ring;
  std::size_t replicas = 0;
  std::vector<std::string> keys;
  bool json = false;
};

// One path: --from, --ring, --scheme SYSTEM --nodes or --nodes each make a
// placement, and print_lookup prints its answers.
void run_lookup(const lookup_options& o) {
  std::unique_ptr<placement> p;
  if (!o.from.empty()) {
    config_source source = o.config;
    source.system = o.from.at(0);
    source.file = o.from.at(1);
    p = import_config(source);
  } else if (!o.ring_file.empty()) {
    p = open_placement(o.ring_file);
  } else if (schemes::is_system_scheme(o.ring.scheme)) {
    p = scheme_from_nodes(o.ring.scheme, o.nodes);
  } else {
    if (o.nodes.empty()) throw usage_error("give the ring as --ring FILE or --nodes LIST");
    p = std::make_unique<ring_placement>(
        build_from_arguments(topology{options_from(o.ring), parse_nodes(o.nodes)}));
  }
  const bool native_ring = dynamic_cast<const ring_placement*>(p.get()) != nullptr;
  print_lookup(*p, o.replicas, native_ring, o.keys, o.json);
}

void add_lookup(CLI::App& ring) {
  auto o = std::make_shared<lookup_options>();
  auto* cmd = ring.add_subcommand(
      "lookup", "Print the node of each key (arguments, or one per line from stdin)");
  auto* file = cmd->add_option("--ring", o->ring_file, "A topology file (see 'ring init')");
  auto* from = cmd->add_option("--from", o->from,
                               "SYSTEM FILE: a system's own configuration, read as 'ring import' "
                               "reads it (nginx, haproxy, twemproxy, envoy, redis-cluster, "
                               "cassandra)")
                   ->expected(2)
                   ->allow_extra_args(false)
                   ->type_name("SYSTEM FILE");
  auto* nodes = cmd->add_option("--nodes", o->nodes,
                                "The nodes: a count N or NAME[=WEIGHT],... (ketama: host:port)");
  file->excludes(nodes);
  from->excludes(file)->excludes(nodes);
  add_ring_flags(*cmd, o->ring);
  for (auto* ring_flag : {"--scheme", "--hash", "--vnodes"})
    from->excludes(cmd->get_option(ring_flag));
  add_config_options(*cmd, o->config, from);
  add_number_option(*cmd, "--replicas", o->replicas, between<std::size_t>(1, max_node_count),
                    "Print the first N distinct nodes clockwise (owner first), comma-separated");
  cmd->add_option("keys", o->keys, "Keys to place; when none are given, read stdin");
  cmd->add_flag("--json", o->json, "Print one JSON object per key");
  set_example(
      *cmd,
      "ringbloom ring lookup --nodes a,b,c=2 user:42 user:43\n"
      "  ringbloom ring lookup --from nginx /etc/nginx/nginx.conf --upstream backend /a /b");
  cmd->callback([o] { run_lookup(*o); });
}

// --- init / add / remove / show ----------------------------------------------

json topology_summary(const std::string& file, const hash_ring& ring) {
  const auto shares = ownership(ring);
  json nodes = json::array();
  for (std::size_t i = 0; i < ring.node_count(); ++i) {
    const auto& node = ring.nodes()[i];
    json entry;
    entry["name"] = node.name;
    if (node.tokens.empty()) {
      entry["weight"] = node.weight;
    } else {
      entry["tokens"] = node.tokens;
    }
    entry["points"] = node.points;
    entry["ownership"] = shares[i].share;
    nodes.push_back(std::move(entry));
  }
  json doc;
  doc["file"] = file;
  doc["scheme"] = scheme_name(ring.options().scheme);
  doc["hash"] = hash_name(ring.options().hash);
  doc["vnodes"] = ring.options().vnodes;
  doc["nodes"] = std::move(nodes);
  doc["points"] = ring.point_count();
  doc["memory_bytes"] = ring.memory_bytes();
  return doc;
}

void print_summary(const std::string& file, const hash_ring& ring) {
  fmt::print("{}: scheme {}, hash {}, {} vnodes, {} nodes, {} points, {} bytes in memory\n", file,
             scheme_name(ring.options().scheme), hash_name(ring.options().hash),
             ring.options().vnodes, ring.node_count(), ring.point_count(), ring.memory_bytes());
  if (ring.empty()) return;
  const auto shares = ownership(ring);
  fmt::print("{:<24} {:>8} {:>8} {:>10}\n", "node", "weight", "points", "ownership");
  for (std::size_t i = 0; i < ring.node_count(); ++i) {
    const auto& node = ring.nodes()[i];
    fmt::print("{:<24} {:>8} {:>8} {:>10}\n", node.name,
               node.tokens.empty() ? std::to_string(node.weight) : "tokens", node.points,
               percent(shares[i].share));
  }
}

struct init_options {
  std::string file;
  std::string nodes;
  ring_flags ring;
  bool force = false;
  bool json = false;
};

void run_init(const init_options& o) {
  refuse_output(o.file, o.force);
  topology topo{options_from(o.ring), {}};
  if (!o.nodes.empty()) topo.nodes = parse_nodes(o.nodes);
  const hash_ring ring = build_from_arguments(topo);
  save_topology(o.file, topo);
  if (o.json) {
    print_json(topology_summary(o.file, ring));
  } else {
    print_summary(o.file, ring);
  }
}

void add_init(CLI::App& ring) {
  auto o = std::make_shared<init_options>();
  auto* cmd = ring.add_subcommand("init", "Create a topology file");
  cmd->add_option("file", o->file, "The topology file to write")->required();
  cmd->add_option("--nodes", o->nodes, "Initial nodes: a count N or NAME[=WEIGHT],...");
  add_ring_flags(*cmd, o->ring);
  cmd->add_flag("--force", o->force, "Replace FILE if it exists");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom ring init cluster.json --nodes cache-a,cache-b,cache-c=2");
  cmd->callback([o] { run_init(*o); });
}

// Applies `change` to the topology file under its lock and reports how much
// of the hash space changed owner.
void change_file(const std::string& file, bool as_json,
                 const std::function<void(topology&)>& change) {
  hash_ring before;
  hash_ring after;
  update_topology(file, [&](topology& topo) {
    before = build_ring(topo);
    change(topo);
    try {
      after = build_ring(topo);
    } catch (const data_error& e) {
      throw usage_error(e.what());  // the change came from the arguments
    }
  });
  const double moved = space_moved_fraction(before, after);
  if (as_json) {
    json doc = topology_summary(file, after);
    doc["moved_fraction"] = moved;
    print_json(doc);
  } else {
    print_summary(file, after);
    fmt::print("{} of the hash space changed owner\n", percent(moved));
  }
}

struct add_options {
  std::string file;
  std::vector<std::string> nodes;
  std::string tokens;
  bool json = false;
};

void run_add(const add_options& o) {
  std::vector<topology_node> fresh;
  for (const auto& spec : o.nodes) fresh.push_back(topology_node_of(parse_node(spec)));
  if (!o.tokens.empty()) {
    if (fresh.size() != 1 || o.nodes[0].find('=') != std::string::npos) {
      throw usage_error("--tokens places exactly one node, given without a weight");
    }
    for (const auto t : split_list(o.tokens)) {
      fresh[0].tokens.push_back(
          parse_number(t, "a token of --tokens", at_least<std::uint64_t>(0),
                       "write positions on the ring, comma-separated, such as 5,1000"));
    }
  }
  change_file(o.file, o.json, [&](topology& topo) {
    for (const auto& node : fresh) {
      for (const auto& existing : topo.nodes) {
        if (existing.name == node.name) {
          throw usage_error(
              fmt::format("node '{}' is already in {}; remove it first or choose "
                          "another name",
                          node.name, o.file));
        }
      }
      topo.nodes.push_back(node);
    }
  });
}

void add_add(CLI::App& ring) {
  auto o = std::make_shared<add_options>();
  auto* cmd = ring.add_subcommand("add", "Add nodes to a topology file");
  cmd->add_option("file", o->file, "The topology file to update")->required();
  cmd->add_option("nodes", o->nodes, "Nodes to add: NAME or NAME=WEIGHT")->required();
  cmd->add_option("--tokens", o->tokens,
                  "Explicit positions for the one node added, comma-separated (ring scheme)");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom ring add cluster.json cache-d=2");
  cmd->callback([o] { run_add(*o); });
}

struct remove_options {
  std::string file;
  std::vector<std::string> names;
  bool json = false;
};

void run_remove(const remove_options& o) {
  change_file(o.file, o.json, [&](topology& topo) {
    for (const auto& name : o.names) {
      const auto it = std::find_if(topo.nodes.begin(), topo.nodes.end(),
                                   [&](const topology_node& n) { return n.name == name; });
      if (it == topo.nodes.end()) {
        throw usage_error(
            fmt::format("node '{}' is not in {}; nothing to remove (see 'ringbloom "
                        "ring show {}')",
                        name, o.file, o.file));
      }
      topo.nodes.erase(it);
    }
  });
}

void add_remove(CLI::App& ring) {
  auto o = std::make_shared<remove_options>();
  auto* cmd = ring.add_subcommand("remove", "Remove nodes from a topology file");
  cmd->add_option("file", o->file, "The topology file to update")->required();
  cmd->add_option("names", o->names, "Names of the nodes to remove")->required();
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom ring remove cluster.json cache-b");
  cmd->callback([o] { run_remove(*o); });
}

void add_show(CLI::App& ring) {
  auto [cmd, o] =
      add_file_command(ring, "show", "Show a topology file's nodes, points and ownership",
                       {.file = "The topology file", .items = "", .json = "Print as JSON"},
                       "ringbloom ring show cluster.json");
  cmd->callback([o = o] {
    const hash_ring shown = build_ring(load_topology(o->file));
    if (o->json) {
      print_json(topology_summary(o->file, shown));
    } else {
      print_summary(o->file, shown);
    }
  });
}

// --- diff --------------------------------------------------------------------

struct diff_options {
  std::string old_file;
  std::string new_file;
  config_source config;  // system: --from SYSTEM (old and new are its configurations)
  std::string keys;      // a count, or (system schemes) a file of keys
  std::string key_format = "key-{}";
  bool json = false;
};

// One path: OLD and NEW become placements (configurations with --from,
// topology files otherwise); two native rings get the exact plan of hash
// ranges, any other pair, and rings given a --keys FILE, the keys' movement
// (print_scheme_diff).
void run_diff(const diff_options& o) {
  const auto open = [&](const std::string& file) {
    if (o.config.system.empty()) return open_placement(file);
    config_source source = o.config;
    source.file = file;
    return import_config(source);
  };
  const std::unique_ptr<placement> before_p = open(o.old_file);
  const std::unique_ptr<placement> after_p = open(o.new_file);
  const auto* before_ring = dynamic_cast<const ring_placement*>(before_p.get());
  const auto* after_ring = dynamic_cast<const ring_placement*>(after_p.get());
  if (before_ring == nullptr || after_ring == nullptr || is_keys_file(o.keys)) {
    print_scheme_diff(*before_p, *after_p, o.old_file, o.new_file, o.keys, o.key_format, o.json);
    return;
  }
  const hash_ring& before = before_ring->ring();
  const hash_ring& after = after_ring->ring();
  std::uint64_t key_count = 0;
  if (!o.keys.empty()) {
    key_count = parse_number<std::uint64_t>(o.keys, "--keys", between<std::uint64_t>(1, max_keys));
  }
  movement_plan plan;
  try {
    plan = plan_movement(before, after);
  } catch (const std::invalid_argument& e) {
    throw data_error(e.what());
  }
  const std::vector<range_flow> flows = range_flows(plan, before.space_max());
  std::optional<key_movement> keys;
  if (key_count > 0) {
    movement_tally tally(before, after);
    key_pattern make_key(o.key_format);
    for (std::uint64_t i = 0; i < key_count; ++i) tally.add(make_key(i));
    keys = tally.result();
  }
  if (o.json) {
    json doc;
    doc["moved_fraction"] = plan.moved_fraction;
    json flow_doc = json::array();
    for (const auto& f : flows) {
      flow_doc.push_back({{"from", f.from}, {"to", f.to}, {"fraction", f.fraction}});
    }
    doc["flows"] = std::move(flow_doc);
    json ranges = json::array();
    for (const auto& r : plan.ranges) {
      ranges.push_back({{"first", r.first}, {"last", r.last}, {"from", r.from}, {"to", r.to}});
    }
    doc["ranges"] = std::move(ranges);
    if (keys) {
      json moved_to = json::object();
      for (const auto& [node, count] : keys->moved_to) moved_to[node] = count;
      doc["keys"] = {{"keys", keys->keys},
                     {"moved", keys->moved},
                     {"moved_fraction", keys->moved_fraction()},
                     {"moved_to", moved_to}};
    }
    print_json(doc);
    return;
  }
  fmt::print("{} of the hash space changes owner, in {} ranges\n", percent(plan.moved_fraction),
             plan.ranges.size());
  for (const auto& f : flows) fmt::print("  {} -> {}: {}\n", f.from, f.to, percent(f.fraction));
  if (keys) {
    fmt::print("{} of {} keys ({}) move ({})\n", keys->moved, keys->keys, o.key_format,
               percent(keys->moved_fraction()));
  }
  fmt::print("\n{:<20} {:<20} {} -> {}\n", "first", "last", "from", "to");
  for (const auto& r : plan.ranges) {
    fmt::print("{:<20} {:<20} {} -> {}\n", r.first, r.last, r.from, r.to);
  }
}

void add_diff(CLI::App& ring) {
  auto o = std::make_shared<diff_options>();
  auto* cmd = ring.add_subcommand(
      "diff", "Print the movement plan between two topology files: which hash ranges move where");
  cmd->add_option("old", o->old_file, "The topology before (with --from: the configuration)")
      ->required();
  cmd->add_option("new", o->new_file, "The topology after (with --from: the configuration)")
      ->required();
  auto* from =
      cmd->add_option("--from", o->config.system,
                      "OLD and NEW are configurations of this system, read as 'ring import' reads "
                      "them: nginx, haproxy, twemproxy, envoy, redis-cluster or cassandra");
  add_config_options(*cmd, o->config, from);
  cmd->add_option("--keys", o->keys,
                  "Also count how many of K keys move (1.." + std::to_string(max_keys) +
                      "), or a FILE of keys (one per line), whose moved keys are listed");
  cmd->add_option("--key-format", o->key_format,
                  "Key pattern, {} is the key number (default key-{})");
  cmd->add_flag("--json", o->json, "Print as JSON");
  set_example(*cmd,
              "ringbloom ring diff before.json after.json --keys 100000\n"
              "  ringbloom ring diff --from haproxy old.cfg new.cfg --backend web --keys keys.txt");
  cmd->callback([o] { run_diff(*o); });
}

}  // namespace

void add_ring_commands(CLI::App& app, context& /*ctx*/) {
  auto* ring =
      app.add_subcommand("ring", "Consistent hash rings: simulate, look up, keep topologies");
  ring->require_subcommand(1);
  set_example(*ring, "ringbloom ring simulate --nodes 4 --add 1 --hash sha256");
  add_simulate(*ring);
  add_lookup(*ring);
  add_init(*ring);
  add_add(*ring);
  add_remove(*ring);
  add_show(*ring);
  add_diff(*ring);
  add_ring_import(*ring);
}

}  // namespace ringbloom::cli
