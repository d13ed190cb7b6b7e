// ringbloom/placement/jump_placement.hpp: jump consistent hash (jump.hpp) or
// JumpBackHash (jump_back.hpp) as a placement with node names.
//
// What it is. Node i of the list is bucket i; a key goes to node
// jump_hash(key_hash, N) (Lamping and Veach 2014; kind "jump") or
// jump_back_hash(key_hash, N) (Ertl 2024; kind "jumpback": the same
// guarantees in expected constant time, different buckets). Adding a node appends
// bucket N and moves exactly the keys of the new bucket (1/(N+1) expected);
// only the last node can be removed (the buckets must stay 0..N-1).
//
// When to use it. Numbered shards that grow and shrink at the end: no
// memory beyond the names, perfect expected balance, O(log N) per lookup.
// For arbitrary removals use memento.hpp (jump plus a replacement table) or
// anchor.hpp; for weights, rendezvous.hpp or maglev.hpp.
//
// Example:
//
//   #include <ringbloom/placement/jump_placement.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"shard-0"}, {"shard-1"}};
//   ringbloom::jump_placement jump(nodes);
//   jump.add_node({"shard-2"});              // a third of the keys move to shard-2
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/jump.hpp"
#include "ringbloom/placement/jump_back.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

/// Which jump function places the keys.
enum class jump_algorithm : std::uint8_t {
  lamping_veach,  ///< jump_hash (jump.hpp), kind "jump"
  jump_back,      ///< jump_back_hash (jump_back.hpp), kind "jumpback"
};

class jump_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names or a weight other
  /// than 1.
  explicit jump_placement(std::span<const placement_node> nodes,
                          jump_algorithm algorithm = jump_algorithm::lamping_veach);

  [[nodiscard]] std::string_view kind_name() const noexcept override {
    return algorithm_ == jump_algorithm::jump_back ? "jumpback" : "jump";
  }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    const auto n = static_cast<std::uint32_t>(names_.size());
    return algorithm_ == jump_algorithm::jump_back ? jump_back_hash(h, n) : jump_hash(h, n);
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  /// Appends the node as bucket N.
  void add_node(const placement_node& node) override;
  /// Removes the last node only; any other name throws
  /// std::invalid_argument saying so.
  void remove_node(std::string_view name) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

 private:
  std::vector<std::string> names_;
  jump_algorithm algorithm_;
};

}  // namespace ringbloom
