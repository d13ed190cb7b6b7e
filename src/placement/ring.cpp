// The hash ring: point generation, merging, the lookup index, analysis.
#include "ringbloom/placement/ring.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "name_table.hpp"

namespace ringbloom {
namespace {

constexpr std::uint64_t ketama_space_max = 0xFFFF'FFFFull;
constexpr std::uint16_t memcached_default_port = 11211;

std::uint32_t read_le32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// The ketama key hash: the first four bytes of MD5(key), little endian
// (libhashkit's md5 hash).
std::uint64_t ketama_key_hash(std::string_view key) noexcept {
  const auto digest = md5_digest(key);
  return read_le32(digest.data());
}

void append_number(std::string& s, std::uint64_t n) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  (void)ec;  // 24 chars always hold a 64-bit number
  s.append(buf, end);
}

// The native points of a node: hash("name#i") for i in [0, count).
std::vector<std::uint64_t> native_points(const ring_options& options, std::string_view name,
                                         std::uint32_t count) {
  std::vector<std::uint64_t> points;
  points.reserve(count);
  std::string label(name);
  label.push_back('#');
  const std::size_t stem = label.size();
  label.resize(stem + 10);  // room for any 32-bit index
  for (std::uint32_t i = 0; i < count; ++i) {
    char* digits = label.data() + stem;
    const auto end = std::to_chars(digits, digits + 10, i).ptr;
    const std::string_view text(label.data(), static_cast<std::size_t>(end - label.data()));
    // lab11 salts each virtual node's hash with its replica number.
    points.push_back(options.hash == hash_kind::poly31 ? poly31(text, i)
                                                       : hash64(options.hash, text));
  }
  return points;
}

// A ketama server name split into the string its point digests start with:
// "host" for port 11211, else "host:port".
std::string ketama_stem(std::string_view name) {
  const auto colon = name.rfind(':');
  if (colon == std::string_view::npos) return std::string(name);
  const std::string_view host = name.substr(0, colon);
  const std::string_view port_text = name.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (host.empty() || port_text.empty() || ec != std::errc{} ||
      end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
    throw std::invalid_argument(
        fmt::format("ketama server name '{}' is not 'host' or 'host:port' with a port in 1..65535; "
                    "write it as, for example, 'cache-1:11211'",
                    name));
  }
  if (port == memcached_default_port) return std::string(host);
  return fmt::format("{}:{}", host, port);
}

// libmemcached's weighted ketama point count, in 32-bit float exactly as
// update_continuum() computes it: floor(pct * 160 / 4 * servers + 1e-10f) * 4.
// Each operation is a separate float operation (ISO C++ mode does not fuse
// them), so the rounding matches: e.g. with 25 equal servers 1/25 * 160 / 4
// * 25 rounds to 39.999996 and gives 156 points rather than 160.
std::uint32_t ketama_point_count(std::uint32_t weight, std::uint64_t total_weight,
                                 std::size_t servers) {
  const float pct = static_cast<float>(weight) / static_cast<float>(total_weight);
  float x = pct * 160.0f;
  x = x / 4.0f;
  x = x * static_cast<float>(servers);
  x = x + 1e-10f;
  return static_cast<std::uint32_t>(std::floor(x) * 4.0f);
}

struct lookup_index {
  std::vector<std::uint32_t> starts;
  std::uint64_t bucket_count = 0;
  int shift = 63;
};

// An index on the top bits of the hash: with b bits there are 2^b buckets,
// and starts[k] is the first point whose top b bits are >= k. b is chosen so
// there are about two buckets per point: then a lookup reads two adjacent
// starts and scans about half a point, and the index costs about 8 bytes per
// point (4-byte entries, 2 per point).
lookup_index make_index(std::span<const std::uint64_t> positions, int space_bits) {
  lookup_index index;
  const std::size_t n = positions.size();
  int bits = n <= 1 ? 1 : static_cast<int>(std::bit_width(n - 1)) + 1;
  bits = std::min(bits, std::min(space_bits, 30));
  index.shift = space_bits - bits;
  index.bucket_count = std::uint64_t{1} << bits;
  index.starts.resize(index.bucket_count + 1);
  std::size_t i = 0;
  for (std::uint64_t bucket = 0; bucket < index.bucket_count; ++bucket) {
    while (i < n && (positions[i] >> index.shift) < bucket) ++i;
    index.starts[bucket] = static_cast<std::uint32_t>(i);
  }
  index.starts[index.bucket_count] = static_cast<std::uint32_t>(n);
  return index;
}

}  // namespace

