// The batch pipeline of the filters placed by one 64-bit item hash
// (blocked64, blocked1024, fast): internal to src/filter.
//
// One pass hashes a chunk of items and prefetches each item's block as soon
// as its hash is known; the previous chunk, whose blocks have had the time
// of that hashing to arrive, is then handed to `step`, which tests or sets
// them. Each item is hashed once and each block line prefetched once. The
// kinds differ only in their block size and chunk length (what measured
// best for each: blocked64_bloom.cpp and blocked1024_bloom.cpp say why).
//
// Example (a lookup over a chunk; see the two users):
//
//   hash64_batch::pipeline<8, 64>(words, blocks, seed, items, false,
//       [&](const hash64_batch::hashed* h, std::size_t first, std::size_t count) { ... });
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom::hash64_batch {

/// The item's 64-bit hash (blocked64_item_hash for strings, blocked64_key_hash
/// for integer keys), with the seed passed in a register: read from the
/// filter, it would be reloaded after every store into the chunk.
template <class Item>
[[gnu::always_inline]] inline std::uint64_t hash_of(const Item& item, std::uint64_t seed) noexcept {
  if constexpr (std::is_same_v<Item, std::uint64_t>) {
    return detail::blocked64_key_hash(item, seed);
  } else {
    return detail::blocked64_item_hash(std::string_view(item), seed);
  }
}

/// The filter size above which pipeline_ring prefetches into L2, not L1
/// (see there): half the 32 MiB L3 of the machine it was measured on, between
/// the sizes where L1 measured better (up to 12.5 MB) and where L2 did (from
/// 37.5 MB).
inline constexpr std::uint64_t prefetch_to_l2_bytes = std::uint64_t{16} << 20;

/// One hashed item of a chunk: the offset of its block's first word, and its
/// hash.
struct hashed {
  std::uint64_t offset;
  std::uint64_t x;
};

/// Runs the pipeline over `items` with blocks of `BlockWords` words in
/// `words` (`blocks` of them) and chunks of `ChunkItems`;
/// step(const hashed*, first item of the chunk, count) for each chunk.
/// `write` prefetches for writing.
template <std::size_t BlockWords, std::size_t ChunkItems, class Item, class Step>
[[gnu::always_inline]] inline void pipeline(const std::uint64_t* words, std::uint64_t blocks,
                                            std::uint64_t seed, std::span<const Item> items,
                                            bool write, Step&& step) {
  std::array<std::array<hashed, ChunkItems>, 2> chunks;
  std::size_t previous_first = 0;
  std::size_t previous_count = 0;
  std::size_t c = 0;
  for (std::size_t first = 0; first < items.size(); first += ChunkItems, ++c) {
    const std::size_t count = std::min(ChunkItems, items.size() - first);
    hashed* h = chunks[c & 1].data();
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t x = hash_of(items[first + i], seed);
      h[i] = {detail::fastrange64(x, blocks) * BlockWords, x};
      const std::uint64_t* block = words + h[i].offset;
      for (std::size_t line = 0; line < BlockWords; line += 8) {
        if (write) {
          __builtin_prefetch(block + line, 1);
        } else {
          __builtin_prefetch(block + line, 0);
        }
      }
    }
    if (previous_count > 0) step(chunks[(c - 1) & 1].data(), previous_first, previous_count);
    previous_first = first;
    previous_count = count;
  }
  if (previous_count > 0) step(chunks[(c - 1) & 1].data(), previous_first, previous_count);
}

