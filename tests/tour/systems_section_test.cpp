// Section 10 of the tour: the real systems' rules on the lessons' 10 -> 11
// change (20,000 keys) and the middle server n5 leaving.
//
// Tolerances, derived (keys K = 20,000, servers N = 10):
//   - sampling: a share p of K keys has a standard deviation of
//     sqrt(p (1 - p) / K); at p = 1/11 that is 0.20 points of percentage;
//   - points: a server with P points on a circle owns a share whose relative
//     standard deviation is about 1/sqrt(P) (each arc is exponential), so
//     nginx's 160 points give 1/11 x 7.9% = 0.72 points; HAProxy's 16 points
//     give 25% of each server's 10%.
// Bounds are 4 of these standard deviations (combined), so a correct rule
// fails them with a probability below 1e-4, and a wrong rule (for example
// a HAProxy that did not renumber: 10% moved) fails them.
#include "ringbloom/tour/systems_section.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "support/cli_run.hpp"

namespace ringbloom::tour {
namespace {

using ::testing::HasSubstr;

const system_row& row(const systems_section& s, const std::string& scheme) {
  for (const auto& r : s.rows) {
    if (r.scheme == scheme) return r;
  }
  throw std::logic_error("no row " + scheme);
}

double sampling_sd(double p, double keys) { return std::sqrt(p * (1 - p) / keys); }

TEST(TourSystems, EverySystemOnTheLessonsChange) {
  const auto s = measure_systems(20000, 10);
  EXPECT_EQ(s.keys, 20000u);
  EXPECT_EQ(s.from_nodes, 10u);
  EXPECT_EQ(s.removed, "n5");
  EXPECT_DOUBLE_EQ(s.ideal_add, 1.0 / 11);
  EXPECT_DOUBLE_EQ(s.ideal_remove, 1.0 / 10);
  ASSERT_EQ(s.rows.size(), 7u);
  // Rules under which a joining server takes keys only from the others, and
  // a leaving one gives only its own: no key moves between the others. This
  // is exact, not statistical.
  for (const char* scheme : {"nginx", "haproxy", "twemproxy", "groupcache", "guava"}) {
    SCOPED_TRACE(scheme);
    EXPECT_EQ(row(s, scheme).add_between_old, 0.0);
    EXPECT_GT(row(s, scheme).add_moved, 0.0);
  }
  for (const char* scheme : {"nginx", "twemproxy", "groupcache"}) {
    SCOPED_TRACE(scheme);
    EXPECT_TRUE(row(s, scheme).remove_supported);
    EXPECT_EQ(row(s, scheme).remove_between_survivors, 0.0);
  }
  const double keys = 20000;
  // nginx: 160 points per server; the new one takes about 1/11.
  const double nginx_sd =
      std::hypot(s.ideal_add / std::sqrt(160.0), sampling_sd(s.ideal_add, keys));
  EXPECT_NEAR(row(s, "nginx").add_moved, s.ideal_add, 4 * nginx_sd);
  EXPECT_EQ(row(s, "nginx").points_min_before, 160u);
  EXPECT_EQ(row(s, "nginx").points_max_after, 160u);
  // Guava (jump hash): exactly 1/11 in expectation, sampling only.
  EXPECT_NEAR(row(s, "guava").add_moved, s.ideal_add, 4 * sampling_sd(s.ideal_add, keys));
  EXPECT_FALSE(row(s, "guava").remove_supported);
  EXPECT_THAT(row(s, "guava").remove_reason, HasSubstr("only the last one can leave"));
  EXPECT_LT(row(s, "guava").peak_avg_before, 1 + 4 * std::sqrt((10.0 - 1) / keys));
  // Maglev: 1/11 onto the new host (a 65,537-entry table: sampling only),
  // plus a little between old hosts when the table is refilled.
  const auto& maglev = row(s, "envoy-maglev");
  EXPECT_NEAR(maglev.add_moved - maglev.add_between_old, s.ideal_add,
              4 * sampling_sd(s.ideal_add, keys));
  EXPECT_GT(maglev.add_between_old, 0.0);
  EXPECT_LT(maglev.add_between_old, 0.02);
}

TEST(TourSystems, MeasuresTheQuirks) {
  const auto s = measure_systems(20000, 10);
  // HAProxy renumbers n6..n10 when n5 leaves: each takes the points of the
  // id before it, so the keys of ids 5..10 (6 servers' worth, 60%) move, of
  // which those of ids 6..10 (50%) were not on n5. Shares of 16-point
  // servers: sd about sqrt(6 x 4 / 10) x 2.5% = 3.9 points; bound 4 sd.
  const auto& haproxy = row(s, "haproxy");
  EXPECT_EQ(haproxy.renumbered, 5u);
  EXPECT_NEAR(haproxy.remove_moved, 0.6, 0.155);
  EXPECT_NEAR(haproxy.remove_between_survivors, 0.5, 0.155);
  EXPECT_GT(haproxy.remove_moved, 3 * s.ideal_remove);
  EXPECT_EQ(haproxy.points_min_before, 16u);  // weight 1 x 16
  // Envoy's ring: ceil(1024 / N) entries per host, so the old hosts' points
  // change and keys move between them.
  const auto& envoy = row(s, "envoy-ring-hash");
  EXPECT_EQ(envoy.points_min_before, 103u);  // ceil(1024 / 10)
  EXPECT_EQ(envoy.points_max_before, 103u);
  EXPECT_EQ(envoy.points_min_after, 94u);  // ceil(1024 / 11)
  EXPECT_GT(envoy.add_between_old, 0.01);
  // twemproxy: the fleet sizes where its float arithmetic gives 156 points,
  // checked on a real placement of the first one.
  ASSERT_FALSE(s.twemproxy_short_fleets.empty());
  EXPECT_EQ(s.twemproxy_short_fleets.front(), 25u);
  EXPECT_EQ(s.twemproxy_short_points, 156u);
  for (const std::uint32_t n : s.twemproxy_short_fleets)
    EXPECT_EQ(schemes::twemproxy_points_per_server(1, n, n), 156u) << n;
  EXPECT_EQ(row(s, "twemproxy").points_max_before, 160u);
  // fnv1a_64 spreads these keys worse than md5 on the same servers.
  EXPECT_GT(row(s, "twemproxy").peak_avg_before, s.twemproxy_md5_peak_avg);
  // Every quirk quotes its numbers.
  const auto quirks = measured_quirks(s);
  std::string all;
  for (const auto& q : quirks) all += q + "\n";
  EXPECT_THAT(all, HasSubstr("renumbered 5 servers"));
  EXPECT_THAT(all, HasSubstr("25, 47, 50"));
  EXPECT_THAT(all, HasSubstr("103-103 entries per host with 10 hosts, 94-94 with 11"));
}

TEST(TourSystems, IsDeterministicAndChecksItsArguments) {
  const auto a = measure_systems(3000, 6);
  const auto b = measure_systems(3000, 6);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].add_moved, b.rows[i].add_moved);
    EXPECT_EQ(a.rows[i].remove_moved, b.rows[i].remove_moved);
    EXPECT_EQ(a.rows[i].peak_avg_before, b.rows[i].peak_avg_before);
  }
  EXPECT_EQ(a.removed, "n3");
  EXPECT_THROW((void)measure_systems(0, 10), std::invalid_argument);
  EXPECT_THROW((void)measure_systems(100, 1), std::invalid_argument);
}

TEST(TourSystemsCli, InTheDemoAsTextAndJson) {
  const auto json_run = test::run_cli({"demo", "--json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  const auto& systems = doc.at("systems");
  EXPECT_EQ(systems.at("from_nodes"), 10);
  ASSERT_EQ(systems.at("systems").size(), 7u);
  EXPECT_EQ(systems.at("systems")[1].at("scheme"), "haproxy");
  EXPECT_EQ(systems.at("systems")[1].at("renumbered"), 5);
  EXPECT_EQ(systems.at("systems")[6].at("remove_supported"), false);
  const auto text = test::run_cli({"demo"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("10. The same change under the systems people run"));
  EXPECT_THAT(text.out, HasSubstr("renumbered 5 servers"));
}

}  // namespace
}  // namespace ringbloom::tour
