// ringbloom/io/line_reader.hpp: reading input one line at a time, with the
// one line-length limit of every reader of lines, and a file's lines at once.
//
// Use line_reader for a stream of items (standard input, a pipe, a key file
// read as it comes): it holds at most one line beyond its 64 KiB reads, can
// tell whether a line is available without waiting (so a command can answer
// in batches without stalling a co-process that writes one line and waits),
// and can give up at a deadline (timed work while the producer pauses). Use
// read_lines for a small file needed whole (a keys file to compare two
// placements on).
//
// Guarantees: a line is what lies between two '\n', without a trailing '\r'
// (CRLF input works); a last line without '\n' counts. No line longer than
// max_line_bytes is held: it is refused with std::invalid_argument naming the
// line's number and the input. Read failures are io_error.
//
// Example:
//
//   #include <ringbloom/io/line_reader.hpp>
//   ringbloom::io::line_reader in(0);  // standard input
//   std::string line;
//   while (in.next(line)) std::puts(line.c_str());
//   std::vector<std::string> keys = ringbloom::io::read_lines("keys.txt", 1 << 30, "--keys
//   keys.txt");
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ringbloom::io {

/// The longest line any reader of lines accepts: 16 MiB. Items, keys and
/// rows longer than that are not supported (memory stays bounded by it).
inline constexpr std::size_t max_line_bytes = std::size_t{16} << 20;

/// Reads a descriptor line by line with its own buffer (see the top of the
/// file). Not thread-safe; does not own or close the descriptor.
class line_reader {
 public:
  /// `name` is how messages call the input ("standard input"). The
  /// descriptor stays the caller's.
  explicit line_reader(int fd = 0, std::string name = "standard input")
      : fd_(fd), name_(std::move(name)) {}

  /// A reader of the file at `path`, opened read-only and closed with the
  /// reader; `name` is how messages call it ("--from keys.txt"). Throws
  /// io_error: check_input's refusals (a missing file, a directory, a device,
  /// a socket) and a failed open, each sentence starting with `name`.
  [[nodiscard]] static line_reader open(const std::filesystem::path& path, std::string name);

  line_reader(line_reader&& other) noexcept;
  line_reader& operator=(line_reader&&) = delete;
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  ~line_reader();

  /// The next line without its '\n' (and a trailing '\r'); false at the end
  /// of the input. Throws io_error when the read fails, std::invalid_argument
  /// for a line longer than max_line_bytes.
  bool next(std::string& line);

  /// Whether next() can return without waiting for more input.
  [[nodiscard]] bool ready();

  /// What next_until found.
  enum class status { line, end, deadline };
  /// next(), but gives up at `deadline`: returns status::deadline when no
  /// whole line is buffered and either the deadline has passed or no input
  /// arrives before it. The deadline is looked at only when the buffer runs
  /// dry, so a steady stream costs no clock reads.
  status next_until(std::string& line, std::chrono::steady_clock::time_point deadline);

 private:
  bool fill();                 // reads more into buffer_; false at end of input
  std::size_t find_newline();  // the '\n' ending the line at start_, or npos; refuses long lines

  int fd_;
  std::string name_;
  bool owns_fd_ = false;
  std::string buffer_;
  std::size_t start_ = 0;
  std::size_t scanned_ = 0;  // bytes after start_ known to hold no '\n'
  /// The '\n' ending the line at start_ once found, else npos: ready() then
  /// next() search for it once.
  std::size_t newline_ = std::string::npos;
  bool at_end_ = false;
  std::uint64_t lines_ = 0;  // lines returned so far, for messages
};

/// The non-empty lines of the file at `path` (CRLF or LF), read whole with
/// read_file(path, max_bytes) and its refusals. `what` names the file in
/// messages ("--keys keys.txt"). Before the lines are held, the memory they
/// need is checked (io/memory.hpp: memory_error naming `what`), and a line
/// longer than max_line_bytes is std::invalid_argument.
[[nodiscard]] std::vector<std::string> read_lines(const std::filesystem::path& path,
                                                  std::uint64_t max_bytes, const std::string& what);

}  // namespace ringbloom::io
