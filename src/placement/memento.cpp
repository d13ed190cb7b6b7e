// MementoHash: Coluzzi et al., arXiv:2306.09783 (lookup, remove, add as in
// the paper's algorithms; the replacement set kept as a dense array).
#include "ringbloom/placement/memento.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"

namespace ringbloom {

namespace {
constexpr std::string_view kind = "memento";
constexpr std::size_t max_buckets = std::size_t{1} << 31;
}  // namespace

memento_placement::memento_placement(std::span<const placement_node> nodes) {
  detail::check_nodes(kind, nodes, false);
  if (nodes.size() >= max_buckets) {
    throw std::invalid_argument("memento: more than 2^31 nodes; give fewer nodes");
  }
  size_ = static_cast<std::uint32_t>(nodes.size());
  last_removed_ = size_;
  replacer_.assign(size_, not_removed);
  prev_removed_.assign(size_, 0);
  for (std::uint32_t i = 0; i < size_; ++i) {
    names_.push_back(nodes[i].name);
    buckets_.push_back(i);
    index_of_bucket_.push_back(i);
  }
}

std::uint64_t memento_placement::key_hash(std::string_view key) const { return xxh3_64(key); }

const std::string& memento_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

void memento_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, false);
  names_.reserve(names_.size() + 1);
  buckets_.reserve(buckets_.size() + 1);
  std::uint32_t b = 0;
  if (last_removed_ == size_) {
    // Nothing removed: grow the bucket array, as the jump function does.
    b = size_;
    replacer_.push_back(not_removed);
    prev_removed_.push_back(0);
    index_of_bucket_.push_back(0);
    ++size_;
    last_removed_ = size_;
  } else {
    // Restore the most recently removed bucket.
    b = last_removed_;
    last_removed_ = prev_removed_[b];
    replacer_[b] = not_removed;
  }
  index_of_bucket_[b] = static_cast<std::uint32_t>(names_.size());
  names_.push_back(node.name);
  buckets_.push_back(b);
}

void memento_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  const std::uint32_t b = buckets_[i];
  const auto working = static_cast<std::uint32_t>(names_.size());
  if (last_removed_ == size_ && b == size_ - 1) {
    // The last bucket with nothing removed: shrink, as the jump function does.
    --size_;
    last_removed_ = size_;
    replacer_.pop_back();
    prev_removed_.pop_back();
    index_of_bucket_.pop_back();
  } else {
    replacer_[b] = working - 1;
    prev_removed_[b] = last_removed_;
    last_removed_ = b;
  }
  const auto moved = static_cast<std::uint32_t>(names_.size() - 1);
  if (i != moved) {
    names_[i] = std::move(names_[moved]);
    buckets_[i] = buckets_[moved];
    index_of_bucket_[buckets_[i]] = i;
  }
  names_.pop_back();
  buckets_.pop_back();
}

std::size_t memento_placement::memory_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const auto* v : {&replacer_, &prev_removed_, &index_of_bucket_, &buckets_})
    bytes += v->capacity() * sizeof(std::uint32_t);
  return bytes;
}

unsigned memento_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any);
}

std::unique_ptr<placement> memento_placement::clone() const {
  return std::make_unique<memento_placement>(*this);
}

// Expected: every working bucket is equally likely (the algorithm's
// guarantee for random key hashes).
std::optional<placement_ownership> memento_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation, detail::equal_shares(names_.size())};
}

}  // namespace ringbloom
