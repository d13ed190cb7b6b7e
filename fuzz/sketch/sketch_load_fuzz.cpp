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
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/sketch/sketch_file.hpp"

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

void try_load(std::string_view bytes) {
  try {
    exercise(bytes);
  } catch (const ringbloom::data_error&) {
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
