// `ringbloom demo --report DIR`: the tour as one self-contained HTML page,
// tables and inline SVG charts, no script and nothing fetched.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/tour/render.hpp"
#include "ringbloom/version.hpp"

namespace ringbloom::tour {
namespace {

namespace t = ringbloom::tour;

std::string pct(double x, int decimals = 1) { return fmt::format("{:.{}f}%", 100 * x, decimals); }
std::string name(hash_kind h) { return std::string(hash_name(h)); }

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// --- tables ------------------------------------------------------------------

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><thead><tr>";
  for (const auto& h : header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + escape(cell) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

// --- charts ------------------------------------------------------------------

constexpr double chart_width = 640;
constexpr double chart_height = 300;
constexpr double left = 60, right = 150, top = 20, bottom = 44;
constexpr double plot_width = chart_width - left - right;
constexpr double plot_height = chart_height - top - bottom;

enum class mark { line, dashed, points };

struct series {
  std::string name;
  std::string color;
  mark kind = mark::line;
  std::vector<std::pair<double, double>> data;
};

struct xy_chart {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool y_percent = false;
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  std::vector<double> x_ticks;
  std::vector<double> y_ticks;
  std::vector<series> lines;
};

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::string tick_label(double v, bool percent) {
  if (percent) return fmt::format("{:g}%", std::round(v * 1000) / 10);
  return fmt::format("{:g}", v);
}

// `width`: the whole chart's; wider than chart_width when a bar chart's
// category labels need the room (bar_chart).
std::string svg_open(const std::string& id, const std::string& title, double width = chart_width) {
  return fmt::format(
      "<svg class=\"chart\" id=\"{0}\" data-chart=\"{0}\" xmlns=\"http://www.w3.org/2000/svg\" "
      "viewBox=\"0 0 {1} {2}\" width=\"{1}\" height=\"{2}\" role=\"img\" "
      "aria-label=\"{3}\">\n<title>{3}</title>\n",
      id, width, chart_height, escape(title));
}

// What a legend entry shows: a bar's square, or the line the chart draws
// (solid, dashed, or a dot for points), so that the key looks like the mark.
enum class key { bar, line, dashed, points };

struct legend_entry {
  std::string label;
  std::string color;
  key shape = key::bar;
};

key key_of(mark m) {
  return m == mark::dashed ? key::dashed : m == mark::points ? key::points : key::line;
}

std::string legend(const std::vector<legend_entry>& entries, double width = chart_width) {
  std::string out = "<g class=\"legend\">";
  double y = top + 8;
  const double x = width - right + 14;
  for (const auto& [label, color, shape] : entries) {
    out += fmt::format("<g class=\"key\" data-key=\"{}\">", shape == key::bar      ? "bar"
                                                            : shape == key::line   ? "line"
                                                            : shape == key::dashed ? "dashed"
                                                                                   : "points");
    switch (shape) {
      case key::bar:
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>",
                           num(x), num(y - 10), color);
        break;
      case key::line:
      case key::dashed:
        out += fmt::format(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
            num(x - 2), num(y - 4), num(x + 14), num(y - 4), color,
            shape == key::dashed ? " stroke-dasharray=\"4 3\"" : "");
        break;
      case key::points:
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>", num(x + 6),
                           num(y - 4), color);
        break;
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"lg\">{}</text></g>", num(x + 18), num(y),
                       escape(label));
    y += 20;
  }
  return out + "</g>\n";
}

std::string axes(const std::string& x_label, const std::string& y_label,
                 double width = chart_width) {
  const double plot = width - left - right;
  return fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
      "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>"
      "<text class=\"al\" x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>"
      "<text class=\"al\" transform=\"translate(14 {7}) rotate(-90)\" "
      "text-anchor=\"middle\">{8}</text>\n",
      num(left), num(top + plot_height), num(left + plot), num(top), num(left + plot / 2),
      num(chart_height - 6), escape(x_label), num(top + plot_height / 2), escape(y_label));
}

std::string render(const xy_chart& c) {
  auto sx = [&](double x) {
    if (c.log_x) {
      return left + plot_width * (std::log10(x) - std::log10(c.x_min)) /
                        (std::log10(c.x_max) - std::log10(c.x_min));
    }
    return left + plot_width * (x - c.x_min) / (c.x_max - c.x_min);
  };
  auto sy = [&](double y) {
    const double clamped = std::clamp(y, c.y_min, c.y_max);
    return top + plot_height * (1 - (clamped - c.y_min) / (c.y_max - c.y_min));
  };
  std::string out = svg_open(c.id, c.title);
  for (double y : c.y_ticks) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text class=\"tk\" "
        "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
        num(left), num(sy(y)), num(left + plot_width), num(left - 6), num(sy(y) + 4),
        tick_label(y, c.y_percent));
  }
  for (double x : c.x_ticks) {
    out += fmt::format("<text class=\"tk\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       num(sx(x)), num(top + plot_height + 16), tick_label(x, false));
  }
  out += "\n" + axes(c.x_label, c.y_label);
  std::vector<legend_entry> entries;
  for (const series& s : c.lines) {
    entries.push_back({s.name, s.color, key_of(s.kind)});
    out += fmt::format("<g class=\"series\" data-series=\"{}\" data-points=\"{}\">", escape(s.name),
                       s.data.size());
    if (s.kind == mark::points) {
      for (const auto& [x, y] : s.data) {
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>", num(sx(x)),
                           num(sy(y)), s.color);
      }
    } else {
      std::string d;
      for (const auto& [x, y] : s.data) {
        d += fmt::format("{}{} {}", d.empty() ? "M" : " L", num(sx(x)), num(sy(y)));
      }
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>", d,
                         s.color, s.kind == mark::dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    out += "</g>\n";
  }
  out += legend(entries);
  return out + "</svg>\n";
}

