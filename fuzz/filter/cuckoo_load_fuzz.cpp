// libFuzzer target over the cuckoo filter file loader.
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a huge allocation (sizes are checked against the file before
// anything is allocated) or a sanitizer report. A loaded filter must answer
// and serialise back to the input bytes. Inputs are also tried with a
// repaired checksum.
//
// Seed corpus: fuzz/filter/corpus/cuckoo_load_fuzz/ (the golden file of tests/sketch/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ringbloom/filter/cuckoo.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::cuckoo_filter f = ringbloom::deserialize_cuckoo(bytes);
  (void)f.may_contain("anna");
  (void)f.count("anna");
  if (ringbloom::serialize_cuckoo(f) != bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
