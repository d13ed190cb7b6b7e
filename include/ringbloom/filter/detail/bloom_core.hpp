// ringbloom/filter/detail/bloom_core.hpp: what the classic, blocked and counting
// filters have in common.
//
// Internal. filter_core holds a filter's parameters (m bits or counters, k
// hashes, hash, seed), its count of additions and its word array, and the
// operations that do not depend on how an item maps to words: the
// compatibility rule of merge and intersect, word-by-word combination,
// clearing, equality, and the assembly of a loaded filter.
//
// The kinds inherit it privately and re-export its accessors with
// using-declarations, so their public API is what each header documents and
// nothing converts to a filter_core outside them. Their hot paths (add,
// may_contain, the batch and SIMD code) read the members directly, as
// before: no virtual calls, no extra indirection.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {
enum class filter_kind : std::uint8_t;  // bloom.hpp
struct filter_stats;                    // bloom.hpp

/// Which rule places the positions of a classic, counting or scalable
/// filter hashed with xxh3 (bloom.hpp's table). Every new filter uses
/// `mixed`; a filter read from a file of format version 1 or 2 keeps
/// `double_hashing`, by which its bits were set, and is saved again as
/// version 2. The other hashes and kinds have one rule each and ignore it.
enum class position_rule : std::uint8_t {
  mixed = 0,           ///< double hashing, each g_i mixed by splitmix64's finaliser
  double_hashing = 1,  ///< plain double hashing: files before version 3
};

/// "mixed double hashing" or "double hashing (files before version 3)".
[[nodiscard]] std::string_view position_rule_name(position_rule rule) noexcept;
}  // namespace ringbloom

namespace ringbloom::detail {

/// a + b without wrapping (saturating at 2^64 - 1).
[[nodiscard]] constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t s = a + b;
  return s < a ? std::numeric_limits<std::uint64_t>::max() : s;
}

class filter_core {
 public:
  [[nodiscard]] std::uint64_t bits() const noexcept { return bits_; }
  [[nodiscard]] std::uint32_t hashes() const noexcept { return hashes_; }
  [[nodiscard]] hash_kind hash() const noexcept { return hash_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint64_t items_added() const noexcept { return items_; }
  [[nodiscard]] bool read_only() const noexcept { return words_.read_only(); }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_.words(); }
  /// The rule placing xxh3 positions (classic and counting kinds; the
  /// blocked kinds keep the default and never read it).
  [[nodiscard]] position_rule rule() const noexcept { return rule_; }

 protected:
  filter_core() = default;
  /// Parameters only: no words yet (the kind sizes them after its checks).
  filter_core(std::uint64_t bits, std::uint32_t hashes, hash_kind hash, std::uint64_t seed) noexcept
      : bits_(bits), hashes_(hashes), hash_(hash), seed_(seed) {}

  /// Whether both have the same m, k, hash, seed and position rule; when not and `why` is
  /// given, it receives what differs as a sentence.
  [[nodiscard]] bool same_shape(const filter_core& other, std::string* why) const;

  /// Throws std::invalid_argument ("cannot <operation> incompatible filters:
  /// ...") unless same_shape(other).
  void require_same_shape(const filter_core& other, std::string_view operation) const;

  /// Union: after require_same_shape(other, "merge"), word i becomes
  /// op(word i, other's word i) and the counts add (saturating).
  template <class Op>
  void merge_words(const filter_core& other, Op op) {
    require_same_shape(other, "merge");
    combine_words(other, op);
    items_ = saturating_add(items_, other.items_);
  }

  /// Intersection: as merge_words, but the count becomes the smaller one.
  template <class Op>
  void intersect_words(const filter_core& other, Op op) {
    require_same_shape(other, "intersect");
    combine_words(other, op);
    items_ = std::min(items_, other.items_);
  }

  /// All words 0, count 0. std::logic_error for a read-only view.
  void clear_words();

  /// Bit `position` of the word array. Precondition: position < 64 * size.
  [[nodiscard]] bool bit_at(std::uint64_t position) const noexcept {
    return ((words_.data()[position >> 6] >> (position & 63)) & 1) != 0;
  }

  /// A kind's stats given `bits_set` (bits that are 1, or counters that are
  /// not 0): the parameters, count and memory, fill = bits_set / m, and as
  /// for k independent uniform positions (classic and counting kinds)
  /// expected_fpr = fill^k and the Swamidass-Baldi estimate with m and k.
  /// The blocked kind replaces expected_fpr with its own.
  [[nodiscard]] filter_stats stats_from(filter_kind kind, std::uint64_t bits_set) const;

  /// Same parameters, count and words.
  [[nodiscard]] bool same_value(const filter_core& other) const noexcept;

  /// Sets every member; for from_words, after the kind has validated them.
  void assign(std::uint64_t bits, std::uint32_t hashes, hash_kind hash, std::uint64_t seed,
              std::uint64_t items, word_store words,
              position_rule rule = position_rule::mixed) noexcept;

  std::uint64_t bits_ = 0;  ///< m: bits, or counters of a counting filter
  std::uint32_t hashes_ = 0;
  hash_kind hash_ = default_hash;
  std::uint64_t seed_ = 0;
  std::uint64_t items_ = 0;
  word_store words_;
  position_rule rule_ = position_rule::mixed;

 private:
  /// Word i = op(word i, other's word i). std::logic_error for a read-only
  /// view. Precondition: same_shape(other), so the arrays are equally long.
  template <class Op>
  void combine_words(const filter_core& other, Op op) {
    std::uint64_t* w = words_.mutable_data();
    const std::uint64_t* o = other.words_.data();
    for (std::size_t i = 0; i < words_.size(); ++i) w[i] = op(w[i], o[i]);
  }
};

}  // namespace ringbloom::detail
