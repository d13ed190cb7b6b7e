// The tour's Merkle section (include/ringbloom/tour/merkle_section.hpp).
#include "ringbloom/tour/merkle_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ringbloom/merkle/merkle_tree.hpp"

namespace ringbloom::tour {

namespace {

std::string row_key(std::uint64_t i) { return "key-" + std::to_string(i); }
std::string row_value(std::uint64_t i) { return "value-" + std::to_string(i); }

void check(const merkle_tour_options& o) {
  if (o.rows == 0) throw std::invalid_argument("the Merkle section needs at least one row");
  for (const std::uint64_t d : o.differences) {
    if (d == 0 || d > o.rows) {
      throw std::invalid_argument(
          fmt::format("{} differences is outside 1..{} (the rows); give fewer", d, o.rows));
    }
  }
  if (o.sweep_differences == 0 || o.sweep_differences > o.rows) {
    throw std::invalid_argument("the depth sweep's differences must be in 1..rows");
  }
  if (o.depth_sweep.empty() || !std::is_sorted(o.depth_sweep.begin(), o.depth_sweep.end())) {
    throw std::invalid_argument("the depth sweep must list ascending depths");
  }
}

// A's tree at `depth`, built from the rows.
merkle_tree replica_a(std::uint64_t rows, unsigned depth) {
  merkle_builder builder({.depth = depth});
  for (std::uint64_t i = 0; i < rows; ++i) builder.add(row_key(i), row_value(i));
  return builder.finish();
}

// B: A with d rows changed, by incremental updates.
merkle_tree replica_b(const merkle_tree& a, std::uint64_t rows, std::uint64_t d) {
  merkle_tree b = a;
  const std::uint64_t step = rows / d;
  for (std::uint64_t k = 0; k < d; ++k) {
    const std::uint64_t i = k * step;
    b.update(row_key(i), row_value(i), row_value(i) + "!");
  }
  return b;
}

}  // namespace

merkle_tour_options merkle_tour_options::quick() {
  merkle_tour_options o;
  o.rows = 100'000;
  o.differences = {10, 1000, 10000};
  o.depth_sweep = {4, 8, 12, 16};
  o.sweep_differences = 100;
  return o;
}

merkle_section measure_merkle(const merkle_tour_options& options) {
  check(options);
  merkle_section s;
  s.rows = options.rows;
  s.depth = options.depth;
  s.sweep_differences = options.sweep_differences;
  // One build, at the deepest depth; everything else is coarsened from it or
  // made by incremental updates (both exact, merkle_tree.hpp).
  const unsigned deepest = std::max(options.depth, options.depth_sweep.back());
  const merkle_tree a = replica_a(options.rows, deepest);
  const merkle_tree a_at_depth = a.coarsened(options.depth);
  for (const std::uint64_t d : options.differences) {
    const merkle_diff result = diff(a_at_depth, replica_b(a_at_depth, options.rows, d));
    s.exchanges.push_back({d, result.leaves.size(), result.digests_exchanged, d * options.depth * 2,
                           result.rows_a, options.rows});
  }
  const merkle_tree b = replica_b(a, options.rows, options.sweep_differences);
  for (const unsigned depth : options.depth_sweep) {
    const merkle_diff result = diff(a.coarsened(depth), b.coarsened(depth));
    const std::uint64_t leaves = std::uint64_t{1} << depth;
    s.depth_sweep.push_back({depth, leaves,
                             static_cast<double>(options.rows) / static_cast<double>(leaves),
                             result.digests_exchanged, result.rows_a});
  }
  return s;
}

}  // namespace ringbloom::tour
