// ringbloom/placement/schemes/nginx.hpp: keys placed exactly as nginx's
// `upstream { hash KEY consistent; }` places them.
//
// What it reproduces. nginx 1.22 (Debian 12's nginx-light 1.22.1),
// src/http/modules/ngx_http_upstream_hash_module.c, functions
// ngx_http_upstream_init_chash, ngx_http_upstream_find_chash_point and
// ngx_http_upstream_init_chash_peer. The rules, each checked key for key
// against a running nginx in tests/placement/scheme_peers_test.cpp:
//   - a server is the address text as written in its `server` directive
//     ("10.0.0.1:8080", "backend.local", "unix:/run/app.sock"); it is split
//     into host and port: "unix:PATH" gives host PATH and no port; otherwise
//     the digits after the last ':' are the port when only digits follow it;
//     otherwise the whole text is the host;
//   - base = the CRC-32 register after host, one NUL byte, port (no final
//     XOR); the server gets weight x 160 points; point j is the CRC-32 of
//     base continued with the 4 little-endian bytes of point j-1 (0 for the
//     first point) -- so points are chained, and two servers whose base
//     registers agree get identical points;
//   - points are sorted (glibc's qsort, a stable merge sort) and of equal
//     positions only the first is kept: a collision goes to the server
//     listed first, and a server whose points all collide gets no key;
//   - a key's hash is CRC-32 of the key's bytes (the evaluated `hash`
//     expression); its owner is the server of the first point >= hash,
//     wrapping past the last point to the first;
//   - an empty key has no owner: nginx balances such a request round robin
//     (its test suite's upstream_hash.t checks it), so key_hash("") throws
//     std::invalid_argument.
// Not modelled (they do not change where a key *belongs*, only retries):
// `down` servers and failed peers, which nginx skips by walking to the next
// point; a host name that resolves to several addresses (each address adds
// the same points again, so placement is the same). `ring import nginx`
// reports `down` and `backup` rather than ignoring them.
//
// Changes: add, remove and reweight any server; a change moves only the keys
// of the points added or removed (points depend on the server alone).
//
// Example:
//
//   #include <ringbloom/placement/schemes/nginx.hpp>
//   ringbloom::schemes::nginx_placement up({{"10.0.0.1:8080", 1}, {"10.0.0.2:8080", 2}});
//   const std::string& server = up.node_for("/users/42");   // "10.0.0.2:8080", say
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

/// One `server` directive of the upstream: its address text and weight
/// (nginx accepts weight >= 1; ringbloom limits it to 100,000, 16 M points).
struct nginx_server {
  std::string server;
  std::uint32_t weight = 1;
  friend bool operator==(const nginx_server&, const nginx_server&) = default;
};

/// The host and port texts nginx hashes for a server (see the header).
struct nginx_host_port {
  std::string_view host;
  std::string_view port;
};
[[nodiscard]] nginx_host_port nginx_split_server(std::string_view server) noexcept;

class nginx_placement final : public placement {
 public:
  static constexpr std::uint32_t points_per_weight = 160;
  static constexpr std::uint32_t max_weight = 100000;

  nginx_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate server text or
  /// a weight outside [1, max_weight].
  explicit nginx_placement(std::vector<nginx_server> servers);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "nginx"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return servers_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override;
  void add_node(const placement_node& node) override;
  void remove_node(std::string_view name) override;
  void set_weight(std::string_view name, double weight) override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override { return table_.memory_bytes(); }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

  /// The servers in configuration order.
  [[nodiscard]] const std::vector<nginx_server>& servers() const noexcept { return servers_; }
  /// The points after sorting and de-duplication (position, server index).
  [[nodiscard]] const detail::point_table& points() const noexcept { return table_; }

  /// The non-virtual lookup for a hash value (the ring must not be empty).
  [[nodiscard]] std::uint32_t owner_of(std::uint32_t h) const noexcept {
    std::size_t i = table_.first_at_or_after(h);
    if (i == table_.size()) i = 0;
    return table_.owner(i);
  }

 private:
  void rebuild(std::vector<nginx_server> servers);
  [[nodiscard]] std::size_t index_of(std::string_view name) const;

  std::vector<nginx_server> servers_;
  detail::point_table table_;
};

}  // namespace ringbloom::schemes
