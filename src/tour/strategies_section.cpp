// Section 9 of the tour: the placement strategies on the lessons' N -> N+1.
#include "ringbloom/tour/strategies_section.hpp"

#include <fmt/core.h>

namespace ringbloom::tour {

strategies_section measure_strategies(std::uint32_t keys, std::uint32_t vnodes) {
  strategies_section s;
  s.keys = keys;
  s.ring_vnodes = vnodes;
  const std::vector<std::string> all(strategy_names().begin(), strategy_names().end());
  const std::vector<std::string> key_list = numbered_keys(keys);
  strategy_options options;
  options.ring_vnodes = vnodes;
  for (const std::uint32_t n : {4u, 10u}) {
    const auto steps = parse_placement_changes(fmt::format("add:n{}", n + 1));
    const auto c = compare_strategies(numbered_nodes(n), steps, all, key_list, options, false);
    s.runs.push_back({n, c.ideal_fraction, c.strategies});
  }
  return s;
}

}  // namespace ringbloom::tour
