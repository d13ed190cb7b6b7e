// nginx's `hash ... consistent` (see nginx.hpp for the rules and source).
#include "ringbloom/placement/schemes/nginx.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <unordered_set>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::string_view kind = "nginx";

std::vector<detail::point> make_points(const std::vector<nginx_server>& servers) {
  std::vector<detail::point> points;
  std::size_t total = 0;
  for (const nginx_server& s : servers)
    total += std::size_t{s.weight} * nginx_placement::points_per_weight;
  points.reserve(total);
  for (std::size_t index = 0; index < servers.size(); ++index) {
    const nginx_host_port hp = nginx_split_server(servers[index].server);
    std::uint32_t base = crc32_update(0xFFFFFFFFu, hp.host);
    base = crc32_update(base, std::string_view("\0", 1));
    base = crc32_update(base, hp.port);
    std::uint32_t prev = 0;
    const std::uint32_t count = servers[index].weight * nginx_placement::points_per_weight;
    for (std::uint32_t j = 0; j < count; ++j) {
      const std::array<char, 4> le = {
          static_cast<char>(prev & 0xFFu), static_cast<char>((prev >> 8) & 0xFFu),
          static_cast<char>((prev >> 16) & 0xFFu), static_cast<char>((prev >> 24) & 0xFFu)};
      const std::uint32_t hash =
          crc32_update(base, std::string_view(le.data(), le.size())) ^ 0xFFFFFFFFu;
      points.push_back({hash, static_cast<std::uint32_t>(index)});
      prev = hash;
    }
  }
  // glibc's qsort is a stable merge sort here, then nginx keeps the first of
  // equal positions.
  std::stable_sort(
      points.begin(), points.end(),
      [](const detail::point& a, const detail::point& b) { return a.position < b.position; });
  points.erase(std::unique(points.begin(), points.end(),
                           [](const detail::point& a, const detail::point& b) {
                             return a.position == b.position;
                           }),
               points.end());
  return points;
}

}  // namespace

nginx_host_port nginx_split_server(std::string_view server) noexcept {
  if (server.size() >= 5) {
    std::string_view prefix = server.substr(0, 5);
    const bool unix_socket = std::equal(prefix.begin(), prefix.end(), "unix:", [](char a, char b) {
      return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
    });
    if (unix_socket) return {server.substr(5), {}};
  }
  for (std::size_t j = 0; j < server.size(); ++j) {
    const char c = server[server.size() - j - 1];
    if (c == ':')
      return {server.substr(0, server.size() - j - 1), server.substr(server.size() - j)};
    if (c < '0' || c > '9') break;
  }
  return {server, {}};
}

nginx_placement::nginx_placement(std::vector<nginx_server> servers) { rebuild(std::move(servers)); }

void nginx_placement::rebuild(std::vector<nginx_server> servers) {
  std::unordered_set<std::string_view> seen;
  std::uint64_t total_points = 0;
  for (const nginx_server& s : servers) {
    total_points += std::uint64_t{s.weight} * points_per_weight;
    if (s.server.empty()) {
      throw std::invalid_argument(
          "nginx: a server has an empty address; give each server its address text");
    }
    if (!seen.insert(s.server).second) detail::throw_duplicate_node(kind, s.server);
    detail::integer_weight(kind, s.server, s.weight, 1, max_weight);
  }
  if (total_points > detail::max_total_points) detail::throw_too_many_points(kind, total_points);
  detail::point_table table(make_points(servers));
  servers_ = std::move(servers);
  table_ = std::move(table);
}

std::uint64_t nginx_placement::key_hash(std::string_view key) const {
  // ngx_http_upstream_get_chash_peer: an empty key goes to the round-robin
  // balancer, so no server is its own.
  if (key.empty()) {
    throw std::invalid_argument(
        "nginx: the key is empty, and nginx sends a request whose hash key is empty round robin, "
        "to no fixed server; give the non-empty value the 'hash' directive's key takes");
  }
  return crc32(key);
}

std::uint32_t nginx_placement::node_index_for_hash(std::uint64_t h) const {
  if (table_.empty()) detail::throw_empty(kind);
  return owner_of(static_cast<std::uint32_t>(h));
}

const std::string& nginx_placement::node_name(std::uint32_t index) const {
  return servers_.at(index).server;
}

std::size_t nginx_placement::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].server == name) return i;
  }
  detail::throw_unknown_node(kind, name);
}

void nginx_placement::add_node(const placement_node& node) {
  std::vector<nginx_server> servers = servers_;
  servers.push_back(
      {node.name, detail::integer_weight(kind, node.name, node.weight, 1, max_weight)});
  rebuild(std::move(servers));
}

void nginx_placement::remove_node(std::string_view name) {
  std::vector<nginx_server> servers = servers_;
  servers.erase(servers.begin() + static_cast<std::ptrdiff_t>(index_of(name)));
  rebuild(std::move(servers));
}

void nginx_placement::set_weight(std::string_view name, double weight) {
  std::vector<nginx_server> servers = servers_;
  servers[index_of(name)].weight = detail::integer_weight(kind, name, weight, 1, max_weight);
  rebuild(std::move(servers));
}

unsigned nginx_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any | placement_change::reweight;
}

std::unique_ptr<placement> nginx_placement::clone() const {
  return std::make_unique<nginx_placement>(*this);
}

}  // namespace ringbloom::schemes
