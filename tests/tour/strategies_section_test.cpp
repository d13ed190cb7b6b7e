// Section 9 of the tour: every strategy on the lessons' N -> N+1.
#include "ringbloom/tour/strategies_section.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace ringbloom::tour {
namespace {

TEST(TourStrategies, RunsEveryStrategyOnFourAndTenNodes) {
  const auto s = measure_strategies(20000, 100);
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].from_nodes, 4u);
  EXPECT_EQ(s.runs[1].from_nodes, 10u);
  EXPECT_DOUBLE_EQ(s.runs[0].ideal_fraction, 1.0 / 5);
  EXPECT_DOUBLE_EQ(s.runs[1].ideal_fraction, 1.0 / 11);
  for (const auto& run : s.runs) {
    ASSERT_EQ(run.rows.size(), strategy_names().size());
    for (const auto& r : run.rows) {
      SCOPED_TRACE(r.name + " N=" + std::to_string(run.from_nodes));
      EXPECT_TRUE(r.supported) << r.unsupported_reason;
      EXPECT_EQ(r.keys, 20000u);
      EXPECT_EQ(r.lookup_ns, 0.0);  // the tour is deterministic: no timing
      // Every strategy moves at least about the minimum and far less than
      // hash % N (80% and 91% here).
      EXPECT_GT(r.moved_fraction, 0.8 * run.ideal_fraction);
      EXPECT_LT(r.moved_fraction, 0.5);
      if (r.name == "rendezvous" || r.name == "anchor" || r.name == "memento" || r.name == "jump" ||
          r.name == "jumpback" || r.name == "multiprobe" || r.name == "ring") {
        EXPECT_DOUBLE_EQ(r.changed_share, 1.0);
      }
    }
  }
}

TEST(TourStrategies, IsDeterministic) {
  const auto a = measure_strategies(5000, 100);
  const auto b = measure_strategies(5000, 100);
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    for (std::size_t k = 0; k < a.runs[i].rows.size(); ++k) {
      EXPECT_EQ(a.runs[i].rows[k].moved, b.runs[i].rows[k].moved);
      EXPECT_EQ(a.runs[i].rows[k].peak_avg, b.runs[i].rows[k].peak_avg);
    }
  }
}

TEST(TourStrategiesCli, TheDemoPrintsTheSectionInEveryFace) {
  const auto json_run = test::run_cli({"demo", "--json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  const auto& runs = doc["strategies"]["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1]["from_nodes"], 10);
  EXPECT_EQ(runs[1]["strategies"][3]["name"], "maglev");
  EXPECT_TRUE(runs[1]["strategies"][3].contains("moved_fraction"));
  const auto text = test::run_cli({"demo"});
  EXPECT_NE(text.out.find("9. Other placement strategies"), std::string::npos);
}

}  // namespace
}  // namespace ringbloom::tour
