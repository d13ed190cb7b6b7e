// ringbloom/placement/bounded_load.hpp: consistent hashing with bounded
// loads, a ring that skips full nodes.
//
// What it is. Mirrokni, Thorup and Zadimoghaddam, "Consistent Hashing with
// Bounded Loads", SODA 2018 (arXiv:1608.01350). Nodes sit on a ring with
// virtual nodes, exactly as the native ring with xxh3 places them (point j
// of node x at xxh3_64("x#j"), round(vnodes x weight) points). Each node
// has a capacity
//
//     c_i = ceil((1 + eps) x (m + 1) x w_i / W)
//
// where m is the number of keys currently assigned and W the total weight;
// a new key walks clockwise from its hash and takes the first node whose
// load is below its capacity. So no node ever holds more than (1 + eps)
// times its fair share (plus one key), whatever the keys are, and the paper
// shows a change still moves only O(1/eps^2) keys per key of the minimum in
// expectation.
//
// It is stateful: where a key goes depends on the keys already assigned and
// the order they came in. It counts keys, not bytes or requests:
// assign_hash() places one key and counts it on its node; release() uncounts
// a key that left (its node's index as assign_hash returned it). The
// stateless node_index_for_hash() answers where a new key would go now,
// without counting it. Removing a node forgets its count (its keys must be
// assigned again); adding one starts it at 0.
//
// When to use it. Caches and queues where an overloaded node hurts more than
// a few extra moves (Vimeo's and HAProxy's use for sticky load balancing).
// Supports add, any removal and reweighting; no nodes_for.
//
// Example:
//
//   #include <ringbloom/placement/bounded_load.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a"}, {"b"}, {"c"}};
//   ringbloom::bounded_load_placement bounded(nodes, {.vnodes = 100, .epsilon = 0.25});
//   std::uint32_t node = bounded.assign_hash(bounded.key_hash("session:42"));
//   bounded.release(node);                   // the session ended
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

struct bounded_load_options {
  /// Points per unit of weight, 1..65536.
  std::uint32_t vnodes = 100;
  /// The allowed excess over the fair share, > 0 and <= 100 (0.25: no node
  /// above 1.25 x its share).
  double epsilon = 0.25;
};

class bounded_load_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names or weights, vnodes
  /// or epsilon out of range.
  explicit bounded_load_placement(std::span<const placement_node> nodes,
                                  bounded_load_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "bounded"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  /// Where a new key of hash `h` would go now (nothing is counted).
  ///
  /// Inline, for speed: the first point's owner is taken when it is below
  /// the common capacity of equal weights (most lookups); otherwise walk()
  /// goes on clockwise. Beyond 2^16 points (about 400 nodes of 160 points)
  /// the circle is out of the cache and the successor search is the
  /// predicted one (strategy_support.hpp). Short and inlined, the lookup
  /// leaves the CPU room to overlap the cache misses of consecutive lookups
  /// (perf at 10,000 nodes: the out-of-line lookup with its general walk
  /// was 3x the ring).
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    const std::size_t at =
        circle_.size() > cached_points ? circle_.successor_predicted(h) : circle_.successor(h);
    const std::uint32_t owner = circle_.owner(at);
    if (loads_[owner] < fast_capacity_) return owner;
    return walk(at);
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

  /// Places a key of hash `h` and counts it on its node; returns the node.
  std::uint32_t assign_hash(std::uint64_t h);
  /// Uncounts one key of node `index`. Throws std::invalid_argument if the
  /// index is out of range or the node holds no keys.
  void release(std::uint32_t index);
  /// Forgets every count.
  void clear_loads() noexcept;
  /// Clears the counts and assigns `hashes` in order; result[i] is the node
  /// of hashes[i].
  [[nodiscard]] std::vector<std::uint32_t> assign_all(std::span<const std::uint64_t> hashes);

  [[nodiscard]] std::uint64_t load(std::uint32_t index) const { return loads_.at(index); }
  [[nodiscard]] std::uint64_t assigned() const noexcept { return assigned_; }
  /// The capacity of node `index` for the next key: c_i above with m =
  /// assigned().
  [[nodiscard]] std::uint64_t capacity(std::uint32_t index) const;
  [[nodiscard]] double epsilon() const noexcept { return options_.epsilon; }

 private:
  static constexpr std::size_t cached_points = std::size_t{1} << 16;

  [[nodiscard]] std::uint32_t walk(std::size_t at) const noexcept;
  void rebuild();
  void refresh_capacity() noexcept;

  bounded_load_options options_;
  std::vector<std::string> names_;
  std::vector<double> weights_;
  std::vector<std::uint64_t> loads_;
  std::uint64_t assigned_ = 0;
  double total_weight_ = 0;
  bool equal_weights_ = true;  // every node has the same capacity:
  double equal_capacity_ = 0;  // that capacity for the next key
  // equal_capacity_ as a count (saturated) with equal weights, 0 otherwise:
  // a load below it is below capacity.
  std::uint64_t fast_capacity_ = 0;
  detail::point_circle circle_;
};

}  // namespace ringbloom
