// The scalable Bloom filter: a growing list of classic layers.
#include "ringbloom/filter/scalable_bloom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "bloom_internal.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"

namespace ringbloom {

namespace {

template <class Error>
void check_scalable(double fpr, std::uint32_t growth, double tightening) {
  if (!(fpr > 0.0 && fpr < 1.0)) {
    throw Error(fmt::format(
        "the false-positive rate must be between 0 and 1 (exclusive), got {}; for 1% give 0.01",
        fpr));
  }
  if (growth < 1 || growth > scalable_bloom_filter::max_growth) {
    throw Error(fmt::format(
        "the growth factor of a scalable filter must be between 1 and {}, got {}; 2 is usual",
        scalable_bloom_filter::max_growth, growth));
  }
  if (!(tightening > 0.0 && tightening < 1.0)) {
    throw Error(fmt::format(
        "the tightening ratio of a scalable filter must be between 0 and 1 (exclusive), got {}; "
        "0.5 is usual",
        tightening));
  }
}

}  // namespace

scalable_bloom_filter::scalable_bloom_filter(std::uint64_t initial_capacity, double fpr,
                                             hash_kind hash, std::uint64_t seed,
                                             std::uint32_t growth, double tightening)
    : fpr_(fpr), growth_(growth), tightening_(tightening) {
  check_scalable<std::invalid_argument>(fpr, growth, tightening);
  const filter_size size = bloom_math::classic_size_for(
      initial_capacity, bloom_math::scalable_layer_fpr(fpr, tightening, 0));
  layers_.push_back({bloom_filter(size.bits, size.hashes, hash, seed), initial_capacity});
}

scalable_bloom_filter scalable_bloom_filter::from_size(std::uint64_t bits, std::uint32_t hashes,
                                                       hash_kind hash, std::uint64_t seed,
                                                       std::uint32_t growth, double tightening) {
  bloom_filter first(bits, hashes, hash, seed);  // validates bits, hashes, hash, seed
  check_scalable<std::invalid_argument>(0.5, growth, tightening);
  const double n = std::max(
      1.0, std::floor(static_cast<double>(bits) * std::numbers::ln2 / static_cast<double>(hashes)));
  const double p = std::min(
      0.99, bloom_math::classic_fpr(n, static_cast<double>(bits), hashes) / (1.0 - tightening));
  scalable_bloom_filter f;
  f.fpr_ = p;
  f.growth_ = growth;
  f.tightening_ = tightening;
  f.layers_.push_back({std::move(first), static_cast<std::uint64_t>(n)});
  return f;
}

void scalable_bloom_filter::add_layer() {
  const auto i = static_cast<std::uint32_t>(layers_.size());
  if (i >= max_layers) {
    throw std::length_error(fmt::format(
        "the scalable filter already has the maximum of {} layers; create it with a larger "
        "initial capacity or growth factor",
        max_layers));
  }
  const std::uint64_t last = layers_.back().capacity;
  if (last > ~std::uint64_t{0} / growth_) {
    throw std::length_error(
        "the next layer of the scalable filter would hold more than 2^64 items; this filter "
        "cannot grow further");
  }
  const std::uint64_t capacity = last * growth_;
  filter_size size;
  try {
    // Deep layers' budgets fall below what 64-bit hashes deliver (min_fpr):
    // they are sized for min_fpr, which adds less than 1e-18 to the total.
    size = bloom_math::classic_size_for(
        capacity, std::max(bloom_math::scalable_layer_fpr(fpr_, tightening_, i), min_fpr));
  } catch (const std::invalid_argument& e) {
    throw std::length_error(
        fmt::format("the scalable filter cannot add layer {}: {}", i, e.what()));
  }
  // A new layer keeps the first one's position rule: a filter read from a
  // file before version 3 stays in that version's rule (and is saved as it).
  const bloom_filter& first = layers_.front().filter;
  layers_.push_back(
      {bloom_filter::from_words(size.bits, size.hashes, hash(), seed(), 0,
                                detail::word_store(static_cast<std::size_t>((size.bits + 63) / 64)),
                                first.rule()),
       capacity});
}

void scalable_bloom_filter::add(std::string_view item) {
  if (read_only()) {
    throw std::logic_error(
        "this filter is a read-only view of a mapped file; load it with load_filter to change it");
  }
  if (hash() == hash_kind::xxh3) {
    const hash128 h = xxh3_128(item, seed());
    for (const layer& l : layers_) {
      if (l.filter.may_contain_hash(h)) return;
    }
    if (layers_.back().filter.items_added() >= layers_.back().capacity) add_layer();
    layers_.back().filter.add_hash(h);
    return;
  }
  if (may_contain(item)) return;
  if (layers_.back().filter.items_added() >= layers_.back().capacity) add_layer();
  layers_.back().filter.add(item);
}

bool scalable_bloom_filter::may_contain(std::string_view item) const {
  if (hash() == hash_kind::xxh3) {
    const hash128 h = xxh3_128(item, seed());
    // Newest first: it holds the most items, so a present item is found soonest.
    for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) {
      if (it->filter.may_contain_hash(h)) return true;
    }
    return false;
  }
  // The other hashes: value i is the same in every layer (only the modulus
  // differs), so compute each once.
  std::vector<std::uint64_t> values;
  std::string buffer;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) {
    const bloom_filter& f = it->filter;
    bool all = true;
    for (std::uint32_t i = 0; i < f.hashes() && all; ++i) {
      if (i == values.size()) {
        values.push_back(detail::classic_indexed_hash(hash(), seed(), i, item, buffer));
      }
      all = f.bit(values[i] % f.bits());
    }
    if (all) return true;
  }
  return false;
}

