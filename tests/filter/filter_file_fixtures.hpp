// tests/filter/filter_file_fixtures.hpp: what the filter-file tests share.
//
// What: the golden files of tests/filter/data, a temporary directory removed
// at the end of a test, and the tools of the refusal tests: edit one field of
// a file and repair its trailing XXH3-64 checksum, so that the edit reaches
// the field checks instead of the checksum check, then read the loader's
// error sentence.
//
// Example:
//   const std::string bytes = golden("fuse8_xxh3.rbf");
//   EXPECT_THAT(data_error_of(with_field<std::uint8_t>(bytes, 10, 7)),
//               HasSubstr("unknown filter kind"));
//   temp_dir dir;
//   save_filter(f, dir / "f.rbf");
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "filter/filter_format.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::filter_test {

/// The bytes of tests/filter/data/<name>.
inline std::string golden(const std::string& name) {
  return io::read_file(std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests" / "filter" / "data" /
                       name);
}

/// A fresh directory, removed with everything in it at the end of its scope
/// (the tests' shared one; `dir / "f.rbf"` is a path in it).
using test::temp_dir;

/// Rewrites the checksums so that a deliberately edited field reaches the
/// field checks: the region and head checksums of versions 2 and 3, or
/// version 1's trailing checksum (XXH3-64 of the bytes before it,
/// little-endian).
inline std::string rechecksum(std::string bytes) {
  if (bytes.size() >= 10 && (bytes[8] == 2 || bytes[8] == 3) && bytes[9] == 0) {
    detail::reseal_filter_bytes(bytes);
    return bytes;
  }
  const std::uint64_t sum = xxh3_64(std::string_view(bytes).substr(0, bytes.size() - 8));
  for (std::size_t i = 0; i < 8; ++i) {
    bytes[bytes.size() - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
  }
  return bytes;
}

/// `bytes` with the field at `offset` set to `value` (little-endian host)
/// and the checksum repaired.
template <class T>
std::string with_field(std::string bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
  return rechecksum(std::move(bytes));
}

/// The loader's error sentence for `bytes`, or "(accepted)" if it loads.
inline std::string data_error_of(std::string_view bytes) {
  try {
    (void)deserialize_filter(bytes);
  } catch (const data_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace ringbloom::filter_test
