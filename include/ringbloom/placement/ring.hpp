// ringbloom/placement/ring.hpp: a consistent hash ring with virtual nodes.
//
// What it is. Keys and nodes are hashed into one space closed into a ring.
// Each node sits on the ring at many points (virtual nodes); a key belongs to
// the node of the first point at or after the key's hash, wrapping past the
// end to the first point. Adding a node moves only the keys that fall just
// before its new points, about 1/(N+1) of them, and only onto the new node;
// `hash % N` moves almost every key (docs/ring.md measures both).
//
// When to use it. To place keys on a changing set of servers (caches,
// shards, replicas) so that a change of membership moves few keys. If node
// names never matter and nodes are only ever added or removed at the end,
// jump consistent hashing (jump.hpp) is smaller and evens load better.
//
// The rules, which are part of the format (tests pin them):
//   - native scheme ("ring"): node `name` of integer `weight` gets
//     vnodes * weight points; point i is at hash("name#i") in the 64-bit
//     space, and with poly31 at poly31("name#i", salt = i) as in lab11.
//     Points at the same position are ordered by node name, so a ring never
//     depends on the order nodes were added. add_node_at places a node at
//     explicit positions ("tokens"), as Cassandra's initial_token does.
//   - ketama scheme ("ketama"): libmemcached's MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED
//     placement, and so twemproxy's `distribution: ketama` with `hash: md5`.
//     Names are "host" or "host:port". Server s of weight w gets
//       floor((float)w / total_weight * 40 * servers + 1e-10f) * 4
//     points, computed in 32-bit float as libmemcached does (this yields 156
//     rather than 160 for some server counts; docs/ring.md measures the cost).
//     Its digest k (k = 0, 1, ...) is MD5("host-k"), or MD5("host:port-k")
//     when the port is not 11211, read as four little-endian 32-bit points.
//     Positions and key hashes (the first four bytes of MD5(key), little
//     endian) are 32-bit values, zero-extended to 64 bits. Points at the same
//     position are ordered by server order (the order of add_node). Because
//     the point count of every server depends on the total weight, adding or
//     removing a server recomputes every server's points.
//   - both: a key with hash h belongs to the first point with position >= h
//     (lab11's and ketama's rule), and past the last point to the first.
//
// Guarantees. Lookups are const, never allocate (except nodes_for's result)
// and never lock, so any number of threads may look up on one ring while no
// thread modifies it; to change a ring under readers, publish a new one
// through ring_holder (ring_holder.hpp). Every modifying call either succeeds
// or throws and leaves the ring unchanged (strong guarantee). A ring built
// from the same options and the same nodes (in any order, for the native
// scheme) places every key identically, on every platform, forever.
//
// Costs. A lookup is one hash of the key, one read of a small index on the top
// bits of the hash and a search among a handful of points: a few nanoseconds
// for a pre-hashed key (docs/performance.md). Memory is about 20 bytes per
// point, index included (memory_bytes()). add_node merges the new points into
// the sorted arrays without rehashing the others (O(points)); remove_node
// filters them out (O(points)).
//
// Example:
//
//   #include <ringbloom/placement/ring.hpp>
//   ringbloom::hash_ring ring;               // 100 points per unit, xxh3
//   ring.add_node("cache-a");
//   ring.add_node("cache-b", 2);             // twice the share of cache-a
//   const std::string& owner = ring.node_for("user:42");
//   std::vector<std::string> replicas = ring.nodes_for("user:42", 2);
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/hash.hpp"

