// In-place patches through a journal (see ringbloom/io/file_patch.hpp).
//
// The journal, all integers little-endian:
//
//   0   8  magic "\x89RBJ\r\n\x1a\n"
//   8   8  device of the patched file
//  16   8  inode of the patched file
//  24   8  size of the patched file
//  32   8  N, the number of ranges
//  40      N ranges: u64 offset, u64 length, u64 XXH3-64 of the bytes the range
//          replaces, the new bytes, zeros to a multiple of 8
// end-8 8  XXH3-64 (seed 0) of every byte before it
#include "ringbloom/io/file_patch.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "posix_fd.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom::io {
namespace {

using detail::fd_guard;
using detail::open_locked;
using detail::throw_io;

constexpr std::array<unsigned char, 8> journal_magic{0x89, 'R', 'B', 'J', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t journal_head = 40;

void read_at(int fd, std::uint64_t offset, void* out, std::size_t n,
             const std::filesystem::path& path) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_io("cannot read", path);
    }
    if (got == 0) {
      throw io_error(fmt::format("cannot read '{}': it ended at byte {} while being updated",
                                 path.string(), offset));
    }
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

void write_at(int fd, std::uint64_t offset, std::string_view bytes,
              const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io("cannot write", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

void flush(int fd, const std::filesystem::path& path) {
  if (::fdatasync(fd) != 0) throw_io("cannot flush", path);
}

void flush_directory_of(const std::filesystem::path& path) {
  const auto parent = path.parent_path();
  const auto dir = parent.empty() ? std::filesystem::path(".") : parent;
  const fd_guard fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) throw_io("cannot flush directory", dir);
}

struct journal_range {
  std::uint64_t offset;
  std::uint64_t before;
  std::string_view bytes;
};

// The ranges of a journal for the file `st`, or nothing when the journal is
// torn, foreign or stale (then the file was not touched by it).
std::optional<std::vector<journal_range>> parse_journal(std::string_view j, const struct stat& st) {
  const auto* p = reinterpret_cast<const unsigned char*>(j.data());
  if (j.size() < journal_head + checksum_bytes ||
      std::memcmp(p, journal_magic.data(), journal_magic.size()) != 0) {
    return std::nullopt;
  }
  const std::size_t body = j.size() - checksum_bytes;
  if (load_le<std::uint64_t>(p + body) != xxh3_64(j.substr(0, body), 0)) return std::nullopt;
  if (load_le<std::uint64_t>(p + 8) != static_cast<std::uint64_t>(st.st_dev) ||
      load_le<std::uint64_t>(p + 16) != static_cast<std::uint64_t>(st.st_ino) ||
      load_le<std::uint64_t>(p + 24) != static_cast<std::uint64_t>(st.st_size)) {
    return std::nullopt;
  }
  const auto n = load_le<std::uint64_t>(p + 32);
  std::vector<journal_range> out;
  std::size_t at = journal_head;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (body - at < 24) return std::nullopt;
    const auto offset = load_le<std::uint64_t>(p + at);
    const auto length = load_le<std::uint64_t>(p + at + 8);
    const auto before = load_le<std::uint64_t>(p + at + 16);
    at += 24;
    if (length > body - at || offset > static_cast<std::uint64_t>(st.st_size) ||
        length > static_cast<std::uint64_t>(st.st_size) - offset) {
      return std::nullopt;
    }
    out.push_back({offset, before, j.substr(at, static_cast<std::size_t>(length))});
    at += static_cast<std::size_t>((length + 7) / 8 * 8);
    if (at > body) return std::nullopt;
  }
  if (at != body) return std::nullopt;
  return out;
}

std::string journal_of(const struct stat& st,
                       const std::vector<std::pair<std::uint64_t, std::string>>& ranges,
                       const std::vector<std::uint64_t>& before) {
  std::size_t size = journal_head + checksum_bytes;
  for (const auto& r : ranges) size += 24 + (r.second.size() + 7) / 8 * 8;
  std::string out(size, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, journal_magic.data(), journal_magic.size());
  store_le<std::uint64_t>(p + 8, static_cast<std::uint64_t>(st.st_dev));
  store_le<std::uint64_t>(p + 16, static_cast<std::uint64_t>(st.st_ino));
  store_le<std::uint64_t>(p + 24, static_cast<std::uint64_t>(st.st_size));
  store_le<std::uint64_t>(p + 32, ranges.size());
  std::size_t at = journal_head;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    store_le<std::uint64_t>(p + at, ranges[i].first);
    store_le<std::uint64_t>(p + at + 8, ranges[i].second.size());
    store_le<std::uint64_t>(p + at + 16, before[i]);
    std::memcpy(p + at + 24, ranges[i].second.data(), ranges[i].second.size());
    at += 24 + (ranges[i].second.size() + 7) / 8 * 8;
  }
  seal(out);
  return out;
}

}  // namespace

std::filesystem::path journal_path(const std::filesystem::path& path) {
  std::filesystem::path out = path;
  out += "-journal";
  return out;
}

