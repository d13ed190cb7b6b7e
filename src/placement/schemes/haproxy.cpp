// HAProxy's `hash-type consistent` (see haproxy.hpp for the rules and source).
#include "ringbloom/placement/schemes/haproxy.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::string_view kind = "haproxy";

}  // namespace

std::string_view haproxy_hash_name(haproxy_hash h) noexcept {
  switch (h) {
    case haproxy_hash::sdbm:
      return "sdbm";
    case haproxy_hash::djb2:
      return "djb2";
    case haproxy_hash::wt6:
      return "wt6";
    case haproxy_hash::crc32:
      return "crc32";
  }
  return "sdbm";
}

std::optional<haproxy_hash> find_haproxy_hash(std::string_view name) noexcept {
  for (haproxy_hash h :
       {haproxy_hash::sdbm, haproxy_hash::djb2, haproxy_hash::wt6, haproxy_hash::crc32}) {
    if (haproxy_hash_name(h) == name) return h;
  }
  return std::nullopt;
}

std::string_view haproxy_key_name(haproxy_key k) noexcept {
  switch (k) {
    case haproxy_key::bytes:
      return "bytes";
    case haproxy_key::uri:
      return "uri";
    case haproxy_key::source_address:
      return "source";
    case haproxy_key::header:
      return "header";
  }
  return "bytes";
}

std::optional<haproxy_key> find_haproxy_key(std::string_view name) noexcept {
  for (haproxy_key k :
       {haproxy_key::bytes, haproxy_key::uri, haproxy_key::source_address, haproxy_key::header}) {
    if (haproxy_key_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string_view haproxy_uri_part(std::string_view uri, const haproxy_options& options) noexcept {
  // get_server_uh: `len` first, then stop at the slash that opens level
  // depth + 1 or, without `whole`, at the first '?'.
  if (options.uri_len != 0 && uri.size() > options.uri_len) uri = uri.substr(0, options.uri_len);
  std::uint64_t slashes = 0;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '/') {
      if (options.uri_depth != 0 && ++slashes == std::uint64_t{options.uri_depth} + 1)
        return uri.substr(0, i);
    } else if (uri[i] == '?' && !options.uri_whole) {
      return uri.substr(0, i);
    }
  }
  return uri;
}

std::uint32_t haproxy_source_word(std::string_view address) {
  const std::string text(address);
  std::array<unsigned char, 16> bytes{};
  std::size_t size = 0;
  if (address.size() < 64 && inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) {
    size = 4;
  } else if (address.size() < 64 && inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) {
    size = 16;
  } else {
    throw std::invalid_argument(fmt::format(
        "haproxy: the key '{}' is not an IPv4 or IPv6 address; under 'balance source' HAProxy "
        "hashes the client's address, so give client addresses as keys (e.g. 192.0.2.7)",
        printable(address)));
  }
  std::uint32_t h = 0;
  for (std::size_t at = 0; at < size; at += 4) {
    h ^= std::uint32_t{bytes[at]} << 24 | std::uint32_t{bytes[at + 1]} << 16 |
         std::uint32_t{bytes[at + 2]} << 8 | std::uint32_t{bytes[at + 3]};
  }
  return h;
}

std::vector<std::uint32_t> haproxy_server_ids(const std::vector<haproxy_server>& servers) {
  std::set<std::uint32_t> used;
  for (const haproxy_server& s : servers) {
    if (s.id == 0) continue;
    if (s.id > haproxy_placement::max_id) {
      throw std::invalid_argument(
          fmt::format("haproxy: server '{}' has id {}, above {}; ringbloom models ids below 2^20 "
                      "(larger ones can "
                      "collide), so give a smaller id",
                      s.name, s.id, haproxy_placement::max_id));
    }
    if (!used.insert(s.id).second) {
      throw std::invalid_argument(
          fmt::format("haproxy: server '{}' reuses id {}; HAProxy refuses two servers with one id, "
                      "so give another",
                      s.name, s.id));
    }
  }
  std::vector<std::uint32_t> ids;
  ids.reserve(servers.size());
  std::uint32_t next_id = 1;
  for (const haproxy_server& s : servers) {
    if (s.id != 0) {
      ids.push_back(s.id);
    } else {
      while (used.contains(next_id)) ++next_id;  // get_next_id()
      used.insert(next_id);
      ids.push_back(next_id);
    }
    ++next_id;
  }
  return ids;
}

haproxy_placement::haproxy_placement(haproxy_options options, std::vector<haproxy_server> servers)
    : options_(options) {
  rebuild(std::move(servers));
}

void haproxy_placement::rebuild(std::vector<haproxy_server> servers) {
  std::unordered_set<std::string_view> seen;
  for (const haproxy_server& s : servers) {
    if (s.name.empty()) {
      throw std::invalid_argument("haproxy: a server has an empty name; give each server a name");
    }
    if (!seen.insert(s.name).second) detail::throw_duplicate_node(kind, s.name);
    detail::integer_weight(kind, s.name, s.weight, 0, max_weight);
  }
  std::vector<std::uint32_t> ids = haproxy_server_ids(servers);
  if (std::any_of(ids.begin(), ids.end(), [](std::uint32_t id) { return id > max_id; })) {
    throw std::invalid_argument("haproxy: more than 2^20 servers; ringbloom models ids below 2^20");
  }
  std::uint64_t total_points = 0;
  for (const haproxy_server& s : servers) total_points += std::uint64_t{s.weight} * weight_scale;
  if (total_points > detail::max_total_points) detail::throw_too_many_points(kind, total_points);
  std::vector<detail::point> points;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const std::uint32_t count = servers[i].weight * weight_scale;
    for (std::uint32_t j = 0; j < count; ++j) {
      points.push_back({haproxy_full_hash(ids[i] * id_stride + j), static_cast<std::uint32_t>(i)});
    }
  }
  std::stable_sort(
      points.begin(), points.end(),
      [](const detail::point& a, const detail::point& b) { return a.position < b.position; });
  detail::point_table table(points);
  servers_ = std::move(servers);
  ids_ = std::move(ids);
  table_ = std::move(table);
}

