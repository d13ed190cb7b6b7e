// Section 12 of `ringbloom demo` (tour/quantile_section.hpp) as text and
// JSON; the HTML face, with its chart, is in tour_html.cpp. Computes nothing.
#include <fmt/core.h>

#include <string>

#include "render_parts.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

using render_parts::pct;

}  // namespace

std::string render_quantile_text(const tour::quantile_section& s) {
  std::string out = "12. Quantiles: the stream that defeats t-digest, and KLL's bound\n";
  out += fmt::format(
      "   {} values per stream into a t-digest (compression {:g}) and a KLL sketch (k = {}, "
      "bound {}\n   of the stream at 99% confidence); the worst rank error over evenly "
      "spaced values:\n",
      s.values, s.compression, s.k, pct(s.kll_bound));
  out += fmt::format("   {:<16}{:>12}{:>12}\n", "stream", "t-digest", "KLL");
  for (const auto& r : s.streams) {
    out += fmt::format("   {:<16}{:>12}{:>12}\n", r.stream, pct(r.tdigest_worst, 3),
                       pct(r.kll_worst, 3));
  }
  out += "   tdigest-hard: each sketch's answer and the true rank of that answer\n";
  out += fmt::format("   {:<6}{:>14}{:>14}{:>10}{:>14}{:>10}\n", "q", "true value", "t-digest",
                     "its rank", "KLL", "its rank");
  for (const auto& a : s.answers) {
    out += fmt::format("   {:<6}{:>14.3e}{:>14.3e}{:>10}{:>14.3e}{:>10}\n", a.q, a.truth,
                       a.tdigest_value, pct(a.tdigest_rank, 1), a.kll_value, pct(a.kll_rank, 1));
  }
  out +=
      "   tdigest-hard is D_hard of Cormode, Mishra, Ross and Vesely (KDD 2021): values spread\n"
      "   over 600 orders of magnitude. A t-digest centroid averages values that differ by\n"
      "   hundreds of orders, so interpolating between centroids puts ranks almost anywhere.\n"
      "   KLL keeps actual values and only compares them: its error stays within its bound on\n"
      "   every stream. On ordinary data the t-digest is the more accurate at the tails.\n\n";
  return out;
}

nlohmann::json quantile_section_json(const tour::quantile_section& s) {
  using nlohmann::json;
  json streams = json::array();
  for (const auto& r : s.streams) {
    streams.push_back(
        {{"stream", r.stream}, {"tdigest_worst", r.tdigest_worst}, {"kll_worst", r.kll_worst}});
  }
  json curve = json::array();
  for (const auto& p : s.curve) {
    curve.push_back(
        {{"rank", p.rank}, {"tdigest_error", p.tdigest_error}, {"kll_error", p.kll_error}});
  }
  json answers = json::array();
  for (const auto& a : s.answers) {
    answers.push_back({{"q", a.q},
                       {"truth", a.truth},
                       {"tdigest_value", a.tdigest_value},
                       {"tdigest_rank", a.tdigest_rank},
                       {"kll_value", a.kll_value},
                       {"kll_rank", a.kll_rank}});
  }
  return {{"values", s.values},       {"compression", s.compression}, {"k", s.k},
          {"kll_bound", s.kll_bound}, {"streams", streams},           {"hard_curve", curve},
          {"hard_answers", answers}};
}

}  // namespace ringbloom::tour
