// Tests of topology files: the exact bytes, round trips, refusals.
#include "ringbloom/placement/topology.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ringbloom/error.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

topology sample() {
  topology topo;
  topo.nodes.push_back({"a", 1, {}});
  topo.nodes.push_back({"b", 3, {}});
  topo.nodes.push_back({"c", 1, {20, 55}});
  return topo;
}

// The format, pinned: written out by hand from the header's description.
constexpr std::string_view sample_bytes = R"({
  "format": "ringbloom-topology",
  "version": 1,
  "scheme": "ring",
  "hash": "xxh3",
  "vnodes": 100,
  "nodes": [
    {"name": "a", "weight": 1},
    {"name": "b", "weight": 3},
    {"name": "c", "tokens": [20, 55]}
  ]
}
)";

TEST(Topology, WritesStableBytes) {
  EXPECT_EQ(to_json(sample()), sample_bytes);
  topology empty;
  empty.options = ring_options::ketama();
  EXPECT_EQ(to_json(empty),
            "{\n  \"format\": \"ringbloom-topology\",\n  \"version\": 1,\n  \"scheme\": "
            "\"ketama\",\n  \"hash\": \"md5\",\n  \"vnodes\": 160,\n  \"nodes\": []\n}\n");
}

TEST(Topology, RoundTripsAndBuildsTheSameRing) {
  const topology topo = sample();
  EXPECT_EQ(parse_topology(to_json(topo)), topo);
  const hash_ring ring = build_ring(topo);
  EXPECT_EQ(ring.node_count(), 3u);
  EXPECT_EQ(ring.point_count(), 100u + 300u + 2u);
  EXPECT_EQ(describe(ring), topo);
  const hash_ring again = build_ring(parse_topology(to_json(describe(ring))));
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_EQ(ring.node_for(key), again.node_for(key));
  }
}

TEST(Topology, OptionalHashAndVnodesDefaultPerScheme) {
  const auto topo = parse_topology(
      R"({"format":"ringbloom-topology","version":1,"scheme":"ketama","nodes":[{"name":"h:1"}]})");
  EXPECT_EQ(topo.options, ring_options::ketama());
  EXPECT_EQ(topo.nodes[0].weight, 1u);
  const auto native = parse_topology(
      R"({"format":"ringbloom-topology","version":1,"scheme":"ring","hash":"sha256","vnodes":7,"nodes":[]})");
  EXPECT_EQ(native.options, (ring_options{7, hash_kind::sha256, ring_scheme::native}));
}

void expect_data_error(std::string_view json, const std::string& part) {
  try {
    (void)parse_topology(json, "cluster.json");
    ADD_FAILURE() << "accepted: " << json;
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(part)) << json;
    EXPECT_THAT(e.what(), HasSubstr("cluster.json"));
  }
}

std::string with_nodes(std::string_view nodes, std::string_view head = R"("scheme":"ring")") {
  return std::string(R"({"format":"ringbloom-topology","version":1,)") + std::string(head) +
         R"(,"nodes":)" + std::string(nodes) + "}";
}

