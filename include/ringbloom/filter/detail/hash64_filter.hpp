// ringbloom/filter/detail/hash64_filter.hpp: what the Bloom filters placed by
// one 64-bit item hash (blocked64, blocked1024, fast) have in common.
//
// Internal. hash64_filter<Derived, LogBlockBits> is everything of such a
// filter but its block test: the item hash (XXH3-64, or one multiply-mix for
// integer keys: detail/blocked64_probe.hpp), the block (fastrange of the
// hash over the blocks of 2^LogBlockBits bits), the in-block hash h2 = x *
// blocked64_mixer and the positions block_position_in<LogBlockBits>(h2, j),
// the scalar add, sizing, SIMD path choice, merge, statistics and the
// loader's checks. The kinds derive from it (CRTP) and add their inline
// lookup, may_contain_hash, and their batch paths; each states its rule in
// its own header, and the golden files pin both.
//
// A Derived provides:
//   static constexpr filter_kind kind;          // its code in files and stats
//   static constexpr std::string_view what;     // "a blocked64 Bloom filter"
//   static bool path_supported(simd_path);      // which block tests this CPU runs
//   static constexpr std::size_t batch_chunk;   // items per batch chunk (what measured best)
//   static void set_block(std::uint64_t* block, std::uint64_t h2, std::uint32_t k);
//                                               // sets bits block_position_in<L>(h2, j), j < k
//                                               // (add calls set_block(..., k, simd()) when the
//                                               // kind has that overload: blocked64)
//   bool may_contain_hash(std::uint64_t x) const noexcept;
// and optionally, for a split block (the fast kind: one bit of each round
// per 64-bit word):
//   static constexpr std::uint32_t block_parts;  // parts of a block, each given
//                                               // k / block_parts of an item's bits
//   static std::uint32_t block_position(std::uint64_t h2, std::uint32_t j);
//                                               // bit j's position in the block,
//                                               // in place of block_position_in<L>
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"  // simd_path
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_core.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom::detail {

template <class Derived, unsigned LogBlockBits>
class hash64_filter : protected filter_core {
 public:
  static constexpr std::uint64_t block_bits = std::uint64_t{1} << LogBlockBits;
  static constexpr std::size_t block_words = block_bits / 64;

  /// Sizing in the user's units: bloom_math with blocks of block_bits.
  [[nodiscard]] static filter_size size_for(std::uint64_t capacity, double fpr) {
    return bloom_math::blocked_size_for(capacity, fpr, block_bits, parts());
  }
  [[nodiscard]] static double fpr_for(std::uint64_t items, std::uint64_t bits,
                                      std::uint32_t hashes) noexcept {
    return bloom_math::blocked_fpr(static_cast<double>(items), bits, hashes, block_bits, parts());
  }
  /// The parts of a block (Derived::block_parts, else 1: the whole block).
  [[nodiscard]] static constexpr std::uint32_t parts() noexcept {
    if constexpr (requires { Derived::block_parts; }) {
      return Derived::block_parts;
    } else {
      return 1;
    }
  }
  /// Bit j's position (0 .. block_bits - 1) in the block of in-block hash h2.
  [[nodiscard]] static std::uint32_t position_in_block(std::uint64_t h2, std::uint32_t j) noexcept {
    if constexpr (requires { Derived::block_position(h2, j); }) {
      return Derived::block_position(h2, j);
    } else {
      return block_position_in<LogBlockBits>(h2, j);
    }
  }
  /// An empty filter sized by size_for. Throws std::invalid_argument as that
  /// does.
  [[nodiscard]] static Derived for_capacity(std::uint64_t capacity, double fpr,
                                            std::uint64_t seed = 0) {
    const filter_size size = size_for(capacity, fpr);
    return Derived(size.bits, size.hashes, seed);
  }

  /// The 64-bit hash an item (or integer key) is placed by.
  [[nodiscard]] std::uint64_t hash_item(std::string_view item) const noexcept {
    return blocked64_item_hash(item, seed_);
  }
  [[nodiscard]] std::uint64_t hash_key(std::uint64_t key) const noexcept {
    return blocked64_key_hash(key, seed_);
  }

  /// Sets the item's k bits. std::logic_error for a read-only (mapped)
  /// filter, which is then unchanged.
  void add(std::string_view item) { add_hash(hash_item(item)); }
  void add(std::uint64_t key) { add_hash(hash_key(key)); }
  void add_hash(std::uint64_t x) {
    if (words_.read_only()) [[unlikely]]
      (void)words_.mutable_data();  // throws the read-only view's logic_error
    // data_ is the owned words here (sync keeps it): no call per add.
    std::uint64_t* block = const_cast<std::uint64_t*>(data_) + block_of(x) * block_words;
    if constexpr (requires { Derived::set_block(block, x, hashes_, path_); }) {
      Derived::set_block(block, x * blocked64_mixer, hashes_, path_);  // picks its add by path_
    } else {
      Derived::set_block(block, x * blocked64_mixer, hashes_);
    }
    ++items_;
  }
  /// add_hash for each of `xs`.
  void add_hashes(std::span<const std::uint64_t> xs) {
    for (const std::uint64_t x : xs) add_hash(x);
  }
  /// add for many items (keys): each hashed once and its block prefetched a
  /// chunk of Derived::batch_chunk items ahead of the write; the same bits as
  /// add for each. std::logic_error for a read-only filter (unchanged).
  void add_many(std::span<const std::string_view> items);
  void add_many(std::span<const std::string> items);
  void add_many(std::span<const std::uint64_t> keys);

  /// One lookup, inline (the kind's may_contain_hash).
  [[nodiscard]] bool may_contain(std::string_view item) const noexcept {
    return self().may_contain_hash(hash_item(item));
  }
  [[nodiscard]] bool may_contain(std::uint64_t key) const noexcept {
    return self().may_contain_hash(hash_key(key));
  }

  /// The block test in use, the best the CPU has unless use_simd_path forced
  /// one (tests, benchmarks); use_simd_path throws std::invalid_argument when
  /// the CPU lacks it. Not part of the value.
  [[nodiscard]] simd_path simd() const noexcept { return path_; }
  void use_simd_path(simd_path path);

  /// The block of a hash; an item's k global bit positions (block *
  /// block_bits + p_j, in probe order); --explain; one bit.
  [[nodiscard]] std::uint64_t block_of(std::uint64_t x) const noexcept {
    return fastrange64(x, blocks_);
  }
  [[nodiscard]] std::vector<std::uint64_t> positions(std::string_view item) const;
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;
  [[nodiscard]] bool bit(std::uint64_t position) const noexcept { return bit_at(position); }

  /// Union / intersection with a filter of the same kind, m, k and seed;
  /// std::invalid_argument (filter unchanged) otherwise.
  void merge(const Derived& other);
  void intersect(const Derived& other);
  [[nodiscard]] bool compatible_with(const Derived& other, std::string* why = nullptr) const {
    return same_shape(other, why);
  }
  void clear() { clear_words(); }

  using filter_core::bits;
  using filter_core::hash;  // always xxh3
  using filter_core::hashes;
  using filter_core::items_added;
  using filter_core::read_only;
  using filter_core::seed;
  using filter_core::words;
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  /// Swamidass-Baldi over the whole array, as the blocked kind's (the uneven
  /// load of the blocks biases it by about (k - 1) / (2 block_bits) relative).
  [[nodiscard]] double estimated_items() const noexcept;
  /// expected_fpr is exact for the current bits: the average over blocks of
  /// (ones in the block / block_bits)^k.
  [[nodiscard]] filter_stats stats() const;

  friend bool operator==(const hash64_filter& a, const hash64_filter& b) noexcept {
    return a.same_value(b);
  }

 protected:
  hash64_filter() = default;
  /// An empty filter of at least `bits` bits (whole blocks) and `hashes`
  /// bits per item. Throws std::invalid_argument unless 1 <= bits <=
  /// max_filter_bits and 1 <= hashes <= 16.
  hash64_filter(std::uint64_t bits, std::uint32_t hashes, std::uint64_t seed);
  hash64_filter(const hash64_filter& other);
  hash64_filter(hash64_filter&& other) noexcept;
  hash64_filter& operator=(const hash64_filter& other);
  hash64_filter& operator=(hash64_filter&& other) noexcept;
  ~hash64_filter() = default;

  /// For the file loader: requires bits a multiple of block_bits, 1 <=
  /// hashes <= 16 and words.size() == bits / 64; throws data_error otherwise.
  [[nodiscard]] static Derived from_words_checked(std::uint64_t bits, std::uint32_t hashes,
                                                  std::uint64_t seed, std::uint64_t items,
                                                  word_store words);

  /// Refreshes the hot-path copies below (after a copy, move, load or merge).
  void sync() noexcept;

  // Hot-path copies: the lookup reads these, hashes_ and seed_.
  const std::uint64_t* data_ = nullptr;
  std::uint64_t blocks_ = 0;
  simd_path path_ = simd_path::scalar;
  // blocked64_lane_mask(hashes_) when the path is avx512 and k <= 8 (the
  // one-round test of blocked64, one branch on the hot path), else 0.
  std::uint32_t avx512_lanes_ = 0;

 private:
  template <class Item>
  void add_all(std::span<const Item> items);
  [[nodiscard]] const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
  [[nodiscard]] static simd_path best_path() noexcept;
};

}  // namespace ringbloom::detail
