// cli/placement/simulate_strategies.hpp: `ringbloom ring simulate --strategy`,
// the placement strategies side by side (ringbloom/placement/strategies.hpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/strategies.hpp"

namespace ringbloom::cli {

/// Applies one `--strategy-option KEY=VALUE` to `options`: maglev-table,
/// probes (multiprobe), epsilon (bounded), anchor-capacity or
/// skeleton-fanout. The value is checked as the strategy itself checks it, by
/// building that strategy on `node_count` equal nodes; throws usage_error
/// with the strategy's sentence otherwise (or for an unknown KEY).
void apply_strategy_option(strategy_options& options, std::string_view key_value,
                           std::size_t node_count);

/// Runs the comparison and prints the table (or JSON with `json`).
void run_strategy_simulation(std::string_view strategies, std::span<const placement_node> nodes,
                             std::span<const placement_step> steps,
                             std::span<const std::string> keys, std::string_view key_format,
                             const strategy_options& options, bool json);

}  // namespace ringbloom::cli
