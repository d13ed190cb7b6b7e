// Section 11 of `ringbloom demo` (tour/window_section.hpp) in the three faces:
// text, JSON and HTML (tables and an inline SVG bar chart). Computes nothing
// but ratios of the section's counts.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "render_parts.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

using render_parts::html_row;
using render_parts::pct;
using render_parts::row;

namespace t = ringbloom::tour;

constexpr const char* title = "11. Filters that forget: second-hit cache admission, stream dedup";

std::string duration(double seconds) {
  const auto tenths = [](double x) { return std::round(x * 10) / 10; };
  if (seconds >= 3600) return fmt::format("{:g} h", tenths(seconds / 3600));
  if (seconds >= 60) return fmt::format("{:g} min", tenths(seconds / 60));
  return fmt::format("{:g} s", seconds);
}

std::string bytes(std::uint64_t b) {
  if (b >= 1'000'000) return fmt::format("{:.1f} MB", static_cast<double>(b) / 1e6);
  if (b >= 10'000) return fmt::format("{:.1f} kB", static_cast<double>(b) / 1e3);
  return fmt::format("{} B", b);
}

std::string policy(const t::admission_row& r) {
  if (r.policy == "every miss") return "every miss";
  return r.policy == "filter" ? "2nd request, filter" : "2nd request, exact";
}

std::string window_of(const t::admission_row& r) {
  return r.window_seconds == 0 ? "-" : duration(r.window_seconds);
}

std::string sizing(const t::admission_row& r) {
  if (r.policy == "filter")
    return fmt::format("{} ({:g}x busiest)", r.filter_capacity, r.filter_scale);
  return r.policy == "exact" ? "exact record" : "-";
}

/// The rows of the longest window: its first filter row and its exact row.
struct longest {
  const t::admission_row* filter = nullptr;
  const t::admission_row* exact = nullptr;
};
longest longest_window(const t::cdn_section& c) {
  longest out;
  double w = 0;
  for (const auto& r : c.rows) {
    if (r.window_seconds > w) {
      w = r.window_seconds;
      out = {};
    }
    if (r.window_seconds == w && w > 0) {
      if (r.policy == "filter" && out.filter == nullptr) out.filter = &r;
      if (r.policy == "exact") out.exact = &r;
    }
  }
  return out;
}

/// Sentences that quote the section's own numbers.
std::vector<std::string> cdn_notes(const t::cdn_section& c) {
  std::vector<std::string> notes;
  if (c.rows.empty()) return notes;
  const auto& all = c.rows.front();
  const longest l = longest_window(c);
  if (l.filter != nullptr && all.writes > 0) {
    notes.push_back(fmt::format(
        "With a {} window and a filter sized for its busiest window, the cache writes {} of the "
        "objects it wrote without admission ({} against {}), {} of them one-hit wonders (against "
        "{}); the hit ratio is {} against {}.",
        duration(l.filter->window_seconds),
        pct(static_cast<double>(l.filter->writes) / static_cast<double>(all.writes), 1),
        l.filter->writes, all.writes, l.filter->one_hit_writes, all.one_hit_writes,
        pct(l.filter->hit_ratio()), pct(all.hit_ratio())));
  }
  if (l.filter != nullptr && l.exact != nullptr && l.filter->memory_bytes > 0) {
    notes.push_back(fmt::format(
        "An exact record of each object's last miss over {} gives a hit ratio of {} and {} "
        "writes, in about {} against the filter's {} ({:.0f}x).",
        duration(l.exact->window_seconds), pct(l.exact->hit_ratio()), l.exact->writes,
        bytes(l.exact->memory_bytes), bytes(l.filter->memory_bytes),
        static_cast<double>(l.exact->memory_bytes) / static_cast<double>(l.filter->memory_bytes)));
  }
  notes.push_back(
      "A short window forgets popular objects between their requests, which then miss again; "
      "a filter smaller than its window's requests answers \"seen\" falsely and lets one-hit "
      "wonders in.");
  return notes;
}

std::string dedup_summary(const t::dedup_section& d) {
  return fmt::format(
      "A log of {} lines over {}, Zipf(1.0) over {} keys ({} distinct seen), deduplicated "
      "within {} (a line is dropped when the same line came within the window before it)",
      d.lines, duration(d.hours * 3600), d.keys, d.distinct_keys, duration(d.window_seconds));
}

// --- the chart ------------------------------------------------------------------

std::string admission_chart(const t::cdn_section& c) {
  const double width = 900, height = 320, left = 56, top = 20, plot_h = 220;
  const std::size_t n = c.rows.size();
  const double slot = (width - left - 20) / static_cast<double>(std::max<std::size_t>(1, n));
  double peak = 0;
  for (const auto& r : c.rows) peak = std::max({peak, r.hit_ratio(), r.write_ratio()});
  const double y_max = std::max(0.2, std::ceil(peak * 5) / 5);  // ticks every 5%, 10%, ...
  const auto y = [&](double v) { return top + plot_h * (1 - v / y_max); };
  std::string hits, writes, labels;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = c.rows[i];
    const double x = left + slot * static_cast<double>(i) + slot * 0.1;
    const double bar = slot * 0.38;
    hits += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#3b6fb6\">"
        "<title>hit ratio {}</title></rect>",
        x, y(r.hit_ratio()), bar, top + plot_h - y(r.hit_ratio()), pct(r.hit_ratio()));
    writes += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#c0504d\">"
        "<title>cache writes {} of the requests</title></rect>",
        x + bar, y(r.write_ratio()), bar, top + plot_h - y(r.write_ratio()), pct(r.write_ratio()));
    const std::string first = r.window_seconds == 0 ? "every" : duration(r.window_seconds);
    const std::string second = r.policy == "every miss" ? "miss"
                               : r.policy == "exact"    ? "exact"
                                                     : fmt::format("filter {:g}x", r.filter_scale);
    labels += fmt::format(
        "<text class=\"tk\" x=\"{0:.1f}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>"
        "<text class=\"tk\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        x + bar, top + plot_h + 16, first, top + plot_h + 30, second);
  }
  std::string axis;
  for (double v = 0; v <= y_max + 1e-9; v += y_max / 4) {
    axis += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text class=\"tk\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}%</text>\n",
        left, y(v), width - 20, left - 6, y(v) + 4, std::round(v * 1000) / 10);
  }
  std::string out = fmt::format(
      "<svg class=\"chart\" id=\"chart-admission\" role=\"img\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\"><title>Hit ratio and cache writes per request, by "
      "admission</title>\n",
      width, height);
  out += axis;
  out += fmt::format("<g class=\"series\" data-series=\"hit ratio\" data-points=\"{}\">{}</g>\n", n,
                     hits);
  out += fmt::format(
      "<g class=\"series\" data-series=\"cache writes per request\" data-points=\"{}\">{}</g>\n", n,
      writes);
  out += labels;
  out += fmt::format(
      "<text class=\"tk\" x=\"{}\" y=\"{}\">blue: hit ratio; red: objects written into the cache "
      "per request</text></svg>\n",
      left, height - 6);
  return out;
}

}  // namespace

