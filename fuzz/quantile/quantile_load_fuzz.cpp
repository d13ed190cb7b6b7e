// libFuzzer target over the quantile file loader (t-digest, KLL).
//
// Contract: any byte string either loads or throws ringbloom::data_error;
// never a crash, a hang, a huge allocation or a sanitizer report. A loaded
// sketch must answer every query, take more values (a t-digest near the
// 2^63 weight limit may refuse them with overflow_error), and serialise back to
// exactly the input bytes. Each input is also tried with a repaired
// checksum (support/load_or_refuse.hpp) so the field checks behind it are
// reached.
//
// Seed corpus: fuzz/quantile/corpus/quantile_load_fuzz/ (the golden files
// of tests/quantile/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "ringbloom/error.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

template <class S>
void ask(S& s) {
  (void)s.quantile(0.5);
  (void)s.quantile(0.999);
  (void)s.cdf(1.0);
  (void)s.rank(0.0);
  (void)s.rev_rank(0.0);
  (void)s.by_rank(3);
  (void)s.by_rev_rank(3);
  (void)s.trimmed_mean(0.1, 0.9);
  const std::uint64_t n = s.count();
  try {
    for (int i = 0; i < 50; ++i) s.add(static_cast<double>(i));
  } catch (const std::overflow_error&) {
    // A t-digest whose weight is near 2^63 - 1 refuses more (documented).
    if (n < (std::uint64_t{1} << 62)) std::abort();
    return;
  }
  if (s.count() != n + 50) std::abort();
}

void exercise(std::string_view bytes) {
  std::optional<ringbloom::any_quantile> q;
  q.emplace(ringbloom::deserialize_quantile(bytes));
  if (ringbloom::serialize_quantile(*q) != bytes) std::abort();
  std::visit([](auto& s) { ask(s); }, *q);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