// Grouped vertical bars: one group per category, one bar per series.
std::string bar_chart(const std::string& id, const std::string& title,
                      const std::vector<std::string>& categories, const std::vector<series>& bars,
                      double y_max, double reference, const std::string& reference_label,
                      const std::string& x_label = "node",
                      const std::string& y_label = "share of the keys") {
  auto sy = [&](double y) { return top + plot_height * (1 - std::min(y, y_max) / y_max); };
  // Each category label gets its width in the 11 px tick font (at most
  // 6.5 px a character) and a gap: a chart with many or long labels is
  // drawn wider (the page scales it down to fit, labels and all).
  std::size_t longest = 0;
  for (const auto& c : categories) longest = std::max(longest, c.size());
  const double plot = std::max(plot_width, static_cast<double>(categories.size()) *
                                               (6.5 * static_cast<double>(longest) + 10));
  const double width = plot + left + right;
  std::string out = svg_open(id, title, width);
  for (double y = 0; y <= y_max + 1e-9; y += 0.1) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text class=\"tk\" "
        "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
        num(left), num(sy(y)), num(left + plot), num(left - 6), num(sy(y) + 4),
        tick_label(y, true));
  }
  const double group = plot / static_cast<double>(categories.size());
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(1, bars.size()));
  for (std::size_t c = 0; c < categories.size(); ++c) {
    out += fmt::format(
        "<text class=\"tk category\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        num(left + group * (static_cast<double>(c) + 0.5)), num(top + plot_height + 16),
        escape(categories[c]));
  }
  out += "\n" + axes(x_label, y_label, width);
  std::vector<legend_entry> entries;
  for (std::size_t s = 0; s < bars.size(); ++s) {
    entries.push_back({bars[s].name, bars[s].color, key::bar});
    out += fmt::format("<g class=\"series\" data-series=\"{}\" data-points=\"{}\">",
                       escape(bars[s].name), bars[s].data.size());
    for (const auto& [c, y] : bars[s].data) {
      const double x = left + group * c + group * 0.1 + bar * static_cast<double>(s);
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>",
          num(x), num(sy(y)), num(bar - 2), num(top + plot_height - sy(y)), bars[s].color,
          escape(pct(y)));
    }
    out += "</g>\n";
  }
  out += fmt::format("<line class=\"ref\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", num(left),
                     num(sy(reference)), num(left + plot));
  entries.push_back({reference_label, "#555", key::dashed});  // drawn as .ref: #555, dashed
  out += legend(entries, width);
  return out + "</svg>\n";
}

