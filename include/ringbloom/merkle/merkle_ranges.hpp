// ringbloom/merkle/merkle_ranges.hpp: sets of key-hash ranges, and the ranges
// a node owns on a ring, so that two replicas compare only what they share.
//
// What it is. A hash_range is an inclusive interval [first, last] of the
// 64-bit key-hash space. A range set is a sorted vector of disjoint,
// non-adjacent ranges (normalize_ranges makes one from any list).
//
// The ring's rule (placement/ring.hpp): a key of hash h belongs to the first
// point at or after h, wrapping. So point i at position p_i receives the
// arc (p_{i-1}, p_i], and point 0 also everything after the last point. With
// n replicas, the arc's keys are stored on the first n distinct nodes met
// walking clockwise from p_i (nodes_for_hash(p_i, n)). owned_ranges(ring,
// node, n) is the union of the arcs whose preference list holds `node`; two
// replicas A and B compare trees limited to
// intersect_ranges(owned_ranges(ring, A, n), owned_ranges(ring, B, n)).
//
// Example:
//
//   ringbloom::hash_ring ring;
//   ring.add_node("a"); ring.add_node("b"); ring.add_node("c");
//   auto shared = ringbloom::intersect_ranges(ringbloom::owned_ranges(ring, "a", 2),
//                                             ringbloom::owned_ranges(ring, "b", 2));
//   ringbloom::merkle_tree tree({.depth = 16, .ranges = shared});
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ringbloom {

class hash_ring;

/// The key hashes first..last, both included.
struct hash_range {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  friend bool operator==(const hash_range&, const hash_range&) = default;
};

/// The same hashes as `ranges` (any order, overlapping or adjacent) as a
/// sorted vector of disjoint, non-adjacent ranges. Throws
/// std::invalid_argument if a range has first > last.
[[nodiscard]] std::vector<hash_range> normalize_ranges(std::vector<hash_range> ranges);

/// Whether `ranges` is already normalized.
[[nodiscard]] bool ranges_normalized(const std::vector<hash_range>& ranges) noexcept;

/// The hashes in both normalized sets.
[[nodiscard]] std::vector<hash_range> intersect_ranges(const std::vector<hash_range>& a,
                                                       const std::vector<hash_range>& b);

/// Whether the normalized set holds h. O(log size).
[[nodiscard]] bool ranges_contain(const std::vector<hash_range>& ranges, std::uint64_t h) noexcept;

/// Whether the normalized set meets [first, last]. O(log size).
[[nodiscard]] bool ranges_overlap(const std::vector<hash_range>& ranges, hash_range r) noexcept;

/// The number of hashes in a normalized set, as a fraction of 2^64.
[[nodiscard]] double ranges_fraction(const std::vector<hash_range>& ranges) noexcept;

/// The key hashes `node` stores on `ring` with `replicas` copies (see the
/// header comment), normalized. Throws std::invalid_argument if the ring is
/// not of the native scheme (ketama hashes live in 32 bits), the node is not
/// on it, or replicas is 0.
[[nodiscard]] std::vector<hash_range> owned_ranges(const hash_ring& ring, std::string_view node,
                                                   std::size_t replicas);

}  // namespace ringbloom