std::string render_window_text(const tour::window_section& w) {
  const auto& c = w.cdn;
  std::string out = std::string(title) + "\n";
  out += fmt::format(
      "   A CDN trace: {} requests over {} days with a daily cycle; {} to one-hit wonders, the "
      "rest "
      "Zipf(1.0) over {} objects ({} distinct requested, {} of them once), in front of an LRU "
      "cache of {} objects; windowed filters at {}\n",
      c.requests, c.days, c.one_hit_requests, c.catalogue, c.distinct_objects, c.requested_once,
      c.cache_objects, pct(c.admission_fpr, 0));
  const std::vector<int> wd{19, 6, 22, 9, 9, 12, 14};
  out += row({"admission", "window", "filter items/window", "memory", "hit ratio", "cache writes",
              "one-hit writes"},
             wd);
  for (const auto& r : c.rows) {
    out +=
        row({policy(r), window_of(r), sizing(r), r.memory_bytes == 0 ? "-" : bytes(r.memory_bytes),
             pct(r.hit_ratio()), std::to_string(r.writes), std::to_string(r.one_hit_writes)},
            wd);
  }
  for (const auto& note : cdn_notes(c)) out += "   " + note + "\n";
  const auto& d = w.dedup;
  out += "   " + dedup_summary(d) + ":\n";
  out += fmt::format(
      "     exact windowed set: {} duplicates; at most {} live entries x {:.1f} B = {}\n",
      d.duplicates, d.exact_peak_entries, d.exact_bytes_per_entry, bytes(d.exact_bytes));
  out += fmt::format(
      "     windowed filter for the busiest window's {} lines at {}: {}; dropped {}: duplicates "
      "missed {}, new lines dropped {} in the slack (last seen {} to {} before) and {} beyond it "
      "({} of {} new lines)\n",
      d.filter_capacity, pct(d.fpr, 0), bytes(d.filter_bytes), d.dropped, d.missed,
      d.wrongly_dropped_slack, duration(d.window_seconds), duration(d.window_seconds * 4 / 3),
      d.wrongly_dropped_beyond, pct(d.false_positive_rate(), 3), d.new_beyond_slack);
  return out + "\n";
}