namespace {

constexpr detail::name_table<ring_scheme, 2> scheme_table = {{
    {ring_scheme::native, "ring"},
    {ring_scheme::ketama, "ketama"},
}};

}  // namespace

std::string_view scheme_name(ring_scheme scheme) noexcept {
  return detail::name_of(scheme_table, scheme);
}

std::optional<ring_scheme> find_scheme(std::string_view name) noexcept {
  return detail::value_named(scheme_table, name);
}

ring_scheme parse_scheme(std::string_view name) {
  if (auto scheme = find_scheme(name)) return *scheme;
  throw std::invalid_argument(
      fmt::format("unknown ring scheme '{}'; use 'ring' or 'ketama'", name));
}

hash_ring::hash_ring(ring_options options) : options_(options) {
  if (options_.vnodes == 0) {
    throw std::invalid_argument(
        "a ring needs at least 1 virtual node per unit of weight; use vnodes >= 1 (100 is usual)");
  }
  if (options_.scheme == ring_scheme::ketama && options_ != ring_options::ketama()) {
    throw std::invalid_argument(
        "the ketama scheme fixes the hash (md5) and the points (160 per server); "
        "use ring_options::ketama() (on the command line, leave --hash and --vnodes out)");
  }
  if (options_.scheme != ring_scheme::native && options_.scheme != ring_scheme::ketama) {
    throw std::invalid_argument("unknown ring scheme; use ring_scheme::native or ::ketama");
  }
  const auto index = make_index({}, options_.scheme == ring_scheme::ketama ? 32 : 64);
  index_ = index.starts;
  bucket_count_ = index.bucket_count;
  shift_ = index.shift;
}

std::uint64_t hash_ring::space_max() const noexcept {
  return options_.scheme == ring_scheme::ketama ? ketama_space_max : ~std::uint64_t{0};
}

std::uint64_t hash_ring::key_hash(std::string_view key) const noexcept {
  if (options_.scheme == ring_scheme::ketama) return ketama_key_hash(key);
  return hash64(options_.hash, key);
}

