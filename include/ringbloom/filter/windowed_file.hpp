// ringbloom/filter/windowed_file.hpp: windowed filter files (the "\x89RBW"
// member of the file family): saved atomically, updated under a lock, and
// streamed into in checkpoints, with a time for every item.
//
// What it is: the file side of windowed_bloom.hpp, for `ringbloom bloom
// create --window`, `bloom add|check|info` on such a file, `bloom dedup FILE`
// and Python's WindowedBloomFilter.save / load. The bytes are
// windowed_bloom_filter::serialize() (docs/format.md, "Windowed filter
// files"): checksummed, every field checked before it is trusted.
//
// Why a member of its own and not a row of the kind table
// (filter_kinds.hpp): a row's filter answers add(item) and may_contain(item),
// and every kind-erased path (any_filter, the in-place streamed add, merge,
// Python's load_filter) calls them without a time. A windowed filter needs
// the time of every call and keeps state the filter file's header has no
// field for (its clock: the latest generation and time, and the items per
// generation), in an interleaved layout that is not a list of layers.
// Giving any_filter an optional time would touch every kind's dispatch for
// one kind's sake and make a forgotten time a run-time error on every path
// that merges, removes or explains; a member of the file family costs one
// magic and a dispatch on it in the front ends (peek_windowed_file), like
// the cuckoo filter's member "\x89RBC". Merge, remove and --explain do not
// apply to it.
//
// Guarantees:
//   - load_windowed refuses anything serialize did not write (data_error,
//     naming the file); nothing is answered from a damaged file.
//   - save_windowed is atomic and durable (io::write_file_atomic): a crash
//     leaves the old file or the new one.
//   - update_windowed_file and windowed_add_stream's checkpoints hold the
//     file's exclusive lock (flock) while they load, change and replace it,
//     so concurrent updaters in any process lose nothing. A time the filter
//     refuses (more than one window before its latest) leaves the file as it
//     was and propagates std::invalid_argument.
//   - No clock is read here: every time is the caller's.
//
// Not provided: a memory-mapped open. A lookup needs the filter's clock
// state as well as the words, and the files are small next to the filters
// of other kinds (1.8x one window's blocked filter); load_windowed reads and
// copies the file.
//
// Example:
//
//   #include <ringbloom/filter/windowed_file.hpp>
//   ringbloom::save_windowed("clicks.rbw",
//                            ringbloom::windowed_bloom_filter::for_time(600, 100'000, 0.01));
//   auto stream = ringbloom::windowed_add_stream("clicks.rbw");
//   stream.add("user:42", 1'700'000'000.0);
//   stream.checkpoint();
//   bool maybe = ringbloom::load_windowed("clicks.rbw").may_contain("user:42", 1'700'000'300.0);
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ringbloom/filter/filter_kinds.hpp"
#include "ringbloom/filter/windowed_bloom.hpp"
#include "ringbloom/io/checkpoint.hpp"

