// Multi-probe consistent hashing: Appleton and O'Reilly, arXiv:1505.00062.
#include "ringbloom/placement/multiprobe.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include "ringbloom/hash.hpp"

namespace ringbloom {

namespace {
constexpr std::string_view kind = "multiprobe";
constexpr std::uint32_t max_probes = 1024;
}  // namespace

multiprobe_placement::multiprobe_placement(std::span<const placement_node> nodes,
                                           multiprobe_options options)
    : options_(options) {
  if (options_.probes == 0 || options_.probes > max_probes) {
    throw std::invalid_argument(
        fmt::format("multiprobe: {} probes is outside 1..{}; give a probe count such as 21",
                    options_.probes, max_probes));
  }
  detail::check_nodes(kind, nodes, false);
  for (const auto& node : nodes) names_.push_back(node.name);
  rebuild();
}

std::uint64_t multiprobe_placement::key_hash(std::string_view key) const {
  return xxh3_64(key, options_.seed);
}

void multiprobe_placement::rebuild() {
  std::vector<detail::point_circle::point> points;
  points.reserve(names_.size());
  for (std::uint32_t i = 0; i < names_.size(); ++i)
    points.push_back({xxh3_64(names_[i], options_.seed), i});
  // Four index buckets per point: a probe almost never meets a bucket of
  // more than two points (Poisson(1/4): 0.2% against 8% with one bucket
  // per point), for 16 bytes per node.
  circle_ = detail::point_circle(std::move(points), names_, 2);
}

const std::string& multiprobe_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void multiprobe_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, false);
  multiprobe_placement next = *this;
  next.names_.push_back(node.name);
  next.rebuild();
  *this = std::move(next);
}

void multiprobe_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  multiprobe_placement next = *this;
  next.names_.erase(next.names_.begin() + i);
  next.rebuild();
  *this = std::move(next);
}

std::size_t multiprobe_placement::memory_bytes() const noexcept { return circle_.memory_bytes(); }

unsigned multiprobe_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any);
}

std::unique_ptr<placement> multiprobe_placement::clone() const {
  return std::make_unique<multiprobe_placement>(*this);
}

}  // namespace ringbloom
