// The front door of placement: the node-list grammar (node_list.hpp), the
// movement measurement (change.hpp), the configuration dispatcher
// (schemes/config_import.hpp) and open_placement (open.hpp).
#include "ringbloom/placement/change.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/open.hpp"
#include "ringbloom/placement/ring_placement.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/strategies.hpp"
#include "ringbloom/placement/topology.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// --------------------------------------------------------------- node lists

TEST(NodeList, NamesWeightsBlanksAndEmptyItems) {
  const auto nodes = parse_node_list(" a=1, b = 3 ,,c ");
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0], (placement_node{"a", 1}));
  EXPECT_EQ(nodes[1], (placement_node{"b", 3}));
  EXPECT_EQ(nodes[2], (placement_node{"c", 1}));
  // The name ends at the last '=': the ring refuses such a name later.
  EXPECT_EQ(parse_node("x=y=2"), (placement_node{"x=y", 2}));
}

TEST(NodeList, ACountContinuesTheNumbering) {
  node_list_options from5;
  from5.first = 5;
  const auto nodes = parse_node_list("3", from5);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].name, "n5");
  EXPECT_EQ(nodes[2].name, "n7");
}

TEST(NodeList, RefusalsNameTheListAndSayWhatToWrite) {
  EXPECT_THAT(error_of([] { (void)parse_node_list("a=0"); }),
              HasSubstr("the weight in 'a=0' must be an integer from 1 to 4294967295, got '0'; "
                        "write NAME=WEIGHT with an integer weight >= 1"));
  EXPECT_EQ(
      parse_node_list(
          "a=0",
          {.first = 1, .option = "--nodes", .min_weight = 0, .max_weight = max_node_list_weight})[0]
          .weight,
      0.0)
      << "a system's weight 0";
  EXPECT_THAT(error_of([] { (void)parse_node_list("a=x"); }), HasSubstr("got 'x'"));
  EXPECT_THAT(error_of([] { (void)parse_node_list("a=4294967296"); }), HasSubstr("4294967295"));
  EXPECT_EQ(error_of([] { (void)parse_node_list("=3"); }),
            "'=3' has no node name; write NAME or NAME=WEIGHT");
  EXPECT_THAT(error_of([] { (void)parse_node_list(",,"); }), StartsWith("',,' names no nodes"));
  EXPECT_THAT(error_of([] {
                node_list_options add;
                add.option = "--add";
                (void)parse_node_list("0", add);
              }),
              StartsWith("--add must be an integer from 1 to 100000, got '0'"));
  EXPECT_THAT(error_of([] { (void)parse_node_list("100001"); }), HasSubstr("100000"));
  EXPECT_THROW((void)parse_node_list("a=-1"), std::invalid_argument);
}

TEST(NodeList, SplitListTrimsAndSkipsEmptyItems) {
  EXPECT_EQ(split_list(" a ,\tb,,c,"), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
}

// --------------------------------------------------------------- key pattern

TEST(KeyPattern, ReplacesEveryBraces) {
  key_pattern k("u:{}:{}");
  EXPECT_EQ(k(0), "u:0:0");
  EXPECT_EQ(k(42), "u:42:42");
  EXPECT_THAT(error_of([] { key_pattern bad("nope"); }),
              StartsWith("--key-format 'nope' has no '{}'"));
}

// ---------------------------------------------------------- measure_change

// Each figure of measure_change against a count made here, key by key.
TEST(MeasureChange, AgreesWithACountKeyByKey) {
  const auto before_nodes = parse_node_list("a=1,b=3");
  auto after_nodes = before_nodes;
  after_nodes.push_back({"c", 1});
  const auto before = schemes::make_scheme_placement("nginx", before_nodes);
  const auto after = schemes::make_scheme_placement("nginx", after_nodes);
  const change_measure m =
      measure_change(*before, *after, key_pattern("key-{}"), 20000, before_nodes, after_nodes);
  std::uint64_t moved = 0;
  std::map<std::string, std::uint64_t> to;
  std::map<std::string, std::uint64_t> load_after;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    const std::string& b = before->node_for(key);
    const std::string& a = after->node_for(key);
    ++load_after[a];
    if (a != b) ++moved, ++to[a];
  }
  EXPECT_EQ(m.keys, 20000u);
  EXPECT_EQ(m.moved, moved);
  EXPECT_EQ(m.moved_to, to);
  EXPECT_EQ(m.load_after, load_after);
  EXPECT_EQ(m.moved_between_survivors, 0u) << "nginx's ring moves keys only to the new server";
  std::uint64_t top = 0;
  for (const auto& [n, c] : load_after) top = std::max(top, c);
  EXPECT_DOUBLE_EQ(m.peak_to_average_after, static_cast<double>(top) * 3 / 20000);
  EXPECT_FALSE(m.slots_moved);
}

