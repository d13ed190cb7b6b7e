// ringbloom/filter/layered_bloom.hpp: a scalable Bloom filter whose layers
// are each the smaller of a classic and a blocked filter, with RedisBloom's
// growth and its own error schedule: the value behind the Redis module's BF.*
// keys.
//
// When to use it: when items arrive without a known count and the filter
// must answer as RedisBloom's BF.* does (capacity, EXPANSION, NONSCALING,
// adds that skip items already present), and when many of them are small
// (a service with a filter per user): a small filter is one allocation.
// scalable_bloom.hpp is the classic-layer filter with the textbook schedule.
//
// Layers. Items go into the newest layer; when it holds its capacity a new
// layer with `expansion` times the capacity is added (a NONSCALING filter
// refuses instead). A lookup asks every layer, so the filter's rate is at
// most the sum of the layers' rates, each at most its budget when full:
//
//   layer 0:       budget (4/5) p                 (p itself when NONSCALING)
//   layer i >= 1:  budget (1/5) p * (6 / pi^2) / i^2
//
// The budgets sum to less than p for any number of layers (the sum of 1/i^2 is
// pi^2/6, the Basel problem), so the measured rate stays at or under p. What a
// full layer leaves unspent (its exact rate when full is below its budget, by
// the rounding of its size and by its growth to the size class, below) is
// carried to the next layer: a new layer gets p minus the rates of the layers
// before it minus the budgets kept for the layers after it (next_budget()). A
// full layer's rate is counted as the larger of its formula's (an average over
// item sets) and the one its bits give, (ones / m)^k, which is this filter's: a
// small layer's fill varies (100 items in 1,024 bits: its rate by about 12%),
// and a chain that trusted the formula measured above p. A new layer never
// gets less than its own schedule budget, which the formulas always leave it:
// tiny layers (4 items in 64 bits) measure up to 10x their formula, and
// without the floor their chain spent its budget and refused to grow (a chain
// of 60 such layers measures 0.88% at p = 1%). Full layers never
// change, so adding a layer reads their words once (a popcount pass).
// RedisBloom halves the budget per layer (p/2, p/4, ...: Almeida et al. 2007
// with r = 1/2); this schedule gives the first layer -- the whole filter when
// the capacity was right -- four fifths, and decays polynomially afterwards, so
// a deep chain (what a small default capacity grows into) does not pay for
// exponentially tight rates.
//
// Layer kinds. Each layer is either blocked (blocked_bloom.hpp's layout: all k
// bits in one 512-bit block, one cache miss per lookup; sized by
// bloom_math::blocked_size_for) or classic (k bits anywhere, one miss per
// hash in a large array; bloom_math::classic_size_for). A classic layer's
// positions are bloom.hpp's xxh3 double hashing with each probe g_i mixed
// (splitmix64's finalizer) before fastrange: unmixed, a small layer at a
// tight rate measures far above the formula (60x for 100 items at 8e-7).
// Blocking costs bits, the more the tighter the rate (4% more than classic at
// 0.8%, 16% at 8e-5, 36% at 8e-7: bloom_math's exact formulas), and a blocked
// layer is a whole number of 64-byte blocks, which a small layer pays for (100
// items at 0.8% need 126 classic bytes, 192 blocked). Memory is counted in the
// allocator's size classes (below). A layer of at most 64 KiB, which stays in
// the CPU's caches, takes the kind that costs less memory, and at equal memory
// the one with the lower rate (classic). A larger layer is blocked, which is
// faster, unless classic saves more than 1/16 of its memory: with jemalloc's
// classes (at least 1/8 apart from 64 bytes up) that is whenever classic takes
// a smaller class, as at tight rates; and a later layer is classic at equal
// memory when its lower rate lets the next layer take a smaller class (one
// layer of lookahead: a blocked layer's higher rate is budget the next layer
// no longer has). Both kinds are grown to fill their size
// class: the rounding is paid anyway, so it buys bits (a lower rate, with the
// number of hashes chosen again). Without set_size_class() nothing is rounded.
// Every item is hashed once (XXH3-128, seed 0) for all layers.
//
// Memory. The filter object is one pointer. It points to one allocation
// holding the parameters, the first layer's description and, when the first
// layer is classic, its words: a filter that never grew is that one block
// (for 100 items at 1%: 192 bytes, exactly a jemalloc size class, where
// RedisBloom's three allocations take 256). Later layers are described in one
// array of exactly their number, each with its own word array (a blocked
// layer's 64-byte aligned). Everything comes from the allocator hook
// (allocator_hook.hpp), so a Redis server counts it; memory_bytes() adds it
// up exactly, the same after a reload.
//
// Guarantees: the false-positive rate is at most p for any number of items
// (within each kind's exact formula); no false negatives; a filter never
// allocates more than `max_bytes` of words in total: creating or growing
// past it is refused and changes nothing. At most max_layers layers.
// Not guaranteed: the number of layers for a given stream (an add that is a
// false positive is skipped, so it depends on the hash), nor which kind a
// layer gets (it depends on the size classes installed).
//
// Serialized forms. All integers little-endian (io/format.hpp helpers);
// every form ends with the XXH3-64 (seed 0) of all bytes before it, checked
// before any field is trusted. A damaged or foreign input throws data_error
// and leaves the filter unchanged.
//
//   header() -- BF.SCANDUMP's first chunk, the RDB form's first part:
//     0   4  "RBCH"
//     4   u32 version (2; version 1, written before classic layers existed,
//             is read: its layers are all blocked and their kind field is 0)
//     8   f64 error rate p
//     16  u32 expansion
//     20  u32 flags (bit 0: NONSCALING; others 0)
//     24  u32 layer count L (1..64)
//     28  u32 reserved (0)
//     32  L x { u64 capacity, u64 bits, u64 items, u32 hashes, u32 kind }
//             kind: filter_kind's code, 1 classic (the mixed positions
//             above; bits a multiple of 64, 1..128 hashes) or 2 blocked
//             (bits a multiple of 512, 1..16 hashes)
//     32 + 32 L  u64 XXH3-64
//   from_header() builds a filter of zeroed layers from it.
//
//   chunk(cursor) -- a run of one layer's words (BF.SCANDUMP, BF.LOADCHUNK):
//     0   4  "RBCD"
//     4   u32 layer index
//     8   u64 first word in the layer
//     16  u64 word count n (at most (max_chunk_bytes - 32) / 8)
//     24  n x u64 the words
//     24 + 8 n  u64 XXH3-64
//   load_chunk() checks it all before writing a word.
//
//   layer_blob(i) / from_blobs() -- the RDB form: header() plus one
//   filter_file image (versioned, checksummed: filter_file.hpp) per layer, a
//   blocked filter, or for a classic layer a classic filter image that
//   carries its bits, hashes, count and words (the positions are this
//   filter's mixed ones, not bloom.hpp's); from_blobs checks that every image
//   matches its header entry.
//
// Example:
//
//   ringbloom::layered_bloom_filter f(1000, 0.01, 2, false, 1 << 30);
//   f.add("anna");                       // add_status::added
//   f.may_contain("anna");               // true
//   std::string dump = f.header();       // then f.chunk(cursor) until empty
//
// Not thread-safe for adds (a new layer needs exclusive access); concurrent
// const calls are safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

