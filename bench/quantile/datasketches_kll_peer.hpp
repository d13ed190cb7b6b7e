// bench/quantile/datasketches_kll_peer.hpp: Apache DataSketches' kll_sketch
// of doubles as a peer of quantile_bench, behind a small interface.
//
// Built only when a developer points the benchmark at a checkout of
// datasketches-cpp (header-only) outside this repository:
//
//   cmake --preset bench -DRINGBLOOM_DATASKETCHES_INCLUDE=/path/to/datasketches-cpp
//
// The peer's sketch allocates through a counting allocator, so that
// heap_bytes() is every byte it holds (its items array, level offsets and
// cached sorted view), the figure set beside kll_sketch::memory_bytes().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ringbloom::bench {

class datasketches_kll {
 public:
  explicit datasketches_kll(std::uint16_t k);
  ~datasketches_kll();
  datasketches_kll(const datasketches_kll&) = delete;
  datasketches_kll& operator=(const datasketches_kll&) = delete;

  /// update() for each of the n values.
  void add_each(const double* xs, std::size_t n);
  /// get_quantile(q) (inclusive, as DataSketches' default).
  [[nodiscard]] double quantile(double q) const;
  /// get_rank(x).
  [[nodiscard]] double rank(double x) const;
  [[nodiscard]] std::uint64_t count() const;
  [[nodiscard]] std::size_t retained() const;
  /// Bytes its allocator holds now (the sorted view only after a query).
  [[nodiscard]] std::size_t heap_bytes() const;
  [[nodiscard]] std::size_t serialized_bytes() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ringbloom::bench
