// ringbloom/tour/strategies_section.hpp: the tour's section 9, the placement
// strategies side by side on the lessons' own experiment.
//
// What it is. Both lessons measure one thing about the ring: when node N+1
// joins N nodes, how many of 20,000 keys move, against the 1/(N+1) the new
// node should take. This section runs that experiment (keys "key-0"..,
// nodes n1..nN, then n(N+1) joins) on every strategy of
// ringbloom/placement/strategies.hpp, for the German lesson's N = 4 and
// lab11's N = 10, and reports what each moved and how evenly it spread the
// keys afterwards. Lookup time is left out: the tour is deterministic.
//
// Example:
//
//   #include <ringbloom/tour/strategies_section.hpp>
//   auto s = ringbloom::tour::measure_strategies();
//   double maglev_moved = s.runs[1].rows[3].moved_fraction;   // N = 10, maglev
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ringbloom/placement/strategies.hpp"

namespace ringbloom::tour {

/// One N -> N+1 run over every strategy.
struct strategies_run {
  std::uint32_t from_nodes = 0;
  double ideal_fraction = 0;  ///< 1/(N+1)
  std::vector<strategy_result> rows;
};

struct strategies_section {
  std::uint64_t keys = 0;
  std::uint32_t ring_vnodes = 0;  ///< points per node of the ring and bounded
  std::vector<strategies_run> runs;
};

/// Runs the section with the tour's keys and virtual nodes (`keys`,
/// `vnodes`), for N = 4 and N = 10.
[[nodiscard]] strategies_section measure_strategies(std::uint32_t keys = 20000,
                                                    std::uint32_t vnodes = 100);

}  // namespace ringbloom::tour
