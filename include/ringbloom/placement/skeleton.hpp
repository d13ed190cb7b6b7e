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
// at this size prefer anchor, memento or maglev. Lookup: about 75 ns at
// 10,000 nodes (f = 32) against plain rendezvous's 8 us (docs/performance.md).
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
// with xxh3_64(name, seed); neither changes when the tree grows a level. A
// child of seed s scores the key hash h with one 128-bit multiplication,
// (h ^ s) x (fmix64(h ^ golden) ^ rotl(s, 29)), its halves folded by XOR (the
// "mum" step of wyhash), not rendezvous.hpp's fmix64: so even inside one leaf
// cluster the owners differ from rendezvous_placement's, with the same
// properties. Golden tests pin them.
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
    const std::uint64_t g = detail::fmix64(h ^ detail::golden_gamma);
    std::uint32_t at = 0;  // the root
    for (std::uint32_t level = 0; level < levels_; ++level) {
      at = choose(h, g, tree_[at]);
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
  // [first, first + count) of the entry arrays, the first `equal` of them of
  // one weight (the most common among the children).
  struct tree_node {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t equal = 0;
  };

  // Among children of equal weight the highest mix has the highest score
  // (w / -ln(u) grows with u), so one pass of mixes finds their best; only
  // the children of other weights (in a tree filled in slot order, the one
  // partly filled subtree of a level) pay a logarithm, and so does the best
  // when there are any.
  //
  // The pass is branch-free: each mix keeps its top 53 bits (all that u
  // uses) and carries the child's position in the low 11, so a plain max
  // finds the best child and its position at once. A branch on "new best"
  // mispredicts about ln(f) times a level (perf: most of the lookup).
  [[nodiscard]] std::uint32_t choose(std::uint64_t h, std::uint64_t g,
                                     const tree_node& t) const noexcept {
    constexpr std::uint64_t low = (std::uint64_t{1} << 11) - 1;
    // Two running maxima, so that each compare waits on half of the others.
    std::uint64_t top = 0;
    std::uint64_t top2 = 0;
    const std::uint64_t* seeds = seeds_.data() + t.first;
    std::uint32_t e = 0;
    for (; e + 1 < t.equal; e += 2) {
      const std::uint64_t x = (mix(h, g, seeds[e]) & ~low) | e;
      const std::uint64_t y = (mix(h, g, seeds[e + 1]) & ~low) | (e + 1);
      top = x > top ? x : top;
      top2 = y > top2 ? y : top2;
    }
    if (e < t.equal) {
      const std::uint64_t x = (mix(h, g, seeds[e]) & ~low) | e;
      top = x > top ? x : top;
    }
    top = top2 > top ? top2 : top;
    std::uint32_t best = t.first + static_cast<std::uint32_t>(top & low);
    if (t.equal != t.count) best = best_weighted(h, g, t, best, top);
    return targets_[best];
  }

  // The score mix of a child of seed s for the key hash h (g = fmix64(h ^
  // golden_gamma), once per lookup): the two halves of the 128-bit product
  // (h ^ s)(g ^ rotl(s, 29)) folded by XOR (the "mum" step of wyhash), one
  // multiplication where fmix64 takes two in sequence.
  [[nodiscard]] static std::uint64_t mix(std::uint64_t h, std::uint64_t g,
                                         std::uint64_t s) noexcept {
    const detail::strategy_uint128 p =
        static_cast<detail::strategy_uint128>(h ^ s) * (g ^ ((s << 29) | (s >> 35)));
    return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
  }
  [[nodiscard]] std::uint32_t best_weighted(std::uint64_t h, std::uint64_t g, const tree_node& t,
                                            std::uint32_t best,
                                            std::uint64_t best_mix) const noexcept;
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
