// groupcache's consistenthash.Map (see groupcache.hpp for the rules and source).
#include "ringbloom/placement/schemes/groupcache.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {
constexpr std::string_view kind = "groupcache";
}

groupcache_placement::groupcache_placement(std::uint32_t replicas, std::vector<std::string> peers)
    : replicas_(replicas) {
  if (replicas == 0 || replicas > max_replicas) {
    throw std::invalid_argument(fmt::format(
        "groupcache: {} replicas is outside [1, {}]; HTTPPool uses 50", replicas, max_replicas));
  }
  rebuild(std::move(peers));
}

void groupcache_placement::rebuild(std::vector<std::string> peers) {
  std::unordered_set<std::string_view> seen;
  for (const std::string& p : peers) {
    if (p.empty())
      throw std::invalid_argument("groupcache: a peer is empty; give each peer its base URL");
    if (!seen.insert(p).second) detail::throw_duplicate_node(kind, p);
  }
  std::vector<detail::point> points;
  points.reserve(peers.size() * replicas_);
  for (std::size_t p = 0; p < peers.size(); ++p) {
    for (std::uint32_t i = 0; i < replicas_; ++i) {
      points.push_back({crc32(std::to_string(i) + peers[p]), static_cast<std::uint32_t>(p)});
    }
  }
  // Equal positions: the peer added last owns them (hashMap[hash] = key).
  std::stable_sort(
      points.begin(), points.end(),
      [](const detail::point& a, const detail::point& b) { return a.position < b.position; });
  std::vector<detail::point> unique;
  unique.reserve(points.size());
  for (const detail::point& pt : points) {
    if (!unique.empty() && unique.back().position == pt.position) {
      unique.back().owner = std::max(unique.back().owner, pt.owner);
    } else {
      unique.push_back(pt);
    }
  }
  detail::point_table table(unique);
  peers_ = std::move(peers);
  table_ = std::move(table);
}

std::uint64_t groupcache_placement::key_hash(std::string_view key) const { return crc32(key); }

std::uint32_t groupcache_placement::node_index_for_hash(std::uint64_t h) const {
  if (table_.empty()) detail::throw_empty(kind);
  return owner_of(static_cast<std::uint32_t>(h));
}

void groupcache_placement::add_node(const placement_node& node) {
  detail::integer_weight(kind, node.name, node.weight, 1, 1);
  std::vector<std::string> peers = peers_;
  peers.push_back(node.name);
  rebuild(std::move(peers));
}

void groupcache_placement::remove_node(std::string_view name) {
  std::vector<std::string> peers = peers_;
  const auto it = std::find(peers.begin(), peers.end(), name);
  if (it == peers.end()) detail::throw_unknown_node(kind, name);
  peers.erase(it);
  rebuild(std::move(peers));
}

unsigned groupcache_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_any;
}

std::unique_ptr<placement> groupcache_placement::clone() const {
  return std::make_unique<groupcache_placement>(*this);
}

}  // namespace ringbloom::schemes
