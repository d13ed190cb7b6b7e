// Whole-file reads, atomic writes and locked updates (see io/file_io.hpp).
#include "ringbloom/io/file_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "ringbloom/error.hpp"

namespace ringbloom::io {
namespace {

[[noreturn]] void throw_io(const std::string& what, const std::filesystem::path& path) {
  throw io_error(what + " '" + path.string() + "': " + std::strerror(errno));
}

// Owns a POSIX file descriptor.
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

// Reads to the end into `out` (replacing its content), straight into its
// buffer: `expected` (the size fstat saw, when known) is made room for at
// once, so a large file is read with one copy, from the page cache into the
// buffer, and a buffer kept between calls is not allocated again.
void read_all_into(int fd, const std::filesystem::path& path, std::size_t expected,
                   std::string& out) {
  out.resize(expected + (1 << 16));
  std::size_t size = 0;
  for (;;) {
    if (size == out.size()) out.resize(2 * out.size());
    const ssize_t n = ::read(fd, out.data() + size, out.size() - size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io("cannot read", path);
    }
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  out.resize(size);
}

std::string read_all(int fd, const std::filesystem::path& path, std::size_t expected = 0) {
  std::string out;
  read_all_into(fd, path, expected, out);
  return out;
}

void write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io("cannot write", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  const auto parent = path.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::string name = "." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                           "-" + std::to_string(rng() % 1000000000);
  return directory_of(path) / name;
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  const fd_guard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw_io("cannot open", path);
  return read_all(fd.get(), path);
}

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes) {
  const auto temp = temporary_name(path);
  try {
    {
      const fd_guard fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (fd.get() < 0) throw_io("cannot create a temporary file next to", path);
      write_all(fd.get(), bytes, temp);
      if (::fsync(fd.get()) != 0) throw_io("cannot flush", temp);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) throw_io("cannot replace", path);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  // The rename is only durable once the directory entry is on disk.
  const auto dir = directory_of(path);
  const fd_guard dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0 || ::fsync(dir_fd.get()) != 0) throw_io("cannot flush directory", dir);
}

void update_file_locked(const std::filesystem::path& path,
                        const std::function<std::string(const std::string& current)>& transform) {
  edit_file_locked(path, [&](std::string& content) { content = transform(content); });
}

void edit_file_locked(const std::filesystem::path& path,
                      const std::function<void(std::string& content)>& edit) {
  std::string buffer;
  edit_file_locked(path, edit, buffer);
}

void edit_file_locked(const std::filesystem::path& path,
                      const std::function<void(std::string& content)>& edit, std::string& buffer) {
  for (;;) {
    const fd_guard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw_io("cannot open", path);
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) throw_io("cannot lock", path);
    }
    // Another updater may have replaced the file while we waited for the
    // lock: then our descriptor holds the old inode. Start over on the new.
    struct stat held {};
    struct stat current {};
    if (::fstat(fd.get(), &held) != 0) throw_io("cannot inspect", path);
    if (::stat(path.c_str(), &current) != 0) {
      if (errno == ENOENT) throw_io("cannot update", path);
      throw_io("cannot inspect", path);
    }
    if (held.st_dev != current.st_dev || held.st_ino != current.st_ino) continue;
    read_all_into(fd.get(), path, static_cast<std::size_t>(held.st_size), buffer);
    edit(buffer);
    write_file_atomic(path, buffer);
    return;  // closing the descriptor releases the lock
  }
}

}  // namespace ringbloom::io
