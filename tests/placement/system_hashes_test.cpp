// Golden vectors of the systems' key hashes (system_hashes.hpp). The values
// come from independent computations: zlib.crc32 and binascii.crc_hqx for the
// CRCs, the check values of the CRC catalogue ("123456789"), and a separate
// Python transcription of each system's C loop for the others. The peer
// tests (scheme_peers_test.cpp) then check the same functions against the
// running systems on 10,000+ keys.
#include "ringbloom/placement/schemes/system_hashes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ringbloom::schemes {
namespace {

const std::string cyrillic = "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87";  // "ключ"

TEST(SystemHashes, Crc32MatchesZlib) {
  EXPECT_EQ(crc32(""), 0x00000000u);
  EXPECT_EQ(crc32("a"), 0xe8b7be43u);
  EXPECT_EQ(crc32("123456789"), 0xcbf43926u);  // the catalogue's check value
  EXPECT_EQ(crc32("user:42"), 0x646f0d86u);
  EXPECT_EQ(crc32(cyrillic), 0x0caf961au);
  // The raw register form nginx chains: init ~0, no final XOR.
  EXPECT_EQ(crc32_update(crc32_update(0xFFFFFFFFu, "user"), ":42") ^ 0xFFFFFFFFu, crc32("user:42"));
}

TEST(SystemHashes, Crc16XmodemAndRedisSlots) {
  EXPECT_EQ(crc16_xmodem("123456789"), 0x31c3u);
  EXPECT_EQ(crc16_xmodem("a"), 0x7c87u);
  EXPECT_EQ(crc16_xmodem("user:42"), 0x3e08u);
  EXPECT_EQ(crc16_xmodem(cyrillic), 0x683fu);
  EXPECT_EQ(redis_key_slot("123456789"), 0x31c3u & 16383u);  // 12739
  EXPECT_EQ(redis_key_slot("{user:42}.cart"), redis_key_slot("user:42"));
  EXPECT_EQ(redis_key_slot("a{user:42}b{x}"), redis_key_slot("user:42"));  // the first tag only
  EXPECT_EQ(redis_key_slot("{}user:42"),
            crc16_xmodem("{}user:42") & 16383u);                             // empty tag: whole key
  EXPECT_EQ(redis_key_slot("user:42{"), crc16_xmodem("user:42{") & 16383u);  // unclosed
  EXPECT_EQ(redis_key_slot("}{a}"), redis_key_slot("a"));  // '}' before '{' ignored
}

TEST(SystemHashes, TwemproxyFnvQuirks) {
  // fnv1a_64 is 32-bit arithmetic from the truncated 64-bit constants.
  EXPECT_EQ(twemproxy_fnv1a_64(""), 0x84222325u);
  EXPECT_EQ(twemproxy_fnv1a_64("a"), 0x8601ec8cu);
  EXPECT_EQ(twemproxy_fnv1a_64("user:42"), 0xdcd221c2u);
  // Bytes >= 0x80 go through a signed char: 0xff is XORed in as 0xffffffff.
  EXPECT_EQ(twemproxy_fnv1a_64(cyrillic), 0xa9ad7881u);
  EXPECT_EQ(twemproxy_fnv1a_64("\xff"), 0x79fe466eu);
  EXPECT_EQ(twemproxy_fnv1_64("a"), 0x8601b7beu);
  EXPECT_EQ(twemproxy_fnv1_64("user:42"), 0xf2829cd0u);
  EXPECT_EQ(twemproxy_fnv1_64(cyrillic), 0x64997a19u);
  EXPECT_EQ(twemproxy_fnv1a_32(""), 0x811c9dc5u);
  EXPECT_EQ(twemproxy_fnv1a_32("a"), 0xe40c292cu);  // the textbook FNV-1a 32 for ASCII
  EXPECT_EQ(twemproxy_fnv1a_32(cyrillic), 0xafd617e1u);
  EXPECT_EQ(twemproxy_fnv1_32("a"), 0x050c5d7eu);
  EXPECT_EQ(twemproxy_fnv1_32(cyrillic), 0x31b3eff9u);
  EXPECT_EQ(md5_word_le("user:42", 0), 0x18dfda56u);
  EXPECT_EQ(md5_word_le("user:42", 3), 0xde296ca8u);
}

TEST(SystemHashes, HaproxyHashes) {
  EXPECT_EQ(haproxy_sdbm(""), 0u);
  EXPECT_EQ(haproxy_sdbm("a"), 0x61u);
  EXPECT_EQ(haproxy_sdbm("user:42"), 0x789cb0edu);
  EXPECT_EQ(haproxy_sdbm(cyrillic), 0xfe185748u);  // unsigned bytes, unlike twemproxy
  EXPECT_EQ(haproxy_djb2(""), 5381u);
  EXPECT_EQ(haproxy_djb2("user:42"), 0x45c1cda4u);
  EXPECT_EQ(haproxy_djb2(cyrillic), 0x51de60d1u);
  EXPECT_EQ(haproxy_full_hash(0), 0xab4ed927u);
  EXPECT_EQ(haproxy_full_hash(1), 0x348681b6u);
  EXPECT_EQ(haproxy_full_hash(4096), 0x49c2008bu);  // server id 1, point 0
  EXPECT_EQ(haproxy_full_hash(4097), 0xa4972c87u);
  EXPECT_EQ(haproxy_full_hash(0xffffffffu), 0x7e64c182u);
  // wt6: pinned from this implementation after the HAProxy peer test agreed
  // on 10,000 keys with `hash-type consistent wt6 avalanche`.
  EXPECT_EQ(haproxy_wt6(""), 0xa53c965au ^ 0x5ca6953au);
  EXPECT_EQ(haproxy_wt6("a"), 0x714bf225u);
  EXPECT_EQ(haproxy_wt6("user:42"), 0x2e68dc4fu);
  EXPECT_EQ(haproxy_wt6(cyrillic), 0x7d38ad7du);
}

}  // namespace
}  // namespace ringbloom::schemes
