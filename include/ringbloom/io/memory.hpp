// ringbloom/io/memory.hpp: how much memory this process may still take, so
// that work too large for the machine is refused before it starts.
//
// What it is. available_memory() reads the operating system's figures: the
// memory the kernel says it can give without swapping (MemAvailable of
// /proc/meminfo) and this process's own limits (the address-space limit of
// `ulimit -v` / `prlimit --as`, and the data-segment limit), minus what the
// process already uses. The smallest wins, and the result says which it was,
// so that a refusal can name it.
//
// When to use it. Before allocating anything whose size comes from a user (an
// option such as --bits, a file's length, a count of points): compare the
// bytes the work needs with available_memory().bytes and refuse with a
// sentence naming the number and the option (cli::require_memory does that
// for the command line; io::read_file does it for files).
//
// Guarantees. A figure, not a reservation: other processes may take memory
// in between, so a refusal is certain but an acceptance is not; std::bad_alloc
// remains possible and the CLI maps it to a sentence too. Never throws.
//
// Example:
//
//   const auto budget = ringbloom::io::available_memory();
//   if (bytes > budget.bytes)
//     throw std::invalid_argument(fmt::format("needs {} bytes, more than the {} {}", bytes,
//                                             budget.bytes, budget.source));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"

namespace ringbloom::io {

/// The memory this process may still allocate, and where the figure comes from.
struct memory_budget {
  std::uint64_t bytes = 0;
  /// What limits it, to finish a sentence "more than the 3.2 GiB ...":
  /// "of memory available on this machine" or "left under this process's
  /// memory limit (ulimit -v)".
  std::string_view source;
};

/// The smaller of the machine's available memory and this process's remaining
/// address-space / data limits (see the top of this file). When no figure can
/// be read, the largest 64-bit number (nothing is refused).
[[nodiscard]] memory_budget available_memory() noexcept;

/// Work that needs more memory than this process may have was refused
/// before anything was allocated (require_memory). The CLI reports it as
/// bad data (exit 3) unless the number came from an option.
class memory_error : public error {
 public:
  using error::error;
};

/// The library's form of the rule above: returns when `bytes` fit in
/// available_memory(), else throws memory_error "<what> needs 64.0 GiB of
/// memory, more than the 21.3 GiB of memory available on this machine;
/// <advice>". `what` names the work ("growing the cuckoo filter to 5
/// sub-filters"). (cli::require_memory is the same with a usage error.)
void require_memory(std::uint64_t bytes, std::string_view what, std::string_view advice);

/// `bytes` as a short human figure: "512 B", "1.5 KiB", "128.0 GiB".
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

}  // namespace ringbloom::io
