// Section 7 of the tour (include/ringbloom/tour/sketch_section.hpp).
#include "ringbloom/tour/sketch_section.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/mix.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace ringbloom::tour {

namespace {

constexpr std::size_t bins = 16;

std::string key(std::uint64_t i) { return "key-" + std::to_string(i); }

hll_section measure_hll(const sketch_options& o) {
  hll_section s;
  s.registers = std::uint64_t{1} << s.precision;
  s.memory_bytes = s.registers;
  s.expected_rse = 1.04 / std::sqrt(static_cast<double>(s.registers));
  s.bin_width = s.expected_rse / 2;
  std::vector<std::uint64_t> points = o.hll_points;
  std::sort(points.begin(), points.end());
  std::uint64_t seed = 7;
  for (const bool large : {false, true}) {
    std::vector<std::uint64_t> group;
    for (const auto n : points) {
      if ((n > 1'000'000) == large) group.push_back(n);
    }
    if (group.empty()) continue;
    const std::uint32_t sketches = large ? o.hll_sketches_large : o.hll_sketches;
    std::vector<std::vector<double>> errors(group.size());
    for (std::uint32_t k = 0; k < sketches; ++k) {
      hyperloglog h(s.precision);
      std::uint64_t added = 0;
      for (std::size_t g = 0; g < group.size(); ++g) {
        for (; added < group[g]; ++added) h.add_hash(splitmix64_next(seed));
        errors[g].push_back(h.estimate() / static_cast<double>(group[g]) - 1.0);
      }
    }
    for (std::size_t g = 0; g < group.size(); ++g) {
      hll_point p;
      p.n = group[g];
      p.sketches = sketches;
      p.histogram.assign(bins, 0);
      double sum = 0, sum_sq = 0;
      p.min_error = *std::min_element(errors[g].begin(), errors[g].end());
      p.max_error = *std::max_element(errors[g].begin(), errors[g].end());
      for (const double e : errors[g]) {
        sum += e;
        sum_sq += e * e;
        p.under += e < 0 ? 1 : 0;
        p.over += e > 0 ? 1 : 0;
        const double slot = std::floor(e / s.bin_width) + static_cast<double>(bins / 2);
        ++p.histogram[static_cast<std::size_t>(std::clamp(slot, 0.0, double(bins - 1)))];
      }
      p.bias = sum / sketches;
      p.rse = std::sqrt(sum_sq / sketches);
      p.exact_set_bytes = p.n * 40;
      s.points.push_back(p);
    }
  }
  return s;
}

// Zipf(1.0) ranks over `universe` keys, drawn with a fixed sequence.
std::vector<std::uint32_t> zipf_stream(std::uint64_t n, std::uint32_t universe) {
  std::vector<double> cdf(universe);
  double sum = 0;
  for (std::uint32_t i = 0; i < universe; ++i) cdf[i] = (sum += 1.0 / (i + 1));
  std::uint64_t seed = 11;
  std::vector<std::uint32_t> out(static_cast<std::size_t>(n));
  for (auto& x : out) {
    const double u = static_cast<double>(splitmix64_next(seed) >> 11) * 0x1.0p-53 * sum;
    const auto at = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
    x = static_cast<std::uint32_t>(std::min<std::ptrdiff_t>(at, universe - 1));
  }
  return out;
}

cms_section measure_cms(const std::vector<std::string>& keys,
                        const std::vector<std::uint32_t>& stream) {
  cms_section s;
  std::unordered_map<std::uint32_t, std::uint64_t> truth;
  for (const auto k : stream) ++truth[k];
  for (const bool conservative : {false, true}) {
    auto c = count_min_sketch::for_error(0.001, 0.01, conservative);
    s.width = c.width();
    s.depth = c.depth();
    for (const auto k : stream) c.increment(keys[k]);
    cms_row row;
    row.conservative = conservative;
    row.total = c.total();
    row.keys = truth.size();
    row.error_bound = c.error_bound();
    double over = 0;
    for (const auto& [k, f] : truth) {
      const std::uint64_t e = c.estimate(keys[k]);
      row.under += e < f ? 1 : 0;
      row.exact += e == f ? 1 : 0;
      const std::uint64_t diff = e > f ? e - f : 0;
      over += static_cast<double>(diff);
      row.max_over = std::max(row.max_over, diff);
      row.beyond_bound += static_cast<double>(diff) > row.error_bound ? 1 : 0;
    }
    row.mean_over = over / static_cast<double>(truth.size());
    s.rows.push_back(row);
  }
  return s;
}

topk_section measure_topk(const std::vector<std::string>& keys,
                          const std::vector<std::uint32_t>& stream) {
  topk_section s;
  std::unordered_map<std::uint32_t, std::uint64_t> truth;
  for (const auto k : stream) ++truth[k];
  std::vector<std::pair<std::uint32_t, std::uint64_t>> by(truth.begin(), truth.end());
  std::sort(by.begin(), by.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::set<std::string> top;
  for (std::size_t i = 0; i < std::min<std::size_t>(s.k, by.size()); ++i) {
    top.insert(keys[by[i].first]);
  }
  // RedisBloom's TOPK.RESERVE defaults, then a wider sketch.
  for (const auto& [width, depth] :
       {std::pair{8u, 7u}, std::pair{100u, 5u}, std::pair{1000u, 5u}}) {
    top_k t(s.k, width, depth, 0.9, 1);
    for (const auto k : stream) t.add(keys[k]);
    topk_row row{width, depth, 0, 0};
    for (const auto& e : t.list()) row.found += top.count(e.item) ? 1 : 0;
    row.recall = static_cast<double>(row.found) / static_cast<double>(top.size());
    s.rows.push_back(row);
  }
  return s;
}

cuckoo_section measure_cuckoo(const sketch_options& o) {
  cuckoo_section s;
  for (const double load : {0.5, 0.9, 0.95}) {
    cuckoo_filter::options opts;
    opts.bucket_size = s.bucket_size;
    opts.fingerprint_bits = s.fingerprint_bits;
    opts.max_kicks = 500;
    opts.expansion = 0;
    cuckoo_filter f(std::uint64_t{1} << 16, opts);
    const auto n = static_cast<std::uint64_t>(load * static_cast<double>(f.slots()));
    std::uint64_t stored = 0;
    for (std::uint64_t i = 0; i < n; ++i) stored += f.add(key(i)) ? 1 : 0;
    std::uint64_t fp = 0;
    for (std::uint64_t i = 0; i < o.cuckoo_strangers; ++i) {
      fp += f.may_contain("stranger-" + std::to_string(i)) ? 1 : 0;
    }
    cuckoo_row row;
    row.load = f.load_factor();
    row.fpr = static_cast<double>(fp) / static_cast<double>(o.cuckoo_strangers);
    row.formula_fpr = cuckoo_filter::expected_fpr(s.bucket_size, s.fingerprint_bits, row.load);
    row.cuckoo_bits_per_item =
        8.0 * static_cast<double>(f.memory_bytes()) / static_cast<double>(stored);
    const auto cbf =
        counting_bloom_filter::for_capacity(stored, std::max(row.fpr, row.formula_fpr));
    row.counting_bloom_bits_per_item =
        8.0 * static_cast<double>(cbf.stats().memory_bytes) / static_cast<double>(stored);
    s.rows.push_back(row);
  }
  return s;
}

}  // namespace

sketch_options sketch_options::quick() {
  sketch_options o;
  o.hll_points = {1000, 10000, 40960, 100000};
  o.hll_sketches = 16;
  o.stream = 100'000;
  o.universe = 10'000;
  o.cuckoo_strangers = 20'000;
  return o;
}

sketch_section run_sketch_section(const sketch_options& options) {
  if (options.hll_points.empty() || options.hll_sketches == 0 || options.stream == 0 ||
      options.universe == 0 || options.cuckoo_strangers == 0 ||
      std::find(options.hll_points.begin(), options.hll_points.end(), 0) !=
          options.hll_points.end()) {
    throw std::invalid_argument(
        "the sketch section needs non-empty, non-zero sizes (points, sketches, stream, "
        "universe, strangers)");
  }
  sketch_section s;
  s.hll = measure_hll(options);
  std::vector<std::string> keys(options.universe);
  for (std::uint32_t i = 0; i < options.universe; ++i) keys[i] = key(i);
  const auto stream = zipf_stream(options.stream, options.universe);
  s.cms = measure_cms(keys, stream);
  s.topk = measure_topk(keys, stream);
  s.cuckoo = measure_cuckoo(options);
  return s;
}

}  // namespace ringbloom::tour