/// The same work item by item: a ring of `Ring` hashed items (a power of
/// two), whose block lines were prefetched when they were hashed. Step i
/// takes item i - Ring out of its slot (step(hashed, index)), then hashes item
/// i into that slot and prefetches its block. Hashing (arithmetic) and the
/// test or set of an item whose line has arrived (memory) are interleaved, so
/// the CPU overlaps them; with whole chunks, a run of Ring stores to lines
/// still arriving stalled the in-order store commit with no arithmetic left to
/// overlap (inserts at 10M keys took about twice as long as Boost.Bloom's bulk
/// insert, which interleaves the same way).
///
/// Where the prefetch puts the line depends on the filter's size: above
/// prefetch_to_l2_bytes, into L2 only (prefetcht1, a read even for a write),
/// else into L1 (prefetcht0, with the write hint when writing). A prefetch into L1
/// holds one of the core's few L1 miss buffers until its line arrives, so
/// when the lines come from DRAM those buffers, not the ring, bound the
/// misses in flight. Measured (fast kind, 16-byte keys, batches of 1,024,
/// AMD EPYC guest with a 1 MiB L2 and 32 MiB L3, alternating rounds, time
/// per item of the L1 prefetch / the L2 one): 100M keys (125 MB) about 2.0x
/// for both inserts and lookups, where rings of 16 to 128 items all took the
/// same time (so did Boost.Bloom's bulk path, which prefetches into L1); 30M
/// keys (37.5 MB) 1.2-1.4x; 10M (12.5 MB, held by L3) within noise either
/// way; 3M and 1M 0.85-0.95x (the lookup then waits on L2).
template <std::size_t BlockWords, std::size_t Ring, class Item, class Step>
[[gnu::always_inline]] inline void pipeline_ring(const std::uint64_t* words, std::uint64_t blocks,
                                                 std::uint64_t seed, std::span<const Item> items,
                                                 bool write, Step&& step) {
  static_assert(Ring > 0 && (Ring & (Ring - 1)) == 0, "the ring is a power of two");
  // One loop with a branch on a constant, not one loop per prefetch: with
  // three copies GCC no longer inlined blocked64's AVX2 add into its
  // flattened batch (one call per item).
  const bool to_l2 = blocks * BlockWords * sizeof(std::uint64_t) > prefetch_to_l2_bytes;
  std::array<hashed, Ring> ring;
  const auto load = [&](std::size_t i) {
    const std::uint64_t x = hash_of(items[i], seed);
    hashed& h = ring[i & (Ring - 1)];
    h = {detail::fastrange64(x, blocks) * BlockWords, x};
    const std::uint64_t* block = words + h.offset;
    for (std::size_t line = 0; line < BlockWords; line += 8) {
      if (to_l2) {
        __builtin_prefetch(block + line, 0, 2);
      } else if (write) {
        __builtin_prefetch(block + line, 1);
      } else {
        __builtin_prefetch(block + line, 0);
      }
    }
  };
  const std::size_t n = items.size();
  const std::size_t fill = std::min(Ring, n);
  for (std::size_t i = 0; i < fill; ++i) load(i);
  for (std::size_t i = fill; i < n; ++i) {
    step(ring[i & (Ring - 1)], i - Ring);
    load(i);
  }
  for (std::size_t i = n - fill; i < n; ++i) step(ring[i & (Ring - 1)], i);
}

/// Sets the bits of every item in `words` (`blocks` blocks of Filter) with
/// set(block, h2, k), which sets bits block_position(h2, j), j < k, of one
/// block, in chunks of ChunkItems.
template <class Filter, std::size_t ChunkItems, class Item, class Set>
[[gnu::always_inline]] inline void set_all_with(std::uint64_t* words, std::uint64_t blocks,
                                                std::uint64_t seed, std::uint32_t k,
                                                std::span<const Item> items, Set&& set) {
  if constexpr ((ChunkItems & (ChunkItems - 1)) == 0) {
    pipeline_ring<Filter::block_words, ChunkItems>(
        words, blocks, seed, items, true, [&](const hashed& h, std::size_t /*index*/) {
          set(words + h.offset, h.x * detail::blocked64_mixer, k);
        });
  } else {  // blocked1024's chunk of 40 (what measured best for it) keeps whole chunks
    pipeline<Filter::block_words, ChunkItems>(
        words, blocks, seed, items, true,
        [&](const hashed* h, std::size_t /*first*/, std::size_t count) {
          for (std::size_t i = 0; i < count; ++i) {
            set(words + h[i].offset, h[i].x * detail::blocked64_mixer, k);
          }
        });
  }
}

/// add_many's work, and the in-place add to a filter's words inside a file:
/// Filter::set_items when the kind has one (blocked64: it picks its add by
/// the CPU), else set_all_with Filter::set_block.
template <class Filter, std::size_t ChunkItems, class Item>
void set_all(std::uint64_t* words, std::uint64_t blocks, std::uint64_t seed, std::uint32_t k,
             std::span<const Item> items) {
  if constexpr (requires { Filter::set_items(words, blocks, seed, k, items); }) {
    Filter::set_items(words, blocks, seed, k, items);
  } else {
    set_all_with<Filter, ChunkItems>(
        words, blocks, seed, k, items,
        [](std::uint64_t* block, std::uint64_t h2, std::uint32_t hashes) {
          Filter::set_block(block, h2, hashes);
        });
  }
}

}  // namespace ringbloom::hash64_batch