std::uint32_t haproxy_placement::hash32(std::string_view key) const {
  std::uint32_t h = 0;
  if (options_.key == haproxy_key::source_address) {
    h = haproxy_source_word(key);
    return options_.avalanche ? haproxy_full_hash(h) : h;
  }
  if (options_.key == haproxy_key::uri) key = haproxy_uri_part(key, options_);
  if (options_.key == haproxy_key::header && key.empty()) {
    // get_server_hh / get_server_rch: an empty or missing value returns no
    // server, and the request is balanced round robin.
    throw std::invalid_argument(
        "haproxy: the key is empty, and HAProxy balances a request whose header (or RDP "
        "cookie) is empty or missing round robin, to no fixed server; give a non-empty value");
  }
  switch (options_.function) {
    case haproxy_hash::sdbm:
      h = haproxy_sdbm(key);
      break;
    case haproxy_hash::djb2:
      h = haproxy_djb2(key);
      break;
    case haproxy_hash::wt6:
      h = haproxy_wt6(key);
      break;
    case haproxy_hash::crc32:
      h = crc32(key);
      break;
  }
  return options_.avalanche ? haproxy_full_hash(h) : h;
}

std::uint64_t haproxy_placement::key_hash(std::string_view key) const { return hash32(key); }

std::uint32_t haproxy_placement::node_index_for_hash(std::uint64_t h) const {
  if (table_.empty()) detail::throw_empty(kind);
  return owner_of(static_cast<std::uint32_t>(h));
}

const std::string& haproxy_placement::node_name(std::uint32_t index) const {
  return servers_.at(index).name;
}

std::size_t haproxy_placement::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].name == name) return i;
  }
  detail::throw_unknown_node(kind, name);
}

void haproxy_placement::add_node(const placement_node& node) {
  std::vector<haproxy_server> servers = servers_;
  servers.push_back(
      {node.name, detail::integer_weight(kind, node.name, node.weight, 0, max_weight), 0});
  rebuild(std::move(servers));
}

void haproxy_placement::remove_node(std::string_view name) {
  std::vector<haproxy_server> servers = servers_;
  servers.erase(servers.begin() + static_cast<std::ptrdiff_t>(index_of(name)));
  rebuild(std::move(servers));
}

void haproxy_placement::set_weight(std::string_view name, double weight) {
  std::vector<haproxy_server> servers = servers_;
  servers[index_of(name)].weight = detail::integer_weight(kind, name, weight, 0, max_weight);
  rebuild(std::move(servers));
}

unsigned haproxy_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any | placement_change::reweight;
}

std::unique_ptr<placement> haproxy_placement::clone() const {
  return std::make_unique<haproxy_placement>(*this);
}

}  // namespace ringbloom::schemes
