// ringbloom/placement/detail/ownership.hpp: the arithmetic behind
// placement::ownership() that several placements share: the arcs of a
// sorted circle of points (successor or nearest-point rule), the hashes that
// reach each slot of a lookup table, and equal expected shares. Internal:
// not part of the public interface.
//
// Every function returns one share per node index, summing to 1 (up to the
// rounding of doubles). Lengths are counted exactly in integers (a 64-bit arc
// is at most 2^64 - 1 hashes, a slot's hash count fits 64 bits) and divided by
// the size of the space only at the end.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ringbloom::detail {

/// Shares of a circle of `points` sorted positions in a space of 2^space_bits
/// values (32 or 64), where a hash h goes to the first point at or after h,
/// wrapping to point 0 (the ring, ketama, nginx, twemproxy, groupcache,
/// Envoy's ring hash, Cassandra). Point i owns (position(i-1), position(i)];
/// point 0 also owns the wrap-around arc (position(last), 2^bits - 1]. Points
/// at one position: the first owns the arc, the others nothing (as the
/// lookups do, since they stop at the first).
///
/// `position(i)` returns point i's position (std::uint64_t), `owner(i)` its
/// node index (< nodes).
template <class Position, class Owner>
[[nodiscard]] std::vector<double> successor_arc_shares(std::size_t points, std::size_t nodes,
                                                       int space_bits, Position position,
                                                       Owner owner) {
  std::vector<double> shares(nodes, 0.0);
  if (points == 0) return shares;
  const double space = std::ldexp(1.0, space_bits);
  for (std::size_t i = 1; i < points; ++i) {
    shares[owner(i)] += static_cast<double>(std::uint64_t{position(i)} - position(i - 1));
  }
  const std::uint64_t first = position(0);
  const std::uint64_t last = position(points - 1);
  // (space - 1 - last) + (first + 1) hashes; all points at one position: the
  // whole space.
  const double wrap =
      first == last ? space
                    : (space - 1.0 - static_cast<double>(last)) + static_cast<double>(first) + 1.0;
  shares[owner(0)] += wrap;
  for (double& s : shares) s /= space;
  return shares;
}

/// Shares of a 32-bit circle where a hash goes to the nearer of the points
/// before and after it, the one before on a tie (HAProxy's chash: dp <= dn).
/// Between consecutive points p < q at distance L (1 <= d <= L hashes after
/// p, as the lookup counts them: the lookup finds q as the first point at or
/// after h, p as the one before q), the first floor(L / 2) go to p and the
/// rest to q. Points at one position own nothing between them.
template <class Position, class Owner>
[[nodiscard]] std::vector<double> nearest_point_shares_32(std::size_t points, std::size_t nodes,
                                                          Position position, Owner owner) {
  std::vector<double> shares(nodes, 0.0);
  if (points == 0) return shares;
  const double space = std::ldexp(1.0, 32);
  for (std::size_t next = 0; next < points; ++next) {
    const std::size_t prev = next == 0 ? points - 1 : next - 1;
    // Hashes whose first point at or after is `next`: (position(prev),
    // position(next)], around the top for next == 0.
    std::uint64_t length =
        static_cast<std::uint32_t>(std::uint32_t{position(next)} - std::uint32_t{position(prev)});
    std::uint64_t to_prev = length / 2;
    if (next == 0 && position(0) == position(points - 1)) {
      // Every point at one position q: h = q ties at distance 0 and goes to
      // the point before, as do the 2^31 hashes after q.
      length = std::uint64_t{1} << 32;
      to_prev = length / 2 + 1;
    }
    if (length == 0) continue;
    shares[owner(prev)] += static_cast<double>(to_prev);
    shares[owner(next)] += static_cast<double>(length - to_prev);
  }
  for (double& s : shares) s /= space;
  return shares;
}

/// Shares of a lookup table of `table.size()` slots read at
/// fast_range(h, size) = floor(h x size / 2^64) (maglev): slot s is reached
/// by the hashes in [ceil(s 2^64 / size), ceil((s+1) 2^64 / size)), that is
/// floor or ceil of 2^64 / size of them.
[[nodiscard]] std::vector<double> fast_range_table_shares(std::span<const std::uint32_t> table,
                                                          std::size_t nodes);

/// Shares of a lookup table read at h % size (Envoy's Maglev): slot s is
/// reached by floor((2^64 - 1 - s) / size) + 1 hashes.
[[nodiscard]] std::vector<double> modulo_table_shares(std::span<const std::uint32_t> table,
                                                      std::size_t nodes);

/// 1/n for each of n nodes.
[[nodiscard]] std::vector<double> equal_shares(std::size_t nodes);

/// weight_i / sum of weights.
[[nodiscard]] std::vector<double> weight_shares(std::span<const double> weights);

}  // namespace ringbloom::detail
