// ringbloom/merkle/merkle_tree.hpp: a Merkle tree over a key-value set
// partitioned by hash range, to find where two replicas differ with few
// comparisons (anti-entropy, as Cassandra's repair, Dynamo and Riak do).
//
// What it is. The 64-bit space of key hashes is cut into 2^depth equal
// ranges, the leaves: leaf i of a depth-D tree covers the key hashes
// [i * 2^(64-D), (i+1) * 2^(64-D) - 1], so a key's leaf is its hash's top D
// bits. The key hash is hash64(key_hash, key), xxh3 by default: the native
// ring's key_hash, so leaves and ring ranges live in one space. A leaf holds
// the digest of its rows and their count; an inner node holds the hash of its
// two children. Two replicas compare their roots, then the children of every
// node that differs, down to the leaves: for d differences in distinct leaves
// about 2 d D digests are compared instead of one per row.
//
// The digests, and why (the math of this header, in one place):
//   row digest   XXH3-128 of  u64le(key length) || key || value. The length
//                prefix keeps ("ab", "c") and ("a", "bc") apart.
//   leaf digest  the SUM modulo 2^128 of its rows' digests (a multiset hash,
//                AdHash of Bellare and Micciancio, 1997). The sum does not
//                depend on the order rows arrived in, so two replicas that
//                received the same writes in different orders agree; it is
//                updated in O(1) by adding or subtracting one row digest; and
//                the leaves of a coarser tree are sums of finer ones
//                (coarsened()). Cassandra XORs partition digests instead; XOR
//                has the same properties but a row present twice cancels out
//                (h ^ h = 0), so a replica holding a row twice would look like
//                one holding it never. A sum counts it twice.
//   inner digest XXH3-128 of  left digest || right digest  (each as u64le
//                low, u64le high): position-binding, unlike a sum or XOR.
// Collision probability. Modelling row digests as independent uniform
// 128-bit values, two leaves whose row multisets differ get equal sums with
// probability 2^-128 when some row's multiplicity differs by an odd number
// (a difference of c = 2^v * odd rows gives 2^-(128 - v)): for a million
// leaves compared a day, a missed difference is expected once in ~10^26
// years. Inner digests add a 128-bit hash collision, also ~2^-128 per node.
// This protects against accidental divergence only: XXH3 is not a
// cryptographic hash and sums of 128-bit values can be forced by a
// generalised-birthday attack (Wagner, 2002); do not use it against an
// adversary who chooses rows.
//
// Rows and duplicates. The tree stores digests, not rows: remove() and
// update() take the old value from the caller (the store knows it). A tree is
// the digest of a MULTISET of rows: adding a row twice counts it twice (and a
// diff then reports the leaf). A key is expected once per replica; the row
// comparison (row_collector) refuses a key seen twice in a rescanned range.
//
// Limiting to a ring. A tree may cover only some hash ranges (the ranges a
// node owns with its replicas on a ring, owned_ranges() in merkle_ranges.hpp):
// rows whose key hash lies outside are ignored, and a diff neither compares
// nor counts nodes outside them. Two trees are comparable only with the same
// depth, key hash and ranges.
//
// Guarantees. Deterministic on every platform: the same rows (in any order)
// give the same digests, forever (golden tests pin them; a change bumps the
// file version). Const methods never modify and may run concurrently; a
// modifying call is O(depth) hashes and either succeeds or throws and leaves
// the tree unchanged. Memory: 16 bytes per node and 8 per leaf, about
// 40 * 2^depth bytes (depth 16: 2.6 MB; depth 20: 42 MB).
//
// Example:
//
//   #include <ringbloom/merkle/merkle_tree.hpp>
//   ringbloom::merkle_tree a({.depth = 12}), b({.depth = 12});
//   a.add("user:1", "anna");  b.add("user:1", "anna");
//   b.add("user:2", "bora");
//   ringbloom::merkle_diff d = ringbloom::diff(a, b);   // d.leaves: one leaf
//   a.add("user:2", "bora");                            // now diff(a, b) is empty
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/merkle/merkle_ranges.hpp"

