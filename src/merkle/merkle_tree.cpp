// The Merkle tree over hash ranges (include/ringbloom/merkle/merkle_tree.hpp).
#include "ringbloom/merkle/merkle_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ringbloom {

namespace {

void put_u64le(char* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

void check_options(const merkle_options& options) {
  if (options.depth < merkle_tree::min_depth || options.depth > merkle_tree::max_depth) {
    throw std::invalid_argument(fmt::format(
        "a Merkle tree depth must be between {} and {} (2^depth leaves), not {}; give a depth "
        "in that range",
        merkle_tree::min_depth, merkle_tree::max_depth, options.depth));
  }
  if (options.row_hash != row_hash_kind::xxh3_128) {
    throw std::invalid_argument("the only row hash is xxh3-128; use it");
  }
  if (!ranges_normalized(options.ranges)) {
    throw std::invalid_argument(
        "the ranges of a Merkle tree must be sorted, disjoint and not adjacent; pass them "
        "through normalize_ranges");
  }
}

}  // namespace

std::string_view row_hash_name(row_hash_kind kind) noexcept {
  switch (kind) {
    case row_hash_kind::xxh3_128:
      return "xxh3-128";
  }
  return "unknown";
}

namespace {

// The row digest into a caller's buffer, so that a builder reuses one.
hash128 row_digest_with(std::string& buffer, std::string_view key, std::string_view value) {
  buffer.resize(8 + key.size() + value.size());
  put_u64le(buffer.data(), key.size());
  if (!key.empty()) std::memcpy(buffer.data() + 8, key.data(), key.size());
  if (!value.empty()) std::memcpy(buffer.data() + 8 + key.size(), value.data(), value.size());
  return xxh3_128(buffer);
}

}  // namespace

hash128 row_digest(std::string_view key, std::string_view value) noexcept {
  std::string buffer;
  return row_digest_with(buffer, key, value);
}

hash128 digest_add(hash128 a, hash128 b) noexcept {
  const std::uint64_t low = a.low + b.low;
  const std::uint64_t carry = low < a.low ? 1 : 0;
  return {low, a.high + b.high + carry};
}

hash128 digest_sub(hash128 a, hash128 b) noexcept {
  const std::uint64_t low = a.low - b.low;
  const std::uint64_t borrow = a.low < b.low ? 1 : 0;
  return {low, a.high - b.high - borrow};
}

hash128 inner_digest(hash128 left, hash128 right) noexcept {
  std::array<char, 32> bytes{};
  put_u64le(bytes.data(), left.low);
  put_u64le(bytes.data() + 8, left.high);
  put_u64le(bytes.data() + 16, right.low);
  put_u64le(bytes.data() + 24, right.high);
  return xxh3_128(std::string_view(bytes.data(), bytes.size()));
}

std::string digest_hex(hash128 digest) {
  return fmt::format("{:016x}{:016x}", digest.high, digest.low);
}

// --- merkle_tree -----------------------------------------------------------------

merkle_tree::merkle_tree(merkle_options options) : options_(std::move(options)) {
  check_options(options_);
  counts_.assign(leaf_count(), 0);
  nodes_.assign(2 * leaf_count() - 1, hash128{});
  rehash_all();
}

merkle_tree merkle_tree::from_leaves(merkle_options options, std::vector<merkle_leaf> leaves) {
  merkle_tree tree(std::move(options));
  if (leaves.size() != tree.leaf_count()) {
    throw std::invalid_argument(fmt::format("a tree of depth {} has {} leaves, not {}",
                                            tree.depth(), tree.leaf_count(), leaves.size()));
  }
  const std::uint64_t first_leaf = tree.leaf_count() - 1;
  std::uint64_t rows = 0;
  for (std::uint64_t i = 0; i < leaves.size(); ++i) {
    const merkle_leaf& leaf = leaves[i];
    if (leaf.rows == 0 && leaf.sum != hash128{}) {
      throw std::invalid_argument(fmt::format("leaf {} has no rows but a non-zero digest", i));
    }
    if (leaf.rows != 0 && !tree.options_.ranges.empty() &&
        !ranges_overlap(tree.options_.ranges, tree.leaf_range(i))) {
      throw std::invalid_argument(
          fmt::format("leaf {} lies outside the tree's ranges but holds {} rows", i, leaf.rows));
    }
    if (leaf.rows > std::numeric_limits<std::uint64_t>::max() - rows) {
      throw std::invalid_argument("the leaves hold more than 2^64 - 1 rows in all");
    }
    rows += leaf.rows;
    tree.counts_[i] = leaf.rows;
    tree.nodes_[first_leaf + i] = leaf.sum;
  }
  tree.rows_ = rows;
  tree.rehash_all();
  return tree;
}

std::uint64_t merkle_tree::key_position(std::string_view key) const noexcept {
  return hash64(options_.key_hash, key);
}

hash_range merkle_tree::leaf_range(std::uint64_t leaf) const noexcept {
  const unsigned shift = 64 - depth();
  const std::uint64_t first = leaf << shift;
  return {first, first + ((std::uint64_t{1} << shift) - 1)};
}

bool merkle_tree::covers(std::uint64_t position) const noexcept {
  return options_.ranges.empty() || ranges_contain(options_.ranges, position);
}

void merkle_tree::rehash_all() noexcept {
  for (unsigned level = depth(); level-- > 0;) {
    const std::uint64_t base = (std::uint64_t{1} << level) - 1;
    const std::uint64_t child_base = (std::uint64_t{1} << (level + 1)) - 1;
    for (std::uint64_t i = 0; i < (std::uint64_t{1} << level); ++i) {
      nodes_[base + i] = inner_digest(nodes_[child_base + 2 * i], nodes_[child_base + 2 * i + 1]);
    }
  }
}

void merkle_tree::apply(std::uint64_t leaf, hash128 plus, hash128 minus, std::int64_t delta_rows) {
  std::uint64_t& count = counts_[leaf];
  if (delta_rows < 0 && count == 0) {
    throw std::invalid_argument(fmt::format(
        "cannot remove a row from leaf {}: it holds no rows; remove only rows that were added",
        leaf));
  }
  if (delta_rows > 0 && count == std::numeric_limits<std::uint64_t>::max()) {
    throw std::overflow_error(fmt::format("leaf {} already holds 2^64 - 1 rows", leaf));
  }
  count = static_cast<std::uint64_t>(static_cast<std::int64_t>(count) + delta_rows);
  rows_ = static_cast<std::uint64_t>(static_cast<std::int64_t>(rows_) + delta_rows);
  std::uint64_t index = leaf_count() - 1 + leaf;
  nodes_[index] = digest_sub(digest_add(nodes_[index], plus), minus);
  if (count == 0) nodes_[index] = hash128{};  // exact even if a wrong row was removed
  while (index > 0) {
    index = (index - 1) / 2;
    nodes_[index] = inner_digest(nodes_[2 * index + 1], nodes_[2 * index + 2]);
  }
}

bool merkle_tree::add(std::string_view key, std::string_view value) {
  const std::uint64_t position = key_position(key);
  if (!covers(position)) return false;
  apply(leaf_of(position), row_digest(key, value), hash128{}, 1);
  return true;
}

bool merkle_tree::remove(std::string_view key, std::string_view value) {
  const std::uint64_t position = key_position(key);
  if (!covers(position)) return false;
  apply(leaf_of(position), hash128{}, row_digest(key, value), -1);
  return true;
}

bool merkle_tree::update(std::string_view key, std::string_view old_value,
                         std::string_view new_value) {
  const std::uint64_t position = key_position(key);
  if (!covers(position)) return false;
  const std::uint64_t leaf = leaf_of(position);
  if (counts_[leaf] == 0) {
    throw std::invalid_argument(
        fmt::format("cannot update a row in leaf {}: it holds no rows; add the row first", leaf));
  }
  apply(leaf, row_digest(key, new_value), row_digest(key, old_value), 0);
  return true;
}

std::vector<merkle_leaf> merkle_tree::leaves() const {
  std::vector<merkle_leaf> out(leaf_count());
  for (std::uint64_t i = 0; i < out.size(); ++i) out[i] = leaf(i);
  return out;
}

merkle_tree merkle_tree::coarsened(unsigned new_depth) const {
  if (new_depth < min_depth || new_depth > depth()) {
    throw std::invalid_argument(
        fmt::format("a tree of depth {} can be coarsened to a depth between {} and {}, not {}",
                    depth(), min_depth, depth(), new_depth));
  }
  merkle_options options = options_;
  options.depth = new_depth;
  merkle_tree out(std::move(options));
  const unsigned group = depth() - new_depth;
  for (std::uint64_t i = 0; i < leaf_count(); ++i) {
    const std::uint64_t target = i >> group;
    const std::uint64_t index = out.leaf_count() - 1 + target;
    out.nodes_[index] = digest_add(out.nodes_[index], node(depth(), i));
    out.counts_[target] += counts_[i];
  }
  out.rows_ = rows_;
  out.rehash_all();
  return out;
}

std::size_t merkle_tree::memory_bytes() const noexcept {
  return sizeof(*this) + counts_.capacity() * sizeof(std::uint64_t) +
         nodes_.capacity() * sizeof(hash128) + options_.ranges.capacity() * sizeof(hash_range);
}

// --- merkle_builder --------------------------------------------------------------

merkle_builder::merkle_builder(merkle_options options) : tree_(std::move(options)) {}

bool merkle_builder::add(std::string_view key, std::string_view value) {
  const std::uint64_t position = tree_.key_position(key);
  if (!tree_.covers(position)) return false;
  const std::uint64_t leaf = tree_.leaf_of(position);
  std::uint64_t& count = tree_.counts_[leaf];
  if (count == std::numeric_limits<std::uint64_t>::max()) {
    throw std::overflow_error(fmt::format("leaf {} already holds 2^64 - 1 rows", leaf));
  }
  ++count;
  ++tree_.rows_;
  hash128& sum = tree_.nodes_[tree_.leaf_count() - 1 + leaf];
  sum = digest_add(sum, row_digest_with(buffer_, key, value));
  return true;
}

merkle_tree merkle_builder::finish() {
  tree_.rehash_all();
  merkle_tree out = std::move(tree_);
  tree_ = merkle_tree(out.options());
  return out;
}

// --- diff ------------------------------------------------------------------------

namespace {

void check_comparable(const merkle_tree& a, const merkle_tree& b) {
  const merkle_options& x = a.options();
  const merkle_options& y = b.options();
  if (x.depth != y.depth) {
    throw std::invalid_argument(
        fmt::format("cannot compare trees of depth {} and {}; build both with the same depth",
                    x.depth, y.depth));
  }
  if (x.key_hash != y.key_hash) {
    throw std::invalid_argument(fmt::format(
        "cannot compare trees whose keys are hashed with {} and {}; build both with the same "
        "key hash",
        hash_name(x.key_hash), hash_name(y.key_hash)));
  }
  if (x.row_hash != y.row_hash) {
    throw std::invalid_argument(
        "cannot compare trees with different row hashes; build both with the same row hash");
  }
  if (x.ranges != y.ranges) {
    throw std::invalid_argument(
        "cannot compare trees limited to different hash ranges; limit both to the ranges the "
        "two replicas share");
  }
}

// The key hashes under node (level, index).
hash_range node_range(unsigned level, std::uint64_t index) noexcept {
  if (level == 0) return {0, ~std::uint64_t{0}};
  const unsigned shift = 64 - level;
  const std::uint64_t first = index << shift;
  return {first, first + ((std::uint64_t{1} << shift) - 1)};
}

}  // namespace

merkle_diff diff(const merkle_tree& a, const merkle_tree& b) {
  check_comparable(a, b);
  const std::vector<hash_range>& limit = a.options().ranges;
  const auto relevant = [&](unsigned level, std::uint64_t index) {
    return limit.empty() || ranges_overlap(limit, node_range(level, index));
  };
  merkle_diff out;
  // Breadth-first, level by level, as two replicas would exchange them: the
  // indexes of this level's nodes that differ.
  std::vector<std::uint64_t> differing;
  if (relevant(0, 0)) {
    out.digests_exchanged = 1;
    if (a.root() != b.root()) differing.push_back(0);
  }
  for (unsigned level = 0; level < a.depth() && !differing.empty(); ++level) {
    std::vector<std::uint64_t> next;
    for (const std::uint64_t index : differing) {
      for (const std::uint64_t child : {2 * index, 2 * index + 1}) {
        if (!relevant(level + 1, child)) continue;
        ++out.digests_exchanged;
        if (a.node(level + 1, child) != b.node(level + 1, child)) next.push_back(child);
      }
    }
    differing = std::move(next);
  }
  out.leaves = std::move(differing);
  std::vector<hash_range> ranges;
  for (const std::uint64_t leaf : out.leaves) {
    out.rows_a += a.leaf(leaf).rows;
    out.rows_b += b.leaf(leaf).rows;
    ranges.push_back(a.leaf_range(leaf));
  }
  out.ranges = normalize_ranges(std::move(ranges));
  if (!limit.empty()) out.ranges = intersect_ranges(out.ranges, limit);
  return out;
}

}  // namespace ringbloom
