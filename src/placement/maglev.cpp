// Maglev hashing: Eisenbud et al., NSDI 2016, section 3.4 (Pseudocode 1,
// "Populate Maglev hashing lookup table"), with weights by per-round credit.
#include "ringbloom/placement/maglev.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view kind = "maglev";
constexpr std::uint64_t offset_seed = 0x6d61676c6576;  // "maglev"
constexpr std::uint64_t skip_seed = 0x736b6970;        // "skip"
constexpr std::uint32_t max_table_size = 1u << 28;

void check_table(std::uint32_t size, std::size_t nodes) {
  if (!maglev_placement::is_prime(size)) {
    throw std::invalid_argument(fmt::format(
        "maglev: table size {} is not prime; give a prime such as 65537 or 655373", size));
  }
  if (size > max_table_size) {
    throw std::invalid_argument(fmt::format(
        "maglev: table size {} is more than the 2^28 slots allowed; give a smaller prime", size));
  }
  if (size < nodes) {
    throw std::invalid_argument(fmt::format(
        "maglev: table size {} is smaller than the {} nodes; give a prime of at least 100 x "
        "nodes",
        size, nodes));
  }
}

}  // namespace

bool maglev_placement::is_prime(std::uint32_t n) noexcept {
  if (n < 2) return false;
  if (n % 2 == 0) return n == 2;
  for (std::uint64_t d = 3; d * d <= n; d += 2) {
    if (n % d == 0) return false;
  }
  return true;
}

maglev_placement::maglev_placement(std::span<const placement_node> nodes, maglev_options options)
    : options_(options) {
  detail::check_nodes(kind, nodes, true);
  check_table(options_.table_size, nodes.size());
  for (const auto& node : nodes) {
    names_.push_back(node.name);
    weights_.push_back(node.weight);
  }
  rebuild();
}

std::uint64_t maglev_placement::key_hash(std::string_view key) const { return xxh3_64(key); }

// Pseudocode 1 of the paper, nodes in name order, each taking w_i / w_max
// turns per round. The heaviest node takes a turn every round, so the table
// fills after at most M rounds.
void maglev_placement::rebuild() {
  const std::uint32_t m = options_.table_size;
  const std::size_t n = names_.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return names_[a] < names_[b]; });
  const double max_weight = *std::max_element(weights_.begin(), weights_.end());

  std::vector<std::uint64_t> next(n);  // the node's current slot in its permutation
  std::vector<std::uint64_t> skip(n);
  std::vector<double> credit(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    next[i] = xxh3_64(names_[i], offset_seed) % m;
    skip[i] = xxh3_64(names_[i], skip_seed) % (m - 1) + 1;
  }
  constexpr std::uint32_t empty = 0xFFFF'FFFFu;
  std::vector<std::uint32_t> table(m, empty);
  std::uint32_t filled = 0;
  while (filled < m) {
    for (const std::uint32_t i : order) {
      credit[i] += weights_[i] / max_weight;
      if (credit[i] < 1.0) continue;
      credit[i] -= 1.0;
      while (table[next[i]] != empty) next[i] = (next[i] + skip[i]) % m;
      table[next[i]] = i;
      next[i] = (next[i] + skip[i]) % m;
      if (++filled == m) break;
    }
  }
  table_ = std::move(table);
}

const std::string& maglev_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void maglev_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, true);
  check_table(options_.table_size, names_.size() + 1);
  maglev_placement next = *this;
  next.names_.push_back(node.name);
  next.weights_.push_back(node.weight);
  next.rebuild();
  *this = std::move(next);
}

void maglev_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  maglev_placement next = *this;
  next.names_.erase(next.names_.begin() + i);
  next.weights_.erase(next.weights_.begin() + i);
  next.rebuild();
  *this = std::move(next);
}

void maglev_placement::set_weight(std::string_view name, double weight) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  detail::check_weight(kind, name, weight);
  maglev_placement next = *this;
  next.weights_[i] = weight;
  next.rebuild();
  *this = std::move(next);
}

std::size_t maglev_placement::memory_bytes() const noexcept {
  return table_.capacity() * sizeof(std::uint32_t);
}

unsigned maglev_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any,
                             placement_change::reweight);
}

std::unique_ptr<placement> maglev_placement::clone() const {
  return std::make_unique<maglev_placement>(*this);
}

// Exact: the hashes that reach each table slot, summed per node.
std::optional<placement_ownership> maglev_placement::ownership() const {
  return placement_ownership{ownership_basis::hash_space,
                             detail::fast_range_table_shares(table_, names_.size())};
}

}  // namespace ringbloom
