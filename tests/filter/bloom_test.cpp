// The classic Bloom filter, the sizing math and the kind names.
//
// Expected positions and counts come from tests/filter/bloom_golden.py, which
// re-implements the position rules in Python with hashlib, lab11's hash_str
// and xxhsum (XXH3-128): numbers the library did not compute itself.
#include "ringbloom/filter/bloom.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "ringbloom/filter/any_filter.hpp"

namespace ringbloom {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string bit_string(const bloom_filter& f) {
  std::string s;
  for (std::uint64_t i = 0; i < f.bits(); ++i) s += f.bit(i) ? '1' : '0';
  return s;
}

// --- kinds --------------------------------------------------------------------

TEST(FilterKind, NamesAndCodesAreStable) {
  for (auto kind :
       {filter_kind::classic, filter_kind::blocked, filter_kind::counting, filter_kind::scalable,
        filter_kind::fuse8, filter_kind::fuse16, filter_kind::blocked64, filter_kind::blocked1024,
        filter_kind::fuse8_4wise, filter_kind::fast}) {
    EXPECT_EQ(find_filter_kind(filter_kind_name(kind)), kind);
    EXPECT_EQ(filter_kind_from_code(static_cast<std::uint8_t>(kind)), kind);
  }
  // The codes are written into files: pin them.
  EXPECT_EQ(static_cast<int>(filter_kind::classic), 1);
  EXPECT_EQ(static_cast<int>(filter_kind::blocked), 2);
  EXPECT_EQ(static_cast<int>(filter_kind::counting), 3);
  EXPECT_EQ(static_cast<int>(filter_kind::scalable), 4);
  EXPECT_EQ(static_cast<int>(filter_kind::fuse8), 5);
  EXPECT_EQ(static_cast<int>(filter_kind::fuse16), 6);
  EXPECT_EQ(static_cast<int>(filter_kind::blocked64), 7);
  EXPECT_EQ(static_cast<int>(filter_kind::blocked1024), 8);
  EXPECT_EQ(static_cast<int>(filter_kind::fuse8_4wise), 9);
  EXPECT_EQ(static_cast<int>(filter_kind::fast), 10);
  EXPECT_EQ(filter_kind_name(filter_kind::fuse8_4wise), "fuse8-4wise");
  EXPECT_EQ(default_filter_kind, filter_kind::fast);
  EXPECT_FALSE(filter_kind_from_code(0).has_value());
  EXPECT_FALSE(filter_kind_from_code(11).has_value());
  EXPECT_FALSE(find_filter_kind("Blocked").has_value());
}

TEST(FilterKind, ParseRefusesUnknownNamesWithTheChoices) {
  EXPECT_EQ(parse_filter_kind("counting"), filter_kind::counting);
  try {
    (void)parse_filter_kind("cuckoo");
    FAIL() << "parse_filter_kind accepted an unknown name";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "unknown filter kind 'cuckoo'; choose default (fast), densest (blocked1024) or textbook "
        "(classic), or one of the kinds fast, blocked64, blocked1024, blocked, classic, counting, "
        "scalable, fuse8, fuse16, fuse8-4wise");
  }
}

TEST(FilterKind, RoleNamesStandForTheKindsThatPlayThem) {
  EXPECT_EQ(parse_filter_kind("default"), default_filter_kind);
  EXPECT_EQ(parse_filter_kind("densest"), filter_kind::blocked1024);
  EXPECT_EQ(parse_filter_kind("textbook"), filter_kind::classic);
  EXPECT_EQ(find_filter_kind("densest"), filter_kind::blocked1024);
  EXPECT_FALSE(find_filter_kind("Densest").has_value()) << "role names are exact, as kind names";
  // A role is a name, not a kind: what a filter made by role says it is is
  // the kind's own name, and the kind knows the role it plays.
  EXPECT_EQ(filter_kind_name(parse_filter_kind("densest")), "blocked1024");
  EXPECT_EQ(filter_kind_of(filter_kind::blocked1024).role, "densest");
  EXPECT_EQ(filter_kind_of(default_filter_kind).role, "default");
  EXPECT_EQ(filter_kind_of(filter_kind::blocked64).role, "");
  // No role shadows a kind's name, and each role's kind is in the table.
  for (const filter_role& role : filter_roles) {
    for (const filter_kind_info& k : filter_kinds()) EXPECT_NE(role.name, k.name);
    EXPECT_FALSE(is_static_kind(role.kind)) << role.name;
    EXPECT_EQ(filter_kind_name(role.kind), filter_kind_name(*find_filter_kind(role.name)));
  }
  filter_spec spec;
  spec.kind = parse_filter_kind("textbook");
  spec.capacity = 1000;
  spec.fpr = 0.01;
  EXPECT_EQ(make_filter(spec).kind(), filter_kind::classic);
}