std::string figure(const std::string& svg, const std::string& caption) {
  return "<figure>" + svg + "<figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

// --- sections ------------------------------------------------------------------

const char* const style = R"(
body { font: 15px/1.5 system-ui, sans-serif; color: #1d1d1f; max-width: 1000px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
p.what { color: #444; } p.means { background: #f4f7fb; border-left: 3px solid #3b6fb6; padding: 0.4em 0.8em; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; text-align: right; }
th:first-child, td:first-child { text-align: left; } th { background: #f3f3f3; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; }
svg.chart { background: #fff; border: 1px solid #e4e4e4; max-width: 100%; height: auto; }
svg .axis { stroke: #333; } svg .grid { stroke: #eee; } svg .ref { stroke: #555; stroke-dasharray: 4 3; }
svg .tk { font-size: 11px; fill: #555; } svg .al { font-size: 12px; fill: #333; } svg .lg { font-size: 12px; fill: #333; }
code { background: #f3f3f3; padding: 0 3px; }
)";

void section_rebalance(std::string& h, const t::tour_result& tour) {
  const auto& s = tour.rebalance;
  h += "<section id=\"rebalance\"><h2>1. <code>hash % N</code> against the ring, when a node "
       "joins</h2>\n";
  h += fmt::format(
      "<p class=\"what\">Keys key-0..key-{}; nodes n1..nN, the ring with {} virtual "
      "nodes per node; then n(N+1) joins.</p>\n",
      tour.options.keys - 1, s.vnodes);
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : s.rows) {
    rows.push_back({name(r.hash), fmt::format("{} → {}", r.from_nodes, r.from_nodes + 1),
                    fmt::format("{} ({})", pct(r.modulo_fraction(), 2), r.modulo_moved),
                    fmt::format("{} ({})", pct(r.ring_fraction(), 2), r.ring_moved),
                    fmt::format("{}", r.ring_moved_to_new), pct(r.ideal_fraction(), 2)});
  }
  h += html_table(
      {"hash", "N → N+1", "hash % N moved", "ring moved", "onto the new node", "ideal 1/(N+1)"},
      rows);
  xy_chart c;
  c.id = "chart-moved";
  c.title = fmt::format("Keys moved when node N+1 joins ({})", name(s.curve_hash));
  c.x_label = "N (nodes before the join)";
  c.y_label = "keys moved";
  c.y_percent = true;
  c.x_min = 1;
  c.x_max = std::max<double>(2, s.curve.empty() ? 2 : s.curve.back().from_nodes);
  for (double x = 1; x <= c.x_max; x += c.x_max > 10 ? 3 : 1) c.x_ticks.push_back(x);
  c.y_ticks = {0, 0.25, 0.5, 0.75, 1.0};
  series modulo{"hash % N", "#d1495b", mark::line, {}};
  series ring{"ring", "#3b6fb6", mark::line, {}};
  series ideal{"1/(N+1)", "#888", mark::dashed, {}};
  for (const auto& p : s.curve) {
    modulo.data.emplace_back(p.from_nodes, p.modulo);
    ring.data.emplace_back(p.from_nodes, p.ring);
    ideal.data.emplace_back(p.from_nodes, p.ideal);
  }
  c.lines = {modulo, ring, ideal};
  h += figure(render(c),
              "hash % N moves a growing majority of the keys; the ring follows "
              "1/(N+1), the share the new node should take.");
  using lf = t::lesson_figures;
  h += fmt::format(
      "<p class=\"means\">The German lesson printed {} and {} for <code>hash % N</code> with "
      "sha256, and lab11 says about {} against about {} for the ring. The remainder changes with "
      "the divisor, so almost every key moves; on the ring only the keys just before the new "
      "node's points move, and all of them onto the new node. With poly31 the ring moves nothing "
      "here only because every key sits on one node (section 4).</p></section>\n",
      pct(lf::modulo_4_to_5), pct(lf::modulo_10_to_11), pct(lf::lab11_modulo, 0),
      pct(lf::lab11_ring, 0));
}

void section_removal(std::string& h, const t::tour_result& tour) {
  h += "<section id=\"removal\"><h2>2. A node leaves the ring</h2>\n";
  h += "<p class=\"what\">Nodes n1..n5 (sha256 points); n3 is removed.</p>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : tour.removal) {
    std::string takers;
    for (const auto& [node, count] : c.moved_to) {
      takers += fmt::format("{}{}={}", takers.empty() ? "" : " ", node, count);
    }
    rows.push_back({fmt::format("{}", c.vnodes), fmt::format("{}", c.keys_on_removed),
                    fmt::format("{}", c.moved), fmt::format("{}", c.moved_from_others),
                    fmt::format("{}", c.moved_to_clockwise_neighbour), takers});
  }
  h += html_table({"vnodes", "keys on n3", "moved", "moved from others",
                   "to the next point "
                   "clockwise",
                   "taken by"},
                  rows);
  h += "<p class=\"means\">Only the removed node's keys move, each to the next point clockwise. "
       "With one point per node a single neighbour inherits the whole load; with many points it "
       "spreads over every remaining node.</p></section>\n";
}

void section_vnodes(std::string& h, const t::tour_result& tour) {
  const auto& s = tour.vnodes;
  h += "<section id=\"vnodes\"><h2>3. Virtual nodes: balance, memory and the cost of a "
       "change</h2>\n";
  h += fmt::format(
      "<p class=\"what\">Nodes n1..n4, keys key-0..key-{}: each node's share of the "
      "keys.</p>\n",
      tour.options.keys - 1);
  std::vector<std::string> header{"hash", "vnodes"};
  if (!s.shares.empty()) {
    for (const auto& n : s.shares.front().nodes) header.push_back(n);
  }
  header.push_back("min–max");
  header.push_back("peak/avg");
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : s.shares) {
    std::vector<std::string> row{name(t.hash), fmt::format("{}", t.vnodes)};
    for (double x : t.key_shares) row.push_back(pct(x));
    row.push_back(fmt::format("{}–{}", pct(t.min_share()), pct(t.max_share())));
    row.push_back(fmt::format("{:.3f}", t.peak_to_average));
    rows.push_back(row);
  }
  h += html_table(header, rows);

  // Load bars: the lesson's hash, 1 against the options' vnodes.
  std::vector<series> bars;
  std::vector<std::string> categories;
  const char* colors[] = {"#d1495b", "#3b6fb6"};
  for (const auto& t : s.shares) {
    if (t.hash != hash_kind::sha256) continue;
    series b{fmt::format("{} vnode{}", t.vnodes, t.vnodes == 1 ? "" : "s"),
             colors[bars.size() % 2],
             mark::line,
             {}};
    for (std::size_t i = 0; i < t.key_shares.size(); ++i) b.data.emplace_back(i, t.key_shares[i]);
    categories = t.nodes;
    bars.push_back(b);
  }
  double top_share = 0.3;
  for (const auto& b : bars) {
    for (const auto& d : b.data) top_share = std::max(top_share, d.second);
  }
  const double even = categories.empty() ? 0 : 1.0 / static_cast<double>(categories.size());
  h += figure(bar_chart("chart-load", "Share of the keys per node, sha256", categories, bars,
                        std::ceil(top_share * 10) / 10, even, "even share"),
              "One point per node leaves shares far apart; 100 points bring every node close to "
              "an even quarter.");
  using lf = t::lesson_figures;
  h += fmt::format(
      "<p class=\"means\">The German lesson measured {}–{} with one point per node "
      "and {}–{} with 100 (sha256).</p>\n",
      pct(lf::share_1_vnode_low, 0), pct(lf::share_1_vnode_high, 0),
      pct(lf::share_100_vnodes_low, 0), pct(lf::share_100_vnodes_high, 0));

  h += fmt::format(
      "<p class=\"what\">Sweep: {} nodes ({}) with 1 to {} points each; then one "
      "more node joins.</p>\n",
      s.sweep_nodes, name(s.sweep_hash), s.sweep.empty() ? 0u : s.sweep.back().vnodes);
  rows.clear();
  for (const auto& r : s.sweep) {
    rows.push_back({fmt::format("{}", r.vnodes), fmt::format("{}", r.points),
                    fmt::format("{:.1f} KiB", static_cast<double>(r.memory_bytes) / 1024),
                    fmt::format("{:.3f}", r.space_peak_to_average),
                    fmt::format("{:.3f}", r.key_peak_to_average), fmt::format("{}", r.add_points),
                    fmt::format("{}", r.add_donors), pct(r.add_moved_space)});
  }
  h += html_table({"vnodes", "points", "ring memory", "peak/avg (space)", "peak/avg (keys)",
                   "add: points inserted", "add: donor nodes", "add: space moved"},
                  rows);
  xy_chart c;
  c.id = "chart-balance";
  c.title = "Peak-to-average load against virtual nodes per node";
  c.x_label = "virtual nodes per node (log scale)";
  c.y_label = "peak / average";
  c.log_x = true;
  c.x_min = 1;
  c.x_max = 1000;
  double y_top = 1.5;
  series space{"hash space", "#3b6fb6", mark::line, {}};
  series keys{"keys", "#e09f3e", mark::points, {}};
  for (const auto& r : s.sweep) {
    c.x_max = std::max<double>(c.x_max, r.vnodes);
    space.data.emplace_back(r.vnodes, r.space_peak_to_average);
    keys.data.emplace_back(r.vnodes, r.key_peak_to_average);
    y_top = std::max({y_top, r.space_peak_to_average, r.key_peak_to_average});
  }
  c.y_min = 1;
  c.y_max = std::ceil(y_top * 2) / 2;
  for (double x = 1; x <= c.x_max * 1.0001; x *= 10) c.x_ticks.push_back(x);
  const double step = c.y_max - c.y_min > 2 ? 1 : 0.25;
  for (double y = c.y_min; y <= c.y_max + 1e-9; y += step) c.y_ticks.push_back(y);
  c.lines = {space, keys};
  h += figure(render(c),
              "The busiest node's load over the average falls towards 1 as points "
              "are added; keys add a little sampling noise on top of the ring's own "
              "imbalance.");
  h += "<p class=\"means\">lab11's table, measured: more points even out the load and let a new "
       "node take its share from many donors instead of one, at the price of memory and of one "
       "insertion per point on every change.</p></section>\n";
}

void section_poly31(std::string& h, const t::tour_result& tour) {
  const auto& p = tour.poly31;
  h += "<section id=\"poly31\"><h2>4. lab11's hash (poly31) on short keys</h2>\n";
  h += fmt::format(
      "<p class=\"what\"><code>poly31(\"key-1\")</code> = {}, "
      "<code>poly31(\"key-2\")</code> = {}: they differ by {}. {} of {} consecutive "
      "keys of equal length hash exactly 1 apart.</p>\n",
      p.hash_key_1, p.hash_key_2, p.hash_key_2 - p.hash_key_1, p.adjacent_pairs,
      p.adjacent_pairs_checked);
  std::vector<std::vector<std::string>> rows;
  auto row = [&](const std::string& hname, const t::spread& keys, const t::spread& points,
                 const t::share_table& shares) {
    std::vector<std::string> r{hname, fmt::format("{} / {}", keys.occupied_arcs, keys.arcs),
                               fmt::format("{} / {}", points.occupied_arcs, points.arcs)};
    for (double x : shares.key_shares) r.push_back(pct(x));
    r.push_back(fmt::format("{:.3f}", shares.peak_to_average));
    rows.push_back(r);
  };
  row("poly31", p.poly31_keys, p.poly31_points, p.poly31_shares);
  row("xxh3", p.xxh3_keys, p.xxh3_points, p.xxh3_shares);
  h += html_table(
      {"hash", "arcs holding keys", "arcs holding points", "n1", "n2", "n3", "n4", "peak/avg"},
      rows);
  h += fmt::format(
      "<p class=\"means\">The ring cut into {} equal arcs: a polynomial hash keeps keys that share "
      "a prefix next to each other, so {} keys crowd into a few arcs and one node takes nearly "
      "all of them; xxh3 mixes every bit and spreads them over the whole ring. That is why "
      "poly31 is kept only to reproduce lab11, and xxh3 is the default.</p></section>\n",
      p.poly31_keys.arcs, p.poly31_keys.values);
}

void section_exercises(std::string& h, const t::tour_result& tour) {
  h += "<section id=\"exercises\"><h2>5. The German lesson's rings, by the library</h2>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : tour.exercises) {
    std::string nodes;
    for (const auto& n : e.nodes) {
      for (auto token : n.tokens) {
        nodes += fmt::format("{}{} {}", nodes.empty() ? "" : ", ", n.name, token);
      }
    }
    std::string keys;
    for (auto k : e.key_hashes) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    rows.push_back(
        {e.name, nodes, keys, e.before, e.change, e.after, fmt::format("{}", e.moved),
         fmt::format("{} → {}, {} moved", e.lesson_before, e.lesson_after, e.lesson_moved)});
  }
  h += html_table({"example", "nodes at", "keys at", "before", "change", "after", "moved",
                   "the lesson's answer"},
                  rows);
  h += "<p class=\"means\">Computed with <code>add_node_at</code> (explicit tokens) and "
       "<code>node_for_hash</code>: past the last point a key wraps to the first. Only the keys "
       "between the changed point and its predecessor change owner.</p></section>\n";
}

void section_bloom(std::string& h, const t::tour_result& tour) {
  const auto& b = tour.bloom;
  const auto& w = b.walkthrough;
  h += "<section id=\"bloom\"><h2>6. Bloom filters</h2>\n";
  h += fmt::format(
      "<p class=\"what\">m = {}, k = {}, positions {}(\"i:item\") mod m; anna and "
      "bora are added. Bits, bit 0 first: <code>{}</code></p>\n",
      w.size.bits, w.size.hashes, name(w.hash), w.bit_string);
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : w.probes) {
    std::string positions, bits, by;
    for (std::size_t i = 0; i < p.positions.size(); ++i) {
      positions += fmt::format("{}{}", i ? ", " : "", p.positions[i]);
      bits += p.bits[i] ? '1' : '0';
      std::string names;
      for (const auto& n : p.set_by[i]) names += (names.empty() ? "" : "+") + n;
      by += fmt::format("{}{}: {}", i ? "; " : "", p.positions[i], names.empty() ? "–" : names);
    }
    rows.push_back({p.item, p.added ? "yes" : "no", positions, bits,
                    !p.may_contain ? "definitely absent"
                    : p.added      ? "maybe (added)"
                                   : "maybe (false positive)",
                    by});
  }
  h += html_table({"item", "added", "positions", "bits", "answer", "bits set by"}, rows);

  rows.clear();
  for (const auto& e : b.exercise) {
    rows.push_back({name(e.hash), fmt::format("{}", e.false_negatives),
                    fmt::format("{} / {}", e.false_positives, e.strangers), pct(e.measured(), 2),
                    pct(e.formula, 2), pct(e.expected_from_bits, 2)});
  }
  if (!b.exercise.empty()) {
    const auto& e0 = b.exercise.front();
    h += fmt::format(
        "<p class=\"what\">The exercise: {} addresses in m = {}, k = {}, probed with "
        "{} other addresses.</p>\n",
        e0.items, e0.size.bits, e0.size.hashes, e0.strangers);
  }
  h += html_table({"hash", "false negatives", "false positives", "measured", "(1−e^(−kn/m))^k",
                   "predicted from the bits"},
                  rows);

  const auto& f = b.fill;
  h += fmt::format(
      "<p class=\"what\">Filling past capacity: a classic filter (xxh3) sized for {} "
      "items at {} (m = {}, k = {}), probed with {} strangers at each step.</p>\n",
      f.capacity, pct(f.target_fpr, 0), f.size.bits, f.size.hashes, f.strangers);
  rows.clear();
  for (const auto& p : f.points) {
    rows.push_back({fmt::format("{}", p.items), fmt::format("{:.2f}×", p.load), pct(p.fill_ratio),
                    pct(p.measured, 2), pct(p.formula, 2)});
  }
  h += html_table({"items", "load", "bits set", "measured", "formula"}, rows);
  xy_chart c;
  c.id = "chart-fpr";
  c.title = "False-positive rate as the filter fills";
  c.x_label = "items / capacity";
  c.y_label = "false-positive rate";
  c.y_percent = true;
  c.x_min = 0;
  c.x_max = f.formula_curve.empty() ? 1 : std::max(1.0, f.formula_curve.back().load);
  double y_top = 0.05;
  series curve{"formula", "#3b6fb6", mark::line, {}};
  series measured{"measured", "#d1495b", mark::points, {}};
  for (const auto& p : f.formula_curve) {
    curve.data.emplace_back(p.load, p.formula);
    y_top = std::max(y_top, p.formula);
  }
  for (const auto& p : f.points) {
    measured.data.emplace_back(p.load, p.measured);
    y_top = std::max(y_top, p.measured);
  }
  c.y_max = std::ceil(y_top * 10) / 10;
  for (double x = 0; x <= c.x_max + 1e-9; x += 0.5) c.x_ticks.push_back(x);
  for (double y = 0; y <= c.y_max + 1e-9; y += c.y_max > 0.3 ? 0.1 : 0.05) c.y_ticks.push_back(y);
  c.lines = {curve, measured};
  h += figure(render(c),
              "Measured rates (points) sit on (1−e^(−kn/m))^k (line): at capacity the "
              "filter meets its target, past it the rate climbs fast.");

  rows.clear();
  for (const auto& m : b.memory) {
    rows.push_back(
        {fmt::format("{}", m.items), fmt::format("{}", m.item_bytes),
         fmt::format("{}", m.set_bytes), fmt::format("{}", m.filter_bytes),
         fmt::format("{:.1f}", static_cast<double>(m.size.bits) / static_cast<double>(m.items)),
         fmt::format("{:.0f}×",
                     static_cast<double>(m.set_bytes) /
                         static_cast<double>(std::max<std::uint64_t>(1, m.filter_bytes)))});
  }
  h += "<p class=\"what\">Memory: a classic filter at 1% against "
       "<code>std::pmr::unordered_set&lt;std::pmr::string&gt;</code> of the same addresses, every "
       "byte it allocates counted.</p>\n";
  h += html_table({"items", "bytes of the items", "exact set (bytes)", "filter (bytes)",
                   "filter bits per item", "set / filter"},
                  rows);
  h += "<p class=\"means\">One 0 bit is enough for “definitely absent”; “maybe” needs all k bits, "
       "which is how user5 becomes a false positive. There are never false negatives, the "
       "measured rate follows the formula, and the filter holds bits rather than items: about "
       "9.6 bits per item at 1%, against tens of bytes per item for a set.</p></section>\n";
}

void section_merkle(std::string& h, const t::tour_result& tour) {
  const auto& m = tour.merkle;
  h += "<section id=\"merkle\"><h2>8. Merkle trees: where two replicas differ</h2>\n";
  h += fmt::format(
      "<p class=\"what\">Replica A holds {} rows; B is A with d rows changed. Both keep a "
      "Merkle tree of depth {} ({} leaves, each a range of key hashes); they compare roots, "
      "then the children of every node that differs.</p>\n",
      m.rows, m.depth, std::uint64_t{1} << m.depth);
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : m.exchanges) {
    rows.push_back({fmt::format("{}", e.differences), fmt::format("{}", e.differing_leaves),
                    fmt::format("{}", e.digests_exchanged), fmt::format("{}", e.estimate),
                    fmt::format("{}", e.rows_to_compare), fmt::format("{}", e.rows_without_tree)});
  }
  h += html_table({"d", "leaves differ", "digests exchanged", "d × depth × 2", "rows to compare",
                   "rows without a tree"},
                  rows);
  xy_chart c{"chart-merkle-depth",
             fmt::format("Depth trade-off, d = {}: digests exchanged against rows to compare",
                         m.sweep_differences),
             "tree depth",
             "log10 of the count",
             false,
             false,
             0,
             1,
             0,
             1,
             {},
             {},
             {}};
  series digests{"digests", "#3b6fb6", mark::line, {}};
  series compare{"rows to compare", "#d1495b", mark::line, {}};
  series total{"together", "#555", mark::dashed, {}};
  double y_max = 1;
  for (const auto& p : m.depth_sweep) {
    const auto log = [](std::uint64_t v) {
      return std::log10(static_cast<double>(std::max<std::uint64_t>(1, v)));
    };
    digests.data.emplace_back(p.depth, log(p.digests_exchanged));
    compare.data.emplace_back(p.depth, log(p.rows_to_compare));
    total.data.emplace_back(p.depth, log(p.total()));
    y_max = std::max(y_max, std::ceil(log(p.total())));
    c.x_ticks.push_back(p.depth);
  }
  if (!m.depth_sweep.empty()) {
    c.x_min = m.depth_sweep.front().depth;
    c.x_max = std::max<double>(c.x_min + 1, m.depth_sweep.back().depth);
  }
  c.y_max = y_max;
  for (double y = 0; y <= y_max; ++y) c.y_ticks.push_back(y);
  c.lines = {digests, compare, total};
  h += figure(render(c),
              "Deeper trees exchange more digests (about 2 d per level) but leave fewer rows "
              "per differing leaf; the sum is smallest where the two meet.");
  h += "<p class=\"means\">For a few differences the tree replaces a million-row comparison "
       "by a few hundred digests and a few hundred rows; when a large share of the leaves "
       "differ, every leaf is compared anyway and the tree saves little.</p></section>\n";
}

// Section 9: ringbloom/tour/strategies_section.hpp.
void section_strategies(std::string& h, const t::tour_result& tour) {
  const auto& s = tour.strategies;
  h += "<section id=\"strategies\"><h2>9. Other placement strategies on the same "
       "experiment</h2>\n";
  h += fmt::format(
      "<p class=\"what\">Keys key-0..key-{}; nodes n1..nN, then n(N+1) joins, as in section 1, "
      "for every strategy of <code>ringbloom ring simulate --strategy all</code>; ring and "
      "bounded with {} points per node.</p>\n",
      s.keys - 1, s.ring_vnodes);
  std::vector<std::string> categories;
  std::vector<series> bars;
  const std::vector<std::string> colors{"#3b6fb6", "#d1495b"};
  double y_max = 1.2;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const auto& run = s.runs[i];
    std::vector<std::vector<std::string>> rows;
    series bar{fmt::format("{} → {}", run.from_nodes, run.from_nodes + 1),
               colors[i % colors.size()],
               mark::line,
               {}};
    for (std::size_t k = 0; k < run.rows.size(); ++k) {
      const auto& r = run.rows[k];
      const double ratio = r.moved_fraction / run.ideal_fraction;
      rows.push_back({r.name, fmt::format("{} ({})", pct(r.moved_fraction, 2), r.moved),
                      fmt::format("{:.3f}", ratio), pct(r.changed_share),
                      fmt::format("{:.3f}", r.peak_avg), pct(r.min_share), pct(r.max_share),
                      fmt::format("{}", r.memory_bytes)});
      if (i == 0) categories.push_back(r.name);
      bar.data.emplace_back(static_cast<double>(k), ratio);
      y_max = std::max(y_max, std::min(2.0, std::ceil(ratio * 10 + 1) / 10));
    }
    h += fmt::format("<p>N = {} → {}: the minimum is {}.</p>\n", run.from_nodes, run.from_nodes + 1,
                     pct(run.ideal_fraction, 2));
    h += html_table({"strategy", "moved", "× minimum", "to/from the new node", "peak/avg",
                     "min share", "max share", "lookup bytes"},
                    rows);
    bars.push_back(std::move(bar));
  }
  h += figure(
      bar_chart("chart-strategies", "Keys moved when node N+1 joins, per strategy", categories,
                bars, y_max, 1.0, "minimum", "strategy", "moved, as % of the minimum"),
      "100% is the minimum, 1/(N+1). Rendezvous, anchor, memento, jump and multi-probe "
      "move only keys onto the new node, like the ring; maglev and bounded loads also "
      "move a few between old nodes. The spread around 100% is sampling: 20,000 keys.");
  h += "<p class=\"means\">Every strategy here answers the lessons' question, how few keys "
       "can move, differently: by points on a circle (ring, ketama, multi-probe, bounded), by "
       "scores (rendezvous), by a table (maglev) or by bucket arithmetic (jump, anchor, "
       "memento). The table shows what each gives up: memory, weights, arbitrary removals, or a "
       "little extra movement. docs/placement.md compares them in full.</p></section>\n";
}

