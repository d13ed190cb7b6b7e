// ringbloom/placement/schemes/redis_cluster.hpp: keys placed exactly as a
// Redis Cluster places them.
//
// What it reproduces. Redis 7.0 (Debian 12's redis-server 7.0.15):
// src/cluster.c keyHashSlot and src/crc16.c for the slot of a key, the slot
// ranges of CLUSTER NODES for the owner of a slot, and, for a cluster made
// from a bare list of masters, the even split of src/redis-cli.c
// (clusterManagerCommandCreate). The rules, checked key for key against a
// three-master cluster made by `redis-cli --cluster create` in
// tests/placement/scheme_peers_test.cpp:
//   - slot = CRC16/XMODEM(k) mod 16384, where k is the key, or the text
//     between the first '{' and the first '}' after it when that text is not
//     empty (a hash tag: "{user42}.cart" and "{user42}.wish" share a slot;
//     "{}x" and "x{" hash whole);
//   - the owner of a key is the master serving its slot, reported as
//     "ip:port" (the address of CLUSTER NODES without the "@cport" part);
//   - redis-cli's split of 16384 slots over n masters: master i gets
//     [first, lround(cursor + 16384/n - 1)] in 32-bit float, cursor += 16384/n,
//     the last master up to 16383 (3 masters: 0-5460, 5461-10922,
//     10923-16383).
// A slot that no master serves has no owner: a lookup of it throws
// ringbloom::data_error (Redis answers CLUSTERDOWN). Slots move only by
// resharding, never by membership alone, so this placement supports no
// change; compare two topologies (before and after a reshard) with `ring diff`.
//
// Example:
//
//   #include <ringbloom/placement/schemes/redis_cluster.hpp>
//   using namespace ringbloom::schemes;
//   redis_cluster_placement c(redis_even_split({"10.0.0.1:6379", "10.0.0.2:6379",
//   "10.0.0.3:6379"})); const std::string& master = c.node_for("{user42}.cart");
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom::schemes {

inline constexpr std::uint32_t redis_slot_count = 16384;

/// Slots [first, last], both inclusive, first <= last < 16384.
struct redis_slot_range {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  friend bool operator==(const redis_slot_range&, const redis_slot_range&) = default;
};

/// A master: its "ip:port" and the slots it serves.
struct redis_master {
  std::string address;
  std::vector<redis_slot_range> slots;
  friend bool operator==(const redis_master&, const redis_master&) = default;
};

/// The masters `addresses` with redis-cli --cluster create's even split.
/// Throws std::invalid_argument if there are none or more than 16384.
[[nodiscard]] std::vector<redis_master> redis_even_split(const std::vector<std::string>& addresses);

class redis_cluster_placement final : public placement {
 public:
  static constexpr std::uint32_t no_owner = 0xFFFFFFFFu;

  redis_cluster_placement() { slot_owner_.fill(no_owner); }
  /// Throws std::invalid_argument for an empty or duplicate address, a slot
  /// above 16383, a range with first > last, or a slot given to two masters.
  explicit redis_cluster_placement(std::vector<redis_master> masters);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "redis-cluster"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return masters_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  [[nodiscard]] unsigned supports() const noexcept override { return 0; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept override { return sizeof(slot_owner_); }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] const std::vector<redis_master>& masters() const noexcept { return masters_; }
  /// The index of the master serving `slot`, or no_owner.
  [[nodiscard]] std::uint32_t slot_owner(std::uint32_t slot) const noexcept {
    return slot_owner_[slot & (redis_slot_count - 1)];
  }

 private:
  std::vector<redis_master> masters_;
  std::array<std::uint32_t, redis_slot_count> slot_owner_{};
};

}  // namespace ringbloom::schemes