// --- bloom_math ---------------------------------------------------------------

TEST(BloomMath, ClassicRateMatchesTheFormula) {
  // (1 - e^(-7*1000/8000))^7, by Python's math module (bloom_golden.py).
  EXPECT_NEAR(bloom_math::classic_fpr(1000, 8000, 7), 0.022929748877108, 1e-13);
  EXPECT_EQ(bloom_math::classic_fpr(0, 8000, 7), 0.0);
  // Tiny rates keep their precision: n=1, m=1e6, k=20 is (1 - e^(-2e-5))^20
  // = (2e-5 - 2e-10 + ...)^20, about 1.0486e-94.
  const double tiny = bloom_math::classic_fpr(1, 1e6, 20);
  EXPECT_NEAR(std::log10(tiny), std::log10(std::pow(-std::expm1(-2e-5), 20)), 1e-9);
  EXPECT_GT(tiny, 0.0);
}

TEST(BloomMath, ClassicSizeIsTheSmallestFilterThatMeetsTheTarget) {
  const filter_size s = bloom_math::classic_size_for(1'000'000, 0.01);
  // m_k = ceil(-k n / ln(1 - p^(1/k))) by Python: k=6 9616655, k=7 9592955, k=8 9681527.
  EXPECT_EQ(s, (filter_size{9592955, 7}));
  EXPECT_LE(bloom_math::classic_fpr(1e6, 9592955, 7), 0.01);
  EXPECT_GT(bloom_math::classic_fpr(1e6, 9592954, 7), 0.01 - 1e-12);
  EXPECT_EQ(bloom_filter::bits_for(1'000'000, 0.01), 9592955U);
  EXPECT_EQ(bloom_filter::optimal_hashes(9592955, 1'000'000), 7U);
  // The textbook approximation m = -n ln p / ln^2 2 = 9585058.4 is close.
  EXPECT_NEAR(static_cast<double>(s.bits), 9585058.4, 0.001 * 9585058.4);
}

// Items are told apart by 64-bit hashes: two strangers collide with
// probability 2^-64, so no rate below that is sized; 2^-64 itself is.
TEST(BloomMath, RatesBelowWhat64BitHashesReachAreRefused) {
  EXPECT_EQ(min_fpr, std::ldexp(1.0, -64));
  try {
    (void)bloom_math::classic_size_for(1000, 1e-300);
    FAIL() << "1e-300 was sized";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("a false-positive rate of 1e-300 cannot be reached"));
    EXPECT_THAT(e.what(), HasSubstr("give a rate of 5.5e-20 or more"));
  }
  EXPECT_THROW((void)bloom_math::classic_size_for(1000, min_fpr / 2), std::invalid_argument);
  const filter_size s = bloom_math::classic_size_for(1000, min_fpr);
  EXPECT_LE(bloom_math::classic_fpr(1000, static_cast<double>(s.bits), s.hashes),
            min_fpr * (1 + 1e-9));
  // The blocked kinds keep their own, higher floor.
  EXPECT_THROW((void)bloom_math::blocked_size_for(1000, 1e-300), std::invalid_argument);
}

