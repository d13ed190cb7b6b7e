// Renders `ringbloom demo --report` in headless Chromium (Debian's chromium
// package, installed by scripts/install-deps) and checks that every chart is
// laid out and drawn. Fails, never skips, when Chromium is missing.
//
// The report itself has no script. The test copies it and appends a probe
// script that measures each chart as the browser rendered it (bounding boxes
// of the SVG and of every mark) and writes the result into the DOM, which
// --dump-dom then prints.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using test::run_cli;
using test::temp_dir;

constexpr const char* chromium = "/usr/bin/chromium";

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs Chromium headless with a fresh profile and no network activity of its
// own; returns its exit status.
int run_chromium(const temp_dir& dir, const std::string& args, const std::string& stdout_file) {
  const std::string command =
      std::string("timeout 120 ") + chromium +
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --disable-extensions --hide-scrollbars --user-data-dir=" +
      dir.file("profile") + " " + args + " >" + stdout_file + " 2>" + dir.file("chromium.err");
  return std::system(command.c_str());
}

const char* const probe = R"(<script>
(function () {
  const charts = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    const series = [];
    for (const g of svg.querySelectorAll('g.series')) {
      let shapes = 0, drawn = 0, paths = 0, path_width = 0;
      for (const el of g.querySelectorAll('rect, circle')) {
        shapes++;
        const b = el.getBBox();
        if (b.width > 0 && b.height >= 0) drawn++;
      }
      for (const el of g.querySelectorAll('path')) {
        paths++;
        path_width = Math.max(path_width, el.getBBox().width);
      }
      series.push({name: g.dataset.series, points: Number(g.dataset.points), shapes: shapes,
                   drawn: drawn, paths: paths, path_width: path_width});
    }
    // Category labels under bar charts, left to right, as laid out on screen.
    const labels = [];
    for (const t of svg.querySelectorAll('text.category')) {
      const b = t.getBoundingClientRect();
      labels.push({text: t.textContent, left: b.left, right: b.right});
    }
    // The legend's keys: what each draws (a square, a line, a dashed line).
    const keys = [];
    for (const k of svg.querySelectorAll('g.legend g.key')) {
      const mark = k.firstElementChild;
      keys.push({label: k.querySelector('text').textContent, key: k.dataset.key,
                 element: mark.tagName, dashed: (mark.getAttribute('stroke-dasharray') || '') !== ''});
    }
    const refs = svg.querySelectorAll('line.ref').length;
    charts.push({id: svg.id, width: box.width, height: box.height, series: series,
                 labels: labels, keys: keys, refs: refs});
  }
  const pre = document.createElement('pre');
  pre.id = 'rb-probe';
  pre.textContent = JSON.stringify(charts);
  document.body.appendChild(pre);
})();
</script>
)";

std::string unescape(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                 {"&gt;", ">"},
                                 {"&quot;", "\""},
                                 {"&amp;", "&"}}) {
    for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + 1)) {
      s.replace(pos, from.size(), to);
    }
  }
  return s;
}

TEST(DemoReportPeer, EveryChartRendersInChromium) {
  ASSERT_EQ(::access(chromium, X_OK), 0)
      << chromium << " is missing; run scripts/install-deps (Debian package chromium)";
  temp_dir dir;
  const std::string report = dir.file("report");
  const auto r = run_cli({"demo", "--report", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::string html = read_all(report + "/index.html");
  const auto body_end = html.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  html.insert(body_end, probe);
  const std::string probed = dir.file("probed.html");
  std::ofstream(probed) << html;

  const std::string dom_file = dir.file("dom.html");
  ASSERT_EQ(run_chromium(dir, "--window-size=1280,2400 --dump-dom file://" + probed, dom_file), 0)
      << read_all(dir.file("chromium.err"));
  const std::string dom = read_all(dom_file);
  const std::string open = "<pre id=\"rb-probe\">";
  const auto start = dom.find(open);
  ASSERT_NE(start, std::string::npos) << "the probe did not run; DOM:\n" << dom.substr(0, 2000);
  const auto end = dom.find("</pre>", start);
  ASSERT_NE(end, std::string::npos);
  const auto charts =
      nlohmann::json::parse(unescape(dom.substr(start + open.size(), end - start - open.size())));

  std::set<std::string> ids;
  for (const auto& chart : charts) {
    const std::string id = chart.at("id");
    SCOPED_TRACE(id);
    ids.insert(id);
    EXPECT_GT(chart.at("width").get<double>(), 100);
    EXPECT_GT(chart.at("height").get<double>(), 100);
    ASSERT_GE(chart.at("series").size(), 2u);
    for (const auto& s : chart.at("series")) {
      SCOPED_TRACE(s.at("name").get<std::string>());
      const int points = s.at("points");
      EXPECT_GT(points, 0);
      if (s.at("paths").get<int>() > 0) {  // a line series: a line in the legend
        for (const auto& k : chart.at("keys")) {
          if (k.at("label") == s.at("name")) {
            EXPECT_EQ(k.at("element"), "line");
          }
        }
        EXPECT_GT(s.at("path_width").get<double>(), 10);  // a line across the plot
      } else {
        EXPECT_EQ(s.at("shapes").get<int>(), points);  // one bar or dot per point
        EXPECT_EQ(s.at("drawn").get<int>(), points);
      }
    }
  }
  // At the page width of a 1280 px window no two category labels overlap
  // (section 9 has eleven strategies), and a dashed reference line (the
  // minimum) is keyed by a dashed line, not a square.
  for (const auto& chart : charts) {
    SCOPED_TRACE(chart.at("id").get<std::string>());
    const auto& labels = chart.at("labels");
    for (std::size_t i = 1; i < labels.size(); ++i) {
      EXPECT_LT(labels[i - 1].at("right").get<double>(), labels[i].at("left").get<double>())
          << labels[i - 1].at("text") << " overlaps " << labels[i].at("text");
    }
    std::size_t dashed_keys = 0;
    for (const auto& k : chart.at("keys")) {
      if (k.at("key") == "dashed") {
        ++dashed_keys;
        EXPECT_EQ(k.at("element"), "line");
        EXPECT_TRUE(k.at("dashed").get<bool>());
      }
    }
    if (chart.at("id") == "chart-strategies") {  // section 9: eleven strategies, the minimum
      EXPECT_EQ(labels.size(), 11u);
      EXPECT_EQ(dashed_keys, 1u);
    }
    if (chart.at("refs").get<int>() > 0 && !chart.at("keys").empty()) {  // a legend keys it
      EXPECT_GE(dashed_keys, 1u);
    }
  }
  EXPECT_EQ(ids,
            (std::set<std::string>{"chart-load", "chart-moved", "chart-balance", "chart-fpr",
                                   "chart-hll-error", "chart-merkle-depth", "chart-strategies",
                                   "chart-systems", "chart-admission", "chart-quantile-hard"}));

  // And a picture: a PNG of the whole page.
  const std::string png = dir.file("report.png");
  ASSERT_EQ(
      run_chromium(
          dir, "--window-size=1100,2400 --screenshot=" + png + " file://" + report + "/index.html",
          dir.file("shot.out")),
      0)
      << read_all(dir.file("chromium.err"));
  const std::string image = read_all(png);
  ASSERT_GT(image.size(), 20000u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

}  // namespace
}  // namespace ringbloom
