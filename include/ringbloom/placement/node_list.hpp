// ringbloom/placement/node_list.hpp: the one grammar for a list of nodes
// given as text, "a=1,b=3" or a count "4", as `ringbloom ring ... --nodes`,
// `--add`, `--remove` and Python take it.
//
// The grammar. A list is either a count N, which makes the nodes
// n<first>..n<first+N-1> of weight 1 (first = 1 for --nodes; --add continues
// the numbering), or NAME[=WEIGHT] items separated by commas. Blanks around
// an item, a name or a weight are ignored, and so are empty items ("a,,b").
// The weight is an integer from `min_weight` (1, or 0 where a system gives a
// server weight 0) to `max_weight` (2^32 - 1, or more where the placement
// checks its own limit and names the server); a name splits at its last '=' (so "a=b=2" is
// node "a=b" of weight 2, and the ring then refuses the name).
//
// Errors are std::invalid_argument sentences that name the list as the caller
// calls it (node_list_options::option) and say what to write.
//
// Example:
//
//   auto nodes = ringbloom::parse_node_list("a=1,b=3");        // {a, 1}, {b, 3}
//   ringbloom::node_list_options add;
//   add.first = 3;
//   auto added = ringbloom::parse_node_list("2", add);   // n3, n4
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

/// The most nodes a count in a node list makes.
inline constexpr std::uint64_t max_node_list_count = 100'000;

/// The largest weight of NAME=WEIGHT.
inline constexpr std::uint64_t max_node_list_weight = 0xFFFF'FFFFu;

/// The items of a comma-separated list, each trimmed of blanks (spaces,
/// tabs), empty items skipped. The views point into `list`.
[[nodiscard]] std::vector<std::string_view> split_list(std::string_view list);

struct node_list_options {
  /// A count N makes n<first>..n<first+N-1>.
  std::size_t first = 1;
  /// How messages name the list ("--nodes", "--add").
  std::string_view option = "--nodes";
  /// The smallest weight accepted: 1, or 0 for systems that allow it.
  std::uint64_t min_weight = 1;
  /// The largest: max_node_list_weight, or more where the placement itself
  /// checks the weight and names the node (a system scheme's own limit).
  std::uint64_t max_weight = max_node_list_weight;
};

/// One item, "NAME" or "NAME=WEIGHT". Throws std::invalid_argument for an
/// empty name or a weight that is not an integer in [min_weight, max_weight].
[[nodiscard]] placement_node parse_node(std::string_view item, std::uint64_t min_weight = 1,
                                        std::uint64_t max_weight = max_node_list_weight);

/// A node list (see the header). Throws std::invalid_argument for a count
/// outside 1..100000, a bad item (parse_node), or a list that names no node.
[[nodiscard]] std::vector<placement_node> parse_node_list(std::string_view list,
                                                          const node_list_options& options = {});

/// The nodes after a change, as `ring simulate --add LIST --remove NAMES`
/// takes it: `before`, then the nodes of the node list `add` (a count
/// continues the numbering after before.size(); messages call it "--add"),
/// without the nodes named in the comma-separated `remove`. Either may be
/// empty. `add_options` sets the weights `add` may have (its first and
/// option are set here). Throws std::invalid_argument for a bad `add` (parse_node_list), a
/// name of `remove` that is not among the nodes, and a change that leaves no
/// node.
[[nodiscard]] std::vector<placement_node> change_node_list(std::vector<placement_node> before,
                                                           std::string_view add,
                                                           std::string_view remove,
                                                           node_list_options add_options = {});

}  // namespace ringbloom