nlohmann::json window_section_json(const tour::window_section& w) {
  const auto& c = w.cdn;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    rows.push_back({{"policy", r.policy},
                    {"window_seconds", r.window_seconds},
                    {"filter_scale", r.filter_scale},
                    {"filter_capacity", r.filter_capacity},
                    {"memory_bytes", r.memory_bytes},
                    {"requests", r.requests},
                    {"hits", r.hits},
                    {"hit_ratio", r.hit_ratio()},
                    {"writes", r.writes},
                    {"write_ratio", r.write_ratio()},
                    {"one_hit_writes", r.one_hit_writes}});
  }
  const auto& d = w.dedup;
  return {{"cdn",
           {{"requests", c.requests},
            {"days", c.days},
            {"catalogue", c.catalogue},
            {"cache_objects", c.cache_objects},
            {"one_hit_requests", c.one_hit_requests},
            {"distinct_objects", c.distinct_objects},
            {"requested_once", c.requested_once},
            {"admission_fpr", c.admission_fpr},
            {"busiest_window_requests", c.busiest_window_requests},
            {"rows", rows}}},
          {"dedup",
           {{"lines", d.lines},
            {"hours", d.hours},
            {"keys", d.keys},
            {"distinct_keys", d.distinct_keys},
            {"window_seconds", d.window_seconds},
            {"fpr", d.fpr},
            {"filter_capacity", d.filter_capacity},
            {"filter_bytes", d.filter_bytes},
            {"duplicates", d.duplicates},
            {"dropped", d.dropped},
            {"missed", d.missed},
            {"wrongly_dropped_slack", d.wrongly_dropped_slack},
            {"wrongly_dropped_beyond", d.wrongly_dropped_beyond},
            {"new_beyond_slack", d.new_beyond_slack},
            {"false_positive_rate", d.false_positive_rate()},
            {"exact_peak_entries", d.exact_peak_entries},
            {"exact_bytes_per_entry", d.exact_bytes_per_entry},
            {"exact_bytes", d.exact_bytes}}}};
}

std::string render_window_html(const tour::window_section& w) {
  const auto& c = w.cdn;
  std::string h = fmt::format("<section id=\"window\"><h2>{}</h2>\n", title);
  h += fmt::format(
      "<p class=\"what\">A CDN trace: {} requests over {} days with a daily cycle; {} to one-hit "
      "wonders, the rest Zipf(1.0) over {} objects ({} distinct requested, {} of them once), in "
      "front of an LRU cache of {} objects. Without admission every miss writes its object; with "
      "second-hit admission only an object that missed before within the window is written "
      "(a windowed filter at {}, or an exact record of each object's last miss).</p>\n",
      c.requests, c.days, c.one_hit_requests, c.catalogue, c.distinct_objects, c.requested_once,
      c.cache_objects, pct(c.admission_fpr, 0));
  h += "<figure>" + admission_chart(c) +
       "<figcaption>Hit ratio and cache writes per request for each admission policy, window and "
       "filter size.</figcaption></figure>\n<table>";
  h += html_row({"admission", "window", "filter items/window", "memory", "hit ratio",
                 "cache writes", "one-hit writes"},
                true);
  for (const auto& r : c.rows) {
    h += html_row({policy(r), window_of(r), sizing(r),
                   r.memory_bytes == 0 ? "-" : bytes(r.memory_bytes), pct(r.hit_ratio()),
                   std::to_string(r.writes), std::to_string(r.one_hit_writes)});
  }
  h += "</table>\n";
  for (const auto& note : cdn_notes(c)) {
    std::string escaped;
    for (const char ch : note) escaped += ch == '"' ? std::string("&quot;") : std::string(1, ch);
    h += "<p class=\"means\">" + escaped + "</p>\n";
  }
  const auto& d = w.dedup;
  h += "<p class=\"what\">" + dedup_summary(d) + ".</p>\n<table>";
  h += html_row({"", "memory", "dropped", "duplicates missed", "new dropped in the slack",
                 "new dropped beyond (false positives)"},
                true);
  h += html_row({"exact windowed set",
                 fmt::format("{} ({} entries x {:.1f} B)", bytes(d.exact_bytes),
                             d.exact_peak_entries, d.exact_bytes_per_entry),
                 std::to_string(d.duplicates), "0", "0", "0"});
  h += html_row({fmt::format("windowed filter, {} lines at {}", d.filter_capacity, pct(d.fpr, 0)),
                 bytes(d.filter_bytes), std::to_string(d.dropped), std::to_string(d.missed),
                 std::to_string(d.wrongly_dropped_slack),
                 fmt::format("{} ({} of {})", d.wrongly_dropped_beyond,
                             pct(d.false_positive_rate(), 3), d.new_beyond_slack)});
  return h + "</table>\n</section>\n";
}

}  // namespace ringbloom::tour
