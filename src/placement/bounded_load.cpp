// Consistent hashing with bounded loads: Mirrokni, Thorup, Zadimoghaddam,
// SODA 2018 (arXiv:1608.01350), section 2 (the "forwarding" rule on a ring).
#include "ringbloom/placement/bounded_load.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "ringbloom/hash.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view kind = "bounded";
constexpr std::uint32_t max_vnodes = 65536;

std::uint32_t point_count(std::uint32_t vnodes, double weight) {
  const double points = std::round(static_cast<double>(vnodes) * weight);
  if (points > 1 << 24) {
    throw std::invalid_argument(fmt::format(
        "bounded: weight {} gives more than 2^24 points; give a smaller weight or fewer vnodes",
        weight));
  }
  return points < 1 ? 1 : static_cast<std::uint32_t>(points);
}

}  // namespace

bounded_load_placement::bounded_load_placement(std::span<const placement_node> nodes,
                                               bounded_load_options options)
    : options_(options) {
  if (options_.vnodes == 0 || options_.vnodes > max_vnodes) {
    throw std::invalid_argument(
        fmt::format("bounded: {} vnodes is outside 1..{}; give a count such as 100",
                    options_.vnodes, max_vnodes));
  }
  if (!(options_.epsilon > 0.0) || options_.epsilon > 100.0) {
    throw std::invalid_argument(fmt::format(
        "bounded: epsilon {} is outside (0, 100]; give the allowed excess over the fair share, "
        "such as 0.25",
        options_.epsilon));
  }
  detail::check_nodes(kind, nodes, true);
  for (const auto& node : nodes) {
    names_.push_back(node.name);
    weights_.push_back(node.weight);
  }
  loads_.assign(names_.size(), 0);
  rebuild();
}

std::uint64_t bounded_load_placement::key_hash(std::string_view key) const { return xxh3_64(key); }

void bounded_load_placement::rebuild() {
  std::vector<detail::point_circle::point> points;
  std::string label;
  for (std::uint32_t i = 0; i < names_.size(); ++i) {
    const std::uint32_t count = point_count(options_.vnodes, weights_[i]);
    for (std::uint32_t j = 0; j < count; ++j) {
      label = fmt::format("{}#{}", names_[i], j);
      points.push_back({xxh3_64(label), i});
    }
  }
  circle_ = detail::point_circle(std::move(points), names_, 1);
  total_weight_ = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  equal_weights_ =
      std::all_of(weights_.begin(), weights_.end(), [&](double w) { return w == weights_[0]; });
  refresh_capacity();
}

std::uint64_t bounded_load_placement::capacity(std::uint32_t index) const {
  const double fair = static_cast<double>(assigned_ + 1) * weights_.at(index) / total_weight_;
  return static_cast<std::uint64_t>(std::ceil((1.0 + options_.epsilon) * fair));
}

// The walk ends: the capacities sum to at least (1 + eps)(m + 1) > m keys, so
// some node is below its capacity, and the walk visits every point.
//
// Speed: beyond about 2^16 points (1 MB of positions and index, 400 nodes of
// 160 points) the ring does not stay in the cache, and the predicted
// successor search overlaps the loads that the branch-free one serializes
// (strategy_support.hpp); below, the branch-free one is faster. With equal
// weights every node has the same capacity, kept up to date as keys come
// and go (refresh_capacity), so a step reads only the owner's load.
std::uint32_t bounded_load_placement::walk(std::size_t at) const noexcept {
  if (equal_weights_) {
    for (std::size_t step = 0; step < circle_.size(); ++step) {
      const std::uint32_t owner = circle_.owner(at);
      if (static_cast<double>(loads_[owner]) < equal_capacity_) return owner;
      if (++at == circle_.size()) at = 0;
    }
    return circle_.owner(at);  // unreachable, see above
  }
  const double per_weight =
      (1.0 + options_.epsilon) * static_cast<double>(assigned_ + 1) / total_weight_;
  for (std::size_t step = 0; step < circle_.size(); ++step) {
    const std::uint32_t owner = circle_.owner(at);
    if (static_cast<double>(loads_[owner]) < std::ceil(per_weight * weights_[owner])) return owner;
    if (++at == circle_.size()) at = 0;
  }
  return circle_.owner(at);  // unreachable, see above
}

std::uint32_t bounded_load_placement::assign_hash(std::uint64_t h) {
  const std::uint32_t owner = node_index_for_hash(h);
  ++loads_[owner];
  ++assigned_;
  refresh_capacity();
  return owner;
}

// The capacity c_i of every node when the weights are equal, for the next
// key (m = assigned_); the same expression as the general walk's.
void bounded_load_placement::refresh_capacity() noexcept {
  const double per_weight =
      (1.0 + options_.epsilon) * static_cast<double>(assigned_ + 1) / total_weight_;
  equal_capacity_ = std::ceil(per_weight * weights_[0]);
  fast_capacity_ = !equal_weights_             ? 0
                   : equal_capacity_ >= 0x1p64 ? ~std::uint64_t{0}
                                               : static_cast<std::uint64_t>(equal_capacity_);
}

void bounded_load_placement::release(std::uint32_t index) {
  if (index >= loads_.size() || loads_[index] == 0) {
    throw std::invalid_argument(
        fmt::format("bounded: node index {} holds no keys to release; release only a node that "
                    "assign_hash returned",
                    index));
  }
  --loads_[index];
  --assigned_;
  refresh_capacity();
}

void bounded_load_placement::clear_loads() noexcept {
  std::fill(loads_.begin(), loads_.end(), 0);
  assigned_ = 0;
  refresh_capacity();
}

std::vector<std::uint32_t> bounded_load_placement::assign_all(
    std::span<const std::uint64_t> hashes) {
  clear_loads();
  std::vector<std::uint32_t> owners;
  owners.reserve(hashes.size());
  for (const std::uint64_t h : hashes) owners.push_back(assign_hash(h));
  return owners;
}

const std::string& bounded_load_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void bounded_load_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, true);
  bounded_load_placement next = *this;
  next.names_.push_back(node.name);
  next.weights_.push_back(node.weight);
  next.loads_.push_back(0);
  next.rebuild();
  *this = std::move(next);
}

void bounded_load_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  bounded_load_placement next = *this;
  next.assigned_ -= next.loads_[i];
  next.names_.erase(next.names_.begin() + i);
  next.weights_.erase(next.weights_.begin() + i);
  next.loads_.erase(next.loads_.begin() + i);
  next.rebuild();
  *this = std::move(next);
}

void bounded_load_placement::set_weight(std::string_view name, double weight) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  detail::check_weight(kind, name, weight);
  bounded_load_placement next = *this;
  next.weights_[i] = weight;
  next.rebuild();
  *this = std::move(next);
}

std::size_t bounded_load_placement::memory_bytes() const noexcept {
  return circle_.memory_bytes() + (weights_.capacity() + loads_.capacity()) * sizeof(std::uint64_t);
}

unsigned bounded_load_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any,
                             placement_change::reweight);
}

std::unique_ptr<placement> bounded_load_placement::clone() const {
  return std::make_unique<bounded_load_placement>(*this);
}

// What is counted: load(i) / assigned() (all 0 before the first key).
std::optional<placement_ownership> bounded_load_placement::ownership() const {
  placement_ownership out{ownership_basis::counted_load, std::vector<double>(loads_.size(), 0.0)};
  if (assigned_ == 0) return out;
  for (std::size_t i = 0; i < loads_.size(); ++i) {
    out.shares[i] = static_cast<double>(loads_[i]) / static_cast<double>(assigned_);
  }
  return out;
}

}  // namespace ringbloom
