// HyperLogLog Redis mode against a real redis-server (Debian's 7.0) on loopback:
// PFADD the same items, GET the string, compare register for register and
// count for count; SET our strings and compare PFCOUNT, PFADD and PFMERGE.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "sketch/redis_server.hpp"

namespace ringbloom {
namespace {

std::vector<std::string> items(std::string_view prefix, std::size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::string(prefix) + std::to_string(i));
  return out;
}

// PFADD in batches of 1000 (one command per batch).
void pfadd(test::redis_server& redis, const std::string& key, const std::vector<std::string>& xs) {
  for (std::size_t start = 0; start < xs.size(); start += 1000) {
    std::vector<std::string> cmd{"PFADD", key};
    for (std::size_t i = start; i < std::min(xs.size(), start + 1000); ++i) cmd.push_back(xs[i]);
    const auto r = redis.command(cmd);
    ASSERT_EQ(r.type, ':') << r.text;
  }
}

class HllRedisPeer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { redis_ = new test::redis_server(); }
  static void TearDownTestSuite() {
    delete redis_;
    redis_ = nullptr;
  }
  static test::redis_server* redis_;
};
test::redis_server* HllRedisPeer::redis_ = nullptr;

TEST_F(HllRedisPeer, RegistersAndCountsEqualPfaddAtEverySize) {
  // 1..300 stay sparse in Redis, 3000 and up are dense (hll-sparse-max-bytes 3000).
  for (const std::size_t n : {1u, 7u, 300u, 3000u, 20000u, 200000u}) {
    const std::string key = "hll:" + std::to_string(n);
    const auto xs = items("user:" + std::to_string(n) + ":", n);
    pfadd(*redis_, key, xs);
    hyperloglog ours = hyperloglog::redis();
    for (const auto& x : xs) ours.add(x);

    const auto got = redis_->command({"GET", key});
    ASSERT_EQ(got.type, '$');
    const hyperloglog theirs = from_redis_string(got.text);
    EXPECT_EQ(std::vector<std::uint8_t>(theirs.registers().begin(), theirs.registers().end()),
              std::vector<std::uint8_t>(ours.registers().begin(), ours.registers().end()))
        << "n = " << n << " (" << (got.text[4] == 0 ? "dense" : "sparse") << ")";
    const auto count = redis_->command({"PFCOUNT", key});
    EXPECT_EQ(static_cast<std::uint64_t>(count.integer), ours.count()) << "n = " << n;
  }
}

TEST_F(HllRedisPeer, RedisAcceptsOurDenseAndSparseStrings) {
  for (const std::size_t n : {0u, 50u, 1500u, 100000u}) {
    hyperloglog ours = hyperloglog::redis();
    for (const auto& x : items("ours:", n)) ours.add(x);
    for (const auto encoding : {redis_hll_encoding::dense, redis_hll_encoding::sparse}) {
      std::string blob;
      try {
        blob = to_redis_string(ours, encoding);
      } catch (const std::invalid_argument&) {
        ASSERT_EQ(encoding, redis_hll_encoding::sparse);  // a register above 32
        continue;
      }
      const std::string key = "set:" + std::to_string(n) + ":" + std::to_string(int(encoding));
      ASSERT_EQ(redis_->command({"SET", key, blob}).text, "OK");
      const auto count = redis_->command({"PFCOUNT", key});
      ASSERT_EQ(count.type, ':') << count.text;
      EXPECT_EQ(static_cast<std::uint64_t>(count.integer), ours.count()) << key;

      // Redis keeps adding to our string exactly as to its own.
      const auto more = items("more:", 500);
      pfadd(*redis_, key, more);
      hyperloglog expected = ours;
      for (const auto& x : more) expected.add(x);
      const hyperloglog back = from_redis_string(redis_->command({"GET", key}).text);
      EXPECT_TRUE(back == expected) << key;
    }
  }
}

TEST_F(HllRedisPeer, PfmergeOfOurStringsEqualsOurMerge) {
  hyperloglog a = hyperloglog::redis();
  hyperloglog b = hyperloglog::redis();
  for (const auto& x : items("a:", 40000)) a.add(x);
  for (const auto& x : items("b:", 700)) b.add(x);
  ASSERT_EQ(redis_->command({"SET", "merge:a", to_redis_string(a)}).text, "OK");
  ASSERT_EQ(redis_->command({"SET", "merge:b", to_redis_string(b)}).text, "OK");
  ASSERT_EQ(redis_->command({"PFMERGE", "merge:out", "merge:a", "merge:b"}).text, "OK");
  hyperloglog both = a;
  both.merge(b);
  EXPECT_TRUE(from_redis_string(redis_->command({"GET", "merge:out"}).text) == both);
  EXPECT_EQ(static_cast<std::uint64_t>(redis_->command({"PFCOUNT", "merge:a", "merge:b"}).integer),
            both.count());
}

TEST_F(HllRedisPeer, RedisRefusesWhatWeRefuse) {
  // A dense string one byte short: Redis says WRONGTYPE, we throw data_error.
  hyperloglog h = hyperloglog::redis();
  h.add("x");
  std::string blob = to_redis_string(h, redis_hll_encoding::dense);
  blob.pop_back();
  ASSERT_EQ(redis_->command({"SET", "bad", blob}).text, "OK");
  EXPECT_EQ(redis_->command({"PFCOUNT", "bad"}).type, '-');
  EXPECT_THROW((void)from_redis_string(blob), data_error);
}

}  // namespace
}  // namespace ringbloom
