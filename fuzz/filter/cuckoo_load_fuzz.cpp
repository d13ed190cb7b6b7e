// libFuzzer target over the cuckoo filter file loader.
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a huge allocation (sizes are checked against the file before
// anything is allocated) or a sanitizer report. A loaded filter must answer
// and serialise back to the input bytes; the mapped path (view_cuckoo) must
// accept and refuse the same inputs and answer the same. Inputs are also
// tried with a repaired checksum.
//
// Seed corpus: fuzz/filter/corpus/cuckoo_load_fuzz/ (the golden file of tests/sketch/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/hash.hpp"

namespace {

void try_load(std::string_view bytes) {
  std::optional<ringbloom::cuckoo_filter> f;
  try {
    f = ringbloom::deserialize_cuckoo(bytes);
  } catch (const ringbloom::data_error&) {
    try {  // refused whole, so refused mapped too
      (void)ringbloom::view_cuckoo(bytes);
    } catch (const ringbloom::data_error&) {
      return;
    }
    std::abort();
  }
  (void)f->may_contain("anna");
  (void)f->count("anna");
  if (ringbloom::serialize_cuckoo(*f) != bytes) std::abort();
  // The mapped path (view_cuckoo, what open_cuckoo_mapped runs over the
  // mapping) accepts the same bytes (a data_error here escapes: a finding)
  // and answers the same.
  const ringbloom::cuckoo_view v = ringbloom::view_cuckoo(bytes);
  for (const char* item : {"anna", "bora", "x"}) {
    if (v.may_contain(item) != f->may_contain(item) || v.count(item) != f->count(item)) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try_load(bytes);
  if (size >= 16) {
    std::string fixed(bytes);
    const std::uint64_t sum = ringbloom::xxh3_64(std::string_view(fixed).substr(0, size - 8));
    for (std::size_t i = 0; i < 8; ++i) {
      fixed[size - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
    }
    try_load(fixed);
  }
  return 0;
}
