// Section 7 of `ringbloom demo` (tour/sketch_section.hpp) in the three faces:
// text, JSON and HTML (tables and an inline SVG histogram). Computes nothing.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "render_parts.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

using render_parts::html_row;
using render_parts::pct;
using render_parts::row;

namespace t = ringbloom::tour;

// One SVG: a histogram of the signed errors per distinct count (small
// multiples), as two series, the sketches under the truth and those over it
// (the report test counts each series' bars).
std::string histogram_svg(const t::hll_section& h) {
  const double width = 900;
  const double panel = width / static_cast<double>(std::max<std::size_t>(1, h.points.size()));
  const double height = 190, top = 20, plot = 120;
  std::string under, over;
  std::size_t under_bars = 0, over_bars = 0;
  std::string labels;
  for (std::size_t p = 0; p < h.points.size(); ++p) {
    const auto& pt = h.points[p];
    const double x0 = panel * static_cast<double>(p) + 10;
    const double bar = (panel - 20) / static_cast<double>(pt.histogram.size());
    const auto peak =
        std::max<std::uint32_t>(1, *std::max_element(pt.histogram.begin(), pt.histogram.end()));
    for (std::size_t b = 0; b < pt.histogram.size(); ++b) {
      if (pt.histogram[b] == 0) continue;
      const double hgt = plot * pt.histogram[b] / peak;
      const bool below = b < pt.histogram.size() / 2;
      (below ? under : over) += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} sketches</title></rect>",
          x0 + bar * static_cast<double>(b), top + plot - hgt, bar - 1, hgt,
          below ? "#c0504d" : "#3b6fb6", pt.histogram[b]);
      ++(below ? under_bars : over_bars);
    }
    labels += fmt::format(
        "<line class=\"ref\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
        "<text class=\"tk\" x=\"{3:.1f}\" y=\"{4}\" text-anchor=\"middle\">n = {5}</text>\n",
        x0 + bar * static_cast<double>(pt.histogram.size()) / 2, top, top + plot,
        x0 + (panel - 20) / 2, top + plot + 16, pt.n);
  }
  std::string out = fmt::format(
      "<svg class=\"chart\" id=\"chart-hll-error\" role=\"img\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\"><title>HyperLogLog signed relative error</title>\n",
      width, height);
  out +=
      fmt::format("<g class=\"series\" data-series=\"under the truth\" data-points=\"{}\">{}</g>\n",
                  under_bars, under);
  out +=
      fmt::format("<g class=\"series\" data-series=\"over the truth\" data-points=\"{}\">{}</g>\n",
                  over_bars, over);
  out += labels;
  out += fmt::format(
      "<text class=\"tk\" x=\"10\" y=\"{}\">bins of {} (half the expected standard error); "
      "red: under, blue: over</text></svg>\n",
      height - 8, pct(h.bin_width, 3));
  return out;
}

}  // namespace

