// ringbloom/placement/schemes/envoy.hpp: hosts chosen exactly as Envoy's
// RING_HASH and MAGLEV load balancers choose them.
//
// What it reproduces. Envoy's source/extensions/load_balancing_policies/
// ring_hash/ring_hash_lb.cc (Ring::Ring, Ring::chooseHost) and maglev/
// maglev_lb.cc (MaglevTable::constructMaglevTableInternal,
// OriginalMaglevTable), with the host weights normalized as
// ThreadAwareLoadBalancerBase does (weight / sum of weights) for one
// priority and no locality weighting. Envoy is not packaged in Debian: the
// schemes are pinned with the expected values of Envoy's own unit tests
// (test/extensions/load_balancing_policies/ring_hash/ring_hash_lb_test.cc:
// Basic, BasicWithHostname; .../maglev/maglev_lb_test.cc: Basic,
// BasicWithHostName, Weighted) in tests/placement/envoy_scheme_test.cpp.
// The rules:
//   - a host is hashed by its address text ("127.0.0.1:90") or, with
//     use_hostname_for_hashing, its hostname -- the string given here;
//   - a key's hash is xxHash64 (XXH64, seed 0) of the key, as Envoy's header,
//     cookie and parameter hash policies compute it;
//   - RING_HASH: scale = min(ceil(min_w * minimum_ring_size) / min_w,
//     maximum_ring_size) for normalized weights w; walking the hosts in
//     order with running sums, host h adds points while current < target
//     (target += scale * w_h); point i of a host is XXH64("<host>_<i>"); a
//     key goes to the first point >= its hash, wrapping (the ketama search of
//     chooseHost). Defaults 1024 and 8,388,608;
//   - MAGLEV: hosts sorted by their hash string; offset = XXH64(host) % M,
//     skip = XXH64(host, seed 1) % (M - 1) + 1; rounds fill the table, a
//     host taking its next free permutation slot in round r when r * w >=
//     its running target (target += max w each time); a key goes to
//     table[hash % M]. M is prime, 65537 by default.
// Not modelled: locality weighting, priorities, hash_balance_factor (bounded
// loads; `ring import envoy` refuses it), MURMUR_HASH_2.
//
// Changes: add, remove and reweight any host (the ring or table is rebuilt,
// as Envoy rebuilds it).
//
// Example:
//
//   #include <ringbloom/placement/schemes/envoy.hpp>
//   using namespace ringbloom::schemes;
//   envoy_maglev_placement lb({{"10.0.0.1:80", 1}, {"10.0.0.2:80", 2}});
//   const std::string& host = lb.node_for("session-42");
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/point_table.hpp"

namespace ringbloom::schemes {

/// The largest load_balancing_weight, and the largest sum of them, Envoy
/// takes (its endpoint weights are uint32 with a sum below 2^32).
inline constexpr std::uint32_t envoy_max_weight = 0xFFFFFFFFu;

/// A host of the cluster: the string Envoy hashes (its envoy.lb hash_key
/// metadata, hostname or address) and its load_balancing_weight (>= 1, the
/// sum at most envoy_max_weight).
struct envoy_host {
  std::string name;
  std::uint32_t weight = 1;
  friend bool operator==(const envoy_host&, const envoy_host&) = default;
};

/// XXH64 of `data` with `seed`: Envoy's HashUtil::xxHash64.
[[nodiscard]] std::uint64_t envoy_xxhash64(std::string_view data, std::uint64_t seed = 0) noexcept;

class envoy_ring_hash_placement final : public placement {
 public:
  static constexpr std::uint64_t default_minimum_ring_size = 1024;
  static constexpr std::uint64_t default_maximum_ring_size = 8 * 1024 * 1024;

  envoy_ring_hash_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate host, weight 0,
  /// or minimum > maximum ring size (Envoy's own check).
  explicit envoy_ring_hash_placement(std::vector<envoy_host> hosts,
                                     std::uint64_t minimum_ring_size = default_minimum_ring_size,
                                     std::uint64_t maximum_ring_size = default_maximum_ring_size);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "envoy-ring-hash"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override {
    return envoy_xxhash64(key);
  }
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return hosts_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override {
    return hosts_.at(index).name;
  }
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override;
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] const std::vector<envoy_host>& hosts() const noexcept { return hosts_; }
  [[nodiscard]] std::uint64_t minimum_ring_size() const noexcept { return min_ring_; }
  [[nodiscard]] std::uint64_t maximum_ring_size() const noexcept { return max_ring_; }
  /// The ring: positions ascending, and the host index of each.
  [[nodiscard]] const std::vector<std::uint64_t>& positions() const noexcept { return positions_; }
  [[nodiscard]] const std::vector<std::uint32_t>& owners() const noexcept { return owners_; }

 private:
  void rebuild(std::vector<envoy_host> hosts);

  std::vector<envoy_host> hosts_;
  std::uint64_t min_ring_ = default_minimum_ring_size;
  std::uint64_t max_ring_ = default_maximum_ring_size;
  std::vector<std::uint64_t> positions_;
  std::vector<std::uint32_t> owners_;
  detail::index64 index_;
};

class envoy_maglev_placement final : public placement {
 public:
  static constexpr std::uint64_t default_table_size = 65537;
  static constexpr std::uint64_t max_table_size = 5000011;

  envoy_maglev_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate host, weight 0,
  /// or a table size that is not a prime <= max_table_size.
  explicit envoy_maglev_placement(std::vector<envoy_host> hosts,
                                  std::uint64_t table_size = default_table_size);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "envoy-maglev"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override {
    return envoy_xxhash64(key);
  }
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return hosts_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override {
    return hosts_.at(index).name;
  }
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override {
    return table_.capacity() * sizeof(std::uint32_t);
  }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] const std::vector<envoy_host>& hosts() const noexcept { return hosts_; }
  [[nodiscard]] std::uint64_t table_size() const noexcept { return table_size_; }
  /// The table: the host index of each of its table_size() entries.
  [[nodiscard]] const std::vector<std::uint32_t>& table() const noexcept { return table_; }

 private:
  void rebuild(std::vector<envoy_host> hosts);

  std::vector<envoy_host> hosts_;
  std::uint64_t table_size_ = default_table_size;
  std::vector<std::uint32_t> table_;
};

}  // namespace ringbloom::schemes