std::optional<std::uint32_t> hash_ring::find_node(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

bool hash_ring::contains(std::string_view name) const noexcept {
  return find_node(name).has_value();
}

void hash_ring::add_node(std::string_view name, std::uint32_t weight) {
  const ring_node node{std::string(name), weight, {}, 0};
  add_nodes(std::span<const ring_node>(&node, 1));
}

void hash_ring::add_node_at(std::string_view name, std::span<const std::uint64_t> tokens) {
  if (tokens.empty()) {
    throw std::invalid_argument(
        fmt::format("node '{}' has no tokens; give at least one position", name));
  }
  const ring_node node{std::string(name), static_cast<std::uint32_t>(tokens.size()),
                       std::vector<std::uint64_t>(tokens.begin(), tokens.end()), 0};
  add_nodes(std::span<const ring_node>(&node, 1));
}

namespace {

struct point {
  std::uint64_t position;
  std::uint32_t owner;
};

// Sorts points by position, stably (points at one position keep their input
// order). Small inputs use std::stable_sort; large ones an LSD radix sort,
// 8 bits per pass, which builds a 16,000-point ring several times faster.
void sort_points(std::vector<point>& points) {
  if (points.size() < 2048) {
    std::stable_sort(points.begin(), points.end(),
                     [](const point& a, const point& b) { return a.position < b.position; });
    return;
  }
  std::vector<point> scratch(points.size());
  for (int shift = 0; shift < 64; shift += 8) {
    std::size_t counts[257] = {};
    for (const point& p : points) ++counts[((p.position >> shift) & 0xFF) + 1];
    if (counts[1] == points.size()) continue;  // this byte is 0 everywhere
    for (int b = 0; b < 256; ++b) counts[b + 1] += counts[b];
    for (const point& p : points) scratch[counts[(p.position >> shift) & 0xFF]++] = p;
    points.swap(scratch);
  }
}

}  // namespace

void hash_ring::add_nodes(std::span<const ring_node> added) {
  if (added.empty()) return;
  // Check everything first: a refused node leaves the ring unchanged.
  std::vector<std::string_view> names;
  std::uint64_t new_points = 0;
  for (const ring_node& node : added) {
    const std::string_view name = node.name;
    if (name.empty()) {
      throw std::invalid_argument("a node name must not be empty; give every node a name");
    }
    if (contains(name)) {
      throw std::invalid_argument(fmt::format(
          "node '{}' is already on the ring; remove it first or choose another name", name));
    }
    names.push_back(name);
    if (!node.tokens.empty()) {
      if (options_.scheme != ring_scheme::native) {
        throw std::invalid_argument(fmt::format(
            "node '{}': explicit tokens need the native ring scheme, ketama places servers "
            "itself; use add_node (or scheme 'ring')",
            name));
      }
      if (node.tokens.size() > max_points_per_node) {
        throw std::invalid_argument(
            fmt::format("node '{}' has {} tokens, more than the limit of {}", name,
                        node.tokens.size(), max_points_per_node));
      }
      new_points += node.tokens.size();
      continue;
    }
    if (node.weight == 0) {
      throw std::invalid_argument(fmt::format(
          "node '{}' has weight 0; a weight is an integer >= 1 (remove the node instead)", name));
    }
    if (options_.scheme == ring_scheme::ketama) {
      (void)ketama_stem(name);  // validates the name
      continue;
    }
    const std::uint64_t count = std::uint64_t{options_.vnodes} * node.weight;
    if (count > max_points_per_node) {
      throw std::invalid_argument(fmt::format(
          "node '{}' would get {} points (vnodes {} x weight {}), more than the limit of {}; "
          "lower the weight or the vnodes",
          name, count, options_.vnodes, node.weight, max_points_per_node));
    }
    new_points += count;
  }
  std::vector<std::string_view> sorted_names = names;
  std::sort(sorted_names.begin(), sorted_names.end());
  if (const auto dup = std::adjacent_find(sorted_names.begin(), sorted_names.end());
      dup != sorted_names.end()) {
    throw std::invalid_argument(
        fmt::format("node '{}' is given twice; node names must be unique", *dup));
  }
  if (nodes_.size() + added.size() > 0xFFFF'FFFEull ||
      positions_.size() + new_points > 0xFFFF'FFFFull) {
    throw std::invalid_argument(
        "a ring holds fewer than 2^32 nodes and points; lower vnodes, weights or tokens");
  }

  std::vector<ring_node> nodes = nodes_;
  nodes.reserve(nodes_.size() + added.size());
  for (const ring_node& node : added) {
    nodes.push_back(ring_node{node.name, node.weight, node.tokens, 0});
  }
  if (options_.scheme == ring_scheme::ketama) {
    rebuild_ketama(std::move(nodes));
    return;
  }

  // The new points, generated in name order so that the stable sort leaves
  // points at one position in name order.
  std::vector<std::uint32_t> order(added.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return added[a].name < added[b].name; });
  std::vector<point> fresh;
  fresh.reserve(new_points);
  for (const std::uint32_t i : order) {
    ring_node& node = nodes[nodes_.size() + i];
    const auto id = static_cast<std::uint32_t>(nodes_.size() + i);
    if (!node.tokens.empty()) {
      for (const std::uint64_t t : node.tokens) fresh.push_back({t, id});
      node.weight = static_cast<std::uint32_t>(node.tokens.size());
      node.points = static_cast<std::uint32_t>(node.tokens.size());
    } else {
      node.points = options_.vnodes * node.weight;
      for (const std::uint64_t p : native_points(options_, node.name, node.points)) {
        fresh.push_back({p, id});
      }
    }
  }
  sort_points(fresh);

  // Merge into the sorted arrays; at an equal position the smaller name
  // comes first. The old points are not rehashed: adding costs O(points).
  std::vector<std::uint64_t> positions;
  std::vector<std::uint32_t> owners;
  positions.reserve(positions_.size() + fresh.size());
  owners.reserve(positions_.size() + fresh.size());
  std::size_t i = 0;
  for (const point& p : fresh) {
    while (i < positions_.size() &&
           (positions_[i] < p.position ||
            (positions_[i] == p.position && nodes[owners_[i]].name < nodes[p.owner].name))) {
      positions.push_back(positions_[i]);
      owners.push_back(owners_[i]);
      ++i;
    }
    positions.push_back(p.position);
    owners.push_back(p.owner);
  }
  positions.insert(positions.end(), positions_.begin() + static_cast<std::ptrdiff_t>(i),
                   positions_.end());
  owners.insert(owners.end(), owners_.begin() + static_cast<std::ptrdiff_t>(i), owners_.end());
  lookup_index index = make_index(positions, 64);

  // Nothing below throws: the ring changes all at once.
  nodes_.swap(nodes);
  positions_.swap(positions);
  owners_.swap(owners);
  index_.swap(index.starts);
  bucket_count_ = index.bucket_count;
  shift_ = index.shift;
}

