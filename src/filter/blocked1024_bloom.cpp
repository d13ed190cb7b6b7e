// The blocked1024 filter (see ringbloom/filter/blocked1024_bloom.hpp): its
// CPU check and batch paths (the pipeline shared with blocked64: hash a
// chunk and prefetch both lines of each block, then probe the previous
// chunk). The inline lookup lives in the header; the rest is
// detail::hash64_filter's, instantiated here with 1024-bit blocks.
#include "ringbloom/filter/blocked1024_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "hash64_filter_impl.hpp"
#include "ringbloom/error.hpp"

namespace ringbloom {

template class detail::hash64_filter<blocked1024_bloom_filter, 10>;

/// The AVX-512 test needs AVX-512F only (zmm registers, vpermt2d, vprorvd);
/// simd_path_supported(avx512) checks exactly that.
bool blocked1024_bloom_filter::path_supported(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  return simd_path_supported(path);
#else
  return path == simd_path::scalar;
#endif
}

// --- batches ---------------------------------------------------------------------
//
// As blocked64's: one pass hashes a chunk of items and prefetches both cache
// lines of each block as soon as its hash is known; the previous chunk,
// whose lines have had the time of that hashing to arrive, is then tested.
// Each item is hashed once (add_many is hash64_filter's, with set_block).

namespace {

using hash64_batch::hashed;

/// The shared pipeline (hash64_batch.hpp) with this kind's block and chunk.
template <class Item, class Step>
[[gnu::always_inline]] inline void pipeline(const blocked1024_bloom_filter& f,
                                            std::span<const Item> items, bool write, Step&& step) {
  hash64_batch::pipeline<blocked1024_bloom_filter::block_words,
                         blocked1024_bloom_filter::batch_chunk>(
      f.words().data(), f.blocks(), f.seed(), items, write, std::forward<Step>(step));
}

/// Tests one chunk of hashed items: out[i] for each, returns how many are
/// true. One function per instruction set, each a plain loop around its
/// block test so that the test inlines (a test with a target attribute is
/// not inlined into a lambda without one: measured, the AVX-512 batch then
/// made one call per item and ran slower than one-at-a-time lookups).
using probe_fn = std::size_t (*)(const std::uint64_t* base, const hashed* h, std::size_t count,
                                 std::uint32_t k, bool* out) noexcept;

std::size_t probe_scalar(const std::uint64_t* base, const hashed* h, std::size_t count,
                         std::uint32_t k, bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    out[i] =
        detail::blocked1024_test_scalar(base + h[i].offset, h[i].x * detail::blocked64_mixer, k);
    found += out[i] ? 1 : 0;
  }
  return found;
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
[[gnu::target("avx2")]] std::size_t probe_avx2(const std::uint64_t* base, const hashed* h,
                                               std::size_t count, std::uint32_t k,
                                               bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = detail::blocked1024_test_avx2(base + h[i].offset, h[i].x * detail::blocked64_mixer, k);
    found += out[i] ? 1 : 0;
  }
  return found;
}

[[gnu::target("avx512f")]] std::size_t probe_avx512(const std::uint64_t* base, const hashed* h,
                                                    std::size_t count, std::uint32_t k,
                                                    bool* out) noexcept {
  std::size_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    out[i] =
        detail::blocked1024_test_avx512(base + h[i].offset, h[i].x * detail::blocked64_mixer, k);
    found += out[i] ? 1 : 0;
  }
  return found;
}
#endif

probe_fn probe_for(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  if (path == simd_path::avx512) return probe_avx512;
  if (path == simd_path::avx2) return probe_avx2;
#endif
  (void)path;
  return probe_scalar;
}

/// The batch lookup: the pipeline hashes and prefetches, the path's probe
/// tests each chunk (one indirect call per chunk of 64 items).
template <class Item>
std::size_t test_many(const blocked1024_bloom_filter& f, std::span<const Item> items,
                      std::span<bool> out) {
  detail::check_answer_span(items.size(), out.size());
  const probe_fn probe = probe_for(f.simd());
  const std::uint64_t* base = f.words().data();
  const std::uint32_t k = f.hashes();
  std::size_t found = 0;
  pipeline(f, items, false, [&](const hashed* h, std::size_t first, std::size_t count) {
    found += probe(base, h, count, k, out.data() + first);
  });
  return found;
}

}  // namespace

std::size_t blocked1024_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                       std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t blocked1024_bloom_filter::may_contain_many(std::span<const std::string> items,
                                                       std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t blocked1024_bloom_filter::may_contain_many(std::span<const std::uint64_t> keys,
                                                       std::span<bool> out) const {
  return test_many(*this, keys, out);
}

}  // namespace ringbloom
