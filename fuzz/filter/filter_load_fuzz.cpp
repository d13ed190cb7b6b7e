// libFuzzer target over the filter file loader.
//
// The loader's contract: any byte string either loads as a valid filter or
// throws ringbloom::data_error; never a crash, a hang, a huge allocation, a
// sanitizer report or another exception. A loaded filter must answer
// queries, report stats and serialise back to exactly the input bytes.
//
// Random bytes almost never carry a valid XXH3 checksum, so each input is
// tried as given, with its last 8 bytes replaced by the correct checksum
// (version 1), and with its region and head checksums recomputed (versions
// 2 and 3), which lets the fuzzer reach the field checks behind them. A
// version-1 file that loads is written back as version 2 (or 3), which must
// load as the same filter; a file of version 2 or 3 must come back byte for
// byte (each filter has one version: 3 for classic, counting and scalable
// xxh3 filters of mixed positions, else 2).
//
// Seed corpus: fuzz/filter/corpus/filter_load_fuzz/ (the golden files of
// tests/filter/data, the version-2 classic xxh3 file of v2/ as
// v2_classic_xxh3.rbf, including the static kinds fuse8_xxh3.rbf,
// fuse16_xxh3.rbf and fuse8_4wise_xxh3.rbf, the 1024-bit blocks of
// blocked1024_xxh3.rbf and the split blocks of fast_xxh3.rbf). A fixed-size
// filter that loads
// must take an item and then report it (no false negatives). A loaded fuse
// filter is also probed with items that hash to every part of its array, and
// must refuse add (it is static) with std::invalid_argument. What the target
// expects of a kind (static, layered) comes from its row of the kind table.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filter/filter_format.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::any_filter f = ringbloom::deserialize_filter(bytes);
  // The kind byte peeked, the loaded kind and its row agree.
  const ringbloom::filter_kind_info& row = ringbloom::filter_kind_of(f.kind());
  if (ringbloom::peek_filter_kind_bytes(bytes) != f.kind() || row.kind != f.kind()) std::abort();
  // Accepted: it must behave like a filter and round-trip exactly.
  for (std::string_view item : {"", "anna", "cem", "user5", "k0", "f1", "g2", "x"}) {
    (void)f.may_contain(item);
    (void)f.explain(item);
  }
  if (row.is_static) {
    ringbloom::any_filter copy = f;
    try {
      copy.add("x");
      std::abort();  // a static filter took an item
    } catch (const std::invalid_argument&) {
    }
  } else if (!row.layered) {
    // The fixed-size kinds of the kind table (classic, blocked, blocked64,
    // blocked1024, counting) take an item into any loaded shape and then
    // report it, one at a time and through the batch calls.
    ringbloom::any_filter copy = f;
    copy.add("fuzz:added");
    if (!copy.may_contain("fuzz:added")) std::abort();
    const std::array<std::string_view, 3> batch{"fuzz:b0", "fuzz:b1", "fuzz:b2"};
    copy.add_many(batch);
    std::array<bool, 3> answers{};
    if (copy.may_contain_many(batch, answers) != batch.size()) std::abort();
  }
  const ringbloom::filter_stats s = f.stats();
  if (s.bits == 0 || s.bits_set > s.bits || !(s.fill_ratio >= 0.0 && s.fill_ratio <= 1.0)) {
    std::abort();
  }
  const std::string out = ringbloom::serialize_filter(f);
  if (ringbloom::serialized_size(f) != out.size()) std::abort();
  if (bytes[8] == 1) {
    if (!(ringbloom::deserialize_filter(out) == f)) std::abort();
  } else if (out != bytes) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  std::string resealed(reinterpret_cast<const char*>(data), size);
  ringbloom::detail::reseal_filter_bytes(resealed);
  ringbloom::fuzz::try_exercise(resealed, exercise);
  return 0;
}
