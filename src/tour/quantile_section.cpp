// The tour's quantile section (include/ringbloom/tour/quantile_section.hpp).
#include "ringbloom/tour/quantile_section.hpp"

#include <algorithm>
#include <stdexcept>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/quantile_math.hpp"
#include "ringbloom/quantile/streams.hpp"
#include "ringbloom/quantile/tdigest.hpp"

namespace ringbloom::tour {

namespace {

// The true normalized rank interval of x in `sorted`: [below, at or below] / n.
std::pair<double, double> true_ranks(const std::vector<double>& sorted, double x) {
  const auto n = static_cast<double>(sorted.size());
  const auto lo = std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
  const auto hi = std::upper_bound(lo + sorted.begin(), sorted.end(), x) - sorted.begin();
  return {static_cast<double>(lo) / n, static_cast<double>(hi) / n};
}

// estimate - truth, 0 inside the interval.
double signed_error(std::pair<double, double> truth, double estimate) {
  if (estimate < truth.first) return estimate - truth.first;
  if (estimate > truth.second) return estimate - truth.second;
  return 0;
}

}  // namespace

quantile_tour_options quantile_tour_options::quick() {
  quantile_tour_options o;
  o.values = 20000;
  o.probes = 100;
  return o;
}

quantile_section measure_quantiles(const quantile_tour_options& options) {
  if (options.values < 100 || options.probes < 100 || options.probes > options.values) {
    throw std::invalid_argument(
        "the quantile section needs at least 100 values and 100 probes, and no more probes "
        "than values");
  }
  quantile_section s;
  s.values = options.values;
  s.compression = options.compression;
  s.k = options.k;
  s.kll_bound = kll_rank_error(options.k);
  for (const stream_kind kind : all_stream_kinds()) {
    const auto xs = make_stream(kind, options.values, options.seed);
    tdigest td(options.compression);
    td.add_many(xs);
    kll_sketch kll(options.k, options.seed);
    kll.add_many(xs);
    auto sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const bool hard = kind == stream_kind::tdigest_hard;
    quantile_stream_row row{std::string(stream_name(kind)), 0, 0};
    for (std::size_t i = 0; i < options.probes; ++i) {
      const double x = sorted[i * sorted.size() / options.probes];
      const auto truth = true_ranks(sorted, x);
      const double td_err = signed_error(truth, td.cdf(x));
      const double kll_err = signed_error(truth, kll.cdf(x));
      row.tdigest_worst = std::max(row.tdigest_worst, std::abs(td_err));
      row.kll_worst = std::max(row.kll_worst, std::abs(kll_err));
      if (hard) s.curve.push_back({(truth.first + truth.second) / 2, td_err, kll_err});
    }
    if (hard) {
      for (const double q : {0.5, 0.9, 0.99}) {
        const auto at = static_cast<std::size_t>(q * static_cast<double>(sorted.size()));
        const double td_value = td.quantile(q);
        const double kll_value = kll.quantile(q);
        const auto rank_of = [&](double v) {
          const auto r = true_ranks(sorted, v);
          return (r.first + r.second) / 2;
        };
        s.answers.push_back(
            {q, sorted[at], td_value, rank_of(td_value), kll_value, rank_of(kll_value)});
      }
    }
    s.streams.push_back(row);
  }
  return s;
}

}  // namespace ringbloom::tour
