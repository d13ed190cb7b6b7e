// ringbloom/error.hpp: the small exception hierarchy every ringbloom call uses.
//
// Errors are full sentences that say what was wrong and what to do about it.
//
//   std::invalid_argument    a caller passed an argument that can never be
//                            right (weight 0, an unknown hash name, n = 0).
//   ringbloom::data_error    input data is malformed, corrupt, truncated or of
//                            a foreign format (a topology file, a filter file).
//                            Nothing was answered from it.
//   ringbloom::io_error      the operating system refused a read or a write.
//
// Both ringbloom errors derive from ringbloom::error, itself a
// std::runtime_error, so `catch (const ringbloom::error&)` catches all errors
// that are about the environment rather than about the call.
//
// Advice is a field. A ringbloom::error may carry what to do about it
// (`advice()`); what() is then "<sentence>; <advice>". A layer that knows
// more than the one that threw (the CLI knows which option named a file, the
// io family does not) adds advice to an error that has none with
// `with_advice`, and never has to look for a ';' in the text:
//
//   try { io::read_file(path, cap); }
//   catch (const io_error& e) { if (!e.has_advice()) throw with_advice(e, "check the name"); throw;
//   }
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace ringbloom {

/// Base of the errors that come from data or the environment.
class error : public std::runtime_error {
 public:
  /// An error whose text is `what`. Text from before advice was a field may
  /// hold its advice after a "; " in `what`; has_advice() reports such text
  /// too, so that nobody appends a second piece of advice.
  explicit error(const std::string& what)
      : std::runtime_error(what), advice_offset_(what.find("; ")) {}

  /// An error that says what was wrong (`sentence`) and what to do (`advice`,
  /// without a leading "; "): what() is "<sentence>; <advice>".
  error(std::string_view sentence, std::string_view advice)
      : std::runtime_error(joined(sentence, advice)),
        advice_offset_(advice.empty() ? std::string::npos : sentence.size()) {}

  /// Whether the error says what to do.
  [[nodiscard]] bool has_advice() const noexcept { return advice_offset_ != std::string::npos; }

  /// What was wrong: what() without its advice.
  [[nodiscard]] std::string_view sentence() const noexcept {
    return std::string_view(what()).substr(0, advice_offset_);
  }

  /// What to do about it; empty when the error does not say.
  [[nodiscard]] std::string_view advice() const noexcept {
    return has_advice() ? std::string_view(what()).substr(advice_offset_ + 2) : std::string_view{};
  }

 private:
  static std::string joined(std::string_view sentence, std::string_view advice) {
    std::string out(sentence);
    if (!advice.empty()) (out += "; ") += advice;
    return out;
  }

  std::size_t advice_offset_;  // where "; <advice>" starts in what(), or npos
};

/// Input data is malformed, corrupt, truncated or foreign; it was refused.
class data_error : public error {
 public:
  using error::error;
};

/// A read, write, lock or rename failed at the operating-system level.
class io_error : public error {
 public:
  using error::error;
};

/// A copy of `e` (same type: data_error stays data_error) that says what to do
/// when it did not: `advice` is added only when `e.has_advice()` is false, so
/// the advice of the layer that knew most wins.
template <class E>
[[nodiscard]] E with_advice(const E& e, std::string_view advice) {
  static_assert(std::is_base_of_v<error, E>, "with_advice takes a ringbloom::error");
  if (e.has_advice() || advice.empty()) return e;
  return E(e.sentence(), advice);
}

/// `text` as it may appear inside an error message: control characters
/// written as escapes (\n, \t, \r, \x00), so that the message stays one
/// line, and cut after `max` bytes with "..." (a 50 MB name is not echoed).
[[nodiscard]] inline std::string printable(std::string_view text, std::size_t max = 64) {
  constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == max) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace ringbloom
