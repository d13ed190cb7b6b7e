// tests/cli_run.hpp: runs the built `ringbloom` binary for CLI tests.
#pragma once

#include <string>
#include <vector>

namespace ringbloom::test {

/// What one run of the CLI printed and returned.
struct cli_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the ringbloom CLI (RINGBLOOM_CLI_PATH) with `args`, feeding
/// `stdin_text` on standard input, and collects its output and exit code.
/// Environment variables in `env` ("NAME=value") are added to the child's.
cli_result run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {},
                   const std::vector<std::string>& env = {});

/// A fresh empty directory under the system's temporary directory, removed
/// when the object goes out of scope.
class temp_dir {
 public:
  temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir();
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ringbloom::test
