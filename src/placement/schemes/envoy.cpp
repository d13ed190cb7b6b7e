// Envoy's RING_HASH and MAGLEV (see envoy.hpp for the rules and source).
#include "ringbloom/placement/schemes/envoy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

// ThreadAwareLoadBalancerBase's normalization: weight / sum, with the
// smallest and largest normalized weight.
struct normalized {
  std::vector<double> weights;
  double min = 1.0;
  double max = 0.0;
};

normalized normalize(const std::vector<envoy_host>& hosts) {
  normalized n;
  std::uint64_t sum = 0;
  for (const envoy_host& h : hosts) sum += h.weight;
  for (const envoy_host& h : hosts) {
    const double w = static_cast<double>(h.weight) * 1.0 / static_cast<double>(sum);
    n.weights.push_back(w);
    n.min = std::min(n.min, w);
    n.max = std::max(n.max, w);
  }
  return n;
}

void check_hosts(std::string_view kind, const std::vector<envoy_host>& hosts) {
  std::unordered_set<std::string_view> seen;
  std::uint64_t sum = 0;
  for (const envoy_host& h : hosts) {
    if (h.name.empty())
      throw std::invalid_argument(fmt::format("{}: a host is empty; give its address", kind));
    if (!seen.insert(h.name).second) detail::throw_duplicate_node(kind, h.name);
    detail::integer_weight(kind, h.name, h.weight, 1, envoy_max_weight);
    sum += h.weight;
  }
  if (sum > envoy_max_weight) {
    throw std::invalid_argument(
        fmt::format("{}: the weights sum to {}, above Envoy's limit of {}; lower them", kind, sum,
                    envoy_max_weight));
  }
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::size_t index_of(std::string_view kind, const std::vector<envoy_host>& hosts,
                     std::string_view name) {
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i].name == name) return i;
  }
  detail::throw_unknown_node(kind, name);
}

}  // namespace

std::uint64_t envoy_xxhash64(std::string_view data, std::uint64_t seed) noexcept {
  return XXH64(data.data(), data.size(), seed);
}

// ------------------------------------------------------------- ring hash

envoy_ring_hash_placement::envoy_ring_hash_placement(std::vector<envoy_host> hosts,
                                                     std::uint64_t minimum_ring_size,
                                                     std::uint64_t maximum_ring_size)
    : min_ring_(minimum_ring_size), max_ring_(maximum_ring_size) {
  if (min_ring_ > max_ring_ || max_ring_ > detail::max_total_points) {
    throw std::invalid_argument(
        fmt::format("envoy-ring-hash: minimum_ring_size ({}) > maximum_ring_size ({}), or the "
                    "maximum is above 2^24",
                    min_ring_, max_ring_));
  }
  rebuild(std::move(hosts));
}

void envoy_ring_hash_placement::rebuild(std::vector<envoy_host> hosts) {
  check_hosts(kind_name(), hosts);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ring;
  if (!hosts.empty()) {
    const normalized n = normalize(hosts);
    const double scale = std::min(std::ceil(n.min * static_cast<double>(min_ring_)) / n.min,
                                  static_cast<double>(max_ring_));
    ring.reserve(static_cast<std::size_t>(std::ceil(scale)));
    double current = 0.0;
    double target = 0.0;
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      target += scale * n.weights[h];
      for (std::uint64_t i = 0; current < target; ++i, current += 1.0) {
        ring.emplace_back(envoy_xxhash64(fmt::format("{}_{}", hosts[h].name, i)),
                          static_cast<std::uint32_t>(h));
      }
    }
    // std::sort by position; equal 64-bit positions (never seen) would be
    // in an unspecified order in Envoy: ordered by host here.
    std::sort(ring.begin(), ring.end());
  }
  hosts_ = std::move(hosts);
  positions_.clear();
  owners_.clear();
  for (const auto& [pos, owner] : ring) {
    positions_.push_back(pos);
    owners_.push_back(owner);
  }
  index_ = detail::index64(positions_);
}

std::uint32_t envoy_ring_hash_placement::node_index_for_hash(std::uint64_t h) const {
  if (positions_.empty()) detail::throw_empty(kind_name());
  // chooseHost's ketama search: the first point >= h, wrapping to point 0.
  const std::size_t i = index_.first_at_or_after(positions_, h);
  return owners_[i == positions_.size() ? 0 : i];
}

void envoy_ring_hash_placement::add_node(const placement_node& node) {
  std::vector<envoy_host> hosts = hosts_;
  hosts.push_back({node.name, detail::integer_weight(kind_name(), node.name, node.weight, 1,
                                                     envoy_max_weight)});
  rebuild(std::move(hosts));
}

