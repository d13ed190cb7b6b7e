// The out-of-line members of detail::hash64_filter (see
// ringbloom/filter/detail/hash64_filter.hpp). Internal to src/filter: each
// kind's .cpp includes this file and instantiates its own base, e.g.
//
//   template class detail::hash64_filter<blocked64_bloom_filter, 9>;
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/hash64_filter.hpp"

namespace ringbloom::detail {

template <class Derived, unsigned L>
simd_path hash64_filter<Derived, L>::best_path() noexcept {
  for (const simd_path p : {simd_path::avx512, simd_path::avx2}) {
    if (Derived::path_supported(p)) return p;
  }
  return simd_path::scalar;
}

template <class Derived, unsigned L>
hash64_filter<Derived, L>::hash64_filter(std::uint64_t bits, std::uint32_t hashes,
                                         std::uint64_t seed)
    : filter_core(bits == 0 || bits > max_filter_bits
                      ? bits  // refused by the check below
                      : (bits + block_bits - 1) / block_bits * block_bits,
                  hashes, hash_kind::xxh3, seed),
      path_(best_path()) {
  check_filter_args(Derived::what, bits_, hashes, max_blocked_hashes, hash_kind::xxh3, seed);
  words_ = word_store(static_cast<std::size_t>(bits_ / 64));
  sync();
}

template <class Derived, unsigned L>
hash64_filter<Derived, L>::hash64_filter(const hash64_filter& other)
    : filter_core(other), path_(other.path_) {
  sync();
}

template <class Derived, unsigned L>
hash64_filter<Derived, L>::hash64_filter(hash64_filter&& other) noexcept
    : filter_core(std::move(other)), path_(other.path_) {
  sync();
  other.sync();
}

template <class Derived, unsigned L>
hash64_filter<Derived, L>& hash64_filter<Derived, L>::operator=(const hash64_filter& other) {
  if (this != &other) {
    filter_core::operator=(other);
    path_ = other.path_;
    sync();
  }
  return *this;
}

template <class Derived, unsigned L>
hash64_filter<Derived, L>& hash64_filter<Derived, L>::operator=(hash64_filter&& other) noexcept {
  if (this != &other) {
    filter_core::operator=(std::move(other));
    path_ = other.path_;
    sync();
    other.sync();
  }
  return *this;
}

template <class Derived, unsigned L>
void hash64_filter<Derived, L>::sync() noexcept {
  data_ = words_.data();
  blocks_ = bits_ / block_bits;
  avx512_lanes_ = path_ == simd_path::avx512 && hashes_ <= 8 ? blocked64_lane_mask(hashes_) : 0;
}

template <class Derived, unsigned L>
void hash64_filter<Derived, L>::use_simd_path(simd_path path) {
  if (!Derived::path_supported(path)) {
    throw std::invalid_argument(fmt::format(
        "this CPU does not support the {} path; choose one for which simd_path_supported() is "
        "true",
        simd_path_name(path)));
  }
  path_ = path;
  sync();
}

template <class Derived, unsigned L>
template <class Item>
void hash64_filter<Derived, L>::add_all(std::span<const Item> items) {
  if (items.empty()) return;
  // mutable_data: std::logic_error when read-only, before anything changes.
  hash64_batch::set_all<Derived, Derived::batch_chunk>(words_.mutable_data(), blocks_, seed_,
                                                       hashes_, items);
  items_ = saturating_add(items_, items.size());
}

template <class Derived, unsigned L>
void hash64_filter<Derived, L>::add_many(std::span<const std::string_view> items) {
  add_all(items);
}
template <class Derived, unsigned L>
void hash64_filter<Derived, L>::add_many(std::span<const std::string> items) {
  add_all(items);
}
template <class Derived, unsigned L>
void hash64_filter<Derived, L>::add_many(std::span<const std::uint64_t> keys) {
  add_all(keys);
}

template <class Derived, unsigned L>
std::vector<std::uint64_t> hash64_filter<Derived, L>::positions(std::string_view item) const {
  const std::uint64_t x = hash_item(item);
  const std::uint64_t base = block_of(x) * block_bits;
  const std::uint64_t h2 = x * blocked64_mixer;
  std::vector<std::uint64_t> out;
  out.reserve(hashes_);
  for (std::uint32_t j = 0; j < hashes_; ++j) out.push_back(base + position_in_block(h2, j));
  return out;
}

template <class Derived, unsigned L>
std::vector<bit_probe> hash64_filter<Derived, L>::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (const std::uint64_t p : positions(item)) out.push_back({0, p, bit(p) ? 1U : 0U});
  return out;
}

template <class Derived, unsigned L>
void hash64_filter<Derived, L>::merge(const Derived& other) {
  merge_words(other, std::bit_or<>{});
  sync();
}

template <class Derived, unsigned L>
void hash64_filter<Derived, L>::intersect(const Derived& other) {
  intersect_words(other, std::bit_and<>{});
  sync();
}

template <class Derived, unsigned L>
double hash64_filter<Derived, L>::estimated_items() const noexcept {
  return bloom_math::estimate_items(static_cast<double>(bits_), hashes_,
                                    static_cast<double>(count_ones(words_.data(), words_.size())));
}

template <class Derived, unsigned L>
filter_stats hash64_filter<Derived, L>::stats() const {
  filter_stats s = stats_from(Derived::kind, count_ones(words_.data(), words_.size()));
  // A stranger picks a block uniformly and k uniform positions in it: it
  // passes with probability (ones in the block / block_bits)^k there; in a
  // split block, k / parts positions in each part: the product over the
  // parts of (ones in the part / part bits)^(k / parts).
  const std::uint64_t* w = words_.data();
  constexpr std::size_t part_words = block_words / parts();
  constexpr double part_bits = 64.0 * part_words;
  const double k = static_cast<double>(hashes_ / parts());
  double sum = 0.0;
  for (std::uint64_t b = 0; b < blocks_; ++b) {
    double pass = 1.0;
    for (std::size_t part = 0; part < parts() && pass != 0.0; ++part) {
      int ones = 0;
      for (std::size_t i = 0; i < part_words; ++i) {
        ones += std::popcount(w[b * block_words + part * part_words + i]);
      }
      pass *= ones == 0 ? 0.0 : std::pow(ones / part_bits, k);
    }
    sum += pass;
  }
  s.expected_fpr = blocks_ == 0 ? 0.0 : sum / static_cast<double>(blocks_);
  return s;
}

template <class Derived, unsigned L>
Derived hash64_filter<Derived, L>::from_words_checked(std::uint64_t bits, std::uint32_t hashes,
                                                      std::uint64_t seed, std::uint64_t items,
                                                      word_store words) {
  check_filter_data(Derived::what, bits, hashes, max_blocked_hashes, hash_kind::xxh3, seed);
  if (bits % block_bits != 0) {
    throw data_error(
        fmt::format("{}'s size must be a multiple of {} bits, but it records {}; the data is "
                    "corrupt",
                    Derived::what, block_bits, bits));
  }
  check_word_count(Derived::what, bits, "bits", static_cast<std::size_t>(bits / 64), words.size());
  Derived f;
  f.assign(bits, hashes, hash_kind::xxh3, seed, items, std::move(words));
  f.path_ = best_path();
  f.sync();
  return f;
}

}  // namespace ringbloom::detail
