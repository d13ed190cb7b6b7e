// bench/filter/split_block_proto.hpp: a prototype, in the benchmark only, of
// a "split block" layout: the blocked64 filter's 512-bit block and item hash,
// but an item sets one bit in each of the block's eight 64-bit words (k = 8
// per round, r rounds: k = 8r), where blocked64 sets k bits anywhere in the
// block. Measured against blocked64 and Boost.Bloom's fast_multiblock32<8>
// (bloom_bench --vs-boost) before it is made a kind.
//
// Positions (what a kind would fix as its file format):
//   - x = XXH3-64(item, seed) (detail::blocked64_item_hash), block =
//     fastrange64(x, blocks), h2 = x * blocked64_mixer: as blocked64.
//   - round r (0 <= r < 3) sets bit b(r, w) of word w (0 <= w < 8) of the
//     block, b(r, w) = uint32(half_r * c) >> 26 with c = block_multipliers[8
//     (r & 1) + w] and half_r the low 32 bits of h2 for rounds 0 and 1, the
//     high 32 bits for round 2.
// In AVX2 a round's mask is one 32-bit multiply of the broadcast half by the
// eight constants (in the lane order c0 c4 c1 c5 c2 c6 c3 c7), three 64-bit
// shifts that leave the top six bits of each 32-bit product in a 64-bit lane
// (even lanes: words 0..3, odd lanes: words 4..7), and two variable shifts
// of 1: an add is then two 32-byte ORs, a lookup two 32-byte tests.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string_view>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom::bench::split {

/// Bit b(r, w) of word w in round r (see the top of this file).
[[nodiscard]] inline std::uint32_t word_bit(std::uint64_t h2, std::uint32_t round,
                                            std::uint32_t w) noexcept {
  const auto half = static_cast<std::uint32_t>(round < 2 ? h2 : h2 >> 32);
  return static_cast<std::uint32_t>(half * detail::block_multipliers[8 * (round & 1) + w]) >> 26;
}

inline void set_scalar(std::uint64_t* block, std::uint64_t h2, std::uint32_t rounds) noexcept {
  for (std::uint32_t r = 0; r < rounds; ++r) {
    for (std::uint32_t w = 0; w < 8; ++w) block[w] |= std::uint64_t{1} << word_bit(h2, r, w);
  }
}

[[nodiscard]] inline bool test_scalar(const std::uint64_t* block, std::uint64_t h2,
                                      std::uint32_t rounds) noexcept {
  std::uint64_t all = 1;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    for (std::uint32_t w = 0; w < 8; ++w) all &= block[w] >> word_bit(h2, r, w);
  }
  return (all & 1) != 0;
}

/// Round r's multipliers in the AVX2 lane order c0 c4 c1 c5 c2 c6 c3 c7.
struct alignas(32) lane_constants {
  std::array<std::uint32_t, 16> c;
};
[[nodiscard]] consteval lane_constants make_lane_constants() {
  lane_constants t{};
  for (std::uint32_t half = 0; half < 2; ++half) {
    for (std::uint32_t w = 0; w < 4; ++w) {
      t.c[8 * half + 2 * w] = detail::block_multipliers[8 * half + w];
      t.c[8 * half + 2 * w + 1] = detail::block_multipliers[8 * half + w + 4];
    }
  }
  return t;
}
inline constexpr lane_constants lanes = make_lane_constants();

/// Round r's mask: words 0..3 in lo, 4..7 in hi.
[[gnu::target("avx2"), gnu::always_inline]] inline void round_mask(std::uint64_t h2,
                                                                   std::uint32_t round, __m256i& lo,
                                                                   __m256i& hi) noexcept {
  const auto half = static_cast<std::uint32_t>(round < 2 ? h2 : h2 >> 32);
  const __m256i c =
      _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes.c.data() + 8 * (round & 1)));
  const __m256i prod = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(half)), c);
  const __m256i one = _mm256_set1_epi64x(1);
  lo = _mm256_sllv_epi64(one, _mm256_srli_epi64(_mm256_slli_epi64(prod, 32), 58));
  hi = _mm256_sllv_epi64(one, _mm256_srli_epi64(prod, 58));
}

[[gnu::target("avx2"), gnu::always_inline]] inline void mask_avx2(std::uint64_t h2,
                                                                  std::uint32_t rounds, __m256i& lo,
                                                                  __m256i& hi) noexcept {
  round_mask(h2, 0, lo, hi);
  if (rounds > 1) [[unlikely]] {
    for (std::uint32_t r = 1; r < rounds; ++r) {
      __m256i l, h;
      round_mask(h2, r, l, h);
      lo = _mm256_or_si256(lo, l);
      hi = _mm256_or_si256(hi, h);
    }
  }
}

[[gnu::target("avx2")]] inline void set_avx2(std::uint64_t* block, std::uint64_t h2,
                                             std::uint32_t rounds) noexcept {
  __m256i lo, hi;
  mask_avx2(h2, rounds, lo, hi);
  auto* words = reinterpret_cast<__m256i*>(block);
  _mm256_store_si256(words, _mm256_or_si256(_mm256_load_si256(words), lo));
  _mm256_store_si256(words + 1, _mm256_or_si256(_mm256_load_si256(words + 1), hi));
}

[[gnu::target("avx2")]] inline bool test_avx2(const std::uint64_t* block, std::uint64_t h2,
                                              std::uint32_t rounds) noexcept {
  __m256i lo, hi;
  mask_avx2(h2, rounds, lo, hi);
  const auto* words = reinterpret_cast<const __m256i*>(block);
  const __m256i missing = _mm256_or_si256(_mm256_andnot_si256(_mm256_load_si256(words), lo),
                                          _mm256_andnot_si256(_mm256_load_si256(words + 1), hi));
  return _mm256_testz_si256(missing, missing) != 0;
}

