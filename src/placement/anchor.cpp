// AnchorHash: Mendelson et al., arXiv:1812.09674, Algorithm 3 (INITANCHOR,
// GETBUCKET, ADDBUCKET, REMOVEBUCKET), with names kept beside the buckets.
#include "ringbloom/placement/anchor.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"

namespace ringbloom {

namespace {
constexpr std::string_view kind = "anchor";
constexpr std::uint32_t max_capacity = 1u << 26;
}  // namespace

anchor_placement::anchor_placement(std::span<const placement_node> nodes, anchor_options options) {
  detail::check_nodes(kind, nodes, false);
  const std::size_t wanted =
      options.capacity != 0 ? options.capacity : std::max<std::size_t>(2 * nodes.size(), 16);
  if (wanted > max_capacity || wanted < nodes.size()) {
    throw std::invalid_argument(fmt::format(
        "anchor: capacity {} cannot hold {} nodes (at most 2^26 buckets); give a capacity "
        "between the node count and 2^26",
        wanted, nodes.size()));
  }
  capacity_ = static_cast<std::uint32_t>(wanted);
  working_ = static_cast<std::uint32_t>(nodes.size());
  // INITANCHOR(a, w): all buckets working, then the unused ones removed from
  // the top down, each with A[b] = b.
  removed_at_.assign(capacity_, 0);
  successor_.resize(capacity_);
  working_set_.resize(capacity_);
  location_.resize(capacity_);
  std::iota(successor_.begin(), successor_.end(), 0u);
  std::iota(working_set_.begin(), working_set_.end(), 0u);
  std::iota(location_.begin(), location_.end(), 0u);
  for (std::uint32_t b = capacity_; b-- > working_;) {
    removed_stack_.push_back(b);
    removed_at_[b] = b;
  }
  index_of_bucket_.assign(capacity_, 0);
  for (std::uint32_t i = 0; i < working_; ++i) {
    names_.push_back(nodes[i].name);
    buckets_.push_back(i);
    index_of_bucket_[i] = i;
  }
}

std::uint64_t anchor_placement::key_hash(std::string_view key) const { return xxh3_64(key); }

const std::string& anchor_placement::node_name(std::uint32_t index) const {
  return names_.at(index);
}

// ADDBUCKET: the most recently removed bucket comes back, and the bucket
// that took its place in W returns to the end of the working set.
void anchor_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, false);
  if (removed_stack_.empty()) {
    throw std::invalid_argument(fmt::format(
        "anchor: all {} buckets hold nodes, so '{}' cannot be added; build the anchor with a "
        "larger capacity",
        capacity_, node.name));
  }
  names_.reserve(names_.size() + 1);
  buckets_.reserve(buckets_.size() + 1);
  const std::uint32_t b = removed_stack_.back();
  removed_stack_.pop_back();
  removed_at_[b] = 0;
  location_[working_set_[working_]] = working_;
  working_set_[location_[b]] = b;
  successor_[b] = b;
  ++working_;
  index_of_bucket_[b] = static_cast<std::uint32_t>(names_.size());
  names_.push_back(node.name);
  buckets_.push_back(b);
}

// REMOVEBUCKET: b records the working count after its removal, and the last
// working bucket takes b's place in W (and becomes b's successor).
void anchor_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  removed_stack_.reserve(removed_stack_.size() + 1);
  const std::uint32_t b = buckets_[i];
  removed_stack_.push_back(b);
  --working_;
  removed_at_[b] = working_;
  const std::uint32_t last = working_set_[working_];
  working_set_[location_[b]] = last;
  successor_[b] = last;
  location_[last] = location_[b];
  // The node list stays dense: the last node takes index i.
  const std::uint32_t moved = static_cast<std::uint32_t>(names_.size() - 1);
  if (i != moved) {
    names_[i] = std::move(names_[moved]);
    buckets_[i] = buckets_[moved];
    index_of_bucket_[buckets_[i]] = i;
  }
  names_.pop_back();
  buckets_.pop_back();
}

std::size_t anchor_placement::memory_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const auto* v : {&removed_at_, &successor_, &working_set_, &location_, &removed_stack_,
                        &index_of_bucket_, &buckets_})
    bytes += v->capacity() * sizeof(std::uint32_t);
  return bytes;
}

unsigned anchor_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_any);
}

std::unique_ptr<placement> anchor_placement::clone() const {
  return std::make_unique<anchor_placement>(*this);
}

// Expected: every working bucket is equally likely (the algorithm's
// guarantee for random key hashes).
std::optional<placement_ownership> anchor_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation, detail::equal_shares(names_.size())};
}

}  // namespace ringbloom