std::string render_sketch_text(const tour::sketch_section& s) {
  std::string out =
      "7. The German lesson's unchecked claims: HyperLogLog, Count-Min, Top-K, cuckoo\n";
  const auto& h = s.hll;
  out += fmt::format(
      "   HyperLogLog p = {} ({} registers, {} bytes): signed error of independent sketches; "
      "expected standard error 1.04/sqrt(m) = {}\n",
      h.precision, h.registers, h.memory_bytes, pct(h.expected_rse));
  const std::vector<int> w{10, 8, 8, 9, 9, 9, 6, 6, 14};
  out += row({"n", "sketches", "RSE", "bias", "min", "max", "under", "over", "exact set ~B"}, w);
  for (const auto& p : h.points) {
    out += row({std::to_string(p.n), std::to_string(p.sketches), pct(p.rse), pct(p.bias, 3),
                pct(p.min_error), pct(p.max_error), std::to_string(p.under), std::to_string(p.over),
                std::to_string(p.exact_set_bytes)},
               w);
  }
  out +=
      "   The claim holds: errors fall on both sides of the truth, within a few times "
      "1.04/sqrt(m),\n"
      "   with no bump at 2.5 m; memory stays fixed while an exact set grows with n.\n";
  out += fmt::format("   Count-Min eps 0.001, delta 0.01 ({} x {}) on a Zipf(1.0) stream:\n",
                     s.cms.width, s.cms.depth);
  const std::vector<int> wc{12, 9, 7, 7, 7, 10, 9, 9, 7};
  out += row(
      {"update", "N", "keys", "under", "exact", "mean over", "max over", "eps x N", "beyond"}, wc);
  for (const auto& r : s.cms.rows) {
    out += row({r.conservative ? "conservative" : "plain", std::to_string(r.total),
                std::to_string(r.keys), std::to_string(r.under), std::to_string(r.exact),
                fmt::format("{:.2f}", r.mean_over), std::to_string(r.max_over),
                fmt::format("{:.0f}", r.error_bound), std::to_string(r.beyond_bound)},
               wc);
  }
  out +=
      "   The claim holds: never under; over by at most eps x N here, less with conservative "
      "update.\n";
  out +=
      fmt::format("   Top-K (HeavyKeeper) recall of the exact top {} on that stream:\n", s.topk.k);
  for (const auto& r : s.topk.rows) {
    out += fmt::format("     width {:>5} depth {}: {} of {} ({:.0f}%)\n", r.width, r.depth, r.found,
                       s.topk.k, 100 * r.recall);
  }
  out += fmt::format(
      "   Cuckoo filter (bucket {}, {}-bit fingerprints) against the counting Bloom filter:\n",
      s.cuckoo.bucket_size, s.cuckoo.fingerprint_bits);
  for (const auto& r : s.cuckoo.rows) {
    out += fmt::format(
        "     load {:.2f}: fpr {} (formula {}), {:.1f} bits/item; counting Bloom at that rate "
        "{:.1f} bits/item\n",
        r.load, pct(r.fpr, 3), pct(r.formula_fpr, 3), r.cuckoo_bits_per_item,
        r.counting_bloom_bits_per_item);
  }
  return out + "\n";
}

nlohmann::json sketch_section_json(const tour::sketch_section& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : s.hll.points) {
    points.push_back({{"n", p.n},
                      {"sketches", p.sketches},
                      {"rse", p.rse},
                      {"bias", p.bias},
                      {"min_error", p.min_error},
                      {"max_error", p.max_error},
                      {"under", p.under},
                      {"over", p.over},
                      {"histogram", p.histogram},
                      {"exact_set_bytes", p.exact_set_bytes}});
  }
  nlohmann::json cms = nlohmann::json::array();
  for (const auto& r : s.cms.rows) {
    cms.push_back({{"conservative", r.conservative},
                   {"total", r.total},
                   {"keys", r.keys},
                   {"error_bound", r.error_bound},
                   {"under", r.under},
                   {"exact", r.exact},
                   {"mean_over", r.mean_over},
                   {"max_over", r.max_over},
                   {"beyond_bound", r.beyond_bound}});
  }
  nlohmann::json topk = nlohmann::json::array();
  for (const auto& r : s.topk.rows) {
    topk.push_back(
        {{"width", r.width}, {"depth", r.depth}, {"found", r.found}, {"recall", r.recall}});
  }
  nlohmann::json cuckoo = nlohmann::json::array();
  for (const auto& r : s.cuckoo.rows) {
    cuckoo.push_back({{"load", r.load},
                      {"fpr", r.fpr},
                      {"formula_fpr", r.formula_fpr},
                      {"cuckoo_bits_per_item", r.cuckoo_bits_per_item},
                      {"counting_bloom_bits_per_item", r.counting_bloom_bits_per_item}});
  }
  return {{"hll",
           {{"precision", s.hll.precision},
            {"registers", s.hll.registers},
            {"memory_bytes", s.hll.memory_bytes},
            {"expected_rse", s.hll.expected_rse},
            {"bin_width", s.hll.bin_width},
            {"points", points}}},
          {"cms", {{"width", s.cms.width}, {"depth", s.cms.depth}, {"rows", cms}}},
          {"topk", {{"k", s.topk.k}, {"rows", topk}}},
          {"cuckoo",
           {{"bucket_size", s.cuckoo.bucket_size},
            {"fingerprint_bits", s.cuckoo.fingerprint_bits},
            {"rows", cuckoo}}}};
}