// The least possible by weight: shares 1/4, 3/4 before and 1/5, 3/5, 1/5
// after; half the sum of |differences| is (0.05 + 0.15 + 0.2) / 2 = 0.2, not
// the 1/3 of three equal nodes.
TEST(MeasureChange, TheLeastPossibleFollowsTheWeights) {
  const auto before_nodes = parse_node_list("a=1,b=3");
  const auto after_nodes = parse_node_list("a=1,b=3,c=1");
  const ring_placement before(before_nodes);
  const ring_placement after(after_nodes);
  const auto m = measure_change(before, after, numbered_keys(1000), before_nodes, after_nodes);
  EXPECT_DOUBLE_EQ(m.ideal_fraction, 0.2);
  EXPECT_DOUBLE_EQ(measure_change(before, after, numbered_keys(10)).ideal_fraction, 0.0)
      << "without node lists there are no weights";
}

// Ketama's 156-point rounding moves keys between old servers at 24 -> 25
// (docs/ring.md): moved_between_survivors sees it.
TEST(MeasureChange, CountsMovesBetweenSurvivors) {
  std::vector<placement_node> nodes;
  for (int i = 1; i <= 25; ++i) nodes.push_back({"10.0.0." + std::to_string(i) + ":11211", 1});
  const std::vector<placement_node> before_nodes(nodes.begin(), nodes.end() - 1);
  const ring_placement before(before_nodes, ring_options::ketama());
  const ring_placement after(nodes, ring_options::ketama());
  const auto m = measure_change(before, after, key_pattern("key-{}"), 20000);
  std::uint64_t between = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    const std::string& b = before.node_for(key);
    const std::string& a = after.node_for(key);
    if (a != b && a != nodes.back().name) ++between;
  }
  EXPECT_GT(between, 0u);
  EXPECT_EQ(m.moved_between_survivors, between);
}

TEST(MeasureChange, RedisClusterCountsTheSlotsThatChangeMaster) {
  const auto before = schemes::make_scheme_placement("redis-cluster", parse_node_list("a:1,b:1"));
  const auto after =
      schemes::make_scheme_placement("redis-cluster", parse_node_list("a:1,b:1,c:1"));
  const auto m = measure_change(*before, *after, key_pattern("k{}"), 100);
  ASSERT_TRUE(m.slots_moved);
  EXPECT_GT(*m.slots_moved, 0u);
  EXPECT_LT(*m.slots_moved, 16384u);
}

// The flows of a ring plan: its ranges summed per (from, to).
TEST(RangeFlows, SumThePlansRangesPerPair) {
  hash_ring before;
  before.add_node("a");
  before.add_node("b");
  hash_ring after = before;
  after.add_node("c");
  after.remove_node("a");
  const movement_plan plan = plan_movement(before, after);
  const auto flows = range_flows(plan, before.space_max());
  std::map<std::pair<std::string, std::string>, long double> by_pair;
  for (const auto& r : plan.ranges)
    by_pair[{r.from, r.to}] += (static_cast<long double>(r.last - r.first) + 1) / 0x1p64L;
  ASSERT_EQ(flows.size(), by_pair.size());
  double total = 0;
  for (const auto& f : flows) {
    EXPECT_NEAR(f.fraction, static_cast<double>(by_pair.at({f.from, f.to})), 1e-12);
    total += f.fraction;
  }
  EXPECT_NEAR(total, plan.moved_fraction, 1e-12);
}

TEST(SpaceMovedFraction, ThePlanOrAllOrNothing) {
  hash_ring empty;
  hash_ring one;
  one.add_node("a");
  hash_ring two = one;
  two.add_node("b");
  EXPECT_DOUBLE_EQ(space_moved_fraction(one, two), plan_movement(one, two).moved_fraction);
  EXPECT_GT(space_moved_fraction(one, two), 0.0);
  EXPECT_EQ(space_moved_fraction(empty, one), 1.0) << "every key gains an owner";
  EXPECT_EQ(space_moved_fraction(one, empty), 1.0);
  EXPECT_EQ(space_moved_fraction(empty, empty), 0.0);
}

// ------------------------------------------------------------ import_config

const std::string nutcracker =
    "alpha:\n  hash: fnv1a_64\n  distribution: ketama\n  auto_eject_hosts: true\n  servers:\n"
    "   - 10.0.0.1:11211:1 cache-1\n   - 10.0.0.2:11211:2\n";
