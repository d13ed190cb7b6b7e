// Skeleton-based hierarchical rendezvous hashing: Wang and Ravishankar,
// "Skeleton-based hierarchical rendezvous hashing" (2009); each choice is
// weighted rendezvous by the logarithmic method (Schindelhauer and Schomaker,
// SPAA 2005), as in rendezvous.cpp.
#include "ringbloom/placement/skeleton.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view kind = "skeleton";
constexpr std::uint32_t free_slot = 0xFFFF'FFFFu;
constexpr std::uint32_t max_fanout = 1024;

// The seed of tree node (height, index): fixed by its place in the skeleton,
// so a subtree keeps its seed when the tree grows a level above it. XXH3 of
// the pair, not a mix of height and index: with a mix such as
// fmix64(height g ^ (index + 1) g) a child could share its parent's seed and
// then win wherever the parent won (measured: peak/avg 4.7 at 1,000 nodes).
std::uint64_t tree_seed(std::uint64_t seed, std::uint32_t height, std::uint64_t index) {
  std::array<char, 12> bytes{};
  std::memcpy(bytes.data(), &height, sizeof height);
  std::memcpy(bytes.data() + sizeof height, &index, sizeof index);
  return xxh3_64(std::string_view(bytes.data(), bytes.size()), seed ^ 0x5ce1e7005ce1e700ULL);
}

// u in (0, 1) from the top 53 bits of a mix, never 0 or 1, so that -ln(u)
// is finite and > 0 (as rendezvous_placement scores nodes).
double unit_interval(std::uint64_t mix) noexcept {
  return (static_cast<double>(mix >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace

skeleton_placement::skeleton_placement(std::span<const placement_node> nodes,
                                       skeleton_options options)
    : options_(options) {
  if (options_.fanout < 2 || options_.fanout > max_fanout) {
    throw std::invalid_argument(
        fmt::format("skeleton: fan-out {} is outside 2..{}; give a fan-out such as 32",
                    options_.fanout, max_fanout));
  }
  detail::check_nodes(kind, nodes, true);
  std::vector<placement_node> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const placement_node& a, const placement_node& b) { return a.name < b.name; });
  for (const auto& node : sorted) {
    const auto index = static_cast<std::uint32_t>(names_.size());
    names_.push_back(node.name);
    weights_.push_back(node.weight);
    leaf_seeds_.push_back(xxh3_64(node.name, options_.seed));
    slot_of_.push_back(index);
    slots_.push_back(index);
  }
  rebuild();
}

std::uint64_t skeleton_placement::key_hash(std::string_view key) const {
  return xxh3_64(key, options_.seed);
}

// Weighted rendezvous between `best` (the best of the equal-weight children,
// of mix `best_mix`) and the children of other weights: child e beats b when
// w_e / -ln(u_e) > w_b / -ln(u_b), that is w_e (-ln u_b) > w_b (-ln u_e).
//
// Logarithms cost more than the whole pass of mixes, so each side is first
// bounded with 1 - u <= -ln(u) <= 1/u - 1 (u in (0, 1)); the logarithms are
// taken only when the bounds overlap (both u near 1; about one choice in
// five at 10,000 nodes). The answer is the one the logarithms give.
std::uint32_t skeleton_placement::best_weighted(std::uint64_t h, std::uint64_t g,
                                                const tree_node& t, std::uint32_t best,
                                                std::uint64_t best_mix) const noexcept {
  double u_b = unit_interval(best_mix);
  double w_b = entry_weights_[best];
  for (std::uint32_t e = t.first + t.equal; e < t.first + t.count; ++e) {
    const double u_e = unit_interval(mix(h, g, seeds_[e]));
    const double w_e = entry_weights_[e];
    bool e_wins = false;
    if (w_e * (1.0 - u_b) > w_b * (1.0 / u_e - 1.0)) {
      e_wins = true;
    } else if (w_e * (1.0 / u_b - 1.0) < w_b * (1.0 - u_e)) {
      e_wins = false;
    } else {
      e_wins = w_e * -std::log(u_b) > w_b * -std::log(u_e);
    }
    if (e_wins) {
      best = e;
      u_b = u_e;
      w_b = w_e;
    }
  }
  return best;
}

// The tree over slots_ (trailing free slots dropped): levels_ = the least L
// with f^L >= slots; weights summed bottom-up, then the tree laid out top-down
// (breadth first) with only the live children of each tree node.
void skeleton_placement::rebuild() {
  while (!slots_.empty() && slots_.back() == free_slot) slots_.pop_back();
  const std::uint64_t f = options_.fanout;
  levels_ = 1;
  for (std::uint64_t span = f; span < slots_.size(); span *= f) ++levels_;
  // weight[k][t]: the weight below tree node (height k, index t); k = 0 are
  // the slots themselves.
  std::vector<std::vector<double>> weight(levels_ + 1);
  weight[0].resize(slots_.size(), 0.0);
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s] != free_slot) weight[0][s] = weights_[slots_[s]];
  }
  for (std::uint32_t k = 1; k <= levels_; ++k) {
    weight[k].assign((weight[k - 1].size() + f - 1) / f, 0.0);
    for (std::size_t i = 0; i < weight[k - 1].size(); ++i) weight[k][i / f] += weight[k - 1][i];
  }
  tree_.clear();
  seeds_.clear();
  entry_weights_.clear();
  targets_.clear();
  struct pending {
    std::uint32_t height;
    std::uint64_t index;
  };
  std::vector<pending> queue{{levels_, 0}};
  tree_.push_back({});
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const auto [height, index] = queue[q];
    struct entry {
      std::uint64_t seed;
      double weight;
      std::uint32_t target;
    };
    std::vector<entry> children;
    const auto& below = weight[height - 1];
    const std::uint64_t end = std::min<std::uint64_t>((index + 1) * f, below.size());
    for (std::uint64_t child = index * f; child < end; ++child) {
      if (below[child] <= 0.0) continue;
      if (height == 1) {
        const std::uint32_t n = slots_[child];
        children.push_back({leaf_seeds_[n], below[child], n});
      } else {
        children.push_back({tree_seed(options_.seed, height - 1, child), below[child],
                            static_cast<std::uint32_t>(tree_.size())});
        tree_.push_back({});
        queue.push_back({height - 1, child});
      }
    }
    // The most common weight first (ties: the larger weight).
    std::map<double, std::uint32_t> how_many;
    for (const auto& c : children) ++how_many[c.weight];
    double common = 0;
    std::uint32_t most = 0;
    for (const auto& [w, n] : how_many) {
      if (n >= most) {
        most = n;
        common = w;
      }
    }
    std::stable_partition(children.begin(), children.end(),
                          [&](const entry& c) { return c.weight == common; });
    tree_node node{static_cast<std::uint32_t>(seeds_.size()),
                   static_cast<std::uint32_t>(children.size()), most};
    for (const auto& c : children) {
      seeds_.push_back(c.seed);
      entry_weights_.push_back(c.weight);
      targets_.push_back(c.target);
    }
    tree_[q] = node;
  }
  tree_.shrink_to_fit();
  seeds_.shrink_to_fit();
  entry_weights_.shrink_to_fit();
  targets_.shrink_to_fit();
}

