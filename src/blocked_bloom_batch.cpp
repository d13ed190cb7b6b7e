// The blocked filter's batch operations and its choice of block kernels.
//
// A lookup in a filter larger than the cache is one memory miss (~100 ns)
// and a few ns of work. Done one at a time, the misses are paid one after
// another as far as the CPU's out-of-order window lets them overlap. Here a
// chunk of items is hashed first, each item's block is prefetched as soon as
// its hash is known (the hashing of the following items hides the miss),
// and only then are the blocks probed, by the SIMD kernel of the filter's
// path (ringbloom/detail/simd.hpp), which itself prefetches ahead.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ringbloom/blocked_bloom.hpp"
#include "ringbloom/detail/bloom_hashing.hpp"
#include "ringbloom/detail/simd.hpp"

namespace ringbloom {
namespace {

/// Items hashed per chunk: enough to cover a miss with hashing work (64
/// short keys take ~1 us to hash), few enough that the hashes stay in L1
/// (64 x 16 bytes).
constexpr std::size_t chunk_items = 64;

void check_out_size(std::size_t items, std::size_t out) {
  if (out < items) {
    throw std::invalid_argument(fmt::format(
        "may_contain_many was given {} items but room for only {} answers; pass an output span "
        "with at least one bool per item",
        items, out));
  }
}

}  // namespace

simd_path blocked_bloom_filter::simd() const noexcept { return kernels_->path; }

void blocked_bloom_filter::use_simd_path(simd_path path) {
  if (!simd_path_supported(path)) {
    throw std::invalid_argument(
        fmt::format("this CPU does not support the {} path; choose one for which "
                    "simd_path_supported() is true (the best here is {})",
                    simd_path_name(path), simd_path_name(best_simd_path())));
  }
  kernels_ = &detail::kernels_for(path);
}

void blocked_bloom_filter::add_many(std::span<const hash128> hashes) {
  if (hashes.empty()) return;
  kernels_->add_many(words_.mutable_data(), blocks(), hashes_, hashes.data(), hashes.size());
  items_ += hashes.size();
}

std::size_t blocked_bloom_filter::may_contain_many(std::span<const hash128> hashes,
                                                   std::span<bool> out) const {
  check_out_size(hashes.size(), out.size());
  if (hashes.empty()) return 0;
  return kernels_->test_many(words_.data(), blocks(), hashes_, hashes.data(), hashes.size(),
                             out.data());
}

namespace {

/// Hashes items[first, first + count) into `hashes`, prefetching each
/// item's block (for writing when `write`) as soon as its hash is known.
template <class Item>
void hash_chunk(const blocked_bloom_filter& f, const std::uint64_t* words,
                std::span<const Item> items, std::size_t first, std::size_t count, hash128* hashes,
                bool write) {
  const std::uint64_t blocks = f.blocks();
  for (std::size_t i = 0; i < count; ++i) {
    hashes[i] = f.hash_item(std::string_view(items[first + i]));
    const std::uint64_t* block = words + detail::fastrange64(hashes[i].low, blocks) * 8;
    if (write) {
      __builtin_prefetch(block, 1);
    } else {
      __builtin_prefetch(block, 0);
    }
  }
}

template <class Item>
void add_items(blocked_bloom_filter& f, std::span<const Item> items) {
  std::array<hash128, chunk_items> hashes;
  const std::uint64_t* words = f.words().data();
  for (std::size_t first = 0; first < items.size(); first += chunk_items) {
    const std::size_t count = std::min(chunk_items, items.size() - first);
    hash_chunk(f, words, items, first, count, hashes.data(), true);
    f.add_many(std::span<const hash128>(hashes.data(), count));
  }
}

template <class Item>
std::size_t test_items(const blocked_bloom_filter& f, std::span<const Item> items,
                       std::span<bool> out) {
  check_out_size(items.size(), out.size());
  std::array<hash128, chunk_items> hashes;
  const std::uint64_t* words = f.words().data();
  std::size_t found = 0;
  for (std::size_t first = 0; first < items.size(); first += chunk_items) {
    const std::size_t count = std::min(chunk_items, items.size() - first);
    hash_chunk(f, words, items, first, count, hashes.data(), false);
    found += f.may_contain_many(std::span<const hash128>(hashes.data(), count),
                                out.subspan(first, count));
  }
  return found;
}

}  // namespace

void blocked_bloom_filter::add_many(std::span<const std::string_view> items) {
  if (read_only()) (void)words_.mutable_data();  // throws the usual logic_error
  add_items(*this, items);
}

void blocked_bloom_filter::add_many(std::span<const std::string> items) {
  if (read_only()) (void)words_.mutable_data();
  add_items(*this, items);
}

std::size_t blocked_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                   std::span<bool> out) const {
  return test_items(*this, items, out);
}

std::size_t blocked_bloom_filter::may_contain_many(std::span<const std::string> items,
                                                   std::span<bool> out) const {
  return test_items(*this, items, out);
}

}  // namespace ringbloom
