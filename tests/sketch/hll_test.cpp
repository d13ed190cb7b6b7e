// HyperLogLog: ranges, merge, Redis strings, and accuracy with fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/mix.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"

namespace ringbloom {
namespace {

TEST(Hll, PrecisionOutsideFourToEighteenIsRefusedNamingTheRange) {
  for (const unsigned p : {0u, 3u, 19u, 64u}) {
    try {
      hyperloglog h(p);
      FAIL() << p;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("from 4 to 18"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(hyperloglog(4).register_count(), 16u);
  EXPECT_EQ(hyperloglog(18).register_count(), 262144u);
  EXPECT_EQ(hyperloglog().register_count(), 16384u);
}

TEST(Hll, EmptyCountsZeroAndDuplicatesChangeNothing) {
  hyperloglog h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_TRUE(h.add("anna"));
  EXPECT_FALSE(h.add("anna"));
  h.add("bora");
  EXPECT_EQ(h.count(), 2u);
}

TEST(Hll, RegisterRuleIsLowBitsIndexAndTrailingZerosOfTheRest) {
  hyperloglog h(4);
  // index 5, rest = 0b1000 -> 3 trailing zeros -> value 4
  h.add_hash((std::uint64_t{0b1000} << 4) | 5);
  EXPECT_EQ(h.registers()[5], 4);
  // rest = 0: the run is capped at 64 - p + 1 = 61
  h.add_hash(7);
  EXPECT_EQ(h.registers()[7], 61);
  EXPECT_EQ(h.max_register(), 61u);
}

TEST(Hll, MergeIsTheUnionAndRefusesOtherShapes) {
  hyperloglog a, b, all;
  for (int i = 0; i < 5000; ++i) {
    const std::string x = "k" + std::to_string(i);
    (i % 2 ? a : b).add(x);
    all.add(x);
  }
  a.merge(b);
  EXPECT_TRUE(a == all);
  EXPECT_THROW(a.merge(hyperloglog(12)), std::invalid_argument);
  EXPECT_THROW(a.merge(hyperloglog(14, 99)), std::invalid_argument);
  try {
    a.merge(hyperloglog::redis());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Redis mode"), std::string::npos) << e.what();
  }
}

TEST(Hll, AddManyEqualsAddOneByOne) {
  std::vector<std::string> xs;
  for (int i = 0; i < 1000; ++i) xs.push_back("item-" + std::to_string(i));
  std::vector<std::string_view> views(xs.begin(), xs.end());
  hyperloglog a, b;
  a.add_many(views);
  for (const auto& x : xs) b.add(x);
  EXPECT_TRUE(a == b);
}

// MurmurHash64A reference values, computed by tests/sketch/sketch_golden.py
// (an independent Python transcription of the algorithm).
TEST(Hll, Murmur64aMatchesTheReference) {
  EXPECT_EQ(murmur64a("", 0xadc83b19), 0xd8dfea6585bc9732ULL);
  EXPECT_EQ(murmur64a("a", 0xadc83b19), 0x53d2470a9b43b1a7ULL);
  EXPECT_EQ(murmur64a("hello world", 0xadc83b19), 0xa919bc3051f624b7ULL);
  EXPECT_EQ(murmur64a("0123456789abcdef", 0xadc83b19), 0x9f8565428eaa573dULL);
}

TEST(Hll, RedisStringsRoundTripDenseAndSparse) {
  hyperloglog h = hyperloglog::redis();
  for (int i = 0; i < 300; ++i) h.add("u" + std::to_string(i));
  const std::string dense = to_redis_string(h, redis_hll_encoding::dense);
  const std::string sparse = to_redis_string(h, redis_hll_encoding::sparse);
  EXPECT_EQ(dense.size(), 12304u);
  EXPECT_LT(sparse.size(), 1200u);
  EXPECT_EQ(redis_string_encoding(dense), redis_hll_encoding::dense);
  EXPECT_EQ(redis_string_encoding(sparse), redis_hll_encoding::sparse);
  EXPECT_TRUE(from_redis_string(dense) == h);
  EXPECT_TRUE(from_redis_string(sparse) == h);
  EXPECT_EQ(to_redis_string(hyperloglog::redis()).size(), 18u);  // XZERO:16384
  EXPECT_THROW((void)to_redis_string(hyperloglog()), std::invalid_argument);
}

TEST(Hll, InvalidRedisStringsAreRefused) {
  const std::string empty = to_redis_string(hyperloglog::redis());
  auto refused = [](const std::string& s, std::string_view why) {
    try {
      (void)from_redis_string(s);
      ADD_FAILURE() << why;
    } catch (const data_error& e) {
      EXPECT_NE(std::string(e.what()).find("not a valid Redis HyperLogLog"), std::string::npos);
    }
  };
  refused("", "empty");
  refused("HYLX" + empty.substr(4), "magic");
  std::string enc = empty;
  enc[4] = 2;
  refused(enc, "encoding");
  refused(empty.substr(0, 17), "cut XZERO");
  refused(empty + std::string(1, '\0'), "one register too many");
  std::string short_cover = empty;
  short_cover[16] = 0x7f;  // XZERO of 16384 -> 0x7f,0xff; make it 16128
  short_cover[17] = static_cast<char>(0x00);
  refused(short_cover, "too few registers");
  std::string dense(12304, '\0');
  dense.replace(0, 4, "HYLL");
  for (int i = 16; i < 28; ++i) dense[static_cast<std::size_t>(i)] = static_cast<char>(0xff);
  refused(dense, "register 63");
  refused(dense.substr(0, 12303), "dense too short");
}

// Accuracy: fixed seeds, many independent sketches, pre-hashed random values
// (a perfect hash), checked at decades and at 2.5 m where the classic
// estimator switches from linear counting. Goal: relative
// standard error within 1.1 x 1.04 / sqrt(m), |bias| <= 0.5%. With 400
// sketches the RSE is itself measured to within about 3.5% (one standard
// deviation), so 1.1 x is about 3 deviations of slack; the bias's standard
// error is 1.04 / sqrt(m) / 20 = 0.08% at p = 12, six times below 0.5%.
TEST(HllAccuracy, RelativeErrorAndBiasAtEveryCheckpoint) {
  constexpr unsigned p = 12;
  constexpr int sketches = 400;
  const std::vector<std::uint64_t> checkpoints = {100, 1000, 10240, 100000};
  const double sigma = 1.04 / std::sqrt(4096.0);
  std::vector<double> sum(checkpoints.size()), sum_sq(checkpoints.size());
  std::uint64_t state = 20260101;
  for (int s = 0; s < sketches; ++s) {
    hyperloglog h(p);
    std::uint64_t added = 0;
    for (std::size_t c = 0; c < checkpoints.size(); ++c) {
      for (; added < checkpoints[c]; ++added) h.add_hash(splitmix64_next(state));
      const double e = h.estimate() / static_cast<double>(checkpoints[c]) - 1.0;
      sum[c] += e;
      sum_sq[c] += e * e;
    }
  }
  for (std::size_t c = 0; c < checkpoints.size(); ++c) {
    const double bias = sum[c] / sketches;
    const double rse = std::sqrt(sum_sq[c] / sketches);
    EXPECT_LE(std::abs(bias), 0.005) << "n = " << checkpoints[c];
    EXPECT_LE(rse, 1.1 * sigma) << "n = " << checkpoints[c];
    RecordProperty("rse_" + std::to_string(checkpoints[c]), std::to_string(rse));
  }
}

TEST(HllAccuracy, SmallCountsAreNearlyExact) {
  hyperloglog h;
  for (int i = 1; i <= 200; ++i) {
    h.add("n" + std::to_string(i));
    EXPECT_NEAR(static_cast<double>(h.count()), i, 1.0 + 0.01 * i) << i;
  }
}

}  // namespace
}  // namespace ringbloom
