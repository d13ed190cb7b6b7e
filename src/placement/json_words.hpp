// src/placement/json_words.hpp: a JSON parser's refusal in our words, for
// every reader of JSON input in the placement family (topology files, both
// kinds, and redis-cli's CLUSTER SLOTS output). nlohmann::json's own text
// ("[json.exception.parse_error.101] parse error at line 1, column 1: syntax
// error while parsing value - unexpected end of input; expected '[', '{', or
// a literal") names its internals; users get what is wrong and where.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ringbloom::detail {

/// What is wrong with `text`, which nlohmann::json refused with `e`, as the
/// middle of a sentence: "the file is empty", "not valid JSON: it goes wrong
/// at line 3, column 7", "not valid JSON: it ends at line 9 before the JSON
/// is complete", or, for a number nlohmann cannot hold (1e4444), "not valid
/// JSON: it holds a number too large to read".
inline std::string json_error_words(std::string_view text, const nlohmann::json::exception& e) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "the file is empty";
  const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e);
  if (parse == nullptr) return "not valid JSON: it holds a number too large to read";
  // parse->byte counts the bytes read, the offending one included.
  const std::size_t at = std::min(parse->byte > 0 ? parse->byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, at);
  const std::size_t line =
      static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  if (at >= text.size() || text.find_first_not_of(" \t\r\n", at) == std::string_view::npos) {
    return fmt::format("not valid JSON: it ends at line {} before the JSON is complete", line);
  }
  const std::size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return fmt::format("not valid JSON: it goes wrong at line {}, column {}", line,
                     at - line_start + 1);
}

}  // namespace ringbloom::detail