TEST(Topology, RefusesWhatItCannotTrust) {
  expect_data_error("{not json", "not valid JSON");
  expect_data_error("2e4444", "not valid JSON");  // found by fuzz/topology_fuzz.cpp
  expect_data_error("[1,2]", "not a ringbloom-topology document");
  expect_data_error(R"({"format":"something-else","version":1})", "\"format\" must be");
  expect_data_error(R"({"format":"ringbloom-topology","version":2,"scheme":"ring","nodes":[]})",
                    "topology version 2 is not supported");
  expect_data_error(R"({"format":"ringbloom-topology","scheme":"ring","nodes":[]})",
                    "\"version\" is missing");
  expect_data_error(with_nodes("[]", R"("scheme":"maglev")"), "unknown scheme \"maglev\"");
  expect_data_error(with_nodes("[]", R"("scheme":"ring","hash":"crc32")"),
                    "unknown hash \"crc32\"");
  expect_data_error(with_nodes("[]", R"("scheme":"ring","vnodes":0)"),
                    "\"vnodes\" must be at least 1");
  expect_data_error(with_nodes("[]", R"("scheme":"ring","vnodes":-3)"), "non-negative integer");
  expect_data_error(with_nodes("[]", R"("scheme":"ketama","hash":"xxh3")"),
                    "hash \"md5\" and vnodes 160");
  expect_data_error(with_nodes("[]", R"("scheme":"ring","colour":"red")"),
                    "unknown member \"colour\"");
  expect_data_error(with_nodes("{}"), "\"nodes\" must be an array");
  expect_data_error(with_nodes(R"([{"name":"a"},{"name":"a"}])"), "appears twice");
  expect_data_error(with_nodes(R"([{"name":"a","weight":0}])"), "weight 0");
  expect_data_error(with_nodes(R"([{"name":"a","weight":1.5}])"), "non-negative integer");
  expect_data_error(with_nodes(R"([{"name":"a","wieght":2}])"), "unknown member \"wieght\"");
  expect_data_error(with_nodes(R"([{"name":""}])"), "empty name");
  expect_data_error(with_nodes(R"([{"weight":2}])"), "\"name\" is missing");
  expect_data_error(with_nodes(R"([{"name":"a","weight":1,"tokens":[1]}])"),
                    "both a weight and tokens");
  expect_data_error(with_nodes(R"([{"name":"a","tokens":[]}])"), "non-empty array");
  expect_data_error(with_nodes(R"([{"name":"a","tokens":[1,"x"]}])"), "non-negative integer");
  expect_data_error(with_nodes(R"([{"name":"a","weight":99999999}])"), "more than the limit");
  expect_data_error(with_nodes(R"([{"name":"a","weight":100000},{"name":"b","weight":100000}])"),
                    "more than the limit of 16777216 for a topology file");
  expect_data_error(with_nodes(R"([{"name":"a","tokens":[5]}])", R"("scheme":"ketama")"),
                    "explicit tokens need the native ring scheme");
  expect_data_error(with_nodes(R"([{"name":"host:99999"}])", R"("scheme":"ketama")"),
                    "port in 1..65535");
}

TEST(Topology, LargestTokenSurvivesTheRoundTrip) {
  topology topo;
  topo.nodes.push_back({"top", 1, {18446744073709551615u, 0}});
  EXPECT_EQ(parse_topology(to_json(topo)).nodes[0].tokens,
            (std::vector<std::uint64_t>{18446744073709551615u, 0}));
}

TEST(TopologyFile, SaveLoadAndUpdate) {
  test::temp_dir dir;
  const std::string path = dir.file("cluster.json");
  save_topology(path, sample());
  EXPECT_EQ(load_topology(path), sample());
  update_topology(path, [](topology& t) { t.nodes.push_back({"d", 2, {}}); });
  EXPECT_EQ(load_topology(path).nodes.back().name, "d");
  // A failing change leaves the file as it was.
  EXPECT_THROW(update_topology(path,
                               [](topology& t) {
                                 t.nodes.push_back({"a", 1, {}});
                               }),
               data_error);
  EXPECT_EQ(load_topology(path).nodes.size(), 4u);
  // A ring needs a node: a change that leaves none is refused, the file kept.
  try {
    update_topology(path, [](topology& t) { t.nodes.clear(); });
    FAIL() << "the last node was removed";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("would leave " + path + " without nodes"));
  }
  EXPECT_EQ(load_topology(path).nodes.size(), 4u);
  EXPECT_THROW((void)load_topology(dir.file("missing.json")), io_error);
  std::ofstream(dir.file("bad.json")) << "{\"format\":\"ringbloom-topology\",\"version\":9}";
  try {
    (void)load_topology(dir.file("bad.json"));
    FAIL();
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.json"));
  }
}

TEST(TopologyFile, ConcurrentUpdatesLoseNothing) {
  test::temp_dir dir;
  const std::string path = dir.file("cluster.json");
  save_topology(path, topology{});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&path, t] {
      for (int i = 0; i < 10; ++i) {
        update_topology(path, [&](topology& topo) {
          topo.nodes.push_back({"t" + std::to_string(t) + "-" + std::to_string(i), 1, {}});
        });
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(load_topology(path).nodes.size(), 40u);
}

}  // namespace
}  // namespace ringbloom
