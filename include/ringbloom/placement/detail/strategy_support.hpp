// ringbloom/placement/detail/strategy_support.hpp: small pieces the placement
// strategies share (mixing, range reduction, node validation, a sorted circle
// of points). Internal: not part of the public interface.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/mix.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom::detail {

__extension__ using strategy_uint128 = unsigned __int128;

/// The strategies use fmix64(h ^ seed) (ringbloom/mix.hpp) to derive
/// independent-looking values from one key hash (one per node, probe or
/// bucket).
using ringbloom::fmix64;

/// 2^64 / phi, the golden-ratio increment (Knuth, TAOCP 6.4): spreads small
/// integers (probe numbers, bucket numbers) over the 64-bit space.
inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;

/// A value derived from key hash `h` for the small integer `i`.
[[nodiscard]] constexpr std::uint64_t mix_index(std::uint64_t h, std::uint64_t i) noexcept {
  return fmix64(h ^ ((i + 1) * golden_gamma));
}

/// floor(h * n / 2^64): a value in [0, n) as uniform as h, without a divide
/// (Lemire, "Fast random integer generation in an interval", 2019).
[[nodiscard]] constexpr std::uint32_t fast_range(std::uint64_t h, std::uint32_t n) noexcept {
  return static_cast<std::uint32_t>((static_cast<strategy_uint128>(h) * n) >> 64);
}

/// Checks a node list for a strategy named `strategy`: at least one node
/// (when `allow_empty` is false), non-empty unique names, finite weights > 0,
/// and weight 1 when the strategy has no weights. Throws
/// std::invalid_argument with a sentence naming the node and what to do.
void check_nodes(std::string_view strategy, std::span<const placement_node> nodes, bool weighted,
                 bool allow_empty = false);

/// Checks one new node against the existing names (same rules).
void check_new_node(std::string_view strategy, const std::vector<std::string>& names,
                    const placement_node& node, bool weighted);

/// The index of `name` in `names`; throws std::invalid_argument naming the
/// strategy when no node has it.
[[nodiscard]] std::uint32_t index_of(std::string_view strategy,
                                     const std::vector<std::string>& names, std::string_view name);

/// Checks a new weight (finite, > 0) for node `name`.
void check_weight(std::string_view strategy, std::string_view name, double weight);

/// Throws std::invalid_argument: removing the only node would leave nothing
/// to place keys on.
[[noreturn]] void refuse_last_node(std::string_view strategy, std::string_view name);

/// The supports() bits of a list of changes.
template <class... Changes>
[[nodiscard]] constexpr unsigned change_bits(Changes... changes) noexcept {
  return (0u | ... | changes);
}

/// The error a strategy throws for a change it does not support
/// (std::invalid_argument, as placement.hpp specifies).
[[noreturn]] void unsupported(std::string_view strategy, std::string_view what,
                              std::string_view instead);

/// Points on the 64-bit circle, sorted, each owned by a node index, with an
/// index on the top bits of a hash so that the successor of a hash is found
/// in a few steps (as hash_ring does).
class point_circle {
 public:
  struct point {
    std::uint64_t position;
    std::uint32_t owner;
  };
  point_circle() = default;
  /// Sorts `points` (ties by owner name, given in `names`) and indexes them
  /// with about 2^extra_index_bits buckets per point (more buckets: fewer
  /// crowded ones to walk, for 4 bytes per bucket).
  point_circle(std::vector<point> points, const std::vector<std::string>& names,
               int extra_index_bits = 0);

  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t position(std::size_t i) const noexcept { return positions_[i]; }
  [[nodiscard]] std::uint32_t owner(std::size_t i) const noexcept { return owners_[i]; }

  /// The index of the first point at or after h, wrapping to 0. For small
  /// circles that stay in cache (multi-probe's one point per node).
  ///
  /// Why no `lo < hi` test: hi is the first point of a later bucket (or the
  /// sentinel 2^64 - 1 past the last point), so positions_[hi] > h and a
  /// step never passes hi.
  [[nodiscard]] std::size_t successor(std::uint64_t h) const noexcept {
    const std::size_t lo = successor_or_end(h);
    return lo == count_ ? 0 : lo;
  }

  /// successor() without the wrap: size() when h is past the last point.
  /// owner(size()) is owner(0), and wrapped_distance() measures from h to
  /// the first point around the top, so a caller needs no branch for the
  /// wrap (with 10 points a probe wraps one time in ten, and the branch
  /// mispredicts about that often).
  [[nodiscard]] std::size_t successor_or_end(std::uint64_t h) const noexcept {
    const std::uint64_t bucket = h >> shift_;
    std::uint32_t lo = index_[bucket];
    const std::uint32_t hi = index_[bucket + 1];
    // A bucket holds about one point. Crowded ones are walked; the last two
    // steps are branch-free (a mispredicted branch per probe costs more
    // than the step).
    while (hi - lo > 2 && positions_[lo] < h) ++lo;
    lo += static_cast<std::uint32_t>(positions_[lo] < h);
    lo += static_cast<std::uint32_t>(positions_[lo] < h);
    return lo;
  }

  /// The clockwise distance from h to point `at` (from successor_or_end,
  /// so possibly size(): then to point 0 around the top). The sentinel
  /// position 2^64 - 1 is short of point 0 by position(0) + 1.
  [[nodiscard]] std::uint64_t wrapped_distance(std::size_t at, std::uint64_t h) const noexcept {
    const std::uint64_t past_end = std::uint64_t{0} - static_cast<std::uint64_t>(at == count_);
    return positions_[at] - h + (past_end & (positions_[0] + 1));
  }

  /// successor() with a predicted loop instead of branch-free steps, for
  /// circles larger than the cache (a ring with virtual nodes): the CPU
  /// guesses where the walk stops and loads the owner while the position is
  /// still on its way; branch-free steps would make the owner's load wait
  /// for the position's (perf: 58% of bounded loads' lookup at 10,000 nodes
  /// stalled there).
  [[nodiscard]] std::size_t successor_predicted(std::uint64_t h) const noexcept {
    std::uint32_t lo = index_[h >> shift_];
    while (positions_[lo] < h) ++lo;  // stops at the next bucket's first point
    return lo == count_ ? 0 : lo;
  }

  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return positions_.capacity() * sizeof(std::uint64_t) +
           (owners_.capacity() + index_.capacity()) * sizeof(std::uint32_t);
  }

 private:
  std::vector<std::uint64_t> positions_{~std::uint64_t{0}};  // the points, then a sentinel
  std::vector<std::uint32_t> owners_{0};                     // the owners, then owner(0) again
  std::vector<std::uint32_t> index_{0, 0, 0};
  std::uint32_t count_ = 0;
  int shift_ = 63;
};

}  // namespace ringbloom::detail