namespace ringbloom {

// --- what a windowed filter says about itself -------------------------------------
// For `bloom create|info` on a windowed file and Python, in the shape of
// any_filter::describe() (filter_kinds.hpp): named fields for machines, rows
// for people, so front ends print them without knowing the window's math.

/// "time" or "count".
[[nodiscard]] std::string_view window_kind_name(window_kind kind) noexcept;

/// The window in words: "3600 s (items are forgotten 3600 to 4800 s after
/// they were added)" or "the last 1000 insertions (items are forgotten after
/// 1000 to 1336 more)".
[[nodiscard]] std::string describe_window(const windowed_bloom_filter& f);

/// The bytes of the words of a windowed filter for `window_items` at rate
/// `p`, before it is made (windowed_math::size_for; throws as it does).
[[nodiscard]] std::uint64_t windowed_memory_bytes(std::uint64_t window_items, double p);

/// The filter's settings as fields: window_kind ("time" or "count"),
/// window, capacity, fpr (the target), hashes, hash ("xxh3"), seed,
/// memory_bytes. No rows.
[[nodiscard]] filter_description windowed_settings(const windowed_bloom_filter& f);

/// The settings, then its state at time `at` (seconds; ignored by count
/// windows): generations, generation_items, bits, items_added,
/// items_in_window, latest_time, at, expected_fpr, overfull_generations;
/// and rows for people: kind, window, capacity, bits, items, expected fpr
/// (with the overfull generations, if any).
///
///   for (const auto& r : ringbloom::describe_windowed(f, now).rows)
///     std::printf("%-16s%s\n", r.label.c_str(), r.text.c_str());
[[nodiscard]] filter_description describe_windowed(const windowed_bloom_filter& f, double at);

/// Whether the bytes start with the windowed filter file's magic
/// "\x89RBW\r\n\x1a\n" (nothing else is checked).
[[nodiscard]] bool is_windowed_bytes(std::string_view bytes) noexcept;

/// Whether `path` is a regular file starting with that magic (its first 8
/// bytes are read; false for a missing, unreadable or non-regular path, which
/// loading then reports). The front ends' dispatch between filter files and
/// windowed filter files.
[[nodiscard]] bool peek_windowed_file(const std::filesystem::path& path);

/// Saves atomically and durably. Throws io_error.
void save_windowed(const std::filesystem::path& path, const windowed_bloom_filter& filter);

/// Reads and validates a whole file. Throws io_error, and data_error naming
/// the file for bytes serialize did not write.
[[nodiscard]] windowed_bloom_filter load_windowed(const std::filesystem::path& path);

/// Under the file's exclusive lock: loads the filter, calls `fn` on it and
/// saves it atomically. If `fn` throws, the file is unchanged and the
/// exception propagates. Throws io_error (also for a missing file), data_error.
void update_windowed_file(const std::filesystem::path& path,
                          const std::function<void(windowed_bloom_filter&)>& fn);

/// A checkpointed stream of additions, each with its time, to the windowed
/// filter file `path` (io/checkpoint.hpp: items wait in a private delta and
/// are folded in under the lock when due and at checkpoint()). The time is
/// ignored for count windows. A checkpoint whose items hold a time the filter
/// refuses throws std::invalid_argument and leaves the file and the delta
/// as they were.
class windowed_add_stream {
 public:
  explicit windowed_add_stream(const std::filesystem::path& path,
                               io::checkpoint_policy policy = {});
  // The fold refers to this object: it stays where it was made.
  windowed_add_stream(const windowed_add_stream&) = delete;
  windowed_add_stream& operator=(const windowed_add_stream&) = delete;

  /// Queues `item` at time `now` (seconds). Nothing is written or locked.
  void add(std::string_view item, double now);
  /// Folds every pending item into the file; returns how many. When no item
  /// was pending the file is still read and validated once (so a stream of
  /// nothing proves the file is a windowed filter).
  std::uint64_t checkpoint();

  [[nodiscard]] bool full() const noexcept { return stream_.full(); }
  [[nodiscard]] std::uint64_t pending_items() const noexcept { return stream_.pending_items(); }
  [[nodiscard]] std::optional<io::checkpointed_stream::clock::time_point> deadline()
      const noexcept {
    return stream_.deadline();
  }
  [[nodiscard]] const io::checkpoint_stats& stats() const noexcept { return stream_.stats(); }
  /// The file's additions ever made and items in its window (at the latest
  /// time the filter has seen), as of the last checkpoint.
  [[nodiscard]] std::uint64_t items_added() const noexcept { return items_added_; }
  [[nodiscard]] std::uint64_t items_in_window() const noexcept { return items_in_window_; }

 private:
  io::checkpointed_stream stream_;
  std::string record_;  // the time (8 bytes) then the item: one pending entry
  std::uint64_t items_added_ = 0;
  std::uint64_t items_in_window_ = 0;
};

}  // namespace ringbloom
