// Shared helpers of the ringbloom commands (see common.hpp).
#include "common.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "ringbloom/error.hpp"

namespace ringbloom::cli {
bool line_reader::fill() {
  if (at_end_) return false;
  if (start_ > 0) {
    buffer_.erase(0, start_);
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
      throw io_error(std::string("cannot read standard input: ") + std::strerror(errno) +
                     "; check what is piped in");
    }
  }
}

bool line_reader::next(std::string& line) {
  for (;;) {
    const std::size_t end = buffer_.find('\n', start_);
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
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool line_reader::ready() {
  if (at_end_ || buffer_.find('\n', start_) != std::string::npos) return true;
  pollfd request{fd_, POLLIN, 0};
  return ::poll(&request, 1, 0) > 0;
}

line_reader::status line_reader::next_until(std::string& line,
                                            std::chrono::steady_clock::time_point deadline) {
  using clock = std::chrono::steady_clock;
  while (!at_end_ && buffer_.find('\n', start_) == std::string::npos) {
    const auto now = clock::now();
    if (now >= deadline) return status::deadline;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd request{fd_, POLLIN, 0};
    const int ready = ::poll(&request, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready == 0) return status::deadline;
    if (ready < 0 && errno != EINTR) {
      throw io_error(std::string("cannot wait for standard input: ") + std::strerror(errno) +
                     "; check what is piped in");
    }
    if (ready > 0) fill();
  }
  return next(line) ? status::line : status::end;
}

void for_each_item(const std::vector<std::string>& args,
                   const std::function<void(std::string_view)>& fn) {
  if (!args.empty()) {
    for (const auto& item : args) fn(item);
    return;
  }
  line_reader in;
  std::string line;
  for (;;) {
    if (!in.ready()) std::fflush(stdout);
    if (!in.next(line)) return;
    fn(line);
  }
}

bool read_batch(line_reader& in, std::vector<std::string>& batch, std::size_t max,
                batch_fill fill) {
  batch.clear();
  std::string line;
  while (batch.size() < max) {
    if (fill == batch_fill::prompt && !batch.empty() && !in.ready()) break;
    if (!in.next(line)) break;
    batch.push_back(std::move(line));
  }
  return !batch.empty();
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

bool use_color() {
  const char* no_color = std::getenv("NO_COLOR");
  return stdout_is_terminal() && (no_color == nullptr || *no_color == '\0');
}

void print_json(const nlohmann::json& doc) {
  std::cout << doc.dump(stdout_is_terminal() ? 2 : -1) << '\n';
}

void set_example(CLI::App& command, std::string_view example) {
  command.footer("Example:\n  " + std::string(example));
}

}  // namespace ringbloom::cli
