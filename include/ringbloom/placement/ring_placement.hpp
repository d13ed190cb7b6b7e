// ringbloom/placement/ring_placement.hpp: the hash ring (ring.hpp), native
// or ketama, seen through the placement interface.
//
// What it is. An adapter: it owns a hash_ring and answers the placement
// calls with the ring's own rules (its key hash, its points, its clockwise
// replica walk), so the ring can be compared with, and swapped for, the
// other strategies (rendezvous.hpp, maglev.hpp, ...). Nothing about the
// ring's placement changes: ring_placement(nodes, options) places every key
// exactly where a hash_ring with the same options and nodes does.
//
// Weights. The ring's weights are integers (points = vnodes x weight): a
// placement_node weight must be a whole number from 1 to 2^32 - 1.
// set_weight removes the node and adds it back with the new weight (for the
// native scheme this is exactly a ring built with that weight).
//
// Example:
//
//   #include <ringbloom/placement/ring_placement.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a", 1}, {"b", 2}};
//   ringbloom::ring_placement ring(nodes, {.vnodes = 160});
//   const ringbloom::placement& p = ring;
//   const std::string& owner = p.node_for("user:42");
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/ring.hpp"

namespace ringbloom {

class ring_placement final : public placement {
 public:
  /// A ring with `options` holding `nodes`. Throws std::invalid_argument for
  /// no nodes, a weight that is not a whole number >= 1, or what
  /// hash_ring::add_nodes throws.
  ring_placement(std::span<const placement_node> nodes, ring_options options = {});
  /// Adopts an existing ring. Throws std::invalid_argument if it is empty.
  explicit ring_placement(hash_ring ring);

  /// "ring" or "ketama" (the scheme's name).
  [[nodiscard]] std::string_view kind_name() const noexcept override;
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override {
    return ring_.key_hash(key);
  }
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    return ring_.node_index_for_hash(h);
  }
  /// The ring's clockwise walk: the owner, then the next distinct nodes.
  [[nodiscard]] std::vector<std::uint32_t> node_indexes_for_hash(std::uint64_t h,
                                                                 std::size_t n) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return ring_.node_count(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override { return ring_.lookup_bytes(); }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] const hash_ring& ring() const noexcept { return ring_; }

 private:
  hash_ring ring_;
};

}  // namespace ringbloom
