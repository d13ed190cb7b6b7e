// The counting Bloom filter: 4-bit saturating counters.
#include "ringbloom/filter/counting_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>

#include "bloom_internal.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {

namespace {

constexpr std::string_view counting_what = "a counting Bloom filter";
constexpr std::uint64_t nibble_mask = 0xf;
constexpr std::uint64_t low_bits_of_nibbles = 0x1111111111111111ULL;

std::size_t counting_words(std::uint64_t counters) {
  return static_cast<std::size_t>((counters + 15) / 16);
}

unsigned shift_of(std::uint64_t p) { return static_cast<unsigned>((p & 15) * 4); }

std::uint32_t get_counter(const std::uint64_t* w, std::uint64_t p) {
  return static_cast<std::uint32_t>((w[p >> 4] >> shift_of(p)) & nibble_mask);
}

/// Non-zero nibbles of a word.
std::uint64_t nonzero_nibbles(std::uint64_t x) {
  x |= x >> 1;
  x |= x >> 2;
  return static_cast<std::uint64_t>(std::popcount(x & low_bits_of_nibbles));
}

}  // namespace

counting_bloom_filter::counting_bloom_filter(std::uint64_t counters, std::uint32_t hashes,
                                             hash_kind hash, std::uint64_t seed)
    : filter_core(counters, hashes, hash, seed) {
  detail::check_filter_args(counting_what, counters, hashes, max_filter_hashes, hash, seed);
  words_ = detail::word_store(counting_words(counters));
}

counting_bloom_filter counting_bloom_filter::for_capacity(std::uint64_t capacity, double fpr,
                                                          hash_kind hash, std::uint64_t seed) {
  const filter_size size = bloom_math::classic_size_for(capacity, fpr);
  return counting_bloom_filter(size.bits, size.hashes, hash, seed);
}

void counting_bloom_filter::add(std::string_view item) {
  std::uint64_t* w = words_.mutable_data();
  detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [w](std::uint64_t p) {
    if (get_counter(w, p) < counter_max) w[p >> 4] += std::uint64_t{1} << shift_of(p);
    return true;
  });
  ++items_;
}

void counting_bloom_filter::add_concurrent(std::string_view item) {
  std::uint64_t* w = words_.mutable_data();
  detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [w](std::uint64_t p) {
    std::atomic_ref<std::uint64_t> word(w[p >> 4]);
    const unsigned sh = shift_of(p);
    std::uint64_t old = word.load(std::memory_order_relaxed);
    while (((old >> sh) & nibble_mask) < counter_max &&
           !word.compare_exchange_weak(old, old + (std::uint64_t{1} << sh),
                                       std::memory_order_relaxed)) {
    }
    return true;
  });
  std::atomic_ref<std::uint64_t>(items_).fetch_add(1, std::memory_order_relaxed);
}

void counting_bloom_filter::remove(std::string_view item) {
  std::vector<std::uint64_t> ps = positions(item);
  std::sort(ps.begin(), ps.end());
  const std::uint64_t* r = words_.data();
  // Check everything first so that a refusal leaves the filter unchanged.
  for (std::size_t i = 0; i < ps.size();) {
    std::size_t j = i;
    while (j < ps.size() && ps[j] == ps[i]) ++j;
    const std::uint32_t c = get_counter(r, ps[i]);
    if (c != counter_max && c < j - i) {
      throw std::invalid_argument(fmt::format(
          "cannot remove '{}': it is not in the filter (its counter at position {} is {}); "
          "remove only items that were added",
          item, ps[i], c));
    }
    i = j;
  }
  std::uint64_t* w = words_.mutable_data();
  for (std::uint64_t p : ps) {
    // A saturated counter's true count is unknown; decrementing it could
    // reach 0 while other items still rely on it (a false negative).
    if (get_counter(w, p) != counter_max) w[p >> 4] -= std::uint64_t{1} << shift_of(p);
  }
  if (items_ > 0) --items_;
}