namespace ringbloom {

/// How points are generated and ties ordered (see the header comment).
enum class ring_scheme : std::uint8_t {
  native = 1,  // "ring": hash("name#i"), 64-bit space, ties by name
  ketama = 2,  // "ketama": libmemcached's weighted ketama, 32-bit space
};

/// The stable name of a scheme as written in files and on the command line:
/// "ring" or "ketama".
[[nodiscard]] std::string_view scheme_name(ring_scheme scheme) noexcept;

/// The scheme with that name, or nothing.
[[nodiscard]] std::optional<ring_scheme> find_scheme(std::string_view name) noexcept;

/// Like find_scheme, but throws std::invalid_argument naming the known
/// schemes when `name` is not one of them.
[[nodiscard]] ring_scheme parse_scheme(std::string_view name);

/// How a ring places points. The defaults are those of both seed lessons
/// (100 points per unit of weight) with the fast xxh3 hash.
struct ring_options {
  /// Points per unit of weight (native scheme). Must be >= 1. More points
  /// even out the load (the spread of shares falls roughly as
  /// 1/sqrt(vnodes)) at the cost of memory and slower membership changes.
  std::uint32_t vnodes = 100;
  /// The hash of keys and points (native scheme).
  hash_kind hash = default_hash;
  ring_scheme scheme = ring_scheme::native;

  /// The options of a ketama ring: MD5 and libmemcached's 160 points per
  /// server on average. The ketama scheme accepts no others.
  [[nodiscard]] static ring_options ketama() noexcept {
    return {160, hash_kind::md5, ring_scheme::ketama};
  }

  friend bool operator==(const ring_options&, const ring_options&) = default;
};

/// A node as the ring knows it.
struct ring_node {
  std::string name;
  /// The weight given to add_node; for a node placed by add_node_at, the
  /// number of its tokens.
  std::uint32_t weight = 1;
  /// The explicit positions of a node placed by add_node_at, in the order
  /// given; empty for a node placed by add_node.
  std::vector<std::uint64_t> tokens;
  /// How many points the node has on the ring.
  std::uint32_t points = 0;
};

/// The most points one node may have (vnodes * weight, or tokens): 2^24. A
/// guard against a mistyped weight allocating gigabytes.
inline constexpr std::uint32_t max_points_per_node = 1u << 24;

/// A consistent hash ring. See the header comment for the rules.
class hash_ring {
 public:
  /// An empty ring. Throws std::invalid_argument if vnodes is 0, or if the
  /// scheme is ketama and the options are not ring_options::ketama().
  explicit hash_ring(ring_options options = {});

  [[nodiscard]] const ring_options& options() const noexcept { return options_; }

  /// Adds node `name` with `weight` (its vnodes * weight points; for ketama
  /// see the header comment). Throws std::invalid_argument if the name is
  /// empty or already on the ring, if weight is 0 or gives the node more
  /// than max_points_per_node points, or, for ketama, if the name is not
  /// "host" or "host:port" with a port in 1..65535.
  void add_node(std::string_view name, std::uint32_t weight = 1);

  /// Adds node `name` at the explicit positions `tokens` (native scheme
  /// only). Throws std::invalid_argument for an empty or duplicate name, no
  /// tokens or more than max_points_per_node, or a ketama ring.
  void add_node_at(std::string_view name, std::span<const std::uint64_t> tokens);

  /// Adds several nodes at once, each with its weight or, if it has tokens,
  /// at those positions (`points` is ignored). Faster than one add_node per
  /// node: one sort and one merge, and for ketama one rebuild. Throws what
  /// add_node and add_node_at throw, and std::invalid_argument if a name is
  /// given twice; then no node is added.
  void add_nodes(std::span<const ring_node> nodes);

  /// Removes node `name` and its points. Throws std::invalid_argument if no
  /// node has that name.
  void remove_node(std::string_view name);

  /// Whether a node has that name.
  [[nodiscard]] bool contains(std::string_view name) const noexcept;

  /// The hash of `key` in the ring's space: hash64(options().hash, key) for
  /// the native scheme, the little-endian first four bytes of MD5 for ketama.
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const noexcept;

  /// The node that owns `key`. Throws std::invalid_argument if the ring is
  /// empty. The reference is valid until the ring is next modified.
  [[nodiscard]] const std::string& node_for(std::string_view key) const;

  /// The node that owns hash value `h` (as returned by key_hash). Throws
  /// std::invalid_argument if the ring is empty.
  [[nodiscard]] const std::string& node_for_hash(std::uint64_t h) const;

  /// The index in nodes() of the node that owns `h`: the fastest lookup.
  /// Precondition: the ring is not empty (unchecked).
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const noexcept {
    return owners_[point_index_for_hash(h)];
  }

