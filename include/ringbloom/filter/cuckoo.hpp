// ringbloom/filter/cuckoo.hpp: the cuckoo filter (Fan, Andersen, Kaminsky and
// Mitzenmacher, CoNEXT 2014), a filter that can delete, growing by
// sub-filters as RedisBloom's CF.* does.
//
// What: buckets of `bucket_size` slots (1 to 255, as RedisBloom's BUCKETSIZE;
// 2 is RedisBloom's default, 4 fills to a higher load factor; a lookup reads
// 2 b slots, so larger buckets cost lookups time and rate), each slot a fingerprint of
// `fingerprint_bits` bits (8, 12 or 16; 0 means empty). An item with hash h
// has fingerprint f = 1 + (h >> 32) mod (2^bits - 1) and two candidate
// buckets, i1 = h mod n and i2 = i1 xor (f x 0x5bd1e995) mod n (partial-key
// cuckoo hashing; the constant is MurmurHash2's, as RedisBloom's
// getAltHash). n, the bucket count, is a power of two, so i2's alternate is
// i1 again and a fingerprint can move between its two buckets without the
// item. Insertion puts f in a free slot of either bucket, or evicts a
// resident fingerprint to its alternate bucket, up to max_kicks times.
//
// Growth (RedisBloom src/cuckoo.c): the first sub-filter has
// nextpow2(capacity / bucket_size) buckets; when an insertion fails, the
// kicks are undone and, if expansion > 0, a new sub-filter of expansion^i
// times the first size is added (expansion rounded up to a power of two) and
// the item goes there. Lookups check every sub-filter. With expansion 0 a
// full filter refuses the insertion (add returns false).
//
// False positives: a lookup compares f with the occupied slots of 2 buckets
// per sub-filter; each matches with probability 1 / (2^bits - 1), so the rate
// is about 1 - (1 - 1 / (2^bits - 1))^(2 b alpha) for load factor alpha (Fan
// et al. 2014, section 4); expected_fpr computes it.
//
// Deletion: remove(x) removes one copy of x's fingerprint from x's buckets.
// Remove only items that were added: removing an item never added either
// finds nothing (returns false, nothing changes) or, when its fingerprint
// collides with a stored item's (the false-positive case), removes that
// item's copy, which then reads as absent. This is inherent to every cuckoo
// filter (Fan et al. 2014, section 3.3). Adding an item twice stores two
// copies (as CF.ADD); add_if_absent (CF.ADDNX) does not.
//
// Example:
//
//   ringbloom::cuckoo_filter sessions(1'000'000);   // bucket 2, 8-bit fingerprints
//   sessions.add("s-17");
//   sessions.may_contain("s-17");                   // true
//   sessions.remove("s-17");                        // true; now absent
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom {

class cuckoo_filter {
 public:
  /// Creation parameters; defaults are RedisBloom's CF.RESERVE defaults
  /// (bucket size 2, 20 iterations, expansion 1) with its 8-bit fingerprints.
  struct options {
    std::uint32_t bucket_size = 2;       ///< 1 to max_bucket_size
    std::uint32_t fingerprint_bits = 8;  ///< 8, 12 or 16
    std::uint32_t max_kicks = 20;        ///< 1..65535 evictions per insertion
    std::uint32_t expansion = 1;         ///< 0 (never grow) .. 32768, rounded up to a power of 2
    std::uint64_t seed = 0;              ///< xxh3 seed
  };
  static constexpr std::uint32_t max_bucket_size = 255;  ///< RedisBloom's largest BUCKETSIZE
  static constexpr std::uint32_t max_sub_filters = 64;
  static constexpr std::uint64_t max_buckets = std::uint64_t{1} << 40;

  /// One sub-filter: `buckets` buckets, slots packed at `fingerprint_bits`
  /// bits each (slot s of bucket i at bit (i b + s) bits), little-endian.
  struct sub_filter {
    std::uint64_t buckets = 0;
    hooked_vector<std::uint8_t> bytes;  // ceil(buckets b bits / 8) + slack_bytes() zero bytes
    friend bool operator==(const sub_filter&, const sub_filter&) = default;
  };

  /// Zero bytes kept after a sub-filter's last slot: none for 8- and 16-bit
  /// fingerprints (read and written at their own width, so an array of
  /// 1 MiB stays in the allocator's 1 MiB size class), 7 for 12-bit ones
  /// (read as 4- or 8-byte words).
  [[nodiscard]] static constexpr std::size_t slack_bytes(const options& o) noexcept {
    return o.fingerprint_bits % 8 == 0 ? 0 : 7;
  }

  /// Throws std::invalid_argument naming the valid values unless capacity
  /// >= 1 and every option is in range.
  explicit cuckoo_filter(std::uint64_t capacity, options opts);
  explicit cuckoo_filter(std::uint64_t capacity) : cuckoo_filter(capacity, options{}) {}

  /// Stores the item's fingerprint; false only when the filter is full and
  /// may not grow (expansion 0 or 64 sub-filters). Before a growth step
  /// allocates its sub-filter, the memory is checked (io::require_memory):
  /// a growth this process cannot hold throws io::memory_error naming the
  /// sub-filter and its size, with the item not added and the filter unchanged.
  bool add(std::string_view item);
  /// Adds unless the item may already be present; true when added (CF.ADDNX).
  bool add_if_absent(std::string_view item);
  /// Removes one copy; false when no copy of its fingerprint was found. See
  /// "Deletion" above for items never added.
  bool remove(std::string_view item);
  /// false: certainly never added (or removed); true: probably present.
  [[nodiscard]] bool may_contain(std::string_view item) const noexcept;
  /// Copies of the item's fingerprint in its buckets (CF.COUNT; may count
  /// colliding items).
  [[nodiscard]] std::uint64_t count(std::string_view item) const noexcept;
  /// may_contain for many items; answers[i] for items[i]. Prefetches the
  /// buckets of a batch before comparing, for filters larger than the cache.
  void may_contain_many(std::span<const std::string_view> items, std::span<bool> answers) const;

  [[nodiscard]] std::uint64_t items() const noexcept { return items_; }
  [[nodiscard]] std::uint64_t deletes() const noexcept { return deletes_; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] const options& settings() const noexcept { return options_; }
  [[nodiscard]] std::span<const sub_filter> sub_filters() const noexcept { return subs_; }
  /// Total slots over all sub-filters.
  [[nodiscard]] std::uint64_t slots() const noexcept;
  /// items / slots.
  [[nodiscard]] double load_factor() const noexcept;
  /// Bytes of fingerprint storage.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

  // --- sizing, before anything is allocated ---------------------------------
  // The growth rule's arithmetic, for front ends that refuse a filter or a
  // growth this process has no memory for (the CLI's create and add, the
  // Redis module's byte limit) without building it first.

  /// Buckets of sub-filter `index` (0: the first) of a filter made with
  /// (capacity, opts): nextpow2(capacity / bucket_size), times expansion^index
  /// with expansion rounded up to a power of two; saturates at UINT64_MAX.
  /// The options are not checked (bucket_size must be at least 1).
  [[nodiscard]] static std::uint64_t sub_filter_buckets(std::uint64_t capacity, const options& opts,
                                                        std::size_t index) noexcept;
  /// Packed bytes of the slots of a sub-filter of `buckets` buckets:
  /// ceil(buckets x bucket_size x fingerprint_bits / 8) (memory_bytes() adds
  /// slack_bytes() to each).
  [[nodiscard]] static std::uint64_t sub_filter_bytes(std::uint64_t buckets,
                                                      const options& opts) noexcept;
  /// The memory_bytes() of a new filter of (capacity, opts), without making
  /// it. Throws std::invalid_argument as the constructor does.
  [[nodiscard]] static std::uint64_t planned_memory_bytes(std::uint64_t capacity,
                                                          const options& opts);
  /// The memory_bytes() this filter has after `more` items are added, when
  /// each sub-filter fills before the next is added: the growth `more`
  /// items cause at least (a filter may grow a little before every slot is
  /// taken). Counts no growth beyond where add stops growing (expansion 0,
  /// max_sub_filters, max_buckets).
  ///
  ///   cuckoo_filter f(1000);                    // 512 buckets of 2 slots
  ///   f.memory_bytes_after(1024) == f.memory_bytes();
  ///   f.memory_bytes_after(1025) > f.memory_bytes();   // a second sub-filter
  [[nodiscard]] std::uint64_t memory_bytes_after(std::uint64_t more) const noexcept;

  /// The false-positive rate the formula predicts for a load factor (see above).
  [[nodiscard]] static double expected_fpr(std::uint32_t bucket_size,
                                           std::uint32_t fingerprint_bits,
                                           double load_factor) noexcept;

  /// A filter from saved state; throws data_error unless the sub-filters
  /// have the sizes the growth rule gives, their slack bytes are zero and
  /// the number of stored fingerprints equals `items`.
  [[nodiscard]] static cuckoo_filter from_state(std::uint64_t capacity, options opts,
                                                std::uint64_t items, std::uint64_t deletes,
                                                std::vector<sub_filter> subs);

  friend bool operator==(const cuckoo_filter& a, const cuckoo_filter& b) noexcept {
    return a.capacity_ == b.capacity_ && a.items_ == b.items_ && a.deletes_ == b.deletes_ &&
           a.options_.bucket_size == b.options_.bucket_size &&
           a.options_.fingerprint_bits == b.options_.fingerprint_bits &&
           a.options_.max_kicks == b.options_.max_kicks &&
           a.options_.expansion == b.options_.expansion && a.options_.seed == b.options_.seed &&
           a.subs_ == b.subs_;
  }

 private:
  struct key {
    std::uint64_t hash;
    std::uint32_t fingerprint;
  };
  [[nodiscard]] key key_of(std::string_view item) const noexcept;
  [[nodiscard]] std::uint64_t buckets_of(std::size_t sub) const noexcept;
  [[nodiscard]] std::uint32_t slot(const sub_filter& s, std::uint64_t bucket,
                                   std::uint32_t i) const noexcept;
  void set_slot(sub_filter& s, std::uint64_t bucket, std::uint32_t i, std::uint32_t fp) noexcept;
  bool put_in_free_slot(sub_filter& s, std::uint64_t bucket, std::uint32_t fp) noexcept;
  bool insert_with_kicks(sub_filter& s, key k);
  bool add_with_kicks(key k);   // add's end, once no free slot was found
  bool add_other_shape(key k);  // add and remove for shapes other than 8-bit buckets of 2
  bool remove_other_shape(key k);
  bool grow();
  void add_sub_filter();

  std::uint64_t capacity_;
  options options_;
  std::uint64_t base_buckets_;
  std::uint64_t items_ = 0;
  std::uint64_t deletes_ = 0;
  hooked_vector<sub_filter> subs_;
};

/// A read-only cuckoo filter over sub-filters that live elsewhere: the slot
/// bytes of a memory-mapped cuckoo filter file (open_cuckoo_mapped, below).
/// may_contain, count and may_contain_many read the buckets in place, without
/// a copy, and answer exactly as a cuckoo_filter with the same slots.
/// `keepalive` keeps their storage (the mapping) alive as long as the view
/// and its copies.
class cuckoo_view {
 public:
  /// One sub-filter: `buckets` buckets packed as in cuckoo_filter::sub_filter
  /// at `bytes`, followed by at least 7 readable bytes (a bucket is read as
  /// one 8-byte load; in a file, padding, the next sub-filter or the
  /// checksum trailer).
  struct sub_view {
    std::uint64_t buckets = 0;
    const unsigned char* bytes = nullptr;
  };

  /// Checks what cuckoo_filter::from_state checks, without allocating the
  /// slots: std::invalid_argument for options the filter refuses,
  /// data_error unless the sub-filters have the sizes the growth rule gives
  /// and hold exactly `items` fingerprints (one pass over the slots).
  [[nodiscard]] static cuckoo_view from_state(std::uint64_t capacity, cuckoo_filter::options opts,
                                              std::uint64_t items, std::uint64_t deletes,
                                              std::vector<sub_view> subs,
                                              std::shared_ptr<const void> keepalive = {});

  [[nodiscard]] bool may_contain(std::string_view item) const noexcept;
  [[nodiscard]] std::uint64_t count(std::string_view item) const noexcept;
  void may_contain_many(std::span<const std::string_view> items, std::span<bool> answers) const;

  [[nodiscard]] std::uint64_t items() const noexcept { return items_; }
  [[nodiscard]] std::uint64_t deletes() const noexcept { return deletes_; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] const cuckoo_filter::options& settings() const noexcept { return options_; }
  [[nodiscard]] std::span<const sub_view> sub_filters() const noexcept { return subs_; }
  [[nodiscard]] std::uint64_t slots() const noexcept;
  [[nodiscard]] double load_factor() const noexcept;
  /// The bytes a loaded cuckoo_filter holds for these slots (its
  /// memory_bytes(): the slots and slack_bytes() per sub-filter).
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;
  /// A writable filter with a copy of the slots.
  [[nodiscard]] cuckoo_filter copy() const;

 private:
  cuckoo_view() = default;
  std::uint64_t capacity_ = 0;
  cuckoo_filter::options options_;
  std::uint64_t items_ = 0;
  std::uint64_t deletes_ = 0;
  std::vector<sub_view> subs_;
  std::shared_ptr<const void> keepalive_;
};

// --- cuckoo filter files (docs/format.md, "Cuckoo filter file format") ---------
//
// Magic "\x89RBC\r\n\x1a\n", the family's envelope (io/format.hpp): a
// 64-byte header with the options, capacity, items and deletes, then each
// sub-filter's packed slots, 64-byte aligned, and an XXH3-64 checksum.
// Loading checks every field and that the slots hold exactly `items`
// fingerprints; a bad file throws data_error and nothing is answered from it.

inline constexpr std::uint16_t cuckoo_format_version = 1;

[[nodiscard]] std::string serialize_cuckoo(const cuckoo_filter& filter);
[[nodiscard]] cuckoo_filter deserialize_cuckoo(std::string_view bytes);
/// Atomic save (io::write_file_atomic). Throws io_error.
void save_cuckoo(const std::filesystem::path& path, const cuckoo_filter& filter);
/// Throws io_error, data_error (naming the file).
[[nodiscard]] cuckoo_filter load_cuckoo(const std::filesystem::path& path);
/// Opens a file read-only through mmap (io/mapped_file.hpp): verified as
/// load_cuckoo verifies it (the checksum reads the whole mapping once, the
/// fingerprint count reads every slot once), then lookups read only the
/// buckets they probe. Replacing the file with save_cuckoo or
/// update_cuckoo_file (a rename) does not disturb the view; truncating it in
/// place while mapped makes a later lookup raise SIGBUS (never done by
/// ringbloom). Throws io_error, data_error (naming the file).
[[nodiscard]] cuckoo_view open_cuckoo_mapped(const std::filesystem::path& path);
/// What open_cuckoo_mapped does once the bytes are there: checks them as
/// deserialize_cuckoo does and returns a view into `bytes`, which must stay
/// valid and unchanged while the view lives (`keepalive` may own them).
/// Throws data_error.
[[nodiscard]] cuckoo_view view_cuckoo(std::string_view bytes,
                                      std::shared_ptr<const void> keepalive = {});
/// Load, change, save under an exclusive lock (io::update_file_locked).
void update_cuckoo_file(const std::filesystem::path& path,
                        const std::function<void(cuckoo_filter&)>& fn);

}  // namespace ringbloom
