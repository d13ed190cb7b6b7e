// The blocked (cache-line) Bloom filter.
#include "ringbloom/filter/blocked_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "bloom_internal.hpp"
#include "item_hash.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

static_assert(blocked_bloom_filter::block_bits == detail::block_bits);

namespace {

constexpr std::string_view blocked_what = "a blocked Bloom filter";

std::uint64_t round_up_to_block(std::uint64_t bits) {
  if (bits == 0 || bits > max_filter_bits) return bits;  // refused by the check
  return (bits + detail::block_bits - 1) / detail::block_bits * detail::block_bits;
}

}  // namespace

blocked_bloom_filter::blocked_bloom_filter(std::uint64_t bits, std::uint32_t hashes, hash_kind hash,
                                           std::uint64_t seed)
    : filter_core(round_up_to_block(bits), hashes, hash, seed) {
  detail::check_filter_args(blocked_what, bits_, hashes, max_blocked_hashes, hash, seed);
  words_ = detail::word_store(static_cast<std::size_t>(bits_ / 64));
}

blocked_bloom_filter blocked_bloom_filter::for_capacity(std::uint64_t capacity, double fpr,
                                                        hash_kind hash, std::uint64_t seed) {
  const filter_size size = bloom_math::blocked_size_for(capacity, fpr);
  return blocked_bloom_filter(size.bits, size.hashes, hash, seed);
}

hash128 blocked_bloom_filter::hash_item(std::string_view item) const noexcept {
  return detail::inline_blocked_item_hash(hash_, seed_, item);
}

hash128 blocked_bloom_filter::hash_key(std::uint64_t key) noexcept {
  // Each half: x * C folded (high 64 bits of the 128-bit product XOR the
  // low 64), twice, as in wyhash's "mum" mix. The constants are odd and come
  // from well-known sources: 2^64 / golden ratio (0x9e37...), and splitmix64's
  // two multipliers (Steele, Lea, Flood 2014). A fold of a full 128-bit
  // product makes every input bit reach every output bit; the FPR test in
  // tests/filter/blocked_bloom_test.cpp checks consecutive keys.
  const auto mum = [](std::uint64_t a, std::uint64_t b) {
    const detail::uint128 r = static_cast<detail::uint128>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  const std::uint64_t a = mum(key ^ 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL);
  return {mum(a, 0x94d049bb133111ebULL), mum(a ^ 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL)};
}

bool blocked_bloom_filter::may_contain(std::string_view item) const noexcept {
  return may_contain_hash(detail::inline_blocked_item_hash(hash_, seed_, item));
}

std::uint64_t blocked_bloom_filter::block_of(const hash128& h) const noexcept {
  return detail::fastrange64(h.low, blocks());
}

void blocked_bloom_filter::add_hash(hash128 h) {
  kernels_->add(words_.mutable_data() + block_of(h) * block_words, h.high, hashes_);
  ++items_;
}

void blocked_bloom_filter::add_concurrent(std::string_view item) {
  const hash128 h = hash_item(item);
  std::uint64_t* block = words_.mutable_data() + block_of(h) * block_words;
  const auto mask = detail::block_mask(h.high, hashes_);
  for (std::size_t w = 0; w < block_words; ++w) {
    if (mask[w] != 0) {
      std::atomic_ref<std::uint64_t>(block[w]).fetch_or(mask[w], std::memory_order_relaxed);
    }
  }
  std::atomic_ref<std::uint64_t>(items_).fetch_add(1, std::memory_order_relaxed);
}

bool blocked_bloom_filter::may_contain_hash(hash128 h) const noexcept {
  // One indirect call to the path's kernel: measured faster than an inlined
  // scalar test (docs/performance.md).
  return kernels_->test(words_.data() + block_of(h) * block_words, h.high, hashes_);
}

bool blocked_bloom_filter::may_contain_concurrent(std::string_view item) const {
  const hash128 h = hash_item(item);
  const std::uint64_t* block = words_.data() + block_of(h) * block_words;
  const auto mask = detail::block_mask(h.high, hashes_);
  std::uint64_t missing = 0;
  for (std::size_t w = 0; w < block_words; ++w) {
    if (mask[w] != 0) missing |= mask[w] & ~detail::atomic_load(block[w]);
  }
  return missing == 0;
}

std::vector<std::uint64_t> blocked_bloom_filter::positions(std::string_view item) const {
  const hash128 h = hash_item(item);
  const std::uint64_t base = block_of(h) * block_bits;
  std::vector<std::uint64_t> out;
  out.reserve(hashes_);
  for (std::uint32_t j = 0; j < hashes_; ++j) {
    out.push_back(base + detail::block_position(h.high, j));
  }
  return out;
}

std::vector<bit_probe> blocked_bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (std::uint64_t p : positions(item)) out.push_back({0, p, bit(p) ? 1U : 0U});
  return out;
}

