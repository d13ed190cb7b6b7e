// The sorted circle of points the multi-probe and bounded-load strategies
// search: both successor searches agree with a binary search, on circles
// small and large, at the points themselves, between them and past the last.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ringbloom/placement/detail/strategy_support.hpp"

namespace ringbloom::detail {
namespace {

// The first point at or after h, wrapping to 0: the definition.
std::size_t reference_successor(const std::vector<std::uint64_t>& sorted, std::uint64_t h) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), h);
  return it == sorted.end() ? 0 : static_cast<std::size_t>(it - sorted.begin());
}

void check_circle(std::size_t count, int extra_index_bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<point_circle::point> points;
  std::vector<std::string> names;
  for (std::uint32_t i = 0; i < count; ++i) {
    // Every fourth point crowds near its predecessor, so some buckets hold many.
    const std::uint64_t at = (i % 4 == 3) ? points.back().position + (rng() & 0xFF) : rng();
    points.push_back({at, i});
    names.push_back("n" + std::to_string(i));
  }
  const point_circle circle(points, names, extra_index_bits);
  std::vector<std::uint64_t> sorted;
  for (const auto& p : points) sorted.push_back(p.position);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint64_t> probes{
      0, 1, ~std::uint64_t{0}, sorted.front(), sorted.back(), sorted.back() + 1};
  for (const auto p : sorted) {
    probes.push_back(p);
    probes.push_back(p - 1);
    probes.push_back(p + 1);
  }
  for (int i = 0; i < 20000; ++i) probes.push_back(rng());
  for (const auto h : probes) {
    const std::size_t want = reference_successor(sorted, h);
    ASSERT_EQ(circle.position(circle.successor(h)), sorted[want]) << count << " points, h " << h;
    ASSERT_EQ(circle.position(circle.successor_predicted(h)), sorted[want])
        << count << " points, h " << h;
    // The unwrapped search: past the last point it answers size(), whose
    // owner is point 0's and whose distance goes around the top.
    const std::size_t end = circle.successor_or_end(h);
    ASSERT_EQ(circle.owner(end), circle.owner(circle.successor(h))) << count << " points, h " << h;
    ASSERT_EQ(circle.wrapped_distance(end, h), sorted[want] - h) << count << " points, h " << h;
  }
}

TEST(PointCircle, BothSuccessorSearchesAgreeWithABinarySearch) {
  for (const std::size_t count : {1, 2, 3, 5, 17, 100, 1000}) {
    for (const int extra : {0, 2}) check_circle(count, extra, count * 7 + 1);
  }
  check_circle(100000, 0, 5);  // beyond the cache: the predicted search's case
}

}  // namespace
}  // namespace ringbloom::detail
