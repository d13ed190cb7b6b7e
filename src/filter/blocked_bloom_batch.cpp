// The blocked filter's batch operations and its choice of block kernels.
//
// A lookup in a filter larger than the cache is one memory miss (~100 ns)
// and a few ns of work. Done one at a time, the misses are paid one after
// another as far as the CPU's out-of-order window lets them overlap. Here
// items are hashed a chunk at a time, each item's block is prefetched as
// soon as its hash is known, and a chunk is probed (by the SIMD kernel of
// the filter's path, ringbloom/filter/detail/simd.hpp) only after the next chunk
// has been hashed, so the hashing hides the misses.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bloom_internal.hpp"
#include "item_hash.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/simd.hpp"

namespace ringbloom {
namespace {

/// Items hashed per chunk: hashing 32 short keys (~100 ns) covers about one
/// memory latency, and two chunks (64 misses) in flight are as many as the
/// core's L2 miss queue holds; the hashes (2 x 32 x 16 bytes) stay in L1.
constexpr std::size_t chunk_items = 32;

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
  detail::check_answer_span(hashes.size(), out.size());
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
    hashes[i] =
        detail::inline_blocked_item_hash(f.hash(), f.seed(), std::string_view(items[first + i]));
    const std::uint64_t* block = words + detail::fastrange64(hashes[i].low, blocks) * 8;
    if (write) {
      __builtin_prefetch(block, 1);
    } else {
      __builtin_prefetch(block, 0);
    }
  }
}

/// The pipeline both batch forms share: hash chunk c (prefetching each
/// block as its hash is known), then probe chunk c - 1, whose blocks have had
/// the time of hashing a whole chunk (~32 x 3 ns, about one memory latency)
/// to arrive. So about two chunks of misses are always in flight.
/// probe(hashes, first, count) handles items [first, first + count).
template <class Item, class Probe>
void pipeline(const blocked_bloom_filter& f, std::span<const Item> items, bool write,
              Probe&& probe) {
  std::array<std::array<hash128, chunk_items>, 2> hashes;
  const std::uint64_t* words = f.words().data();
  std::size_t previous_first = 0;
  std::size_t previous_count = 0;
  std::size_t c = 0;
  for (std::size_t first = 0; first < items.size(); first += chunk_items, ++c) {
    const std::size_t count = std::min(chunk_items, items.size() - first);
    hash_chunk(f, words, items, first, count, hashes[c & 1].data(), write);
    if (previous_count > 0) probe(hashes[(c - 1) & 1].data(), previous_first, previous_count);
    previous_first = first;
    previous_count = count;
  }
  if (previous_count > 0) probe(hashes[(c - 1) & 1].data(), previous_first, previous_count);
}

template <class Item>
void add_items(blocked_bloom_filter& f, std::span<const Item> items) {
  pipeline(f, items, true, [&](const hash128* hashes, std::size_t /*first*/, std::size_t count) {
    f.add_many(std::span<const hash128>(hashes, count));
  });
}

template <class Item>
std::size_t test_items(const blocked_bloom_filter& f, std::span<const Item> items,
                       std::span<bool> out) {
  detail::check_answer_span(items.size(), out.size());
  std::size_t found = 0;
  pipeline(f, items, false, [&](const hash128* hashes, std::size_t first, std::size_t count) {
    found += f.may_contain_many(std::span<const hash128>(hashes, count), out.subspan(first, count));
  });
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
