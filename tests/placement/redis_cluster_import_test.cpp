// Reading a Redis Cluster's CLUSTER NODES and CLUSTER SLOTS output. The
// golden files in tests/placement/data/ were saved from a real cluster
// (redis-server 7.0.15, 3 masters with a replica each, made by
// `redis-cli --cluster create ... --cluster-replicas 1`, then
// `cluster delslotsrange 100 199` on the first master and
// `config set cluster-announce-hostname cache-b.example` on the second):
//   cluster_slots_raw.txt   redis-cli -p P cluster slots > FILE   (raw)
//   cluster_slots_tty.txt   redis-cli --no-raw -p P cluster slots  (terminal)
//   cluster_slots.json      redis-cli --json -p P cluster slots
//   cluster_nodes.txt       redis-cli -p P cluster nodes
// All four describe one cluster; each must give the same owner for every
// slot. The live comparison (a cluster started by the test) is in
// scheme_peers_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"

namespace ringbloom::schemes {
namespace {

using ::testing::HasSubstr;

std::string data(const std::string& name) {
  return io::read_file(std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests" / "placement" /
                       "data" / name);
}

/// The owner of every slot ("" when none serves it).
std::vector<std::string> owners(const placement& p) {
  const auto& cluster = dynamic_cast<const redis_cluster_placement&>(p);
  std::vector<std::string> out(redis_slot_count);
  for (std::uint32_t s = 0; s < redis_slot_count; ++s) {
    const std::uint32_t i = cluster.slot_owner(s);
    out[s] = i == redis_cluster_placement::no_owner ? "" : cluster.node_name(i);
  }
  return out;
}

std::string error_of(std::string_view text) {
  try {
    (void)import_redis_cluster(text, "slots.txt");
  } catch (const data_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RedisClusterImport, DetectsEachFormOfRedisCli) {
  EXPECT_EQ(detect_redis_cluster_output(data("cluster_slots_raw.txt")),
            redis_cluster_output::slots_raw);
  EXPECT_EQ(detect_redis_cluster_output(data("cluster_slots_tty.txt")),
            redis_cluster_output::slots_tty);
  EXPECT_EQ(detect_redis_cluster_output(data("cluster_slots.json")),
            redis_cluster_output::slots_json);
  EXPECT_EQ(detect_redis_cluster_output(data("cluster_nodes.txt")), redis_cluster_output::nodes);
}

TEST(RedisClusterImport, TheFourGoldenFilesGiveOneOwnerPerSlot) {
  const auto expected = owners(*import_redis_cluster(data("cluster_nodes.txt"), "nodes"));
  // The ranges as the cluster printed them (golden).
  for (std::uint32_t s = 0; s < redis_slot_count; ++s) {
    const std::string want = s < 100     ? "127.0.0.1:47101"
                             : s < 200   ? ""
                             : s < 5461  ? "127.0.0.1:47101"
                             : s < 10923 ? "127.0.0.1:47102"
                                         : "127.0.0.1:47103";
    ASSERT_EQ(expected[s], want) << "slot " << s;
  }
  for (const char* file :
       {"cluster_slots_raw.txt", "cluster_slots_tty.txt", "cluster_slots.json"}) {
    const auto p = import_redis_cluster(data(file), file);
    EXPECT_EQ(p->node_count(), 3u) << file << ": the replicas own no slot";
    EXPECT_EQ(owners(*p), expected) << file;
    EXPECT_EQ(p->node_for("123456789"), "127.0.0.1:47103") << file;  // slot 12739
  }
}

TEST(RedisClusterImport, Redis6RawOutputWithoutMetadataReadsTheSame) {
  // Before Redis 7 a node was host, port, id (no metadata, no empty line).
  const auto p = import_redis_cluster_slots(
      "0\n8191\n10.0.0.1\n6379\n" + std::string(40, 'a') + "\n10.0.0.3\n6379\n" +
          std::string(40, 'c') + "\n8192\n16383\n10.0.0.2\n6380\n" + std::string(40, 'b') + "\n",
      "old.txt");
  ASSERT_EQ(p->node_count(), 2u);
  EXPECT_EQ(p->node_name(0), "10.0.0.1:6379");
  EXPECT_EQ(p->node_name(1), "10.0.0.2:6380");
  EXPECT_EQ(owners(*p)[8192], "10.0.0.2:6380");
}

TEST(RedisClusterImport, RefusesBrokenRepliesWithFileAndLine) {
  const std::string id(40, 'a');
  // Raw: cut after the master's host.
  EXPECT_THAT(error_of("0\n5460\n127.0.0.1\n"), HasSubstr("slots.txt:1: expected an entry"));
  // Raw: a slot beyond 16383, on the second entry's line.
  EXPECT_THAT(error_of("0\n5\nh\n1\n" + id + "\n\n6\n16384\nh\n2\n" + id + "\n"),
              HasSubstr("slots.txt:7: 6-16384 is not a slot range within 0-16383"));
  // Raw: a slot listed twice.
  EXPECT_THAT(error_of("0\n5\nh\n1\n" + id + "\n\n5\n9\nh\n2\n" + id + "\n"),
              HasSubstr("slots.txt:7: slot 5 is listed again (first at line 1)"));
  // Raw: port 0, and an unknown endpoint.
  EXPECT_THAT(error_of("0\n5\nh\n0\n" + id + "\n"), HasSubstr("slots.txt:1: the master of slots "
                                                              "0-5 has the port 0"));
  EXPECT_THAT(error_of("0\n5\n?\n7000\n" + id + "\n"), HasSubstr("has no known endpoint ('?')"));
  // Terminal form: a line that is no reply line, and an entry without its master.
  EXPECT_THAT(error_of("1) 1) (integer) 0\n   2) (integer) 5\nhello\n"),
              HasSubstr("slots.txt:3: expected 'N) value'"));
  EXPECT_THAT(error_of("1) 1) (integer) 0\n   2) (integer) 5\n"),
              HasSubstr("slots.txt:1: entry 1 lacks its first slot, last slot, or master"));
  EXPECT_THAT(error_of("1) 1) (integer) 0\n   2) \"x\"\n"),
              HasSubstr("slots.txt:2: expected a slot number as '(integer) N', found '\"x\"'"));
  // JSON with a wrong shape.
  EXPECT_THAT(error_of("[[0, 5, [\"h\"]]]"), HasSubstr("entry 1 of the CLUSTER SLOTS reply"));
  // A Redis error saved instead of the reply; an empty reply (cluster down).
  EXPECT_THAT(error_of("(error) ERR This instance has cluster support disabled\n"),
              HasSubstr("slots.txt:1: the file holds a Redis error reply"));
  EXPECT_THAT(error_of("(empty array)\n"), HasSubstr("lists no slot"));
}

}  // namespace
}  // namespace ringbloom::schemes
