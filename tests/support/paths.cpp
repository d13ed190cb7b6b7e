// The source tree and CLI paths of this build (see paths.hpp). The only test
// translation unit whose command line names absolute paths: it alone is
// recompiled in a fresh clone at another path.
#include "support/paths.hpp"

#include <stdexcept>

namespace ringbloom::test {

const char* source_dir() noexcept { return RINGBLOOM_TEST_SOURCE_DIR; }

const char* cli_path() {
#ifdef RINGBLOOM_TEST_CLI_PATH
  return RINGBLOOM_TEST_CLI_PATH;
#else
  throw std::runtime_error("this test was built without the CLI (RINGBLOOM_CLI_PATH)");
#endif
}

}  // namespace ringbloom::test
