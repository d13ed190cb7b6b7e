// `ring simulate`'s "least possible" figure, for weighted nodes, under every
// scheme: plain `ring simulate` (ring, ketama) and `ring simulate --scheme S`
// print the one figure measure_change computes from the weights
// (ideal_moved_fraction), never one that assumes equal nodes.
//
// The expected figures, by hand: a=1,b=3 then c=1 added has shares 1/4, 3/4
// before and 1/5, 3/5, 1/5 after; half the sum of |differences| is
// (0.05 + 0.15 + 0.2) / 2 = 20% (equal nodes would say 1/3). Removing c from
// a=1,b=3,c=1 is the same change backwards: 20%. Two equal nodes and one
// added: 1/3.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using json = nlohmann::json;
using test::run_cli;
using ::testing::HasSubstr;

struct scheme_case {
  std::string scheme;              // "" for plain `ring simulate`
  std::vector<std::string> names;  // three node names the scheme accepts
  bool weighted;                   // the scheme takes weights other than 1
};

const std::vector<scheme_case>& cases() {
  static const std::vector<scheme_case> all = {
      {"", {"a", "b", "c"}, true},
      {"ring", {"a", "b", "c"}, true},
      {"ketama", {"10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"}, true},
      {"nginx", {"a:1", "b:1", "c:1"}, true},
      {"haproxy", {"s1", "s2", "s3"}, true},
      {"twemproxy", {"a", "b", "c"}, true},
      {"envoy-ring-hash", {"a:1", "b:1", "c:1"}, true},
      {"envoy-maglev", {"a:1", "b:1", "c:1"}, true},
      {"redis-cluster", {"a:1", "b:1", "c:1"}, false},
      {"cassandra", {"10.0.0.1", "10.0.0.2", "10.0.0.3"}, false},
      {"groupcache", {"http://a", "http://b", "http://c"}, false},
      {"guava", {"n1", "n2", "n3"}, false},
  };
  return all;
}

std::vector<std::string> simulate(const scheme_case& c, const std::string& nodes,
                                  const std::string& change_flag, const std::string& change,
                                  bool as_json) {
  std::vector<std::string> args = {"ring",      "simulate", "--nodes", nodes,
                                   change_flag, change,     "--keys",  "2000"};
  if (!c.scheme.empty()) {
    args.push_back("--scheme");
    args.push_back(c.scheme);
  }
  if (as_json) args.push_back("--json");
  return args;
}

TEST(CliLeastPossible, EverySystemSchemeIsCovered) {
  std::vector<std::string> covered;
  for (const auto& c : cases()) covered.push_back(c.scheme);
  for (const auto name : schemes::system_scheme_names()) {
    EXPECT_NE(std::find(covered.begin(), covered.end(), name), covered.end()) << name;
  }
}

TEST(CliLeastPossible, AddingANodeFollowsTheWeights) {
  for (const auto& c : cases()) {
    const auto& n = c.names;
    const std::string nodes = c.weighted ? n[0] + "=1," + n[1] + "=3" : n[0] + "," + n[1];
    const double expected = c.weighted ? 0.2 : 1.0 / 3.0;
    const char* text = c.weighted ? "the least possible is 20.00%" : "the least possible is 33.33%";
    const auto r = run_cli(simulate(c, nodes, "--add", n[2], false));
    ASSERT_EQ(r.exit_code, 0) << c.scheme << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(text)) << c.scheme << ":\n" << r.out;
    const auto j = run_cli(simulate(c, nodes, "--add", n[2], true));
    ASSERT_EQ(j.exit_code, 0) << c.scheme << ": " << j.err;
    EXPECT_DOUBLE_EQ(json::parse(j.out)["ideal_moved_fraction"].get<double>(), expected)
        << c.scheme;
  }
}

TEST(CliLeastPossible, RemovingANodeFollowsTheWeights) {
  for (const auto& c : cases()) {
    if (!c.weighted) continue;
    const auto& n = c.names;
    const std::string nodes = n[0] + "=1," + n[1] + "=3," + n[2] + "=1";
    const auto r = run_cli(simulate(c, nodes, "--remove", n[2], false));
    ASSERT_EQ(r.exit_code, 0) << c.scheme << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("the least possible is 20.00%")) << c.scheme << ":\n" << r.out;
  }
}

}  // namespace
}  // namespace ringbloom
