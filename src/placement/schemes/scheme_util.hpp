// Helpers shared by the scheme sources (not installed).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/error.hpp"

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

/// The most points (or table entries) a scheme builds: 2^24, as topology.hpp's
/// max_topology_points. Guards against a short file asking for gigabytes.
inline constexpr std::uint64_t max_total_points = std::uint64_t{1} << 24;

[[noreturn]] inline void throw_too_many_points(std::string_view kind, std::uint64_t points) {
  throw std::invalid_argument(
      fmt::format("{}: the servers would need {} points, more than ringbloom builds (2^24); lower "
                  "the weights or the count",
                  kind, points));
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

/// The importers' refusal: data_error "SOURCE:LINE: WHAT".
[[noreturn]] inline void refuse_at(std::string_view source, std::size_t line,
                                   std::string_view what) {
  throw data_error(fmt::format("{}:{}: {}", source, line, what));
}

/// `text` as a decimal unsigned integer (nothing else on it), if it is one.
inline std::optional<std::uint64_t> to_unsigned(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

/// The lines of `text`, without their "\r\n" or "\n" (line i is at line
/// number i + 1).
inline std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

/// The fields of `line`: the runs of characters not in `separators`.
inline std::vector<std::string_view> split_fields(std::string_view line,
                                                  std::string_view separators) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while ((i = line.find_first_not_of(separators, i)) != std::string_view::npos) {
    const std::size_t end = std::min(line.find_first_of(separators, i), line.size());
    fields.push_back(line.substr(i, end - i));
    i = end;
  }
  return fields;
}

/// Builds a placement with f(), turning the scheme's own refusal
/// (std::invalid_argument) into a SOURCE:LINE error.
template <class F>
auto build_at(std::string_view source, std::size_t line, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    refuse_at(source, line, e.what());
  }
}

}  // namespace ringbloom::schemes::detail
