// ringbloom/placement/strategies.hpp: every placement strategy by name, and
// a side-by-side measurement of them on the same keys and the same change.
//
// What it is. make_strategy("maglev", nodes) builds any of the strategies
// behind the one placement interface (placement.hpp):
//
//   name        header               weights  changes               nodes_for
//   ----------  -------------------  -------  --------------------  ---------
//   ring        ring_placement.hpp   integer  add, remove, reweight yes
//   ketama      ring_placement.hpp   integer  add, remove, reweight yes
//   rendezvous  rendezvous.hpp       yes      add, remove, reweight yes
//   maglev      maglev.hpp           yes      add, remove, reweight no
//   bounded     bounded_load.hpp     yes      add, remove, reweight no
//   multiprobe  multiprobe.hpp       no       add, remove           no
//   anchor      anchor.hpp           no       add, remove           no
//   memento     memento.hpp          no       add, remove           no
//   jump        jump_placement.hpp   no       add, remove the last  no
//   jumpback    jump_placement.hpp   no       add, remove the last  no
//   skeleton    skeleton.hpp         yes      add, remove, reweight no
//
// compare_strategies() places the same keys with each strategy before and
// after a sequence of changes ("add:x,remove:y,reweight:z=2") and reports,
// per strategy, the keys moved against the minimum possible, the balance
// after the change, memory, and lookup time. `ringbloom ring simulate
// --strategy` prints it; docs/placement.md explains every column.
//
// The minimum movement of a change is the total variation distance between
// the fair shares before and after, 1/2 x sum over nodes |s_before - s_after|
// (a node absent on one side has share 0 there): no placement that gives every
// node its fair share can move fewer keys in expectation. For one node added
// to N equal nodes it is 1/(N+1); for one of N removed, 1/N.
//
// Example:
//
//   #include <ringbloom/placement/strategies.hpp>
//   auto nodes = ringbloom::numbered_nodes(10);                  // n1..n10
//   auto changes = ringbloom::parse_placement_changes("add:n11");
//   auto result = ringbloom::compare_strategies(nodes, changes, {"ring", "maglev"},
//                                               ringbloom::numbered_keys(100000));
//   double moved = result.strategies[1].moved_fraction;          // maglev's
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

/// The knobs of every strategy, with the defaults the comparison uses.
struct strategy_options {
  std::uint32_t ring_vnodes = 160;     ///< ring and bounded: points per unit weight
  hash_kind ring_hash = default_hash;  ///< ring: the key and point hash
  std::uint32_t maglev_table = 65537;  ///< maglev: table size, a prime
  std::uint32_t probes = 21;           ///< multiprobe: probes per key
  double epsilon = 0.25;               ///< bounded: allowed excess over the fair share
  std::uint32_t anchor_capacity = 0;   ///< anchor: buckets (0: max(2N, 16))
  std::uint32_t skeleton_fanout = 32;  ///< skeleton: children per tree node
};

/// The strategy names make_strategy knows, in table order.
[[nodiscard]] std::span<const std::string_view> strategy_names() noexcept;

/// The strategy `name` holding `nodes`. Throws std::invalid_argument for an
/// unknown name (the sentence lists the known ones) or what the strategy's
/// constructor throws.
[[nodiscard]] std::unique_ptr<placement> make_strategy(std::string_view name,
                                                       std::span<const placement_node> nodes,
                                                       const strategy_options& options = {});

/// The names of the placement_change bits in `bits`: "add", "remove_any",
/// "remove_last", "reweight", "replicas".
[[nodiscard]] std::vector<std::string> change_names(unsigned bits);

/// One step of a fleet change.
struct placement_step {
  enum class kind : std::uint8_t { add, remove, reweight };
  kind what = kind::add;
  std::string name;
  double weight = 1.0;  ///< add and reweight
  friend bool operator==(const placement_step&, const placement_step&) = default;
};

/// Parses "add:NAME[=W],remove:NAME,reweight:NAME=W,...". A weight W is a
/// number from 1 to 2^32 - 1, the range of node weights everywhere (the ring
/// strategies further need a whole number). Throws std::invalid_argument
/// naming the bad step and the accepted forms.
[[nodiscard]] std::vector<placement_step> parse_placement_changes(std::string_view text);

/// The rule of a node weight given to a strategy (parse_placement_changes'
/// W, Python's Placement weights): a number from 1 to 2^32 - 1, the range of
/// node weights everywhere. Returns `weight`, or throws std::invalid_argument
/// "<what> is W; give a number from 1 to 4294967295 ...".
double check_node_weight(double weight, std::string_view what);

/// `steps` written as parse_placement_changes reads them:
/// "add:n11,remove:n3,reweight:n2=3" (an add of weight 1 without "=1").
[[nodiscard]] std::string format_placement_changes(std::span<const placement_step> steps);

