// libFuzzer target over the sketch file loader (HyperLogLog, Count-Min, Top-K).
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a hang, a huge allocation or a sanitizer report. A loaded
// sketch must answer queries and serialise back to exactly the input bytes.
// Each input is also tried with a repaired checksum so the field checks
// behind it are reached.
//
// Seed corpus: fuzz/sketch/corpus/sketch_load_fuzz/ (a golden file of tests/sketch/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ringbloom/sketch/sketch_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  ringbloom::any_sketch s = ringbloom::deserialize_sketch(bytes);
  if (auto* h = std::get_if<ringbloom::hyperloglog>(&s)) {
    (void)h->estimate();
  } else if (auto* c = std::get_if<ringbloom::count_min_sketch>(&s)) {
    (void)c->estimate("anna");
  } else {
    auto& t = std::get<ringbloom::top_k>(s);
    (void)t.list();
    (void)t.query("anna");
  }
  if (ringbloom::serialize_sketch(s) != bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
