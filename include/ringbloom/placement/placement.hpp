// ringbloom/placement/placement.hpp: one interface for every way of putting
// keys on nodes: the hash ring, the placement strategies (rendezvous, maglev,
// bounded loads, multi-probe, anchor, memento, jump) and the schemes that
// reproduce real systems key for key (nginx, HAProxy, twemproxy, Envoy,
// Cassandra, Redis Cluster, groupcache, Guava).
//
// When to use it: when code should not care which strategy it runs, as
// `ringbloom ring simulate --strategy all` and `ring diff` do. A program that
// has chosen one strategy can hold the concrete class instead and call its
// non-virtual lookups, which inline.
//
// The model. A placement owns an ordered list of nodes (index 0..size-1, the
// index of a node may change when another is removed; the name is the stable
// identity). A key is placed in two steps: `key_hash` turns it into the 64-bit
// value the system itself hashes it to (CRC16 slot for Redis Cluster, a
// Murmur3 token for Cassandra, XXH3 for the native ring, ...), and
// `node_index_for_hash` maps that value to a node. Splitting the two lets
// callers hash once and compare strategies on the same pre-hashed keys.
//
// Guarantees:
//   - lookups are const and safe from many threads at once; changes (add,
//     remove, set_weight) need exclusive access (see ring_holder.hpp for
//     lock-free swapping of a whole placement);
//   - a change a placement does not support throws std::invalid_argument
//     naming the placement and what it does support (`supports()` tells in
//     advance);
//   - lookups on an empty placement throw std::logic_error.
//
// Example:
//
//   std::unique_ptr<ringbloom::placement> p = ...;   // any strategy or scheme
//   const std::string& node = p->node_for("user:42");
//   if (p->supports() & ringbloom::placement_change::remove_any) p->remove_node("cache-2");
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringbloom {

/// The changes a placement supports, as bits of `placement::supports()`.
namespace placement_change {
inline constexpr unsigned add = 1u;          ///< add_node
inline constexpr unsigned remove_any = 2u;   ///< remove_node of any node
inline constexpr unsigned remove_last = 4u;  ///< remove_node of the last-added node only (jump)
inline constexpr unsigned reweight = 8u;     ///< set_weight
inline constexpr unsigned replicas = 16u;    ///< node_indexes_for_hash with n > 1
}  // namespace placement_change

/// A node as every placement takes it: a name (the identity, and what the
/// system reports) and a relative weight (1 = an ordinary node; placements
/// without weights refuse any other value).
struct placement_node {
  std::string name;
  double weight = 1.0;
  friend bool operator==(const placement_node&, const placement_node&) = default;
};

/// What the numbers of placement::ownership() are.
enum class ownership_basis : std::uint8_t {
  /// Each node's exact fraction of the placement's key-hash space, read from
  /// the lookup structures: ring arcs, maglev table slots (with the exact
  /// number of 64-bit hashes that reach each slot), Redis Cluster hash slots.
  /// It is the share of keys whose hashes are spread evenly over the space;
  /// sampling uniform hashes converges to it.
  hash_space,
  /// The share the algorithm gives each node when its hashes behave as
  /// random functions: 1/n for jump, JumpBackHash, anchor, memento and Guava;
  /// w_i / W for rendezvous and the skeleton; multi-probe's integral over its
  /// point arcs. Exact for the algorithm, not for one fleet's hash values:
  /// keys sampled on a real fleet differ from it by the hash's own noise.
  expectation,
  /// Bounded loads: the keys counted on each node (assign_hash and not yet
  /// released) over all counted keys. It describes the keys placed so far,
  /// not the space (all zero before the first key).
  counted_load,
};

/// Each node's share, by node index (same order as node_name), and what the
/// shares are. The shares sum to 1 up to rounding, except: counted_load with
/// no keys (all 0), and a Redis Cluster topology with unserved slots (the
/// served slots only).
struct placement_ownership {
  ownership_basis basis = ownership_basis::hash_space;
  std::vector<double> shares;
};

/// "hash_space", "expectation" or "counted_load".
[[nodiscard]] std::string_view ownership_basis_name(ownership_basis basis) noexcept;

/// The interface. Implementations document, in their own header, the paper or
/// system they follow, which changes they support and their limits.
class placement {
 public:
  virtual ~placement() = default;

  /// The strategy's or scheme's name as the CLI spells it ("ring", "maglev",
  /// "nginx", ...).
  [[nodiscard]] virtual std::string_view kind_name() const noexcept = 0;

  /// The 64-bit value this placement hashes `key` to (its own key hash).
  [[nodiscard]] virtual std::uint64_t key_hash(std::string_view key) const = 0;

  /// The index of the node that owns hash value `h`. Throws std::logic_error
  /// when there are no nodes.
  [[nodiscard]] virtual std::uint32_t node_index_for_hash(std::uint64_t h) const = 0;

  /// Up to `n` distinct nodes for `h`, the owner first (replica placement).
  /// The default supports n <= 1 only and throws std::invalid_argument
  /// otherwise; placements that set placement_change::replicas override it.
  [[nodiscard]] virtual std::vector<std::uint32_t> node_indexes_for_hash(std::uint64_t h,
                                                                         std::size_t n) const;

  [[nodiscard]] virtual std::size_t node_count() const noexcept = 0;

  /// The name of node `index` (< node_count()), as the system reports it.
  [[nodiscard]] virtual const std::string& node_name(std::uint32_t index) const = 0;

  /// Changes. The defaults throw std::invalid_argument ("<kind> does not
  /// support adding nodes; ..."); a placement overrides those it supports
  /// and sets the matching bits in supports(). Adding a name that exists,
  /// removing one that does not, or a weight the placement cannot honour
  /// throw std::invalid_argument and leave the placement unchanged.
  virtual void add_node(const placement_node& node);
  virtual void remove_node(std::string_view name);
  virtual void set_weight(std::string_view name, double weight);

  /// placement_change bits.
  [[nodiscard]] virtual unsigned supports() const noexcept = 0;

  /// Bytes of the lookup structures (tables, points, indexes), not counting
  /// node names.
  [[nodiscard]] virtual std::size_t memory_bytes() const noexcept = 0;

  /// Each node's share of the keys, where the placement can compute it
  /// without placing keys; std::nullopt where it is not defined (the
  /// default). Which basis each placement answers with:
  ///
  ///   hash_space    ring, ketama, maglev, nginx, HAProxy, twemproxy,
  ///                 groupcache, Envoy ring hash and Maglev, Cassandra
  ///                 (primary owners), Redis Cluster
  ///   expectation   rendezvous, skeleton, multiprobe, anchor, memento,
  ///                 jump, jumpback, Guava
  ///   counted_load  bounded
  ///
  /// Cost: one pass over the lookup structures (points, table, nodes); it
  /// allocates, so it is for reports, not for the lookup path.
  [[nodiscard]] virtual std::optional<placement_ownership> ownership() const;

  /// A deep copy (to compare a placement before and after a change).
  [[nodiscard]] virtual std::unique_ptr<placement> clone() const = 0;

  /// The owner's name for `key`: node_name(node_index_for_hash(key_hash(key))).
  [[nodiscard]] const std::string& node_for(std::string_view key) const {
    return node_name(node_index_for_hash(key_hash(key)));
  }

  /// Up to `n` distinct node names for `key`, the owner first.
  [[nodiscard]] std::vector<std::string> nodes_for(std::string_view key, std::size_t n) const;

 protected:
  placement() = default;
  placement(const placement&) = default;
  placement& operator=(const placement&) = default;
};

}  // namespace ringbloom