  /// The first `n` distinct nodes met walking clockwise from `key`'s
  /// position: the owner first, then the replicas (Dynamo's preference
  /// list). Fewer than n if the ring has fewer nodes. Throws
  /// std::invalid_argument if n is 0 or the ring is empty.
  [[nodiscard]] std::vector<std::string> nodes_for(std::string_view key, std::size_t n) const;

  /// nodes_for for a hash value.
  [[nodiscard]] std::vector<std::string> nodes_for_hash(std::uint64_t h, std::size_t n) const;

  /// The nodes, in the order they were added (for ketama, the server order).
  [[nodiscard]] const std::vector<ring_node>& nodes() const noexcept { return nodes_; }

  /// The index in nodes() of the node with that name, or nothing.
  [[nodiscard]] std::optional<std::uint32_t> find_node(std::string_view name) const noexcept;

  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }
  [[nodiscard]] std::size_t point_count() const noexcept { return positions_.size(); }
  [[nodiscard]] bool empty() const noexcept { return nodes_.empty(); }

  /// The largest hash value of the ring's space: 2^64 - 1 (native) or
  /// 2^32 - 1 (ketama).
  [[nodiscard]] std::uint64_t space_max() const noexcept;

  /// The point positions in ascending order, and in parallel the index in
  /// nodes() of each point's node.
  [[nodiscard]] std::span<const std::uint64_t> positions() const noexcept { return positions_; }
  [[nodiscard]] std::span<const std::uint32_t> point_owners() const noexcept { return owners_; }

  /// Bytes owned by the ring: the point arrays, the lookup index and the
  /// node records.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

  /// Bytes of the lookup structures alone (positions, owners, index).
  [[nodiscard]] std::size_t lookup_bytes() const noexcept;

 private:
  // The index of the first point with position >= h, wrapping to 0.
  [[nodiscard]] std::size_t point_index_for_hash(std::uint64_t h) const noexcept {
    const std::uint64_t bucket = h >> shift_;
    if (bucket >= bucket_count_) return 0;  // only ketama: h beyond 2^32
    std::uint32_t lo = index_[bucket];
    const std::uint32_t hi = index_[bucket + 1];
    // The answer lies in [lo, hi]: index_[b] is the first point of bucket b
    // or later. Buckets hold about one point, so a linear scan wins.
    while (lo < hi && positions_[lo] < h) ++lo;
    return lo == positions_.size() ? 0 : lo;
  }

  void rebuild_ketama(std::vector<ring_node> nodes);

  ring_options options_;
  std::vector<ring_node> nodes_;
  std::vector<std::uint64_t> positions_;
  std::vector<std::uint32_t> owners_;
  // index_[b] = the first point whose position >> shift_ >= b, for
  // b in [0, bucket_count_]; index_[bucket_count_] = point_count().
  std::vector<std::uint32_t> index_;
  std::uint64_t bucket_count_ = 0;
  int shift_ = 63;
};

/// A share of something per node, in the order of the ring's nodes().
struct node_share {
  std::string node;
  double share = 0.0;
};

/// The fraction of the hash space each node owns (sums to 1). Empty for an
/// empty ring.
[[nodiscard]] std::vector<node_share> ownership(const hash_ring& ring);

/// How a set of keys spreads over a ring's nodes.
struct load_report {
  std::uint64_t keys = 0;
  /// Keys per node, in the order of the ring's nodes().
  std::vector<std::uint64_t> counts;
  /// counts / keys, per node.
  std::vector<node_share> shares;
  /// The largest count over the average count (1 is perfect balance).
  double peak_to_average = 0.0;
  /// The largest share minus the smallest (0 is perfect balance).
  double max_minus_min = 0.0;
};

/// Counts keys per node of a ring, one key at a time (so that key sets need
/// not be held in memory). The ring must outlive the tally and stay
/// unmodified.
class load_tally {
 public:
  /// Throws std::invalid_argument if the ring is empty.
  explicit load_tally(const hash_ring& ring);
  void add(std::string_view key) { add_hash(ring_->key_hash(key)); }
  void add_hash(std::uint64_t h) noexcept {
    ++counts_[ring_->node_index_for_hash(h)];
    ++keys_;
  }
  [[nodiscard]] load_report report() const;

