// The systems' key hashes (see system_hashes.hpp). Written from the
// algorithms as the cited sources describe them.
#include "ringbloom/placement/schemes/system_hashes.hpp"

#include <array>
#include <cstddef>

#include "ringbloom/hash.hpp"
#include "ringbloom/mix.hpp"

namespace ringbloom::schemes {
namespace {

// The byte-at-a-time table of the reflected CRC-32 polynomial 0xEDB88320.
constexpr std::array<std::uint32_t, 256> make_crc32_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) != 0 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<std::uint32_t, 256> crc32_table = make_crc32_table();

// The MSB-first table of the CRC-16 polynomial 0x1021.
constexpr std::array<std::uint16_t, 256> make_crc16_table() {
  std::array<std::uint16_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i << 8;
    for (int bit = 0; bit < 8; ++bit) c = (c & 0x8000u) != 0 ? (c << 1) ^ 0x1021u : c << 1;
    table[i] = static_cast<std::uint16_t>(c & 0xFFFFu);
  }
  return table;
}
constexpr std::array<std::uint16_t, 256> crc16_table = make_crc16_table();

std::uint8_t byte_at(std::string_view data, std::size_t i) noexcept {
  return static_cast<std::uint8_t>(data[i]);
}

// A byte widened the way C widens a plain (signed, on x86) char: 0x80..0xff
// become 0xffffff80..0xffffffff. twemproxy's FNV loops do this.
std::uint32_t signed_char_32(char c) noexcept {
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
}
std::uint64_t signed_char_64(char c) noexcept {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<signed char>(c)));
}

}  // namespace

std::uint32_t crc32_update(std::uint32_t state, std::string_view data) noexcept {
  for (std::size_t i = 0; i < data.size(); ++i) {
    state = crc32_table[(state ^ byte_at(data, i)) & 0xFFu] ^ (state >> 8);
  }
  return state;
}

std::uint32_t crc32(std::string_view data) noexcept {
  return crc32_update(0xFFFFFFFFu, data) ^ 0xFFFFFFFFu;
}

std::uint16_t crc16_xmodem(std::string_view data) noexcept {
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    crc = ((crc << 8) & 0xFFFFu) ^ crc16_table[((crc >> 8) ^ byte_at(data, i)) & 0xFFu];
  }
  return static_cast<std::uint16_t>(crc);
}

std::uint16_t redis_key_slot(std::string_view key) noexcept {
  const std::size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return static_cast<std::uint16_t>(crc16_xmodem(key) & 16383u);
}

std::uint32_t haproxy_sdbm(std::string_view data) noexcept {
  std::uint32_t hash = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    hash = byte_at(data, i) + (hash << 6) + (hash << 16) - hash;
  }
  return hash;
}

std::uint32_t haproxy_djb2(std::string_view data) noexcept {
  std::uint32_t hash = 5381;
  for (std::size_t i = 0; i < data.size(); ++i) hash = ((hash << 5) + hash) + byte_at(data, i);
  return hash;
}

std::uint32_t haproxy_wt6(std::string_view data) noexcept {
  std::uint32_t h0 = 0xa53c965au;
  std::uint32_t h1 = 0x5ca6953au;
  std::uint32_t step0 = 6;
  std::uint32_t step1 = 18;
  // Rotations by 0 would shift by 32 in the C original's form; HAProxy's
  // steps come from the hash itself and may be 0, where (x << 0) | (x >> 32)
  // is undefined in C but x86 yields x | x = x. Rotate by 32 - 0 as x86 does.
  const auto rotl = [](std::uint32_t x, std::uint32_t s) noexcept {
    return s == 0 ? x : (x << s) | (x >> (32 - s));
  };
  for (std::size_t i = 0; i < data.size(); ++i) {
    std::uint32_t t = byte_at(data, i);
    h0 = ~(h0 ^ t);
    h1 = ~(h1 + t);
    t = rotl(h1, step0);
    h1 = rotl(h0, step1);
    h0 = t;
    t = ((h0 >> 16) ^ h1) & 0xffffu;
    step0 = t & 0x1fu;
    step1 = t >> 11;
  }
  return h0 ^ h1;
}