bool counting_bloom_filter::may_contain(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item,
                                   [w](std::uint64_t p) { return get_counter(w, p) != 0; });
}

bool counting_bloom_filter::may_contain_concurrent(std::string_view item) const {
  const std::uint64_t* w = words_.data();
  return detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [w](std::uint64_t p) {
    return ((detail::atomic_load(w[p >> 4]) >> shift_of(p)) & nibble_mask) != 0;
  });
}

std::vector<std::uint64_t> counting_bloom_filter::positions(std::string_view item) const {
  std::vector<std::uint64_t> out;
  out.reserve(hashes_);
  detail::classic_positions(hash_, seed_, bits_, hashes_, rule_, item, [&out](std::uint64_t p) {
    out.push_back(p);
    return true;
  });
  return out;
}

std::vector<bit_probe> counting_bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (std::uint64_t p : positions(item)) out.push_back({0, p, counter(p)});
  return out;
}

std::uint32_t counting_bloom_filter::counter(std::uint64_t position) const noexcept {
  return get_counter(words_.data(), position);
}

bool counting_bloom_filter::compatible_with(const counting_bloom_filter& other,
                                            std::string* why) const {
  return same_shape(other, why);
}

void counting_bloom_filter::merge(const counting_bloom_filter& other) {
  // Counter by counter: the sum, saturating at 15.
  merge_words(other, [](std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    for (unsigned sh = 0; sh < 64; sh += 4) {
      const std::uint64_t sum = ((a >> sh) & nibble_mask) + ((b >> sh) & nibble_mask);
      out |= std::min<std::uint64_t>(sum, counter_max) << sh;
    }
    return out;
  });
}

void counting_bloom_filter::intersect(const counting_bloom_filter& other) {
  // Counter by counter: the smaller.
  intersect_words(other, [](std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    for (unsigned sh = 0; sh < 64; sh += 4) {
      out |= std::min((a >> sh) & nibble_mask, (b >> sh) & nibble_mask) << sh;
    }
    return out;
  });
}

void counting_bloom_filter::clear() { clear_words(); }

std::uint64_t counting_bloom_filter::saturated_counters() const noexcept {
  std::uint64_t n = 0;
  const std::uint64_t* w = words_.data();
  for (std::size_t i = 0; i < words_.size(); ++i) {
    // A nibble is 15 exactly when all four of its bits are set.
    std::uint64_t x = w[i] & (w[i] >> 1);
    x &= x >> 2;
    n += static_cast<std::uint64_t>(std::popcount(x & low_bits_of_nibbles));
  }
  return n;
}

double counting_bloom_filter::estimated_items() const noexcept { return stats().estimated_items; }

filter_stats counting_bloom_filter::stats() const {
  std::uint64_t nonzero = 0;
  const std::uint64_t* w = words_.data();
  for (std::size_t i = 0; i < words_.size(); ++i) nonzero += nonzero_nibbles(w[i]);
  return stats_from(filter_kind::counting, nonzero);
}

counting_bloom_filter counting_bloom_filter::from_words(std::uint64_t counters,
                                                        std::uint32_t hashes, hash_kind hash,
                                                        std::uint64_t seed, std::uint64_t items,
                                                        detail::word_store words,
                                                        position_rule rule) {
  detail::check_filter_data(counting_what, counters, hashes, max_filter_hashes, hash, seed);
  detail::check_word_count("a counting filter", counters, "counters", counting_words(counters),
                           words.size());
  detail::check_tail_clear("a counting filter", "counters", words.data()[words.size() - 1],
                           static_cast<unsigned>(counters % 16 * counter_bits));
  counting_bloom_filter f;
  f.assign(counters, hashes, hash, seed, items, std::move(words), rule);
  return f;
}

bool operator==(const counting_bloom_filter& a, const counting_bloom_filter& b) noexcept {
  return a.same_value(b);
}

}  // namespace ringbloom
