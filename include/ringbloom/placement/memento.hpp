// ringbloom/placement/memento.hpp: MementoHash, jump consistent hashing that
// also survives arbitrary removals.
//
// What it is. Coluzzi, Brocco, Antonucci and Leidi, "MementoHash: A
// Stateful, Minimal Memory, Best Performing Consistent Hash Algorithm"
// (arXiv:2306.09783, 2023; IEEE/ACM ToN 2024). Buckets 0..n-1 are placed by
// a jump function; the paper uses jump hash (jump.hpp), this implementation
// JumpBackHash (jump_back.hpp), which has the same consistency and balance in
// expected constant time (Ertl 2024 benchmarks it under MementoHash too), so
// a lookup with no removals costs a few nanoseconds. Removing bucket b (other than the last with
// nothing else removed, which just shrinks n as jump would) records in a replacement table r(b) =
// the number of working buckets after the removal and the previously removed bucket. A key that
// lands on a removed bucket is rehashed into [0, r(b)); a bucket found there that was removed
// earlier (its r is
// >= the current one) is replaced by its r value until a working bucket or
// one removed later is reached:
//
//     b = jump_back_hash(h, n)
//     while b is removed:
//       r = r(b); b = fast_range(fmix64(h ^ (b + 1) * 2^64/phi), r)
//       while b is removed and r(b) >= r: b = r(b)
//
// Adding a node restores the most recently removed bucket (LIFO), or appends
// bucket n when nothing is removed.
//
// When to use it. Jump's speed and balance with arbitrary failures: with no
// removals it is exactly JumpBackHash; each removal costs 8 bytes here (the
// paper's hash table costs O(removed); this implementation keeps a dense
// array of 8 bytes per bucket for a one-read check). No weights, no
// nodes_for. Removing x moves only x's keys; adding moves keys only onto the
// new node.
//
// Guarantees. The initial nodes hold buckets 0..N-1 in the order given; the
// placement depends on the sequence of changes, and the same sequence gives
// the same placement everywhere.
//
// Example:
//
//   #include <ringbloom/placement/memento.hpp>
//   std::vector<ringbloom::placement_node> nodes{{"a"}, {"b"}, {"c"}, {"d"}};
//   ringbloom::memento_placement memento(nodes);
//   memento.remove_node("b");                // only b's keys move
//   const std::string& owner = memento.node_for("user:42");
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/detail/strategy_support.hpp"
#include "ringbloom/placement/jump_back.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom {

class memento_placement final : public placement {
 public:
  /// Throws std::invalid_argument for no nodes, bad names or a weight other
  /// than 1.
  explicit memento_placement(std::span<const placement_node> nodes);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "memento"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override {
    return index_of_bucket_[bucket_for_hash(h)];
  }
  /// The bucket of hash `h`.
  [[nodiscard]] std::uint32_t bucket_for_hash(std::uint64_t h) const noexcept {
    std::uint32_t b = jump_back_hash(h, size_);
    std::uint32_t r = replacer_[b];
    while (r != not_removed) {
      b = detail::fast_range(detail::mix_index(h, b), r);
      std::uint32_t rb = replacer_[b];
      while (rb != not_removed && rb >= r) {
        b = rb;
        rb = replacer_[b];
      }
      r = rb;
    }
    return b;
  }
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  /// n: the size of the bucket array the jump function spreads keys over.
  [[nodiscard]] std::uint32_t bucket_array_size() const noexcept { return size_; }
  [[nodiscard]] std::uint32_t bucket_of(std::uint32_t index) const { return buckets_.at(index); }

 private:
  static constexpr std::uint32_t not_removed = 0xFFFF'FFFFu;

  std::uint32_t size_ = 0;                   // n
  std::uint32_t last_removed_ = 0;           // l (== size_ when nothing is removed)
  std::vector<std::uint32_t> replacer_;      // r(b), or not_removed
  std::vector<std::uint32_t> prev_removed_;  // the bucket removed before b
  std::vector<std::uint32_t> index_of_bucket_;
  std::vector<std::uint32_t> buckets_;
  std::vector<std::string> names_;
};

}  // namespace ringbloom