std::uint32_t haproxy_full_hash(std::uint32_t a) noexcept {
  a = (a + 0x7ed55d16u) + (a << 12);
  a = (a ^ 0xc761c23cu) ^ (a >> 19);
  a = (a + 0x165667b1u) + (a << 5);
  a = (a + 0xd3a2646cu) ^ (a << 9);
  a = (a + 0xfd7046c5u) + (a << 3);
  a = (a ^ 0xb55a4f09u) ^ (a >> 16);
  return a * 3221225473u;  // "a large prime close to 3/4 of the tree" (2^32 * 3/4 + 1)
}

std::uint32_t twemproxy_fnv1a_64(std::string_view data) noexcept {
  std::uint32_t hash = 0x84222325u;  // (uint32_t) 0xcbf29ce484222325
  for (const char c : data) {
    hash ^= signed_char_32(c);
    hash *= 0x000001b3u;  // (uint32_t) 0x100000001b3
  }
  return hash;
}

std::uint32_t twemproxy_fnv1_64(std::string_view data) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325u;
  for (const char c : data) {
    hash *= 0x100000001b3u;
    hash ^= signed_char_64(c);
  }
  return static_cast<std::uint32_t>(hash);
}

std::uint32_t twemproxy_fnv1a_32(std::string_view data) noexcept {
  std::uint32_t hash = 2166136261u;
  for (const char c : data) {
    hash ^= signed_char_32(c);
    hash *= 16777619u;
  }
  return hash;
}

std::uint32_t twemproxy_fnv1_32(std::string_view data) noexcept {
  std::uint32_t hash = 2166136261u;
  for (const char c : data) {
    hash *= 16777619u;
    hash ^= signed_char_32(c);
  }
  return hash;
}

std::uint32_t md5_word_le(std::string_view data, unsigned word) noexcept {
  const std::array<std::uint8_t, 16> d = md5_digest(data);
  const std::size_t o = static_cast<std::size_t>(word & 3u) * 4;
  return static_cast<std::uint32_t>(d[o]) | (static_cast<std::uint32_t>(d[o + 1]) << 8) |
         (static_cast<std::uint32_t>(d[o + 2]) << 16) |
         (static_cast<std::uint32_t>(d[o + 3]) << 24);
}

namespace {

std::uint64_t rotl64(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }

std::uint64_t load64_le(std::string_view data, std::size_t at) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(byte_at(data, at + i)) << (8 * i);
  return v;
}

// MurmurHash3_x64_128's h1; `signed_tail` reads the tail bytes as signed
// (Cassandra), else as unsigned (the reference, Guava).
std::uint64_t murmur3_h1(std::string_view data, std::uint64_t seed, bool signed_tail) noexcept {
  constexpr std::uint64_t c1 = 0x87c37b91114253d5u;
  constexpr std::uint64_t c2 = 0x4cf5ad432745937fu;
  const std::size_t nblocks = data.size() / 16;
  std::uint64_t h1 = seed;
  std::uint64_t h2 = seed;
  for (std::size_t i = 0; i < nblocks; ++i) {
    std::uint64_t k1 = load64_le(data, i * 16);
    std::uint64_t k2 = load64_le(data, i * 16 + 8);
    k1 *= c1;
    k1 = rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729u;
    k2 *= c2;
    k2 = rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5u;
  }
  const std::size_t tail = nblocks * 16;
  const std::size_t rest = data.size() & 15u;
  const auto lane = [&](std::size_t j) -> std::uint64_t {
    const char c = data[tail + j];
    return signed_tail ? signed_char_64(c)
                       : static_cast<std::uint64_t>(static_cast<std::uint8_t>(c));
  };
  std::uint64_t k1 = 0;
  std::uint64_t k2 = 0;
  for (std::size_t j = rest; j > 8; --j) k2 ^= lane(j - 1) << (8 * (j - 9));
  if (rest > 8) {
    k2 *= c2;
    k2 = rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
  }
  for (std::size_t j = std::min<std::size_t>(rest, 8); j > 0; --j)
    k1 ^= lane(j - 1) << (8 * (j - 1));
  if (rest > 0) {
    k1 *= c1;
    k1 = rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
  }
  h1 ^= static_cast<std::uint64_t>(data.size());
  h2 ^= static_cast<std::uint64_t>(data.size());
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  return h1;
}

}  // namespace

std::uint64_t murmur3_x64_128_h1(std::string_view data, std::uint32_t seed) noexcept {
  return murmur3_h1(data, seed, false);
}

std::int64_t cassandra_murmur3_h1(std::string_view data) noexcept {
  return static_cast<std::int64_t>(murmur3_h1(data, 0, true));
}

}  // namespace ringbloom::schemes
