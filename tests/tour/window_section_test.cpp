// The tour's window section (ringbloom/tour/window_section.hpp) against a
// plain re-simulation of the same inputs: an LRU of std::list and
// std::unordered_map over the objects' names, exact records in maps, and
// windowed filters driven through add / may_contain on the names.
#include "ringbloom/tour/window_section.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ringbloom/filter/windowed_bloom.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

class reference_lru {
 public:
  explicit reference_lru(std::size_t capacity) : capacity_(capacity) {}
  bool touch(const std::string& key) {
    const auto it = where_.find(key);
    if (it == where_.end()) return false;
    order_.splice(order_.begin(), order_, it->second);
    return true;
  }
  void insert(const std::string& key) {
    if (order_.size() == capacity_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(key);
    where_[key] = order_.begin();
  }

 private:
  std::size_t capacity_;
  std::list<std::string> order_;
  std::unordered_map<std::string, std::list<std::string>::iterator> where_;
};

// The most requests in any closed window [t - w, t]: for each request, a
// binary search for the first one at or after t - w.
template <class Trace>
std::uint64_t busiest(const Trace& trace, double w) {
  std::vector<double> times;
  for (const auto& r : trace) times.push_back(r.time);
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto from = std::lower_bound(times.begin(), times.end(), times[i] - w);
    best = std::max<std::uint64_t>(best, static_cast<std::uint64_t>(times.begin() + i - from) + 1);
  }
  return best;
}

// The section at the quick sizes, measured once for all the tests.
const window_section& quick_section() {
  static const window_section w = measure_window(window_tour_options::quick());
  return w;
}

admission_row simulate(const std::vector<cdn_request>& trace, std::size_t cache,
                       const admission_row& like, double fpr) {
  admission_row row;
  reference_lru lru(cache);
  std::unordered_map<std::string, double> last_miss;
  auto filter =
      windowed_bloom_filter::for_time(like.window_seconds > 0 ? like.window_seconds : 1,
                                      like.filter_capacity > 0 ? like.filter_capacity : 1, fpr);
  for (const cdn_request& r : trace) {
    const std::string name = r.name();
    if (lru.touch(name)) {
      ++row.hits;
      continue;
    }
    bool admit = true;
    if (like.policy == "filter") {
      admit = filter.may_contain(name, r.time);
      filter.add(name, r.time);
    } else if (like.policy == "exact") {
      const auto it = last_miss.find(name);
      admit = it != last_miss.end() && r.time - it->second <= like.window_seconds;
      last_miss[name] = r.time;
    }
    if (!admit) continue;
    lru.insert(name);
    ++row.writes;
    row.one_hit_writes += r.one_hit ? 1 : 0;
  }
  return row;
}

TEST(WindowSection, CdnRowsMatchAPlainResimulation) {
  const window_tour_options o = window_tour_options::quick();
  const window_section& w = quick_section();
  const std::vector<cdn_request> trace = cdn_trace(o);
  const cdn_section& c = w.cdn;
  ASSERT_EQ(trace.size(), o.requests);
  ASSERT_EQ(c.rows.size(), 1 + o.windows_hours.size() * (o.filter_scales.size() + 1));
  std::uint64_t one_hit = 0;
  std::unordered_map<std::string, int> seen;
  for (const auto& r : trace) {
    one_hit += r.one_hit ? 1 : 0;
    ++seen[r.name()];
  }
  EXPECT_EQ(c.one_hit_requests, one_hit);
  EXPECT_EQ(c.distinct_objects, seen.size());
  std::uint64_t once = 0;
  for (const auto& [name, n] : seen) once += n == 1 ? 1 : 0;
  EXPECT_EQ(c.requested_once, once);
  for (std::size_t i = 0; i < o.windows_hours.size(); ++i) {
    EXPECT_EQ(c.busiest_window_requests[i], busiest(trace, o.windows_hours[i] * 3600));
  }
  std::size_t window = 0;
  for (const admission_row& row : c.rows) {
    SCOPED_TRACE(row.policy + " " + std::to_string(row.window_seconds) + " " +
                 std::to_string(row.filter_scale));
    if (row.policy == "filter") {
      while (o.windows_hours[window] * 3600 != row.window_seconds) ++window;
      EXPECT_EQ(row.filter_capacity,
                static_cast<std::uint64_t>(std::ceil(
                    row.filter_scale * static_cast<double>(c.busiest_window_requests[window]))));
      EXPECT_EQ(row.memory_bytes,
                windowed_bloom_filter::for_time(row.window_seconds, row.filter_capacity, 0.01)
                    .memory_bytes());
    }
    const admission_row ref = simulate(trace, o.cache_objects, row, o.admission_fpr);
    EXPECT_EQ(row.requests, o.requests);
    EXPECT_EQ(row.hits, ref.hits);
    EXPECT_EQ(row.writes, ref.writes);
    EXPECT_EQ(row.one_hit_writes, ref.one_hit_writes);
  }
  // Without admission every miss is written, every one-hit wonder among them;
  // the exact record never admits a one-hit wonder.
  EXPECT_EQ(c.rows[0].hits + c.rows[0].writes, o.requests);
  EXPECT_EQ(c.rows[0].one_hit_writes, c.one_hit_requests);
  for (const auto& row : c.rows) {
    if (row.policy == "exact") {
      EXPECT_EQ(row.one_hit_writes, 0u);
      EXPECT_GT(row.memory_bytes, 0u);
    }
  }
}

