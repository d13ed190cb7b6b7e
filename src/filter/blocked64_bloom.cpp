// The blocked64 filter (see ringbloom/filter/blocked64_bloom.hpp): its CPU
// check and batch paths. The inline lookup lives in the header; the rest
// (construction, add, merge, statistics, the loader's checks) is
// detail::hash64_filter's, instantiated here with 512-bit blocks.
#include "ringbloom/filter/blocked64_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "hash64_filter_impl.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/simd.hpp"

namespace ringbloom {

namespace {

/// Whether this CPU runs the AVX-512VL test (AVX-512F alone is not enough;
/// every AVX-512 CPU so far has VL, but it is checked).
bool cpu_has_avx512vl() noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  static const bool vl = __builtin_cpu_supports("avx512vl") != 0;
  return vl && simd_path_supported(simd_path::avx512);
#else
  return false;
#endif
}

}  // namespace

template class detail::hash64_filter<blocked64_bloom_filter, 9>;

bool blocked64_bloom_filter::path_supported(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  if (path == simd_path::avx512) return cpu_has_avx512vl();
  return simd_path_supported(path);
#else
  return path == simd_path::scalar;
#endif
}

// --- batches ---------------------------------------------------------------------
//
// The shared pipeline (hash64_batch.hpp) hashes a chunk and prefetches its
// blocks, then this file's step tests the chunk before (add_many is
// hash64_filter's, with set_block above).

namespace {

using hash64_batch::hashed;

template <class Item, class Step>
[[gnu::always_inline]] inline void pipeline(const blocked64_bloom_filter& f,
                                            std::span<const Item> items, bool write, Step&& step) {
  hash64_batch::pipeline<blocked64_bloom_filter::block_words, blocked64_bloom_filter::batch_chunk>(
      f.words().data(), f.blocks(), f.seed(), items, write, std::forward<Step>(step));
}

template <class Item, class Test>
[[gnu::always_inline]] inline std::size_t test_items(const blocked64_bloom_filter& f,
                                                     std::span<const Item> items, bool* out,
                                                     Test test) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  hash64_batch::pipeline_ring<blocked64_bloom_filter::block_words,
                              blocked64_bloom_filter::batch_chunk>(
      words, f.blocks(), f.seed(), items, false, [&](const hashed& h, std::size_t i) {
        const bool hit = test(words + h.offset, h.x * detail::blocked64_mixer, k);
        out[i] = hit;
        found += hit ? 1 : 0;
      });
  return found;
}

template <class Item>
std::size_t test_scalar(const blocked64_bloom_filter& f, std::span<const Item> items, bool* out) {
  return test_items(f, items, out, [](const std::uint64_t* b, std::uint64_t h2, std::uint32_t k) {
    return detail::blocked64_test_scalar(b, h2, k);
  });
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
// The whole loop compiled for AVX2 (AVX-512), so the test inlines into it.
// flatten is needed: GCC kept the test's lambda as a call per item (a lambda
// has no target of its own), and inlining it took a batched lookup at 1M
// keys from 4.1 to 3.5 ns; reading the seed into a register, to 3.3 ns.
// The ring written out, its step a lambda with AVX2 as its own target (as
// set_avx2 below): through test_items, GCC kept blocked64_test_avx2 as one
// call per item (callgrind at 1M keys: 90 instructions per batched lookup).
template <class Item>
[[gnu::target("avx2"), gnu::flatten]] std::size_t test_avx2(const blocked64_bloom_filter& f,
                                                            std::span<const Item> items,
                                                            bool* out) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  hash64_batch::pipeline_ring<blocked64_bloom_filter::block_words,
                              blocked64_bloom_filter::batch_chunk>(
      words, f.blocks(), f.seed(), items,
      false, [&](const hashed& h, std::size_t i) __attribute__((target("avx2"))) {
        const bool hit =
            detail::blocked64_test_avx2(words + h.offset, h.x * detail::blocked64_mixer, k);
        out[i] = hit;
        found += hit ? 1 : 0;
      });
  return found;
}