void hash_ring::remove_node(std::string_view name) {
  const auto found = find_node(name);
  if (!found) {
    throw std::invalid_argument(
        fmt::format("node '{}' is not on the ring; nothing to remove (check the name)", name));
  }
  const std::uint32_t id = *found;
  if (options_.scheme == ring_scheme::ketama) {
    std::vector<ring_node> next = nodes_;
    next.erase(next.begin() + id);
    rebuild_ketama(std::move(next));
    return;
  }
  std::vector<std::uint64_t> positions;
  std::vector<std::uint32_t> owners;
  positions.reserve(positions_.size() - nodes_[id].points);
  owners.reserve(positions_.size() - nodes_[id].points);
  for (std::size_t i = 0; i < positions_.size(); ++i) {
    if (owners_[i] == id) continue;
    positions.push_back(positions_[i]);
    owners.push_back(owners_[i] > id ? owners_[i] - 1 : owners_[i]);
  }
  lookup_index index = make_index(positions, 64);
  // Erasing moves ring_node objects, which cannot throw.
  nodes_.erase(nodes_.begin() + id);
  positions_.swap(positions);
  owners_.swap(owners);
  index_.swap(index.starts);
  bucket_count_ = index.bucket_count;
  shift_ = index.shift;
}

void hash_ring::rebuild_ketama(std::vector<ring_node> nodes) {
  std::uint64_t total_weight = 0;
  for (const ring_node& node : nodes) total_weight += node.weight;
  struct point {
    std::uint32_t value;
    std::uint32_t server;
  };
  std::vector<point> points;
  std::string label;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    ring_node& node = nodes[s];
    node.points = ketama_point_count(node.weight, total_weight, nodes.size());
    const std::string stem = ketama_stem(node.name);
    for (std::uint32_t k = 0; k < node.points / 4; ++k) {
      label = stem;
      label.push_back('-');
      append_number(label, k);
      const auto digest = md5_digest(label);
      for (int word = 0; word < 4; ++word) {
        points.push_back({read_le32(digest.data() + 4 * word), static_cast<std::uint32_t>(s)});
      }
    }
  }
  // Ties by server order, as libmemcached's continuum_item_cmp.
  std::sort(points.begin(), points.end(), [](const point& a, const point& b) {
    return a.value != b.value ? a.value < b.value : a.server < b.server;
  });
  std::vector<std::uint64_t> positions(points.size());
  std::vector<std::uint32_t> owners(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    positions[i] = points[i].value;
    owners[i] = points[i].server;
  }
  lookup_index index = make_index(positions, 32);
  nodes_.swap(nodes);
  positions_.swap(positions);
  owners_.swap(owners);
  index_.swap(index.starts);
  bucket_count_ = index.bucket_count;
  shift_ = index.shift;
}

