// bloom_math::blocked_size_for prunes its search over k with classic's m_k
// as a lower bound of the blocked size, and narrows the size by
// interpolating ln(rate). Both are shortcuts, not changes: this file checks
// the bound on a grid and that the sizes equal those of the plain search
// (every k from 1 to 16, bisection from zero), written out here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "ringbloom/filter/bloom_math.hpp"

namespace {

using ringbloom::bloom_math;
using ringbloom::filter_size;

// The search as it was before the shortcuts.
filter_size plain_search(std::uint64_t n, double p, std::uint64_t block_bits) {
  const double nd = static_cast<double>(n);
  const std::uint64_t max_blocks = ringbloom::max_filter_bits / block_bits;
  std::uint64_t best_blocks = 0;
  std::uint32_t best_k = 1;
  for (std::uint32_t k = 1; k <= ringbloom::max_blocked_hashes; ++k) {
    auto fpr = [&](std::uint64_t blocks) {
      return bloom_math::blocked_fpr(nd, blocks * block_bits, k, block_bits);
    };
    std::uint64_t hi = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(nd * 8.0 / static_cast<double>(block_bits)));
    while (fpr(hi) > p && hi < max_blocks) hi = std::min(max_blocks, hi * 2);
    if (fpr(hi) > p) continue;
    std::uint64_t lo = 0;
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (fpr(mid) <= p ? hi : lo) = mid;
    }
    if (best_blocks == 0 || hi < best_blocks) {
      best_blocks = hi;
      best_k = k;
    }
  }
  return {best_blocks * block_bits, best_k};
}

TEST(BloomMathPrune, ClassicSizeBoundsTheBlockedSizeFromBelow) {
  // At 95% of classic's m_k (rounded down to whole blocks), every blocked
  // filter's rate is still above p: the sizes the search skips are too small.
  int checked = 0;
  for (const std::uint64_t block_bits : {64u, 512u, 1024u}) {
    for (const double n : {1.0, 10.0, 1000.0, 1e6, 3e8}) {
      for (const double p : {0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-9, 1e-12}) {
        for (std::uint32_t k = 1; k <= ringbloom::max_blocked_hashes; ++k) {
          const double kd = k;
          const double m_k = -kd * n / std::log1p(-std::pow(p, 1.0 / kd));
          const auto blocks =
              static_cast<std::uint64_t>(m_k * 0.95 / static_cast<double>(block_bits));
          if (blocks == 0 || blocks * block_bits > ringbloom::max_filter_bits) continue;
          EXPECT_GT(bloom_math::blocked_fpr(n, blocks * block_bits, k, block_bits), p)
              << "n " << n << " p " << p << " k " << k << " B " << block_bits;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(BloomMathPrune, SizesEqualThoseOfThePlainSearch) {
  struct row {
    std::uint64_t n;
    double p;
    std::uint64_t block_bits;
  };
  const row rows[] = {{1, 0.5, 512},          {100, 0.01, 512},     {1000, 0.001, 512},
                      {12345, 0.008, 512},    {1000000, 0.01, 512}, {1000000, 1e-6, 512},
                      {300000000, 1e-6, 512}, {100, 1e-9, 64},      {100000, 0.05, 1024},
                      {30000000, 1e-4, 1024}, {10, 1e-12, 512},     {1000000, 0.1, 64}};
  for (const row& r : rows) {
    EXPECT_EQ(bloom_math::blocked_size_for(r.n, r.p, r.block_bits),
              plain_search(r.n, r.p, r.block_bits))
        << "n " << r.n << " p " << r.p << " B " << r.block_bits;
  }
}

}  // namespace
