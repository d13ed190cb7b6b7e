// ringbloom/filter/fuse_filter.hpp: static binary fuse filters (fuse8,
// fuse16, and the smaller 4-wise fuse8-4wise) for sets that never change once
// written, such as a filter per SSTable.
//
// What it is: a binary fuse filter (Graf and Lemire, "Binary Fuse Filters:
// Fast and Smaller Than Xor Filters", ACM JEA 27, 2022) stores one
// fingerprint of F bits per slot in an array built from the whole key set at
// once, such that for every key x
//
//     fingerprint(x) == A[h0(x)] ^ A[h1(x)] ^ ... ^ A[h(k-1)(x)],
//
// where the k = Arity slots fall in k consecutive segments of the array. A
// lookup reads k slots and compares; a key never added matches with
// probability 2^-F whatever the arity.
//
//   kind          arity  F   slots per key (large n)  bits per key  rate
//   fuse8         3      8   1.125                    about 9.0     0.39%
//   fuse16        3      16  1.125                    about 18.1    0.0015%
//   fuse8-4wise   4      8   1.075                    about 8.6     0.39%
//
// A Bloom filter needs 10 bits per key for 1%.
//
// When to use it: the key set is known in full before the first lookup and
// never changes. Adding to a built filter is an error (add() throws and says
// to rebuild from the whole set, or to use a Bloom filter). Use
// blocked_bloom_filter for sets that grow. Between the static kinds:
// fuse8-4wise (fuse8_4wise_filter) is about 4.5% smaller than fuse8 at the
// same rate and pays with a fourth memory read per lookup (measured up to
// about 8% slower than fuse8, as fast as fastfilter_cpp's 3-wise filter) and a
// build that takes 1.1-1.25x as long (docs/performance.md); choose it when
// the bytes matter most, fuse8 otherwise, fuse16 for a rate 256 times lower.
//
// Construction: build() hashes every key, then peels (fuse_filter.cpp): a
// few linear passes over the keys and the slots, about 23 bytes of memory per
// key beside the key hashes and the result (13 per slot, 9 per key), and
// 30-60 ns per key. A try fails when the keys' slots do not peel; it is
// retried with the next build seed. For distinct keys that is rare: from
// 10^5 keys on, the first try succeeded for every random key set tried (up to
// 10^7 keys, both arities), and sets of 10 to 10^4 keys needed 1.0-1.3 tries
// on average, at most 4. Equal keys make every try fail, so after a first
// failure the keys are deduplicated. After 1000 failed tries build() throws
// std::runtime_error, which distinct keys never reach.
//
// Guarantees: no false negatives for any key that was in the build set
// (duplicates are allowed and counted once); the false-positive rate of
// never-added keys is 2^-F up to sampling (tests/filter/fuse_filter_test.cpp
// checks it within 10% of the formula). build() is deterministic for a given
// key set and seed. The segment and size rules follow the paper and Graf and
// Lemire's reference code (fastfilter_cpp) for arity 3 and 4; the hashing
// (XXH3-64 of the item, then the build seed mixed in) is ringbloom's.
//
// Files: filter_file.hpp saves, loads and memory-maps fuse filters as the
// kinds fuse8, fuse16 and fuse8-4wise of the filter file format
// (docs/format.md); a mapped filter reads its fingerprints from the page
// cache (from_parts with a keepalive), without a copy.
//
// Example:
//
//   #include <ringbloom/filter/fuse_filter.hpp>
//   std::vector<std::string_view> keys = {"anna", "bora"};
//   auto f = ringbloom::fuse8_filter::build(keys);   // or fuse8_4wise_filter
//   f.may_contain("anna");   // true
//   f.may_contain("cem");    // false, except with probability 1/256
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace ringbloom {

/// Fingerprint: std::uint8_t or std::uint16_t. Arity: the slots per key, 3
/// (the paper's main variant) or 4 (smaller, one more read per lookup).
template <class Fingerprint, unsigned Arity = 3>
class binary_fuse_filter {
 public:
  static_assert(sizeof(Fingerprint) == 1 || sizeof(Fingerprint) == 2,
                "fuse filters have 8- or 16-bit fingerprints");
  static_assert(Arity == 3 || Arity == 4, "fuse filters have 3 or 4 slots per key");
  using fingerprint_type = Fingerprint;
  static constexpr unsigned fingerprint_bits = 8 * sizeof(Fingerprint);
  static constexpr unsigned arity = Arity;

  /// The filter of `items` (duplicates allowed). `seed` selects the item
  /// hash (XXH3-64 with that seed). Throws std::length_error for more than
  /// 2^32 items, std::runtime_error if no construction succeeds (it needs
  /// a few tries at most; 1000 are made).
  [[nodiscard]] static binary_fuse_filter build(std::span<const std::string_view> items,
                                                std::uint64_t seed = 0);

  /// The same from 64-bit key hashes (for example item_hash of each item).
  [[nodiscard]] static binary_fuse_filter build_from_hashes(std::span<const std::uint64_t> hashes,
                                                            std::uint64_t seed = 0);

  /// The 64-bit hash an item is known by: XXH3-64 of the item with the seed.
  [[nodiscard]] std::uint64_t item_hash(std::string_view item) const noexcept {
    return key_hash(item, seed_);
  }
  /// The same without a filter: what build() hashes each item to, so a
  /// caller can stream items and keep only their hashes (build_from_hashes).
  [[nodiscard]] static std::uint64_t key_hash(std::string_view item, std::uint64_t seed) noexcept;

  /// The parameters of a built filter, as a file stores them.
  struct parts {
    std::uint64_t seed = 0;        ///< the item hash's seed
    std::uint64_t build_seed = 0;  ///< mixed into each key hash
    std::uint64_t items = 0;
    std::uint32_t segment_length = 0;
    std::span<const Fingerprint> fingerprints;
  };
  /// A filter from stored parts. With `keepalive`, the fingerprints are not
  /// copied: the filter reads them where they are (a mapping) and keeps
  /// `keepalive` alive; without, they are copied. Throws
  /// std::invalid_argument naming the field when the geometry is not one a
  /// lookup can trust: the segment length a power of two in 4..2^18, the
  /// slots a multiple of it, at least Arity segments and below 2^32, at most
  /// 2^32 items and no more items than slots. Every lookup then stays inside
  /// the array.
  [[nodiscard]] static binary_fuse_filter from_parts(const parts& p,
                                                     std::shared_ptr<const void> keepalive = {});
  [[nodiscard]] parts to_parts() const noexcept {
    return {seed_, build_seed_, items_, segment_length_, fingerprints_};
  }
  /// True when the fingerprints are a view into memory the filter does not
  /// own (a mapped file).
  [[nodiscard]] bool is_view() const noexcept { return owner_ == nullptr; }

  [[nodiscard]] bool may_contain(std::string_view item) const noexcept {
    return may_contain_hash(item_hash(item));
  }
  [[nodiscard]] bool may_contain_hash(std::uint64_t key_hash) const noexcept {
    const std::uint64_t h = mixed(key_hash);  // spread() in both calls is one multiply
    const slot_array s = slots_of(h);
    const Fingerprint* a = fingerprints_.data();
    if constexpr (Arity == 4) {
      return static_cast<Fingerprint>(a[s[0]] ^ a[s[1]] ^ a[s[2]] ^ a[s[3]]) == fingerprint_of(h);
    } else {
      return static_cast<Fingerprint>(a[s[0]] ^ a[s[1]] ^ a[s[2]]) == fingerprint_of(h);
    }
  }

  /// Always throws std::logic_error: a fuse filter cannot take a key after
  /// it is built.
  [[noreturn]] void add(std::string_view item);

  /// The item's Arity slots, in order h0, h1, ...
  [[nodiscard]] std::array<std::uint64_t, Arity> slots_of_item(
      std::string_view item) const noexcept {
    const slot_array s = slots_of(mixed(item_hash(item)));
    std::array<std::uint64_t, Arity> out{};
    std::copy(s.begin(), s.end(), out.begin());
    return out;
  }
  [[nodiscard]] std::uint64_t build_seed() const noexcept { return build_seed_; }

  /// Same parameters and fingerprints.
  friend bool operator==(const binary_fuse_filter& a, const binary_fuse_filter& b) noexcept {
    return a.seed_ == b.seed_ && a.build_seed_ == b.build_seed_ && a.items_ == b.items_ &&
           a.segment_length_ == b.segment_length_ &&
           a.segment_count_length_ == b.segment_count_length_ &&
           std::equal(a.fingerprints_.begin(), a.fingerprints_.end(), b.fingerprints_.begin(),
                      b.fingerprints_.end());
  }

  [[nodiscard]] std::uint64_t items() const noexcept { return items_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::uint64_t slots() const noexcept { return fingerprints_.size(); }
  [[nodiscard]] std::uint32_t segment_length() const noexcept { return segment_length_; }
  [[nodiscard]] double bits_per_item() const noexcept;
  /// 2^-F: the rate at which a key never added is reported present.
  [[nodiscard]] static constexpr double expected_fpr() noexcept {
    return 1.0 / static_cast<double>(std::uint64_t{1} << fingerprint_bits);
  }
  [[nodiscard]] std::span<const Fingerprint> fingerprints() const noexcept { return fingerprints_; }

 private:
  binary_fuse_filter() = default;
  using slot_array = std::array<std::uint32_t, Arity>;
  __extension__ using uint128 = unsigned __int128;

  /// What slots and fingerprint are made of: the 64 bits h, and for arity 4
  /// 18 more bits (extra) for the fourth slot.
  struct spread_hash {
    std::uint64_t h;
    std::uint64_t extra;
  };
  /// Arity 3: h is the mixed hash itself. Arity 4: the 128-bit product of the
  /// mixed hash and MurmurHash3's second finaliser constant, h its low half
  /// and extra its high half. The one multiply both finishes the mix and
  /// gives the fourth slot bits of its own: h has no 18 bits that h0, h1 and
  /// h2 do not already use, and h0's position within its segment is made of
  /// h's top bits, so reusing those would tie h3 to h0.
  [[nodiscard]] static spread_hash spread(std::uint64_t m) noexcept {
    if constexpr (Arity == 4) {
      const uint128 p = static_cast<uint128>(m) * 0xc4ceb9fe1a85ec53ULL;
      return {static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(p >> 64)};
    } else {
      return {m, 0};
    }
  }
  /// h0 anywhere in the first segment_count segments (Lemire's
  /// multiply-shift range reduction, from the top bits of h), each next slot
  /// in the next segment, at a position scrambled within it by other bits:
  /// bits 18.. of h for h1, bits 0.. of h for h2, bits 0.. of extra for h3 (at
  /// most 18 of each: L <= 2^18).
  [[nodiscard]] slot_array slots_of(std::uint64_t m) const noexcept {
    const spread_hash x = spread(m);
    const auto h0 =
        static_cast<std::uint32_t>((static_cast<uint128>(x.h) * segment_count_length_) >> 64);
    std::uint32_t h1 = h0 + segment_length_;
    std::uint32_t h2 = h1 + segment_length_;
    if constexpr (Arity == 4) {
      const std::uint32_t h3 =
          (h2 + segment_length_) ^ (static_cast<std::uint32_t>(x.extra) & segment_mask_);
      h1 ^= static_cast<std::uint32_t>(x.h >> 18) & segment_mask_;
      h2 ^= static_cast<std::uint32_t>(x.h) & segment_mask_;
      return {h0, h1, h2, h3};
    } else {
      h1 ^= static_cast<std::uint32_t>(x.h >> 18) & segment_mask_;
      h2 ^= static_cast<std::uint32_t>(x.h) & segment_mask_;
      return {h0, h1, h2};
    }
  }
  /// The key hash with the build seed mixed in, by a bijection, so distinct
  /// key hashes stay distinct for every build seed.
  ///
  /// Arity 3: MurmurHash3's 64-bit finaliser (Appleby) of key_hash + build
  /// seed. Arity 4: key_hash ^ build seed times the finaliser's first
  /// constant, one xor-shift, and (in spread) a multiply by its second: two
  /// multiplies as the finaliser has, one xor-shift where it has three, and
  /// the fourth slot's bits from the same multiply. A shorter chain is what
  /// makes the fourth read affordable: with the full finaliser and a multiply
  /// of its own for the fourth slot, a 4-wise lookup took 1.2-1.3x as long as
  /// a 3-wise one at 10^5-10^6 keys; with this mix, within 5% of it
  /// (docs/performance.md). Sequential, 256-spaced and 2^32-spaced key hashes
  /// still build at the first or second try (tests/filter/fuse_filter_test.cpp).
  [[nodiscard]] std::uint64_t mixed(std::uint64_t key_hash) const noexcept {
    if constexpr (Arity == 4) {
      const std::uint64_t q = (key_hash ^ build_seed_) * 0xff51afd7ed558ccdULL;
      return q ^ (q >> 32);
    }
    std::uint64_t h = key_hash + build_seed_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
  }
  /// Bits 0.. of h ^ (h >> 32), h of spread(m).
  [[nodiscard]] static Fingerprint fingerprint_of(std::uint64_t m) noexcept {
    const std::uint64_t h = spread(m).h;
    return static_cast<Fingerprint>(h ^ (h >> 32));
  }

  void size_for(std::uint64_t n);
  bool try_build(std::span<const std::uint64_t> keys, std::vector<Fingerprint>& out);
  void mixed_by_segment(std::span<const std::uint64_t> keys, std::vector<std::uint64_t>& out) const;

  std::uint64_t seed_ = 0;        // the item hash's seed
  std::uint64_t build_seed_ = 0;  // mixed into each key hash; changed on a failed try
  std::uint64_t items_ = 0;
  std::uint32_t segment_length_ = 0;
  std::uint32_t segment_mask_ = 0;
  std::uint32_t segment_count_length_ = 0;
  std::uint64_t slot_count_ = 0;  // size_for's result, before the array exists
  // The fingerprints: a view into *owner_ (built or copied; shared by copies,
  // which is safe because a built filter never changes) or into memory kept
  // alive by keepalive_ (a mapping).
  std::span<const Fingerprint> fingerprints_;
  std::shared_ptr<const std::vector<Fingerprint>> owner_;
  std::shared_ptr<const void> keepalive_;
};

using fuse8_filter = binary_fuse_filter<std::uint8_t>;
using fuse16_filter = binary_fuse_filter<std::uint16_t>;
/// The 4-wise variant with 8-bit fingerprints: about 8.6 bits per key.
using fuse8_4wise_filter = binary_fuse_filter<std::uint8_t, 4>;

extern template class binary_fuse_filter<std::uint8_t>;
extern template class binary_fuse_filter<std::uint16_t>;
extern template class binary_fuse_filter<std::uint8_t, 4>;

}  // namespace ringbloom
