// ringbloom/io/file_patch.hpp: changing a few byte ranges of a large file in
// place, under its lock, so that a process killed at any moment leaves the
// old content or the new one.
//
// What it is: the write path for an update that touches a small part of a
// large file (one item added to a 1 GiB filter file changes a few KiB). Where
// io::edit_file_locked reads the whole file and replaces it by a rename,
// patch_file_locked lets the caller read only what it needs and stage the
// byte ranges it changes; they are then written through a journal:
//
//   1. the journal "<path>-journal" is written (the staged bytes, where they
//      go, a hash of the bytes they replace, and the file's identity: device,
//      inode, size), with a checksum of its own, and flushed (fdatasync, and
//      an fsync of the directory);
//   2. the ranges are written into the file in place and the file is flushed;
//   3. the journal is removed.
//
// A process killed before step 1 completes leaves an invalid journal and an
// untouched file; killed after it, a valid journal whose ranges are written
// again by the next process that opens the file (each range then holds its
// old bytes or its new ones, which the journal can tell apart). The next
// updater (patch_file_locked, edit_file_locked) and the next reader
// (read_lock) complete or discard such a journal under the exclusive lock
// before they look at the file, so nobody ever reads a half-written update.
// A journal that does not match the file it sits next to (another file was
// saved over the path by a rename since) is discarded without touching it.
//
// When to use it: a format whose integrity checks are per region (so an
// updater can verify and re-seal only what it changes), whose readers take
// io::read_lock while they read and verify. Readers of a mapping that
// outlives the lock see later in-place changes (a filter's bits being set),
// as they would see a newer file if they opened it again.
//
// Concurrency: the same exclusive flock(2) as edit_file_locked, so patches,
// whole-file edits and rename-based saves under that lock are serialised.
//
// Example:
//
//   io::patch_file_locked("big.rbf", [](io::locked_file& f) {
//     unsigned char head[64];
//     f.read(0, head, sizeof head);
//     head[24] += 1;  // (a real format re-seals its checksums too)
//     f.write(0, std::string_view(reinterpret_cast<char*>(head), sizeof head));
//   });
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringbloom::io {

/// Where the journal of an update in flight lives: "<path>-journal".
[[nodiscard]] std::filesystem::path journal_path(const std::filesystem::path& path);

/// The file as patch_file_locked hands it to its editor: open for reading
/// and writing, exclusively locked, any interrupted patch completed.
class locked_file {
 public:
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The open descriptor (read and write), e.g. for a private mapping.
  [[nodiscard]] int descriptor() const noexcept { return fd_; }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

  /// Reads bytes [offset, offset + n) of the file as it is on disk (staged
  /// writes are not seen). Throws io_error when they cannot be read or lie
  /// past the end.
  void read(std::uint64_t offset, void* out, std::size_t n) const;

  /// Stages `bytes` to be written at `offset` when the editor returns. The
  /// range must lie inside the file (a patch never changes its size); throws
  /// std::invalid_argument otherwise. Ranges are written in the order staged.
  void write(std::uint64_t offset, std::string_view bytes);

  /// The bytes staged so far.
  [[nodiscard]] std::uint64_t staged_bytes() const noexcept { return staged_bytes_; }

  /// Replaces the whole file now, atomically (io::write_file_atomic), and
  /// drops the staged writes: for an update that changes most of the file,
  /// where a journal would write it twice.
  void replace(std::string_view bytes);

 private:
  friend void patch_file_locked(const std::filesystem::path&,
                                const std::function<void(locked_file&)>&);
  struct range {
    std::uint64_t offset;
    std::string bytes;
  };
  locked_file(std::filesystem::path path, int fd, std::uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  std::filesystem::path path_;
  int fd_;
  std::uint64_t size_;
  std::vector<range> ranges_;
  std::uint64_t staged_bytes_ = 0;
  bool replaced_ = false;
};

/// Under an exclusive lock of the existing regular file `path` (opened for
/// reading and writing), completes an interrupted patch, calls `edit`, then
/// writes what it staged through the journal (see above). Throws io_error
/// when the file does not exist, is not a regular file, or cannot be
/// opened, locked, read or written. An exception thrown by `edit` propagates
/// and leaves the file untouched.
void patch_file_locked(const std::filesystem::path& path,
                       const std::function<void(locked_file&)>& edit);

/// Held by a reader while it reads and verifies a file that may be patched
/// in place: a shared lock (patches wait, other readers do not), taken after
/// completing an interrupted patch. A path that is not a regular file (a
/// pipe) is not locked. Throws io_error when an interrupted patch must be
/// completed and the file cannot be written.
class read_lock {
 public:
  explicit read_lock(const std::filesystem::path& path);
  ~read_lock();
  read_lock(const read_lock&) = delete;
  read_lock& operator=(const read_lock&) = delete;

 private:
  int fd_ = -1;
};

namespace detail {
/// Completes or discards the journal next to `path`, whose file the caller
/// holds open as `locked_fd` under an exclusive lock. No-op without a journal.
void complete_interrupted_patch(const std::filesystem::path& path, int locked_fd);
}  // namespace detail

}  // namespace ringbloom::io
