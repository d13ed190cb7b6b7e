// The blocked64 filter (see ringbloom/filter/blocked64_bloom.hpp): everything
// but the inline lookup, which lives in the header.
//
// The words, shape checks, merge and statistics are the blocked filter's
// (the layout is the same); this file places items by their 64-bit hash and
// runs the batch paths.
#include "ringbloom/filter/blocked64_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "ringbloom/error.hpp"

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

bool path_supported(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  if (path == simd_path::avx512) return cpu_has_avx512vl();
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

[[nodiscard]] hash128 placement(std::uint64_t x) noexcept {
  return {x, x * detail::blocked64_mixer};
}

}  // namespace

blocked64_bloom_filter::blocked64_bloom_filter(blocked_bloom_filter core)
    : core_(std::move(core)), path_(best_path()) {
  sync();
}

blocked64_bloom_filter::blocked64_bloom_filter(std::uint64_t bits, std::uint32_t hashes,
                                               std::uint64_t seed)
    : blocked64_bloom_filter(blocked_bloom_filter(bits, hashes, hash_kind::xxh3, seed)) {}

blocked64_bloom_filter blocked64_bloom_filter::for_capacity(std::uint64_t capacity, double fpr,
                                                            std::uint64_t seed) {
  return blocked64_bloom_filter(
      blocked_bloom_filter::for_capacity(capacity, fpr, hash_kind::xxh3, seed));
}

blocked64_bloom_filter::blocked64_bloom_filter(const blocked64_bloom_filter& other)
    : core_(other.core_), path_(other.path_) {
  sync();
}

blocked64_bloom_filter::blocked64_bloom_filter(blocked64_bloom_filter&& other) noexcept
    : core_(std::move(other.core_)), path_(other.path_) {
  sync();
  other.sync();
}

blocked64_bloom_filter& blocked64_bloom_filter::operator=(const blocked64_bloom_filter& other) {
  if (this != &other) {
    core_ = other.core_;
    path_ = other.path_;
    sync();
  }
  return *this;
}

blocked64_bloom_filter& blocked64_bloom_filter::operator=(blocked64_bloom_filter&& other) noexcept {
  if (this != &other) {
    core_ = std::move(other.core_);
    path_ = other.path_;
    sync();
    other.sync();
  }
  return *this;
}

void blocked64_bloom_filter::sync() noexcept {
  words_ = core_.words().data();
  blocks_ = core_.blocks();
  seed_ = core_.seed();
  k_ = core_.hashes();
  avx512_lanes_ = path_ == simd_path::avx512 && k_ <= 8 ? detail::blocked64_lane_mask(k_) : 0;
}

void blocked64_bloom_filter::add_hash(std::uint64_t x) {
  core_.add_hash(placement(x));
  words_ = core_.words().data();
}

void blocked64_bloom_filter::add_hashes(std::span<const std::uint64_t> xs) {
  std::array<hash128, 64> placed;
  for (std::size_t at = 0; at < xs.size(); at += placed.size()) {
    const std::size_t n = std::min(placed.size(), xs.size() - at);
    for (std::size_t i = 0; i < n; ++i) placed[i] = placement(xs[at + i]);
    core_.add_many(std::span<const hash128>(placed.data(), n));
  }
  words_ = core_.words().data();
}

void blocked64_bloom_filter::use_simd_path(simd_path path) {
  if (!path_supported(path)) {
    throw std::invalid_argument(fmt::format(
        "this CPU does not support the {} path; choose one for which simd_path_supported() is "
        "true",
        simd_path_name(path)));
  }
  path_ = path;
  sync();
}

// --- batches ---------------------------------------------------------------------
//
// The shared pipeline (hash64_batch.hpp) hashes a chunk and prefetches its
// blocks, then this file's step tests (or sets) the chunk before.

