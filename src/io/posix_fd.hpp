// src/io/posix_fd.hpp (internal): the POSIX descriptor pieces that file_io.cpp
// and file_patch.cpp share: an owning descriptor, the io_error of a failed
// call, an exclusive or shared lock that waits through signals, and opening a
// path locked when other processes replace it by renames.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "ringbloom/error.hpp"

namespace ringbloom::io::detail {

/// io_error "WHAT 'PATH': strerror(errno)".
[[noreturn]] inline void throw_io(const std::string& what, const std::filesystem::path& path) {
  throw io_error(what + " '" + path.string() + "': " + std::strerror(errno));
}

/// Owns a POSIX file descriptor (negative: none) and closes it.
class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const noexcept { return fd_; }

 private:
  int fd_;
};

/// flock(fd, how) (LOCK_EX or LOCK_SH), retried when a signal interrupts it.
inline void lock_fd(int fd, int how, const std::filesystem::path& path) {
  while (::flock(fd, how) != 0) {
    if (errno != EINTR) throw_io("cannot lock", path);
  }
}

/// Opens `path` (`flags`: O_RDONLY or O_RDWR) and locks it (`how`), opening
/// again when a rename replaced the file while we waited for the lock, so the
/// descriptor returned (the caller closes it) is the file now at `path`.
inline int open_locked(const std::filesystem::path& path, int flags, int how) {
  for (;;) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw_io(flags == O_RDONLY ? "cannot open" : "cannot open for writing", path);
    struct stat held {};
    struct stat current {};
    try {
      lock_fd(fd, how, path);
      if (::fstat(fd, &held) != 0) throw_io("cannot inspect", path);
      if (::stat(path.c_str(), &current) != 0) {
        throw_io(errno == ENOENT ? "cannot open" : "cannot inspect", path);
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (held.st_dev == current.st_dev && held.st_ino == current.st_ino) return fd;
    ::close(fd);
  }
}

}  // namespace ringbloom::io::detail
