// ringbloom/placement/skeleton.hpp: skeleton-based hierarchical rendezvous
// hashing, O(f log_f N) per lookup instead of plain rendezvous's O(N).
//
// What it is. The nodes sit in numbered slots under a virtual tree of
// fan-out f (the "skeleton" of Wang and Ravishankar, "Skeleton-based
// hierarchical rendezvous hashing", 2009): a tree node of height k covers the
// slots [t f^k, (t+1) f^k). A key walks down from the root, and at each tree
// node picks one child by weighted rendezvous (the logarithmic method of
// rendezvous.hpp), a child weighing the summed weight of the nodes below it;
// at the bottom it picks a node of its leaf cluster the same way. Node i gets
// the keys with probability w_i / W, as in flat rendezvous (the product of
// the choices telescopes). At 10,000 nodes and f = 32 a lookup scores about
// 10 + 32 + 32 children instead of 10,000 nodes.
//
// When to use it. Fleets of thousands of nodes that want rendezvous's
// properties (weights, any node removable, no tables) at a bounded lookup
// cost, and accept extra movement on a change (below). For minimal movement
// at this size prefer anchor, memento or maglev.
//
// Movement, the price of the hierarchy. Adding node x raises the weight of
// every subtree above x. At each of the L levels weighted rendezvous moves
// keys into x's subtree from its siblings (about 1/(N+1) of all keys per
// level), and keys that enter a subtree high up land by score on old nodes of
// that subtree as well as on x. So an add or a removal moves about
// 1 + (L - 1)(1 - 1/f) times the minimum 1/(N+1); docs/placement.md has the
// measured numbers. Reweighting moves keys the same way. Inside one leaf
// cluster (N <= f) it is plain weighted rendezvous: minimal.
//
// Slots. The constructor fills slots 0..N-1 with the nodes sorted by name,
// so it does not depend on the order of `nodes`. add_node takes the lowest
// free slot (one a removal left, else a new one at the end); remove_node
// frees its node's slot; nodes never change slots. Hence a placement depends
// on its history of changes, not only on its set of nodes (like anchor and
// memento). Tree node (k, t) scores with a seed drawn from (k, t) and a leaf
// with xxh3_64(name, seed); neither changes when the tree grows a level.
//
// Limits: fan-out 2..1024; weights finite and > 0; no replicas
// (node_indexes_for_hash with n > 1 throws).
//
// Example:
//
//   #include <ringbloom/placement/skeleton.hpp>
//   auto nodes = ringbloom::numbered_nodes(10000);           // strategies.hpp
//   ringbloom::skeleton_placement sk(nodes, {.fanout = 32});
//   const std::string& owner = sk.node_for("user:42");
//   sk.remove_node("n17");                                   // its slot is reused by the next add
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/detail/strategy_support.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

struct skeleton_options {
  /// Children per tree node, 2..1024. Larger: fewer levels (less extra
  /// movement) and more scores per level.
  std::uint32_t fanout = 32;
  /// Salts the node and tree seeds and the key hash (xxh3_64(key, seed)).
  std::uint64_t seed = 0;
};

class skeleton_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, an empty or repeated name, a
  /// weight that is not finite and > 0, or a fan-out outside 2..1024.
  explicit skeleton_placement(std::span<const placement_node> nodes, skeleton_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "skeleton"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    std::uint32_t at = 0;  // the root
    for (std::uint32_t level = 0; level < levels_; ++level) {
      const tree_node& t = tree_[at];
      at = t.uniform ? best_uniform(h, t) : best_weighted(h, t);
    }
    return at;
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  /// Removes the node and frees its slot; the last node cannot be removed.
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] std::uint32_t fanout() const noexcept { return options_.fanout; }
  /// Levels of choices per lookup (1 when every node fits one leaf cluster).
  [[nodiscard]] std::uint32_t levels() const noexcept { return levels_; }
  /// The slot of node `index`.
  [[nodiscard]] std::uint32_t slot(std::uint32_t index) const { return slot_of_.at(index); }

 private:
  // One choice: the live children of a tree node are entries
  // [first, first + count) of the entry arrays.
  struct tree_node {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    bool uniform = true;  // every child weighs the same: compare the mixes
  };

  [[nodiscard]] std::uint32_t best_uniform(std::uint64_t h, const tree_node& t) const noexcept {
    std::uint32_t best = t.first;
    std::uint64_t best_score = 0;
    for (std::uint32_t e = t.first; e < t.first + t.count; ++e) {
      const std::uint64_t s = detail::fmix64(h ^ seeds_[e]);
      if (s > best_score) {
        best_score = s;
        best = e;
      }
    }
    return targets_[best];
  }
  [[nodiscard]] std::uint32_t best_weighted(std::uint64_t h, const tree_node& t) const noexcept;
  void rebuild();

  skeleton_options options_;
  std::vector<std::string> names_;         // node index -> name
  std::vector<double> weights_;            // node index -> weight
  std::vector<std::uint64_t> leaf_seeds_;  // node index -> xxh3_64(name, seed)
  std::vector<std::uint32_t> slot_of_;     // node index -> slot
  std::vector<std::uint32_t> slots_;       // slot -> node index, or free_slot
  // The tree, rebuilt on every change: tree_[0] is the root; an entry's
  // target is a tree_ index above the last level and a node index at it.
  std::uint32_t levels_ = 1;
  std::vector<tree_node> tree_;
  std::vector<std::uint64_t> seeds_;
  std::vector<double> entry_weights_;
  std::vector<std::uint32_t> targets_;
};

}  // namespace ringbloom