/// The strategies a list names: "all" (every strategy_names() entry, in
/// order) or comma-separated names. Throws std::invalid_argument naming
/// `option` for an unknown name ("--strategy 'chord' is not a strategy; use
/// one of ring, ... or all") and for a list that names none.
[[nodiscard]] std::vector<std::string> parse_strategy_list(std::string_view list,
                                                           std::string_view option = "--strategy");

/// Applies `steps` to a node list (checking them: no duplicate add, no
/// unknown remove). Throws std::invalid_argument.
[[nodiscard]] std::vector<placement_node> apply_steps(std::vector<placement_node> nodes,
                                                      std::span<const placement_step> steps);

/// Applies one step to a placement (add_node, remove_node or set_weight).
void apply_step(placement& p, const placement_step& step);

/// The minimum fraction of keys a change from `before` to `after` must move
/// (see the header comment).
[[nodiscard]] double ideal_moved_fraction(std::span<const placement_node> before,
                                          std::span<const placement_node> after);

/// Nodes n1..nN, weight 1.
[[nodiscard]] std::vector<placement_node> numbered_nodes(std::size_t count, std::size_t first = 1);
/// Keys "key-0".."key-(count-1)" (the seed lessons' keys).
[[nodiscard]] std::vector<std::string> numbered_keys(std::size_t count);

/// The placement of every key: owner names as indexes into `names`.
struct key_owners {
  std::vector<std::string> names;
  std::vector<std::uint32_t> owners;
};

/// Where `p` puts each key of `hashes` (computed with p.key_hash). For a
/// bounded_load_placement the keys are assigned in order (the counts are
/// cleared first), so the result respects the capacities.
[[nodiscard]] key_owners place_all(placement& p, std::span<const std::uint64_t> hashes);

/// One strategy's row of the comparison. When the strategy cannot make the
/// change, `supported` is false, `unsupported_reason` says why, and the
/// movement and balance fields describe nothing (the CLI prints "-").
struct strategy_result {
  std::string name;
  bool supported = true;
  std::string unsupported_reason;
  std::uint64_t keys = 0;
  std::uint64_t moved = 0;
  double moved_fraction = 0;
  double ideal_fraction = 0;
  /// The share of the moved keys that moved to or from a changed node
  /// (1 when every move was necessary).
  double changed_share = 0;
  /// After the change: the largest of count_i / fair count_i (1 is perfect),
  /// and the smallest and largest share of the keys.
  double peak_avg = 0;
  double min_share = 0;
  double max_share = 0;
  /// After the change, from placement::ownership() rather than from the
  /// keys: its basis ("hash_space": exact shares of the hash space;
  /// "expectation": the algorithm's expected shares; "counted_load": bounded's
  /// counted keys; empty when the placement defines none) and the same three
  /// balance figures computed from those shares.
  std::string ownership_basis;
  double owned_peak_avg = 0;
  double owned_min_share = 0;
  double owned_max_share = 0;
  std::size_t memory_bytes = 0;
  /// Nanoseconds per pre-hashed lookup after the change, through the
  /// virtual interface: the best of several passes over the keys, in thread
  /// CPU time (0 when not measured).
  double lookup_ns = 0;
  std::vector<std::string> supports;
};

struct strategy_comparison {
  std::uint64_t keys = 0;
  std::vector<placement_node> before;
  std::vector<placement_node> after;
  double ideal_fraction = 0;
  std::vector<strategy_result> strategies;
};

/// The largest comparison check_comparison_size lets through: every strategy
/// is built for each change and looks up every key in each, so nodes plus
/// changes (about 3 s and 150 MB over all strategies at the bound) and keys
/// times changes are bounded.
inline constexpr std::size_t max_comparison_nodes = 10'000;
inline constexpr std::uint64_t max_comparison_key_lookups = 20'000'000;

/// Refuses, before any work, a comparison of `nodes` and `changes` over
/// `keys` keys beyond those bounds, or whose rings (`ring_vnodes` points per
/// node and change) exceed max_topology_points: std::invalid_argument saying
/// what to give fewer of. Front ends call it before building keys.
void check_comparison_size(std::size_t nodes, std::size_t changes, std::uint64_t keys,
                           std::uint32_t ring_vnodes);

/// Measures each strategy of `names` on `keys`, from `nodes` through
/// `changes`. Lookup time is measured only when `time_lookups` (it varies
/// from run to run). Throws std::invalid_argument for an unknown strategy,
/// bad nodes, bad changes or no keys.
[[nodiscard]] strategy_comparison compare_strategies(std::span<const placement_node> nodes,
                                                     std::span<const placement_step> changes,
                                                     std::span<const std::string> names,
                                                     std::span<const std::string> keys,
                                                     const strategy_options& options = {},
                                                     bool time_lookups = true);

}  // namespace ringbloom
