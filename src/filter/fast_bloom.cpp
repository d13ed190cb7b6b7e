// The fast filter (see ringbloom/filter/fast_bloom.hpp): its checks, CPU
// check and batch paths. The inline add and lookup live in the header; the
// rest (construction, add, merge, statistics, the loader's checks) is
// detail::hash64_filter's, instantiated here with 512-bit blocks.
#include "ringbloom/filter/fast_bloom.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "hash64_filter_impl.hpp"
#include "ringbloom/error.hpp"

namespace ringbloom {

template class detail::hash64_filter<fast_bloom_filter, 9>;

std::uint32_t fast_bloom_filter::check_hashes(std::uint32_t hashes) {
  if (hashes != 8 && hashes != 16) {
    throw std::invalid_argument(fmt::format(
        "a fast filter sets 8 or 16 bits per item (one or two in each 64-bit word of its "
        "block), not {}; give --hashes 8 or 16, or size it by capacity and rate",
        hashes));
  }
  return hashes;
}

fast_bloom_filter fast_bloom_filter::from_words(std::uint64_t bits, std::uint32_t hashes,
                                                std::uint64_t seed, std::uint64_t items,
                                                detail::word_store words) {
  if (hashes != 8 && hashes != 16) {
    throw data_error(fmt::format(
        "{} sets 8 or 16 bits per item, but it records {}; the data is corrupt", what, hashes));
  }
  return from_words_checked(bits, hashes, seed, items, std::move(words));
}

bool fast_bloom_filter::path_supported(simd_path path) noexcept {
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  return path == simd_path::scalar || (path == simd_path::avx2 && simd_path_supported(path));
#else
  return path == simd_path::scalar;
#endif
}

// --- batches ---------------------------------------------------------------------
//
// The ring pipeline of hash64_batch.hpp (hash an item, prefetch its block,
// set or test the item 64 places behind), with the block code inlined: each
// loop is compiled for its instruction set and flattened, as blocked64's.

namespace {

using hash64_batch::hashed;
constexpr std::size_t block_words = fast_bloom_filter::block_words;
constexpr std::size_t ring = fast_bloom_filter::batch_chunk;

template <class Item, class Test>
[[gnu::always_inline]] inline std::size_t test_items(const fast_bloom_filter& f,
                                                     std::span<const Item> items, bool* out,
                                                     Test test) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  hash64_batch::pipeline_ring<block_words, ring>(
      words, f.blocks(), f.seed(), items, false, [&](const hashed& h, std::size_t i) {
        const bool hit = test(words + h.offset, h.x * detail::blocked64_mixer, k);
        out[i] = hit;
        found += hit ? 1 : 0;
      });
  return found;
}

template <class Item>
std::size_t test_scalar(const fast_bloom_filter& f, std::span<const Item> items, bool* out) {
  return test_items(f, items, out, [](const std::uint64_t* b, std::uint64_t h2, std::uint32_t k) {
    return detail::split_block_test_scalar(b, h2, k);
  });
}

template <class Item>
void set_scalar(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed, std::uint32_t k,
                std::span<const Item> items) {
  hash64_batch::pipeline_ring<block_words, ring>(
      words, blocks, seed, items, true, [&](const hashed& h, std::size_t /*index*/) {
        detail::split_block_set_scalar(words + h.offset, h.x * detail::blocked64_mixer, k);
      });
}

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
// The ring written out here with a step that has AVX2 as its own target:
// through test_items, GCC kept the test's lambda as one call per item
// (callgrind at 1M keys: 76 instructions per batched lookup, against 71
// inline).
template <class Item>
[[gnu::target("avx2"), gnu::flatten]] std::size_t test_avx2(const fast_bloom_filter& f,
                                                            std::span<const Item> items,
                                                            bool* out) {
  const std::uint32_t k = f.hashes();
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  hash64_batch::pipeline_ring<block_words, ring>(
      words, f.blocks(), f.seed(), items,
      false, [&](const hashed& h, std::size_t i) __attribute__((target("avx2"))) {
        const bool hit =
            detail::split_block_test_avx2(words + h.offset, h.x * detail::blocked64_mixer, k);
        out[i] = hit;
        found += hit ? 1 : 0;
      });
  return found;
}

template <class Item>
[[gnu::target("avx2"), gnu::flatten]] void set_avx2(std::uint64_t* words, std::uint64_t blocks,
                                                    std::uint64_t seed, std::uint32_t k,
                                                    std::span<const Item> items) {
  hash64_batch::pipeline_ring<block_words, ring>(
      words, blocks, seed, items,
      true, [&](const hashed& h, std::size_t /*index*/) __attribute__((target("avx2"))) {
        detail::split_block_set_avx2(words + h.offset, h.x * detail::blocked64_mixer, k);
      });
}
#endif

template <class Item>
std::size_t test_many(const fast_bloom_filter& f, std::span<const Item> items,
                      std::span<bool> out) {
  detail::check_answer_span(items.size(), out.size());
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  if (f.simd() != simd_path::scalar) return test_avx2(f, items, out.data());
#endif
  return test_scalar(f, items, out.data());
}

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

void fast_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                                  std::uint32_t k, std::span<const std::string_view> items) {
  set_many(words, blocks, seed, k, items);
}
void fast_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                                  std::uint32_t k, std::span<const std::string> items) {
  set_many(words, blocks, seed, k, items);
}
void fast_bloom_filter::set_items(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed,
                                  std::uint32_t k, std::span<const std::uint64_t> keys) {
  set_many(words, blocks, seed, k, keys);
}

std::size_t fast_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t fast_bloom_filter::may_contain_many(std::span<const std::string> items,
                                                std::span<bool> out) const {
  return test_many(*this, items, out);
}
std::size_t fast_bloom_filter::may_contain_many(std::span<const std::uint64_t> keys,
                                                std::span<bool> out) const {
  return test_many(*this, keys, out);
}

}  // namespace ringbloom