TEST(WindowSection, DedupMatchesAnExactWindowedSet) {
  const window_tour_options o = window_tour_options::quick();
  const dedup_section& d = quick_section().dedup;
  const std::vector<log_line> log = dedup_log(o);
  ASSERT_EQ(log.size(), o.log_lines);
  const double w = o.dedup_window_seconds;
  EXPECT_EQ(d.filter_capacity, busiest(log, w));
  auto filter = windowed_bloom_filter::for_time(w, d.filter_capacity, o.dedup_fpr);
  EXPECT_EQ(d.filter_bytes, filter.memory_bytes());
  std::unordered_map<std::string, double> last;
  std::map<std::string, int> in_window;  // lines per key among those within [t - w, t]
  std::size_t first = 0;
  std::uint64_t duplicates = 0, dropped = 0, missed = 0, slack = 0, beyond = 0, fresh = 0;
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const log_line& line = log[i];
    for (; log[first].time < line.time - w; ++first) {
      if (--in_window[log[first].name()] == 0) in_window.erase(log[first].name());
    }
    const std::string name = line.name();
    ++in_window[name];
    peak = std::max<std::uint64_t>(peak, in_window.size());
    const auto it = last.find(name);
    const bool duplicate = it != last.end() && line.time - it->second <= w;
    const bool in_slack = !duplicate && it != last.end() && line.time - it->second <= w * 4 / 3;
    const bool drop = filter.may_contain(name, line.time);
    filter.add(name, line.time);
    last[name] = line.time;
    dropped += drop ? 1 : 0;
    if (duplicate) {
      ++duplicates;
      missed += drop ? 0 : 1;
    } else if (in_slack) {
      slack += drop ? 1 : 0;
    } else {
      ++fresh;
      beyond += drop ? 1 : 0;
    }
  }
  EXPECT_EQ(d.lines, o.log_lines);
  EXPECT_EQ(d.distinct_keys, last.size());
  EXPECT_EQ(d.duplicates, duplicates);
  EXPECT_EQ(d.dropped, dropped);
  EXPECT_EQ(d.missed, 0u);  // the filter's guarantee
  EXPECT_EQ(d.missed, missed);
  EXPECT_EQ(d.wrongly_dropped_slack, slack);
  EXPECT_EQ(d.wrongly_dropped_beyond, beyond);
  EXPECT_EQ(d.new_beyond_slack, fresh);
  EXPECT_LE(d.false_positive_rate(), o.dedup_fpr);
  EXPECT_EQ(d.exact_peak_entries, peak);
  EXPECT_GT(d.exact_bytes_per_entry, 16.0 + 8.0);
  EXPECT_EQ(d.exact_bytes, static_cast<std::uint64_t>(
                               std::ceil(static_cast<double>(peak) * d.exact_bytes_per_entry)));
}

// The figures, pinned (deterministic with the seeds): a change of the trace,
// the cache or the filter shows here.
TEST(WindowSection, PinsTheQuickFigures) {
  const window_section& w = quick_section();
  const auto& rows = w.cdn.rows;
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(w.cdn.one_hit_requests, 21041u);
  EXPECT_EQ(rows[0].hits, 20385u);
  EXPECT_EQ(rows[0].writes, 39615u);
  EXPECT_EQ(rows[7].writes, 2573u);
  EXPECT_EQ(rows[7].one_hit_writes, 25u);
  EXPECT_EQ(rows[9].writes, 2377u);
  EXPECT_EQ(w.dedup.duplicates, 22111u);
  EXPECT_EQ(w.dedup.dropped, 22891u);
  EXPECT_EQ(w.dedup.wrongly_dropped_beyond, 31u);
}

TEST(WindowSection, FacesShowTheFigures) {
  const window_section& w = quick_section();
  const nlohmann::json j = window_section_json(w);
  ASSERT_EQ(j["cdn"]["rows"].size(), w.cdn.rows.size());
  EXPECT_EQ(j["cdn"]["rows"][0]["writes"], w.cdn.rows[0].writes);
  EXPECT_EQ(j["cdn"]["rows"][9]["policy"], "exact");
  EXPECT_EQ(j["dedup"]["duplicates"], w.dedup.duplicates);
  EXPECT_EQ(j["dedup"]["missed"], 0);
  const std::string html = render_window_html(w);
  EXPECT_NE(html.find("id=\"chart-admission\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"hit ratio\" data-points=\"10\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"cache writes per request\" data-points=\"10\""),
            std::string::npos);
  const std::string text = render_window_text(w);
  EXPECT_NE(text.find(std::to_string(w.cdn.rows[0].writes)), std::string::npos);
  EXPECT_NE(text.find(std::to_string(w.dedup.duplicates) + " duplicates"), std::string::npos);
}

TEST(WindowSection, RefusesBadOptions) {
  window_tour_options o = window_tour_options::quick();
  o.windows_hours = {6, 1};
  EXPECT_THROW((void)measure_window(o), std::invalid_argument);
  o = window_tour_options::quick();
  o.one_hit_share = 1.0;
  EXPECT_THROW((void)measure_window(o), std::invalid_argument);
  o = window_tour_options::quick();
  o.cache_objects = 0;
  EXPECT_THROW((void)measure_window(o), std::invalid_argument);
  o = window_tour_options::quick();
  o.filter_scales = {0};
  EXPECT_THROW((void)measure_window(o), std::invalid_argument);
}

}  // namespace
}  // namespace ringbloom::tour
