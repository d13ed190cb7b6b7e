// cli/commands.hpp: the areas of the command line, each registered by its own
// file (ring_commands.cpp, bloom_commands.cpp, demo_command.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "common.hpp"

namespace ringbloom::cli {

/// `ringbloom ring ...`: consistent hash rings.
void add_ring_commands(CLI::App& app, context& ctx);

/// `ringbloom bloom ...`: Bloom filter files.
void add_bloom_commands(CLI::App& app, context& ctx);

/// `ringbloom hll|cms|topk ...`: sketch files (cli/sketch/sketch_commands.cpp).
void add_sketch_commands(CLI::App& app, context& ctx);

/// `ringbloom quantile ...`: t-digest and KLL files (cli/quantile/quantile_commands.cpp).
void add_quantile_commands(CLI::App& app, context& ctx);

/// `ringbloom cuckoo ...`: cuckoo filter files (cli/filter/cuckoo_commands.cpp).
void add_cuckoo_commands(CLI::App& app, context& ctx);
/// `ringbloom merkle ...`: Merkle trees for anti-entropy between replicas.
void add_merkle_commands(CLI::App& app, context& ctx);

/// `ringbloom demo`: the tour of the two seed lessons.
void add_demo_command(CLI::App& app, context& ctx);

}  // namespace ringbloom::cli
