// The named hashes of ringbloom/hash.hpp.
#include "ringbloom/hash.hpp"

// The one-shot MD5() and SHA256() calls are deprecated in OpenSSL 3 in favour
// of EVP_Digest, but EVP_Digest allocates a context per call, which costs more
// than hashing a short key. The low-level calls remain in OpenSSL 3's
// libcrypto; we use them on purpose.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdexcept>
#include <string>

#include "name_table.hpp"

namespace ringbloom {
namespace {

constexpr detail::name_table<hash_kind, 4> known_hashes = {{
    {hash_kind::xxh3, "xxh3"},
    {hash_kind::sha256, "sha256"},
    {hash_kind::poly31, "poly31"},
    {hash_kind::md5, "md5"},
}};

const unsigned char* bytes_of(std::string_view data) noexcept {
  return reinterpret_cast<const unsigned char*>(data.data());
}

std::uint64_t load_big_endian_64(const std::uint8_t* p) noexcept {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | p[i];
  return value;
}

// Decodes one code point of `s` starting at `i` and advances `i`. A byte that
// does not start a valid UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) yields U+DC00 + byte, as Python's
// surrogateescape does, and advances by one.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
  const auto byte = [&](std::size_t at) { return static_cast<std::uint8_t>(s[at]); };
  const std::uint8_t lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  std::size_t length = 0;
  std::uint32_t code = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code = lead & 0x1Fu, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code = lead & 0x0Fu, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code = lead & 0x07u, minimum = 0x10000;
  }
  const bool complete = length != 0 && i + length <= s.size();
  for (std::size_t k = 1; complete && k < length; ++k) {
    const std::uint8_t continuation = byte(i + k);
    if ((continuation & 0xC0u) != 0x80u) {
      length = 0;
      break;
    }
    code = (code << 6) | (continuation & 0x3Fu);
  }
  const bool valid = complete && length != 0 && code >= minimum && code <= 0x10FFFF &&
                     !(code >= 0xD800 && code <= 0xDFFF);
  if (!valid) {
    ++i;
    return 0xDC00u + lead;
  }
  i += length;
  return code;
}

}  // namespace

std::string_view hash_name(hash_kind kind) noexcept { return detail::name_of(known_hashes, kind); }

std::optional<hash_kind> find_hash(std::string_view name) noexcept {
  return detail::value_named(known_hashes, name);
}

hash_kind parse_hash(std::string_view name) {
  if (auto kind = find_hash(name)) return *kind;
  throw std::invalid_argument("unknown hash '" + std::string(name) +
                              "'; use one of xxh3, sha256, poly31, md5");
}

std::optional<hash_kind> hash_from_code(std::uint8_t code) noexcept {
  return detail::value_with_code(known_hashes, code);
}

std::uint64_t xxh3_64(std::string_view data, std::uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(data.data(), data.size(), seed);
}

hash128 xxh3_128(std::string_view data, std::uint64_t seed) noexcept {
  const XXH128_hash_t h = XXH3_128bits_withSeed(data.data(), data.size(), seed);
  return {h.low64, h.high64};
}

std::array<std::uint8_t, 32> sha256_digest(std::string_view data) noexcept {
  std::array<std::uint8_t, 32> digest{};
  SHA256(bytes_of(data), data.size(), digest.data());
  return digest;
}

std::uint64_t sha256_64(std::string_view data) noexcept {
  return load_big_endian_64(sha256_digest(data).data());
}

std::array<std::uint8_t, 16> md5_digest(std::string_view data) noexcept {
  std::array<std::uint8_t, 16> digest{};
  MD5(bytes_of(data), data.size(), digest.data());
  return digest;
}

std::uint64_t md5_64(std::string_view data) noexcept {
  return load_big_endian_64(md5_digest(data).data());
}

std::uint64_t poly31(std::string_view utf8, std::uint64_t salt) noexcept {
  // Unsigned arithmetic wraps modulo 2^64, which is lab11's "& _MASK64".
  std::uint64_t h = salt * 0x9E3779B1u + 1u;
  for (std::size_t i = 0; i < utf8.size();) h = h * 31u + next_code_point(utf8, i);
  return h;
}

std::uint64_t hash64(hash_kind kind, std::string_view data, std::uint64_t seed) noexcept {
  switch (kind) {
    case hash_kind::xxh3:
      return xxh3_64(data, seed);
    case hash_kind::sha256:
      return sha256_64(data);
    case hash_kind::poly31:
      return poly31(data, seed);
    case hash_kind::md5:
      return md5_64(data);
  }
  return xxh3_64(data, seed);
}

}  // namespace ringbloom
