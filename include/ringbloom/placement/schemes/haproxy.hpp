// ringbloom/placement/schemes/haproxy.hpp: keys placed exactly as HAProxy's
// `hash-type consistent` places them.
//
// What it reproduces. HAProxy 2.6 (Debian 12's haproxy 2.6.12): src/lb_chash.c
// (chash_init_server_tree, chash_get_server_hash), src/hash.c, full_hash in
// include/haproxy/intops.h, gen_hash in src/backend.c, and the automatic
// server ids of src/cfgparse.c. The rules, each checked key for key against a
// running haproxy in tests/placement/scheme_peers_test.cpp:
//   - points come from the server's numeric id (`id N`, or the automatic one)
//     and its weight only: names and addresses are never hashed. A server of
//     weight w (0..256) gets w x 16 points (BE_WEIGHT_SCALE); point j is at
//     full_hash(id x 4096 + j) (SRV_EWGHT_RANGE = 256 x 16);
//   - automatic ids: walking the servers in configuration order with a
//     counter starting at 1, a server without `id` takes the smallest id >=
//     the counter that no server uses, and the counter then moves one past
//     the *counter's* old value (+1 after every server). So removing a server
//     from the middle renumbers every later server without an explicit id,
//     and moves their keys too (docs/placement.md measures it);
//   - a key's hash: sdbm, djb2, wt6 or crc32 of its bytes, then full_hash
//     when `avalanche` is on; `hash-type consistent` alone means sdbm with
//     avalanche, `hash-type consistent sdbm` means sdbm without;
//   - what a key is follows the backend's `balance` (haproxy_key): the bytes
//     HAProxy hashes (a header's value for `hdr(NAME)`, a parameter's value
//     for `url_param`, a cookie's for `rdp-cookie`, the sample's bytes for
//     `hash EXPR`); for `balance uri` the request URI, cut as get_server_uh
//     in src/backend.c cuts it (at the first '?' unless `whole`, after `len`
//     bytes, before the slash that ends `depth` levels); for `balance source`
//     a client address (IPv4 or IPv6 text), whose bytes are XOR-folded into
//     one 32-bit big-endian word as get_server_sh does -- the hash function
//     is not used, only full_hash when `avalanche` is on;
//   - the lookup takes the *closest* point, not the next one: with `next` the
//     first point >= hash (wrapping to the first) and `prev` the point before
//     it (wrapping to the last), it picks prev when hash - prev <= next - hash
//     (32-bit wrapping differences), else next.
// Collisions cannot happen: full_hash is a bijection and id x 4096 + j is
// distinct for ids below 2^20, the largest id this scheme accepts.
// Not modelled: `hash-balance-factor` (bounded loads; `ring import haproxy`
// refuses it), backup servers, servers marked down.
//
// Changes: add (at the end of the list), remove, reweight (0..256).
//
// Example:
//
//   #include <ringbloom/placement/schemes/haproxy.hpp>
//   using namespace ringbloom::schemes;
//   haproxy_placement be({haproxy_hash::sdbm, true}, {{"s1", 1}, {"s2", 2}});
//   const std::string& server = be.node_for("session-42");
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

/// HAProxy's key hash functions (`hash-type consistent <function>`).
enum class haproxy_hash : std::uint8_t { sdbm, djb2, wt6, crc32 };

/// The function's name as HAProxy spells it, and back (nothing if unknown).
[[nodiscard]] std::string_view haproxy_hash_name(haproxy_hash h) noexcept;
[[nodiscard]] std::optional<haproxy_hash> find_haproxy_hash(std::string_view name) noexcept;

/// What a key is, from the backend's `balance` line: the bytes HAProxy hashes
/// (`url_param`, `hash EXPR`), a request URI (`balance uri`), a client
/// address (`balance source`), or a header's or RDP cookie's value
/// (`hdr(NAME)`, `rdp-cookie`: bytes, but an empty one has no server, as
/// HAProxy balances it round robin).
enum class haproxy_key : std::uint8_t { bytes, uri, source_address, header };

/// The name of a haproxy_key as topology files spell it ("bytes", "uri",
/// "source", "header"), and back (nothing if unknown).
[[nodiscard]] std::string_view haproxy_key_name(haproxy_key k) noexcept;
[[nodiscard]] std::optional<haproxy_key> find_haproxy_key(std::string_view name) noexcept;