// A scheme name short enough for a bar group of the chart.
std::string chart_label(const std::string& scheme) {
  if (scheme == "groupcache") return "gcache";
  if (scheme == "envoy-ring-hash") return "ring hash";
  if (scheme == "envoy-maglev") return "maglev";
  return scheme;
}

// Section 10: ringbloom/tour/systems_section.hpp.
void section_systems(std::string& h, const t::tour_result& tour) {
  const auto& s = tour.systems;
  h += "<section id=\"systems\"><h2>10. The same change under the systems people run</h2>\n";
  h += fmt::format(
      "<p class=\"what\">Keys key-0..key-{}; servers n1..n{} of weight 1, each system placing "
      "keys exactly as its source does, with its defaults (<code>ringbloom ring simulate "
      "--scheme S</code>); then n{} joins (the minimum is {}), or the middle server {} leaves "
      "(minimum {}).</p>\n",
      s.keys - 1, s.from_nodes, s.from_nodes + 1, pct(s.ideal_add, 2), escape(s.removed),
      pct(s.ideal_remove, 2));
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> categories;
  series join{fmt::format("n{} joins", s.from_nodes + 1), "#3b6fb6", mark::line, {}};
  series leave{fmt::format("{} leaves", s.removed), "#d1495b", mark::line, {}};
  double y_max = 1.2;
  for (std::size_t k = 0; k < s.rows.size(); ++k) {
    const auto& r = s.rows[k];
    const std::string points =
        r.points_max_before == 0
            ? "–"
            : fmt::format("{}–{} → {}–{}", r.points_min_before, r.points_max_before,
                          r.points_min_after, r.points_max_after);
    rows.push_back({escape(r.system), pct(r.add_moved, 2),
                    fmt::format("{:.3f}", r.add_moved / s.ideal_add), pct(r.add_between_old, 2),
                    fmt::format("{:.3f} → {:.3f}", r.peak_avg_before, r.peak_avg_after),
                    r.remove_supported ? pct(r.remove_moved, 2) : "n/a",
                    r.remove_supported ? pct(r.remove_between_survivors, 2) : "n/a", points});
    categories.push_back(chart_label(r.scheme));
    const double join_ratio = r.add_moved / s.ideal_add;
    const double leave_ratio = r.remove_supported ? r.remove_moved / s.ideal_remove : 0.0;
    join.data.emplace_back(static_cast<double>(k), join_ratio);
    leave.data.emplace_back(static_cast<double>(k), leave_ratio);
    y_max =
        std::max(y_max, std::min(2.0, std::ceil(std::max(join_ratio, leave_ratio) * 10 + 1) / 10));
  }
  h += html_table({"system", "join: moved", "× minimum", "between old servers", "peak/avg",
                   "leave: moved", "between the others", "points per server"},
                  rows);
  h += figure(bar_chart("chart-systems", "Keys moved by one server joining or leaving, per system",
                        categories, {join, leave}, y_max, 1.0, "minimum", "system",
                        "moved, as % of the minimum"),
              "100% is the minimum (1/(N+1) for a join, 1/N for a leave); bars above 200% are cut "
              "at 200%. A missing red bar: the system cannot remove a middle server.");
  h += "<ul>\n";
  for (const auto& quirk : t::measured_quirks(s)) h += "<li>" + escape(quirk) + "</li>\n";
  h += "</ul>\n";
  h += "<p class=\"means\">The rule a system uses decides what a fleet change costs, not the "
       "idea of consistent hashing alone: check the real rule before touching the fleet, with "
       "<code>ringbloom ring diff --from SYSTEM old.conf new.conf --keys keys.txt</code>. Redis "
       "Cluster and Cassandra move keys only when slots or tokens are moved; import their "
       "topology before and after and diff the two.</p></section>\n";
}

