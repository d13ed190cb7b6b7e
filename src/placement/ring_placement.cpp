// The hash ring behind the placement interface.
#include "ringbloom/placement/ring_placement.hpp"

#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

#include "ringbloom/placement/detail/strategy_support.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view kind = "ring";

std::uint32_t ring_weight(const placement_node& node) {
  if (!(node.weight >= 1.0) || node.weight > 4294967295.0 ||
      std::floor(node.weight) != node.weight) {
    throw std::invalid_argument(fmt::format(
        "ring: node '{}' has weight {}; a ring's weights are whole numbers from 1 to 2^32 - 1",
        node.name, node.weight));
  }
  return static_cast<std::uint32_t>(node.weight);
}

}  // namespace

ring_placement::ring_placement(std::span<const placement_node> nodes, ring_options options)
    : ring_(options) {
  detail::check_nodes(kind, nodes, true);
  std::vector<ring_node> ring_nodes;
  ring_nodes.reserve(nodes.size());
  for (const auto& node : nodes) ring_nodes.push_back({node.name, ring_weight(node), {}, 0});
  ring_.add_nodes(ring_nodes);
}

ring_placement::ring_placement(hash_ring ring) : ring_(std::move(ring)) {
  if (ring_.empty()) {
    throw std::invalid_argument(
        "ring: the ring has no nodes, so it cannot place keys; add a node first");
  }
}

std::string_view ring_placement::kind_name() const noexcept {
  return scheme_name(ring_.options().scheme);
}

std::vector<std::uint32_t> ring_placement::node_indexes_for_hash(std::uint64_t h,
                                                                 std::size_t n) const {
  std::vector<std::uint32_t> indexes;
  for (const auto& name : ring_.nodes_for_hash(h, n)) indexes.push_back(*ring_.find_node(name));
  return indexes;
}

const std::string& ring_placement::node_name(std::uint32_t index) const {
  return ring_.nodes().at(index).name;
}

void ring_placement::add_node(const placement_node& node) {
  detail::check_weight(kind, node.name, node.weight);
  ring_.add_node(node.name, ring_weight(node));
}

void ring_placement::remove_node(std::string_view name) {
  if (ring_.node_count() == 1 && ring_.contains(name)) detail::refuse_last_node(kind, name);
  ring_.remove_node(name);
}

void ring_placement::set_weight(std::string_view name, double weight) {
  const std::uint32_t w = ring_weight(placement_node{std::string(name), weight});
  if (!ring_.contains(name)) {
    throw std::invalid_argument(fmt::format("ring: no node is named '{}'; name one of the {} nodes",
                                            name, ring_.node_count()));
  }
  hash_ring next = ring_;
  next.remove_node(name);
  next.add_node(name, w);
  ring_ = std::move(next);
}

unsigned ring_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any,
                             placement_change::reweight, placement_change::replicas);
}

std::unique_ptr<placement> ring_placement::clone() const {
  return std::make_unique<ring_placement>(*this);
}

// Exact: the ring's arcs (ownership(const hash_ring&) in ring.hpp).
std::optional<placement_ownership> ring_placement::ownership() const {
  placement_ownership out{ownership_basis::hash_space, {}};
  for (const node_share& s : ringbloom::ownership(ring_)) out.shares.push_back(s.share);
  return out;
}

}  // namespace ringbloom