template <class Item>
[[gnu::target("avx512f,avx512vl"), gnu::flatten]] std::size_t test_avx512(
    const blocked64_bloom_filter& f, std::span<const Item> items, bool* out) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  hash64_batch::pipeline_ring<blocked64_bloom_filter::block_words,
                              blocked64_bloom_filter::batch_chunk>(
      words, f.blocks(), f.seed(), items,
      false, [&](const hashed& h, std::size_t i) __attribute__((target("avx512f,avx512vl"))) {
        const bool hit =
            detail::blocked64_test_avx512(words + h.offset, h.x * detail::blocked64_mixer, k);
        out[i] = hit;
        found += hit ? 1 : 0;
      });
  return found;
}
#endif

template <class Item>
std::size_t test_many(const blocked64_bloom_filter& f, std::span<const Item> items,
                      std::span<bool> out) {
  detail::check_answer_span(items.size(), out.size());
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  if (f.simd() == simd_path::avx512) return test_avx512(f, items, out.data());
  if (f.simd() == simd_path::avx2) return test_avx2(f, items, out.data());
#endif
  return test_scalar(f, items, out.data());
}

// Adds: the ring pipeline (hash64_batch::set_all_with) with the AVX2 add,
// compiled for AVX2 and flattened as the tests above are, when the CPU has it.
template <class Item>
void set_scalar(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed, std::uint32_t k,
                std::span<const Item> items) {
  hash64_batch::set_all_with<blocked64_bloom_filter, blocked64_bloom_filter::batch_chunk>(
      words, blocks, seed, k, items, [](std::uint64_t* b, std::uint64_t h2, std::uint32_t n) {
        detail::blocked64_set_scalar(b, h2, n);
      });
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
// The ring pipeline written out here, its step a lambda with AVX2 as its
// own target: given to set_all_with, the step was called once per item
// (set_all_with's own lambda around it has no AVX2 target to inline into).
template <class Item>
[[gnu::target("avx2"), gnu::flatten]] void set_avx2(std::uint64_t* words, std::uint64_t blocks,
                                                    std::uint64_t seed, std::uint32_t k,
                                                    std::span<const Item> items) {
  hash64_batch::pipeline_ring<blocked64_bloom_filter::block_words,
                              blocked64_bloom_filter::batch_chunk>(
      words, blocks, seed, items,
      true, [&](const hashed& h, std::size_t /*index*/) __attribute__((target("avx2"))) {
        detail::blocked64_set_avx2(words + h.offset, h.x * detail::blocked64_mixer, k);
      });
}
#endif

template <class Item>
void set_many(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed, std::uint32_t k,
              std::span<const Item> items) {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  static const bool avx2 = simd_path_supported(simd_path::avx2);
  if (avx2) return set_avx2(words, blocks, seed, k, items);
#endif
  set_scalar(words, blocks, seed, k, items);
}

}  // namespace

void blocked64_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks,
                                       std::uint64_t seed, std::uint32_t k,
                                       std::span<const std::string_view> items) {
  set_many(words, blocks, seed, k, items);
}
void blocked64_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks,
                                       std::uint64_t seed, std::uint32_t k,
                                       std::span<const std::string> items) {
  set_many(words, blocks, seed, k, items);
}
void blocked64_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks,
                                       std::uint64_t seed, std::uint32_t k,
                                       std::span<const std::uint64_t> keys) {
  set_many(words, blocks, seed, k, keys);
}

std::size_t blocked64_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                     std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t blocked64_bloom_filter::may_contain_many(std::span<const std::string> items,
                                                     std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t blocked64_bloom_filter::may_contain_many(std::span<const std::uint64_t> keys,
                                                     std::span<bool> out) const {
  return test_many(*this, keys, out);
}

}  // namespace ringbloom
