// ringbloom/placement/schemes/point_table.hpp: the sorted 32-bit continuum
// that nginx, HAProxy and twemproxy search, with an index for fast lookups.
//
// Internal to the schemes (namespace ringbloom::schemes::detail): a scheme
// generates its points, orders equal positions by its own tie rule, and hands
// them here. The table answers "the first point at or after h" in a read of a
// small index on the top bits of h plus a short scan, the same shape as
// hash_ring's index (ring.hpp), so that a scheme's lookup costs about what the
// native ring's does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringbloom::schemes::detail {

struct point {
  std::uint32_t position = 0;
  std::uint32_t owner = 0;  // the node index
};

class point_table {
 public:
  point_table() = default;

  /// Takes `points` already in the system's order: ascending position, and
  /// among equal positions the order the system keeps them in.
  explicit point_table(const std::vector<point>& points);

  [[nodiscard]] std::size_t size() const noexcept { return positions_.size(); }
  [[nodiscard]] bool empty() const noexcept { return positions_.empty(); }
  [[nodiscard]] std::uint32_t position(std::size_t i) const noexcept { return positions_[i]; }
  [[nodiscard]] std::uint32_t owner(std::size_t i) const noexcept { return owners_[i]; }

  /// The index of the first point with position >= h, or size() if none.
  [[nodiscard]] std::size_t first_at_or_after(std::uint32_t h) const noexcept {
    const std::uint32_t bucket = h >> shift_;
    std::uint32_t lo = index_[bucket];
    const std::uint32_t hi = index_[bucket + 1];
    while (lo < hi && positions_[lo] < h) ++lo;
    return lo;
  }

  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return positions_.capacity() * sizeof(std::uint32_t) +
           owners_.capacity() * sizeof(std::uint32_t) + index_.capacity() * sizeof(std::uint32_t);
  }

 private:
  std::vector<std::uint32_t> positions_;
  std::vector<std::uint32_t> owners_;
  // index_[b] = the first point whose position >> shift_ >= b; one more
  // entry than buckets, the last = size().
  std::vector<std::uint32_t> index_{0, 0, 0};
  int shift_ = 31;
};

/// The same index over sorted 64-bit positions kept by the caller (Envoy's
/// ring hash, Cassandra's tokens): the first position >= h is found from a
/// bucket on the top bits of h and a short scan.
class index64 {
 public:
  index64() = default;
  /// `positions` ascending; the index refers to it and must be rebuilt
  /// whenever it changes.
  explicit index64(const std::vector<std::uint64_t>& positions);

  /// The index of the first position >= h, or positions.size() if none.
  [[nodiscard]] std::size_t first_at_or_after(const std::vector<std::uint64_t>& positions,
                                              std::uint64_t h) const noexcept {
    const std::uint64_t bucket = h >> shift_;
    std::uint32_t lo = index_[bucket];
    const std::uint32_t hi = index_[bucket + 1];
    while (lo < hi && positions[lo] < h) ++lo;
    return lo;
  }

  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return index_.capacity() * sizeof(std::uint32_t);
  }

 private:
  std::vector<std::uint32_t> index_{0, 0, 0};
  int shift_ = 63;
};

}  // namespace ringbloom::schemes::detail