namespace ringbloom {

/// The hash of rows, as written in tree files. Only one so far; the numeric
/// value is part of the format.
enum class row_hash_kind : std::uint8_t {
  xxh3_128 = 1,
};

/// The stable name of a row hash ("xxh3-128").
[[nodiscard]] std::string_view row_hash_name(row_hash_kind kind) noexcept;

/// The digest of one row: XXH3-128(u64le(key.size()) || key || value).
[[nodiscard]] hash128 row_digest(std::string_view key, std::string_view value) noexcept;

/// a + b and a - b modulo 2^128 (the leaf combination).
[[nodiscard]] hash128 digest_add(hash128 a, hash128 b) noexcept;
[[nodiscard]] hash128 digest_sub(hash128 a, hash128 b) noexcept;

/// The digest of an inner node: XXH3-128(left.low, left.high, right.low,
/// right.high as 32 little-endian bytes).
[[nodiscard]] hash128 inner_digest(hash128 left, hash128 right) noexcept;

/// A digest as 32 hex digits, high half first (how `merkle info` prints it).
[[nodiscard]] std::string digest_hex(hash128 digest);

/// How a tree partitions and hashes.
struct merkle_options {
  /// Leaves are 2^depth equal hash ranges, depth in [min_depth, max_depth].
  unsigned depth = 16;
  /// The hash placing keys in the 64-bit space; for a tree limited to a
  /// ring's ranges, the ring's own hash.
  hash_kind key_hash = default_hash;
  row_hash_kind row_hash = row_hash_kind::xxh3_128;
  /// The key-hash ranges the tree covers, sorted, disjoint and not adjacent
  /// (normalize_ranges); empty means the whole space.
  std::vector<hash_range> ranges{};

  friend bool operator==(const merkle_options&, const merkle_options&) = default;
};

/// One leaf: the sum of its rows' digests and their count.
struct merkle_leaf {
  hash128 sum;
  std::uint64_t rows = 0;
  friend bool operator==(const merkle_leaf&, const merkle_leaf&) = default;
};

/// A Merkle tree over hash ranges. See the header comment.
class merkle_tree {
 public:
  static constexpr unsigned min_depth = 1;
  /// 2^22 leaves: 168 MB of tree, the largest a file may hold.
  static constexpr unsigned max_depth = 22;

  /// An empty tree. Throws std::invalid_argument if the depth is out of
  /// range or the ranges are not normalized.
  explicit merkle_tree(merkle_options options = {});

  /// A tree from its leaves (as a file stores them), inner digests computed
  /// in O(2^depth). Throws std::invalid_argument if `leaves` does not hold
  /// 2^depth entries, a leaf outside the ranges is not empty, or a leaf
  /// with no rows has a non-zero sum.
  [[nodiscard]] static merkle_tree from_leaves(merkle_options options,
                                               std::vector<merkle_leaf> leaves);

  [[nodiscard]] const merkle_options& options() const noexcept { return options_; }
  [[nodiscard]] unsigned depth() const noexcept { return options_.depth; }
  [[nodiscard]] std::uint64_t leaf_count() const noexcept { return std::uint64_t{1} << depth(); }
  /// Rows digested (added minus removed).
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }

  /// The key's position in the 64-bit space: hash64(options().key_hash, key).
  [[nodiscard]] std::uint64_t key_position(std::string_view key) const noexcept;
  /// The leaf of a position: its top depth() bits.
  [[nodiscard]] std::uint64_t leaf_of(std::uint64_t position) const noexcept {
    return position >> (64 - depth());
  }
  /// The key-hash range leaf i covers (before any ring limit).
  [[nodiscard]] hash_range leaf_range(std::uint64_t leaf) const noexcept;
  /// Whether the tree digests keys at this position (inside its ranges).
  [[nodiscard]] bool covers(std::uint64_t position) const noexcept;