TEST(BloomMath, SizingRefusesNonsense) {
  EXPECT_THROW((void)bloom_math::classic_size_for(0, 0.01), std::invalid_argument);
  EXPECT_THROW((void)bloom_math::classic_size_for(10, 0.0), std::invalid_argument);
  EXPECT_THROW((void)bloom_math::classic_size_for(10, 1.0), std::invalid_argument);
  EXPECT_THROW((void)bloom_math::classic_size_for(10, std::nan("")), std::invalid_argument);
  try {
    (void)bloom_math::classic_size_for(1'000'000'000'000'000ULL, 1e-9);
    FAIL() << "a filter beyond the size limit was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("more than the limit"));
    EXPECT_THAT(e.what(), HasSubstr("lower the capacity or raise the rate"));
  }
}

TEST(BloomMath, CapacityInvertsTheRate) {
  const std::uint64_t n = bloom_math::classic_capacity_for(9592955, 7, 0.01);
  EXPECT_LE(bloom_math::classic_fpr(static_cast<double>(n), 9592955, 7), 0.01);
  EXPECT_GT(bloom_math::classic_fpr(static_cast<double>(n + 1), 9592955, 7), 0.01 - 1e-9);
  EXPECT_NEAR(static_cast<double>(n), 1e6, 10);
}

TEST(BloomMath, SwamidassBaldiEstimate) {
  // -(m/k) ln(1 - X/m) for m=8000, k=7, X=4660 (the German exercise's bits).
  EXPECT_NEAR(bloom_math::estimate_items(8000, 7, 4660),
              -(8000.0 / 7) * std::log(1 - 4660.0 / 8000), 1e-9);
  EXPECT_EQ(bloom_math::estimate_items(8000, 7, 0), 0.0);
  EXPECT_TRUE(std::isinf(bloom_math::estimate_items(8000, 7, 8000)));
}

TEST(BloomMath, ScalableBudgetsSumBelowTheTarget) {
  EXPECT_DOUBLE_EQ(bloom_math::scalable_layer_fpr(0.01, 0.5, 0), 0.005);
  EXPECT_DOUBLE_EQ(bloom_math::scalable_layer_fpr(0.01, 0.5, 3), 0.01 / 16);
  double sum = 0;
  for (std::uint32_t i = 0; i < 64; ++i) sum += bloom_math::scalable_layer_fpr(0.01, 0.8, i);
  EXPECT_LT(sum, 0.01);
}

// --- the German lesson, bit for bit ---------------------------------------------

TEST(ClassicFilter, GermanWalkthroughBitForBit) {
  bloom_filter f(16, 2, hash_kind::sha256);
  EXPECT_THAT(f.positions("anna"), ElementsAre(4, 15));
  EXPECT_THAT(f.positions("bora"), ElementsAre(3, 15));
  EXPECT_THAT(f.positions("cem"), ElementsAre(5, 3));
  EXPECT_THAT(f.positions("user5"), ElementsAre(15, 3));
  f.add("anna");
  f.add("bora");
  EXPECT_EQ(bit_string(f), "0001100000000001");
  EXPECT_TRUE(f.may_contain("anna"));
  EXPECT_TRUE(f.may_contain("bora"));
  EXPECT_FALSE(f.may_contain("cem"));   // bit 5 is 0: definitely absent
  EXPECT_TRUE(f.may_contain("user5"));  // bits 15 and 3 set by others: a false positive
  EXPECT_THAT(f.explain("cem"), ElementsAre(bit_probe{0, 5, 0}, bit_probe{0, 3, 1}));
  EXPECT_EQ(f.items_added(), 2U);
  EXPECT_EQ(f.stats().bits_set, 3U);
}

TEST(ClassicFilter, GermanExerciseThousandAddresses) {
  bloom_filter f(8000, 7, hash_kind::sha256);
  for (int i = 0; i < 1000; ++i) f.add("user" + std::to_string(i) + "@example.com");
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(f.may_contain("user" + std::to_string(i) + "@example.com")) << i;
  }
  int false_positives = 0;
  for (int i = 0; i < 5000; ++i) {
    false_positives += f.may_contain("stranger" + std::to_string(i) + "@example.org") ? 1 : 0;
  }
  // bloom_golden.py, which runs the lesson's positionen() on the same names.
  EXPECT_EQ(f.stats().bits_set, 4660U);
  EXPECT_EQ(false_positives, 106);
  // And the rate agrees with (1 - e^(-kn/m))^k = 2.29%: within 3 binomial
  // standard deviations (sqrt(5000 * 0.0229 * 0.977) = 10.6 items).
  const double expected = bloom_filter::fpr_for(1000, 8000, 7) * 5000;
  EXPECT_NEAR(false_positives, expected, 3 * 10.6);
}

