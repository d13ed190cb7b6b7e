#include "ringbloom/placement/schemes/point_table.hpp"

#include <bit>

namespace ringbloom::schemes::detail {
namespace {

int index_bits(std::size_t points) {
  int bits = 1;
  while (bits < 24 && (std::size_t{1} << bits) < 2 * points) ++bits;
  return bits;
}

}  // namespace

point_table::point_table(const std::vector<point>& points) {
  positions_.reserve(points.size());
  owners_.reserve(points.size());
  for (const point& p : points) {
    positions_.push_back(p.position);
    owners_.push_back(p.owner);
  }
  // About half a point per bucket, as hash_ring's index (ring.cpp
  // make_index): 2^bits buckets with 2^bits >= 2 x points, at least 2 and at
  // most 2^24 (64 MiB of index would help no lookup).
  const int bits = index_bits(points.size());
  shift_ = 32 - bits;
  const std::size_t buckets = std::size_t{1} << bits;
  index_.assign(buckets + 1, static_cast<std::uint32_t>(positions_.size()));
  std::size_t p = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    while (p < positions_.size() && (positions_[p] >> shift_) < b) ++p;
    index_[b] = static_cast<std::uint32_t>(p);
  }
}

index64::index64(const std::vector<std::uint64_t>& positions) {
  const int bits = index_bits(positions.size());
  shift_ = 64 - bits;
  const std::size_t buckets = std::size_t{1} << bits;
  index_.assign(buckets + 1, static_cast<std::uint32_t>(positions.size()));
  std::size_t p = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    while (p < positions.size() && (positions[p] >> shift_) < b) ++p;
    index_[b] = static_cast<std::uint32_t>(p);
  }
}

}  // namespace ringbloom::schemes::detail