 private:
  const hash_ring* ring_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t keys_ = 0;
};

/// The load of `keys` on `ring`. Throws std::invalid_argument if the ring is
/// empty.
[[nodiscard]] load_report load(const hash_ring& ring, std::span<const std::string> keys);

/// `hash % N` placement, for comparison: key k goes to nodes[hash(k) % N],
/// with the same hash as a ring (a ketama ring's 32-bit MD5 key hash, or
/// hash64(kind, key)).
class modulo_placement {
 public:
  /// Throws std::invalid_argument if `nodes` is empty.
  modulo_placement(std::vector<std::string> nodes, hash_kind hash);
  /// The node names of `ring`, in its order, with its key hash.
  explicit modulo_placement(const hash_ring& ring);

  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const noexcept;
  [[nodiscard]] const std::string& node_for(std::string_view key) const noexcept {
    return nodes_[key_hash(key) % nodes_.size()];
  }
  [[nodiscard]] const std::vector<std::string>& nodes() const noexcept { return nodes_; }

 private:
  std::vector<std::string> nodes_;
  hash_kind hash_;
  bool ketama_ = false;
};

/// Anything that places a key on a named node: hash_ring, modulo_placement.
template <class T>
concept key_placement = requires(const T& p, std::string_view key) {
  { p.node_for(key) } -> std::convertible_to<const std::string&>;
};

/// How a set of keys moved between two placements.
struct key_movement {
  std::uint64_t keys = 0;
  std::uint64_t moved = 0;
  /// moved / keys (0 when there are no keys).
  [[nodiscard]] double moved_fraction() const noexcept {
    return keys == 0 ? 0.0 : static_cast<double>(moved) / static_cast<double>(keys);
  }
  /// Moved keys by the node they moved to, and by the node they left.
  std::map<std::string, std::uint64_t> moved_to;
  std::map<std::string, std::uint64_t> moved_from;
};

/// Compares two placements one key at a time. Both must outlive the tally.
template <key_placement Before, key_placement After>
class movement_tally {
 public:
  movement_tally(const Before& before, const After& after) : before_(&before), after_(&after) {}

  /// Places `key` on both; throws what node_for throws (an empty ring).
  void add(std::string_view key) {
    const std::string& from = before_->node_for(key);
    const std::string& to = after_->node_for(key);
    ++result_.keys;
    if (from != to) {
      ++result_.moved;
      ++result_.moved_to[to];
      ++result_.moved_from[from];
    }
  }

  [[nodiscard]] const key_movement& result() const noexcept { return result_; }

 private:
  const Before* before_;
  const After* after_;
  key_movement result_;
};

/// How `keys` move from `before` to `after`.
template <key_placement Before, key_placement After>
[[nodiscard]] key_movement count_moved(const Before& before, const After& after,
                                       std::span<const std::string> keys) {
  movement_tally<Before, After> tally(before, after);
  for (const std::string& key : keys) tally.add(key);
  return tally.result();
}

/// A run of hash values [first, last] (both inclusive, first <= last) whose
/// owner changes from `from` to `to`.
struct moved_range {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::string from;
  std::string to;
  friend bool operator==(const moved_range&, const moved_range&) = default;
};

/// What changes between two rings over the same hash space.
struct movement_plan {
  /// The ranges that change owner, ascending, adjacent ranges with the same
  /// from and to merged. A range never wraps: one crossing the top of the
  /// space is split in two.
  std::vector<moved_range> ranges;
  /// The fraction of the hash space in those ranges.
  double moved_fraction = 0.0;
};

/// The movement plan from `before` to `after`. Throws std::invalid_argument
/// if either ring is empty or they differ in scheme or hash (then the same
/// key has different hashes and ranges mean nothing).
[[nodiscard]] movement_plan plan_movement(const hash_ring& before, const hash_ring& after);

}  // namespace ringbloom