bool blocked_bloom_filter::bit(std::uint64_t position) const noexcept { return bit_at(position); }

bool blocked_bloom_filter::compatible_with(const blocked_bloom_filter& other,
                                           std::string* why) const {
  return same_shape(other, why);
}

void blocked_bloom_filter::merge(const blocked_bloom_filter& other) {
  merge_words(other, std::bit_or<>{});
}

void blocked_bloom_filter::intersect(const blocked_bloom_filter& other) {
  intersect_words(other, std::bit_and<>{});
}

void blocked_bloom_filter::clear() { clear_words(); }

double blocked_bloom_filter::estimated_items() const noexcept {
  // Swamidass-Baldi over the whole array, as if the k bits of an item were
  // spread over all m bits. Each bit lands uniformly in the block, and the
  // block uniformly in the filter, so every one of the m bits is hit by a
  // given bit of an item with probability 1/m as in a classic filter; only the
  // uneven load of the blocks differs, which biases the estimate by about
  // (k - 1) / 1024 relative (under 1% for k <= 11).
  return bloom_math::estimate_items(
      static_cast<double>(bits_), hashes_,
      static_cast<double>(detail::count_ones(words_.data(), words_.size())));
}

filter_stats blocked_bloom_filter::stats() const {
  filter_stats s =
      stats_from(filter_kind::blocked, detail::count_ones(words_.data(), words_.size()));
  // The classic fill^k does not fit the blocked layout; it is replaced by the
  // exact rate for the current bits: a stranger picks a block uniformly and k
  // uniform positions in it, so it passes with probability
  // (ones_in_block / 512)^k in that block.
  const std::uint64_t* w = words_.data();
  const std::uint64_t n_blocks = blocks();
  const double k = static_cast<double>(hashes_);
  double sum = 0.0;
  for (std::uint64_t b = 0; b < n_blocks; ++b) {
    int ones = 0;
    for (std::size_t i = 0; i < block_words; ++i) ones += std::popcount(w[b * block_words + i]);
    if (ones != 0) sum += std::pow(ones / static_cast<double>(block_bits), k);
  }
  s.expected_fpr = sum / static_cast<double>(n_blocks);
  return s;  // stats_from's estimate is estimated_items()
}

blocked_bloom_filter blocked_bloom_filter::from_words(std::uint64_t bits, std::uint32_t hashes,
                                                      hash_kind hash, std::uint64_t seed,
                                                      std::uint64_t items,
                                                      detail::word_store words) {
  detail::check_filter_data(blocked_what, bits, hashes, max_blocked_hashes, hash, seed);
  if (bits % block_bits != 0) {
    throw data_error(fmt::format(
        "a blocked filter's size must be a multiple of 512 bits, but it records {}; the data is "
        "corrupt",
        bits));
  }
  detail::check_word_count("a blocked filter", bits, "bits", static_cast<std::size_t>(bits / 64),
                           words.size());
  blocked_bloom_filter f;
  f.assign(bits, hashes, hash, seed, items, std::move(words));
  return f;
}

void blocked_bloom_filter::load_words(std::uint64_t first, std::span<const unsigned char> bytes) {
  const std::uint64_t size = words().size();
  const std::uint64_t count = bytes.size() / 8;
  if (bytes.size() % 8 != 0 || first > size || count > size - first) {
    throw data_error(fmt::format(
        "{} bytes of words from word {} do not fit a blocked filter of {} words; the data is "
        "corrupt",
        bytes.size(), first, size));
  }
  std::uint64_t* w = words_.mutable_data() + first;
  for (std::uint64_t i = 0; i < count; ++i) w[i] = io::load_le<std::uint64_t>(bytes.data() + 8 * i);
}

bool operator==(const blocked_bloom_filter& a, const blocked_bloom_filter& b) noexcept {
  return a.same_value(b);
}

}  // namespace ringbloom
