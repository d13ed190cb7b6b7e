// libFuzzer target over the sketch file loader (HyperLogLog, Count-Min, Top-K).
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a hang, a huge allocation or a sanitizer report. A loaded
// sketch must answer queries and serialise back to exactly the input bytes,
// and the mapped path (view_sketch) must accept and refuse the same inputs
// and answer the same.
// Each input is also tried with a repaired checksum so the field checks
// behind it are reached.
//
// Seed corpus: fuzz/sketch/corpus/sketch_load_fuzz/ (a golden file of tests/sketch/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

// The mapped path (view_sketch, what open_sketch_mapped runs over the
// mapping) must accept the bytes the whole loader accepted and answer the same.
void compare_with_view(const ringbloom::any_sketch& s, std::string_view bytes) {
  std::optional<ringbloom::mapped_sketch> v;
  try {
    v.emplace(ringbloom::view_sketch(bytes));
  } catch (const ringbloom::data_error&) {
    std::abort();
  }
  if (const auto* h = std::get_if<ringbloom::hyperloglog>(&s)) {
    if (std::get<ringbloom::hll_view>(*v).count() != h->count()) std::abort();
  } else if (const auto* c = std::get_if<ringbloom::count_min_sketch>(&s)) {
    if (std::get<ringbloom::count_min_view>(*v).estimate("anna") != c->estimate("anna")) {
      std::abort();
    }
  } else if (!(std::get<ringbloom::top_k>(*v) == std::get<ringbloom::top_k>(s))) {
    std::abort();
  }
}

void exercise(std::string_view bytes) {
  std::optional<ringbloom::any_sketch> s;
  try {
    s.emplace(ringbloom::deserialize_sketch(bytes));
  } catch (const ringbloom::data_error&) {
    ringbloom::fuzz::expect_refused([&] { (void)ringbloom::view_sketch(bytes); });
    throw;
  }
  if (const auto* h = std::get_if<ringbloom::hyperloglog>(&*s)) {
    (void)h->estimate();
  } else if (const auto* c = std::get_if<ringbloom::count_min_sketch>(&*s)) {
    (void)c->estimate("anna");
  } else {
    const auto& t = std::get<ringbloom::top_k>(*s);
    (void)t.list();
    (void)t.query("anna");
  }
  if (ringbloom::serialize_sketch(*s) != bytes) std::abort();
  compare_with_view(*s, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
