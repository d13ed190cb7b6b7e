// Jump consistent hash as a named placement.
#include "ringbloom/placement/jump_placement.hpp"

#include <fmt/core.h>

#include "ringbloom/hash.hpp"
#include "ringbloom/placement/detail/ownership.hpp"
#include "ringbloom/placement/detail/strategy_support.hpp"

namespace ringbloom {

namespace {
constexpr std::string_view kind = "jump";
}

jump_placement::jump_placement(std::span<const placement_node> nodes, jump_algorithm algorithm)
    : algorithm_(algorithm) {
  detail::check_nodes(kind, nodes, false);
  if (nodes.size() > 0xFFFF'FFFFu) {
    throw std::invalid_argument("jump: more than 2^32 - 1 nodes; give fewer nodes");
  }
  for (const auto& node : nodes) names_.push_back(node.name);
}

std::uint64_t jump_placement::key_hash(std::string_view key) const { return xxh3_64(key); }

const std::string& jump_placement::node_name(std::uint32_t index) const { return names_.at(index); }

void jump_placement::add_node(const placement_node& node) {
  detail::check_new_node(kind, names_, node, false);
  names_.push_back(node.name);
}

void jump_placement::remove_node(std::string_view name) {
  const std::uint32_t i = detail::index_of(kind, names_, name);
  if (names_.size() == 1) detail::refuse_last_node(kind, name);
  if (i + 1 != names_.size()) {
    detail::unsupported(
        kind_name(),
        fmt::format("remove '{}', which is not its last node ('{}')", name, names_.back()),
        "remove the last node, or use memento or anchor, which allow any removal");
  }
  names_.pop_back();
}

// Jump has no lookup structure: the node count is all it reads.
std::size_t jump_placement::memory_bytes() const noexcept { return 0; }

unsigned jump_placement::supports() const noexcept {
  return detail::change_bits(placement_change::add, placement_change::remove_last);
}

std::unique_ptr<placement> jump_placement::clone() const {
  return std::make_unique<jump_placement>(*this);
}

// Expected: every working bucket is equally likely (the algorithm's
// guarantee for random key hashes).
std::optional<placement_ownership> jump_placement::ownership() const {
  return placement_ownership{ownership_basis::expectation, detail::equal_shares(names_.size())};
}

}  // namespace ringbloom
