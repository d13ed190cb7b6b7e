// src/io/posix_fd.hpp (internal): the POSIX descriptor pieces that file_io.cpp
// and file_patch.cpp share: an owning descriptor, the io_error of a failed
// call, and an exclusive or shared lock that waits through signals.
#pragma once

#include <sys/file.h>
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

}  // namespace ringbloom::io::detail
