// src/name_table.hpp: the table behind every named enum of the library (hash
// kinds, filter kinds): stable names for files and the command line, and
// the numeric codes written into files. Internal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringbloom::detail {

template <class Enum>
struct named_value {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t N>
using name_table = std::array<named_value<Enum>, N>;

/// The name of `value`, or "unknown" for a value not in the table.
template <class Enum, std::size_t N>
[[nodiscard]] constexpr std::string_view name_of(const name_table<Enum, N>& table,
                                                 Enum value) noexcept {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "unknown";
}

/// The value named `name` (exact, case-sensitive), or nothing.
template <class Enum, std::size_t N>
[[nodiscard]] constexpr std::optional<Enum> value_named(const name_table<Enum, N>& table,
                                                        std::string_view name) noexcept {
  for (const auto& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

/// The value whose numeric code (the enum's underlying byte) is `code`.
template <class Enum, std::size_t N>
[[nodiscard]] constexpr std::optional<Enum> value_with_code(const name_table<Enum, N>& table,
                                                            std::uint8_t code) noexcept {
  for (const auto& entry : table) {
    if (static_cast<std::uint8_t>(entry.value) == code) return entry.value;
  }
  return std::nullopt;
}

}  // namespace ringbloom::detail