const std::string& skeleton_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void skeleton_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, true);
  const auto index = static_cast<std::uint32_t>(names_.size());
  const auto hole = std::find(slots_.begin(), slots_.end(), free_slot);
  const auto slot = static_cast<std::uint32_t>(hole - slots_.begin());
  if (hole == slots_.end()) {
    slots_.push_back(index);
  } else {
    *hole = index;
  }
  names_.push_back(node.name);
  weights_.push_back(node.weight);
  leaf_seeds_.push_back(xxh3_64(node.name, options_.seed));
  slot_of_.push_back(slot);
  rebuild();
}

void skeleton_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  slots_[slot_of_[i]] = free_slot;
  names_.erase(names_.begin() + i);
  weights_.erase(weights_.begin() + i);
  leaf_seeds_.erase(leaf_seeds_.begin() + i);
  slot_of_.erase(slot_of_.begin() + i);
  // Node indexes above i shift down by one.
  for (auto& n : slots_) {
    if (n != free_slot && n > i) --n;
  }
  rebuild();
}

void skeleton_placement::set_weight(std::string_view name, double weight) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  detail::check_weight(kind, name, weight);
  weights_[i] = weight;
  rebuild();
}

std::size_t skeleton_placement::memory_bytes() const noexcept {
  return tree_.capacity() * sizeof(tree_node) +
         (seeds_.capacity() + leaf_seeds_.capacity()) * sizeof(std::uint64_t) +
         (entry_weights_.capacity() + weights_.capacity()) * sizeof(double) +
         (targets_.capacity() + slots_.capacity() + slot_of_.capacity()) * sizeof(std::uint32_t);
}

// Expected: node i wins each choice on its path with probability (weight of
// the child) / (weight of the parent), and the product telescopes to w_i / W.
std::optional<placement_ownership> skeleton_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation, detail::weight_shares(weights_)};
}

unsigned skeleton_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any,
                             placement_change::reweight);
}

std::unique_ptr<placement> skeleton_placement::clone() const {
  return std::make_unique<skeleton_placement>(*this);
}

}  // namespace ringbloom
