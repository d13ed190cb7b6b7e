// ringbloom/io/mapped_file.hpp: a file's bytes, read-only through mmap(2),
// shared by every member of the file family that is opened without a copy
// (filter files, sketch files, cuckoo filter files).
//
// What it is. mapped_file::open maps a whole regular file read-only
// (PROT_READ, MAP_SHARED) and keeps the mapping alive for as long as a
// shared_ptr to it exists, so a view built over the bytes (a Bloom filter's
// words, a Count-Min sketch's counters, a cuckoo filter's buckets) keeps it
// in its own shared_ptr and stays valid after the caller lets go.
//
// When to use it. To query a file without reading it into memory first. A
// member of the family checks the envelope (io/format.hpp: magic, version,
// recorded size, XXH3-64 checksum) over bytes() exactly as over a file read
// whole, then reads its payload in place.
//
// Guarantees and limits.
//   - The same path rules as io::read_file: a directory, device or socket is
//     refused with its own sentence (io_error); a pipe cannot be mapped, so
//     its bytes are read (with read_file's bounds) and held instead
//     (mapped() is false); an empty file is held as zero bytes.
//   - Verifying the checksum reads every byte of the mapping once (XXH3-64
//     runs at several GB/s: about 0.1 s per GiB once the pages are cached,
//     plus the disk read the first time); queries then touch only the pages
//     they read.
//   - The mapping shows the inode that was opened. Replacing the file the
//     way ringbloom writes (write_file_atomic: a new inode renamed over the
//     path) does not disturb it: an open mapping keeps answering from the old
//     content. Truncating the mapped file *in place* (truncate(1), an editor
//     writing over it, `>` in a shell) is not supported: a later read of a
//     page past the new end raises SIGBUS, which kills the process. ringbloom
//     never writes a file in place; keep other tools from doing so while a
//     reader has the file open.
//
// Example:
//
//   auto file = ringbloom::io::mapped_file::open("hits.cms");
//   ringbloom::io::check_envelope(file->bytes(), my_envelope);  // io/format.hpp
//   std::string_view payload = file->bytes().substr(64);       // read in place
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace ringbloom::io {

class mapped_file {
 public:
  /// Maps `path` (or reads it, for a pipe). Throws io_error naming the path
  /// and what to do.
  [[nodiscard]] static std::shared_ptr<const mapped_file> open(const std::filesystem::path& path);

  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  /// The file's bytes: the mapping, or the bytes read from a pipe.
  [[nodiscard]] std::string_view bytes() const noexcept {
    return addr_ != nullptr ? std::string_view(static_cast<const char*>(addr_), size_) : held_;
  }
  /// Whether bytes() is a mapping (false for a pipe or an empty file).
  [[nodiscard]] bool mapped() const noexcept { return addr_ != nullptr; }

  /// Tells the kernel that reads will be scattered (no read-ahead around
  /// them): for lookups that probe a few random pages each.
  void advise_random() const noexcept;

 private:
  mapped_file() = default;
  void* addr_ = nullptr;
  std::size_t size_ = 0;
  std::string held_;
};

}  // namespace ringbloom::io
