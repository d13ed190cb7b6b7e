// cli/output.hpp: the one rule for every file a command writes.
//
// A command never writes over one of its own inputs (the same file, found by
// device and inode, so another name or a link to it counts too), even with
// --force; and never over any other existing file unless --force is given.
// Every command that writes a file calls refuse_output before it writes, so
// the user loses nothing to a slip of `-o`.
//
// Example:
//
//   refuse_output(o.out, o.force, {o.rows});   // merkle build ROWS -o OUT
//   save_tree(o.out, tree);
#pragma once

#include <string>
#include <vector>

namespace ringbloom::cli {

/// Throws usage_error when `output` is one of `inputs` ("-" and empty inputs
/// are standard input and never match), or when it exists and `force` is
/// false. `flag` is how the user asks for the replacement ("--force").
void refuse_output(const std::string& output, bool force,
                   const std::vector<std::string>& inputs = {}, const char* flag = "--force");

}  // namespace ringbloom::cli