namespace {

/// Items per chunk: the blocks of one chunk are in flight while the next is
/// hashed. 64 measured best at 10M and 100M keys (3.9 and 5.9 ns per lookup
/// against 4.2-4.9 and 6.8 with 32, 4.8-5.0 and 6.2 with 128; equal at 1M).
constexpr std::size_t chunk_items = 64;

using hash64_batch::hashed;

template <class Item, class Step>
[[gnu::always_inline]] inline void pipeline(const blocked64_bloom_filter& f,
                                            std::span<const Item> items, bool write, Step&& step) {
  hash64_batch::pipeline<blocked64_bloom_filter::block_words, chunk_items>(
      f.words().data(), f.blocks(), f.seed(), items, write, std::forward<Step>(step));
}

template <class Item, class Test>
[[gnu::always_inline]] inline std::size_t test_items(const blocked64_bloom_filter& f,
                                                     std::span<const Item> items, bool* out,
                                                     Test test) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  pipeline(f, items, false, [&](const hashed* h, std::size_t first, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const bool hit = test(words + h[i].offset, h[i].x * detail::blocked64_mixer, k);
      out[first + i] = hit;
      found += hit ? 1 : 0;
    }
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
template <class Item>
[[gnu::target("avx2"), gnu::flatten]] std::size_t test_avx2(const blocked64_bloom_filter& f,
                                                            std::span<const Item> items,
                                                            bool* out) {
  return test_items(
      f, items, out,
      [](const std::uint64_t* b, std::uint64_t h2, std::uint32_t k)
          __attribute__((target("avx2"))) { return detail::blocked64_test_avx2(b, h2, k); });
}

template <class Item>
[[gnu::target("avx512f,avx512vl"), gnu::flatten]] std::size_t test_avx512(
    const blocked64_bloom_filter& f, std::span<const Item> items, bool* out) {
  return test_items(
      f, items, out,
      [](const std::uint64_t* b, std::uint64_t h2, std::uint32_t k) __attribute__((
          target("avx512f,avx512vl"))) { return detail::blocked64_test_avx512(b, h2, k); });
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

template <class Item>
void add_items(blocked64_bloom_filter& f, std::span<const Item> items) {
  if (items.empty()) return;
  if (f.read_only()) f.add_hash(0);  // throws the usual logic_error, changes nothing
  std::array<std::uint64_t, chunk_items> xs;
  pipeline(f, items, true, [&](const hashed* h, std::size_t /*first*/, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) xs[i] = h[i].x;
    f.add_hashes(std::span<const std::uint64_t>(xs.data(), count));
  });
}

}  // namespace

void blocked64_bloom_filter::add_many(std::span<const std::string_view> items) {
  add_items(*this, items);
}
void blocked64_bloom_filter::add_many(std::span<const std::string> items) {
  add_items(*this, items);
}
void blocked64_bloom_filter::add_many(std::span<const std::uint64_t> keys) {
  add_items(*this, keys);
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

// --- the rest ----------------------------------------------------------------------

std::vector<std::uint64_t> blocked64_bloom_filter::positions(std::string_view item) const {
  const std::uint64_t x = hash_item(item);
  const std::uint64_t base = block_of(x) * block_bits;
  const std::uint64_t h2 = x * detail::blocked64_mixer;
  std::vector<std::uint64_t> out;
  out.reserve(k_);
  for (std::uint32_t j = 0; j < k_; ++j) out.push_back(base + detail::block_position(h2, j));
  return out;
}

std::vector<bit_probe> blocked64_bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (const std::uint64_t p : positions(item)) out.push_back({0, p, bit(p) ? 1U : 0U});
  return out;
}

void blocked64_bloom_filter::merge(const blocked64_bloom_filter& other) {
  core_.merge(other.core_);
  sync();
}

void blocked64_bloom_filter::intersect(const blocked64_bloom_filter& other) {
  core_.intersect(other.core_);
  sync();
}

filter_stats blocked64_bloom_filter::stats() const {
  filter_stats s = core_.stats();
  s.kind = filter_kind::blocked64;
  return s;
}

blocked64_bloom_filter blocked64_bloom_filter::from_words(std::uint64_t bits, std::uint32_t hashes,
                                                          std::uint64_t seed, std::uint64_t items,
                                                          detail::word_store words) {
  return blocked64_bloom_filter(blocked_bloom_filter::from_words(bits, hashes, hash_kind::xxh3,
                                                                 seed, items, std::move(words)));
}

}  // namespace ringbloom
