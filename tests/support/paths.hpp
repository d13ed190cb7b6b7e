// tests/support/paths.hpp: where a test finds the source tree and the CLI.
//
// What: the two absolute paths a test may need, the source tree (for golden
// files under tests/<family>/data) and the built `ringbloom` binary.
//
// Why a function and not a compile definition per test: an absolute path
// baked into every test's command line makes each test translation unit
// differ between two clones, so a fresh clone (CI) missed ccache for all of
// them. The paths are compiled into one translation unit (paths.cpp) of the
// test support library; every other test file is the same in every clone.
//
// Spelling: tests/CMakeLists.txt includes this header in every test file
// (-include), and the two macros below keep the old spellings working:
//   std::string(RINGBLOOM_SOURCE_DIR) + "/tests/merkle/data/x.rbm"
//   #ifdef RINGBLOOM_CLI_PATH ... std::vector<std::string>{RINGBLOOM_CLI_PATH, "bloom", "add"}
// RINGBLOOM_CLI_PATH is defined only when the CLI is built (RINGBLOOM_HAVE_CLI).
#pragma once

namespace ringbloom::test {

/// The project's source directory (PROJECT_SOURCE_DIR), no trailing slash.
const char* source_dir() noexcept;

/// The built `ringbloom` binary; throws std::runtime_error when the tests
/// were built without the CLI (the ThreadSanitizer preset).
const char* cli_path();

}  // namespace ringbloom::test

#define RINGBLOOM_SOURCE_DIR (::ringbloom::test::source_dir())
#ifdef RINGBLOOM_HAVE_CLI
#define RINGBLOOM_CLI_PATH (::ringbloom::test::cli_path())
#endif
