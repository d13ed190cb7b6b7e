// ringbloom/io/file_io.hpp: whole-file reads, atomic writes and locked
// read-modify-write updates, shared by topology and filter files.
//
// Durability rule: a process killed at any moment leaves either the old or
// the new file, never a torn one. write_file_atomic writes a temporary file in
// the same directory, fsyncs it, renames it over the target and fsyncs the
// directory.
//
// Concurrency rule: update_file_locked holds an exclusive flock(2) on the
// target while it reads, transforms and replaces it. Since the replacement is
// a new inode, a waiter that wakes up on the old inode notices (its open file
// is no longer the one at `path`) and retries on the new one, so two updaters
// never lose each other's work and no side-car lock file is left behind.
//
// Bounds rule: no read takes more memory than the caller allows
// and the machine has, and none waits forever.
//   - a regular file is read whole when its size is within `max_bytes` and
//     the memory available (io/memory.hpp); otherwise it is refused before a
//     byte is read, with the size, the limit and what to do;
//   - a pipe (a FIFO, /dev/stdin, <(command)) has no size: it is read up to
//     the same limits, and refused as soon as it sends more; a pipe with no
//     writer, or one that stays silent for pipe_wait, is refused too;
//   - a directory, a device (/dev/zero, a terminal) or a socket is refused
//     with its own sentence ("'/tmp' is a directory, not a file; ...");
//   - write_file_atomic and update_file_locked refuse a target that exists
//     and is not a regular file, so a rename never replaces a device (as
//     root, `bloom create /dev/null --force` used to replace /dev/null).
// Every refusal is an io_error whose message names the path and says what to
// do; no std::filesystem_error text reaches the caller.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

namespace ringbloom::io {

/// No limit but the memory available (the default of read_file).
inline constexpr std::uint64_t no_size_limit = std::numeric_limits<std::uint64_t>::max();

/// The most a pipe is read when the caller sets no smaller limit: 1 GiB.
inline constexpr std::uint64_t pipe_size_limit = std::uint64_t{1} << 30;

/// How long a read waits for a pipe's writer to send something.
inline constexpr std::chrono::milliseconds pipe_wait{10000};

/// The whole content of `path`, a regular file or a pipe, under the bounds
/// rule above: at most `max_bytes` (and, for a pipe, pipe_size_limit), never
/// more than the memory available. `what` names the limit in the refusal
/// ("the limit for a topology file"). Throws io_error naming the file and the
/// reason when it cannot be read or is refused.
[[nodiscard]] std::string read_file(const std::filesystem::path& path,
                                    std::uint64_t max_bytes = no_size_limit,
                                    std::chrono::milliseconds wait = pipe_wait);

/// How a path may be read: a regular file (which may be mapped) or a pipe
/// (read with read_file). Throws io_error when it is missing, a directory, a
/// device or a socket, with the sentence read_file would give.
enum class input_kind { regular, pipe };
[[nodiscard]] input_kind check_input(const std::filesystem::path& path);

/// Replaces (or creates) `path` with `bytes` atomically and durably. Throws
/// io_error; on failure the old file is untouched and no temporary is left.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

/// Under an exclusive lock of the existing file `path`, calls `transform`
/// with its current content and atomically replaces the file with the
/// returned bytes. Concurrent updaters of the same path, in this or other
/// processes, are serialised. Throws io_error when the file does not exist or
/// cannot be locked, read or written. An exception thrown by `transform`
/// propagates and leaves the file untouched.
void update_file_locked(const std::filesystem::path& path,
                        const std::function<std::string(const std::string& current)>& transform);

/// update_file_locked for large files: `edit` changes the content it is
/// given in place (or assigns new bytes to it), and that buffer is written,
/// so a file is not copied on its way through. Same locking, errors and
/// guarantees. Used by checkpointed_stream (io/checkpoint.hpp).
void edit_file_locked(const std::filesystem::path& path,
                      const std::function<void(std::string& content)>& edit);

/// edit_file_locked reading into `buffer` (its old content is replaced; it
/// holds the new content afterwards): a caller that edits a large file
/// repeatedly keeps one buffer and does not pay for allocating and faulting
/// in a fresh one each time.
void edit_file_locked(const std::filesystem::path& path,
                      const std::function<void(std::string& content)>& edit, std::string& buffer);

}  // namespace ringbloom::io
