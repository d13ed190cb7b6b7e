// The tour's section on filters that forget (ringbloom/tour/window_section.hpp):
// second-hit cache admission on a CDN trace, and a log deduplicated within a
// window, each against an exact record.
#include "ringbloom/tour/window_section.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <memory_resource>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ringbloom/filter/windowed_bloom.hpp"
#include "ringbloom/mix.hpp"

namespace ringbloom::tour {

namespace {

double uniform(std::uint64_t& state) noexcept {
  return static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53;
}

/// Zipf(1.0) ranks 0..n-1 by the inverse of the cumulative weights 1/(r+1),
/// which are exact reciprocals (the same bits everywhere).
class zipf_ranks {
 public:
  explicit zipf_ranks(std::uint32_t n) : cdf_(n) {
    double sum = 0;
    for (std::uint32_t i = 0; i < n; ++i) cdf_[i] = (sum += 1.0 / (i + 1.0));
  }
  std::uint32_t draw(std::uint64_t& state) const {
    const double u = uniform(state) * cdf_.back();
    const auto at = std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
    return static_cast<std::uint32_t>(std::min<std::ptrdiff_t>(at, std::ssize(cdf_) - 1));
  }

 private:
  std::vector<double> cdf_;
};

/// n arrival times over `hours` hours: hour h gets a share of the n
/// proportional to 1 + diurnal x (1 - |h mod 24 - 12| / 6), spread evenly
/// within the hour. Ascending.
std::vector<double> arrival_times(std::uint64_t n, std::uint32_t hours, double diurnal) {
  std::vector<double> weight(hours);
  double total = 0;
  for (std::uint32_t h = 0; h < hours; ++h) {
    const double phase = static_cast<double>(h % 24);
    weight[h] = 1.0 + diurnal * (1.0 - std::fabs(phase - 12.0) / 6.0);
    total += weight[h];
  }
  std::vector<double> times;
  times.reserve(n);
  double cumulative = 0;
  std::uint64_t before = 0;
  for (std::uint32_t h = 0; h < hours; ++h) {
    cumulative += weight[h];
    const auto upto =
        h + 1 == hours
            ? n
            : static_cast<std::uint64_t>(std::floor(static_cast<double>(n) * cumulative / total));
    const std::uint64_t count = upto - before;
    for (std::uint64_t j = 0; j < count; ++j) {
      times.push_back(3600.0 * h +
                      (static_cast<double>(j) + 0.5) * 3600.0 / static_cast<double>(count));
    }
    before = upto;
  }
  return times;
}

/// The most times in any closed window [t - w, t] (times ascending).
std::uint64_t busiest_window(const std::vector<double>& times, double w) {
  std::uint64_t best = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    while (times[first] < times[i] - w) ++first;
    best = std::max<std::uint64_t>(best, i - first + 1);
  }
  return best;
}

/// The hash of the name `prefix<i>`, as the section's filters hash items
/// (their seed is 0): computed once per request, then add_hash and
/// may_contain_hash.
std::uint64_t name_hash(std::string_view prefix, std::uint64_t i) {
  static const windowed_bloom_filter hasher = windowed_bloom_filter::for_count(1, 0.5);
  char buf[32];
  const std::size_t n = prefix.copy(buf, sizeof(buf));
  const auto end = std::to_chars(buf + n, buf + sizeof(buf), i).ptr;
  return hasher.hash_item({buf, static_cast<std::size_t>(end - buf)});
}

/// A memory resource that counts the bytes it hands out and takes back.
class counting_resource : public std::pmr::memory_resource {
 public:
  [[nodiscard]] std::uint64_t in_use() const noexcept { return in_use_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    in_use_ += bytes;
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    in_use_ -= bytes;
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  [[nodiscard]] bool do_is_equal(const memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::uint64_t in_use_ = 0;
};

/// Bytes per entry of an exact windowed record keyed by `prefix<i>`: a
/// std::pmr::unordered_map<std::pmr::string, double> of `sample` names,
/// counted, plus 16 bytes of expiry queue (time and a reference) per entry.
double exact_bytes_per_entry(std::string_view prefix, std::uint64_t sample) {
  counting_resource counter;
  std::pmr::unordered_map<std::pmr::string, double> map(&counter);
  for (std::uint64_t i = 0; i < sample; ++i) {
    std::pmr::string name(prefix, &counter);
    name += std::to_string(i);
    map.emplace(std::move(name), static_cast<double>(i));
  }
  return static_cast<double>(counter.in_use()) / static_cast<double>(sample) + 16.0;
}

/// Live entries of an exact windowed record: keys whose latest time is
/// within w of now. Times are fed in ascending order.
class live_counter {
 public:
  live_counter(std::size_t keys, double w) : latest_(keys, -1.0), w_(w) {}
  /// The latest time of `key` before this one (-1 for none), then records t.
  double see(std::uint32_t key, double t) {
    while (head_ < queue_.size() && queue_[head_].time < t - w_) {
      const entry e = queue_[head_++];
      if (latest_[e.key] == e.time) --live_;
    }
    const double last = latest_[key];
    if (last < 0 || last < t - w_) ++live_;
    latest_[key] = t;
    queue_.push_back({t, key});
    peak_ = std::max(peak_, live_);
    return last;
  }
  [[nodiscard]] std::uint64_t peak() const noexcept { return peak_; }

 private:
  struct entry {
    double time;
    std::uint32_t key;
  };
  std::vector<double> latest_;
  std::vector<entry> queue_;
  std::size_t head_ = 0;
  double w_;
  std::uint64_t live_ = 0;
  std::uint64_t peak_ = 0;
};

/// An LRU cache of equal-sized objects over dense object ids.
class lru_cache {
 public:
  lru_cache(std::uint32_t capacity, std::size_t objects)
      : slot_of_(objects, none), object_(capacity), prev_(capacity), next_(capacity) {}

  /// Whether `o` is cached; a hit makes it the most recent.
  bool touch(std::uint32_t o) {
    const std::uint32_t s = slot_of_[o];
    if (s == none) return false;
    unlink(s);
    push_front(s);
    return true;
  }
  /// Writes `o` (not cached) as the most recent, evicting the least recent
  /// when full.
  void insert(std::uint32_t o) {
    std::uint32_t s = 0;
    if (size_ < object_.size()) {
      s = size_++;
    } else {
      s = tail_;
      unlink(s);
      slot_of_[object_[s]] = none;
    }
    object_[s] = o;
    slot_of_[o] = s;
    push_front(s);
  }

 private:
  static constexpr std::uint32_t none = 0xffffffffU;
  void unlink(std::uint32_t s) {
    if (prev_[s] != none) next_[prev_[s]] = next_[s];
    if (next_[s] != none) prev_[next_[s]] = prev_[s];
    if (head_ == s) head_ = next_[s];
    if (tail_ == s) tail_ = prev_[s];
  }
  void push_front(std::uint32_t s) {
    prev_[s] = none;
    next_[s] = head_;
    if (head_ != none) prev_[head_] = s;
    head_ = s;
    if (tail_ == none) tail_ = s;
  }
  std::vector<std::uint32_t> slot_of_, object_, prev_, next_;
  std::uint32_t head_ = none, tail_ = none;
  std::uint32_t size_ = 0;
};

struct request {
  double time;
  std::uint32_t object;  ///< < catalogue: "obj-<rank>"; else one-hit wonder
  std::uint64_t hash;
};

enum class admission { every_miss, filter, exact };

admission_row run_cache(const std::vector<request>& trace, std::size_t objects,
                        std::uint32_t catalogue, std::uint32_t cache_objects, admission policy,
                        double window, windowed_bloom_filter* filter) {
  admission_row row;
  row.requests = trace.size();
  row.window_seconds = window;
  lru_cache cache(cache_objects, objects);
  live_counter exact(policy == admission::exact ? objects : 0, window);
  for (const request& r : trace) {
    if (cache.touch(r.object)) {
      ++row.hits;
      continue;
    }
    bool admit = true;
    if (policy == admission::filter) {
      admit = filter->may_contain_hash(r.hash, r.time);
      filter->add_hash(r.hash, r.time);
    } else if (policy == admission::exact) {
      const double last = exact.see(r.object, r.time);
      admit = last >= 0 && r.time - last <= window;
    }
    if (!admit) continue;
    cache.insert(r.object);
    ++row.writes;
    if (r.object >= catalogue) ++row.one_hit_writes;
  }
  if (policy == admission::exact) {
    row.policy = "exact";
    row.memory_bytes = static_cast<std::uint64_t>(
        std::ceil(static_cast<double>(exact.peak()) * exact_bytes_per_entry("obj-", 10000)));
  }
  return row;
}

void check_options(const window_tour_options& o) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("window section: " + what);
  };
  if (o.requests == 0 || o.catalogue == 0 || o.days == 0 || o.cache_objects == 0 ||
      o.log_lines == 0 || o.log_keys == 0) {
    fail("requests, catalogue, days, cache_objects, log_lines and log_keys must be at least 1");
  }
  if (o.requests > 0xffffffffULL - o.catalogue) fail("requests plus catalogue must fit 32 bits");
  if (!(o.one_hit_share >= 0 && o.one_hit_share < 1) || !(o.diurnal >= 0 && o.diurnal < 1)) {
    fail("one_hit_share and diurnal must be in [0, 1)");
  }
  if (o.windows_hours.empty() || o.filter_scales.empty()) {
    fail("give at least one window and one filter scale");
  }
  for (std::size_t i = 0; i < o.windows_hours.size(); ++i) {
    if (!(o.windows_hours[i] > 0) || (i > 0 && !(o.windows_hours[i] > o.windows_hours[i - 1]))) {
      fail("windows_hours must be positive and ascending");
    }
  }
  for (const double s : o.filter_scales) {
    if (!(s > 0 && std::isfinite(s))) fail("filter_scales must be positive");
  }
  if (!(o.log_hours >= 1 && o.log_hours <= 24.0 * 366) || !(o.dedup_window_seconds > 0)) {
    fail("log_hours must be in [1, 8784] and dedup_window_seconds positive");
  }
}

cdn_section measure_cdn(const window_tour_options& o) {
  cdn_section s;
  s.requests = o.requests;
  s.days = o.days;
  s.catalogue = o.catalogue;
  s.cache_objects = o.cache_objects;
  s.admission_fpr = o.admission_fpr;

  const std::vector<cdn_request> requests = cdn_trace(o);
  std::vector<double> times(requests.size());
  std::vector<request> trace(requests.size());
  std::uint32_t one_hit = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const cdn_request& in = requests[i];
    request& r = trace[i];
    r.time = times[i] = in.time;
    r.object = in.one_hit ? o.catalogue + in.id : in.id;
    r.hash = name_hash(in.one_hit ? "ohw-" : "obj-", in.id);
    one_hit += in.one_hit ? 1 : 0;
  }
  const std::size_t objects = std::size_t{o.catalogue} + one_hit;
  s.one_hit_requests = one_hit;
  std::vector<std::uint32_t> seen(objects, 0);
  for (const request& r : trace) ++seen[r.object];
  for (const std::uint32_t n : seen) {
    s.distinct_objects += n > 0 ? 1 : 0;
    s.requested_once += n == 1 ? 1 : 0;
  }

