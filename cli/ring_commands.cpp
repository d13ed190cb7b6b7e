// `ringbloom ring ...` commands (being written; registers nothing yet).
#include "commands.hpp"

namespace ringbloom::cli {

void add_ring_commands(CLI::App& /*app*/, context& /*ctx*/) {}

}  // namespace ringbloom::cli
