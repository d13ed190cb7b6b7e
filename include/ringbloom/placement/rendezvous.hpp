// ringbloom/placement/rendezvous.hpp: rendezvous (highest random weight)
// hashing, weighted by the logarithmic method.
//
// What it is. Every node scores every key; the key goes to the node with the
// highest score (Thaler and Ravishankar, "Using name-based mappings to
// increase hit rates", IEEE/ACM ToN 1998). With weights, node i scores
//
//     score_i = w_i / -ln(u_i),   u_i = a uniform value in (0, 1) from (key, node)
//
// so that node i wins with probability exactly w_i / sum(w) (Schindelhauer
// and Schomaker, "Weighted distributed hash tables", SPAA 2005; the
// "logarithmic method"). With equal weights the score is the 64-bit mix
// itself: -1/ln(u) increases with u, so the order is the same.
//
// When to use it. Small to medium fleets (up to a few hundred nodes) that
// want perfect expected balance, weights, any change (add, remove any node,
// reweight) with the minimum movement, and replicas (the n best scores) with
// no tables at all. A lookup is O(nodes): 100 nodes cost about 100 mixes.
//
// Guarantees. The placement depends only on the set of (name, weight) pairs,
// never on the order nodes were added. Adding node x moves only keys onto x;
// removing x moves only x's keys; reweighting x moves keys only to or from x.
// u_i = (top 53 bits of fmix64(key_hash ^ node_seed_i) + 0.5) / 2^53, and
// node_seed_i = xxh3_64(name_i, seed): stable, pinned by golden tests.
//
// Example:
//
//   #include <ringbloom/placement/rendezvous.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a", 1}, {"b", 2}};
//   ringbloom::rendezvous_placement hrw(nodes);
//   const std::string& owner = hrw.node_for("user:42");      // b twice as often as a
//   auto replicas = hrw.nodes_for("user:42", 2);              // both, best first
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

struct rendezvous_options {
  /// Salts the node seeds and the key hash (xxh3_64(key, seed)).
  std::uint64_t seed = 0;
};

class rendezvous_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, an empty or repeated name,
  /// or a weight that is not finite and > 0.
  explicit rendezvous_placement(std::span<const placement_node> nodes,
                                rendezvous_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "rendezvous"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    return uniform_ ? best_uniform(h) : best_weighted(h);
  }
  /// The n nodes of highest score, best first (fewer if there are fewer).
  [[nodiscard]] std::vector<std::uint32_t> node_indexes_for_hash(std::uint64_t h,
                                                                 std::size_t n) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  /// Removes the node; the last node cannot be removed.
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  /// The weight of node `index`.
  [[nodiscard]] double weight(std::uint32_t index) const { return weights_.at(index); }

 private:
  [[nodiscard]] std::uint32_t best_uniform(std::uint64_t h) const noexcept {
    std::uint32_t best = 0;
    std::uint64_t best_score = 0;
    for (std::uint32_t i = 0; i < seeds_.size(); ++i) {
      const std::uint64_t s = detail::fmix64(h ^ seeds_[i]);
      if (s > best_score) {
        best_score = s;
        best = i;
      }
    }
    return best;
  }
  [[nodiscard]] std::uint32_t best_weighted(std::uint64_t h) const noexcept;
  [[nodiscard]] double score(std::uint64_t h, std::uint32_t i) const noexcept;
  void refresh_uniform() noexcept;

  rendezvous_options options_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> seeds_;
  std::vector<double> weights_;
  bool uniform_ = true;
};

}  // namespace ringbloom
