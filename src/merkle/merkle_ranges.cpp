// Key-hash range sets and the ranges a node owns on a ring.
#include "ringbloom/merkle/merkle_ranges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ringbloom/placement/ring.hpp"

namespace ringbloom {

namespace {

constexpr std::uint64_t space_end = ~std::uint64_t{0};

// Appends r to a sorted, normalized vector, merging with the last range when
// they overlap or touch.
void append_merged(std::vector<hash_range>& out, hash_range r) {
  if (!out.empty() && (out.back().last == space_end || r.first <= out.back().last + 1)) {
    out.back().last = std::max(out.back().last, r.last);
    return;
  }
  out.push_back(r);
}

}  // namespace

std::vector<hash_range> normalize_ranges(std::vector<hash_range> ranges) {
  for (const hash_range& r : ranges) {
    if (r.first > r.last) {
      throw std::invalid_argument(fmt::format(
          "hash range [{:#x}, {:#x}] ends before it starts; give first <= last", r.first, r.last));
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const hash_range& a, const hash_range& b) { return a.first < b.first; });
  std::vector<hash_range> out;
  for (const hash_range& r : ranges) append_merged(out, r);
  return out;
}

bool ranges_normalized(const std::vector<hash_range>& ranges) noexcept {
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].first > ranges[i].last) return false;
    if (i > 0 && (ranges[i - 1].last == space_end || ranges[i - 1].last + 1 >= ranges[i].first)) {
      return false;
    }
  }
  return true;
}

std::vector<hash_range> intersect_ranges(const std::vector<hash_range>& a,
                                         const std::vector<hash_range>& b) {
  std::vector<hash_range> out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const std::uint64_t first = std::max(a[i].first, b[j].first);
    const std::uint64_t last = std::min(a[i].last, b[j].last);
    if (first <= last) out.push_back({first, last});
    if (a[i].last < b[j].last) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

namespace {

// The first range whose last >= h, or end.
std::vector<hash_range>::const_iterator first_ending_at_or_after(
    const std::vector<hash_range>& ranges, std::uint64_t h) noexcept {
  return std::lower_bound(ranges.begin(), ranges.end(), h,
                          [](const hash_range& r, std::uint64_t v) { return r.last < v; });
}

}  // namespace

bool ranges_contain(const std::vector<hash_range>& ranges, std::uint64_t h) noexcept {
  const auto it = first_ending_at_or_after(ranges, h);
  return it != ranges.end() && it->first <= h;
}

bool ranges_overlap(const std::vector<hash_range>& ranges, hash_range r) noexcept {
  const auto it = first_ending_at_or_after(ranges, r.first);
  return it != ranges.end() && it->first <= r.last;
}

double ranges_fraction(const std::vector<hash_range>& ranges) noexcept {
  double total = 0;
  for (const hash_range& r : ranges) total += static_cast<double>(r.last - r.first) + 1.0;
  return total / 18446744073709551616.0;  // 2^64
}

std::vector<hash_range> owned_ranges(const hash_ring& ring, std::string_view node,
                                     std::size_t replicas) {
  if (ring.options().scheme != ring_scheme::native) {
    throw std::invalid_argument(
        "a Merkle tree can be limited only to the ranges of a native ring (ketama hashes keys "
        "into 32 bits); use a ring of scheme 'ring'");
  }
  if (replicas == 0) {
    throw std::invalid_argument("replicas must be at least 1; give the ring's replica count");
  }
  const auto index = ring.find_node(node);
  if (!index) {
    throw std::invalid_argument(
        fmt::format("node '{}' is not on the ring; give one of the ring's nodes", node));
  }
  const auto positions = ring.positions();
  std::vector<hash_range> arcs;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const std::vector<std::string> owners = ring.nodes_for_hash(positions[i], replicas);
    if (std::find(owners.begin(), owners.end(), node) == owners.end()) continue;
    if (i == 0) {
      arcs.push_back({0, positions[0]});
      if (positions.back() != space_end) arcs.push_back({positions.back() + 1, space_end});
    } else if (positions[i - 1] != positions[i]) {
      arcs.push_back({positions[i - 1] + 1, positions[i]});
    }
  }
  return normalize_ranges(std::move(arcs));
}

}  // namespace ringbloom
