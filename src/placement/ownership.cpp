// The shared arithmetic of placement::ownership()
// (ringbloom/placement/detail/ownership.hpp).
#include "ringbloom/placement/detail/ownership.hpp"

#include <numeric>

namespace ringbloom::detail {

namespace {

__extension__ using uint128 = unsigned __int128;

// ceil(s x 2^64 / size): the first hash that fast_range sends to slot s.
uint128 first_hash_of_slot(std::uint64_t s, std::uint64_t size) {
  return ((uint128{s} << 64) + size - 1) / size;
}

}  // namespace

std::vector<double> fast_range_table_shares(std::span<const std::uint32_t> table,
                                            std::size_t nodes) {
  std::vector<double> shares(nodes, 0.0);
  const std::uint64_t size = table.size();
  for (std::uint64_t s = 0; s < size; ++s) {
    const uint128 hashes = first_hash_of_slot(s + 1, size) - first_hash_of_slot(s, size);
    shares[table[s]] += static_cast<double>(hashes);
  }
  for (double& share : shares) share = std::ldexp(share, -64);
  return shares;
}

std::vector<double> modulo_table_shares(std::span<const std::uint32_t> table, std::size_t nodes) {
  std::vector<double> shares(nodes, 0.0);
  const std::uint64_t size = table.size();
  for (std::uint64_t s = 0; s < size; ++s) {
    const uint128 hashes = uint128{(~std::uint64_t{0} - s) / size} + 1;
    shares[table[s]] += static_cast<double>(hashes);
  }
  for (double& share : shares) share = std::ldexp(share, -64);
  return shares;
}

std::vector<double> equal_shares(std::size_t nodes) {
  return std::vector<double>(nodes, nodes == 0 ? 0.0 : 1.0 / static_cast<double>(nodes));
}

std::vector<double> weight_shares(std::span<const double> weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<double> shares;
  shares.reserve(weights.size());
  for (const double w : weights) shares.push_back(w / total);
  return shares;
}

}  // namespace ringbloom::detail
