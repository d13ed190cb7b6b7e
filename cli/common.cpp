// Shared helpers of the ringbloom commands (see common.hpp).
#include "common.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace ringbloom::cli {
namespace {

std::string_view without_carriage_return(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

void for_each_item(const std::vector<std::string>& args, std::istream& in,
                   const std::function<void(std::string_view)>& fn) {
  if (!args.empty()) {
    for (const auto& item : args) fn(item);
    return;
  }
  std::string line;
  while (std::getline(in, line)) fn(without_carriage_return(line));
}

bool read_batch(std::istream& in, std::vector<std::string>& batch, std::size_t max) {
  batch.clear();
  std::string line;
  while (batch.size() < max && std::getline(in, line)) {
    batch.emplace_back(without_carriage_return(line));
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
