// ringbloom/placement/anchor.hpp: AnchorHash, consistent hashing with
// arbitrary removals in a fixed set of buckets.
//
// What it is. Mendelson, Vargaftik, Barabash, Lorenz, Keslassy and Orda,
// "AnchorHash: A Scalable Consistent Hash", IEEE/ACM ToN 2021
// (arXiv:1812.09674), Algorithm 3 (the minimal-memory implementation). The
// anchor is a set of `capacity` buckets, of which the nodes hold some. A key
// starts at bucket hash mod capacity; while that bucket b is removed it is
// rehashed into the buckets that were still working when b was removed
// (A[b] of them), following the successor chain K past those removed later:
//
//     b = fast_range(h, a)
//     while A[b] > 0:                      # b is removed
//       c = fast_range(fmix64(h ^ (b + 1) * 2^64/phi), A[b])
//       while A[c] >= A[b]: c = K[c]       # c was removed before b: follow
//       b = c
//
// Removing a bucket pushes it on a stack; adding a node pops the most
// recently removed bucket (the paper's LIFO order), so the state, and so the
// placement, depends on the sequence of changes. Every state reached by the
// same sequence places every key identically.
//
// When to use it. A fleet with a known maximum size, arbitrary failures and
// recoveries, and many lookups: a lookup costs about 1 + ln(capacity/working)
// hashes, memory is 5 x 4 bytes per bucket, and every change moves the
// minimum (removing x moves only x's keys; adding moves keys only onto the
// new node). No weights, no nodes_for.
//
// Guarantees. The initial nodes hold buckets 0..N-1 in the order given;
// buckets N..capacity-1 start removed. Adding past the capacity is an error.
//
// Example:
//
//   #include <ringbloom/placement/anchor.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a"}, {"b"}, {"c"}};
//   ringbloom::anchor_placement anchor(nodes, {.capacity = 16});
//   anchor.remove_node("b");                 // only b's keys move
//   const std::string& owner = anchor.node_for("user:42");
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

struct anchor_options {
  /// The number of buckets, the most nodes the anchor can ever hold at once.
  /// 0 means max(2 x nodes, 16). At most 2^26.
  std::uint32_t capacity = 0;
};

class anchor_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names, a weight other
  /// than 1, or more nodes than the capacity.
  explicit anchor_placement(std::span<const placement_node> nodes, anchor_options options = {});

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "anchor"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    return index_of_bucket_[bucket_for_hash(h)];
  }
  /// The bucket of hash `h` (Algorithm 3's GETBUCKET).
  [[nodiscard]] std::uint32_t bucket_for_hash(std::uint64_t h) const noexcept {
    std::uint32_t b = detail::fast_range(h, capacity_);
    while (removed_at_[b] > 0) {
      std::uint32_t c = detail::fast_range(detail::mix_index(h, b), removed_at_[b]);
      while (removed_at_[c] >= removed_at_[b]) c = successor_[c];
      b = c;
    }
    return b;
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  /// Takes the most recently removed bucket. Throws std::invalid_argument
  /// when every bucket is in use.
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] std::uint32_t capacity() const noexcept { return capacity_; }
  /// The bucket node `index` holds.
  [[nodiscard]] std::uint32_t bucket_of(std::uint32_t index) const { return buckets_.at(index); }

 private:
  std::uint32_t capacity_ = 0;
  std::uint32_t working_ = 0;                   // N
  std::vector<std::uint32_t> removed_at_;       // A: 0 if working, else N after its removal
  std::vector<std::uint32_t> successor_;        // K
  std::vector<std::uint32_t> working_set_;      // W
  std::vector<std::uint32_t> location_;         // L
  std::vector<std::uint32_t> removed_stack_;    // R
  std::vector<std::uint32_t> index_of_bucket_;  // bucket -> node index (working buckets)
  std::vector<std::uint32_t> buckets_;          // node index -> bucket
  std::vector<std::string> names_;              // node index -> name
};

}  // namespace ringbloom
