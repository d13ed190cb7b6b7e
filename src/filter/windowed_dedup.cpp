// The dedup engine over a windowed filter (include/ringbloom/filter/windowed_dedup.hpp).
#include "ringbloom/filter/windowed_dedup.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "ringbloom/error.hpp"

namespace ringbloom {

namespace {

/// Line `number`'s time from its tab-separated field k (1-based), and in
/// `key` the line without that field and one of its tabs.
double split_time_field(std::string_view line, std::size_t k, std::uint64_t number,
                        std::string& key) {
  const auto refuse = [&](const std::string& what) {
    throw data_error("line " + std::to_string(number) + " " + what +
                     "; give the number of the tab-separated field that holds the time in "
                     "seconds");
  };
  std::size_t begin = 0;
  for (std::size_t f = 1; f < k; ++f) {
    const std::size_t tab = line.find('\t', begin);
    if (tab == std::string_view::npos) {
      refuse("has " + std::to_string(f) + " field" + (f == 1 ? "" : "s") + ", so no field " +
             std::to_string(k) + " to take its time from");
    }
    begin = tab + 1;
  }
  const std::size_t end = std::min(line.find('\t', begin), line.size());
  const std::string_view field = line.substr(begin, end - begin);
  double t = 0;
  const auto [stop, ec] = std::from_chars(field.data(), field.data() + field.size(), t);
  if (field.empty() || ec != std::errc{} || stop != field.data() + field.size() ||
      !std::isfinite(t)) {
    refuse("has '" + std::string(field) + "' in field " + std::to_string(k) +
           ", which is not a time");
  }
  key.assign(line.substr(0, begin == 0 ? 0 : begin - 1));
  if (end < line.size()) key.append(line.substr(begin == 0 ? end + 1 : end));
  return t;
}

}  // namespace

windowed_dedup::windowed_dedup(windowed_bloom_filter& filter, std::size_t time_field)
    : filter_(&filter), time_field_(time_field) {
  if (time_field != 0 && filter.kind() != window_kind::time) {
    throw std::invalid_argument(
        "a time field gives each line a time, which only a time window uses, and this filter "
        "has a count window; read the lines without a time field, or use a time window");
  }
}

std::size_t windowed_dedup::feed(std::span<const std::string> lines, double now, std::string& out) {
  if (lines.size() > capacity_) {
    capacity_ = lines.size();
    views_.resize(capacity_);
    times_.resize(capacity_);
    if (time_field_ != 0) keys_.resize(capacity_);
    seen_ = std::make_unique<bool[]>(capacity_);
  }
  std::size_t n = lines.size();
  std::optional<data_error> bad;
  for (std::size_t i = 0; i < n; ++i) {
    if (time_field_ == 0) {
      views_[i] = lines[i];
      times_[i] = now;
      continue;
    }
    try {
      times_[i] = split_time_field(lines[i], time_field_, lines_read_ + i + 1, keys_[i]);
      views_[i] = keys_[i];
    } catch (const data_error& e) {
      bad = e;  // process the lines before it, then report it
      n = i;
    }
  }
  const std::size_t seen =
      filter_->test_and_add_many({views_.data(), n}, {times_.data(), n}, {seen_.get(), n});
  for (std::size_t i = 0; i < n; ++i) {
    if (!seen_[i]) out.append(lines[i]).push_back('\n');
  }
  lines_read_ += n;
  if (bad) throw *bad;
  return n - seen;
}

}  // namespace ringbloom