// --- lab11, bit for bit ------------------------------------------------------

TEST(ClassicFilter, Lab11PositionsWithPoly31) {
  bloom_filter f(1000, 3, hash_kind::poly31);
  EXPECT_THAT(f.positions("apple"), ElementsAre(361, 272, 183));
  EXPECT_THAT(f.positions("banana"), ElementsAre(750, 991, 232));
  EXPECT_THAT(f.positions("cherry"), ElementsAre(914, 155, 396));
  EXPECT_THAT(f.positions("ключ"), ElementsAre(403, 884, 365));  // code points, not bytes
  for (int i = 0; i < 100; ++i) f.add("key-" + std::to_string(i));
  int false_positives = 0;
  for (int i = 0; i < 1000; ++i) false_positives += f.may_contain("other-" + std::to_string(i));
  // bloom_golden.py with lab11's hash_str. The rate (6.5%) is far above the
  // formula's 1.7%: poly31 places similar keys next to each other.
  EXPECT_EQ(f.stats().bits_set, 294U);
  EXPECT_EQ(false_positives, 65);
}

// --- xxh3 positions ----------------------------------------------------------

TEST(ClassicFilter, Xxh3MixedDoubleHashingPositions) {
  bloom_filter f(1000003, 7);
  ASSERT_EQ(f.rule(), position_rule::mixed);
  // Kirsch-Mitzenmacher over XXH3-128 computed by xxhsum -H2, each g_i mixed
  // by splitmix64's finaliser and reduced by (x * m) >> 64 in Python
  // (bloom_golden.py's mixed_positions).
  EXPECT_THAT(f.positions("anna"),
              ElementsAre(703881, 294207, 715247, 525142, 35707, 863578, 311077));
  EXPECT_THAT(f.positions("user:42"),
              ElementsAre(576081, 123446, 268900, 418006, 338149, 539788, 326345));
  EXPECT_THAT(f.positions(""), ElementsAre(883353, 579909, 878567, 549027, 925762, 53292, 224192));
}

TEST(ClassicFilter, Xxh3PlainDoubleHashingPositionsOfOldFiles) {
  // The rule of files before version 3 (bloom_golden.py's km_positions).
  const bloom_filter f = bloom_filter::from_words(1000003, 7, hash_kind::xxh3, 0, 0,
                                                  detail::word_store((1000003 + 63) / 64),
                                                  position_rule::double_hashing);
  EXPECT_THAT(f.positions("anna"),
              ElementsAre(938708, 490336, 41964, 593595, 145224, 696855, 248483));
  EXPECT_THAT(f.positions("user:42"),
              ElementsAre(331156, 860025, 388890, 917758, 446624, 975492, 504357));
  EXPECT_THAT(f.positions(""), ElementsAre(375028, 975280, 575529, 175779, 776031, 376281, 976533));
}

TEST(ClassicFilter, SeedChangesPositions) {
  bloom_filter a(1 << 20, 7, hash_kind::xxh3, 0);
  bloom_filter b(1 << 20, 7, hash_kind::xxh3, 12345);
  EXPECT_NE(a.positions("anna"), b.positions("anna"));
}

TEST(ClassicFilter, Md5UsesTheSameIndexedScheme) {
  bloom_filter f(1 << 16, 3, hash_kind::md5);
  const auto p = f.positions("anna");
  ASSERT_EQ(p.size(), 3U);
  EXPECT_EQ(p[0], md5_64("0:anna") % (1 << 16));
  EXPECT_EQ(p[2], md5_64("2:anna") % (1 << 16));
}

