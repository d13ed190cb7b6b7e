// cli/placement/simulate_strategies.hpp: `ringbloom ring simulate --strategy`,
// the placement strategies side by side (ringbloom/placement/strategies.hpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/strategies.hpp"

namespace ringbloom::cli {

/// The strategies named by --strategy: one name, a comma list, or "all".
/// Throws usage_error for an unknown name.
[[nodiscard]] std::vector<std::string> parse_strategy_list(std::string_view spec);

/// Runs the comparison and prints the table (or JSON with `json`).
void run_strategy_simulation(std::string_view strategies, std::span<const placement_node> nodes,
                             std::span<const placement_step> steps,
                             std::span<const std::string> keys, std::string_view key_format,
                             const strategy_options& options, bool json);

}  // namespace ringbloom::cli
