// Whole-file reads, atomic writes and locked updates (see io/file_io.hpp).
#include "ringbloom/io/file_io.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "posix_fd.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_patch.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::io {
namespace {

using detail::fd_guard;
using detail::open_locked;
using detail::throw_io;

// --- kinds of file and the bounds rule -------------------------------------------

// The refusal of a path of this mode, or nullptr for a kind that is read (a
// regular file, a pipe).
const char* refusal_for(mode_t mode) {
  if (S_ISREG(mode) || S_ISFIFO(mode)) return nullptr;
  if (S_ISDIR(mode)) return "is a directory, not a file; give the path of a file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "is a device, not a file; give the path of a regular file (or of a pipe)";
  }
  if (S_ISSOCK(mode)) return "is a socket, not a file; give the path of a regular file";
  return "is not a regular file; give the path of a regular file";
}

[[noreturn]] void refuse_kind(const std::filesystem::path& path, const char* why) {
  throw io_error(fmt::format("'{}' {}", path.string(), why));
}

// The mode of `path` (following symbolic links); throws when it is absent.
mode_t mode_of(const std::filesystem::path& path, const char* verb) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_io(verb, path);
  return st.st_mode;
}

// The smaller of `max_bytes` and the memory available, with the words that
// name it: "the limit of 512.0 MiB for this file" / "the 3.1 GiB of memory
// available on this machine".
struct read_cap {
  std::uint64_t bytes;
  std::string words;
};

read_cap cap_for(std::uint64_t max_bytes, bool pipe) {
  if (pipe) max_bytes = std::min(max_bytes, pipe_size_limit);
  const memory_budget budget = available_memory();
  if (budget.bytes < max_bytes) {
    return {budget.bytes, fmt::format("the {} {}", format_bytes(budget.bytes), budget.source)};
  }
  return {max_bytes, fmt::format("the limit of {} for this {}", format_bytes(max_bytes),
                                 pipe ? "pipe" : "file")};
}

// Waits up to `wait` for the pipe `fd` to have data or reach its end.
void wait_for_pipe(int fd, const std::filesystem::path& path, std::chrono::milliseconds wait) {
  pollfd request{fd, POLLIN, 0};
  for (;;) {
    const int ready = ::poll(&request, 1, static_cast<int>(wait.count()));
    if (ready > 0) return;
    if (ready == 0) {
      throw io_error(
          fmt::format("nothing arrived on the pipe '{}' within {} ms", path.string(), wait.count()),
          "start the program that writes to it first, or give a regular file");
    }
    if (errno != EINTR) throw_io("cannot wait for", path);
  }
}

// Reads `fd` to its end into `out` (replacing its content), refusing more
// than `cap` bytes. `expected` (the size fstat saw, when known) is made room
// for at once, so a large file is read with one copy, from the page cache
// into the buffer, and a buffer kept between calls is not allocated again.
// A pipe is polled first so that a silent writer cannot hold the read
// forever.
void read_all_into(int fd, const std::filesystem::path& path, const read_cap& cap, bool pipe,
                   std::chrono::milliseconds wait, std::size_t expected, std::string& out) {
  const auto most = static_cast<std::size_t>(std::min<std::uint64_t>(cap.bytes, SIZE_MAX - 1));
  out.resize(std::min(expected + (std::size_t{1} << 16), most + 1));
  std::size_t size = 0;
  for (;;) {
    if (pipe) wait_for_pipe(fd, path, wait);
    if (size == out.size()) out.resize(std::min(2 * out.size(), most + 1));
    const ssize_t n = ::read(fd, out.data() + size, out.size() - size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw_io("cannot read", path);
    }
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
    if (size > most) {
      throw io_error(fmt::format("'{}' holds more than {}, {}", path.string(),
                                 format_bytes(cap.bytes), cap.words),
                     pipe ? "give a smaller input, or write it to a regular file first"
                          : "give a smaller input");
    }
  }
  out.resize(size);
}

// Refuses a regular file when `copies` copies of it exceed the cap, before
// reading it.
void check_size(const std::filesystem::path& path, std::uint64_t size, const read_cap& cap,
                std::uint64_t copies = 1) {
  if (size > cap.bytes / copies) {
    throw io_error(
        fmt::format("'{}' is {} ({} bytes){}, more than {}", path.string(), format_bytes(size),
                    size, copies > 1 ? ", and an update holds it twice" : "", cap.words),
        "give a smaller file");
  }
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

input_kind check_input(const std::filesystem::path& path) {
  const mode_t mode = mode_of(path, "cannot open");
  if (const char* why = refusal_for(mode)) refuse_kind(path, why);
  return S_ISFIFO(mode) ? input_kind::pipe : input_kind::regular;
}

std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                      std::chrono::milliseconds wait) {
  // Look before opening: opening a device can have effects, and opening a
  // FIFO without O_NONBLOCK waits for a writer with no bound.
  const bool pipe = check_input(path) == input_kind::pipe;
  const fd_guard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | (pipe ? O_NONBLOCK : 0)));
  if (fd.get() < 0) throw_io("cannot open", path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_io("cannot inspect", path);
  if (const char* why = refusal_for(st.st_mode)) refuse_kind(path, why);  // replaced meanwhile
  const read_cap cap = cap_for(max_bytes, pipe);
  if (!pipe) check_size(path, static_cast<std::uint64_t>(st.st_size), cap);
  std::string out;
  read_all_into(fd.get(), path, cap, pipe, wait, pipe ? 0 : static_cast<std::size_t>(st.st_size),
                out);
  return out;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes) {
  // rename(2) would replace whatever is there, a device included.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    refuse_kind(path, S_ISFIFO(st.st_mode)
                          ? "is a pipe, which cannot be replaced by a file; give the path of a "
                            "regular file"
                          : refusal_for(st.st_mode));
  }
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
  // Only a regular file can be updated in place (see write_file_atomic).
  const mode_t mode = mode_of(path, "cannot open");
  if (!S_ISREG(mode)) {
    refuse_kind(path, S_ISFIFO(mode) ? "is a pipe, which cannot be updated in place; give the "
                                       "path of a regular file"
                                     : refusal_for(mode));
  }
  // Another updater may replace the file while we wait for the lock:
  // open_locked then opens the new one.
  const fd_guard fd(open_locked(path, O_RDONLY, LOCK_EX));
  struct stat held {};
  if (::fstat(fd.get(), &held) != 0) throw_io("cannot inspect", path);
  if (!S_ISREG(held.st_mode)) refuse_kind(path, refusal_for(held.st_mode));
  // An update patched in place and interrupted is completed first.
  detail::complete_interrupted_patch(path, fd.get());
  if (::fstat(fd.get(), &held) != 0) throw_io("cannot inspect", path);
  // The old bytes and the new ones are held at once.
  const read_cap cap = cap_for(no_size_limit, false);
  check_size(path, static_cast<std::uint64_t>(held.st_size), cap, 2);
  read_all_into(fd.get(), path, cap, false, pipe_wait, static_cast<std::size_t>(held.st_size),
                buffer);
  edit(buffer);
  write_file_atomic(path, buffer);
  // fd_guard closes the descriptor, which releases the lock.
}

}  // namespace ringbloom::io