// --- arguments -----------------------------------------------------------------

TEST(ClassicFilter, RefusesBadArgumentsWithSentences) {
  try {
    bloom_filter f(0, 3);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "a classic Bloom filter needs between 1 and 1099511627776 bits, got 0; give a "
                 "positive size within the limit, or size the filter from a capacity and a "
                 "false-positive rate");
  }
  EXPECT_THROW(bloom_filter(100, 0), std::invalid_argument);
  EXPECT_THROW(bloom_filter(100, max_filter_hashes + 1), std::invalid_argument);
  EXPECT_THROW(bloom_filter(max_filter_bits + 1, 3), std::invalid_argument);
  try {
    bloom_filter f(100, 3, hash_kind::sha256, 7);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "the seed 7 is only used by the xxh3 hash, not by sha256; use seed 0 with "
                 "sha256, or xxh3");
  }
  EXPECT_THROW((void)bloom_filter::for_capacity(0, 0.01), std::invalid_argument);
  EXPECT_THROW((void)bloom_filter::for_capacity(10, 1.5), std::invalid_argument);
}

// --- behaviour ---------------------------------------------------------------

TEST(ClassicFilter, NoFalseNegativesAcrossHashes) {
  for (auto hash : {hash_kind::xxh3, hash_kind::sha256, hash_kind::md5, hash_kind::poly31}) {
    auto f = bloom_filter::for_capacity(2000, 0.01, hash);
    for (int i = 0; i < 2000; ++i) f.add("item-" + std::to_string(i));
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(f.may_contain("item-" + std::to_string(i))) << hash_name(hash) << " " << i;
      ASSERT_TRUE(f.may_contain_concurrent("item-" + std::to_string(i)));
    }
  }
}

TEST(ClassicFilter, EmptyFilterContainsNothing) {
  bloom_filter f(1000, 5);
  EXPECT_FALSE(f.may_contain("anything"));
  EXPECT_FALSE(f.may_contain(""));
  const filter_stats s = f.stats();
  EXPECT_EQ(s.bits_set, 0U);
  EXPECT_EQ(s.expected_fpr, 0.0);
  EXPECT_EQ(s.estimated_items, 0.0);
}

TEST(ClassicFilter, StatsDescribeTheBits) {
  bloom_filter f(8000, 7, hash_kind::sha256);
  for (int i = 0; i < 1000; ++i) f.add("user" + std::to_string(i) + "@example.com");
  f.add("user0@example.com");  // a duplicate changes the count, not the bits
  const filter_stats s = f.stats();
  EXPECT_EQ(s.kind, filter_kind::classic);
  EXPECT_EQ(s.hash, hash_kind::sha256);
  EXPECT_EQ(s.bits, 8000U);
  EXPECT_EQ(s.hashes, 7U);
  EXPECT_EQ(s.layers, 1U);
  EXPECT_EQ(s.items_added, 1001U);
  EXPECT_EQ(s.bits_set, 4660U);
  EXPECT_DOUBLE_EQ(s.fill_ratio, 4660.0 / 8000);
  EXPECT_DOUBLE_EQ(s.expected_fpr, std::pow(4660.0 / 8000, 7));
  // Swamidass-Baldi sees the 1000 distinct items, not the 1001 additions:
  // -(8000/7) ln(1 - 4660/8000) = 1000.7.
  EXPECT_NEAR(s.estimated_items, 1000, 10);
  EXPECT_EQ(s.memory_bytes, 1000U);  // 125 words of 8 bytes
}

