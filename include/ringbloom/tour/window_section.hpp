// ringbloom/tour/window_section.hpp: the tour's section on filters that
// forget (ringbloom/filter/windowed_bloom.hpp), on the two uses the lessons
// name: a filter in front of a cache, and "seen before?" in a stream.
//
// What it measures.
//   - cdn: a synthetic CDN trace in front of an LRU cache of equal-sized
//     objects. Requests arrive over several days with a daily cycle; a share
//     of them go to one-hit wonders (objects requested once, ever), the rest
//     to a catalogue with Zipf(1.0) popularity. Without admission every miss
//     writes its object into the cache; with second-hit admission a miss
//     writes it only when the same object missed before within the window
//     (a windowed filter: `may_contain`, then `add`, at the request's time).
//     For each window and filter size: the hit ratio, the cache writes, the
//     writes of one-hit wonders (disk written for nothing) and the filter's
//     memory; beside each window the same admission with an exact record of
//     the last miss of every object, and its memory.
//   - dedup: a log whose lines repeat (Zipf(1.0) over its keys), passed
//     through a windowed filter that drops a line seen within the window
//     (`may_contain`, then `add`: "seen" counts from the latest occurrence),
//     against an exact windowed set with the same rule: duplicates the
//     filter missed (none, by its guarantee), lines it wrongly dropped (in
//     the slack between W and W (1 + 1/3), and beyond it: false positives),
//     and the memory of each.
//   The filters are sized for the busiest window of their stream (counted
//   exactly over the trace), or a fraction of it (`filter_scales`).
//   The exact sets' memory is their peak number of live entries times the
//   bytes one entry takes in a std::pmr::unordered_map<std::pmr::string,
//   double> (counted by a memory resource over the stream's own names) plus
//   16 bytes of its expiry queue; the decisions themselves are made with
//   dense arrays.
//
// Deterministic: the trace is drawn with splitmix64 from fixed seeds, times
// are computed, and Zipf(1.0) uses exact reciprocals, so the same options
// give the same figures on every platform.
//
// Example:
//
//   #include <ringbloom/tour/window_section.hpp>
//   auto w = ringbloom::tour::measure_window();
//   double saved = 1.0 - double(w.cdn.rows[1].writes) / double(w.cdn.rows[0].writes);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringbloom::tour {

/// The sizes of the section. The defaults run in about a quarter of a
/// second in a release build.
struct window_tour_options {
  // --- the CDN trace ---
  std::uint64_t requests = 200'000;
  /// Objects "obj-<rank>" of the catalogue, popularity Zipf(1.0).
  std::uint32_t catalogue = 1'000'000;
  /// Share of the requests that go to one-hit wonders ("ohw-<i>").
  double one_hit_share = 0.35;
  std::uint32_t days = 3;
  /// The daily cycle: hour h's rate is 1 + diurnal x (1 - |h mod 24 - 12| / 6),
  /// a triangle wave, lowest at midnight and highest at noon; in [0, 1).
  double diurnal = 0.6;
  /// The LRU cache's size, in objects.
  std::uint32_t cache_objects = 20'000;
  /// Admission windows, in hours, ascending.
  std::vector<double> windows_hours{1, 6, 24};
  /// Each filter is sized for scale x the busiest window's requests.
  std::vector<double> filter_scales{1.0, 0.25};
  double admission_fpr = 0.01;

  // --- the log ---
  std::uint64_t log_lines = 200'000;
  /// Keys "event-<rank>" of the log, popularity Zipf(1.0).
  std::uint32_t log_keys = 100'000;
  double log_hours = 24;
  double dedup_window_seconds = 600;
  double dedup_fpr = 0.01;

  /// Smaller sizes for tests under sanitizers.
  [[nodiscard]] static window_tour_options quick();
};

