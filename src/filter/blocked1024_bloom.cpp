// The blocked1024 filter (see ringbloom/filter/blocked1024_bloom.hpp):
// everything but the inline lookup, which lives in the header.
//
// The words, shape checks, merge and counts are filter_core's; this file
// places items in 1024-bit blocks and runs the batch paths (the same
// pipeline as blocked64's: hash a chunk and prefetch both lines of each
// block, then probe the previous chunk).
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
#include "ringbloom/error.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view blocked1024_what = "a blocked1024 Bloom filter";

std::uint64_t round_up_to_block(std::uint64_t bits) {
  constexpr std::uint64_t b = blocked1024_bloom_filter::block_bits;
  if (bits == 0 || bits > max_filter_bits) return bits;  // refused by the check
  return (bits + b - 1) / b * b;
}

/// The AVX-512 test needs AVX-512F only (zmm registers, vpermt2d, vprolvd);
/// simd_path_supported(avx512) checks exactly that.
bool path_supported(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  return simd_path_supported(path);
#else
  return path == simd_path::scalar;
#endif
}

simd_path best_path() noexcept {
  if (path_supported(simd_path::avx512)) return simd_path::avx512;
  if (path_supported(simd_path::avx2)) return simd_path::avx2;
  return simd_path::scalar;
}

}  // namespace

blocked1024_bloom_filter::blocked1024_bloom_filter(std::uint64_t bits, std::uint32_t hashes,
                                                   std::uint64_t seed)
    : filter_core(round_up_to_block(bits), hashes, hash_kind::xxh3, seed), path_(best_path()) {
  detail::check_filter_args(blocked1024_what, bits_, hashes, max_blocked_hashes, hash_kind::xxh3,
                            seed);
  words_ = detail::word_store(static_cast<std::size_t>(bits_ / 64));
  sync();
}

blocked1024_bloom_filter blocked1024_bloom_filter::for_capacity(std::uint64_t capacity, double fpr,
                                                                std::uint64_t seed) {
  const filter_size size = size_for(capacity, fpr);
  return blocked1024_bloom_filter(size.bits, size.hashes, seed);
}

blocked1024_bloom_filter::blocked1024_bloom_filter(const blocked1024_bloom_filter& other)
    : filter_core(other), path_(other.path_) {
  sync();
}

blocked1024_bloom_filter::blocked1024_bloom_filter(blocked1024_bloom_filter&& other) noexcept
    : filter_core(std::move(other)), path_(other.path_) {
  sync();
  other.sync();
}

blocked1024_bloom_filter& blocked1024_bloom_filter::operator=(
    const blocked1024_bloom_filter& other) {
  if (this != &other) {
    filter_core::operator=(other);
    path_ = other.path_;
    sync();
  }
  return *this;
}

blocked1024_bloom_filter& blocked1024_bloom_filter::operator=(
    blocked1024_bloom_filter&& other) noexcept {
  if (this != &other) {
    filter_core::operator=(std::move(other));
    path_ = other.path_;
    sync();
    other.sync();
  }
  return *this;
}

void blocked1024_bloom_filter::sync() noexcept {
  data_ = words_.data();
  blocks_ = bits_ / block_bits;
}

void blocked1024_bloom_filter::add_hash(std::uint64_t x) {
  std::uint64_t* block = words_.mutable_data() + block_of(x) * block_words;
  detail::blocked1024_set(block, x * detail::blocked64_mixer, hashes_);
  ++items_;
}

void blocked1024_bloom_filter::use_simd_path(simd_path path) {
  if (!path_supported(path)) {
    throw std::invalid_argument(fmt::format(
        "this CPU does not support the {} path; choose one for which simd_path_supported() is "
        "true",
        simd_path_name(path)));
  }
  path_ = path;
}

// --- batches ---------------------------------------------------------------------
//
// As blocked64's: one pass hashes a chunk of items and prefetches both cache
// lines of each block as soon as its hash is known; the previous chunk,
// whose lines have had the time of that hashing to arrive, is then tested
// (or set). Each item is hashed once.

