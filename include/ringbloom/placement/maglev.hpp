// ringbloom/placement/maglev.hpp: Maglev hashing, a lookup table filled from
// each node's permutation (generic, weighted).
//
// What it is. Eisenbud et al., "Maglev: A Fast and Reliable Software Network
// Load Balancer", NSDI 2016, section 3.4. The table has M slots, M prime.
// Node i has a permutation of the slots,
//
//     offset_i = h1(name_i) mod M,   skip_i = h2(name_i) mod (M - 1) + 1,
//     permutation_i[j] = (offset_i + j * skip_i) mod M
//
// (M prime makes every skip coprime with M, so each permutation visits every
// slot). Nodes take turns claiming their next unclaimed slot until the table
// is full; a key goes to table[key_hash scaled to [0, M)]. Weights: in each
// round node i earns w_i / w_max turns (credit carried over), so the heaviest
// node claims one slot per round and shares follow the weights.
//
// This is the generic algorithm. Envoy's exact MAGLEV (its hashes, its
// weighting and its table) is the `envoy` compatibility scheme, not this.
//
// When to use it. Many lookups per change (packet routing, sharded caches):
// a lookup is one multiply and one table read, and every node owns within a
// slot or so of M / N entries. The price: a change rebuilds the table in
// O(M log M) and moves somewhat more than the minimum (a few percent of keys
// beyond 1/(N+1) on an add; docs/placement.md measures it), and the table
// costs 4 bytes per slot. Choose M >= 100 x nodes for balance within 1%.
//
// Guarantees. Nodes claim slots in name order, so the table depends only on
// the set of (name, weight) pairs. h1 = xxh3_64(name, 0x6d61676c6576), h2 =
// xxh3_64(name, 0x736b6970); a key's slot is floor(key_hash * M / 2^64) with
// key_hash = xxh3_64(key). Pinned by golden tests.
//
// Example:
//
//   #include <ringbloom/placement/maglev.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a", 1}, {"b", 1}, {"c", 1}};
//   ringbloom::maglev_placement maglev(nodes, {.table_size = 65537});
//   const std::string& owner = maglev.node_for("user:42");
//   maglev.add_node({"d", 1});                                // rebuilds the table
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

struct maglev_options {
  /// The number of table slots: a prime, at least the number of nodes and at
  /// most 2^28 (the paper uses 65537 for up to a few hundred backends).
  std::uint32_t table_size = 65537;
};

class maglev_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names or weights, a
  /// table size that is not prime or is smaller than the number of nodes.
  explicit maglev_placement(std::span<const placement_node> nodes, maglev_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "maglev"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    return table_[detail::fast_range(h, options_.table_size)];
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] std::uint32_t table_size() const noexcept { return options_.table_size; }
  /// The table: the node index of each slot.
  [[nodiscard]] std::span<const std::uint32_t> table() const noexcept { return table_; }

  /// Whether n is prime (trial division; n < 2^32).
  [[nodiscard]] static bool is_prime(std::uint32_t n) noexcept;

 private:
  void rebuild();

  maglev_options options_;
  std::vector<std::string> names_;
  std::vector<double> weights_;
  std::vector<std::uint32_t> table_;
};

}  // namespace ringbloom
