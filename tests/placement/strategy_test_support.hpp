// Helpers shared by the placement strategy tests: keys, placements by name,
// movement and balance counts.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/placement.hpp"

namespace ringbloom::test {

/// xxh3 hashes of "key-0".."key-(count-1)" (fixed: the tests' seed).
inline std::vector<std::uint64_t> key_hashes(std::size_t count) {
  std::vector<std::uint64_t> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(xxh3_64("key-" + std::to_string(i)));
  return out;
}

inline std::vector<placement_node> nodes_named(std::size_t count, std::size_t first = 1) {
  std::vector<placement_node> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back({"n" + std::to_string(first + i), 1.0});
  return out;
}

/// The owner name of every hash.
inline std::vector<std::string> owners(const placement& p, const std::vector<std::uint64_t>& hs) {
  std::vector<std::string> out;
  out.reserve(hs.size());
  for (const auto h : hs) out.push_back(p.node_name(p.node_index_for_hash(h)));
  return out;
}

struct moves {
  std::size_t moved = 0;
  std::size_t moved_not_via = 0;  ///< moves neither from nor to `via`
  [[nodiscard]] double fraction(std::size_t keys) const {
    return static_cast<double>(moved) / static_cast<double>(keys);
  }
};

/// Counts moves between two owner lists; a move that neither leaves nor
/// reaches `via` (the changed node) is one a minimal strategy never makes.
inline moves count_moves(const std::vector<std::string>& before,
                         const std::vector<std::string>& after, const std::string& via) {
  moves m;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    ++m.moved;
    if (before[i] != via && after[i] != via) ++m.moved_not_via;
  }
  return m;
}

/// Keys per node name.
inline std::map<std::string, std::size_t> counts(const std::vector<std::string>& owner_names) {
  std::map<std::string, std::size_t> c;
  for (const auto& n : owner_names) ++c[n];
  return c;
}

/// The largest count over the average count of `nodes` nodes.
inline double peak_to_average(const std::vector<std::string>& owner_names, std::size_t nodes) {
  std::size_t peak = 0;
  for (const auto& [name, c] : counts(owner_names)) peak = std::max(peak, c);
  return static_cast<double>(peak) * static_cast<double>(nodes) /
         static_cast<double>(owner_names.size());
}

/// A bound on peak/avg from sampling alone: K keys on N equal nodes give
/// per-node counts of standard deviation sqrt(K/N); 5 of those above the
/// mean, relative to it, is sqrt(N/K) x 5. Tests add this to the
/// strategy's own expected peak/avg.
inline double sampling_slack(std::size_t keys, std::size_t nodes) {
  return 5.0 * std::sqrt(static_cast<double>(nodes) / static_cast<double>(keys));
}

}  // namespace ringbloom::test
