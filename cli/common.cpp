// Shared helpers of the ringbloom commands (see common.hpp).
#include "common.hpp"

#include <fmt/core.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "ringbloom/error.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::cli {
void require_single_line(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].find_first_of("\n\r") != std::string::npos) {
      throw usage_error(fmt::format(
          "item {} ('{}') holds a line break; items are lines, and each answer is printed on "
          "one line, so give it without the line break",
          i + 1, printable(args[i], 40)));
    }
  }
}

void for_each_item(const std::vector<std::string>& args,
                   const std::function<void(std::string_view)>& fn) {
  require_single_line(args);
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

namespace {
template <class Json>
void print_any_json(const Json& doc) {
  std::cout << doc.dump(stdout_is_terminal() ? 2 : -1, ' ', false, Json::error_handler_t::replace)
            << '\n';
}
}  // namespace

void print_json(const nlohmann::json& doc) { print_any_json(doc); }
void print_json(const nlohmann::ordered_json& doc) { print_any_json(doc); }

std::string count_of(std::uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string json_line(const nlohmann::json& doc) {
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string json_line(const nlohmann::ordered_json& doc) {
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// --- numeric options ---------------------------------------------------------------

namespace {

template <class T>
std::string integer_range(const number_range<T>& r) {
  return fmt::format("an integer from {} to {}", r.min, r.max);
}

template <class T>
bool parse_integer(std::string_view text, T& out) {
  // from_chars takes no '+', no blanks; a '-' only for signed types.
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc{} && stop == end;
}

}  // namespace

std::string describe_range(const number_range<std::uint64_t>& r) { return integer_range(r); }
std::string describe_range(const number_range<std::int64_t>& r) { return integer_range(r); }

std::string describe_range(const number_range<double>& r) {
  const std::string low = fmt::format("{} {:g}", r.min_open ? "greater than" : "at least", r.min);
  if (std::isinf(r.max)) return "a number " + low;
  return fmt::format("a number {} and {} {:g}", low, r.max_open ? "less than" : "at most", r.max);
}

namespace number_detail {

void refuse_number(std::string_view option, std::string_view text, const std::string& range,
                   std::string_view advice) {
  const std::string shown = printable(text, 40);  // one line, however long the value
  throw usage_error(fmt::format("{} must be {}, got '{}'; {}", option, range, shown,
                                advice.empty() ? "run with --help to see what it means" : advice));
}

bool parse_plain(std::string_view text, std::uint64_t& out) { return parse_integer(text, out); }
bool parse_plain(std::string_view text, std::int64_t& out) { return parse_integer(text, out); }

bool parse_plain(std::string_view text, double& out) {
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, out, std::chars_format::general);
  return !text.empty() && ec == std::errc{} && stop == end && std::isfinite(out);
}

}  // namespace number_detail

// --- memory -------------------------------------------------------------------------

void require_memory(std::uint64_t bytes, std::string_view what, std::string_view advice) {
  try {
    io::require_memory(bytes, what, advice);
  } catch (const io::memory_error& e) {
    throw usage_error(e.what());  // the size came from the arguments (exit 2)
  }
}

void set_example(CLI::App& command, std::string_view example) {
  command.footer("Example:\n  " + std::string(example));
}

io::checkpoint_policy checkpoint_policy_of(double seconds, std::uint64_t items,
                                           std::string_view note) {
  if (!(seconds > 0) || seconds > 86400) {
    throw usage_error(fmt::format(
        "--checkpoint-seconds must be above 0 and at most 86400, but is {}; give for example 1{}",
        seconds, note));
  }
  if (items == 0) {
    throw usage_error("--checkpoint-items must be at least 1; give for example 4194304");
  }
  io::checkpoint_policy policy;
  policy.interval = std::max(std::chrono::milliseconds{1},
                             std::chrono::milliseconds{std::llround(seconds * 1000)});
  policy.max_items = items;
  return policy;
}

std::pair<CLI::App*, std::shared_ptr<file_items>> add_file_command(CLI::App& family,
                                                                   const std::string& name,
                                                                   const std::string& description,
                                                                   const file_items_help& help,
                                                                   std::string_view example) {
  auto o = std::make_shared<file_items>();
  auto* cmd = family.add_subcommand(name, description);
  cmd->add_option("file", o->file, help.file)->required();
  if (!help.items.empty()) cmd->add_option("items", o->items, help.items);
  cmd->add_flag("--json", o->json, help.json);
  set_example(*cmd, example);
  return {cmd, std::move(o)};
}

std::uint64_t in_batches(const std::vector<std::string>& args,
                         const std::function<void(const std::vector<std::string>&)>& apply,
                         std::size_t batch) {
  if (!args.empty()) {
    require_single_line(args);
    apply(args);
    return args.size();
  }
  std::uint64_t n = 0;
  line_reader in;
  std::vector<std::string> lines;
  while (read_batch(in, lines, batch, batch_fill::full)) {
    apply(lines);
    n += lines.size();
  }
  return n;
}

}  // namespace ringbloom::cli
