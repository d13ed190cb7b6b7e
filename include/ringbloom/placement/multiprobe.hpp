// ringbloom/placement/multiprobe.hpp: multi-probe consistent hashing, one
// point per node and k probes per key.
//
// What it is. Appleton and O'Reilly, "Multi-probe consistent hashing"
// (arXiv:1505.00062, 2015). Each node sits at one point of the 64-bit
// circle, position xxh3_64(name, seed). A key is hashed k times, probe p at
// fmix64(key_hash ^ (p + 1) * 2^64/phi); each probe finds the first node
// point at or after it, and the key goes to the node whose point is closest
// after any of its probes. With k probes the peak-to-average load is about
// 1 + 1/k on average over node sets (the paper: k = 21 gives 1.05; a given
// set may be at 1.08), with N points of memory instead of N x vnodes. The
// smallest share is the weak side: a node whose point falls an arc L after
// another's gets about k x L of the keys, a sliver when L is short
// (docs/placement.md, "Multi-probe's balance").
//
// When to use it. Large fleets where vnode memory matters and lookups are
// rare enough to afford k successor searches (about k x 4 ns). No weights
// (each node has one point); nodes_for is not defined.
//
// Guarantees. The placement depends only on the set of names (points at the
// same position are ordered by name). Adding x moves only keys onto x;
// removing x moves only x's keys (a key's closest point changes only if that
// point comes or goes).
//
// Example:
//
//   #include <ringbloom/placement/multiprobe.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a"}, {"b"}, {"c"}};
//   ringbloom::multiprobe_placement mp(nodes, {.probes = 21});
//   const std::string& owner = mp.node_for("user:42");
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

struct multiprobe_options {
  /// Probes per key, 1..1024; the paper recommends 21.
  std::uint32_t probes = 21;
  /// Salts the node positions and the key hash.
  std::uint64_t seed = 0;
};

class multiprobe_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names, a weight other
  /// than 1, or probes outside 1..1024.
  explicit multiprobe_placement(std::span<const placement_node> nodes,
                                multiprobe_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "multiprobe"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    std::uint64_t best_distance = ~std::uint64_t{0};
    std::size_t best = 0;  // the point; its owner is read once, at the end
    for (std::uint32_t p = 0; p < options_.probes; ++p) {
      const std::uint64_t probe = detail::mix_index(h, p);
      const std::size_t at = circle_.successor_or_end(probe);  // no branch on the wrap
      const std::uint64_t distance = circle_.wrapped_distance(at, probe);
      if (distance < best_distance) {
        best_distance = distance;
        best = at;
      }
    }
    return circle_.owner(best);
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] std::uint32_t probes() const noexcept { return options_.probes; }

 private:
  void rebuild();

  multiprobe_options options_;
  std::vector<std::string> names_;
  detail::point_circle circle_;
};

}  // namespace ringbloom
