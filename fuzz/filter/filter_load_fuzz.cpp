// libFuzzer target over the filter file loader.
//
// The loader's contract: any byte string either loads as a valid filter or
// throws ringbloom::data_error; never a crash, a hang, a huge allocation, a
// sanitizer report or another exception. A loaded filter must answer
// queries, report stats and serialise back to exactly the input bytes.
//
// Random bytes almost never carry a valid XXH3 checksum, so each input is
// tried twice: as given, and with its last 8 bytes replaced by the correct
// checksum, which lets the fuzzer reach the field checks behind it.
//
// Seed corpus: fuzz/filter/corpus/filter_load_fuzz/ (the golden files of tests/filter/data,
// including the static kinds fuse8_xxh3.rbf and fuse16_xxh3.rbf and the
// 1024-bit blocks of blocked1024_xxh3.rbf). A fixed-size filter that loads
// must take an item and then report it (no false negatives). A loaded fuse
// filter is also probed with items that hash to every part of its array, and
// must refuse add (it is static) with std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "ringbloom/filter/filter_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::any_filter f = ringbloom::deserialize_filter(bytes);
  // Accepted: it must behave like a filter and round-trip exactly.
  for (std::string_view item : {"", "anna", "cem", "user5", "k0", "f1", "g2", "x"}) {
    (void)f.may_contain(item);
    (void)f.explain(item);
  }
  if (ringbloom::is_static_kind(f.kind())) {
    ringbloom::any_filter copy = f;
    try {
      copy.add("x");
      std::abort();  // a static filter took an item
    } catch (const std::invalid_argument&) {
    }
  } else if (f.kind() != ringbloom::filter_kind::scalable) {
    // The fixed-size kinds (classic, blocked, blocked64, blocked1024,
    // counting) take an item into any loaded shape and then report it.
    ringbloom::any_filter copy = f;
    copy.add("fuzz:added");
    if (!copy.may_contain("fuzz:added")) std::abort();
  }
  const ringbloom::filter_stats s = f.stats();
  if (s.bits == 0 || s.bits_set > s.bits || !(s.fill_ratio >= 0.0 && s.fill_ratio <= 1.0)) {
    std::abort();
  }
  if (ringbloom::serialize_filter(f) != bytes) std::abort();
  if (ringbloom::serialized_size(f) != bytes.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
