// The node-list grammar of node_list.hpp.
#include "ringbloom/placement/node_list.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

#include "ringbloom/error.hpp"

namespace ringbloom {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// A plain unsigned integer (no sign, no blanks), or nothing.
std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// "WHAT must be an integer from MIN to MAX, got 'TEXT'; ADVICE", the
/// command line's sentence for a number out of range.
[[noreturn]] void refuse_integer(std::string_view what, std::string_view text, std::uint64_t min,
                                 std::uint64_t max, std::string_view advice) {
  throw std::invalid_argument(fmt::format("{} must be an integer from {} to {}, got '{}'; {}", what,
                                          min, max, printable(text, 40), advice));
}

}  // namespace

std::vector<std::string_view> split_list(std::string_view list) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto comma = list.find(',');
    const auto part = trim(list.substr(0, comma));
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return parts;
}

placement_node parse_node(std::string_view item, std::uint64_t min_weight,
                          std::uint64_t max_weight) {
  placement_node node;
  const auto eq = item.rfind('=');
  node.name = std::string(trim(item.substr(0, eq)));
  if (eq != std::string_view::npos) {
    const std::string_view text = trim(item.substr(eq + 1));
    const auto weight = parse_unsigned(text);
    if (!weight || *weight < min_weight || *weight > max_weight) {
      refuse_integer(fmt::format("the weight in '{}'", item), text, min_weight, max_weight,
                     min_weight >= 1 ? "write NAME=WEIGHT with an integer weight >= 1 (remove a "
                                       "node rather than give it weight 0)"
                                     : "write NAME=WEIGHT with an integer weight");
    }
    node.weight = static_cast<double>(*weight);
  }
  if (node.name.empty()) {
    throw std::invalid_argument(
        fmt::format("'{}' has no node name; write NAME or NAME=WEIGHT", item));
  }
  return node;
}

std::vector<placement_node> parse_node_list(std::string_view list,
                                            const node_list_options& options) {
  std::vector<placement_node> nodes;
  if (const auto count = parse_unsigned(trim(list))) {
    if (*count < 1 || *count > max_node_list_count) {
      refuse_integer(options.option, trim(list), 1, max_node_list_count,
                     "give a count such as 4, or names such as a,b,c");
    }
    for (std::uint64_t i = 0; i < *count; ++i)
      nodes.push_back({fmt::format("n{}", options.first + i), 1.0});
    return nodes;
  }
  for (const auto item : split_list(list))
    nodes.push_back(parse_node(item, options.min_weight, options.max_weight));
  if (nodes.empty()) {
    throw std::invalid_argument(
        fmt::format("'{}' names no nodes; give a count (4) or names (a,b,c or a=1,b=2)", list));
  }
  return nodes;
}

std::vector<placement_node> change_node_list(std::vector<placement_node> before,
                                             std::string_view add, std::string_view remove,
                                             node_list_options add_options) {
  std::vector<placement_node> after = std::move(before);
  if (!add.empty()) {
    add_options.first = after.size() + 1;
    add_options.option = "--add";
    for (auto& n : parse_node_list(add, add_options)) after.push_back(std::move(n));
  }
  for (const std::string_view name : split_list(remove)) {
    const auto it = std::find_if(after.begin(), after.end(),
                                 [&](const placement_node& n) { return n.name == name; });
    if (it == after.end()) {
      throw std::invalid_argument(
          fmt::format("--remove names '{}', which is not among the nodes", printable(name)));
    }
    after.erase(it);
  }
  if (after.empty()) throw std::invalid_argument("--remove removes every node; keep at least one");
  return after;
}

}  // namespace ringbloom
