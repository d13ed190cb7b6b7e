// placement::ownership() of the system schemes (include/ringbloom/placement/
// schemes/): each scheme's lookup structures read as shares of its own
// key-hash space. Kept apart from the schemes' sources so that the lookups
// and their ownership can change independently; tests/placement/
// ownership_test.cpp checks every one against sampled hashes.
#include <cstdint>
#include <optional>

#include "ringbloom/placement/detail/ownership.hpp"
#include "ringbloom/placement/schemes/cassandra.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/guava.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace ringbloom::schemes {

namespace {

// A 32-bit continuum searched for the first point at or after the hash
// (nginx, twemproxy, groupcache).
placement_ownership successor_32(const detail::point_table& t, std::size_t nodes) {
  return {ownership_basis::hash_space,
          ringbloom::detail::successor_arc_shares(
              t.size(), nodes, 32, [&](std::size_t i) { return std::uint64_t{t.position(i)}; },
              [&](std::size_t i) { return t.owner(i); })};
}

// 64-bit positions with a parallel owner list (Envoy's ring hash, Cassandra).
placement_ownership successor_64(const std::vector<std::uint64_t>& positions,
                                 const std::vector<std::uint32_t>& owners, std::size_t nodes) {
  return {ownership_basis::hash_space,
          ringbloom::detail::successor_arc_shares(
              positions.size(), nodes, 64, [&](std::size_t i) { return positions[i]; },
              [&](std::size_t i) { return owners[i]; })};
}

}  // namespace

std::optional<placement_ownership> nginx_placement::ownership() const {
  return successor_32(table_, servers_.size());
}

std::optional<placement_ownership> twemproxy_placement::ownership() const {
  return successor_32(table_, servers_.size());
}

std::optional<placement_ownership> groupcache_placement::ownership() const {
  return successor_32(table_, peers_.size());
}

// HAProxy sends a hash to the nearer of the points around it (owner_of).
std::optional<placement_ownership> haproxy_placement::ownership() const {
  return placement_ownership{
      ownership_basis::hash_space,
      ringbloom::detail::nearest_point_shares_32(
          table_.size(), servers_.size(), [&](std::size_t i) { return table_.position(i); },
          [&](std::size_t i) { return table_.owner(i); })};
}

std::optional<placement_ownership> envoy_ring_hash_placement::ownership() const {
  return successor_64(positions_, owners_, hosts_.size());
}

// Cassandra: the primary owner of each token range (the first replica).
std::optional<placement_ownership> cassandra_placement::ownership() const {
  return successor_64(ring_, owners_, nodes_.size());
}

std::optional<placement_ownership> envoy_maglev_placement::ownership() const {
  return placement_ownership{ownership_basis::hash_space,
                             ringbloom::detail::modulo_table_shares(table_, hosts_.size())};
}

// Hash slots: the key hash is the slot (CRC16 mod 16384); a slot with no
// master counts for nobody, so the shares then sum to less than 1.
std::optional<placement_ownership> redis_cluster_placement::ownership() const {
  placement_ownership out{ownership_basis::hash_space, std::vector<double>(masters_.size(), 0.0)};
  for (const std::uint32_t owner : slot_owner_) {
    if (owner != no_owner) out.shares[owner] += 1.0 / redis_slot_count;
  }
  return out;
}

// Guava's consistentHash is a jump hash driven by a linear congruential
// generator: each bucket is equally likely.
std::optional<placement_ownership> guava_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation,
                             ringbloom::detail::equal_shares(names_.size())};
}

}  // namespace ringbloom::schemes