TEST(ClassicFilter, EstimateTracksDistinctItems) {
  auto f = bloom_filter::for_capacity(100'000, 0.01);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50'000; ++i) f.add("k" + std::to_string(i));
  }
  EXPECT_EQ(f.items_added(), 150'000U);
  // Stated tolerance: 2% (the estimator's sd here is well under 0.5%).
  EXPECT_NEAR(f.estimated_items(), 50'000, 1000);
}

TEST(ClassicFilter, UnionAndIntersection) {
  bloom_filter a(1 << 16, 5);
  bloom_filter b(1 << 16, 5);
  for (int i = 0; i < 500; ++i) a.add("a" + std::to_string(i));
  for (int i = 0; i < 500; ++i) b.add("b" + std::to_string(i));
  for (int i = 0; i < 100; ++i) {
    a.add("both" + std::to_string(i));
    b.add("both" + std::to_string(i));
  }
  bloom_filter u = a;
  u.merge(b);
  bloom_filter x = a;
  x.intersect(b);
  for (int i = 0; i < 500; ++i) {
    EXPECT_TRUE(u.may_contain("a" + std::to_string(i)));
    EXPECT_TRUE(u.may_contain("b" + std::to_string(i)));
  }
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(x.may_contain("both" + std::to_string(i)));
  EXPECT_EQ(u.items_added(), 1200U);
  EXPECT_EQ(x.items_added(), 600U);
  // The union's bits are exactly those of a filter given every item.
  bloom_filter all(1 << 16, 5);
  for (int i = 0; i < 500; ++i) all.add("a" + std::to_string(i));
  for (int i = 0; i < 500; ++i) all.add("b" + std::to_string(i));
  for (int i = 0; i < 100; ++i) all.add("both" + std::to_string(i));
  EXPECT_TRUE(std::equal(u.words().begin(), u.words().end(), all.words().begin()));
  // The intersection's bits are a subset of both.
  for (std::size_t w = 0; w < x.words().size(); ++w) {
    EXPECT_EQ(x.words()[w] & ~a.words()[w], 0U);
    EXPECT_EQ(x.words()[w] & ~b.words()[w], 0U);
  }
}

TEST(ClassicFilter, IncompatibleFiltersAreRefusedAndLeftUnchanged) {
  bloom_filter a(1000, 5);
  a.add("x");
  const bloom_filter before = a;
  try {
    a.merge(bloom_filter(2000, 5));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "cannot merge incompatible filters: the first has 1000 bits and the second "
                 "2000; only filters of the same kind, size, number of hashes, hash and seed can "
                 "be combined, so create them with the same options");
  }
  EXPECT_THROW(a.intersect(bloom_filter(1000, 6)), std::invalid_argument);
  EXPECT_THROW(a.merge(bloom_filter(1000, 5, hash_kind::sha256)), std::invalid_argument);
  EXPECT_THROW(a.merge(bloom_filter(1000, 5, hash_kind::xxh3, 1)), std::invalid_argument);
  EXPECT_TRUE(a == before);
  std::string why;
  EXPECT_FALSE(a.compatible_with(bloom_filter(1000, 5, hash_kind::xxh3, 1), &why));
  EXPECT_EQ(why, "the first has seed 0 and the second 1");
}

TEST(ClassicFilter, ClearForgetsEverything) {
  bloom_filter f(1000, 3);
  f.add("a");
  f.clear();
  EXPECT_FALSE(f.may_contain("a"));
  EXPECT_EQ(f.items_added(), 0U);
  EXPECT_TRUE(f == bloom_filter(1000, 3));
}

TEST(ClassicFilter, HashedAddMatchesPlainAdd) {
  bloom_filter a(4096, 6, hash_kind::xxh3, 9);
  bloom_filter b(4096, 6, hash_kind::xxh3, 9);
  a.add("item");
  b.add_hash(xxh3_128("item", 9));
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(b.may_contain_hash(xxh3_128("item", 9)));
  bloom_filter s(4096, 6, hash_kind::sha256);
  EXPECT_THROW(s.add_hash(xxh3_128("item")), std::logic_error);
}

TEST(ClassicFilter, TailBitsStayZero) {
  bloom_filter f(70, 4);  // two words, 58 unused bits in the second
  for (int i = 0; i < 1000; ++i) f.add(std::to_string(i));
  EXPECT_EQ(f.words()[1] >> 6, 0U);
  EXPECT_EQ(f.stats().bits_set, 70U);
  EXPECT_TRUE(std::isinf(f.stats().estimated_items));
  EXPECT_EQ(f.stats().expected_fpr, 1.0);
}

}  // namespace
}  // namespace ringbloom
