// redis/bloom_chain.hpp: the value behind a BF.* key: a scalable Bloom filter
// whose layers are ringbloom's blocked filters, with RedisBloom's
// behaviour (capacity, EXPANSION, NONSCALING, adds that skip items already
// present) and its own error budgets per layer.
//
// Layers. Items go into the newest layer; when it holds its capacity a new
// layer with `expansion` times the capacity is added (a NONSCALING chain
// refuses instead). A lookup asks every layer, so the chain's rate is at
// most the sum of the layers' rates, each at most its budget when full:
//
//   layer 0:       budget (4/5) p                 (p itself when NONSCALING)
//   layer i >= 1:  budget (1/5) p * (6 / pi^2) / i^2
//
// The budgets sum to less than p for any number of layers (sum of 1/i^2 is
// pi^2/6), so the measured rate stays at or under p. What a full layer
// leaves unspent (its exact rate when full is below its budget, by the
// rounding of its size and, more, by its growth to the size class, see
// below) is carried to the next layer: a new layer gets p minus the exact
// rates of the layers before it minus the budgets kept for the layers after
// it (next_budget()): at least its own budget in chains this version made,
// and the sum stays under p. RedisBloom halves the budget per layer (p/2,
// p/4, ...: [ABPH07] with r = 1/2); ours gives the first layer -- the whole
// filter when BF.RESERVE was told the right capacity -- four fifths, and decays polynomially
// afterwards, so a deep chain (what BF.ADD's small default capacity grows into) does not pay for
// exponentially tight rates. docs/redis.md has the bits-per-item table
// against RedisBloom's rule.
//
// Each layer is sized by bloom_math::blocked_size_for(capacity, budget), so
// it measures at its budget when full, and then grown to fill the
// allocator's size class it lands in (set_size_class(); jemalloc rounds a
// 1.3 MiB array up to 1.5 MiB): the rounding is paid anyway, so it buys bits
// (a lower rate, with the number of hashes chosen again) instead of being
// wasted. Without set_size_class() (the library's tests) nothing is rounded. Every item is hashed
// once (XXH3-128, seed 0) for all layers.
//
// Limits: a chain never allocates more than `max_bytes` of words in total
// (the module's MAX_FILTER_BYTES): creating or growing past it answers
// too_large and changes nothing. At most max_layers layers.
//
// Serialized forms (all little-endian; docs/redis.md draws them):
//   - header():   the parameters and every layer's shape and count, with an
//                 XXH3-64 checksum; from_header() builds a chain of zeroed
//                 layers from it (BF.LOADCHUNK's first call, AOF rewrite).
//   - chunk():    a run of one layer's words with its position and an
//                 XXH3-64 checksum, at most max_chunk_bytes; load_chunk()
//                 checks everything before writing a word.
//   - layer_blob() / from_blobs(): the RDB form: header() plus one
//                 filter_file image (checksummed, versioned) per layer.
//   A damaged or foreign input throws ringbloom::data_error and leaves the
//   chain unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"

namespace ringbloom::redis {

class bloom_chain {
 public:
  static constexpr std::uint32_t max_layers = 64;
  /// 4/5 rather than 3/4: at 1M items and p = 1% the first layer then fits
  /// jemalloc's 1.25 MiB size class instead of the 1.5 MiB one (docs/redis.md).
  static constexpr double first_layer_share = 0.8;
  /// Largest chunk() (BF.SCANDUMP and the AOF rewrite's BF.LOADCHUNK).
  static constexpr std::size_t max_chunk_bytes = std::size_t{16} << 20;

  struct layer {
    blocked_bloom_filter filter;
    std::uint64_t capacity = 0;
  };

  enum class add_status : std::uint8_t { added, present, full, too_large };

  /// How many bytes of words a layer may have at no extra memory: the
  /// largest multiple of 64 at least `bytes` that the allocator serves from
  /// the same size class (module.cpp installs jemalloc's classes, checked
  /// against RedisModule_MallocSize at load). Process-wide; nullptr (the
  /// default): no rounding. Set before any chain exists.
  using size_class_fn = std::uint64_t (*)(std::uint64_t bytes) noexcept;
  static void set_size_class(size_class_fn fn) noexcept { size_class_ = fn; }
  [[nodiscard]] static size_class_fn size_class() noexcept { return size_class_; }

