// ringbloom/io/format.hpp: the framing shared by every ringbloom file format
// (filter files, sketch files, cuckoo filter files): little-endian byte
// helpers, 64-byte alignment, and the checksummed envelope.
//
// The envelope, common to the whole family (docs/format.md draws each member):
//
//   offset 0   8 bytes  magic, "\x89RB?\r\n\x1a\n" (? names the member)
//   offset 8   u16      format version
//   offset 32  u64      the size of the whole file in bytes
//   size - 8   u64      XXH3-64 (seed 0) of every byte before it
//
// check_envelope verifies these, in that order, before any other field is
// trusted; a member then checks its own header fields and payload. All
// integers are little-endian; doubles are the little-endian bytes of their
// IEEE 754 binary64 bit pattern.
//
// Example (writing a member of the family):
//
//   std::string out(size, '\0');
//   auto* p = reinterpret_cast<unsigned char*>(out.data());
//   std::memcpy(p, my_magic.data(), 8);
//   ringbloom::io::store_le<std::uint16_t>(p + 8, 1);
//   ringbloom::io::store_le<std::uint64_t>(p + 32, size);
//   ringbloom::io::seal(out);   // the checksum trailer
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"

namespace ringbloom::io {

/// memcpy-based little-endian load: no alignment or aliasing assumptions.
template <class T>
[[nodiscard]] T load_le(const unsigned char* p) noexcept {
  T v{};
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, sizeof(T));
  } else {
    for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | (T{p[i]} << (8 * i)));
  }
  return v;
}

/// memcpy-based little-endian store.
template <class T>
void store_le(unsigned char* p, T v) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, sizeof(T));
  } else {
    for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  }
}

[[nodiscard]] inline double load_f64(const unsigned char* p) noexcept {
  return std::bit_cast<double>(load_le<std::uint64_t>(p));
}
inline void store_f64(unsigned char* p, double v) noexcept {
  store_le(p, std::bit_cast<std::uint64_t>(v));
}

/// Payloads start at multiples of 64 bytes (a cache line), so a mapped file
/// can be read in place.
inline constexpr std::uint64_t alignment = 64;
[[nodiscard]] constexpr std::uint64_t align_up(std::uint64_t n) noexcept {
  return (n + alignment - 1) / alignment * alignment;
}

/// The checksum trailer's size and where the file-size field lives.
inline constexpr std::size_t checksum_bytes = 8;
inline constexpr std::size_t version_offset = 8;
inline constexpr std::size_t file_size_offset = 32;

/// Whether all of [p, p + n) is zero (padding and reserved bytes).
[[nodiscard]] bool all_zero(const unsigned char* p, std::uint64_t n) noexcept;

/// Writes the XXH3-64 of bytes [0, size - 8) into the last 8 bytes of `out`
/// (which must be at least 8 bytes long).
void seal(std::string& out);

/// What one member of the family is called in messages and how it starts.
struct envelope {
  std::array<unsigned char, 8> magic;  ///< the first 8 bytes
  std::uint16_t version;               ///< the one version this reader knows
  std::uint64_t min_bytes;             ///< header + checksum
  std::string_view noun;               ///< "filter file", "sketch file"
  std::string_view thing;              ///< "filter", "sketch": what to create or recreate
};

/// Checks, in order: the magic, the minimum size, the version, the recorded
/// file size and the checksum. Throws data_error with a sentence naming the
/// problem (see corrupt below); returns normally when all hold.
void check_envelope(std::string_view bytes, const envelope& e);

/// Throws data_error: "<what>; the file is damaged or was not written by
/// ringbloom, so restore it from a backup or recreate the <thing>".
[[noreturn]] void corrupt(const envelope& e, std::string_view what);

/// Runs `parse()` and returns what it returns; a data_error it throws is
/// thrown again with the file's name in front ("PATH: what"), which is how
/// every loader of the family names the file it refuses.
template <class Parse>
auto with_path(const std::filesystem::path& path, Parse&& parse) {
  try {
    return parse();
  } catch (const data_error& e) {
    throw data_error(path.string() + ": " + e.what());
  }
}

}  // namespace ringbloom::io
