// Redis Cluster slots (see redis_cluster.hpp for the rules and source).
#include "ringbloom/placement/schemes/redis_cluster.hpp"

#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {
constexpr std::string_view kind = "redis-cluster";
}

std::vector<redis_master> redis_even_split(const std::vector<std::string>& addresses) {
  if (addresses.empty() || addresses.size() > redis_slot_count) {
    throw std::invalid_argument(
        "redis-cluster: a cluster needs between 1 and 16384 masters; give at least one master "
        "address");
  }
  // redis-cli.c: float slots_per_node = CLUSTER_MANAGER_SLOTS / (float) masters_count;
  // long last = lround(cursor + slots_per_node - 1); cursor += slots_per_node;
  const float per_node =
      static_cast<float>(redis_slot_count) / static_cast<float>(addresses.size());
  float cursor = 0.0f;
  long first = 0;
  std::vector<redis_master> masters;
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    long last = std::lround(cursor + per_node - 1);
    if (last > static_cast<long>(redis_slot_count) || i == addresses.size() - 1)
      last = redis_slot_count - 1;
    if (last < first) last = first;
    masters.push_back(
        {addresses[i], {{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last)}}});
    first = last + 1;
    cursor += per_node;
  }
  return masters;
}

redis_cluster_placement::redis_cluster_placement(std::vector<redis_master> masters) {
  slot_owner_.fill(no_owner);
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < masters.size(); ++i) {
    const redis_master& m = masters[i];
    if (m.address.empty()) {
      throw std::invalid_argument(
          "redis-cluster: a master has an empty address; give each master its ip:port");
    }
    if (!seen.insert(m.address).second) detail::throw_duplicate_node(kind, m.address);
    for (const redis_slot_range& r : m.slots) {
      if (r.first > r.last || r.last >= redis_slot_count) {
        throw std::invalid_argument(
            fmt::format("redis-cluster: master '{}' has the slot range {}-{}; slots are 0..16383 "
                        "and a range runs low to high",
                        m.address, r.first, r.last));
      }
      for (std::uint32_t s = r.first; s <= r.last; ++s) {
        if (slot_owner_[s] != no_owner) {
          throw std::invalid_argument(fmt::format(
              "redis-cluster: slot {} is given to both '{}' and '{}'; a slot has one master", s,
              masters[slot_owner_[s]].address, m.address));
        }
        slot_owner_[s] = static_cast<std::uint32_t>(i);
      }
    }
  }
  masters_ = std::move(masters);
}

std::uint64_t redis_cluster_placement::key_hash(std::string_view key) const {
  return redis_key_slot(key);
}

std::uint32_t redis_cluster_placement::node_index_for_hash(std::uint64_t h) const {
  if (masters_.empty()) detail::throw_empty(kind);
  const std::uint32_t owner = slot_owner(static_cast<std::uint32_t>(h));
  if (owner == no_owner) {
    throw data_error(fmt::format(
        "redis-cluster: slot {} is served by no master (Redis answers CLUSTERDOWN); assign it with "
        "CLUSTER ADDSLOTS or a reshard, and import the topology again",
        h & (redis_slot_count - 1)));
  }
  return owner;
}

const std::string& redis_cluster_placement::node_name(std::uint32_t index) const {
  return masters_.at(index).address;
}

std::unique_ptr<placement> redis_cluster_placement::clone() const {
  return std::make_unique<redis_cluster_placement>(*this);
}

}  // namespace ringbloom::schemes
