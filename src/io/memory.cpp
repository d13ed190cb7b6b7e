// The memory budget of this process (see ringbloom/io/memory.hpp).
#include "ringbloom/io/memory.hpp"

#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <limits>

namespace ringbloom::io {
namespace {

constexpr std::uint64_t unknown = std::numeric_limits<std::uint64_t>::max();

// The value in kB of the line `label` of a /proc file ("MemAvailable:",
// "VmSize:"), in bytes; `unknown` when absent.
std::uint64_t proc_kilobytes(const char* file, const char* label) noexcept {
  std::FILE* f = std::fopen(file, "re");
  if (f == nullptr) return unknown;
  char line[256];
  std::uint64_t bytes = unknown;
  const std::size_t length = std::strlen(label);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, label, length) != 0) continue;
    unsigned long long kb = 0;
    if (std::sscanf(line + length, "%llu", &kb) == 1) bytes = kb * 1024;
    break;
  }
  std::fclose(f);
  return bytes;
}

// What is left of a resource limit after `used` bytes; `unknown` if none.
std::uint64_t left_under(int resource, std::uint64_t used) noexcept {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return unknown;
  const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
  if (used == unknown) return cap;
  return cap > used ? cap - used : 0;
}

}  // namespace

memory_budget available_memory() noexcept {
  memory_budget budget{unknown, "of memory available on this machine"};
  const std::uint64_t machine = proc_kilobytes("/proc/meminfo", "MemAvailable:");
  if (machine != unknown) budget.bytes = machine;
  const std::uint64_t address_space =
      left_under(RLIMIT_AS, proc_kilobytes("/proc/self/status", "VmSize:"));
  if (address_space < budget.bytes) {
    budget = {address_space, "left under this process's address-space limit (ulimit -v)"};
  }
  const std::uint64_t data =
      left_under(RLIMIT_DATA, proc_kilobytes("/proc/self/status", "VmData:"));
  if (data < budget.bytes) {
    budget = {data, "left under this process's data-size limit (ulimit -d)"};
  }
  return budget;
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

void require_memory(std::uint64_t bytes, std::string_view what, std::string_view advice) {
  const memory_budget budget = available_memory();
  if (bytes <= budget.bytes) return;
  throw memory_error(fmt::format("{} needs {} of memory, more than the {} {}; {}", what,
                                 format_bytes(bytes), format_bytes(budget.bytes), budget.source,
                                 advice));
}

}  // namespace ringbloom::io