/// The `hash-type consistent [function [avalanche]]` of a backend and what
/// its `balance` hashes. The default is HAProxy's default for `hash-type
/// consistent`: sdbm, avalanche, the key's bytes.
struct haproxy_options {
  haproxy_hash function = haproxy_hash::sdbm;
  bool avalanche = true;
  haproxy_key key = haproxy_key::bytes;
  /// `balance uri` only: `whole` (keep the query string), `len N` (hash at
  /// most N bytes; 0: no limit) and `depth N` (at most N directory levels;
  /// 0: no limit).
  bool uri_whole = false;
  std::uint32_t uri_len = 0;
  std::uint32_t uri_depth = 0;
  friend bool operator==(const haproxy_options&, const haproxy_options&) = default;
};

/// The part of a request URI that `balance uri` hashes under `options`.
[[nodiscard]] std::string_view haproxy_uri_part(std::string_view uri,
                                                const haproxy_options& options) noexcept;

/// The 32-bit word `balance source` hashes for a client address: its bytes
/// in network order XOR-folded 4 at a time (IPv4: the address itself).
/// Throws std::invalid_argument when `address` is not IPv4 or IPv6 text.
[[nodiscard]] std::uint32_t haproxy_source_word(std::string_view address);

/// One `server` line: its name (what HAProxy reports), weight 0..256 and
/// explicit `id` (0: automatic).
struct haproxy_server {
  std::string name;
  std::uint32_t weight = 1;
  std::uint32_t id = 0;
  friend bool operator==(const haproxy_server&, const haproxy_server&) = default;
};

/// The ids HAProxy gives `servers` (explicit or automatic), in order.
/// Throws std::invalid_argument for a duplicate or out-of-range explicit id.
[[nodiscard]] std::vector<std::uint32_t> haproxy_server_ids(
    const std::vector<haproxy_server>& servers);

class haproxy_placement final : public placement {
 public:
  static constexpr std::uint32_t weight_scale = 16;     // BE_WEIGHT_SCALE
  static constexpr std::uint32_t id_stride = 256 * 16;  // SRV_EWGHT_RANGE
  static constexpr std::uint32_t max_weight = 256;      // SRV_UWGHT_MAX
  static constexpr std::uint32_t max_id = (1u << 20) - 1;

  haproxy_placement() = default;
  /// Throws std::invalid_argument for an empty or duplicate name, a weight
  /// above 256 or a bad id.
  haproxy_placement(haproxy_options options, std::vector<haproxy_server> servers);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "haproxy"; }
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

  [[nodiscard]] const haproxy_options& options() const noexcept { return options_; }
  [[nodiscard]] const std::vector<haproxy_server>& servers() const noexcept { return servers_; }
  /// The ids in effect (explicit or automatic), parallel to servers().
  [[nodiscard]] const std::vector<std::uint32_t>& ids() const noexcept { return ids_; }
  [[nodiscard]] const detail::point_table& points() const noexcept { return table_; }

  /// The 32-bit key hash (the non-virtual form of key_hash). Throws
  /// std::invalid_argument for a key that is not an address under
  /// `balance source`.
  [[nodiscard]] std::uint32_t hash32(std::string_view key) const;

  /// The closest-point lookup (the table must not be empty).
  [[nodiscard]] std::uint32_t owner_of(std::uint32_t h) const noexcept {
    const std::size_t n = table_.size();
    std::size_t next = table_.first_at_or_after(h);
    if (next == n) next = 0;
    const std::size_t prev = next == 0 ? n - 1 : next - 1;
    const std::uint32_t dp = h - table_.position(prev);
    const std::uint32_t dn = table_.position(next) - h;
    // dp <= dn ? prev : next, without a branch: which side is closer is a coin
    // toss per key, so a branch would be mispredicted half the time.
    const std::size_t take_prev = dp <= dn ? 1 : 0;
    return table_.owner(next - take_prev * (next - prev));
  }

 private:
  void rebuild(std::vector<haproxy_server> servers);
  [[nodiscard]] std::size_t index_of(std::string_view name) const;

  haproxy_options options_;
  std::vector<haproxy_server> servers_;
  std::vector<std::uint32_t> ids_;
  detail::point_table table_;
};

}  // namespace ringbloom::schemes
