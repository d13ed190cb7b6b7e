// Helpers shared by the scheme sources (not installed).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringbloom::schemes::detail {

/// `weight` as an integer in [min, max], or std::invalid_argument naming the
/// scheme, the node and the range the system itself accepts.
inline std::uint32_t integer_weight(std::string_view kind, std::string_view node, double weight,
                                    std::uint32_t min, std::uint32_t max) {
  if (!(weight >= min && weight <= max) || std::floor(weight) != weight) {
    throw std::invalid_argument(
        fmt::format("{}: the weight {} of node '{}' is not an integer in [{}, {}]; give a weight "
                    "{} itself accepts",
                    kind, weight, node, min, max, kind));
  }
  return static_cast<std::uint32_t>(weight);
}

[[noreturn]] inline void throw_empty(std::string_view kind) {
  throw std::logic_error(
      fmt::format("{}: the placement has no node that can own a key; add a node first", kind));
}

[[noreturn]] inline void throw_unknown_node(std::string_view kind, std::string_view name) {
  throw std::invalid_argument(
      fmt::format("{}: no node is named '{}'; check the name against the node list", kind, name));
}

[[noreturn]] inline void throw_duplicate_node(std::string_view kind, std::string_view name) {
  throw std::invalid_argument(fmt::format(
      "{}: a node named '{}' already exists; every node needs its own name", kind, name));
}

}  // namespace ringbloom::schemes::detail