std::string render_sketch_html(const tour::sketch_section& s) {
  std::string h = "<h2>7. The German lesson's unchecked claims: HyperLogLog and Count-Min</h2>\n";
  h += fmt::format(
      "<p class=\"what\">HyperLogLog p = {} ({} bytes of registers): the signed relative error "
      "of many independent sketches at each distinct count, against 1.04/sqrt(m) = {}.</p>\n",
      s.hll.precision, s.hll.memory_bytes, pct(s.hll.expected_rse));
  h += "<figure>" + histogram_svg(s.hll) +
       "<figcaption>Signed errors per distinct count (red under, blue over); 2.5 m = 40,960 "
       "is where the classic estimator has its bump.</figcaption></figure>\n<table>";
  h += html_row({"n", "sketches", "RSE", "bias", "under", "over", "exact set (about)"}, true);
  for (const auto& p : s.hll.points) {
    h += html_row({std::to_string(p.n), std::to_string(p.sketches), pct(p.rse), pct(p.bias, 3),
                   std::to_string(p.under), std::to_string(p.over),
                   fmt::format("{} B", p.exact_set_bytes)});
  }
  h += "</table>\n";
  h += fmt::format(
      "<p class=\"what\">Count-Min {} x {} (eps 0.001, delta 0.01) on a Zipf(1.0) "
      "stream against exact counts.</p>\n<table>",
      s.cms.width, s.cms.depth);
  h += html_row({"update", "N", "keys", "under", "exact", "mean over", "max over", "eps x N",
                 "beyond eps x N"},
                true);
  for (const auto& r : s.cms.rows) {
    h += html_row({r.conservative ? "conservative" : "plain", std::to_string(r.total),
                   std::to_string(r.keys), std::to_string(r.under), std::to_string(r.exact),
                   fmt::format("{:.2f}", r.mean_over), std::to_string(r.max_over),
                   fmt::format("{:.0f}", r.error_bound), std::to_string(r.beyond_bound)});
  }
  std::uint64_t under = 0;
  for (const auto& r : s.cms.rows) under += r.under;
  h += fmt::format("</table>\n<p class=\"means\">{}</p>\n",
                   under == 0 ? "No key was underestimated, with or without conservative update."
                              : fmt::format("{} keys were underestimated.", under));
  h += fmt::format("<p class=\"what\">Top-K recall of the exact top {}.</p>\n<table>", s.topk.k);
  h += html_row({"width", "depth", "found", "recall"}, true);
  for (const auto& r : s.topk.rows) {
    h += html_row({std::to_string(r.width), std::to_string(r.depth), std::to_string(r.found),
                   pct(r.recall, 0)});
  }
  h += "</table>\n<p class=\"what\">Cuckoo filter against the counting Bloom filter at the same "
       "rate.</p>\n<table>";
  h += html_row({"load", "fpr", "formula", "cuckoo bits/item", "counting Bloom bits/item"}, true);
  for (const auto& r : s.cuckoo.rows) {
    h += html_row({fmt::format("{:.2f}", r.load), pct(r.fpr, 3), pct(r.formula_fpr, 3),
                   fmt::format("{:.1f}", r.cuckoo_bits_per_item),
                   fmt::format("{:.1f}", r.counting_bloom_bits_per_item)});
  }
  return h + "</table>\n";
}

}  // namespace ringbloom::tour
