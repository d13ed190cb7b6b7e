// libFuzzer target over the cuckoo filter file loader.
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a huge allocation (sizes are checked against the file before
// anything is allocated) or a sanitizer report. A loaded filter must answer
// and serialise back to the input bytes; the mapped path (view_cuckoo) must
// accept and refuse the same inputs and answer the same. Inputs are also
// tried with a repaired checksum.
//
// Seed corpus: fuzz/filter/corpus/cuckoo_load_fuzz/ (the golden file of tests/filter/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "support/load_or_refuse.hpp"

namespace {

// The mapped path (view_cuckoo, what open_cuckoo_mapped runs over the
// mapping) must accept the bytes the whole loader accepted and answer the same.
void compare_with_view(const ringbloom::cuckoo_filter& f, std::string_view bytes) {
  std::optional<ringbloom::cuckoo_view> v;
  try {
    v.emplace(ringbloom::view_cuckoo(bytes));
  } catch (const ringbloom::data_error&) {
    std::abort();
  }
  for (const char* item : {"anna", "bora", "x"}) {
    if (v->may_contain(item) != f.may_contain(item) || v->count(item) != f.count(item)) {
      std::abort();
    }
  }
}

void exercise(std::string_view bytes) {
  std::optional<ringbloom::cuckoo_filter> f;
  try {
    f.emplace(ringbloom::deserialize_cuckoo(bytes));
  } catch (const ringbloom::data_error&) {
    ringbloom::fuzz::expect_refused([&] { (void)ringbloom::view_cuckoo(bytes); });
    throw;
  }
  (void)f->may_contain("anna");
  (void)f->count("anna");
  if (ringbloom::serialize_cuckoo(*f) != bytes) std::abort();
  compare_with_view(*f, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
