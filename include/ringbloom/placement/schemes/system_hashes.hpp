// ringbloom/placement/schemes/system_hashes.hpp: the key hashes of the systems
// whose placement the schemes reproduce, each exactly as that system computes
// it, quirks included.
//
// What it is. Small, stable functions of bytes, named after the system whose
// source they follow (the version is in each comment). They are part of the
// schemes' contract: golden vectors in tests/placement/system_hashes_test.cpp
// pin each, and the scheme peer tests check them against the running system.
//
// When to use it. Through a scheme (nginx.hpp, haproxy.hpp, twemproxy.hpp,
// redis_cluster.hpp); directly only to explain a placement ("which 32-bit
// value did twemproxy compute for this key?").
//
// Quirks worth knowing:
//   - twemproxy's fnv1a_64 is not 64-bit FNV-1a: it starts from the low 32
//     bits of the 64-bit offset basis (0x84222325), multiplies by the low 32
//     bits of the 64-bit prime (0x1b3) in 32-bit arithmetic, and widens each
//     byte through a signed char, so a byte >= 0x80 is XORed in as
//     0xffffff80..0xffffffff. Non-ASCII keys therefore hash differently from
//     any textbook FNV.
//   - twemproxy's fnv1_64 is 64-bit FNV-1 with the same sign extension,
//     truncated to 32 bits.
//   - HAProxy's hashes read bytes as unsigned char; `consistent` without a
//     function name means sdbm followed by full_hash (the "avalanche").
//
// Example:
//
//   #include <ringbloom/placement/schemes/system_hashes.hpp>
//   std::uint16_t slot = ringbloom::schemes::redis_key_slot("{user42}.cart");
//   std::uint32_t h = ringbloom::schemes::crc32("user:42");   // nginx's key hash
#pragma once

#include <cstdint>
#include <string_view>

namespace ringbloom::schemes {

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, initial and final
/// XOR 0xFFFFFFFF): zlib's crc32, nginx's ngx_crc32_long, HAProxy's
/// hash_crc32. crc32("123456789") = 0xCBF43926.
[[nodiscard]] std::uint32_t crc32(std::string_view data) noexcept;

/// The raw CRC-32 register after feeding `data` into `state`, with neither
/// the initial nor the final XOR: nginx's ngx_crc32_update. Start from
/// 0xFFFFFFFF and XOR the result with 0xFFFFFFFF to get crc32().
[[nodiscard]] std::uint32_t crc32_update(std::uint32_t state, std::string_view data) noexcept;

/// CRC-16/XMODEM (polynomial 0x1021, initial 0, no reflection): Redis
/// Cluster's crc16. crc16_xmodem("123456789") = 0x31C3.
[[nodiscard]] std::uint16_t crc16_xmodem(std::string_view data) noexcept;

/// The Redis Cluster slot of `key` (redis 7.0 cluster.c keyHashSlot): CRC16
/// of the key, or of the text between the first '{' and the first '}' after
/// it when that text is not empty, modulo 16384.
[[nodiscard]] std::uint16_t redis_key_slot(std::string_view key) noexcept;

/// HAProxy 2.6 (src/hash.c) key hashes.
[[nodiscard]] std::uint32_t haproxy_sdbm(std::string_view data) noexcept;
[[nodiscard]] std::uint32_t haproxy_djb2(std::string_view data) noexcept;
[[nodiscard]] std::uint32_t haproxy_wt6(std::string_view data) noexcept;

/// HAProxy 2.6 full_hash (include/haproxy/intops.h): Bob Jenkins' 6-shift
/// integer hash, then a multiplication by 3221225473. A bijection of the
/// 32-bit integers. HAProxy places server points with it and applies it to
/// key hashes under `avalanche`.
[[nodiscard]] std::uint32_t haproxy_full_hash(std::uint32_t a) noexcept;

/// twemproxy 0.5 (src/hashkit/nc_fnv.c) hashes, quirks as described above.
[[nodiscard]] std::uint32_t twemproxy_fnv1a_64(std::string_view data) noexcept;
[[nodiscard]] std::uint32_t twemproxy_fnv1_64(std::string_view data) noexcept;
[[nodiscard]] std::uint32_t twemproxy_fnv1a_32(std::string_view data) noexcept;
[[nodiscard]] std::uint32_t twemproxy_fnv1_32(std::string_view data) noexcept;

/// Word `word` (0..3) of MD5(data) read little-endian: twemproxy's and
/// libmemcached's ketama_hash, and (word 0) twemproxy's `hash: md5`.
[[nodiscard]] std::uint32_t md5_word_le(std::string_view data, unsigned word = 0) noexcept;

/// MurmurHash3 x64 128 (Austin Appleby's reference, seed `seed`): the first
/// 64-bit half h1, as Guava's murmur3_128(seed).hashBytes(..).asLong()
/// (padToLong) reads it.
[[nodiscard]] std::uint64_t murmur3_x64_128_h1(std::string_view data,
                                               std::uint32_t seed = 0) noexcept;

/// Cassandra's variant of the same (MurmurHash.hash3_x64_128 in Cassandra 4,
/// and the DataStax driver's cmurmur3.c): the bytes of the tail (the last
/// len % 16) are read as *signed* bytes, so a tail byte >= 0x80 is XORed in
/// sign-extended, setting every higher bit of its 64-bit lane. Keys whose
/// tail is ASCII hash as with the reference; others differ. Returns h1 as
/// the signed token.
[[nodiscard]] std::int64_t cassandra_murmur3_h1(std::string_view data) noexcept;

}  // namespace ringbloom::schemes
