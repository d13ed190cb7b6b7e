// `ringbloom demo`: the text tour, --json and --report, checked against the
// library's own figures (ringbloom/tour/tour.hpp), not against the tour's text.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ringbloom/hash.hpp"
#include "ringbloom/tour/tour.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;
using test::temp_dir;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(CliDemo, TextShowsEverySectionWithTheLibrarysFigures) {
  const auto r = run_cli({"demo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* title :
       {"1. hash % N", "2. A node leaves", "3. Virtual nodes", "4. lab11's hash",
        "5. The German lesson's rings", "6. Bloom filters"}) {
    EXPECT_NE(r.out.find(title), std::string::npos) << title;
  }
  const tour::rebalance_section s = tour::measure_rebalance();
  for (const auto& row : s.rows) {
    const std::string figure =
        fmt::format("{:.2f}% ({})", 100 * row.modulo_fraction(), row.modulo_moved);
    EXPECT_NE(r.out.find(figure), std::string::npos) << figure;
  }
  const tour::bloom_walkthrough w = tour::run_bloom_walkthrough();
  EXPECT_NE(r.out.find(w.bit_string), std::string::npos);
  for (const auto& e : tour::run_token_exercises()) {
    EXPECT_NE(r.out.find(e.before), std::string::npos);
    EXPECT_NE(r.out.find(e.after), std::string::npos);
  }
  // Not a terminal: no colour.
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
}

TEST(CliDemo, JsonHoldsEveryFigure) {
  const auto r = run_cli({"demo", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("format"), "ringbloom-tour");
  EXPECT_EQ(doc.at("version"), 1);
  for (const char* key : {"options", "lessons", "rebalance", "removal", "vnodes", "poly31",
                          "exercises", "bloom", "sketches", "quantiles"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  const tour::tour_result t = tour::run_tour();
  ASSERT_EQ(doc["rebalance"]["rows"].size(), t.rebalance.rows.size());
  for (std::size_t i = 0; i < t.rebalance.rows.size(); ++i) {
    const auto& row = doc["rebalance"]["rows"][i];
    EXPECT_EQ(row.at("hash"), std::string(hash_name(t.rebalance.rows[i].hash)));
    EXPECT_EQ(row.at("modulo_moved"), t.rebalance.rows[i].modulo_moved);
    EXPECT_EQ(row.at("ring_moved"), t.rebalance.rows[i].ring_moved);
    EXPECT_DOUBLE_EQ(row.at("modulo_fraction").get<double>(),
                     t.rebalance.rows[i].modulo_fraction());
  }
  EXPECT_EQ(doc["rebalance"]["curve"]["points"].size(), t.rebalance.curve.size());
  EXPECT_EQ(doc["vnodes"]["sweep"]["rows"].size(), t.vnodes.sweep.size());
  EXPECT_EQ(doc["vnodes"]["shares"][0]["nodes"].size(), 4u);
  EXPECT_EQ(doc["poly31"]["hash_key_1"], t.poly31.hash_key_1);
  EXPECT_EQ(doc["exercises"][1]["after"], t.exercises[1].after);
  EXPECT_EQ(doc["bloom"]["walkthrough"]["bits"], t.bloom.walkthrough.bit_string);
  EXPECT_EQ(doc["bloom"]["exercise"][0]["false_positives"], t.bloom.exercise[0].false_positives);
  EXPECT_EQ(doc["bloom"]["fill"]["points"].size(), t.bloom.fill.points.size());
  EXPECT_EQ(doc["bloom"]["memory"].size(), t.bloom.memory.size());
  EXPECT_EQ(doc["sketches"]["hll"]["points"].size(), t.sketches.hll.points.size());
  EXPECT_EQ(doc["sketches"]["cms"]["rows"][0]["under"], t.sketches.cms.rows[0].under);
  EXPECT_EQ(doc["quantiles"]["streams"].size(), t.quantiles.streams.size());
  EXPECT_EQ(doc["quantiles"]["hard_curve"].size(), t.quantiles.curve.size());
  EXPECT_DOUBLE_EQ(doc["quantiles"]["streams"].back().at("tdigest_worst").get<double>(),
                   t.quantiles.streams.back().tdigest_worst);
}

TEST(CliDemo, ReportWritesASelfContainedPage) {
  temp_dir dir;
  const std::string out = dir.file("report");  // created by the command
  const auto r = run_cli({"demo", "--report", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string index = out + "/index.html";
  ASSERT_TRUE(std::filesystem::exists(index));
  EXPECT_NE(r.out.find(index), std::string::npos);
  const std::string html = read_all(index);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<svg class=\"chart\""), 9u);
  for (const char* id :
       {"chart-load", "chart-moved", "chart-balance", "chart-fpr", "chart-hll-error",
        "chart-merkle-depth", "chart-strategies", "chart-systems", "chart-admission", "chart-quantile-hard"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  // Nothing to run and nothing to fetch.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(CliDemo, JsonAndReportExcludeEachOther) {
  temp_dir dir;
  const auto r = run_cli({"demo", "--json", "--report", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ringbloom: error:"), std::string::npos);
}

TEST(CliDemo, ReportIntoAFileIsAnIoError) {
  temp_dir dir;
  const std::string file = dir.file("plain");
  std::ofstream(file) << "x";
  const auto r = run_cli({"demo", "--report", file});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("ringbloom: error: cannot create the report directory"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ringbloom
