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

#include <stdexcept>
#include <string>

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

}  // namespace ringbloom