  admission_row all =
      run_cache(trace, objects, o.catalogue, o.cache_objects, admission::every_miss, 0, nullptr);
  all.policy = "every miss";
  s.rows.push_back(all);
  for (const double hours : o.windows_hours) {
    const double window = hours * 3600.0;
    const std::uint64_t busiest = busiest_window(times, window);
    s.busiest_window_requests.push_back(busiest);
    for (const double scale : o.filter_scales) {
      const auto capacity = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::ceil(scale * static_cast<double>(busiest))));
      auto filter = windowed_bloom_filter::for_time(window, capacity, o.admission_fpr);
      admission_row row = run_cache(trace, objects, o.catalogue, o.cache_objects, admission::filter,
                                    window, &filter);
      row.policy = "filter";
      row.filter_scale = scale;
      row.filter_capacity = capacity;
      row.memory_bytes = filter.memory_bytes();
      s.rows.push_back(row);
    }
    s.rows.push_back(
        run_cache(trace, objects, o.catalogue, o.cache_objects, admission::exact, window, nullptr));
  }
  return s;
}

dedup_section measure_dedup(const window_tour_options& o) {
  dedup_section s;
  s.lines = o.log_lines;
  s.hours = o.log_hours;
  s.keys = o.log_keys;
  s.window_seconds = o.dedup_window_seconds;
  s.fpr = o.dedup_fpr;
  const std::vector<log_line> log = dedup_log(o);
  std::vector<double> times(log.size());
  for (std::size_t i = 0; i < log.size(); ++i) times[i] = log[i].time;
  std::vector<std::uint64_t> hash_of(o.log_keys, 0);
  std::vector<bool> named(o.log_keys, false);

  const double w = o.dedup_window_seconds;
  const double w_slack = w * (1.0 + windowed_math::slack);
  s.filter_capacity = busiest_window(times, w);
  auto filter = windowed_bloom_filter::for_time(w, s.filter_capacity, o.dedup_fpr);
  s.filter_bytes = filter.memory_bytes();
  live_counter exact(o.log_keys, w);
  for (const log_line& line : log) {
    const double t = line.time;
    const std::uint32_t key = line.key;
    if (!named[key]) {
      named[key] = true;
      hash_of[key] = name_hash("event-", key);
      ++s.distinct_keys;
    }
    const double last = exact.see(key, t);
    const bool duplicate = last >= 0 && t - last <= w;
    const bool dropped = filter.may_contain_hash(hash_of[key], t);
    filter.add_hash(hash_of[key], t);
    s.dropped += dropped ? 1 : 0;
    if (duplicate) {
      ++s.duplicates;
      s.missed += dropped ? 0 : 1;
    } else if (last >= 0 && t - last <= w_slack) {
      s.wrongly_dropped_slack += dropped ? 1 : 0;
    } else {
      ++s.new_beyond_slack;
      s.wrongly_dropped_beyond += dropped ? 1 : 0;
    }
  }
  s.exact_peak_entries = exact.peak();
  s.exact_bytes_per_entry = exact_bytes_per_entry("event-", 10000);
  s.exact_bytes = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(s.exact_peak_entries) * s.exact_bytes_per_entry));
  return s;
}

}  // namespace

