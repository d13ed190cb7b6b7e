// Cassandra's Murmur3Partitioner and the DataStax driver's replica maps
// (see cassandra.hpp for the rules and source).
#include "ringbloom/placement/schemes/cassandra.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::string_view kind = "cassandra";
constexpr std::uint64_t sign_bit = std::uint64_t{1} << 63;

std::uint64_t ordered(std::int64_t token) noexcept {
  return static_cast<std::uint64_t>(token) ^ sign_bit;
}

}  // namespace

std::int64_t cassandra_token(std::string_view key) noexcept {
  const std::int64_t h = cassandra_murmur3_h1(key);
  return h == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max()
                                                       : h;
}

cassandra_placement::cassandra_placement(std::vector<cassandra_node> nodes,
                                         cassandra_replication replication)
    : nodes_(std::move(nodes)), replication_(std::move(replication)) {
  std::unordered_set<std::string_view> seen;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ring;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const cassandra_node& n = nodes_[i];
    if (n.address.empty()) throw std::invalid_argument("cassandra: a node has an empty address");
    if (!seen.insert(n.address).second) detail::throw_duplicate_node(kind, n.address);
    if (n.tokens.empty()) {
      throw std::invalid_argument(
          fmt::format("cassandra: node '{}' has no token; give its tokens", n.address));
    }
    for (std::int64_t t : n.tokens) ring.emplace_back(ordered(t), static_cast<std::uint32_t>(i));
  }
  std::sort(ring.begin(), ring.end());
  for (std::size_t i = 1; i < ring.size(); ++i) {
    if (ring[i].first == ring[i - 1].first) {
      throw std::invalid_argument(fmt::format(
          "cassandra: token {} is held by both '{}' and '{}'; Cassandra refuses a token twice",
          static_cast<std::int64_t>(ring[i].first ^ sign_bit), nodes_[ring[i - 1].second].address,
          nodes_[ring[i].second].address));
    }
  }
  for (const auto& [t, o] : ring) {
    ring_.push_back(t);
    owners_.push_back(o);
  }
  index_ = detail::index64(ring_);
  if (replication_.network_topology) {
    build_network_topology();
  } else {
    build_simple();
  }
}

void cassandra_placement::build_simple() {
  const std::size_t n = ring_.size();
  replicas_.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint32_t>& hosts = replicas_[i];
    for (std::size_t j = 0; hosts.size() < replication_.factor && j < n; ++j) {
      const std::uint32_t host = owners_[(i + j) % n];
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
    }
  }
}

// metadata.py NetworkTopologyStrategy.make_token_replica_map, step by step.
void cassandra_placement::build_network_topology() {
  const std::size_t n = ring_.size();
  std::vector<std::string> dc_order;  // data centres in order of first appearance
  std::unordered_map<std::string, std::vector<std::size_t>> dc_offsets;
  std::unordered_map<std::string, std::set<std::string>> dc_racks;
  std::unordered_map<std::string, std::set<std::uint32_t>> dc_hosts;
  for (std::size_t i = 0; i < n; ++i) {
    const cassandra_node& host = nodes_[owners_[i]];
    if (!dc_offsets.contains(host.datacenter)) dc_order.push_back(host.datacenter);
    dc_offsets[host.datacenter].push_back(i);
    if (!host.datacenter.empty() && !host.rack.empty()) {
      dc_racks[host.datacenter].insert(host.rack);
      dc_hosts[host.datacenter].insert(owners_[i]);
    }
  }
  std::unordered_map<std::string, std::size_t> current;
  replicas_.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint32_t>& replicas = replicas_[i];
    for (const std::string& dc : dc_order) {
      const auto rf = replication_.per_datacenter.find(dc);
      if (rf == replication_.per_datacenter.end() || rf->second == 0) continue;
      const std::vector<std::size_t>& offsets = dc_offsets[dc];
      std::size_t index = current[dc];
      while (index < offsets.size() && offsets[index] < i) ++index;
      current[dc] = index;
      std::uint32_t remaining = rf->second;
      std::size_t this_dc = 0;
      std::vector<std::uint32_t> skipped;
      std::set<std::string> racks_placed;
      const std::size_t racks_this_dc = dc_racks[dc].size();
      const std::size_t hosts_this_dc = dc_hosts[dc].size();
      for (std::size_t k = index; k < index + offsets.size(); ++k) {
        const std::size_t at = k >= offsets.size() ? k - offsets.size() : k;
        const std::uint32_t host = owners_[offsets[at]];
        if (remaining == 0 || this_dc == hosts_this_dc) break;
        if (std::find(replicas.begin(), replicas.end(), host) != replicas.end()) continue;
        const std::string& rack = nodes_[host].rack;
        if (racks_placed.contains(rack) && racks_placed.size() < racks_this_dc) {
          skipped.push_back(host);
          continue;
        }
        replicas.push_back(host);
        ++this_dc;
        --remaining;
        racks_placed.insert(rack);
        if (racks_placed.size() == racks_this_dc) {
          for (std::uint32_t s : skipped) {
            if (remaining == 0) break;
            replicas.push_back(s);  // the driver appends without re-checking
            --remaining;
          }
          skipped.clear();
        }
      }
    }
  }
}

std::uint64_t cassandra_placement::key_hash(std::string_view key) const {
  return ordered(cassandra_token(key));
}

std::size_t cassandra_placement::ring_index(std::uint64_t h) const {
  if (ring_.empty()) detail::throw_empty(kind);
  const std::size_t i = index_.first_at_or_after(ring_, h);  // bisect_left
  return i == ring_.size() ? 0 : i;
}

std::uint32_t cassandra_placement::node_index_for_hash(std::uint64_t h) const {
  return owners_[ring_index(h)];
}

std::vector<std::uint32_t> cassandra_placement::node_indexes_for_hash(std::uint64_t h,
                                                                      std::size_t n) const {
  std::vector<std::uint32_t> list = replicas_[ring_index(h)];
  if (n != 0 && list.size() > n) list.resize(n);
  return list;
}

std::vector<std::string> cassandra_placement::replicas_for(std::string_view key) const {
  std::vector<std::string> names;
  for (std::uint32_t i : node_indexes_for_hash(key_hash(key), 0))
    names.push_back(nodes_[i].address);
  return names;
}

std::size_t cassandra_placement::memory_bytes() const noexcept {
  std::size_t bytes =
      ring_.capacity() * sizeof(std::uint64_t) + owners_.capacity() * sizeof(std::uint32_t);
  for (const auto& r : replicas_) bytes += r.capacity() * sizeof(std::uint32_t) + sizeof(r);
  return bytes;
}

std::unique_ptr<placement> cassandra_placement::clone() const {
  return std::make_unique<cassandra_placement>(*this);
}

}  // namespace ringbloom::schemes
