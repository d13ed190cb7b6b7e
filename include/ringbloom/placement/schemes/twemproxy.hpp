// ringbloom/placement/schemes/twemproxy.hpp: keys placed exactly as
// twemproxy (nutcracker) places them with `distribution: ketama`.
//
// What it reproduces. twemproxy 0.5.0 (Debian 12's nutcracker 0.5.0):
// src/hashkit/nc_ketama.c (ketama_update, ketama_dispatch), src/hashkit/
// nc_fnv.c and nc_md5.c, and the server name rule of src/nc_conf.c. The
// rules, each checked key for key against a running nutcracker in
// tests/placement/scheme_peers_test.cpp:
//   - a server's *name* is hashed verbatim: the explicit name of
//     "host:port:weight name" as written (":11211" and any other text kept,
//     "shard:a" allowed); without a name, "host" when the port is 11211 and
//     "host:port" otherwise (libmemcached's rule);
//   - server s of weight w among n servers of total weight W gets
//     floorf((float)w / (float)W * 160 / 4 * (float)n + 1e-10) * 4 points
//     (32-bit float arithmetic: 156 instead of 160 for some n); its point
//     group k = 0, 1, ... is MD5("<name>-<k>") read as four little-endian
//     32-bit words (names longer than 260 bytes are cut as snprintf cuts them
//     at 273 bytes);
//   - the continuum is built server by server in *name* order (nutcracker
//     sorts the pool's servers by name, shorter names first, then byte
//     order, when it checks for duplicates) and sorted by glibc's qsort (a
//     stable merge sort), and a key goes to the first point >= its hash,
//     wrapping: so when points of several servers coincide, the server whose
//     name sorts first takes them, wherever it is listed (checked against
//     nutcracker with forced collisions);
//   - the key hash is the pool's `hash:` -- md5 (the first little-endian
//     word of MD5), fnv1a_64 (the default: *not* textbook FNV, see
//     system_hashes.hpp), fnv1_64, fnv1a_32 or fnv1_32.
// Since every server's point count depends on n and W, any change recomputes
// every server's points. Not modelled: `auto_eject_hosts` (ejected servers
// leave the continuum until they return), `hash_tag`, and the hashes
// one_at_a_time, hsieh, murmur, jenkins, crc16, crc32 and crc32a (refused).
//
// Changes: add (at the end of the server list), remove, reweight.
//
// Example:
//
//   #include <ringbloom/placement/schemes/twemproxy.hpp>
//   using namespace ringbloom::schemes;
//   twemproxy_placement pool(twemproxy_hash::fnv1a_64, {{"cache-1:11211", 1}, {"shard:a", 2}});
//   const std::string& server = pool.node_for("user:42");
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

/// The pool's key hash (`hash:`), the ones this scheme reproduces.
enum class twemproxy_hash : std::uint8_t { md5, fnv1a_64, fnv1_64, fnv1a_32, fnv1_32 };

[[nodiscard]] std::string_view twemproxy_hash_name(twemproxy_hash h) noexcept;

/// The points nc_ketama.c gives a server of `weight` among `servers` servers
/// of `total_weight`: floorf(weight / total x 160 / 4 x servers + 1e-10) x 4
/// in 32-bit float. Equal weights give 160, except at fleet sizes where the
/// float product falls just under 40 (25, 47, 50, 55, ... servers: 156).
[[nodiscard]] std::uint32_t twemproxy_points_per_server(std::uint32_t weight,
                                                        std::uint32_t total_weight,
                                                        std::size_t servers) noexcept;
[[nodiscard]] std::optional<twemproxy_hash> find_twemproxy_hash(std::string_view name) noexcept;

/// A server as ketama sees it: the name it hashes (and reports) and its
/// weight (>= 1).
struct twemproxy_server {
  std::string name;
  std::uint32_t weight = 1;
  friend bool operator==(const twemproxy_server&, const twemproxy_server&) = default;
};

/// The name twemproxy hashes for a server line without an explicit name.
[[nodiscard]] std::string twemproxy_default_name(std::string_view host, std::uint32_t port);

class twemproxy_placement final : public placement {
 public:
  static constexpr std::uint32_t max_weight = 100000;

  twemproxy_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate name or a weight
  /// outside [1, max_weight].
  twemproxy_placement(twemproxy_hash hash, std::vector<twemproxy_server> servers);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "twemproxy"; }
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override { return hash32(key); }
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

  [[nodiscard]] twemproxy_hash hash() const noexcept { return hash_; }
  [[nodiscard]] const std::vector<twemproxy_server>& servers() const noexcept { return servers_; }
  [[nodiscard]] const detail::point_table& points() const noexcept { return table_; }
  /// The number of points server `index` has (160 on average, 156 for some n).
  [[nodiscard]] std::uint32_t points_of(std::size_t index) const { return point_counts_.at(index); }

  [[nodiscard]] std::uint32_t hash32(std::string_view key) const noexcept;
  [[nodiscard]] std::uint32_t owner_of(std::uint32_t h) const noexcept {
    std::size_t i = table_.first_at_or_after(h);
    if (i == table_.size()) i = 0;
    return table_.owner(i);
  }

 private:
  void rebuild(std::vector<twemproxy_server> servers);
  [[nodiscard]] std::size_t index_of(std::string_view name) const;

  twemproxy_hash hash_ = twemproxy_hash::fnv1a_64;
  std::vector<twemproxy_server> servers_;
  std::vector<std::uint32_t> point_counts_;
  detail::point_table table_;
};

}  // namespace ringbloom::schemes
