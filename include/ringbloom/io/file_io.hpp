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
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace ringbloom::io {

/// The whole content of `path`. Throws io_error naming the file and the
/// system's reason when it cannot be read.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);

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