void envoy_ring_hash_placement::remove_node(std::string_view name) {
  std::vector<envoy_host> hosts = hosts_;
  hosts.erase(hosts.begin() + static_cast<std::ptrdiff_t>(index_of(kind_name(), hosts, name)));
  rebuild(std::move(hosts));
}

void envoy_ring_hash_placement::set_weight(std::string_view name, double weight) {
  std::vector<envoy_host> hosts = hosts_;
  hosts[index_of(kind_name(), hosts, name)].weight =
      detail::integer_weight(kind_name(), name, weight, 1, envoy_max_weight);
  rebuild(std::move(hosts));
}

unsigned envoy_ring_hash_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any | placement_change::reweight;
}

std::size_t envoy_ring_hash_placement::memory_bytes() const noexcept {
  return positions_.capacity() * sizeof(std::uint64_t) +
         owners_.capacity() * sizeof(std::uint32_t) + index_.memory_bytes();
}

std::unique_ptr<placement> envoy_ring_hash_placement::clone() const {
  return std::make_unique<envoy_ring_hash_placement>(*this);
}

// ---------------------------------------------------------------- maglev

envoy_maglev_placement::envoy_maglev_placement(std::vector<envoy_host> hosts,
                                               std::uint64_t table_size)
    : table_size_(table_size) {
  if (table_size_ > max_table_size || !is_prime(table_size_)) {
    throw std::invalid_argument(
        fmt::format("envoy-maglev: the table size {} is not a prime number up to {}; Envoy "
                    "requires a prime (default 65537)",
                    table_size_, max_table_size));
  }
  rebuild(std::move(hosts));
}

void envoy_maglev_placement::rebuild(std::vector<envoy_host> hosts) {
  check_hosts(kind_name(), hosts);
  std::vector<std::uint32_t> table;
  if (!hosts.empty()) {
    const normalized n = normalize(hosts);
    struct entry {
      std::uint32_t host;
      std::uint64_t offset;
      std::uint64_t skip;
      double weight;
      double target = 0.0;
      std::uint64_t next = 0;
    };
    std::vector<entry> entries;
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      entries.push_back({static_cast<std::uint32_t>(h), envoy_xxhash64(hosts[h].name) % table_size_,
                         envoy_xxhash64(hosts[h].name, 1) % (table_size_ - 1) + 1, n.weights[h]});
    }
    // Envoy fills in the order of the hosts' hash strings.
    std::sort(entries.begin(), entries.end(), [&](const entry& a, const entry& b) {
      return hosts[a.host].name < hosts[b.host].name;
    });
    constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();
    table.assign(table_size_, empty);
    std::uint64_t filled = 0;
    for (std::uint64_t round = 1; filled < table_size_; ++round) {
      for (std::size_t i = 0; i < entries.size() && filled < table_size_; ++i) {
        entry& e = entries[i];
        if (static_cast<double>(round) * e.weight < e.target) continue;
        e.target += n.max;
        std::uint64_t c = (e.offset + e.skip * e.next) % table_size_;
        while (table[c] != empty) {
          ++e.next;
          c = (e.offset + e.skip * e.next) % table_size_;
        }
        table[c] = e.host;
        ++e.next;
        ++filled;
      }
    }
  }
  hosts_ = std::move(hosts);
  table_ = std::move(table);
}

std::uint32_t envoy_maglev_placement::node_index_for_hash(std::uint64_t h) const {
  if (table_.empty()) detail::throw_empty(kind_name());
  return table_[h % table_size_];
}

void envoy_maglev_placement::add_node(const placement_node& node) {
  std::vector<envoy_host> hosts = hosts_;
  hosts.push_back({node.name, detail::integer_weight(kind_name(), node.name, node.weight, 1,
                                                     envoy_max_weight)});
  rebuild(std::move(hosts));
}

void envoy_maglev_placement::remove_node(std::string_view name) {
  std::vector<envoy_host> hosts = hosts_;
  hosts.erase(hosts.begin() + static_cast<std::ptrdiff_t>(index_of(kind_name(), hosts, name)));
  rebuild(std::move(hosts));
}

void envoy_maglev_placement::set_weight(std::string_view name, double weight) {
  std::vector<envoy_host> hosts = hosts_;
  hosts[index_of(kind_name(), hosts, name)].weight =
      detail::integer_weight(kind_name(), name, weight, 1, envoy_max_weight);
  rebuild(std::move(hosts));
}

unsigned envoy_maglev_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any | placement_change::reweight;
}

std::unique_ptr<placement> envoy_maglev_placement::clone() const {
  return std::make_unique<envoy_maglev_placement>(*this);
}

}  // namespace ringbloom::schemes
