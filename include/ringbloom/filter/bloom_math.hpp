// ringbloom/filter/bloom_math.hpp: the sizing and rate formulas of every Bloom
// filter kind, in one place, and the size limits the kinds share.
//
// Use it to size a filter before making one (how many bits and hashes for n
// items at rate p), or to read a filter's rate off its size. Everything here
// takes and returns plain numbers: nothing touches a filter, nothing
// allocates. Each formula carries its source; the filters' own sizing
// helpers (bloom_filter::bits_for, blocked_bloom_filter::for_capacity, ...)
// call these.
//
// Example:
//
//   #include <ringbloom/filter/bloom_math.hpp>
//   const ringbloom::filter_size s = ringbloom::bloom_math::classic_size_for(1'000'000, 0.01);
//   // s.bits == 9592955, s.hashes == 7 (about 9.6 bits per item)
//   double p = ringbloom::bloom_math::classic_fpr(1e6, static_cast<double>(s.bits), s.hashes);
#pragma once

#include <cstdint>

namespace ringbloom {

/// A filter's size: m bits (counters for the counting kind) and k hashes.
struct filter_size {
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  friend bool operator==(const filter_size&, const filter_size&) = default;
};

/// Limits every constructor and the file loader enforce.
inline constexpr std::uint64_t max_filter_bits = std::uint64_t{1} << 40;  // 128 GiB of bits
inline constexpr std::uint32_t max_filter_hashes = 128;                   // classic, counting
inline constexpr std::uint32_t max_blocked_hashes = 16;                   // blocked
/// The lowest false-positive rate any filter is sized for: 2^-64, about
/// 5.4e-20. An item's hash decides its positions, and two items whose 64-bit
/// hashes are equal are answered alike whatever the filter's size, so a rate
/// below the chance of that collision could be printed but never delivered.
inline constexpr double min_fpr = 0x1p-64;
/// The lowest false-positive rate a blocked filter is sized for. Below it the
/// long-double sum of blocked_fpr is dominated by rounding (absolute error up
/// to 4e-16 at k = 16, against a 60-digit evaluation: tests/filter/
/// blocked_floor.py), so sizing would follow noise; from 1e-12 up the formula
/// is exact to 0.04%. The classic kind reaches lower rates.
inline constexpr double blocked_min_fpr = 1e-12;

/// The rate and sizing formulas of every kind, in one place. All take and
/// return plain numbers; nothing here touches a filter.
///
/// Sources:
///   [B70]  B. H. Bloom, "Space/time trade-offs in hash coding with allowable
///          errors", CACM 13(7), 1970.
///   [PSS07] F. Putze, P. Sanders, J. Singler, "Cache-, hash- and
///          space-efficient Bloom filters", WEA 2007 (blocked filters).
///   [SB07] S. J. Swamidass, P. Baldi, "Mathematical correction for
///          fingerprint similarity measures to improve chemical retrieval",
///          J. Chem. Inf. Model. 47(3), 2007 (estimated distinct items).
///   [ABPH07] P. S. Almeida, C. Baquero, N. Preguica, D. Hutchison,
///          "Scalable Bloom Filters", IPL 101(6), 2007.
struct bloom_math {
  /// [B70] The classic rate after n items in m bits with k hashes:
  /// (1 - e^(-kn/m))^k, evaluated as exp(k * log1p(-exp(-kn/m))) so that
  /// tiny rates keep their precision. 0 when n is 0.
  /// Precondition: m > 0, k > 0.
  [[nodiscard]] static double classic_fpr(double n, double m, double k) noexcept;

  /// The k that minimises classic_fpr for m bits and n items:
  /// round(m/n * ln 2), at least 1 and at most max_filter_hashes.
  [[nodiscard]] static std::uint32_t optimal_hashes(double m, double n) noexcept;

  /// The smallest classic filter (m, k) with classic_fpr(n, m, k) <= p: for
  /// each k, m_k = ceil(-k n / ln(1 - p^(1/k))), and the k with the smallest
  /// m_k wins (for p = 1% that is k = 7, about 9.6 bits per item).
  /// Throws std::invalid_argument unless n >= 1 and min_fpr <= p < 1, and
  /// when the filter would need more than max_filter_bits.
  [[nodiscard]] static filter_size classic_size_for(std::uint64_t n, double p);

