// Rendezvous hashing: Thaler and Ravishankar (1998); weights by the
// logarithmic method of Schindelhauer and Schomaker (2005).
#include "ringbloom/placement/rendezvous.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"

namespace ringbloom {

namespace {
constexpr std::string_view kind = "rendezvous";
}

rendezvous_placement::rendezvous_placement(std::span<const placement_node> nodes,
                                           rendezvous_options options)
    : options_(options) {
  detail::check_nodes(kind, nodes, true);
  for (const auto& node : nodes) {
    names_.push_back(node.name);
    seeds_.push_back(xxh3_64(node.name, options_.seed));
    weights_.push_back(node.weight);
  }
  refresh_uniform();
}

std::uint64_t rendezvous_placement::key_hash(std::string_view key) const {
  return xxh3_64(key, options_.seed);
}

// u in (0, 1) from the top 53 bits (the precision of a double), never 0 or 1,
// so -ln(u) is finite and > 0.
double rendezvous_placement::score(std::uint64_t h, std::uint32_t i) const noexcept {
  const std::uint64_t x = detail::fmix64(h ^ seeds_[i]);
  const double u = (static_cast<double>(x >> 11) + 0.5) * 0x1.0p-53;
  return weights_[i] / -std::log(u);
}

std::uint32_t rendezvous_placement::best_weighted(std::uint64_t h) const noexcept {
  std::uint32_t best = 0;
  double best_score = -1.0;
  for (std::uint32_t i = 0; i < seeds_.size(); ++i) {
    const double s = score(h, i);
    if (s > best_score) {
      best_score = s;
      best = i;
    }
  }
  return best;
}

std::vector<std::uint32_t> rendezvous_placement::node_indexes_for_hash(std::uint64_t h,
                                                                       std::size_t n) const {
  if (n == 0) {
    throw std::invalid_argument("rendezvous: asked for 0 nodes; ask for 1 or more");
  }
  std::vector<std::uint32_t> order(names_.size());
  std::iota(order.begin(), order.end(), 0u);
  n = std::min(n, order.size());
  if (uniform_) {
    std::vector<std::uint64_t> scores(names_.size());
    for (std::uint32_t i = 0; i < scores.size(); ++i) scores[i] = detail::fmix64(h ^ seeds_[i]);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return scores[a] > scores[b]; });
  } else {
    std::vector<double> scores(names_.size());
    for (std::uint32_t i = 0; i < scores.size(); ++i) scores[i] = score(h, i);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return scores[a] > scores[b]; });
  }
  order.resize(n);
  return order;
}

const std::string& rendezvous_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void rendezvous_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, true);
  names_.push_back(node.name);
  seeds_.push_back(xxh3_64(node.name, options_.seed));
  weights_.push_back(node.weight);
  refresh_uniform();
}

void rendezvous_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) {
    detail::refuse_last_node(kind, name);
  }
  names_.erase(names_.begin() + i);
  seeds_.erase(seeds_.begin() + i);
  weights_.erase(weights_.begin() + i);
  refresh_uniform();
}

void rendezvous_placement::set_weight(std::string_view name, double weight) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  detail::check_weight(kind, name, weight);
  weights_[i] = weight;
  refresh_uniform();
}

std::size_t rendezvous_placement::memory_bytes() const noexcept {
  return seeds_.capacity() * sizeof(std::uint64_t) + weights_.capacity() * sizeof(double);
}

unsigned rendezvous_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any,
                             placement_change::reweight, placement_change::replicas);
}

std::unique_ptr<placement> rendezvous_placement::clone() const {
  return std::make_unique<rendezvous_placement>(*this);
}

void rendezvous_placement::refresh_uniform() noexcept {
  uniform_ = std::all_of(weights_.begin(), weights_.end(),
                         [&](double w) { return w == weights_.front(); });
}

// Expected shares: with the logarithmic method a node wins with probability
// w_i / W exactly (the minimum of independent exponentials -ln(u_i) / w_i is
// node i's with probability w_i / W; Schindelhauer and Schomaker 2005).
std::optional<placement_ownership> rendezvous_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation, detail::weight_shares(weights_)};
}

}  // namespace ringbloom