std::vector<bit_probe> scalable_bloom_filter::explain(std::string_view item) const {
  std::vector<bit_probe> out;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    for (bit_probe p : layers_[i].filter.explain(item)) {
      p.layer = static_cast<std::uint32_t>(i);
      out.push_back(p);
    }
  }
  return out;
}

bool scalable_bloom_filter::compatible_with(const scalable_bloom_filter& other,
                                            std::string* why) const {
  std::string reason;
  if (fpr_ != other.fpr_ || growth_ != other.growth_ || tightening_ != other.tightening_) {
    reason = fmt::format(
        "the first has target rate {}, growth {} and tightening {}, the second {}, {} and {}", fpr_,
        growth_, tightening_, other.fpr_, other.growth_, other.tightening_);
  } else if (layers_.size() != other.layers_.size()) {
    reason = fmt::format("the first has {} layers and the second {}", layers_.size(),
                         other.layers_.size());
  } else {
    for (std::size_t i = 0; i < layers_.size() && reason.empty(); ++i) {
      std::string layer_why;
      if (!layers_[i].filter.compatible_with(other.layers_[i].filter, &layer_why)) {
        reason = fmt::format("in layer {} {}", i, layer_why);
      } else if (layers_[i].capacity != other.layers_[i].capacity) {
        reason = fmt::format("layer {} holds {} items in the first and {} in the second", i,
                             layers_[i].capacity, other.layers_[i].capacity);
      }
    }
  }
  if (reason.empty()) return true;
  if (why != nullptr) *why = std::move(reason);
  return false;
}

void scalable_bloom_filter::merge(const scalable_bloom_filter& other) {
  std::string why;
  if (!compatible_with(other, &why)) detail::throw_incompatible("merge", why);
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i].filter.merge(other.layers_[i].filter);
}

void scalable_bloom_filter::intersect(const scalable_bloom_filter& other) {
  std::string why;
  if (!compatible_with(other, &why)) detail::throw_incompatible("intersect", why);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    layers_[i].filter.intersect(other.layers_[i].filter);
  }
}

std::uint64_t scalable_bloom_filter::bits() const noexcept {
  std::uint64_t sum = 0;
  for (const layer& l : layers_) sum += l.filter.bits();
  return sum;
}

std::uint64_t scalable_bloom_filter::items_added() const noexcept {
  std::uint64_t sum = 0;
  for (const layer& l : layers_) sum = detail::saturating_add(sum, l.filter.items_added());
  return sum;
}

double scalable_bloom_filter::estimated_items() const noexcept {
  double sum = 0.0;
  for (const layer& l : layers_) sum += l.filter.estimated_items();
  return sum;
}

filter_stats scalable_bloom_filter::stats() const {
  filter_stats s;
  s.kind = filter_kind::scalable;
  s.hash = hash();
  s.seed = seed();
  s.hashes = hashes();
  s.layers = static_cast<std::uint32_t>(layers_.size());
  double pass_none = 1.0;
  for (const layer& l : layers_) {
    const filter_stats ls = l.filter.stats();
    s.bits += ls.bits;
    s.bits_set += ls.bits_set;
    s.items_added = detail::saturating_add(s.items_added, ls.items_added);
    s.estimated_items += ls.estimated_items;
    s.memory_bytes += ls.memory_bytes;
    pass_none *= 1.0 - ls.expected_fpr;
  }
  s.fill_ratio = static_cast<double>(s.bits_set) / static_cast<double>(s.bits);
  s.expected_fpr = 1.0 - pass_none;
  return s;
}

scalable_bloom_filter scalable_bloom_filter::from_layers(double fpr, std::uint32_t growth,
                                                         double tightening,
                                                         std::vector<layer> layers) {
  check_scalable<data_error>(fpr, growth, tightening);
  if (layers.empty() || layers.size() > max_layers) {
    throw data_error(fmt::format(
        "a scalable filter has between 1 and {} layers, but {} are recorded; the data is corrupt",
        max_layers, layers.size()));
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const layer& l = layers[i];
    if (l.filter.hash() != layers[0].filter.hash() || l.filter.seed() != layers[0].filter.seed() ||
        l.filter.rule() != layers[0].filter.rule()) {
      throw data_error(
          fmt::format("layer {} of a scalable filter uses another hash, seed or position rule than "
                      "layer 0; the data is "
                      "corrupt",
                      i));
    }
    const bool capacity_ok = i == 0 ? l.capacity >= 1
                                    : layers[i - 1].capacity <= ~std::uint64_t{0} / growth &&
                                          l.capacity == layers[i - 1].capacity * growth;
    if (!capacity_ok) {
      throw data_error(fmt::format(
          "layer {} of a scalable filter records a capacity of {}, which does not follow from "
          "the growth factor {}; the data is corrupt",
          i, l.capacity, growth));
    }
  }
  scalable_bloom_filter f;
  f.fpr_ = fpr;
  f.growth_ = growth;
  f.tightening_ = tightening;
  f.layers_ = std::move(layers);
  return f;
}

bool operator==(const scalable_bloom_filter& a, const scalable_bloom_filter& b) noexcept {
  if (a.fpr_ != b.fpr_ || a.growth_ != b.growth_ || a.tightening_ != b.tightening_ ||
      a.layers_.size() != b.layers_.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.layers_.size(); ++i) {
    if (a.layers_[i].capacity != b.layers_[i].capacity ||
        !(a.layers_[i].filter == b.layers_[i].filter)) {
      return false;
    }
  }
  return true;
}

}  // namespace ringbloom
