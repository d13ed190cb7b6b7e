// src/filter/bloom_internal.hpp: checks and bit tricks shared by the filter kinds'
// implementations. Private to the library.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/bloom_core.hpp"  // saturating_add
#include "ringbloom/hash.hpp"

namespace ringbloom::detail {

/// Bits of one blocked-filter block (blocked_bloom_filter::block_bits).
inline constexpr std::uint64_t block_bits = 512;

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free,
              "concurrent adds need lock-free 64-bit atomics");

/// Throws std::invalid_argument unless the common constructor arguments are
/// in range. `what` names the filter ("a classic filter").
void check_filter_args(std::string_view what, std::uint64_t bits, std::uint32_t hashes,
                       std::uint32_t max_hashes, hash_kind hash, std::uint64_t seed);

/// Throws data_error with the same rules (for the file loader).
void check_filter_data(std::string_view what, std::uint64_t bits, std::uint32_t hashes,
                       std::uint32_t max_hashes, hash_kind hash, std::uint64_t seed);

/// For from_words: throws data_error unless `given` == `expected` words
/// ("a classic filter of 100 bits has 2 words, but 3 were given; ...").
/// `what` names the filter, `size` and `unit` its size ("bits", "counters").
void check_word_count(std::string_view what, std::uint64_t size, std::string_view unit,
                      std::size_t expected, std::size_t given);

/// For from_words: throws data_error when any bit at or above `used_bits`
/// of `last_word` is set (nothing to check when used_bits is 0, a full
/// word); `unit` names what is then set beyond the size ("bits").
void check_tail_clear(std::string_view what, std::string_view unit, std::uint64_t last_word,
                      unsigned used_bits);

/// Throws std::invalid_argument with `why` and what to do.
[[noreturn]] void throw_incompatible(std::string_view operation, const std::string& why);

/// Throws std::invalid_argument: may_contain_many has room for only
/// `answers` of its `items` answers.
[[noreturn]] void throw_answer_span_too_small(std::size_t items, std::size_t answers);

/// For may_contain_many: throws unless there is room for `items` answers.
/// Inline, so that the batch loops pay only the comparison.
inline void check_answer_span(std::size_t items, std::size_t answers) {
  if (answers < items) throw_answer_span_too_small(items, answers);
}

/// Number of set bits in words[0..count).
[[nodiscard]] std::uint64_t count_ones(const std::uint64_t* words, std::size_t count) noexcept;

[[nodiscard]] inline std::uint64_t atomic_load(const std::uint64_t& word) noexcept {
  // atomic_ref<const T> arrives only in C++26; the load does not write.
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(word))
      .load(std::memory_order_relaxed);
}

/// The classic batch add on bare words (bloom_batch.cpp): sets the k
/// positions of each item, hashed with xxh3 and `seed` and placed by `rule`,
/// in the m-bit array `words`, as add_many does: positions computed once per
/// item and prefetched a chunk ahead. For the in-place add of a file's words.
void classic_add_xxh3(std::uint64_t* words, std::uint64_t m, std::uint32_t k, std::uint64_t seed,
                      position_rule rule, std::span<const std::string_view> items);

}  // namespace ringbloom::detail
