// ringbloom/filter/scalable_bloom.hpp: a Bloom filter for an unknown number of
// items.
//
// A fixed filter made for n items degrades past n: its false-positive rate
// climbs towards 1. A scalable filter (Almeida, Baquero, Preguica, Hutchison,
// "Scalable Bloom Filters", 2007; the design RedisBloom uses) is a list of
// classic filters, the layers. Items go into the newest layer; when it holds
// its capacity, a new layer is added with `growth` times the capacity and
// `tightening` times the error budget:
//
//   layer i:  capacity  c_0 * growth^i
//             budget    p_i = p * (1 - r) * r^i      (r = tightening)
//
// A lookup asks every layer. The compound rate is at most the sum of the
// budgets, p * (1 - r^L) < p, however many items arrive. With the defaults
// (growth 2, r = 0.5, as RedisBloom) the budgets are p/2, p/4, ...; each layer
// needs about one more hash than the one before, and memory stays within a
// constant factor of a classic filter sized for the final count.
//
// Consequences worth knowing:
//   - A filter still within its first layer measures about p/2, not p; the
//     rate approaches p from below as layers are added.
//   - add skips items that may already be present (as RedisBloom does), so
//     duplicates do not use up capacity; items_added counts only the
//     additions that changed the filter.
//   - Lookups cost one probe set per layer: choose c_0 near the expected count.
//   - At most max_layers layers; past that, add throws std::length_error.
//   - Layers are classic filters (positions as in bloom.hpp; for xxh3 the
//     item is hashed once for all layers).
//   - No concurrent add (adding a layer needs exclusive access).
//
// Example:
//
//   #include <ringbloom/filter/scalable_bloom.hpp>
//   ringbloom::scalable_bloom_filter f(1000, 0.01);   // start small
//   for (int i = 0; i < 1'000'000; ++i) f.add("user:" + std::to_string(i));
//   assert(f.layers().size() == 10);                // 1000 * (2^10 - 1) >= 1e6
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom {

class scalable_bloom_filter {
 public:
  static constexpr std::uint32_t default_growth = 2;
  static constexpr double default_tightening = 0.5;
  static constexpr std::uint32_t max_layers = 64;
  static constexpr std::uint32_t max_growth = 1024;

  /// One layer: a classic filter and the number of items it is made for.
  struct layer {
    bloom_filter filter;
    std::uint64_t capacity = 0;
  };

  /// An empty filter whose first layer holds `initial_capacity` items.
  /// Throws std::invalid_argument unless initial_capacity >= 1,
  /// 0 < fpr < 1, 1 <= growth <= max_growth, 0 < tightening < 1, and seed is
  /// 0 for hashes other than xxh3.
  scalable_bloom_filter(std::uint64_t initial_capacity, double fpr, hash_kind hash = default_hash,
                        std::uint64_t seed = 0, std::uint32_t growth = default_growth,
                        double tightening = default_tightening);

  /// A filter whose first layer is a classic filter of exactly `bits` bits and
  /// `hashes` hashes (the explicit form of `ringbloom bloom create`). Its
  /// capacity is the n at which k is optimal, n = max(1, floor(m ln2 / k)),
  /// and the target is p = classic_fpr(n, m, k) / (1 - r), capped at 0.99
  /// (so the first layer's budget p (1 - r) is what it reaches at n; for
  /// r = 0.5, p is twice that rate). Throws std::invalid_argument as
  /// bloom_filter's constructor does.
  [[nodiscard]] static scalable_bloom_filter from_size(std::uint64_t bits, std::uint32_t hashes,
                                                       hash_kind hash = default_hash,
                                                       std::uint64_t seed = 0,
                                                       std::uint32_t growth = default_growth,
                                                       double tightening = default_tightening);

  /// Adds `item` to the newest layer unless some layer may already contain
  /// it; adds a layer first when the newest is full. Throws std::length_error
  /// when a layer beyond max_layers would be needed, std::logic_error when
  /// read-only.
  void add(std::string_view item);

  [[nodiscard]] bool may_contain(std::string_view item) const;

  /// The probes of every layer, layer by layer.
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;

  /// In-place union / intersection, layer by layer. Only filters with the
  /// same parameters and the same layer sizes (for instance two copies of one
  /// file that were filled separately up to the same number of layers) are
  /// compatible; otherwise std::invalid_argument, filter unchanged.
  void merge(const scalable_bloom_filter& other);
  void intersect(const scalable_bloom_filter& other);
  [[nodiscard]] bool compatible_with(const scalable_bloom_filter& other,
                                     std::string* why = nullptr) const;

  [[nodiscard]] std::span<const layer> layers() const noexcept { return layers_; }
  [[nodiscard]] std::uint64_t initial_capacity() const noexcept { return layers_[0].capacity; }
  [[nodiscard]] double target_fpr() const noexcept { return fpr_; }
  [[nodiscard]] std::uint32_t growth() const noexcept { return growth_; }
  [[nodiscard]] double tightening() const noexcept { return tightening_; }
  [[nodiscard]] hash_kind hash() const noexcept { return layers_[0].filter.hash(); }
  [[nodiscard]] std::uint64_t seed() const noexcept { return layers_[0].filter.seed(); }
  /// The layers' position rule (bloom_filter::rule; the same in every layer).
  [[nodiscard]] position_rule rule() const noexcept { return layers_[0].filter.rule(); }
  /// Total bits of all layers.
  [[nodiscard]] std::uint64_t bits() const noexcept;
  /// The first layer's k.
  [[nodiscard]] std::uint32_t hashes() const noexcept { return layers_[0].filter.hashes(); }
  [[nodiscard]] std::uint64_t items_added() const noexcept;
  [[nodiscard]] double estimated_items() const noexcept;
  /// expected_fpr = 1 - prod over layers of (1 - layer rate now).
  [[nodiscard]] filter_stats stats() const;
  [[nodiscard]] bool read_only() const noexcept { return layers_[0].filter.read_only(); }

  /// For the file loader: validates the parameters and that every layer has
  /// the hash, seed and position rule of the first and a capacity of at least 1; throws
  /// data_error otherwise. (A layer may hold more than its capacity after a
  /// merge; add then starts a new layer.)
  [[nodiscard]] static scalable_bloom_filter from_layers(double fpr, std::uint32_t growth,
                                                         double tightening,
                                                         std::vector<layer> layers);

  friend bool operator==(const scalable_bloom_filter& a, const scalable_bloom_filter& b) noexcept;

 private:
  scalable_bloom_filter() = default;
  void add_layer();

  double fpr_ = 0;
  std::uint32_t growth_ = default_growth;
  double tightening_ = default_tightening;
  std::vector<layer> layers_;
};

}  // namespace ringbloom
