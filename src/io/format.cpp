// The shared file framing (include/ringbloom/io/format.hpp).
#include "ringbloom/io/format.hpp"

#include <fmt/format.h>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::io {

bool all_zero(const unsigned char* p, std::uint64_t n) noexcept {
  for (std::uint64_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

void seal(std::string& out) {
  const std::size_t body = out.size() - checksum_bytes;
  const std::uint64_t sum = xxh3_64(std::string_view(out.data(), body), 0);
  store_le<std::uint64_t>(reinterpret_cast<unsigned char*>(out.data()) + body, sum);
}

void corrupt(const envelope& e, std::string_view what) {
  throw data_error(fmt::format(
      "{}; the file is damaged or was not written by ringbloom, so restore it from a backup or "
      "recreate the {}",
      what, e.thing));
}

namespace {

/// What another member of the family is, by its magic's letter ("" for
/// bytes that are no member's): said when a file is given to the wrong reader.
std::string_view member_named_by(std::string_view bytes) noexcept {
  if (bytes.size() < 8 || bytes.substr(0, 3) != "\x89RB" || bytes.substr(4, 4) != "\r\n\x1a\n") {
    return "";
  }
  switch (bytes[3]) {
    case 'F':
      return "filter file";
    case 'S':
      return "sketch file";
    case 'C':
      return "cuckoo filter file";
    case 'W':
      return "windowed filter file";
    case 'M':
      return "Merkle tree file";
    case 'Q':
      return "quantile file";
    default:
      return "";
  }
}

}  // namespace

void check_envelope(std::string_view bytes, const envelope& e) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  if (size < e.magic.size() || std::memcmp(data, e.magic.data(), e.magic.size()) != 0) {
    const std::string_view other = member_named_by(bytes);
    throw data_error(fmt::format(
        "this is not a ringbloom {} (it does not start with the {} magic bytes{}); "
        "check the path, or create a {} first",
        e.noun, e.noun,
        other.empty() ? std::string() : fmt::format(": it is a ringbloom {}", other), e.thing));
  }
  if (size < e.min_bytes) {
    corrupt(e, fmt::format("the {} is truncated: it has {} bytes, fewer than the {} of an "
                           "empty header and checksum",
                           e.noun, size, e.min_bytes));
  }
  const auto version = load_le<std::uint16_t>(data + version_offset);
  if (version != e.version) {
    throw data_error(
        fmt::format("the {} has format version {}, but this ringbloom reads version {}; open it "
                    "with the ringbloom that wrote it, or recreate the {}",
                    e.noun, version, e.version, e.thing));
  }
  const auto recorded_size = load_le<std::uint64_t>(data + file_size_offset);
  if (recorded_size != size) {
    corrupt(e, fmt::format("the {} has {} bytes but its header records {} (truncated or "
                           "extended)",
                           e.noun, size, recorded_size));
  }
  const auto stored_sum = load_le<std::uint64_t>(data + size - checksum_bytes);
  const std::uint64_t actual_sum =
      xxh3_64(std::string_view(bytes.data(), static_cast<std::size_t>(size - checksum_bytes)), 0);
  if (stored_sum != actual_sum) {
    corrupt(e, fmt::format("the {}'s checksum does not match its content (stored {:016x}, "
                           "computed {:016x})",
                           e.noun, stored_sum, actual_sum));
  }
}

}  // namespace ringbloom::io
