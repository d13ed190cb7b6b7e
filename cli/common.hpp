// cli/common.hpp: what every `ringbloom <area> <verb>` command shares.
//
// Conventions (README, STYLE.md):
//   - exit 0 success, 1 a negative answer, 2 a usage error, 3 bad data or I/O;
//   - errors go to stderr as "ringbloom: error: <what>; <what to do>"; main()
//     prints them from exceptions: std::invalid_argument and usage_error exit
//     2, ringbloom::error (data_error, io_error) exits 3;
//   - items come from the arguments or, when none are given, one per line
//     from standard input, streamed;
//   - --json wherever the output is data; colour only on a terminal and when
//     NO_COLOR is unset.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringbloom::cli {

/// Process exit codes.
enum exit_code : int {
  exit_ok = 0,
  exit_negative = 1,  // e.g. an item is definitely absent
  exit_usage = 2,
  exit_data = 3,  // bad data or an I/O failure
};

/// A usage error found after parsing (a bad combination of options, say).
/// main() prints it and exits 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// State shared by the commands of one run.
struct context {
  int exit_status = exit_ok;  // a command sets exit_negative for a "no"
};

/// Reads standard input (or another descriptor) line by line, with its own
/// buffer, and can tell whether a line is available without waiting. That is
/// what lets commands work in batches without stalling a caller that writes
/// one line and waits for the answer (a co-process).
class line_reader {
 public:
  explicit line_reader(int fd = 0) noexcept : fd_(fd) {}

  /// The next line without its '\n' (and without a trailing '\r', so CRLF
  /// input works); false at the end of the input. A last line without '\n'
  /// counts. Throws ringbloom::io_error when the read fails.
  bool next(std::string& line);

  /// Whether next() can return without waiting for more input.
  [[nodiscard]] bool ready();

  /// What next_until found.
  enum class status { line, end, deadline };
  /// next(), but gives up at `deadline`: returns status::deadline when no
  /// whole line is buffered and either the deadline has passed or no input
  /// arrives before it (so a caller can do timed work, such as a
  /// checkpoint, while its producer pauses). The deadline is looked at only
  /// when the buffer runs dry, so a steady stream costs no clock reads.
  status next_until(std::string& line, std::chrono::steady_clock::time_point deadline);

 private:
  bool fill();  // reads more into buffer_; false at end of input

  int fd_;
  std::string buffer_;
  std::size_t start_ = 0;
  bool at_end_ = false;
};

/// Calls `fn` for each item: the elements of `args` or, when `args` is empty,
/// each line of standard input, streamed: nothing is held beyond the current
/// line. Standard output is flushed whenever the next line is not there yet,
/// so a co-process gets each answer before it sends the next question.
void for_each_item(const std::vector<std::string>& args,
                   const std::function<void(std::string_view)>& fn);

/// How read_batch fills a batch.
enum class batch_fill {
  /// Up to `max` lines, waiting for input as needed: for work whose cost is
  /// per batch (one locked rewrite of a file per batch in `bloom add`).
  full,
  /// Stop early when the lines read so far would otherwise wait for more
  /// input, so a caller answering each batch answers a slow writer at once.
  prompt,
};

/// Reads up to `max` lines into `batch` (cleared first); returns false once
/// the input is exhausted and nothing was read. With batch_fill::prompt,
/// callers flush their output after each batch.
bool read_batch(line_reader& in, std::vector<std::string>& batch, std::size_t max, batch_fill fill);

/// Whether stdout / stderr is a terminal.
[[nodiscard]] bool stdout_is_terminal();
[[nodiscard]] bool stderr_is_terminal();

/// Whether to print colour: stdout is a terminal and NO_COLOR is unset.
[[nodiscard]] bool use_color();

/// Prints `doc` to stdout, pretty when stdout is a terminal, one line
/// otherwise, followed by a newline.
void print_json(const nlohmann::json& doc);

/// Adds the usual help footer ("Example:\n  <example>") to a command.
void set_example(CLI::App& command, std::string_view example);

}  // namespace ringbloom::cli