const std::string& hash_ring::node_for_hash(std::uint64_t h) const {
  if (positions_.empty()) {
    throw std::invalid_argument("the ring has no nodes; add a node before looking up keys");
  }
  return nodes_[node_index_for_hash(h)].name;
}

const std::string& hash_ring::node_for(std::string_view key) const {
  return node_for_hash(key_hash(key));
}

std::vector<std::string> hash_ring::nodes_for(std::string_view key, std::size_t n) const {
  return nodes_for_hash(key_hash(key), n);
}

std::vector<std::string> hash_ring::nodes_for_hash(std::uint64_t h, std::size_t n) const {
  if (n == 0) {
    throw std::invalid_argument("nodes_for needs n >= 1 (the owner counts as the first replica)");
  }
  if (positions_.empty()) {
    throw std::invalid_argument("the ring has no nodes; add a node before looking up keys");
  }
  const std::size_t want = std::min(n, nodes_.size());
  std::vector<std::uint32_t> found;
  found.reserve(want);
  std::size_t i = point_index_for_hash(h);
  for (std::size_t steps = 0; steps < positions_.size() && found.size() < want; ++steps) {
    const std::uint32_t owner = owners_[i];
    if (std::find(found.begin(), found.end(), owner) == found.end()) found.push_back(owner);
    if (++i == positions_.size()) i = 0;
  }
  std::vector<std::string> names;
  names.reserve(found.size());
  for (const std::uint32_t id : found) names.push_back(nodes_[id].name);
  return names;
}

std::size_t hash_ring::lookup_bytes() const noexcept {
  return positions_.capacity() * sizeof(std::uint64_t) +
         owners_.capacity() * sizeof(std::uint32_t) + index_.capacity() * sizeof(std::uint32_t);
}

std::size_t hash_ring::memory_bytes() const noexcept {
  std::size_t bytes = sizeof(*this) + lookup_bytes() + nodes_.capacity() * sizeof(ring_node);
  for (const ring_node& node : nodes_) {
    if (node.name.capacity() > 15) bytes += node.name.capacity() + 1;  // beyond the SSO buffer
    bytes += node.tokens.capacity() * sizeof(std::uint64_t);
  }
  return bytes;
}

// --- analysis ----------------------------------------------------------------

std::vector<node_share> ownership(const hash_ring& ring) {
  std::vector<node_share> shares;
  shares.reserve(ring.node_count());
  for (const ring_node& node : ring.nodes()) shares.push_back({node.name, 0.0});
  const auto positions = ring.positions();
  const auto owners = ring.point_owners();
  if (positions.empty()) return shares;
  const double space = std::ldexp(1.0, ring.space_max() == ketama_space_max ? 32 : 64);
  // Point i owns (positions[i-1], positions[i]]; point 0 also owns the
  // wrap-around arc (last, space_max] + [0, positions[0]].
  std::vector<double> arcs(shares.size(), 0.0);
  for (std::size_t i = 1; i < positions.size(); ++i) {
    arcs[owners[i]] += static_cast<double>(positions[i] - positions[i - 1]);
  }
  const std::uint64_t first = positions.front();
  const std::uint64_t last = positions.back();
  // Every point at one position: the first point owns the whole space.
  const double wrap = first == last ? space
                                    : static_cast<double>(ring.space_max() - last) + 1.0 +
                                          static_cast<double>(first);
  arcs[owners[0]] += wrap;
  for (std::size_t i = 0; i < shares.size(); ++i) shares[i].share = arcs[i] / space;
  return shares;
}

load_tally::load_tally(const hash_ring& ring) : ring_(&ring), counts_(ring.node_count(), 0) {
  if (ring.empty()) {
    throw std::invalid_argument("the ring has no nodes; add a node before measuring load");
  }
}