std::string cdn_request::name() const { return (one_hit ? "ohw-" : "obj-") + std::to_string(id); }

std::string log_line::name() const { return "event-" + std::to_string(key); }

std::vector<cdn_request> cdn_trace(const window_tour_options& o) {
  check_options(o);
  const std::vector<double> times = arrival_times(o.requests, 24 * o.days, o.diurnal);
  const zipf_ranks zipf(o.catalogue);
  std::uint64_t state = 2025;
  std::vector<cdn_request> trace(times.size());
  std::uint32_t one_hit = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    cdn_request& r = trace[i];
    r.time = times[i];
    r.one_hit = uniform(state) < o.one_hit_share;
    r.id = r.one_hit ? one_hit++ : zipf.draw(state);
  }
  return trace;
}

std::vector<log_line> dedup_log(const window_tour_options& o) {
  check_options(o);
  const auto hours = static_cast<std::uint32_t>(std::ceil(o.log_hours));
  const std::vector<double> times = arrival_times(o.log_lines, hours, 0.0);
  const zipf_ranks zipf(o.log_keys);
  std::uint64_t state = 1729;
  std::vector<log_line> log(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) log[i] = {times[i], zipf.draw(state)};
  return log;
}

window_tour_options window_tour_options::quick() {
  window_tour_options o;
  o.requests = 60'000;
  o.catalogue = 200'000;
  o.cache_objects = 4'000;
  o.log_lines = 50'000;
  o.log_keys = 20'000;
  return o;
}

double admission_row::hit_ratio() const noexcept {
  return requests == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(requests);
}

double admission_row::write_ratio() const noexcept {
  return requests == 0 ? 0.0 : static_cast<double>(writes) / static_cast<double>(requests);
}

double dedup_section::false_positive_rate() const noexcept {
  return new_beyond_slack == 0
             ? 0.0
             : static_cast<double>(wrongly_dropped_beyond) / static_cast<double>(new_beyond_slack);
}

window_section measure_window(const window_tour_options& options) {
  check_options(options);
  return {measure_cdn(options), measure_dedup(options)};
}

}  // namespace ringbloom::tour
