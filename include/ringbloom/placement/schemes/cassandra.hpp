// ringbloom/placement/schemes/cassandra.hpp: tokens, owners and replica
// lists exactly as Cassandra's Murmur3Partitioner and the DataStax Python
// driver compute them.
//
// What it reproduces. The token of a key: Cassandra 4's
// Murmur3Partitioner.getToken (MurmurHash.hash3_x64_128, h1), which the
// DataStax Python driver 3.25 (Debian 12's python3-cassandra, cmurmur3.c and
// metadata.py) mirrors; the owner: TokenMap.get_replicas' search of the
// sorted ring; the replicas: the driver's SimpleStrategy and
// NetworkTopologyStrategy make_token_replica_map. Checked key for key (token,
// owner and both replica lists) against the driver in
// tests/placement/scheme_peers_test.cpp. The rules:
//   - token = h1 of MurmurHash3 x64 128 (seed 0) *with Cassandra's signed
//     tail*: a byte >= 0x80 among the last len % 16 bytes is sign-extended
//     (cassandra_murmur3_h1 in system_hashes.hpp), so such keys get another
//     token than the reference MurmurHash3 gives; a token of -2^63 becomes
//     2^63 - 1 (the driver's hash_fn; Cassandra reserves the minimum);
//   - each node owns the range (previous token, its token]: a key belongs to
//     the node of the first token >= its token, wrapping to the smallest;
//   - SimpleStrategy RF: the owner, then the next distinct nodes clockwise;
//   - NetworkTopologyStrategy {dc: RF}: per data centre (in the order the
//     data centres first appear on the ring), walking that DC's tokens from
//     the owner's position, one node per rack until every rack has one, the
//     skipped nodes then filling the remaining replicas -- the driver's code,
//     quirks included (a DC whose nodes have no rack gets no replica).
// key_hash returns the signed token with its sign bit flipped (so that
// unsigned order is token order); token_of gives the signed token.
//
// Example:
//
//   #include <ringbloom/placement/schemes/cassandra.hpp>
//   using namespace ringbloom::schemes;
//   cassandra_placement ring({{"10.0.0.1", "dc1", "r1", {-3074457345618258603}},
//                             {"10.0.0.2", "dc1", "r2", {3074457345618258602}}},
//                            cassandra_replication::simple(2));
//   std::vector<std::string> replicas = ring.nodes_for("user:42", 2);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/point_table.hpp"

namespace ringbloom::schemes {

/// A node of `nodetool ring`: address, data centre, rack, tokens.
struct cassandra_node {
  std::string address;
  std::string datacenter;
  std::string rack;
  std::vector<std::int64_t> tokens;
  friend bool operator==(const cassandra_node&, const cassandra_node&) = default;
};

/// A keyspace's replication: SimpleStrategy (factor) or
/// NetworkTopologyStrategy (a factor per data centre).
struct cassandra_replication {
  bool network_topology = false;
  std::uint32_t factor = 1;
  std::map<std::string, std::uint32_t> per_datacenter;

  [[nodiscard]] static cassandra_replication simple(std::uint32_t rf) { return {false, rf, {}}; }
  [[nodiscard]] static cassandra_replication network(std::map<std::string, std::uint32_t> rf) {
    return {true, 0, std::move(rf)};
  }
  friend bool operator==(const cassandra_replication&, const cassandra_replication&) = default;
};

/// The token Murmur3Partitioner gives `key` (see the header).
[[nodiscard]] std::int64_t cassandra_token(std::string_view key) noexcept;

class cassandra_placement final : public placement {
 public:
  cassandra_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate address, a node
  /// without tokens, or a token held by two nodes.
  cassandra_placement(std::vector<cassandra_node> nodes, cassandra_replication replication);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "cassandra"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  /// The replica list of the keyspace's strategy, cut to `n` (n = 0: all).
  [[nodiscard]] std::vector<std::uint32_t> node_indexes_for_hash(std::uint64_t h,
                                                                 std::size_t n) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return nodes_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override {
    return nodes_.at(index).address;
  }
  [[nodiscard]] unsigned supports() const noexcept override { return placement_change::replicas; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] const std::vector<cassandra_node>& nodes() const noexcept { return nodes_; }
  [[nodiscard]] const cassandra_replication& replication() const noexcept { return replication_; }
  /// The full replica list (names) of `key` under the keyspace's strategy.
  [[nodiscard]] std::vector<std::string> replicas_for(std::string_view key) const;

 private:
  [[nodiscard]] std::size_t ring_index(std::uint64_t h) const;
  void build_simple();
  void build_network_topology();

  std::vector<cassandra_node> nodes_;
  cassandra_replication replication_;
  std::vector<std::uint64_t> ring_;                   // tokens, sign bit flipped, ascending
  std::vector<std::uint32_t> owners_;                 // node index per ring token
  std::vector<std::vector<std::uint32_t>> replicas_;  // per ring token
  detail::index64 index_;
};

}  // namespace ringbloom::schemes