// Section 12: ringbloom/tour/quantile_section.hpp.
void section_quantiles(std::string& h, const t::tour_result& tour) {
  const auto& q = tour.quantiles;
  h += "<section id=\"quantiles\"><h2>12. Quantiles: the stream that defeats t-digest, and "
       "KLL's bound</h2>\n";
  h += fmt::format(
      "<p class=\"what\">{} values per stream go into a t-digest (compression {:g}, "
      "RedisBloom's default) and a KLL sketch (k = {}, whose rank error is within {} of the "
      "stream with 99% confidence, whatever the stream). The worst rank error over evenly "
      "spaced values of each stream:</p>\n",
      q.values, q.compression, q.k, pct(q.kll_bound, 2));
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : q.streams) {
    rows.push_back({r.stream, pct(r.tdigest_worst, 3), pct(r.kll_worst, 3)});
  }
  h += html_table({"stream", "t-digest", "KLL"}, rows);
  xy_chart c{"chart-quantile-hard",
             "tdigest-hard: rank error (estimate - truth) by true rank",
             "true rank of the value",
             "rank error",
             false,
             true,
             0,
             1,
             -1,
             1,
             {0, 0.25, 0.5, 0.75, 1},
             {},
             {}};
  series td{"t-digest", "#d1495b", mark::line, {}};
  series kll{"KLL", "#3b6fb6", mark::line, {}};
  series up{"KLL bound, +", "#555", mark::dashed, {{0, q.kll_bound}, {1, q.kll_bound}}};
  series down{"KLL bound, -", "#999", mark::dashed, {{0, -q.kll_bound}, {1, -q.kll_bound}}};
  double extent = 2 * q.kll_bound;
  for (const auto& p : q.curve) {
    td.data.emplace_back(p.rank, p.tdigest_error);
    kll.data.emplace_back(p.rank, p.kll_error);
    extent = std::max({extent, std::abs(p.tdigest_error), std::abs(p.kll_error)});
  }
  const double y_max = std::ceil(extent * 10) / 10;
  c.y_min = -y_max;
  c.y_max = y_max;
  for (double y = -y_max; y <= y_max + 1e-9; y += y_max / 2) c.y_ticks.push_back(y);
  c.lines = {td, kll, up, down};
  h += figure(render(c),
              "Where the t-digest's line leaves the dashed band it is beyond KLL's guarantee; "
              "KLL's line stays inside it.");
  rows.clear();
  for (const auto& a : q.answers) {
    rows.push_back({fmt::format("{:g}", a.q), fmt::format("{:.3e}", a.truth),
                    fmt::format("{:.3e}", a.tdigest_value), pct(a.tdigest_rank, 1),
                    fmt::format("{:.3e}", a.kll_value), pct(a.kll_rank, 1)});
  }
  h += "<p>On tdigest-hard, each sketch's answer to a quantile query and the true rank of "
       "that answer:</p>\n";
  h += html_table({"q", "true value", "t-digest", "its true rank", "KLL", "its true rank"}, rows);
  h += "<p class=\"means\">tdigest-hard is the distribution D<sub>hard</sub> of Cormode, "
       "Mishra, Ross and Vesely (KDD 2021): values spread over 600 orders of magnitude. A "
       "t-digest centroid averages values that differ by hundreds of orders, so interpolating "
       "between centroids puts ranks almost anywhere. KLL keeps actual values and only "
       "compares them, so its error stays within its bound on every stream. On ordinary data "
       "the t-digest is the more accurate at the tails: choose KLL when the error must be "
       "bounded, t-digest for RedisBloom compatibility and tail accuracy on smooth data.</p>"
       "</section>\n";
}

}  // namespace

std::string render_tour_html(const tour::tour_result& tour) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>ringbloom demo: the two seed lessons, replayed</title>\n";
  h += fmt::format("<style>{}</style>\n</head>\n<body>\n", style);
  h += "<h1>ringbloom demo: the two seed lessons, replayed on the library</h1>\n";
  h += fmt::format(
      "<p class=\"what\">Every figure below was computed by ringbloom {} "
      "(<code>ringbloom demo --report</code>); the lessons' own numbers are quoted "
      "beside them. The same figures: <code>ringbloom demo --json</code>.</p>\n",
      escape(ringbloom::version_string));
  section_rebalance(h, tour);
  section_removal(h, tour);
  section_vnodes(h, tour);
  section_poly31(h, tour);
  section_exercises(h, tour);
  section_bloom(h, tour);
  h += render_sketch_html(tour.sketches);
  section_merkle(h, tour);
  section_strategies(h, tour);
  section_systems(h, tour);
  h += render_window_html(tour.window);
  section_quantiles(h, tour);
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace ringbloom::tour
