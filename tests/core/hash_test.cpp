// Golden vectors for the named hashes. The expected values come from
// independent implementations: xxhsum -H3/-H2 (xxHash's own tool), Python's
// hashlib for SHA-256 and MD5, and lab11's hash_str run in Python 3 on the
// same bytes (decoded with surrogateescape). A named hash's output may never
// change: if one of these fails, the change is a format break.
#include "ringbloom/hash.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ringbloom {
namespace {

TEST(HashNames, RoundTripAndCodes) {
  for (auto kind : {hash_kind::xxh3, hash_kind::sha256, hash_kind::poly31, hash_kind::md5}) {
    EXPECT_EQ(find_hash(hash_name(kind)), kind);
    EXPECT_EQ(hash_from_code(static_cast<std::uint8_t>(kind)), kind);
  }
  // The codes are written into files: pin them.
  EXPECT_EQ(static_cast<int>(hash_kind::xxh3), 1);
  EXPECT_EQ(static_cast<int>(hash_kind::sha256), 2);
  EXPECT_EQ(static_cast<int>(hash_kind::poly31), 3);
  EXPECT_EQ(static_cast<int>(hash_kind::md5), 4);
  EXPECT_EQ(default_hash, hash_kind::xxh3);
  EXPECT_FALSE(find_hash("XXH3").has_value());
  EXPECT_FALSE(hash_from_code(0).has_value());
  EXPECT_FALSE(hash_from_code(5).has_value());
}

TEST(HashNames, ParseRefusesUnknownNamesWithAHint) {
  EXPECT_EQ(parse_hash("sha256"), hash_kind::sha256);
  try {
    (void)parse_hash("crc32");
    FAIL() << "parse_hash accepted an unknown name";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown hash 'crc32'; use one of xxh3, sha256, poly31, md5");
  }
}

TEST(Xxh3, MatchesXxhsum) {
  EXPECT_EQ(xxh3_64(""), 0x2d06800538d394c2u);
  EXPECT_EQ(xxh3_64("a"), 0xe6c632b61e964e1fu);
  EXPECT_EQ(xxh3_64("key-0"), 0x819f6b51706f0178u);
  EXPECT_EQ(xxh3_64("user:42"), 0x9fc1e605fa7174aau);
  EXPECT_EQ(xxh3_64("The quick brown fox jumps over the lazy dog"), 0xce7d19a5418fb365u);
  EXPECT_EQ(hash64(hash_kind::xxh3, "key-0"), 0x819f6b51706f0178u);
}

TEST(Xxh3, SeedChangesTheHash) {
  EXPECT_NE(xxh3_64("key-0", 1), xxh3_64("key-0", 0));
  EXPECT_EQ(hash64(hash_kind::xxh3, "key-0", 7), xxh3_64("key-0", 7));
}

TEST(Xxh3, Hash128MatchesXxhsum) {
  // xxhsum prints the high half first.
  EXPECT_EQ(xxh3_128("a"), (hash128{0xe6c632b61e964e1fu, 0xa96faf705af16834u}));
  EXPECT_EQ(xxh3_128("key-0"), (hash128{0x785d3bd7d0de1568u, 0x3345f117b51dada8u}));
  EXPECT_EQ(xxh3_128("The quick brown fox jumps over the lazy dog"),
            (hash128{0x24a1cc2e3a8a7651u, 0xddd650205ca3e7fau}));
}

TEST(Sha256, FirstEightBytesBigEndianMatchHashlib) {
  EXPECT_EQ(sha256_64(""), 0xe3b0c44298fc1c14u);
  EXPECT_EQ(sha256_64("a"), 0xca978112ca1bbdcau);
  EXPECT_EQ(sha256_64("anna"), 0x55579b557896d0ceu);
  EXPECT_EQ(sha256_64("0:anna"), 0x41f04e41462a1894u);
  EXPECT_EQ(sha256_64("n1#0"), 0x36ab20d02d20c204u);
  EXPECT_EQ(hash64(hash_kind::sha256, "key-0", 99), 0xd5ead6fdd3d16630u);  // seed ignored
  EXPECT_EQ(sha256_digest("")[31], 0x55);
}

TEST(Md5, MatchesHashlib) {
  EXPECT_EQ(md5_64(""), 0xd41d8cd98f00b204u);
  EXPECT_EQ(md5_64("a"), 0x0cc175b9c0f1b6a8u);
  EXPECT_EQ(md5_64("key-0"), 0xb4428b7e85e1fa85u);
  const auto digest = md5_digest("anna");  // a70f9e38ff015afaa9ab0aacabee2e13
  EXPECT_EQ(digest[0], 0xa7);
  EXPECT_EQ(digest[8], 0xa9);
  EXPECT_EQ(digest[15], 0x13);
  EXPECT_EQ(hash64(hash_kind::md5, "n1#0"), 0xc799481036609527u);
}

TEST(Poly31, MatchesLab11HashStr) {
  EXPECT_EQ(poly31(""), 1u);
  EXPECT_EQ(poly31("a"), 0x80u);  // 1 * 31 + 97
  EXPECT_EQ(poly31("key-1"), 0x7c860e2u);
  EXPECT_EQ(poly31("node#7", 7), 0xe4daea44a9fc4bceu);
  EXPECT_EQ(poly31("x", 1ull << 40), 0xb7bc6f0000000097u);  // salt arithmetic wraps
  EXPECT_EQ(hash64(hash_kind::poly31, "node#7", 7), 0xe4daea44a9fc4bceu);
}

TEST(Poly31, IsTooWeakForShortKeys) {
  // Why poly31 is never a default: keys differing in the last character are
  // neighbours on the ring.
  EXPECT_EQ(poly31("key-2") - poly31("key-1"), 1u);
}

TEST(Poly31, HashesCodePointsNotBytes) {
  EXPECT_EQ(poly31("\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82, \xd0\xbc\xd0\xb8\xd1\x80", 3),
            0xfa4e51b35408f714u);                                       // "Привет, мир"
  EXPECT_EQ(poly31("\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80"), 0xa112fu);  // "ü€😀"
}

TEST(Poly31, InvalidUtf8CountsLikePythonSurrogateescape) {
  EXPECT_EQ(poly31(std::string("ab\xff"
                               "c")),
            0x5662a6u);                                           // stray byte
  EXPECT_EQ(poly31(std::string("\xe2\x82")), 0x1b9fa1u);          // truncated sequence
  EXPECT_EQ(poly31(std::string("\xc0\x80"), 1), 0x251ee5b6cf2u);  // overlong NUL
  EXPECT_EQ(poly31(std::string("\xed\xa0\x80x")), 0x67d2600cu);   // encoded surrogate
}

}  // namespace
}  // namespace ringbloom