/// The prototype filter: m rounded up to whole 512-bit blocks, 64-byte
/// aligned words, k = 8 * rounds.
class filter {
 public:
  filter(std::uint64_t bits, std::uint32_t rounds, std::uint64_t seed = 0)
      : blocks_(std::max<std::uint64_t>(1, (bits + 511) / 512)), rounds_(rounds), seed_(seed) {
    if (rounds < 1 || rounds > 3) throw std::invalid_argument("rounds must be 1, 2 or 3");
    const std::size_t bytes = blocks_ * 64;
    words_.reset(static_cast<std::uint64_t*>(::operator new (bytes, std::align_val_t{64})));
    std::fill_n(words_.get(), blocks_ * 8, std::uint64_t{0});
    avx2_ = simd_path_supported(simd_path::avx2);
  }

  [[nodiscard]] std::uint64_t bits() const noexcept { return blocks_ * 512; }
  [[nodiscard]] std::uint32_t hashes() const noexcept { return 8 * rounds_; }

  void add(std::string_view item) noexcept { add_hash(detail::blocked64_item_hash(item, seed_)); }
  void add_hash(std::uint64_t x) noexcept {
    std::uint64_t* block = words_.get() + detail::fastrange64(x, blocks_) * 8;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX2__)
    set_avx2(block, h2, rounds_);
#else
    if (avx2_) [[likely]]
      set_avx2(block, h2, rounds_);
    else
      set_scalar(block, h2, rounds_);
#endif
  }
  [[nodiscard]] bool may_contain(std::string_view item) const noexcept {
    return may_contain_hash(detail::blocked64_item_hash(item, seed_));
  }
  [[nodiscard]] bool may_contain_hash(std::uint64_t x) const noexcept {
    const std::uint64_t* block = words_.get() + detail::fastrange64(x, blocks_) * 8;
    const std::uint64_t h2 = x * detail::blocked64_mixer;
#if defined(__AVX2__)
    return test_avx2(block, h2, rounds_);
#else
    if (avx2_) [[likely]]
      return test_avx2(block, h2, rounds_);
    return test_scalar(block, h2, rounds_);
#endif
  }

  /// Items in flight in a batch (as blocked64's batch_chunk).
  static constexpr std::size_t ring = 64;

  void add_many(std::span<const std::string_view> items) noexcept {
    if (avx2_) {
      add_many_avx2(items);
    } else {
      for (auto s : items) add(s);
    }
  }
  std::size_t may_contain_many(std::span<const std::string_view> items,
                               std::span<bool> out) const noexcept {
    if (avx2_) return test_many_avx2(items, out.data());
    std::size_t found = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
      found += (out[i] = may_contain(items[i])) ? 1 : 0;
    return found;
  }

 private:
  struct hashed {
    std::uint64_t offset;
    std::uint64_t h2;
  };

  /// Item i hashed into slot i of the ring, its block prefetched; step(slot,
  /// i) takes item i - ring out first (as src/filter/hash64_batch.hpp).
  template <class Step>
  [[gnu::always_inline]] void run_ring(std::span<const std::string_view> items, bool write,
                                       Step&& step) const {
    std::array<hashed, ring> slots;
    const std::uint64_t seed = seed_;
    const std::uint64_t blocks = blocks_;
    const std::uint64_t* words = words_.get();
    const auto load = [&](std::size_t i) {
      const std::uint64_t x = detail::blocked64_item_hash(items[i], seed);
      hashed& h = slots[i & (ring - 1)];
      h = {detail::fastrange64(x, blocks) * 8, x * detail::blocked64_mixer};
      if (write) {
        __builtin_prefetch(words + h.offset, 1);
      } else {
        __builtin_prefetch(words + h.offset, 0);
      }
    };
    const std::size_t n = items.size();
    const std::size_t fill = std::min(ring, n);
    for (std::size_t i = 0; i < fill; ++i) load(i);
    for (std::size_t i = fill; i < n; ++i) {
      step(slots[i & (ring - 1)], i - ring);
      load(i);
    }
    for (std::size_t i = n - fill; i < n; ++i) step(slots[i & (ring - 1)], i);
  }

  [[gnu::target("avx2"), gnu::flatten]] void add_many_avx2(
      std::span<const std::string_view> items) noexcept {
    std::uint64_t* words = words_.get();
    const std::uint32_t rounds = rounds_;
    run_ring(
        items, true, [&](const hashed& h, std::size_t) __attribute__((target("avx2"))) {
          set_avx2(words + h.offset, h.h2, rounds);
        });
  }
  [[gnu::target("avx2"), gnu::flatten]] std::size_t test_many_avx2(
      std::span<const std::string_view> items, bool* out) const noexcept {
    const std::uint64_t* words = words_.get();
    const std::uint32_t rounds = rounds_;
    std::size_t found = 0;
    run_ring(
        items, false, [&](const hashed& h, std::size_t i) __attribute__((target("avx2"))) {
          const bool hit = test_avx2(words + h.offset, h.h2, rounds);
          out[i] = hit;
          found += hit ? 1 : 0;
        });
    return found;
  }

  struct aligned_delete {
    void operator()(std::uint64_t* p) const noexcept {
      ::operator delete (p, std::align_val_t{64});
    }
  };
  std::unique_ptr<std::uint64_t, aligned_delete> words_;
  std::uint64_t blocks_;
  std::uint32_t rounds_;
  std::uint64_t seed_;
  bool avx2_ = false;
};

}  // namespace ringbloom::bench::split