namespace {

/// Items per chunk: 40 (80 cache lines in flight). Measured (batched
/// AVX-512 lookups, ns per key at 1M / 10M / 40M keys, 2026-12-01, a quiet
/// machine, 1-2 runs each): 16 items 3.6 / 3.8 / 9.9; 32 items 3.7-3.9 /
/// 3.7-3.8 / 6.2-6.4; 40 items 3.8 / 3.8 / 5.7-5.9; 48 items 4.3 / 4.2 / 5.9;
/// 64 items 5.9 / 6.2 at 1M / 10M (too many prefetches outstanding: the
/// prefetch instructions themselves stall).
constexpr std::size_t chunk_items = 40;

using hash64_batch::hashed;

/// The shared pipeline (hash64_batch.hpp) with this kind's block and chunk.
template <class Item, class Step>
[[gnu::always_inline]] inline void pipeline(const blocked1024_bloom_filter& f,
                                            std::span<const Item> items, bool write, Step&& step) {
  hash64_batch::pipeline<blocked1024_bloom_filter::block_words, chunk_items>(
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

template <class Item>
void blocked1024_add_items(blocked1024_bloom_filter& f, std::uint64_t* base,
                           std::span<const Item> items) {
  const std::uint32_t k = f.hashes();
  pipeline(f, items, true, [&](const hashed* h, std::size_t /*first*/, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      detail::blocked1024_set(base + h[i].offset, h[i].x * detail::blocked64_mixer, k);
    }
  });
}

}  // namespace

void blocked1024_bloom_filter::add_many(std::span<const std::string_view> items) {
  if (items.empty()) return;
  blocked1024_add_items(*this, words_.mutable_data(), items);  // logic_error when read-only
  items_ = detail::saturating_add(items_, items.size());
}
void blocked1024_bloom_filter::add_many(std::span<const std::string> items) {
  if (items.empty()) return;
  blocked1024_add_items(*this, words_.mutable_data(), items);
  items_ = detail::saturating_add(items_, items.size());
}
void blocked1024_bloom_filter::add_many(std::span<const std::uint64_t> keys) {
  if (keys.empty()) return;
  blocked1024_add_items(*this, words_.mutable_data(), keys);
  items_ = detail::saturating_add(items_, keys.size());
}

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

// --- the rest ----------------------------------------------------------------------

std::vector<std::uint64_t> blocked1024_bloom_filter::positions(std::string_view item) const {
  const std::uint64_t x = hash_item(item);
  const std::uint64_t base = block_of(x) * block_bits;
  const std::uint64_t h2 = x * detail::blocked64_mixer;
  std::vector<std::uint64_t> out;
  out.reserve(hashes_);
  for (std::uint32_t j = 0; j < hashes_; ++j) {
    out.push_back(base + detail::blocked1024_position(h2, j));
  }
  return out;
}

std::vector<bit_probe> blocked1024_bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (const std::uint64_t p : positions(item)) out.push_back({0, p, bit(p) ? 1U : 0U});
  return out;
}

void blocked1024_bloom_filter::merge(const blocked1024_bloom_filter& other) {
  merge_words(other, std::bit_or<>{});
  sync();
}

void blocked1024_bloom_filter::intersect(const blocked1024_bloom_filter& other) {
  intersect_words(other, std::bit_and<>{});
  sync();
}

double blocked1024_bloom_filter::estimated_items() const noexcept {
  // As the blocked kind's: every one of the m bits is hit by a given bit of
  // an item with probability 1/m; the uneven load of the blocks biases the
  // estimate by about (k - 1) / 2048 relative (larger blocks, smaller bias).
  return bloom_math::estimate_items(
      static_cast<double>(bits_), hashes_,
      static_cast<double>(detail::count_ones(words_.data(), words_.size())));
}

filter_stats blocked1024_bloom_filter::stats() const {
  filter_stats s =
      stats_from(filter_kind::blocked1024, detail::count_ones(words_.data(), words_.size()));
  // A stranger picks a block uniformly and k uniform positions in it: it
  // passes with probability (ones_in_block / 1024)^k in that block.
  const std::uint64_t* w = words_.data();
  const double k = static_cast<double>(hashes_);
  double sum = 0.0;
  for (std::uint64_t b = 0; b < blocks_; ++b) {
    int ones = 0;
    for (std::size_t i = 0; i < block_words; ++i) ones += std::popcount(w[b * block_words + i]);
    if (ones != 0) sum += std::pow(ones / static_cast<double>(block_bits), k);
  }
  s.expected_fpr = sum / static_cast<double>(blocks_);
  return s;
}

blocked1024_bloom_filter blocked1024_bloom_filter::from_words(std::uint64_t bits,
                                                              std::uint32_t hashes,
                                                              std::uint64_t seed,
                                                              std::uint64_t items,
                                                              detail::word_store words) {
  detail::check_filter_data(blocked1024_what, bits, hashes, max_blocked_hashes, hash_kind::xxh3,
                            seed);
  if (bits % block_bits != 0) {
    throw data_error(
        fmt::format("a blocked1024 filter's size must be a multiple of 1024 bits, but it records "
                    "{}; the data is corrupt",
                    bits));
  }
  detail::check_word_count(blocked1024_what, bits, "bits", static_cast<std::size_t>(bits / 64),
                           words.size());
  blocked1024_bloom_filter f;
  f.assign(bits, hashes, hash_kind::xxh3, seed, items, std::move(words));
  f.path_ = best_path();
  f.sync();
  return f;
}

}  // namespace ringbloom
