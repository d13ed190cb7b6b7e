// Reading lines with one length limit (line_reader.hpp).
#include "ringbloom/io/line_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::io {

line_reader line_reader::open(const std::filesystem::path& path, std::string name) {
  try {
    (void)check_input(path);  // missing files, directories, devices and sockets, by name
  } catch (const io_error& e) {
    throw io_error(fmt::format("{}: {}", name, e.sentence()), e.advice());
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw io_error(
        fmt::format("{}: cannot open '{}': {}", name, path.string(), std::strerror(errno)),
        "check the file's permissions");
  }
  line_reader reader(fd, std::move(name));
  reader.owns_fd_ = true;
  return reader;
}

line_reader::line_reader(line_reader&& other) noexcept
    : fd_(other.fd_),
      name_(std::move(other.name_)),
      owns_fd_(std::exchange(other.owns_fd_, false)),
      buffer_(std::move(other.buffer_)),
      start_(other.start_),
      scanned_(other.scanned_),
      newline_(other.newline_),
      at_end_(other.at_end_),
      lines_(other.lines_) {}

line_reader::~line_reader() {
  if (owns_fd_) ::close(fd_);
}

bool line_reader::fill() {
  if (at_end_) return false;
  if (start_ > 0) {
    buffer_.erase(0, start_);
    if (newline_ != std::string::npos) newline_ -= start_;
    start_ = 0;
  }
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    if (n == 0) {
      at_end_ = true;
      return false;
    }
    if (errno != EINTR) {
      throw io_error(fmt::format("cannot read {}: {}", name_, std::strerror(errno)),
                     "check what is piped in");
    }
  }
}

// The position of the '\n' that ends the line at start_, or npos when the
// buffer holds none yet. Each byte is searched once (scanned_ remembers how
// far), and a line longer than max_line_bytes is refused as soon as that many
// of its bytes are held, so a huge line is never read whole.
std::size_t line_reader::find_newline() {
  if (newline_ != std::string::npos) return newline_;  // found by ready() for this line
  const std::size_t end = buffer_.find('\n', start_ + scanned_);
  scanned_ = (end == std::string::npos ? buffer_.size() : end) - start_;
  if (scanned_ > max_line_bytes) {
    throw std::invalid_argument(
        fmt::format("line {} of {} is longer than {} MiB; give one item per line (items "
                    "longer than that are not supported)",
                    lines_ + 1, name_, max_line_bytes >> 20));
  }
  newline_ = end;
  return end;
}

bool line_reader::next(std::string& line) {
  for (;;) {
    const std::size_t end = find_newline();
    if (end != std::string::npos) {
      line.assign(buffer_, start_, end - start_);
      start_ = end + 1;
      break;
    }
    if (!fill()) {
      if (start_ == buffer_.size()) return false;
      line.assign(buffer_, start_);
      start_ = buffer_.size();
      break;
    }
  }
  scanned_ = 0;
  newline_ = std::string::npos;
  ++lines_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool line_reader::ready() {
  if (at_end_ || find_newline() != std::string::npos) return true;
  pollfd request{fd_, POLLIN, 0};
  return ::poll(&request, 1, 0) > 0;
}

line_reader::status line_reader::next_until(std::string& line,
                                            std::chrono::steady_clock::time_point deadline) {
  using clock = std::chrono::steady_clock;
  while (!at_end_ && find_newline() == std::string::npos) {
    const auto now = clock::now();
    if (now >= deadline) return status::deadline;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd request{fd_, POLLIN, 0};
    const int ready = ::poll(&request, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready == 0) return status::deadline;
    if (ready < 0 && errno != EINTR) {
      throw io_error(fmt::format("cannot wait for {}: {}", name_, std::strerror(errno)),
                     "check what is piped in");
    }
    if (ready > 0) fill();
  }
  return next(line) ? status::line : status::end;
}

std::vector<std::string> read_lines(const std::filesystem::path& path, std::uint64_t max_bytes,
                                    const std::string& what) {
  const std::string text = read_file(path, max_bytes);
  const auto lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  // Each line held costs a string and, for short keys, its small buffer.
  require_memory(lines * (sizeof(std::string) + 32), fmt::format("{} ({} lines)", what, lines),
                 "give a file with fewer lines");
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (std::uint64_t number = 1; pos < text.size(); ++number) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (line.size() > max_line_bytes) {
      throw std::invalid_argument(fmt::format(
          "line {} of {} is longer than {} MiB; give one item per line (items longer than that "
          "are not supported)",
          number, what, max_line_bytes >> 20));
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) out.emplace_back(line);
    pos = end + 1;
  }
  return out;
}

}  // namespace ringbloom::io
