// fuzz/support/load_or_refuse.hpp: the harness loop the file-loader fuzz
// targets share.
//
// What: runs a target's `exercise(bytes)` (load the bytes, check the loaded
// object) on one fuzzer input and accepts ringbloom::data_error as a clean
// refusal; any other exception, a crash or a sanitizer report is a finding.
//
// Why twice: every ringbloom file ends with the XXH3-64 of the bytes before it
// (little-endian), and random bytes almost never carry a valid one. So an
// input of 16 bytes or more is tried as given and again with its last 8
// bytes replaced by the correct checksum, which lets the fuzzer reach the
// field checks behind it.
//
// Example (a whole target):
//   void exercise(std::string_view bytes) { ... deserialize_x(bytes) ... }
//   extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
//     ringbloom::fuzz::load_or_refuse(data, size, exercise);
//     return 0;
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::fuzz {

/// Calls `exercise(bytes)`; a ringbloom::data_error (the loader refused the
/// bytes) is fine, anything else propagates to libFuzzer.
template <class Exercise>
void try_exercise(std::string_view bytes, Exercise& exercise) {
  try {
    exercise(bytes);
  } catch (const ringbloom::data_error&) {
    // refused: fine
  }
}

/// For a target with two loaders (whole and mapped): `load()` must throw
/// ringbloom::data_error, as the other loader did for the same bytes; if it
/// accepts them instead, that is a finding.
template <class Load>
void expect_refused(Load load) {
  try {
    load();
  } catch (const ringbloom::data_error&) {
    return;
  }
  std::abort();
}

/// The input as given, then (16 bytes or more) with a repaired checksum.
template <class Exercise>
void load_or_refuse(const std::uint8_t* data, std::size_t size, Exercise exercise) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try_exercise(bytes, exercise);
  if (size < 16) return;
  std::string fixed(bytes);
  const std::uint64_t sum = ringbloom::xxh3_64(std::string_view(fixed).substr(0, size - 8));
  for (std::size_t i = 0; i < 8; ++i) {
    fixed[size - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
  }
  try_exercise(fixed, exercise);
}

}  // namespace ringbloom::fuzz
