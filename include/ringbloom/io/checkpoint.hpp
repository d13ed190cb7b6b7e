// ringbloom/io/checkpoint.hpp: streamed writes to a file in checkpoints.
//
// What it is: the one write path for long streams of changes to a file that
// many processes share (`ringbloom bloom add` reading stdin; the cuckoo, CMS
// and HLL writers use the same class). Items are kept in a private delta, in
// memory; at each checkpoint the stream takes the file's lock, reads the
// file, folds the whole delta in, and replaces the file atomically
// (io::edit_file_locked). Between checkpoints nothing is locked.
//
// When to use it: whenever a caller adds many items to a file one at a time
// and cannot hold them all (a pipe that may never end). For a handful of
// items, io::edit_file_locked once is simpler.
//
// The cost: a checkpoint costs one read, fold and atomic rewrite of the file
// (O(file size) plus O(pending items)); adding an item between checkpoints
// costs a copy of its bytes. With checkpoints at most every `interval` or
// every `max_items`, a stream of N items into a file of F bytes costs
// O(N + F * (checkpoints)), with checkpoints <= duration / interval +
// N / max_items + 1: the per-batch rewrite of the file is gone.
//
// Guarantees:
//   - Durability: an item is durable once a checkpoint that holds it has
//     returned (the file on disk then has it: write, fsync, rename, fsync of
//     the directory). A process killed at any moment leaves the file in the
//     state of its last checkpoint or of the one in flight, never a mix; the
//     items that were only pending are lost, and they were never acknowledged.
//   - Bounded delay: due() turns true `interval` after the oldest pending
//     item arrived, or when max_items / max_bytes are pending. A caller that
//     waits for input with deadline() as its timeout therefore makes every
//     item durable within interval + the duration of one checkpoint, even
//     when its producer pauses.
//   - Concurrency: each checkpoint is one edit_file_locked; concurrent
//     streams and other updaters of the same path (threads or processes) are
//     serialised and lose nothing. The lock is held only inside checkpoint().
//   - If the fold throws (the file is corrupt, or the items are refused), the
//     file is unchanged, the exception propagates and the delta is kept.
//
// Example:
//
//   io::checkpointed_stream out("seen.rbf", [](std::string& file, auto items) {
//     /* parse `file`, add `items`, re-encode it in place */
//   });
//   for (std::string line; std::getline(std::cin, line);) {
//     out.add(line);
//     if (out.due()) out.checkpoint();
//   }
//   out.checkpoint();  // the rest; every item is durable when this returns
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/io/file_patch.hpp"

namespace ringbloom::io {

/// When a stream checkpoints: `interval` after its oldest pending item, or
/// once `max_items` items or `max_bytes` bytes of items are pending,
/// whichever comes first.
struct checkpoint_policy {
  std::chrono::milliseconds interval{1000};
  std::uint64_t max_items = std::uint64_t{1} << 22;   ///< 4,194,304
  std::uint64_t max_bytes = std::uint64_t{64} << 20;  ///< 64 MiB of item bytes
};

/// What a stream has done so far.
struct checkpoint_stats {
  std::uint64_t durable_items = 0;  ///< items in completed checkpoints
  std::uint64_t checkpoints = 0;    ///< completed checkpoints (empty ones are not run)
  std::chrono::nanoseconds time_in_checkpoints{0};
};

class checkpointed_stream {
 public:
  using clock = std::chrono::steady_clock;
  /// Called under the file's exclusive lock with the file's current bytes and
  /// the pending items in arrival order; changes `file` into the new content
  /// (in place, or by assigning new bytes). Throws to refuse.
  using fold_fn = std::function<void(std::string& file, std::span<const std::string_view> items)>;

  /// A stream into the existing file `path`. Throws std::invalid_argument
  /// for a zero interval, max_items or max_bytes, or an empty fold.
  checkpointed_stream(std::filesystem::path path, fold_fn fold, checkpoint_policy policy = {});

  /// Called under the file's exclusive lock with the locked file and the
  /// pending items: reads what it needs and stages the ranges it changes
  /// (or replaces the whole file); see io/file_patch.hpp.
  using patch_fn = std::function<void(locked_file& file, std::span<const std::string_view> items)>;

  /// A stream whose checkpoints patch the file in place (io::patch_file_locked)
  /// instead of reading and replacing it whole: for large files of which a
  /// checkpoint changes a small part. Same guarantees as above. Throws as the
  /// constructor does.
  [[nodiscard]] static checkpointed_stream patching(std::filesystem::path path, patch_fn patch,
                                                    checkpoint_policy policy = {});

  /// Pending items are not written by the destructor: a stream destroyed by
  /// an exception does not write. Call checkpoint() to finish.
  ~checkpointed_stream() = default;
  checkpointed_stream(const checkpointed_stream&) = delete;
  checkpointed_stream& operator=(const checkpointed_stream&) = delete;
  checkpointed_stream(checkpointed_stream&&) noexcept = default;
  checkpointed_stream& operator=(checkpointed_stream&&) noexcept = default;

  /// Copies `item` into the private delta. Nothing is written or locked.
  void add(std::string_view item);

  /// Items (and their bytes) waiting for the next checkpoint.
  [[nodiscard]] std::uint64_t pending_items() const noexcept { return ends_.size(); }
  [[nodiscard]] std::uint64_t pending_bytes() const noexcept { return arena_.size(); }

  /// Whether max_items or max_bytes are pending (the size half of due()).
  [[nodiscard]] bool full() const noexcept;

  /// Whether the policy asks for a checkpoint now.
  [[nodiscard]] bool due(clock::time_point now = clock::now()) const noexcept;

  /// The moment the oldest pending item must be checkpointed; nothing when
  /// no item is pending (then there is nothing to wait for).
  [[nodiscard]] std::optional<clock::time_point> deadline() const noexcept;

  /// Folds every pending item into the file under its lock and replaces the
  /// file atomically; returns the number of items made durable (0, and no
  /// file access, when none were pending). Throws io_error, or what the fold
  /// throws; the delta is then kept.
  std::uint64_t checkpoint();

  [[nodiscard]] const checkpoint_stats& stats() const noexcept { return stats_; }
  [[nodiscard]] const checkpoint_policy& policy() const noexcept { return policy_; }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  fold_fn fold_;
  patch_fn patch_;
  checkpoint_policy policy_;
  std::string arena_;                // the pending items' bytes, back to back
  std::vector<std::uint64_t> ends_;  // end offset of each pending item in arena_
  clock::time_point oldest_{};       // arrival of the oldest pending item
  // Kept between checkpoints so that their memory is not allocated (and, for
  // a large file, faulted in) again each time.
  std::vector<std::string_view> views_;  // the pending items, for the fold
  std::string file_;                     // the file's bytes during a fold
  checkpoint_stats stats_;
};

}  // namespace ringbloom::io
