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
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringbloom {

/// Base of the errors that come from data or the environment.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
