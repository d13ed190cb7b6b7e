// twemproxy's ketama (see twemproxy.hpp for the rules and source).
#include "ringbloom/placement/schemes/twemproxy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::string_view kind = "twemproxy";
constexpr std::size_t max_host_text = 272;  // KETAMA_MAX_HOSTLEN - 1: what snprintf keeps

}  // namespace

// nc_ketama.c: pointer_per_server, with its float arithmetic. The sum with
// 0.0000000001 (a double literal) happens in double and is cast back.
std::uint32_t twemproxy_points_per_server(std::uint32_t weight, std::uint32_t total_weight,
                                          std::size_t servers) noexcept {
  const float pct = static_cast<float>(weight) / static_cast<float>(total_weight);
  const float product = pct * 160.0f / 4.0f * static_cast<float>(servers);
  const float sum = static_cast<float>(static_cast<double>(product) + 0.0000000001);
  return static_cast<std::uint32_t>(std::floor(sum)) * 4;
}

std::string_view twemproxy_hash_name(twemproxy_hash h) noexcept {
  switch (h) {
    case twemproxy_hash::md5:
      return "md5";
    case twemproxy_hash::fnv1a_64:
      return "fnv1a_64";
    case twemproxy_hash::fnv1_64:
      return "fnv1_64";
    case twemproxy_hash::fnv1a_32:
      return "fnv1a_32";
    case twemproxy_hash::fnv1_32:
      return "fnv1_32";
  }
  return "fnv1a_64";
}

std::optional<twemproxy_hash> find_twemproxy_hash(std::string_view name) noexcept {
  for (twemproxy_hash h : {twemproxy_hash::md5, twemproxy_hash::fnv1a_64, twemproxy_hash::fnv1_64,
                           twemproxy_hash::fnv1a_32, twemproxy_hash::fnv1_32}) {
    if (twemproxy_hash_name(h) == name) return h;
  }
  return std::nullopt;
}

std::string twemproxy_default_name(std::string_view host, std::uint32_t port) {
  if (port == 11211) return std::string(host);
  return fmt::format("{}:{}", host, port);
}

twemproxy_placement::twemproxy_placement(twemproxy_hash hash, std::vector<twemproxy_server> servers)
    : hash_(hash) {
  rebuild(std::move(servers));
}

void twemproxy_placement::rebuild(std::vector<twemproxy_server> servers) {
  std::unordered_set<std::string_view> seen;
  std::uint32_t total_weight = 0;
  for (const twemproxy_server& s : servers) {
    if (s.name.empty()) {
      throw std::invalid_argument(
          "twemproxy: a server has an empty name; give each server a name or an address");
    }
    if (!seen.insert(s.name).second) detail::throw_duplicate_node(kind, s.name);
    total_weight += detail::integer_weight(kind, s.name, s.weight, 1, max_weight);
  }
  if (std::uint64_t{160} * servers.size() > detail::max_total_points) {
    detail::throw_too_many_points(kind, std::uint64_t{160} * servers.size());
  }
  std::vector<std::uint32_t> counts;
  for (std::size_t i = 0; i < servers.size(); ++i)
    counts.push_back(twemproxy_points_per_server(servers[i].weight, total_weight, servers.size()));
  // nutcracker sorts a pool's servers by name when it checks them for
  // duplicates (conf_validate_server: array_sort with string_compare, the
  // shorter name first, then byte order) and builds the continuum in that
  // order; glibc's qsort of the continuum is a stable merge sort, so among
  // points at one position the server whose name sorts first comes first,
  // and ketama_dispatch's first point >= the hash is its.
  std::vector<std::size_t> order(servers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const std::string& x = servers[a].name;
    const std::string& y = servers[b].name;
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  std::vector<detail::point> points;
  for (const std::size_t i : order) {
    const std::uint32_t count = counts[i];
    for (std::uint32_t k = 0; k < count / 4; ++k) {
      std::string host = fmt::format("{}-{}", servers[i].name, k);
      if (host.size() > max_host_text) host.resize(max_host_text);
      for (unsigned x = 0; x < 4; ++x)
        points.push_back({md5_word_le(host, x), static_cast<std::uint32_t>(i)});
    }
  }
  std::stable_sort(
      points.begin(), points.end(),
      [](const detail::point& a, const detail::point& b) { return a.position < b.position; });
  detail::point_table table(points);
  servers_ = std::move(servers);
  point_counts_ = std::move(counts);
  table_ = std::move(table);
}

std::uint32_t twemproxy_placement::hash32(std::string_view key) const noexcept {
  switch (hash_) {
    case twemproxy_hash::md5:
      return md5_word_le(key, 0);
    case twemproxy_hash::fnv1a_64:
      return twemproxy_fnv1a_64(key);
    case twemproxy_hash::fnv1_64:
      return twemproxy_fnv1_64(key);
    case twemproxy_hash::fnv1a_32:
      return twemproxy_fnv1a_32(key);
    case twemproxy_hash::fnv1_32:
      return twemproxy_fnv1_32(key);
  }
  return twemproxy_fnv1a_64(key);
}

std::uint32_t twemproxy_placement::node_index_for_hash(std::uint64_t h) const {
  if (table_.empty()) detail::throw_empty(kind);
  return owner_of(static_cast<std::uint32_t>(h));
}

const std::string& twemproxy_placement::node_name(std::uint32_t index) const {
  return servers_.at(index).name;
}

std::size_t twemproxy_placement::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].name == name) return i;
  }
  detail::throw_unknown_node(kind, name);
}

void twemproxy_placement::add_node(const placement_node& node) {
  std::vector<twemproxy_server> servers = servers_;
  servers.push_back(
      {node.name, detail::integer_weight(kind, node.name, node.weight, 1, max_weight)});
  rebuild(std::move(servers));
}

void twemproxy_placement::remove_node(std::string_view name) {
  std::vector<twemproxy_server> servers = servers_;
  servers.erase(servers.begin() + static_cast<std::ptrdiff_t>(index_of(name)));
  rebuild(std::move(servers));
}

void twemproxy_placement::set_weight(std::string_view name, double weight) {
  std::vector<twemproxy_server> servers = servers_;
  servers[index_of(name)].weight = detail::integer_weight(kind, name, weight, 1, max_weight);
  rebuild(std::move(servers));
}

unsigned twemproxy_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any | placement_change::reweight;
}

std::unique_ptr<placement> twemproxy_placement::clone() const {
  return std::make_unique<twemproxy_placement>(*this);
}

}  // namespace ringbloom::schemes
