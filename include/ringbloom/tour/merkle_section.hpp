// ringbloom/tour/merkle_section.hpp: the tour's Merkle section,
// the numbers the German lesson's side note on Merkle trees did not show.
//
// What it measures. Replica A holds `rows` rows ("key-<i>" -> "value-<i>");
// replica B is A with d rows changed (row i for i a multiple of rows / d,
// value "value-<i>!"), made by O(depth) incremental updates of A's tree. For
// each d: the digests the top-down comparison exchanges, the rows of the
// differing leaves (what must then be compared or sent), against sending all
// rows. Then the depth trade-off for one d: deeper trees exchange more
// digests (about 2 d depth) but leave fewer rows per differing leaf
// (rows / 2^depth each). The shallower trees are coarsened() from the
// deepest, which equals building them (merkle_tree.hpp).
//
// Deterministic: no random numbers; the same options give the same numbers on
// every platform.
//
// Example:
//
//   ringbloom::tour::merkle_section m = ringbloom::tour::measure_merkle();
//   std::uint64_t digests = m.exchanges[0].digests_exchanged;   // d = 10, depth 16
#pragma once

#include <cstdint>
#include <vector>

namespace ringbloom::tour {

/// The sizes of the Merkle section.
struct merkle_tour_options {
  std::uint64_t rows = 1'000'000;
  /// The depth of the exchanges table.
  unsigned depth = 16;
  /// d, the differing rows of each exchange; each must be in [1, rows].
  std::vector<std::uint64_t> differences{10, 1000, 100000};
  /// The depths of the trade-off, ascending, each in [1, 22].
  std::vector<unsigned> depth_sweep{4, 6, 8, 10, 12, 14, 16, 18, 20};
  /// d of the trade-off.
  std::uint64_t sweep_differences = 1000;

  /// Smaller sizes for tests and sanitizer builds: 100,000 rows and d up to 10,000.
  [[nodiscard]] static merkle_tour_options quick();
};

/// One exchange between A and B at the options' depth.
struct merkle_exchange {
  std::uint64_t differences = 0;  ///< d: rows that differ
  std::uint64_t differing_leaves = 0;
  std::uint64_t digests_exchanged = 0;
  /// d x depth x 2: the estimate for differences in distinct leaves.
  std::uint64_t estimate = 0;
  /// Rows of A in the differing leaves: what A sends for the row comparison.
  std::uint64_t rows_to_compare = 0;
  /// Without a tree A sends every row.
  std::uint64_t rows_without_tree = 0;
};

/// One depth of the trade-off.
struct merkle_depth_point {
  unsigned depth = 0;
  std::uint64_t leaves = 0;
  double rows_per_leaf = 0;
  std::uint64_t digests_exchanged = 0;
  std::uint64_t rows_to_compare = 0;
  /// Digests and rows together, counting a row as one unit: the depth where
  /// this is smallest balances the two costs.
  [[nodiscard]] std::uint64_t total() const noexcept { return digests_exchanged + rows_to_compare; }
};

struct merkle_section {
  std::uint64_t rows = 0;
  unsigned depth = 0;
  std::vector<merkle_exchange> exchanges;
  std::uint64_t sweep_differences = 0;
  std::vector<merkle_depth_point> depth_sweep;
};

/// Runs the section. Throws std::invalid_argument for rows 0, a d outside
/// [1, rows], a depth outside [1, 22] or a sweep not ascending.
[[nodiscard]] merkle_section measure_merkle(const merkle_tour_options& options = {});

}  // namespace ringbloom::tour
