// `ringbloom ring simulate --strategy`: the table, the JSON field names that
// scripts depend on, change sequences and errors, running the real binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;
using ::testing::HasSubstr;
using json = nlohmann::json;

TEST(CliStrategySimulate, JsonHasTheIssuesFieldNames) {
  const auto r = run_cli({"ring", "simulate", "--nodes", "10", "--change", "add:n11", "--keys",
                          "20000", "--strategy", "all", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["keys"], 20000);
  ASSERT_EQ(doc["strategies"].size(), 11u);
  for (const auto& row : doc["strategies"]) {
    SCOPED_TRACE(row.dump());
    for (const char* field : {"name", "moved", "moved_fraction", "ideal_fraction", "peak_avg",
                              "min_share", "max_share", "memory_bytes", "lookup_ns", "supports"}) {
      EXPECT_TRUE(row.contains(field)) << field;
    }
    EXPECT_NEAR(row["ideal_fraction"].get<double>(), 1.0 / 11, 1e-12);
    EXPECT_GT(row["lookup_ns"].get<double>(), 0.0);
    EXPECT_TRUE(row["supports"].is_array());
  }
  EXPECT_EQ(doc["strategies"][0]["name"], "ring");
  EXPECT_EQ(doc["strategies"][8]["name"], "jump");
  EXPECT_EQ(doc["strategies"][8]["supports"], json::parse(R"(["add","remove_last"])"));
  EXPECT_EQ(doc["strategies"][9]["name"], "jumpback");
}

// The balance from placement::ownership(): exact for the ring and maglev
// (their points and table), expected for rendezvous, the counted keys for
// bounded. The ring's exact peak/avg and the one sampled on 20,000 keys
// differ by sampling alone: 1,818 keys a node, sigma 2.3%, so within 0.15.
TEST(CliStrategySimulate, JsonCarriesTheOwnershipBalance) {
  const auto r = run_cli({"ring", "simulate", "--nodes", "10", "--change", "add:n11", "--keys",
                          "20000", "--strategy", "ring,maglev,rendezvous,bounded", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  const auto& rows = doc["strategies"];
  EXPECT_EQ(rows[0]["ownership"], "hash_space");
  EXPECT_EQ(rows[1]["ownership"], "hash_space");
  EXPECT_EQ(rows[2]["ownership"], "expectation");
  EXPECT_EQ(rows[3]["ownership"], "counted_load");
  EXPECT_NEAR(rows[0]["owned_peak_avg"].get<double>(), rows[0]["peak_avg"].get<double>(), 0.15);
  EXPECT_GT(rows[0]["owned_peak_avg"].get<double>(), 1.0);
  // Maglev, 65537 slots over 11 nodes: 5957 or 5958 slots each.
  EXPECT_LT(rows[1]["owned_peak_avg"].get<double>(), 1.0 + 2.0 / 5957);
  EXPECT_DOUBLE_EQ(rows[2]["owned_peak_avg"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(rows[3]["owned_peak_avg"].get<double>(), rows[3]["peak_avg"].get<double>());
  const auto t = run_cli({"ring", "simulate", "--nodes", "10", "--change", "add:n11", "--keys",
                          "2000", "--strategy", "ring,jump"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("owned p/a"));
  EXPECT_THAT(t.out, HasSubstr("~1.000"));  // jump's expected shares
}

TEST(CliStrategySimulate, TableAndUnsupportedChanges) {
  const auto r = run_cli({"ring", "simulate", "--nodes", "6", "--change", "remove:n2", "--strategy",
                          "rendezvous,jump"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("the minimum movement is 16.67%"));
  EXPECT_THAT(r.out, HasSubstr("rendezvous"));
  EXPECT_THAT(r.out, HasSubstr("jump: jump cannot remove 'n2'"));
  const auto j = run_cli(
      {"ring", "simulate", "--nodes", "6", "--remove", "n2", "--strategy", "jump", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = json::parse(j.out);
  EXPECT_EQ(doc["strategies"][0]["supported"], false);
  EXPECT_TRUE(doc["strategies"][0]["moved"].is_null());
}

TEST(CliStrategySimulate, ChangeSequencesWithWeights) {
  const auto r =
      run_cli({"ring", "simulate", "--nodes", "a,b,c,d", "--change", "add:e,reweight:a=2,remove:b",
               "--strategy", "rendezvous,maglev", "--json", "--keys", "50000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  // Before: 1/4 each. After: a 2/5, c, d, e 1/5: half the sum of |changes|
  // = (0.15 + 0.25 + 0.05 + 0.05 + 0.2) / 2 = 0.35.
  EXPECT_NEAR(doc["ideal_fraction"].get<double>(), 0.35, 1e-12);
  // Rendezvous moves at least that (within sampling), and only to or from a
  // changed node.
  EXPECT_GE(doc["strategies"][0]["moved_fraction"].get<double>(), 0.34);
  EXPECT_DOUBLE_EQ(doc["strategies"][0]["changed_share"].get<double>(), 1.0);
}

TEST(CliStrategySimulate, BadInputIsAUsageError) {
  auto r = run_cli({"ring", "simulate", "--nodes", "4", "--add", "1", "--strategy", "chord"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("ringbloom: error: --strategy 'chord' is not a strategy"));
  r = run_cli({"ring", "simulate", "--nodes", "4", "--change", "grow:x", "--strategy", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--change: change 'grow:x'"));
  r = run_cli({"ring", "simulate", "--nodes", "4", "--strategy", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("none was given"));
  r = run_cli({"ring", "simulate", "--nodes", "4", "--change", "remove:n9", "--strategy", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not there"));
  r = run_cli({"ring", "simulate", "--nodes", "4", "--add", "1", "--change", "add:x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--change needs --strategy"));
}

TEST(CliStrategySimulate, StrategyOptionsReachTheStrategyOrAreRefused) {
  // Bounded with a tight epsilon caps every node nearer the fair share than the default.
  const auto loose = run_cli({"ring", "simulate", "--nodes", "20", "--change", "add:n21", "--keys",
                              "20000", "--strategy", "bounded", "--json"});
  const auto tight =
      run_cli({"ring", "simulate", "--nodes", "20", "--change", "add:n21", "--keys", "20000",
               "--strategy", "bounded", "--json", "--strategy-option", "epsilon=0.05"});
  ASSERT_EQ(loose.exit_code, 0) << loose.err;
  ASSERT_EQ(tight.exit_code, 0) << tight.err;
  const auto peak = [](const std::string& out) {
    return json::parse(out)["strategies"][0]["peak_avg"].get<double>();
  };
  EXPECT_LE(peak(tight.out), 1.05 + 1e-9);
  EXPECT_GT(peak(loose.out), peak(tight.out));
  // Each key reaches its strategy: a different fan-out places keys differently.
  const auto fanout = [](const char* value) {
    const auto r = run_cli({"ring", "simulate", "--nodes", "200", "--change", "remove:n7", "--keys",
                            "5000", "--strategy", "skeleton", "--json", "--strategy-option",
                            std::string("skeleton-fanout=") + value});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["strategies"][0];
  };
  EXPECT_NE(fanout("4")["max_share"], fanout("64")["max_share"]);
  for (const auto& [setting, says] : std::vector<std::pair<std::string, std::string>>{
           {"maglev-table=65536", "not prime"},
           {"probes=0", "outside 1.."},
           {"epsilon=0", "--strategy-option epsilon must be a number greater than 0"},
           {"anchor-capacity=3", "cannot hold 10 nodes"},
           {"skeleton-fanout=1", "fan-out 1 is outside"},
           {"fanout=8", "is not a strategy option"},
           {"probes=x", "--strategy-option probes must be an integer"}}) {
    const auto r = run_cli({"ring", "simulate", "--nodes", "10", "--change", "add:n11",
                            "--strategy", "all", "--strategy-option", setting});
    EXPECT_EQ(r.exit_code, 2) << setting;
    EXPECT_THAT(r.err, HasSubstr(says)) << setting;
  }
  const auto alone =
      run_cli({"ring", "simulate", "--nodes", "10", "--add", "1", "--strategy-option", "probes=5"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("--strategy-option needs --strategy"));
}

}  // namespace
}  // namespace ringbloom