load_report load_tally::report() const {
  load_report report;
  report.keys = keys_;
  report.counts = counts_;
  const auto& nodes = ring_->nodes();
  double max_share = 0.0;
  double min_share = 1.0;
  std::uint64_t max_count = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const double share =
        keys_ == 0 ? 0.0 : static_cast<double>(counts_[i]) / static_cast<double>(keys_);
    report.shares.push_back({nodes[i].name, share});
    max_share = std::max(max_share, share);
    min_share = std::min(min_share, share);
    max_count = std::max(max_count, counts_[i]);
  }
  if (keys_ > 0) {
    const double average = static_cast<double>(keys_) / static_cast<double>(nodes.size());
    report.peak_to_average = static_cast<double>(max_count) / average;
    report.max_minus_min = max_share - min_share;
  }
  return report;
}

load_report load(const hash_ring& ring, std::span<const std::string> keys) {
  load_tally tally(ring);
  for (const std::string& key : keys) tally.add(key);
  return tally.report();
}

modulo_placement::modulo_placement(std::vector<std::string> nodes, hash_kind hash)
    : nodes_(std::move(nodes)), hash_(hash) {
  if (nodes_.empty()) {
    throw std::invalid_argument("modulo placement needs at least one node; give one or more");
  }
}

modulo_placement::modulo_placement(const hash_ring& ring)
    : hash_(ring.options().hash), ketama_(ring.options().scheme == ring_scheme::ketama) {
  for (const ring_node& node : ring.nodes()) nodes_.push_back(node.name);
  if (nodes_.empty()) {
    throw std::invalid_argument("modulo placement needs at least one node; the ring is empty");
  }
}

std::uint64_t modulo_placement::key_hash(std::string_view key) const noexcept {
  return ketama_ ? ketama_key_hash(key) : hash64(hash_, key);
}

movement_plan plan_movement(const hash_ring& before, const hash_ring& after) {
  if (before.empty() || after.empty()) {
    throw std::invalid_argument("a movement plan needs two rings with nodes; one of them is empty");
  }
  if (before.options().scheme != after.options().scheme ||
      before.options().hash != after.options().hash) {
    throw std::invalid_argument(fmt::format(
        "the rings differ in scheme or hash ({}/{} vs {}/{}), so a key has different hashes in "
        "them and ranges cannot be compared; compare rings of the same scheme and hash",
        scheme_name(before.options().scheme), hash_name(before.options().hash),
        scheme_name(after.options().scheme), hash_name(after.options().hash)));
  }
  // Every owner change happens between consecutive boundaries of the union
  // of both rings' points: within (B[j-1], B[j]] both owners are constant,
  // namely the owners of B[j].
  std::vector<std::uint64_t> bounds;
  bounds.reserve(before.point_count() + after.point_count());
  std::merge(before.positions().begin(), before.positions().end(), after.positions().begin(),
             after.positions().end(), std::back_inserter(bounds));
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());

  movement_plan plan;
  const auto add = [&](std::uint64_t first, std::uint64_t last, std::uint64_t probe) {
    const std::string& from = before.nodes()[before.node_index_for_hash(probe)].name;
    const std::string& to = after.nodes()[after.node_index_for_hash(probe)].name;
    if (from == to) return;
    if (!plan.ranges.empty()) {
      moved_range& back = plan.ranges.back();
      if (back.last + 1 == first && back.from == from && back.to == to) {
        back.last = last;
        return;
      }
    }
    plan.ranges.push_back({first, last, from, to});
  };
  const std::uint64_t space_max = before.space_max();
  add(0, bounds.front(), bounds.front());
  for (std::size_t j = 1; j < bounds.size(); ++j) add(bounds[j - 1] + 1, bounds[j], bounds[j]);
  if (bounds.back() < space_max) add(bounds.back() + 1, space_max, bounds.front());

  double moved = 0.0;
  for (const moved_range& r : plan.ranges) moved += static_cast<double>(r.last - r.first) + 1.0;
  plan.moved_fraction = moved / (static_cast<double>(space_max) + 1.0);
  return plan;
}

}  // namespace ringbloom