namespace detail {
struct layered_block;  // the filter's one allocation (layered_bloom.cpp)
}  // namespace detail

class layered_bloom_filter {
 public:
  static constexpr std::uint32_t max_layers = 64;
  /// 4/5 rather than 3/4: at 1M items and p = 1% the first layer then fits
  /// jemalloc's 1.25 MiB size class instead of the 1.5 MiB one (docs/redis.md).
  static constexpr double first_layer_share = 0.8;
  /// Largest chunk() (BF.SCANDUMP and the AOF rewrite's BF.LOADCHUNK).
  static constexpr std::size_t max_chunk_bytes = std::size_t{16} << 20;

  /// One layer as it stands: a view, valid until the filter is changed.
  struct layer_info {
    filter_kind kind = filter_kind::blocked;  ///< classic or blocked
    std::uint64_t capacity = 0;
    std::uint64_t bits = 0;  ///< m: all of its words' bits
    std::uint32_t hashes = 0;
    std::uint64_t items = 0;  ///< items added to it
    std::span<const std::uint64_t> words;
    /// Its rate when it holds `capacity` items (its kind's exact formula).
    [[nodiscard]] double full_fpr() const noexcept;
  };

  /// The shape chosen for a layer: kind, bits and hashes.
  struct layer_shape {
    filter_kind kind = filter_kind::blocked;
    filter_size size;
  };

  enum class add_status : std::uint8_t { added, present, full, too_large };

  /// The allocator's size class: the bytes an allocation of `bytes` really
  /// occupies (the Redis module installs jemalloc's classes: 200 -> 224,
  /// 1.3 MiB -> 1.5 MiB). Layers grow to fill it. Process-wide; nullptr (the
  /// default): no rounding. Set before any filter exists.
  using size_class_fn = std::uint64_t (*)(std::uint64_t bytes) noexcept;
  static void set_size_class(size_class_fn fn) noexcept { size_class_ = fn; }
  [[nodiscard]] static size_class_fn size_class() noexcept { return size_class_; }

  /// The shape of layer `index` for `capacity` items at rate `fpr` (see
  /// "Layer kinds" above). Throws std::invalid_argument when neither kind
  /// can be made (more than max_filter_bits).
  [[nodiscard]] static layer_shape layer_shape_for(std::uint64_t capacity, double fpr,
                                                   std::uint32_t index);

