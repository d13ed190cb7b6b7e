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

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/checkpoint.hpp"
#include "ringbloom/io/line_reader.hpp"

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

/// Standard input (or another descriptor) line by line, with the library's
/// line limit (io/line_reader.hpp).
using io::line_reader;

/// Refuses (usage_error) an item given as an argument that holds a newline
/// or a carriage return: items are lines (standard input cannot carry such
/// an item), and answers are printed one line per item ("key<TAB>node").
/// Tabs are allowed: the answer columns are the last ones on the line.
void require_single_line(const std::vector<std::string>& args);

/// Calls `fn` for each item: the elements of `args` or, when `args` is empty,
/// each line of standard input, streamed: nothing is held beyond the current
/// line. Standard output is flushed whenever the next line is not there yet,
/// so a co-process gets each answer before it sends the next question.
/// Arguments go through require_single_line first.
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

/// Calls `apply` once with the item arguments (each refused if it holds a line
/// break) or, when there are none, with standard input in full batches of
/// `batch` lines (each batch one locked update of a file, as `bloom add`).
/// Returns the number of items applied.
std::uint64_t in_batches(const std::vector<std::string>& args,
                         const std::function<void(const std::vector<std::string>&)>& apply,
                         std::size_t batch = 65536);

/// --checkpoint-seconds and --checkpoint-items as a checkpoint policy, or a
/// usage error "--checkpoint-seconds must be above 0 and at most 86400, but
/// is 0; give for example 1<note>".
[[nodiscard]] io::checkpoint_policy checkpoint_policy_of(double seconds, std::uint64_t items,
                                                         std::string_view note = {});

/// Whether stdout / stderr is a terminal.
[[nodiscard]] bool stdout_is_terminal();
[[nodiscard]] bool stderr_is_terminal();

/// Whether to print colour: stdout is a terminal and NO_COLOR is unset.
[[nodiscard]] bool use_color();

/// Prints `doc` to stdout, pretty when stdout is a terminal, one line
/// otherwise, followed by a newline. Bytes that are not UTF-8 (items come
/// from arbitrary input) are printed as U+FFFD: printing never throws on
/// them. The one JSON printer of every command.
void print_json(const nlohmann::json& doc);
void print_json(const nlohmann::ordered_json& doc);

/// "1 item", "2 items": a count with its noun, plural by adding "s".
[[nodiscard]] std::string count_of(std::uint64_t n, std::string_view noun);

/// `doc` as one line of JSON, with bytes that are not UTF-8 as U+FFFD (for
/// commands that print a document per line).
[[nodiscard]] std::string json_line(const nlohmann::json& doc);
[[nodiscard]] std::string json_line(const nlohmann::ordered_json& doc);

/// Streams standard input into a checkpointed `stream` (io/checkpoint.hpp:
/// a filter file's, a windowed filter's, a quantile sketch's): each line
/// goes to `add_line`, and the lines wait in a private delta folded into the
/// file under its lock at each checkpoint (every --checkpoint-seconds after
/// the oldest waiting line, or every --checkpoint-items lines), also while
/// the producer pauses. Between checkpoints nothing is locked. On a
/// terminal, a progress line per checkpoint ("N items added") once 65,536
/// are durable.
template <class Stream, class AddLine>
void stream_stdin(Stream& stream, std::string_view noun, AddLine&& add_line) {
  const bool progress = stderr_is_terminal();
  bool progress_shown = false;
  const auto checkpoint = [&] {
    stream.checkpoint();
    if (progress && stream.stats().durable_items >= 65536) {
      fmt::print(stderr, "\r{} {} added", stream.stats().durable_items, noun);
      std::fflush(stderr);
      progress_shown = true;
    }
  };
  line_reader in;
  std::string line;
  constexpr auto never = std::chrono::steady_clock::time_point::max();
  auto deadline = never;  // stream.deadline(), updated when it changes
  for (;;) {
    const line_reader::status status = in.next_until(line, deadline);
    if (status == line_reader::status::end) break;
    if (status == line_reader::status::line) {
      add_line(line);
      if (stream.pending_items() == 1) deadline = stream.deadline().value_or(never);
      if (!stream.full()) continue;
    }
    checkpoint();
    deadline = never;
  }
  checkpoint();
  if (progress_shown) fmt::print(stderr, "\n");
}

// --- errors -------------------------------------------------------------------------

/// Runs `fn` and returns what it returns; an io_error (by default) or a
/// data_error (`E = data_error`) thrown from it that does not say what to do
/// is thrown again with `advice`, so that every error a command prints says
/// what to do. Advice the library gave stays (ringbloom::with_advice).
///
///   with_advice("check the file name, or create it with 'ringbloom hll create'",
///               [&] { return load_sketch(path); });
template <class E = io_error, class Fn>
decltype(auto) with_advice(std::string_view advice, Fn&& fn) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const E& e) {
    if (e.has_advice()) throw;
    throw ringbloom::with_advice(e, advice);
  }
}

// --- numeric options ---------------------------------------------------------------
//
// Every numeric option of every command goes through parse_number (usually via
// add_number_option): the value is read as what it means, or refused with a
// sentence that names the option, repeats what was given and states the valid
// range. No wrap-around (-5 is not 18446744073709551611), no silent clamping,
// no NaN or infinity, no trailing junk ("10x"), no blanks, no exponent for an
// integer ("1e6": write 1000000). 0 is refused wherever it means nothing: the
// range says so.