const std::string envoy_yaml =
    "clusters:\n- name: web\n  lb_policy: RING_HASH\n"
    "  load_assignment:\n    endpoints:\n    - lb_endpoints:\n"
    "      - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 90}}}\n"
    "      - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 91}}}\n";

TEST(ImportConfig, ReadsTheYamlSystemsWithNotes) {
  if (!schemes::reads_yaml()) GTEST_SKIP() << "built without yaml-cpp";
  auto tw = schemes::import_config("twemproxy", nutcracker, "nutcracker.yml");
  EXPECT_EQ(tw.scheme->kind_name(), "twemproxy");
  EXPECT_EQ(tw.scheme->node_count(), 2u);
  ASSERT_EQ(tw.notes.size(), 1u);
  EXPECT_THAT(tw.notes[0], HasSubstr("nutcracker.yml: pool 'alpha' ejects failing servers"));
  schemes::config_options web;
  web.section = "web";
  auto ev = schemes::import_config("envoy", envoy_yaml, "envoy.yaml", web);
  EXPECT_EQ(ev.scheme->kind_name(), "envoy-ring-hash");
  EXPECT_EQ(ev.scheme->node_name(1), "127.0.0.1:91");
  EXPECT_TRUE(ev.notes.empty());
  EXPECT_THAT(error_of([] { (void)schemes::import_config("envoy", "a: [", "e.yaml"); }),
              StartsWith("e.yaml:1: not valid YAML"));
  EXPECT_THAT(error_of([] {
                (void)schemes::import_config("twemproxy", "p:\n  servers: {a: 1}\n", "n.yml");
              }),
              StartsWith("n.yml:"));
}

TEST(ImportConfig, EveryRefusalSaysWhatToDo) {
  EXPECT_EQ(error_of([] { (void)schemes::import_config("memcached", "", "x"); }),
            "'memcached' is not a system whose configuration ringbloom reads; give nginx, "
            "haproxy, twemproxy, redis-cluster, cassandra or envoy");
  EXPECT_EQ(error_of([] { (void)schemes::import_config("nginx", "", "n.conf"); }),
            "nginx n.conf needs --upstream NAME; name the section to read (the file has no "
            "upstream that hashes consistently)");
  schemes::config_options python_style;
  python_style.section_option = "name=";
  EXPECT_EQ(error_of([&] { (void)schemes::import_config("haproxy", "", "h.cfg", python_style); }),
            "haproxy h.cfg needs name=; name the section to read (the file has no backend that "
            "hashes consistently)");
  EXPECT_THAT(error_of([] { (void)schemes::import_config("nginx", "a\n\x01", "n.conf"); }),
              StartsWith("n.conf:2: holds the control byte 0x01"));
  EXPECT_THROW((void)schemes::import_config("nginx", "a\n\x01", "n.conf"), data_error);
  EXPECT_THAT(error_of([] {
                (void)schemes::replication_from_factors({{"dc1", 0}, {"dc2", 0}}, "dc_rf");
              }),
              StartsWith("dc_rf gives every data centre replication factor 0"));
  EXPECT_TRUE(schemes::replication_from_factors({{"dc1", 0}, {"dc2", 2}}, "x").network_topology);
  EXPECT_EQ(schemes::config_systems().size(), 6u);
}

TEST(KeySource, NumberedKeysOrAFilesLines) {
  const key_source numbered(key_pattern("user:{}"), 3);
  EXPECT_FALSE(numbered.is_list());
  EXPECT_EQ(numbered.size(), 3u);
  EXPECT_EQ(numbered.label(), "3 keys user:{}");
  std::vector<std::string> seen;
  numbered.for_each([&](std::string_view k) { seen.emplace_back(k); });
  EXPECT_EQ(seen, (std::vector<std::string>{"user:0", "user:1", "user:2"}));

  test::temp_dir dir;
  const std::string path = dir.file("keys.txt");
  std::ofstream(path) << "a\r\n\nb\nc\n";
  const key_source listed = key_source::read_file(path);
  EXPECT_TRUE(listed.is_list());
  EXPECT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed.label(), path);
  seen.clear();
  listed.for_each([&](std::string_view k) { seen.emplace_back(k); });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THROW((void)key_source::read_file(dir.file("missing.txt")), io_error);
}

