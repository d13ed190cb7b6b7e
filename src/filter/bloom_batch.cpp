// The classic filter's batch operations (bloom.hpp): with xxh3, hash a
// chunk of items, prefetch every position of every item in it, then set or
// test the bits, so the chunk's k * chunk memory misses overlap instead of
// being paid one item at a time. The positions computed for the prefetch
// are kept and then set or tested: each item is hashed and mixed once.
// Other hashes loop over add / may_contain.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "bloom_internal.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {
namespace {

/// Items per chunk. Each item prefetches k lines (7 for a 1% filter), so 16
/// items put ~100 lines in flight: more than the core's line fill buffers,
/// which is fine: the surplus waits in the L2 queue instead of stalling.
constexpr std::size_t chunk_items = 16;

/// Computes the k positions (by Rule) of each xxh3 item of
/// items[first, first + count) into positions[i * k, (i + 1) * k) and
/// prefetches the word of each. The positions are kept, and used after, for
/// a reason beyond hashing once: a loop whose only effect is prefetching is
/// one the compiler may delete as having no effect (GCC 12 did, which left
/// the classic batch without prefetches).
template <position_rule Rule, bool Write, class Item>
void positions_of_chunk(const std::uint64_t* words, std::uint64_t m, std::uint32_t k,
                        std::uint64_t seed, std::span<const Item> items, std::size_t first,
                        std::size_t count, std::uint64_t* positions) {
  std::size_t n = 0;
  const auto keep = [&](std::uint64_t p) {
    positions[n++] = p;
    __builtin_prefetch(words + (p >> 6), Write ? 1 : 0);
    return true;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const hash128 h = xxh3_128(std::string_view(items[first + i]), seed);
    if constexpr (Rule == position_rule::mixed) {
      detail::mixed_positions_from_hash(h, m, k, keep);
    } else {
      detail::double_hashing_positions_from_hash(h, m, k, keep);
    }
  }
}

/// The positions of one chunk (chunk_items items of up to max_filter_hashes).
using chunk_positions = std::array<std::uint64_t, chunk_items * max_filter_hashes>;

/// Sets the bits of xxh3 items in `words` (m bits, k positions by Rule),
/// chunk by chunk: positions computed once and prefetched, then set, by
/// which time their lines have arrived.
template <position_rule Rule, class Item>
void add_xxh3_items(std::uint64_t* words, std::uint64_t m, std::uint32_t k, std::uint64_t seed,
                    std::span<const Item> items) {
  chunk_positions positions;
  for (std::size_t first = 0; first < items.size(); first += chunk_items) {
    const std::size_t count = std::min(chunk_items, items.size() - first);
    positions_of_chunk<Rule, true>(words, m, k, seed, items, first, count, positions.data());
    for (std::size_t j = 0; j < count * k; ++j) {
      words[positions[j] >> 6] |= std::uint64_t{1} << (positions[j] & 63);
    }
  }
}

/// may_contain for each xxh3 item into out[i] (the same rule and chunks as
/// add_xxh3_items; each item's test stops at its first bit that is 0).
/// Returns how many are true.
template <position_rule Rule, class Item>
std::size_t test_xxh3_items(const std::uint64_t* words, std::uint64_t m, std::uint32_t k,
                            std::uint64_t seed, std::span<const Item> items, std::span<bool> out) {
  chunk_positions positions;
  std::size_t found = 0;
  for (std::size_t first = 0; first < items.size(); first += chunk_items) {
    const std::size_t count = std::min(chunk_items, items.size() - first);
    positions_of_chunk<Rule, false>(words, m, k, seed, items, first, count, positions.data());
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t* p = positions.data() + i * k;
      bool hit = true;
      for (std::uint32_t j = 0; j < k && hit; ++j)
        hit = ((words[p[j] >> 6] >> (p[j] & 63)) & 1) != 0;
      out[first + i] = hit;
      found += hit ? 1 : 0;
    }
  }
  return found;
}

}  // namespace

template <class Item>
void bloom_filter::add_items(std::span<const Item> items) {
  if (hash_ != hash_kind::xxh3) {
    for (const auto& item : items) add(item);
    return;
  }
  std::uint64_t* w = words_.mutable_data();  // a read-only view throws here
  if (rule_ == position_rule::mixed) {
    add_xxh3_items<position_rule::mixed>(w, bits_, hashes_, seed_, items);
  } else {
    add_xxh3_items<position_rule::double_hashing>(w, bits_, hashes_, seed_, items);
  }
  items_ += items.size();
}

void detail::classic_add_xxh3(std::uint64_t* words, std::uint64_t m, std::uint32_t k,
                              std::uint64_t seed, position_rule rule,
                              std::span<const std::string_view> items) {
  if (rule == position_rule::mixed) {
    add_xxh3_items<position_rule::mixed>(words, m, k, seed, items);
  } else {
    add_xxh3_items<position_rule::double_hashing>(words, m, k, seed, items);
  }
}

void bloom_filter::add_many(std::span<const std::string_view> items) { add_items(items); }

void bloom_filter::add_many(std::span<const std::string> items) { add_items(items); }

template <class Item>
std::size_t bloom_filter::test_items(std::span<const Item> items, std::span<bool> out) const {
  detail::check_answer_span(items.size(), out.size());
  if (hash_ != hash_kind::xxh3) {
    std::size_t found = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      out[i] = may_contain(items[i]);
      found += out[i] ? 1 : 0;
    }
    return found;
  }
  const std::uint64_t* w = words_.data();
  return rule_ == position_rule::mixed
             ? test_xxh3_items<position_rule::mixed>(w, bits_, hashes_, seed_, items, out)
             : test_xxh3_items<position_rule::double_hashing>(w, bits_, hashes_, seed_, items, out);
}

std::size_t bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                           std::span<bool> out) const {
  return test_items(items, out);
}

std::size_t bloom_filter::may_contain_many(std::span<const std::string> items,
                                           std::span<bool> out) const {
  return test_items(items, out);
}

}  // namespace ringbloom
