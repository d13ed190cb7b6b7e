// ringbloom/hash.hpp: named, stable 64-bit hashes of byte strings.
//
// Every saved ring and filter records the name of the hash it was built with,
// so a hash's output is part of the file format: once released, the output of
// a named hash never changes. Golden vectors in tests/hash_test.cpp pin each.
//
//   name     what it computes                               use it for
//   -------  ---------------------------------------------  -------------------
//   xxh3     XXH3-64 of the bytes (seed 0 unless given)      the default: fast,
//                                                            well mixed
//   sha256   first 8 bytes of SHA-256, read big-endian       the German lesson's
//                                                            figures, exactly
//   poly31   lab11's hash_str(key, salt): polynomial base    lab11's figures;
//            31 over the key's Unicode code points           never a default
//   md5      first 8 bytes of MD5, read big-endian           ketama (which reads
//                                                            its own 4-byte words
//                                                            from md5_digest)
//
// poly31 is weak: short keys that differ in their last character land next
// to each other (h("key-1") and h("key-2") differ by exactly 1), so a ring
// built on it is badly balanced. docs/ring.md measures it. It is kept only so
// that lab11's numbers can be reproduced.
//
// Example:
//
//   #include <ringbloom/hash.hpp>
//   std::uint64_t a = ringbloom::xxh3_64("user:42");
//   std::uint64_t b = ringbloom::hash64(ringbloom::parse_hash("sha256"), "anna");
//   assert(ringbloom::hash_name(ringbloom::hash_kind::sha256) == "sha256");
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringbloom {

/// The named hashes. The numeric values are written into files: never reuse
/// or renumber one.
enum class hash_kind : std::uint8_t {
  xxh3 = 1,
  sha256 = 2,
  poly31 = 3,
  md5 = 4,
};

/// The default hash of rings and filters.
inline constexpr hash_kind default_hash = hash_kind::xxh3;

/// The stable name of a hash ("xxh3", "sha256", "poly31", "md5").
[[nodiscard]] std::string_view hash_name(hash_kind kind) noexcept;

/// The hash with that name, or nothing if no hash has it. Names are exact
/// and lower case.
[[nodiscard]] std::optional<hash_kind> find_hash(std::string_view name) noexcept;

/// Like find_hash, but throws std::invalid_argument naming the known hashes
/// when `name` is not one of them.
[[nodiscard]] hash_kind parse_hash(std::string_view name);

/// The hash with that numeric code (as stored in files), or nothing.
[[nodiscard]] std::optional<hash_kind> hash_from_code(std::uint8_t code) noexcept;

/// A 128-bit hash value, as two 64-bit halves.
struct hash128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend bool operator==(const hash128&, const hash128&) = default;
};

/// XXH3-64 of `data` with `seed`.
[[nodiscard]] std::uint64_t xxh3_64(std::string_view data, std::uint64_t seed = 0) noexcept;

/// XXH3-128 of `data` with `seed`, used where one call must yield two
/// independent 64-bit values (double hashing in Bloom filters).
[[nodiscard]] hash128 xxh3_128(std::string_view data, std::uint64_t seed = 0) noexcept;

/// The full SHA-256 digest of `data`.
[[nodiscard]] std::array<std::uint8_t, 32> sha256_digest(std::string_view data) noexcept;

/// The first 8 bytes of SHA-256(data), read big-endian: Python's
/// int.from_bytes(hashlib.sha256(data).digest()[:8], "big").
[[nodiscard]] std::uint64_t sha256_64(std::string_view data) noexcept;

/// The full MD5 digest of `data`.
[[nodiscard]] std::array<std::uint8_t, 16> md5_digest(std::string_view data) noexcept;

/// The first 8 bytes of MD5(data), read big-endian.
[[nodiscard]] std::uint64_t md5_64(std::string_view data) noexcept;

/// lab11's hash_str(key, salt), exactly:
///
///   h = (salt * 0x9E3779B1 + 1) mod 2^64
///   for each Unicode code point c of key:  h = (h * 31 + c) mod 2^64
///
/// `utf8` is decoded as UTF-8. A byte that does not start a valid sequence
/// counts as the code point U+DC00 + byte, which is what Python yields for
/// such a byte under its "surrogateescape" rule (how it decodes command-line
/// arguments), so lab11 run on the same bytes agrees.
[[nodiscard]] std::uint64_t poly31(std::string_view utf8, std::uint64_t salt = 0) noexcept;

/// The named hash `kind` of `data`. `seed` is XXH3's seed for xxh3 and the
/// salt for poly31; sha256 and md5 have no seed and ignore it.
[[nodiscard]] std::uint64_t hash64(hash_kind kind, std::string_view data,
                                   std::uint64_t seed = 0) noexcept;

}  // namespace ringbloom