/// One admission policy on the CDN trace.
struct admission_row {
  /// "every miss", "filter" or "exact".
  std::string policy;
  double window_seconds = 0;          ///< 0 for "every miss"
  double filter_scale = 0;            ///< filter rows: of the busiest window's requests
  std::uint64_t filter_capacity = 0;  ///< filter rows: items per window it was sized for
  std::uint64_t memory_bytes = 0;     ///< the filter's bits, or the exact record's estimate
  std::uint64_t hits = 0;
  std::uint64_t writes = 0;          ///< objects written into the cache
  std::uint64_t one_hit_writes = 0;  ///< of those, one-hit wonders
  std::uint64_t requests = 0;

  [[nodiscard]] double hit_ratio() const noexcept;
  [[nodiscard]] double write_ratio() const noexcept;  ///< writes per request
};

struct cdn_section {
  std::uint64_t requests = 0;
  std::uint32_t days = 0;
  std::uint32_t catalogue = 0;
  std::uint32_t cache_objects = 0;
  std::uint64_t one_hit_requests = 0;
  /// Distinct objects requested, and of them requested exactly once
  /// (one-hit wonders and the catalogue's once-requested tail).
  std::uint64_t distinct_objects = 0;
  std::uint64_t requested_once = 0;
  double admission_fpr = 0;
  /// The busiest window's requests, one per window of the options.
  std::vector<std::uint64_t> busiest_window_requests;
  /// "every miss" first, then per window its filter rows and its exact row.
  std::vector<admission_row> rows;
};

struct dedup_section {
  std::uint64_t lines = 0;
  double hours = 0;
  std::uint32_t keys = 0;  ///< the log's keys, "event-<rank>"
  std::uint64_t distinct_keys = 0;
  double window_seconds = 0;
  double fpr = 0;
  std::uint64_t filter_capacity = 0;  ///< the busiest window's lines
  std::uint64_t filter_bytes = 0;
  /// Lines the exact windowed set calls duplicates (seen within W).
  std::uint64_t duplicates = 0;
  /// Lines the filter dropped.
  std::uint64_t dropped = 0;
  /// Duplicates the filter let through (its guarantee: 0).
  std::uint64_t missed = 0;
  /// New lines the filter dropped: last seen between W and W (1 + 1/3)
  /// ago (the slack), and otherwise (false positives).
  std::uint64_t wrongly_dropped_slack = 0;
  std::uint64_t wrongly_dropped_beyond = 0;
  /// New lines outside the slack: the false positives' denominator.
  std::uint64_t new_beyond_slack = 0;
  std::uint64_t exact_peak_entries = 0;
  double exact_bytes_per_entry = 0;
  std::uint64_t exact_bytes = 0;

  /// wrongly_dropped_beyond / new_beyond_slack.
  [[nodiscard]] double false_positive_rate() const noexcept;
};

struct window_section {
  cdn_section cdn;
  dedup_section dedup;
};

/// One request of the CDN trace: object "obj-<id>" of the catalogue (id its
/// popularity rank) or one-hit wonder "ohw-<id>".
struct cdn_request {
  double time = 0;  ///< seconds from the trace's start
  bool one_hit = false;
  std::uint32_t id = 0;
  [[nodiscard]] std::string name() const;
};

/// One line of the log: key "event-<key>" at `time` seconds.
struct log_line {
  double time = 0;
  std::uint32_t key = 0;
  [[nodiscard]] std::string name() const;
};

/// The section's inputs, in time order (measure_window uses exactly these).
[[nodiscard]] std::vector<cdn_request> cdn_trace(const window_tour_options& options = {});
[[nodiscard]] std::vector<log_line> dedup_log(const window_tour_options& options = {});

/// Runs the section. Throws std::invalid_argument for sizes of 0, a share
/// or amplitude outside [0, 1), windows not ascending or not positive, a
/// scale not positive, or a rate the windowed filter refuses.
[[nodiscard]] window_section measure_window(const window_tour_options& options = {});

}  // namespace ringbloom::tour