  /// The layer's shape for `capacity` items at rate `fpr`: blocked_size_for,
  /// grown to its size class (see above).
  [[nodiscard]] static filter_size layer_size(std::uint64_t capacity, double fpr);

  /// The error budget of layer `index` for overall rate p (see above).
  [[nodiscard]] static double layer_fpr(double p, std::uint32_t index, bool nonscaling) noexcept;

  /// A chain with one empty layer. Throws std::invalid_argument unless
  /// capacity >= 1, 0 < fpr < 1, expansion >= 1; std::length_error (nothing
  /// allocated) when the first layer needs more than max_bytes.
  bloom_chain(std::uint64_t capacity, double fpr, std::uint32_t expansion, bool nonscaling,
              std::uint64_t max_bytes);

  /// Adds `item` unless some layer may contain it.
  add_status add(std::string_view item);
  /// add() for each item in order, the same answers, faster (hash all, ask
  /// the layers in batches). Stops after the first full / too_large answer;
  /// returns how many answers it wrote.
  std::size_t add_many(std::span<const std::string_view> items, std::span<add_status> out);

  [[nodiscard]] bool may_contain(std::string_view item) const;
  /// out[i] = may_contain(items[i]).
  void may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;

  [[nodiscard]] std::span<const layer> layers() const noexcept { return layers_; }
  [[nodiscard]] double fpr() const noexcept { return fpr_; }
  [[nodiscard]] std::uint32_t expansion() const noexcept { return expansion_; }
  [[nodiscard]] bool nonscaling() const noexcept { return nonscaling_; }
  [[nodiscard]] std::uint64_t max_bytes() const noexcept { return max_bytes_; }
  /// Sum of the layers' capacities (BF.INFO Capacity).
  [[nodiscard]] std::uint64_t capacity() const noexcept;
  /// Items added (BF.CARD, BF.INFO Items).
  [[nodiscard]] std::uint64_t items() const noexcept;
  /// Bytes of all layers' words.
  [[nodiscard]] std::uint64_t word_bytes() const noexcept;
  /// What the value occupies: the object, the layer table and the words. The
  /// table is counted by its layers, not the vector's reserve, so the figure
  /// is the same after an RDB load, a DEBUG RELOAD or on a replica.
  [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

  [[nodiscard]] std::string header() const;
  [[nodiscard]] static bloom_chain from_header(std::string_view bytes, std::uint64_t max_bytes);
  /// The chunk at `cursor` (1 + the index of its first word over all layers,
  /// counting layer by layer); advances cursor past it. An empty string
  /// when cursor is past the last word.
  [[nodiscard]] std::string chunk(std::uint64_t& cursor) const;
  void load_chunk(std::string_view bytes);

  /// RDB: the layer's filter_file image; from_blobs rebuilds a chain from a
  /// header and the images (checks they agree).
  [[nodiscard]] std::string layer_blob(std::size_t index) const;
  [[nodiscard]] static bloom_chain from_blobs(std::string_view header,
                                              const std::vector<std::string>& blobs,
                                              std::uint64_t max_bytes);

  friend bool operator==(const bloom_chain& a, const bloom_chain& b) noexcept;

 private:
  bloom_chain() = default;
  /// Appends a layer; false (nothing changed) when it would pass max_bytes
  /// or max_layers.
  bool add_layer();
  /// The budget of the next layer: p - (exact rates of the layers, full) -
  /// (the schedule's budgets of all later layers).
  [[nodiscard]] double next_budget() const noexcept;
  add_status add_hash(const hash128& h, std::size_t first_new_layer);

  double fpr_ = 0;
  std::uint32_t expansion_ = 2;
  bool nonscaling_ = false;
  std::uint64_t max_bytes_ = 0;
  std::vector<layer> layers_;
  bool cannot_grow_ = false;  ///< add_layer was refused (the limits are fixed)
  static inline size_class_fn size_class_ = nullptr;
};

}  // namespace ringbloom::redis