TEST(KeySource, AListsMovedKeysAreKeptAndSlotsCounted) {
  const auto before = schemes::make_scheme_placement("redis-cluster", parse_node_list("a,b"));
  const auto after = schemes::make_scheme_placement("redis-cluster", parse_node_list("a,b,c"));
  test::temp_dir dir;
  const std::string path = dir.file("keys.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i) out << "key-" << i << "\n";
  }
  const change_measure listed = measure_change(*before, *after, key_source::read_file(path));
  const change_measure numbered =
      measure_change(*before, *after, key_source(key_pattern("key-{}"), 200));
  EXPECT_EQ(listed.moved, numbered.moved);
  EXPECT_GT(listed.moved, 0u);
  EXPECT_EQ(listed.moved_keys.size(), listed.moved);
  EXPECT_TRUE(numbered.moved_keys.empty());
  for (const moved_key& k : listed.moved_keys) {
    EXPECT_EQ(before->node_for(k.key), k.from);
    EXPECT_EQ(after->node_for(k.key), k.to);
  }
  ASSERT_TRUE(listed.slots_moved.has_value());
  EXPECT_DOUBLE_EQ(*listed.slots_moved_fraction(), *listed.slots_moved / 16384.0);
  const auto ring = schemes::make_scheme_placement("nginx", parse_node_list("a,b"));
  EXPECT_FALSE(measure_change(*ring, *ring, key_source(key_pattern("k{}"), 10))
                   .slots_moved_fraction()
                   .has_value());
}

TEST(ConfigImport, DatacenterFactorsAreParsedOnceForEveryFrontEnd) {
  const auto r = schemes::parse_datacenter_factors("dc1=3, dc2=0", "--dc-rf");
  EXPECT_TRUE(r.network_topology);
  EXPECT_EQ(r.per_datacenter, (std::map<std::string, std::uint32_t>{{"dc1", 3}, {"dc2", 0}}));
  EXPECT_EQ(schemes::parse_datacenter_factors("dc1=100000", "--dc-rf").per_datacenter.at("dc1"),
            100000u);
  const auto message = [](const char* text) {
    return error_of([&] { (void)schemes::parse_datacenter_factors(text, "--dc-rf"); });
  };
  EXPECT_EQ(message("dc1"), "--dc-rf 'dc1' is not DC=N; write e.g. --dc-rf dc1=3,dc2=2");
  EXPECT_EQ(message("=3"), "--dc-rf '=3' is not DC=N; write e.g. --dc-rf dc1=3,dc2=2");
  EXPECT_EQ(message("dc1=-1"),
            "--dc-rf 'dc1=-1' must be an integer from 0 to 100000, got '-1'; give each data "
            "centre a replication factor from 0 (no replica there) to 100000, e.g. --dc-rf "
            "dc1=3,dc2=2");
  EXPECT_THAT(message("dc1=100001"), StartsWith("--dc-rf 'dc1=100001' must be an integer"));
  EXPECT_THAT(message("dc1=99999999999"), HasSubstr("got '99999999999'"));
  EXPECT_THAT(message("dc1=3x"), HasSubstr("got '3x'"));
  EXPECT_EQ(message("dc1=3,dc1=2"),
            "--dc-rf names data centre 'dc1' twice; give each data centre once");
  EXPECT_THAT(message("dc1=0,dc2=0"),
              StartsWith("--dc-rf 'dc1=0,dc2=0' gives every data centre replication factor 0"));
  EXPECT_THROW((void)schemes::parse_datacenter_factors("x", "--dc-rf"), std::invalid_argument);
}

// ------------------------------------------------------------ open_placement

TEST(OpenPlacement, ANativeRingOrASystemScheme) {
  test::temp_dir dir;
  const std::string ring_file = dir.file("ring.json");
  save_topology(ring_file, topology{{}, {{"a", 1, {}}, {"b", 2, {}}}});
  const auto ring = open_placement(ring_file);
  EXPECT_NE(dynamic_cast<const ring_placement*>(ring.get()), nullptr);
  EXPECT_EQ(ring->node_for("user:42"), build_ring(load_topology(ring_file)).node_for("user:42"));
  EXPECT_FALSE(is_system_topology(ring_file));

  const std::string nginx_file = dir.file("nginx.json");
  const auto nginx = schemes::make_scheme_placement("nginx", parse_node_list("a:1,b:1"));
  schemes::save_scheme_topology(nginx_file, *nginx);
  EXPECT_TRUE(is_system_topology(nginx_file));
  EXPECT_EQ(open_placement(nginx_file)->node_for("user:42"), nginx->node_for("user:42"));

  const std::string empty = dir.file("empty.json");
  save_topology(empty, topology{});
  EXPECT_EQ(
      error_of([&] { (void)open_placement(empty); }),
      empty + ": the topology has no nodes; add one with 'ringbloom ring add " + empty + " NAME'");
}