  /// Adds a row: O(depth). A key outside the ranges is ignored (returns
  /// false). Throws std::overflow_error if the leaf holds 2^64 - 1 rows.
  bool add(std::string_view key, std::string_view value);
  /// Removes a row given with the value it had. Throws std::invalid_argument
  /// (tree unchanged) if its leaf has no rows; a row that was never added
  /// cannot be detected otherwise, and leaves the tree wrong.
  bool remove(std::string_view key, std::string_view value);
  /// Replaces a row's value: remove(key, old_value) then add(key, new_value)
  /// with one walk up the tree.
  bool update(std::string_view key, std::string_view old_value, std::string_view new_value);

  /// The node at `level` (0 the root, depth() the leaves) and `index` (0 at
  /// the low end of the space). Precondition: index < 2^level (unchecked).
  [[nodiscard]] hash128 node(unsigned level, std::uint64_t index) const noexcept {
    return nodes_[(std::uint64_t{1} << level) - 1 + index];
  }
  [[nodiscard]] hash128 root() const noexcept { return nodes_[0]; }
  [[nodiscard]] merkle_leaf leaf(std::uint64_t index) const noexcept {
    return {node(depth(), index), counts_[index]};
  }
  /// All leaves, low to high (what a file stores).
  [[nodiscard]] std::vector<merkle_leaf> leaves() const;

  /// The same rows in a tree of depth `depth` <= this depth: each leaf is the
  /// sum of the 2^(this depth - depth) leaves under it, exactly what
  /// building at that depth gives. Throws std::invalid_argument otherwise.
  [[nodiscard]] merkle_tree coarsened(unsigned depth) const;

  /// Bytes owned by the tree.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

  friend bool operator==(const merkle_tree& a, const merkle_tree& b) noexcept {
    return a.options_ == b.options_ && a.rows_ == b.rows_ && a.counts_ == b.counts_ &&
           a.nodes_ == b.nodes_;
  }

 private:
  friend class merkle_builder;
  void apply(std::uint64_t leaf, hash128 plus, hash128 minus, std::int64_t delta_rows);
  void rehash_all() noexcept;

  merkle_options options_;
  std::uint64_t rows_ = 0;
  std::vector<std::uint64_t> counts_;  // rows per leaf
  std::vector<hash128> nodes_;         // heap order: level l, index i at 2^l - 1 + i
};

/// Builds a tree from many rows fast: add() updates only the leaf (no walk
/// up); finish() computes the inner digests once. The result equals adding
/// each row to a merkle_tree.
class merkle_builder {
 public:
  /// Throws what merkle_tree's constructor throws.
  explicit merkle_builder(merkle_options options = {});
  /// Adds a row; a key outside the ranges is ignored (returns false).
  bool add(std::string_view key, std::string_view value);
  /// The tree; the builder is left empty.
  [[nodiscard]] merkle_tree finish();

 private:
  merkle_tree tree_;
  std::string buffer_;
};

/// Where two trees differ.
struct merkle_diff {
  /// The differing leaves, ascending.
  std::vector<std::uint64_t> leaves;
  /// Their key-hash ranges, adjacent leaves merged and cut to the trees'
  /// ranges: where the rows must be compared.
  std::vector<hash_range> ranges{};
  /// Digests compared top-down: 1 for the root, then 2 for each differing
  /// inner node (its children), skipping nodes outside the trees' ranges.
  /// About 2 d depth for d differences in distinct leaves. One replica
  /// sends these digests to the other.
  std::uint64_t digests_exchanged = 0;
  /// Rows in the differing leaves, on each side: the rows a row comparison
  /// must read (or send).
  std::uint64_t rows_a = 0;
  std::uint64_t rows_b = 0;
  [[nodiscard]] bool empty() const noexcept { return leaves.empty(); }
};

/// Compares two trees top-down. Throws std::invalid_argument (saying what
/// differs) unless both have the same depth, key hash, row hash and ranges.
[[nodiscard]] merkle_diff diff(const merkle_tree& a, const merkle_tree& b);

}  // namespace ringbloom
