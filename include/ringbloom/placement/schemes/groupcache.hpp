// ringbloom/placement/schemes/groupcache.hpp: keys placed exactly as
// groupcache's consistenthash.Map (and so its HTTPPool) places them.
//
// What it reproduces. github.com/golang/groupcache consistenthash/
// consistenthash.go (Debian 12's golang-github-golang-groupcache-dev,
// git 2020-01-21), with its default hash crc32.ChecksumIEEE. The rules,
// checked key for key against the Go package in
// tests/placement/scheme_peers_test.cpp:
//   - peer p gets `replicas` points (HTTPPool's default: 50); point i is
//     CRC-32 of the decimal i followed by p, with no separator ("0p", "1p",
//     ..., "49p");
//   - so points of different peers can coincide exactly: peer "0x" point 1
//     hashes "10x", as does peer "x" point 10. Then the peer added *last*
//     owns the point (Map.Add overwrites hashMap[hash]); add order matters;
//   - a key's hash is CRC-32 of the key; its owner is the peer of the first
//     point >= hash, wrapping to the first point.
// Peers are reported as given (HTTPPool uses base URLs like
// "http://10.0.0.1:8080").
//
// Changes: add (as Map.Add: the new peer wins collisions). groupcache's Map
// has no removal: a new Map is built from the remaining peers in order,
// which is what remove_node does here (so a removal can hand a collided
// point back to an earlier peer).
//
// Example:
//
//   #include <ringbloom/placement/schemes/groupcache.hpp>
//   ringbloom::schemes::groupcache_placement peers(50, {"http://a:8080", "http://b:8080"});
//   const std::string& owner = peers.node_for("user:42");
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

class groupcache_placement final : public placement {
 public:
  static constexpr std::uint32_t default_replicas = 50;  // http.go defaultReplicas
  static constexpr std::uint32_t max_replicas = 1u << 20;

  groupcache_placement() = default;
  /// Throws std::invalid_argument for replicas outside [1, 2^20], or an
  /// empty or duplicate peer.
  groupcache_placement(std::uint32_t replicas, std::vector<std::string> peers);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "groupcache"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return peers_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override {
    return peers_.at(index);
  }
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override { return table_.memory_bytes(); }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  [[nodiscard]] std::uint32_t replicas() const noexcept { return replicas_; }
  [[nodiscard]] const std::vector<std::string>& peers() const noexcept { return peers_; }
  [[nodiscard]] const detail::point_table& points() const noexcept { return table_; }

  [[nodiscard]] std::uint32_t owner_of(std::uint32_t h) const noexcept {
    std::size_t i = table_.first_at_or_after(h);
    if (i == table_.size()) i = 0;
    return table_.owner(i);
  }

 private:
  void rebuild(std::vector<std::string> peers);

  std::uint32_t replicas_ = default_replicas;
  std::vector<std::string> peers_;
  detail::point_table table_;
};

}  // namespace ringbloom::schemes