/// The valid values of a numeric option: from `min` to `max`; for real numbers
/// either end may be open (a false-positive rate is in (0, 1)).
template <class T>
struct number_range {
  T min;
  T max;
  bool min_open = false;  // real numbers only: min itself is not allowed
  bool max_open = false;  // real numbers only: max itself is not allowed
};

/// The integer range [min, max].
template <class T>
[[nodiscard]] constexpr number_range<T> between(T min, T max) {
  return {min, max, false, false};
}

/// The range [min, largest T].
template <class T>
[[nodiscard]] constexpr number_range<T> at_least(T min) {
  return {min, std::numeric_limits<T>::max(), false, false};
}

/// The range as words: "an integer from 1 to 100", "a number greater than 0
/// and less than 1".
[[nodiscard]] std::string describe_range(const number_range<std::uint64_t>& r);
[[nodiscard]] std::string describe_range(const number_range<std::int64_t>& r);
[[nodiscard]] std::string describe_range(const number_range<double>& r);

namespace number_detail {
[[noreturn]] void refuse_number(std::string_view option, std::string_view text,
                                const std::string& range, std::string_view advice);
bool parse_plain(std::string_view text, std::uint64_t& out);
bool parse_plain(std::string_view text, std::int64_t& out);
bool parse_plain(std::string_view text, double& out);
}  // namespace number_detail

/// The type a T is parsed as: double, std::int64_t or std::uint64_t.
template <class T>
using wide_t =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

/// `text`, the value given to `option`, as a T within `range`. Throws
/// usage_error: "--capacity must be an integer from 1 to 18446744073709551615,
/// got '-5'; <advice>" (advice defaults to pointing at --help).
template <class T>
[[nodiscard]] T parse_number(std::string_view text, std::string_view option,
                             const number_range<T>& range, std::string_view advice = {}) {
  using wide = wide_t<T>;
  const number_range<wide> r{static_cast<wide>(range.min), static_cast<wide>(range.max),
                             range.min_open, range.max_open};
  wide value{};
  const bool inside = number_detail::parse_plain(text, value) &&
                      (r.min_open ? value > r.min : value >= r.min) &&
                      (r.max_open ? value < r.max : value <= r.max);
  if (!inside) number_detail::refuse_number(option, text, describe_range(r), advice);
  return static_cast<T>(value);
}

/// Adds the numeric option `name` ("--keys") to `command`; its value is read
/// by parse_number into `target`, which keeps its default when the option is
/// absent (Option::count() tells whether it was given). The help text gets
/// the range appended. Example:
///
///   add_number_option(*cmd, "--keys", o->keys, between<std::uint64_t>(1, 100'000'000),
///                     "How many keys (default 20000)");
///   add_number_option(*cmd, "--fpr", o->fpr, number_range<double>{0, 1, true, true},
///                     "Target false-positive rate", "for a 1% rate give 0.01");
template <class T>
CLI::Option* add_number_option(CLI::App& command, const std::string& name, T& target,
                               const number_range<T>& range, const std::string& help,
                               const std::string& advice = {}) {
  const std::string option = name.substr(name.rfind(',') + 1);  // "-k,--keys": "--keys"
  return command
      .add_option_function<std::string>(
          name,
          [&target, option, range, advice](const std::string& text) {
            target = parse_number<T>(text, option, range, advice);
          },
          help + " (" +
              describe_range(number_range<wide_t<T>>{static_cast<wide_t<T>>(range.min),
                                                     static_cast<wide_t<T>>(range.max),
                                                     range.min_open, range.max_open}) +
              ")")
      ->type_name(std::is_floating_point_v<T> ? "NUMBER" : "INT");
}

// --- memory -------------------------------------------------------------------------

/// Refuses, before anything is allocated, work that needs `bytes` of memory
/// when this process cannot have them (io::available_memory): throws
/// usage_error "<what> needs 116.4 GiB of memory, more than the 21.3 GiB of
/// memory available on this machine; <advice>". `what` names the number and
/// the option that asked for it ("--bits 1099511627776").
void require_memory(std::uint64_t bytes, std::string_view what, std::string_view advice);

/// A fraction as a percentage with two decimals: "20.84%".
[[nodiscard]] inline std::string percent(double fraction) {
  return fmt::format("{:.2f}%", 100.0 * fraction);
}

/// Adds the usual help footer ("Example:\n  <example>") to a command.
void set_example(CLI::App& command, std::string_view example);

/// What a command on one file was given: FILE, its items (ITEM..., or
/// standard input when none) and --json.
struct file_items {
  std::string file;
  std::vector<std::string> items;
  bool json = false;
};

/// The help texts of add_file_command's options; `items` empty: the
/// command takes no items.
struct file_items_help {
  std::string file;
  std::string items = "Items; when none are given, read stdin";
  std::string json = "Print the result as JSON";
};

/// Adds the command `name` to `family` with a required FILE, ITEM... and
/// --json, and its example; returns it with the options it fills, which
/// the command's callback keeps alive:
///
///   auto [cmd, o] = add_file_command(cuckoo, "check", "Print item<TAB>maybe|no",
///                                    {"The cuckoo filter file"}, "ringbloom cuckoo check f.cf x");
///   cmd->callback([o = o] { ... o->file, o->items, o->json ... });
std::pair<CLI::App*, std::shared_ptr<file_items>> add_file_command(CLI::App& family,
                                                                   const std::string& name,
                                                                   const std::string& description,
                                                                   const file_items_help& help,
                                                                   std::string_view example);

}  // namespace ringbloom::cli
