// The rules of the system schemes (nginx, HAProxy, twemproxy, Redis Cluster)
// that can be checked without the systems: point counts, tie and id rules,
// errors. Key-for-key agreement with the real systems is in
// scheme_peers_test.cpp; the golden placements here pin it against change.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"

namespace ringbloom::schemes {
namespace {

using ::testing::HasSubstr;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// ------------------------------------------------------------------- nginx

TEST(NginxScheme, SplitsServerTextAsNginxDoes) {
  auto split = [](std::string_view s) {
    const nginx_host_port hp = nginx_split_server(s);
    return std::string(hp.host) + "|" + std::string(hp.port);
  };
  EXPECT_EQ(split("10.0.0.1:8080"), "10.0.0.1|8080");
  EXPECT_EQ(split("backend.local"), "backend.local|");
  EXPECT_EQ(split("unix:/run/app.sock"), "/run/app.sock|");
  EXPECT_EQ(split("UNIX:/run/app.sock"), "/run/app.sock|");
  EXPECT_EQ(split("[::1]:80"), "[::1]|80");
  EXPECT_EQ(split("host:8a"), "host:8a|");  // not all digits after ':'
  EXPECT_EQ(split("host:"), "host|");
}

TEST(NginxScheme, PointsAreChainedCrc32AndWeightTimes160) {
  const nginx_placement p({{"10.0.0.1:80", 1}, {"10.0.0.2:80", 3}});
  EXPECT_EQ(p.points().size(), 4u * 160u);
  // Point 0 of a server: CRC-32 of host, NUL, port and four zero bytes.
  const std::string first(
      "10.0.0.1\0"
      "80\0\0\0\0",
      15);
  bool found = false;
  for (std::size_t i = 0; i < p.points().size(); ++i) {
    if (p.points().position(i) == crc32(first)) {
      found = p.points().owner(i) == 0;
    }
  }
  EXPECT_TRUE(found);
}

TEST(NginxScheme, GoldenPlacements) {
  nginx_placement p({{"10.0.0.1:8080", 1}, {"10.0.0.2:8080", 2}, {"unix:/run/app.sock", 1}});
  std::map<std::string, std::string> got;
  for (const char* key : {"user:42", "/index.html", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "a"}) {
    got[key] = p.node_for(key);
  }
  EXPECT_EQ(got, (std::map<std::string, std::string>{
                     {"user:42", "unix:/run/app.sock"},
                     {"/index.html", "10.0.0.1:8080"},
                     {"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "10.0.0.1:8080"},
                     {"a", "10.0.0.1:8080"}}));
  // nginx balances an empty key round robin: it has no server.
  EXPECT_THROW((void)p.node_for(""), std::invalid_argument);
}

TEST(NginxScheme, RemovingAServerMovesOnlyItsKeys) {
  nginx_placement before({{"a:1", 1}, {"b:1", 1}, {"c:1", 1}, {"d:1", 1}});
  nginx_placement after = before;
  after.remove_node("b:1");
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "k" + std::to_string(i);
    if (before.node_for(key) != "b:1") {
      EXPECT_EQ(before.node_for(key), after.node_for(key));
    }
  }
}

TEST(NginxScheme, RefusesBadServers) {
  EXPECT_THAT(error_of([] {
                nginx_placement({{"a:1", 1}, {"a:1", 2}});
              }),
              HasSubstr("'a:1' already exists"));
  EXPECT_THAT(error_of([] {
                nginx_placement({{"a:1", 0}});
              }),
              HasSubstr("not an integer in [1, 100000]"));
  EXPECT_THAT(error_of([] { nginx_placement({{"", 1}}); }), HasSubstr("empty address"));
  nginx_placement p({{"a:1", 1}});
  EXPECT_THAT(error_of([&] { p.set_weight("a:1", 1.5); }), HasSubstr("not an integer"));
  EXPECT_THAT(error_of([&] { p.remove_node("zz"); }), HasSubstr("no node is named 'zz'"));
  EXPECT_THROW((void)nginx_placement().node_index_for_hash(1), std::logic_error);
}

// ----------------------------------------------------------------- haproxy

TEST(HaproxyScheme, AutomaticIdsSkipExplicitOnesAndRenumberOnRemoval) {
  EXPECT_EQ(haproxy_server_ids({{"a", 1, 0}, {"b", 1, 0}, {"c", 1, 0}}),
            (std::vector<std::uint32_t>{1, 2, 3}));
  // b takes id 1 explicitly: a gets 2 and the counter moves to 3; it moves
  // on after b too (to 4), so c gets 4 although 3 is free (cfgparse.c).
  EXPECT_EQ(haproxy_server_ids({{"a", 1, 0}, {"b", 1, 1}, {"c", 1, 0}}),
            (std::vector<std::uint32_t>{2, 1, 4}));
  EXPECT_EQ(haproxy_server_ids({{"a", 1, 0}, {"b", 1, 5}, {"c", 1, 0}, {"d", 1, 0}}),
            (std::vector<std::uint32_t>{1, 5, 3, 4}));
  EXPECT_THAT(error_of([] {
                (void)haproxy_server_ids({{"a", 1, 3}, {"b", 1, 3}});
              }),
              HasSubstr("reuses id 3"));

  haproxy_placement p({}, {{"s1", 1, 0}, {"s2", 1, 0}, {"s3", 1, 0}, {"s4", 1, 0}});
  p.remove_node("s2");
  EXPECT_EQ(p.ids(), (std::vector<std::uint32_t>{1, 2, 3})) << "s3 and s4 take ids 2 and 3";
}

TEST(HaproxyScheme, PointsDependOnIdAndWeightOnly) {
  const haproxy_placement a({}, {{"alpha", 2, 0}, {"beta", 1, 0}});
  const haproxy_placement b({}, {{"x", 2, 0}, {"y", 1, 0}});
  ASSERT_EQ(a.points().size(), 3u * 16u);
  for (std::size_t i = 0; i < a.points().size(); ++i) {
    EXPECT_EQ(a.points().position(i), b.points().position(i));
    EXPECT_EQ(a.points().owner(i), b.points().owner(i));
  }
}

TEST(HaproxyScheme, ClosestPointWins) {
  // One point per side: the key goes to whichever point is nearer.
  const haproxy_placement p({haproxy_hash::sdbm, false}, {{"a", 1, 0}, {"b", 1, 0}});
  const auto& pts = p.points();
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    if (pts.owner(i) == pts.owner(i + 1)) continue;
    const std::uint32_t lo = pts.position(i);
    const std::uint32_t hi = pts.position(i + 1);
    const std::uint32_t mid = lo + (hi - lo) / 2;
    EXPECT_EQ(p.owner_of(lo + 1), pts.owner(i));
    EXPECT_EQ(p.owner_of(hi - 1), pts.owner(i + 1)) << "the next-point rule would also say this";
    EXPECT_EQ(p.owner_of(mid), pts.owner(i))
        << "a tie (or the lower half) goes to the previous point";
    if (hi - lo > 4) {
      EXPECT_EQ(p.owner_of(mid + 2), pts.owner(i + 1));
    }
  }
}

TEST(HaproxyScheme, WeightZeroGetsNothingAndLimitsAreHaproxys) {
  haproxy_placement p({}, {{"a", 1, 0}, {"b", 0, 0}});
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(p.node_for("k" + std::to_string(i)), "a");
  EXPECT_THAT(error_of([] {
                haproxy_placement({}, {{"a", 257, 0}});
              }),
              HasSubstr("not an integer in [0, 256]"));
  EXPECT_THROW((void)haproxy_placement({}, {{"a", 0, 0}}).node_index_for_hash(1), std::logic_error);
}

TEST(HaproxyScheme, GoldenPlacements) {
  const haproxy_placement p({}, {{"s1", 1, 0}, {"s2", 2, 0}, {"s3", 1, 9}});
  std::map<std::string, std::string> got;
  for (const char* key : {"user:42", "/index.html", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "a", ""}) {
    got[key] = p.node_for(key);
  }
  EXPECT_EQ(got, (std::map<std::string, std::string>{{"user:42", "s2"},
                                                     {"/index.html", "s3"},
                                                     {"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "s2"},
                                                     {"a", "s2"},
                                                     {"", "s3"}}));
  EXPECT_EQ(p.hash32("user:42"), haproxy_full_hash(haproxy_sdbm("user:42")));
  EXPECT_EQ(haproxy_placement({haproxy_hash::crc32, false}, {{"a", 1, 0}}).hash32("user:42"),
            crc32("user:42"));
}

// --------------------------------------------------------------- twemproxy

TEST(TwemproxyScheme, PointCountsAreLibmemcachedsFloatFormula) {
  std::vector<twemproxy_server> servers;
  for (int i = 0; i < 25; ++i) servers.push_back({"m" + std::to_string(i), 1});
  EXPECT_EQ(twemproxy_placement(twemproxy_hash::fnv1a_64, servers).points_of(0), 156u)
      << "25 servers: 156";
  servers.pop_back();
  EXPECT_EQ(twemproxy_placement(twemproxy_hash::fnv1a_64, servers).points_of(0), 160u)
      << "24 servers: 160";
  const twemproxy_placement w(twemproxy_hash::md5, {{"a", 1}, {"b", 3}});
  EXPECT_EQ(w.points_of(0), 80u);
  EXPECT_EQ(w.points_of(1), 240u);
}

TEST(TwemproxyScheme, NamesAreHashedVerbatim) {
  EXPECT_EQ(twemproxy_default_name("10.0.0.1", 11211), "10.0.0.1");
  EXPECT_EQ(twemproxy_default_name("10.0.0.1", 11212), "10.0.0.1:11212");
  // "cache:11211" as an explicit name keeps its port: its first point is
  // MD5("cache:11211-0"), not MD5("cache-0").
  const twemproxy_placement p(twemproxy_hash::md5, {{"cache:11211", 1}});
  bool found = false;
  for (std::size_t i = 0; i < p.points().size(); ++i)
    found |= p.points().position(i) == md5_word_le("cache:11211-0", 0);
  EXPECT_TRUE(found);
}

TEST(TwemproxyScheme, GoldenPlacements) {
  const twemproxy_placement p(twemproxy_hash::fnv1a_64,
                              {{"cache-1:11211", 1}, {"shard:a", 2}, {"10.0.0.3", 1}});
  std::map<std::string, std::string> got;
  for (const char* key : {"user:42", "/index.html", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "a", ""}) {
    got[key] = p.node_for(key);
  }
  EXPECT_EQ(got,
            (std::map<std::string, std::string>{{"user:42", "cache-1:11211"},
                                                {"/index.html", "cache-1:11211"},
                                                {"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "10.0.0.3"},
                                                {"a", "cache-1:11211"},
                                                {"", "shard:a"}}));
}

TEST(TwemproxyScheme, RefusesBadServersAndHashes) {
  EXPECT_THAT(error_of([] {
                twemproxy_placement(twemproxy_hash::md5, {{"a", 1}, {"a", 1}});
              }),
              HasSubstr("already exists"));
  EXPECT_THAT(error_of([] {
                twemproxy_placement(twemproxy_hash::md5, {{"a", 0}});
              }),
              HasSubstr("[1, 100000]"));
  EXPECT_FALSE(find_twemproxy_hash("murmur").has_value());
  EXPECT_EQ(find_twemproxy_hash("fnv1a_64"), twemproxy_hash::fnv1a_64);
}

// ----------------------------------------------------------- redis cluster

TEST(RedisClusterScheme, EvenSplitIsRedisClis) {
  const auto three = redis_even_split({"a:1", "b:1", "c:1"});
  EXPECT_EQ(three[0].slots, (std::vector<redis_slot_range>{{0, 5460}}));
  EXPECT_EQ(three[1].slots, (std::vector<redis_slot_range>{{5461, 10922}}));
  EXPECT_EQ(three[2].slots, (std::vector<redis_slot_range>{{10923, 16383}}));
  const auto one = redis_even_split({"a:1"});
  EXPECT_EQ(one[0].slots, (std::vector<redis_slot_range>{{0, 16383}}));
}

TEST(RedisClusterScheme, OwnersFollowSlotRangesAndGapsAreErrors) {
  const redis_cluster_placement c({{"a:1", {{0, 99}, {200, 16383}}}, {"b:1", {{100, 150}}}});
  EXPECT_EQ(c.node_name(c.node_index_for_hash(50)), "a:1");
  EXPECT_EQ(c.node_name(c.node_index_for_hash(120)), "b:1");
  EXPECT_THAT(error_of([&] { (void)c.node_index_for_hash(175); }),
              HasSubstr("slot 175 is served by no master"));
  EXPECT_THROW((void)c.node_index_for_hash(175), data_error);
  EXPECT_THAT(error_of([] {
                redis_cluster_placement({{"a:1", {{0, 10}}}, {"b:1", {{10, 20}}}});
              }),
              HasSubstr("slot 10 is given to both 'a:1' and 'b:1'"));
  EXPECT_THAT(error_of([] {
                redis_cluster_placement({{"a:1", {{0, 16384}}}});
              }),
              HasSubstr("slots are 0..16383"));
  EXPECT_EQ(c.node_for("{x}y"), c.node_name(c.node_index_for_hash(redis_key_slot("x"))));
}

}  // namespace
}  // namespace ringbloom::schemes