  /// The error budget of layer `index` for overall rate p (the schedule
  /// above).
  [[nodiscard]] static double layer_fpr(double p, std::uint32_t index, bool nonscaling) noexcept;

  /// A filter with one empty layer. Throws std::invalid_argument unless
  /// capacity >= 1, 0 < fpr < 1, expansion >= 1; std::length_error (nothing
  /// allocated) when the first layer needs more than max_bytes.
  layered_bloom_filter(std::uint64_t capacity, double fpr, std::uint32_t expansion, bool nonscaling,
                       std::uint64_t max_bytes);
  layered_bloom_filter(const layered_bloom_filter& other);
  layered_bloom_filter(layered_bloom_filter&& other) noexcept;
  layered_bloom_filter& operator=(const layered_bloom_filter& other);
  layered_bloom_filter& operator=(layered_bloom_filter&& other) noexcept;
  ~layered_bloom_filter();

  /// Adds `item` unless some layer may contain it: added, present, full (a
  /// NONSCALING filter at capacity) or too_large (the next layer would pass
  /// max_bytes or max_layers; nothing changed).
  add_status add(std::string_view item);
  /// add() for each item in order, the same answers, faster (hash all, ask
  /// the layers in batches). Stops after the first full / too_large answer;
  /// returns how many answers it wrote.
  std::size_t add_many(std::span<const std::string_view> items, std::span<add_status> out);

  [[nodiscard]] bool may_contain(std::string_view item) const;
  /// out[i] = may_contain(items[i]).
  void may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;

  [[nodiscard]] std::size_t layer_count() const noexcept;
  /// Layer `index` (0 is the oldest). Precondition: index < layer_count().
  [[nodiscard]] layer_info layer(std::size_t index) const noexcept;
  [[nodiscard]] double fpr() const noexcept;
  [[nodiscard]] std::uint32_t expansion() const noexcept;
  [[nodiscard]] bool nonscaling() const noexcept;
  [[nodiscard]] std::uint64_t max_bytes() const noexcept;
  /// Sum of the layers' capacities (BF.INFO Capacity).
  [[nodiscard]] std::uint64_t capacity() const noexcept;
  /// Items added (BF.CARD, BF.INFO Items).
  [[nodiscard]] std::uint64_t items() const noexcept;
  /// Bytes of all layers' words.
  [[nodiscard]] std::uint64_t word_bytes() const noexcept;
  /// What the value occupies, exactly as allocated: this object, its block
  /// (with the first layer's words when they are inline), the table of later
  /// layers and their words. The same after a reload.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

  /// The header form (above).
  [[nodiscard]] std::string header() const;
  /// A filter of zeroed layers from a header. Throws data_error when the
  /// bytes are not a valid header or its layers pass max_bytes.
  [[nodiscard]] static layered_bloom_filter from_header(std::string_view bytes,
                                                        std::uint64_t max_bytes);
  /// The chunk at `cursor` (1 + the index of its first word over all layers,
  /// counting layer by layer); advances cursor past it. An empty string
  /// when cursor is past the last word.
  [[nodiscard]] std::string chunk(std::uint64_t& cursor) const;
  /// Writes a chunk's words into its layer. Throws data_error (filter
  /// unchanged) when it is damaged or does not fit this filter.
  void load_chunk(std::string_view bytes);

  /// RDB: the layer's filter_file image; from_blobs rebuilds a filter from a
  /// header and the images (throws data_error unless they agree). A classic
  /// layer's image is a version-2 classic file, byte for byte as before
  /// format version 3, although its bits are placed by the mixed rule: the
  /// chain, not the image, says how its layers are probed.
  [[nodiscard]] std::string layer_blob(std::size_t index) const;
  [[nodiscard]] static layered_bloom_filter from_blobs(std::string_view header,
                                                       const std::vector<std::string>& blobs,
                                                       std::uint64_t max_bytes);

  friend bool operator==(const layered_bloom_filter& a, const layered_bloom_filter& b) noexcept;

 private:
  explicit layered_bloom_filter(detail::layered_block* block) noexcept : block_(block) {}
  /// Appends a layer; false (nothing changed) when it would pass max_bytes
  /// or max_layers.
  bool add_layer();
  /// The budget of the next layer: p - (exact rates of the layers, full) -
  /// (the schedule's budgets of all later layers).
  [[nodiscard]] double next_budget() const noexcept;
  add_status add_hash(const hash128& h, std::size_t first_new_layer);

  /// Never null, except in a moved-from filter (which may only be
  /// destroyed or assigned to).
  detail::layered_block* block_ = nullptr;
  static inline size_class_fn size_class_ = nullptr;
};

}  // namespace ringbloom
