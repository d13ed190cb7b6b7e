// Shared checks and the point circle of the placement strategies.
#include "ringbloom/placement/detail/strategy_support.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

namespace ringbloom::detail {

namespace {

void check_one(std::string_view strategy, const placement_node& node, bool weighted) {
  if (node.name.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: a node has an empty name; give every node a name", strategy));
  }
  if (!std::isfinite(node.weight) || node.weight <= 0.0) {
    throw std::invalid_argument(
        fmt::format("{}: node '{}' has weight {}; give a finite weight greater than 0", strategy,
                    node.name, node.weight));
  }
  if (!weighted && node.weight != 1.0) {
    throw std::invalid_argument(fmt::format(
        "{}: node '{}' has weight {}, but {} has no weights; give every node weight 1 or use "
        "rendezvous, maglev, bounded or the ring",
        strategy, node.name, node.weight, strategy));
  }
}

}  // namespace

void check_nodes(std::string_view strategy, std::span<const placement_node> nodes, bool weighted,
                 bool allow_empty) {
  if (nodes.empty() && !allow_empty) {
    throw std::invalid_argument(
        fmt::format("{} needs at least one node; give one or more nodes", strategy));
  }
  std::unordered_set<std::string_view> seen;
  for (const auto& node : nodes) {
    check_one(strategy, node, weighted);
    if (!seen.insert(node.name).second) {
      throw std::invalid_argument(
          fmt::format("{}: node '{}' is given twice; give each node once", strategy, node.name));
    }
  }
}

void check_new_node(std::string_view strategy, const std::vector<std::string>& names,
                    const placement_node& node, bool weighted) {
  check_one(strategy, node, weighted);
  if (std::find(names.begin(), names.end(), node.name) != names.end()) {
    throw std::invalid_argument(
        fmt::format("{}: node '{}' is already placed; remove it first or choose another name",
                    strategy, node.name));
  }
}

std::uint32_t index_of(std::string_view strategy, const std::vector<std::string>& names,
                       std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    throw std::invalid_argument(
        fmt::format("{}: no node is named '{}'; name one of the {} placed nodes", strategy, name,
                    names.size()));
  }
  return static_cast<std::uint32_t>(it - names.begin());
}

void check_weight(std::string_view strategy, std::string_view name, double weight) {
  check_one(strategy, placement_node{std::string(name), weight}, true);
}

void refuse_last_node(std::string_view strategy, std::string_view name) {
  throw std::invalid_argument(fmt::format(
      "{}: '{}' is the only node and cannot be removed; add another node first", strategy, name));
}

void unsupported(std::string_view strategy, std::string_view what, std::string_view instead) {
  throw std::invalid_argument(fmt::format("{} cannot {}; {}", strategy, what, instead));
}

point_circle::point_circle(std::vector<point> points, const std::vector<std::string>& names,
                           int extra_index_bits) {
  if (points.size() >= 0xFFFF'FFFFu) {
    throw std::invalid_argument("a circle of 2^32 or more points; give fewer nodes or points");
  }
  std::sort(points.begin(), points.end(), [&](const point& a, const point& b) {
    if (a.position != b.position) return a.position < b.position;
    return names[a.owner] < names[b.owner];
  });
  positions_.clear();
  positions_.reserve(points.size() + 1);
  owners_.clear();
  owners_.reserve(points.size() + 1);
  for (const auto& p : points) {
    positions_.push_back(p.position);
    owners_.push_back(p.owner);
  }
  count_ = static_cast<std::uint32_t>(points.size());
  // About one point per bucket: 2^bits buckets with 2^bits >= points (times
  // 2^extra_index_bits).
  const int bits = points.size() <= 1 ? 0 : static_cast<int>(std::bit_width(points.size() - 1));
  shift_ = 64 - std::clamp(bits + extra_index_bits, 1, 32);
  const std::uint64_t buckets = std::uint64_t{1} << (64 - shift_);
  index_.assign(buckets + 1, 0);
  std::size_t at = 0;
  for (std::uint64_t b = 0; b <= buckets; ++b) {
    while (at < count_ && b < buckets && (positions_[at] >> shift_) < b) ++at;
    index_[b] = static_cast<std::uint32_t>(b == buckets ? count_ : at);
  }
  positions_.push_back(~std::uint64_t{0});                   // the sentinel successor() may read
  owners_.push_back(owners_.empty() ? 0 : owners_.front());  // owner(size()): the wrap
}

}  // namespace ringbloom::detail