// --- the node change of `ring simulate --add/--remove` -----------------------------

TEST(ChangeNodeList, AddsContinuingTheNumberingAndRemovesByName) {
  const auto before = parse_node_list("3");  // n1..n3
  const auto after = change_node_list(before, "2", "n1");
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[0].name, "n2");
  EXPECT_EQ(after[2].name, "n4");
  EXPECT_EQ(after[3].name, "n5");
  const auto weighted = change_node_list(parse_node_list("a=1,b=3"), "c=2", "");
  ASSERT_EQ(weighted.size(), 3u);
  EXPECT_EQ(weighted[2].weight, 2.0);
  // A system's weights: 0 allowed when the caller says so.
  EXPECT_THROW((void)change_node_list(before, "z=0", ""), std::invalid_argument);
  EXPECT_EQ(change_node_list(before, "z=0", "", {.min_weight = 0}).back().weight, 0.0);
}

TEST(ChangeNodeList, RefusesUnknownNamesAndAnEmptyResult) {
  const auto before = parse_node_list("a,b");
  try {
    (void)change_node_list(before, "", "c");
    FAIL() << "not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--remove names 'c', which is not among the nodes");
  }
  EXPECT_THROW((void)change_node_list(before, "", "a,b"), std::invalid_argument);
  try {
    (void)change_node_list(before, "0", "");  // a count of 0
    FAIL() << "not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--add"));
  }
}

TEST(ChangeMeasure, SharesAreLoadsOverKeys) {
  const auto before = parse_node_list("a,b");
  const auto after = change_node_list(before, "c", "");
  const auto p = schemes::make_scheme_placement("nginx", before);
  const auto q = schemes::make_scheme_placement("nginx", after);
  const change_measure m = measure_change(*p, *q, key_pattern("key-{}"), 10000, before, after);
  double before_total = 0;
  double after_total = 0;
  for (const auto& n : after) {
    const auto it = m.load_after.find(n.name);
    const std::uint64_t load = it == m.load_after.end() ? 0 : it->second;
    EXPECT_DOUBLE_EQ(m.share_after(n.name), static_cast<double>(load) / 10000.0);
    before_total += m.share_before(n.name);
    after_total += m.share_after(n.name);
  }
  EXPECT_DOUBLE_EQ(before_total, 1.0);  // c had no keys before: share 0
  EXPECT_DOUBLE_EQ(after_total, 1.0);
  EXPECT_EQ(m.share_before("c"), 0.0);
  EXPECT_EQ(change_measure{}.share_after("a"), 0.0);  // no keys
}

TEST(ChangeTally, RecordsTheMovedKeysWhenAsked) {
  const auto before = parse_node_list("a,b");
  const auto after = change_node_list(before, "c", "");
  const auto p = schemes::make_scheme_placement("nginx", before);
  const auto q = schemes::make_scheme_placement("nginx", after);
  change_tally quiet(*p, *q);
  change_tally listing(*p, *q);
  listing.record_moved_keys();
  key_pattern keys("key-{}");
  for (std::uint64_t i = 0; i < 1000; ++i) {
    quiet.add(keys(i));
    listing.add(keys(i));
  }
  EXPECT_TRUE(quiet.result().moved_keys.empty());
  const change_measure m = listing.result();
  ASSERT_EQ(m.moved_keys.size(), m.moved);
  ASSERT_GT(m.moved, 0u);
  for (const moved_key& k : m.moved_keys) {
    EXPECT_EQ(k.from, p->node_for(k.key));
    EXPECT_EQ(k.to, q->node_for(k.key));
    EXPECT_NE(k.from, k.to);
  }
}

TEST(StrategyLists, ParseAndFormatAsTheCliTakesThem) {
  const auto all = parse_strategy_list("all");
  ASSERT_EQ(all.size(), strategy_names().size());
  EXPECT_EQ(all[0], strategy_names()[0]);
  EXPECT_EQ(parse_strategy_list(" ring , maglev"), (std::vector<std::string>{"ring", "maglev"}));
  try {
    (void)parse_strategy_list("chord");
    FAIL() << "not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--strategy 'chord' is not a strategy; use one of ring"));
  }
  EXPECT_THROW((void)parse_strategy_list(","), std::invalid_argument);
  const std::string changes = "add:n11,add:n12=3,remove:n3,reweight:n2=2";
  EXPECT_EQ(format_placement_changes(parse_placement_changes(changes)), changes);
}

}  // namespace
}  // namespace ringbloom
