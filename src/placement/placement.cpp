// The placement interface's defaults (ringbloom/placement/placement.hpp).
#include "ringbloom/placement/placement.hpp"

#include <fmt/core.h>

#include <stdexcept>

namespace ringbloom {
namespace {

[[noreturn]] void unsupported(const placement& p, std::string_view what) {
  throw std::invalid_argument(
      fmt::format("the {} placement does not support {}; check supports() before changing it, "
                  "or rebuild it from the new node list",
                  p.kind_name(), what));
}

}  // namespace

std::vector<std::uint32_t> placement::node_indexes_for_hash(std::uint64_t h, std::size_t n) const {
  if (n > 1) unsupported(*this, "more than one node per key (replicas)");
  if (n == 0) return {};
  return {node_index_for_hash(h)};
}

void placement::add_node(const placement_node& /*node*/) { unsupported(*this, "adding nodes"); }

void placement::remove_node(std::string_view /*name*/) { unsupported(*this, "removing nodes"); }

void placement::set_weight(std::string_view /*name*/, double /*weight*/) {
  unsupported(*this, "changing weights");
}

std::optional<placement_ownership> placement::ownership() const { return std::nullopt; }

std::string_view ownership_basis_name(ownership_basis basis) noexcept {
  switch (basis) {
    case ownership_basis::hash_space:
      return "hash_space";
    case ownership_basis::expectation:
      return "expectation";
    case ownership_basis::counted_load:
      return "counted_load";
  }
  return "hash_space";
}

std::vector<std::string> placement::nodes_for(std::string_view key, std::size_t n) const {
  std::vector<std::string> names;
  for (const std::uint32_t index : node_indexes_for_hash(key_hash(key), n)) {
    names.push_back(node_name(index));
  }
  return names;
}

}  // namespace ringbloom
