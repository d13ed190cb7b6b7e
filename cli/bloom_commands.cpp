// `ringbloom bloom ...` commands (being written; registers nothing yet).
#include "commands.hpp"

namespace ringbloom::cli {

void add_bloom_commands(CLI::App& /*app*/, context& /*ctx*/) {}

}  // namespace ringbloom::cli
