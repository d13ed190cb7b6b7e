// ringbloom/filter/windowed_dedup.hpp: "print each line not seen within the
// window": the `awk '!seen[$0]++'` of unbounded streams, in bounded memory.
//
// What it is: the engine of `ringbloom bloom dedup` and of Python's
// WindowedBloomFilter.dedup, over a windowed_bloom_filter the caller owns
// (and saves, when its state must outlive the process). Lines are fed in
// batches; those not seen within the window are appended to an output
// buffer, in order.
//
// Times: by default every line of a batch takes the time given with the
// batch (the caller's clock; count windows ignore it). With a time field K
// (>= 1), each line's time is its tab-separated field K, in seconds (for
// replaying logs), and what is compared is the line without that field and
// its tab, so "a<TAB>1000<TAB>x" and "a<TAB>1010<TAB>x" are the same line
// seen twice.
//
// Guarantees: a line seen within the window is never printed again (no false
// negatives, windowed_bloom.hpp); a new line is wrongly dropped at most at
// the filter's rate (while no generation is overfull). Lines are printed
// whole, in their input order.
//
// Errors: a line whose time field is missing or not a finite number throws
// ringbloom::data_error naming the line's number and saying what to do; the
// lines of the batch before it have then been processed and appended, so the
// filter holds exactly the lines printed. A time the filter refuses (more than
// one window before its latest) throws std::invalid_argument; the filter may
// then hold lines of that batch that were not appended.
//
// Example:
//
//   auto f = ringbloom::windowed_bloom_filter::for_time(3600, 1'000'000, 0.01);
//   ringbloom::windowed_dedup dedup(f);
//   std::string out;
//   std::vector<std::string> lines{"GET /a", "GET /b", "GET /a"};
//   dedup.feed(lines, now, out);  // out == "GET /a\nGET /b\n"
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/windowed_bloom.hpp"

namespace ringbloom {

class windowed_dedup {
 public:
  /// Deduplicates against `filter`, which must outlive this object.
  /// time_field 0: lines are compared whole and take the batch's time; K >= 1:
  /// the time comes from tab-separated field K. Throws std::invalid_argument
  /// for a time field on a count window, which has no time.
  explicit windowed_dedup(windowed_bloom_filter& filter, std::size_t time_field = 0);

  /// Appends each line not seen within the window, with a '\n', to `out`;
  /// returns how many lines were new. `now` is the time of every line when
  /// there is no time field. Throws as the top of this file says.
  std::size_t feed(std::span<const std::string> lines, double now, std::string& out);

  /// Lines processed so far (the numbering of error messages).
  [[nodiscard]] std::uint64_t lines_read() const noexcept { return lines_read_; }

 private:
  windowed_bloom_filter* filter_;
  std::size_t time_field_;
  std::uint64_t lines_read_ = 0;
  std::vector<std::string> keys_;  // the lines without their time field
  std::vector<std::string_view> views_;
  std::vector<double> times_;
  std::unique_ptr<bool[]> seen_;
  std::size_t capacity_ = 0;
};

}  // namespace ringbloom
