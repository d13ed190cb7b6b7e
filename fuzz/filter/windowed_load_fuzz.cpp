// libFuzzer target over the windowed filter file's bytes (the "\x89RBW"
// member: windowed_bloom_filter::deserialize, which load_windowed, `ringbloom
// bloom add|check|info|dedup` and Python's WindowedBloomFilter.load use).
//
// Contract: any bytes either load or throw ringbloom::data_error; never a
// crash, an allocation beyond the input's size, or a sanitizer report. An
// accepted filter serialises back to the same bytes (a version 1 file to a
// version 2 image that loads as the same filter and serialises to itself),
// answers a query at its latest time, and takes an item at that time (its
// clock state is consistent). Each input is tried as given and with a repaired checksum
// (load_or_refuse).
//
// Seed corpus: fuzz/filter/corpus/windowed_load_fuzz/ (the golden files of
// tests/filter/data, one time window and one count window, in format
// versions 2 and 1).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/windowed_bloom.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  auto f = ringbloom::windowed_bloom_filter::deserialize(bytes);
  const std::string image = f.serialize();
  if (image != bytes) {
    // Only a version 1 file (u16 at offset 8) is rewritten, as version 2.
    if (bytes.size() < 10 || bytes[8] != 1 || bytes[9] != 0) std::abort();
    const auto again = ringbloom::windowed_bloom_filter::deserialize(image);
    if (!(again == f) || again.serialize() != image) std::abort();
  }
  const double at = f.latest_time();
  if (f.kind() == ringbloom::window_kind::time) {
    (void)f.may_contain("probe", at);
    (void)f.expected_fpr(at);
    f.add("probe", at);
    if (!f.may_contain("probe", at)) std::abort();
  } else {
    (void)f.may_contain("probe");
    (void)f.expected_fpr();
    f.add("probe");
    if (!f.may_contain("probe")) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