  /// The largest n with classic_fpr(n, m, k) <= p: -m/k * ln(1 - p^(1/k)),
  /// rounded down (at least 1).
  [[nodiscard]] static std::uint64_t classic_capacity_for(std::uint64_t m, std::uint32_t k,
                                                          double p) noexcept;

  /// [PSS07] The rate of a blocked filter (512-bit blocks, see
  /// blocked_bloom.hpp) after n items in m bits with k hashes. Items fall into
  /// the m/512 blocks as a Poisson number with mean lambda = 512 n / m; with
  /// i items in its block (t = k i bits thrown at it, each anywhere in the
  /// block) a stranger is reported "maybe" with the exact probability that
  /// all of its k uniform positions were hit: with d distinct positions
  /// (probability S(k,d) 512!/(512-d)! / 512^k, S the Stirling numbers of
  /// the second kind), sum_j (-1)^j C(d,j) (1 - j/512)^t by
  /// inclusion-exclusion. The result is the Poisson-weighted average over i,
  /// summed over lambda +- (12 sqrt(lambda) + 30), which leaves out Poisson
  /// mass far below 1e-12. The simpler (1 - (1 - 1/512)^(k i))^k, which
  /// uses a block's expected fill, reads about 1.2% (relative) low at 10
  /// bits per item. Evaluated in long double; the alternating sum keeps about
  /// 15 digits, ample for rates down to 1e-9 (docs/bloom.md).
  /// The same formula holds for any block size B = `block_bits` with 512
  /// replaced by B (lambda = B n / m, positions uniform in B bits): the
  /// blocked1024 kind (blocked1024_bloom.hpp) uses B = 1024, where the
  /// blocks fill more evenly and 1% costs 9.76 bits per item (k = 7).
  /// Split blocks (`parts` > 1, the fast kind, fast_bloom.hpp: parts = 8): each
  /// block is `parts` equal parts of B / parts bits, and an item puts k /
  /// parts of its bits into each part, uniformly and independently. With i
  /// items in its block, each part took t = (k / parts) i throws and a
  /// stranger passes a part with the same exact inclusion-exclusion sum over
  /// the part's bits; the parts are independent given i, so the block passes
  /// with that probability to the power `parts`; then the same Poisson
  /// average. One bit per 64-bit word of a 512-bit block (k = 8) reads 1.05%
  /// at 10 bits per item.
  /// Precondition: m is a positive multiple of block_bits, 1 <= k <= 16, and
  /// k a multiple of parts, which divides block_bits.
  [[nodiscard]] static double blocked_fpr(double n, std::uint64_t m, std::uint32_t k,
                                          std::uint64_t block_bits = 512,
                                          std::uint32_t parts = 1) noexcept;

  /// The smallest blocked filter with blocked_fpr(n, m, k) <= p: for each k
  /// in 1..16 a binary search over the number of blocks, smallest m wins
  /// (ties to the smaller k). Blocking costs memory: for p = 1% it is 9.92
  /// bits per item with k = 6, against the classic 9.59 with k = 7; at
  /// exactly 10 bits per item k = 6 gives 0.966% and k = 7 0.968%.
  /// Throws std::invalid_argument as classic_size_for does, and for p below
  /// blocked_min_fpr (naming the classic kind, which reaches such rates).
  /// `block_bits` as for blocked_fpr (m is then a multiple of it); throws
  /// std::invalid_argument unless it is a multiple of 64 in 64..65536.
  /// With `parts` > 1 (split blocks, see blocked_fpr) only the k that are
  /// multiples of parts are tried (8 and 16 for parts = 8).
  [[nodiscard]] static filter_size blocked_size_for(std::uint64_t n, double p,
                                                    std::uint64_t block_bits = 512,
                                                    std::uint32_t parts = 1);

  /// [SB07] The number of distinct items that most likely set `bits_set` of
  /// m bits with k hashes: -(m/k) * ln(1 - bits_set/m). +infinity when
  /// bits_set == m. Precondition: m > 0, k > 0, bits_set <= m.
  [[nodiscard]] static double estimate_items(double m, double k, double bits_set) noexcept;

  /// [ABPH07] The error budget of layer i (0-based) of a scalable filter with
  /// overall target p and tightening ratio r: p * (1 - r) * r^i. The layers'
  /// budgets sum to less than p, so the compound rate stays under p however
  /// many layers are added. For r = 0.5 this is RedisBloom's p/2, p/4, ...
  [[nodiscard]] static double scalable_layer_fpr(double p, double r, std::uint32_t i) noexcept;
};

}  // namespace ringbloom
