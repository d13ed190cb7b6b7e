// The one output rule (see output.hpp).
#include "output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "common.hpp"

namespace ringbloom::cli {

void refuse_output(const std::string& output, bool force, const std::vector<std::string>& inputs,
                   const char* flag) {
  struct stat out {};
  if (output.empty() || output == "-" || ::lstat(output.c_str(), &out) != 0) return;  // new file
  ::stat(output.c_str(), &out);  // through a link, to compare with the inputs
  for (const std::string& input : inputs) {
    struct stat in {};
    if (input.empty() || input == "-" || ::stat(input.c_str(), &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      throw usage_error(fmt::format(
          "'{}' is also an input of this command ('{}'), and writing it would destroy what is "
          "being read; write the output to another file",
          printable(output), printable(input)));
    }
  }
  if (!force) {
    throw usage_error(
        fmt::format("'{}' already exists; pass {} to replace it, or choose another file name",
                    printable(output), flag));
  }
}

}  // namespace ringbloom::cli