void detail::complete_interrupted_patch(const std::filesystem::path& path, int locked_fd) {
  const auto jpath = journal_path(path);
  struct stat js {};
  if (::lstat(jpath.c_str(), &js) != 0) {
    if (errno == ENOENT) return;
    throw_io("cannot inspect", jpath);
  }
  struct stat st {};
  if (::fstat(locked_fd, &st) != 0) throw_io("cannot inspect", path);
  std::optional<std::vector<journal_range>> ranges;
  std::string journal;
  if (S_ISREG(js.st_mode) && static_cast<std::uint64_t>(js.st_size) <=
                                 2 * static_cast<std::uint64_t>(st.st_size) + (1u << 20)) {
    journal = read_file(jpath);
    ranges = parse_journal(journal, st);
  }
  if (ranges) {
    // Every range must hold its old bytes or its new ones: anything else means
    // the journal belongs to another content of this inode; leave the file.
    const fd_guard out(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (out.get() < 0) {
      throw io_error(fmt::format("an interrupted update of '{}' left '{}' to complete, but the "
                                 "file cannot be opened for writing: {}",
                                 path.string(), jpath.string(), std::strerror(errno)),
                     "run the command once as a user who may write the file");
    }
    std::string now;
    bool matches = true;
    for (const auto& r : *ranges) {
      now.resize(r.bytes.size());
      read_at(out.get(), r.offset, now.data(), now.size(), path);
      if (now != r.bytes && xxh3_64(now, 0) != r.before) matches = false;
    }
    if (matches) {
      for (const auto& r : *ranges) write_at(out.get(), r.offset, r.bytes, path);
      flush(out.get(), path);
    }
  }
  if (::unlink(jpath.c_str()) != 0 && errno != ENOENT) throw_io("cannot remove", jpath);
}

void locked_file::read(std::uint64_t offset, void* out, std::size_t n) const {
  if (offset > size_ || n > size_ - offset) {
    throw io_error(fmt::format("cannot read bytes {}..{} of '{}', which has {} bytes", offset,
                               offset + n, path_.string(), size_));
  }
  read_at(fd_, offset, out, n, path_);
}

void locked_file::write(std::uint64_t offset, std::string_view bytes) {
  if (offset > size_ || bytes.size() > size_ - offset) {
    throw std::invalid_argument(
        fmt::format("a patch of bytes {}..{} lies outside '{}', which has {} bytes", offset,
                    offset + bytes.size(), path_.string(), size_));
  }
  ranges_.push_back({offset, std::string(bytes)});
  staged_bytes_ += bytes.size();
}

void locked_file::replace(std::string_view bytes) {
  write_file_atomic(path_, bytes);
  ranges_.clear();
  staged_bytes_ = 0;
  replaced_ = true;
}

void patch_file_locked(const std::filesystem::path& path,
                       const std::function<void(locked_file&)>& edit) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_io("cannot open", path);
  if (!S_ISREG(st.st_mode)) {
    // A directory, device or socket is refused with check_input's sentence.
    if (check_input(path) == input_kind::pipe) {
      throw io_error(
          fmt::format("'{}' is a pipe, which cannot be updated in place; give the "
                      "path of a regular file",
                      path.string()));
    }
  }
  const fd_guard fd(open_locked(path, O_RDWR, LOCK_EX));
  detail::complete_interrupted_patch(path, fd.get());
  if (::fstat(fd.get(), &st) != 0) throw_io("cannot inspect", path);
  locked_file file(path, fd.get(), static_cast<std::uint64_t>(st.st_size));
  edit(file);
  if (file.replaced_ || file.ranges_.empty()) return;

  // 1. The journal: the new bytes and a hash of the old ones, flushed.
  std::vector<std::pair<std::uint64_t, std::string>> ranges;
  std::vector<std::uint64_t> before;
  std::string old;
  for (auto& r : file.ranges_) {
    old.resize(r.bytes.size());
    read_at(fd.get(), r.offset, old.data(), old.size(), path);
    before.push_back(xxh3_64(old, 0));
    ranges.emplace_back(r.offset, std::move(r.bytes));
  }
  const auto jpath = journal_path(path);
  {
    const fd_guard j(::open(jpath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (j.get() < 0) throw_io("cannot create the journal", jpath);
    write_at(j.get(), 0, journal_of(st, ranges, before), jpath);
    flush(j.get(), jpath);
  }
  flush_directory_of(jpath);
  // 2. The ranges, in place, flushed; 3. the journal's end.
  for (const auto& [offset, bytes] : ranges) write_at(fd.get(), offset, bytes, path);
  flush(fd.get(), path);
  if (::unlink(jpath.c_str()) != 0) throw_io("cannot remove", jpath);
}

read_lock::read_lock(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // the reader says why
  // A journal seen under the shared lock belongs to an updater that died
  // (a live one holds the exclusive lock): complete it, then look again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open_locked(path, O_RDONLY, LOCK_SH);
    struct stat js {};
    if (::lstat(journal_path(path).c_str(), &js) != 0) {
      fd_ = fd;
      return;
    }
    ::close(fd);
    const fd_guard ex(open_locked(path, O_RDONLY, LOCK_EX));
    detail::complete_interrupted_patch(path, ex.get());
  }
  throw io_error(fmt::format("'{}' kept being left half-updated by other processes", path.string()),
                 "stop the processes that update it and try again");
}

read_lock::~read_lock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ringbloom::io
