// src/filter/layered_bloom.cpp: the scalable filter of blocked layers (see
// ringbloom/filter/layered_bloom.hpp).
#include "ringbloom/filter/layered_bloom.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {
namespace {

constexpr char header_magic[4] = {'R', 'B', 'C', 'H'};
constexpr char chunk_magic[4] = {'R', 'B', 'C', 'D'};
constexpr std::uint32_t format_version = 1;
constexpr std::size_t header_fixed_bytes = 32;
constexpr std::size_t header_layer_bytes = 32;
constexpr std::size_t chunk_fixed_bytes = 24;
constexpr std::size_t checksum_bytes = io::checksum_bytes;
constexpr std::uint32_t flag_nonscaling = 1;

const unsigned char* bytes_of(std::string_view s) noexcept {
  return reinterpret_cast<const unsigned char*>(s.data());
}

template <class T>
T get(std::string_view bytes, std::size_t offset) noexcept {
  return io::load_le<T>(bytes_of(bytes) + offset);
}

/// Checks the trailing checksum of `bytes`; throws data_error naming `what`.
void check_seal(std::string_view bytes, const char* what) {
  if (bytes.size() < checksum_bytes) throw data_error(std::string(what) + " is truncated");
  const std::string_view body = bytes.substr(0, bytes.size() - checksum_bytes);
  if (xxh3_64(body) != get<std::uint64_t>(bytes, body.size())) {
    throw data_error(std::string(what) + " has a wrong checksum (damaged or not a ringbloom dump)");
  }
}

std::uint64_t words_of(const blocked_bloom_filter& f) noexcept { return f.bits() / 64; }

/// The blocked sizing searches over k and the number of blocks with an exact
/// rate formula: tens to hundreds of microseconds. Filters are made with few
/// distinct (capacity, rate) pairs (BF.ADD's default, its layers), so the
/// last answers are kept (both shapes: as sized, and grown to its class).
struct sizes {
  filter_size least;  ///< blocked_size_for
  filter_size grown;  ///< least, grown to fill its allocator size class
};

/// `least` grown to fill the size class its words land in (layered_bloom_filter.hpp).
filter_size grown_to_class(std::uint64_t capacity, filter_size least) {
  const layered_bloom_filter::size_class_fn size_class = layered_bloom_filter::size_class();
  if (size_class == nullptr) return least;
  const std::uint64_t bytes = size_class(least.bits / 8) / 64 * 64;
  if (bytes <= least.bits / 8 || bytes > max_filter_bits / 8) return least;
  // More bits at the same k already lower the rate; the best k for the new
  // ratio of bits to items is near the old one (it grows as ln 2 * m / n).
  filter_size grown{bytes * 8, least.hashes};
  double best = bloom_math::blocked_fpr(static_cast<double>(capacity), grown.bits, least.hashes);
  for (std::uint32_t k = least.hashes + 1; k <= std::min(least.hashes + 3, max_blocked_hashes);
       ++k) {
    const double rate = bloom_math::blocked_fpr(static_cast<double>(capacity), grown.bits, k);
    if (rate < best) {
      best = rate;
      grown.hashes = k;
    }
  }
  return grown;
}

sizes blocked_sizes(std::uint64_t capacity, double fpr) {
  struct entry {
    std::uint64_t capacity = 0;
    double fpr = 0;
    sizes size;
  };
  constexpr std::size_t slots = 64;
  thread_local std::array<entry, slots> cache{};
  thread_local std::size_t next = 0;
  for (const entry& e : cache) {
    if (e.capacity == capacity && e.fpr == fpr) return e.size;
  }
  const filter_size least = bloom_math::blocked_size_for(capacity, fpr);
  const sizes size{least, grown_to_class(capacity, least)};
  cache[next] = {capacity, fpr, size};
  next = (next + 1) % slots;
  return size;
}

/// Per-call buffers of a batch: on the stack up to `inline_items` items (a
/// BF.MADD / BF.MEXISTS of a few items, the common call, then allocates
/// nothing), on the heap beyond.
template <class T>
class batch_buffer {
 public:
  static constexpr std::size_t inline_items = 32;
  explicit batch_buffer(std::size_t n) {
    if (n > inline_items) heap_ = std::make_unique<T[]>(n);
    data_ = n > inline_items ? heap_.get() : local_.data();
    std::fill(data_, data_ + n, T{});
  }
  T* data() noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }

 private:
  std::array<T, inline_items> local_;
  std::unique_ptr<T[]> heap_;
  T* data_;
};

/// A lower bound of a layer's bytes: the classic filter's optimum,
/// n log2(1/p) / ln 2 bits; a blocked filter always needs more.
double least_layer_bytes(std::uint64_t capacity, double fpr) noexcept {
  return static_cast<double>(capacity) * -std::log(fpr) / (std::numbers::ln2 * std::numbers::ln2) /
         8;
}

/// The shape of a layer for `capacity` items at rate `fpr` whose words take
/// at most `limit` bytes: grown to its size class when that fits, else as
/// sized; none when even that is more than `limit` (checked cheaply first).
std::optional<filter_size> fitting_layer(std::uint64_t capacity, double fpr, std::uint64_t limit) {
  if (least_layer_bytes(capacity, fpr) > static_cast<double>(limit)) return std::nullopt;
  try {
    const sizes s = blocked_sizes(capacity, fpr);
    if (s.grown.bits / 8 <= limit) return s.grown;
    if (s.least.bits / 8 <= limit) return s.least;
    return std::nullopt;
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // more than max_filter_bits
  }
}

}  // namespace

filter_size layered_bloom_filter::layer_size(std::uint64_t capacity, double fpr) {
  return blocked_sizes(capacity, fpr).grown;
}

double layered_bloom_filter::layer_fpr(double p, std::uint32_t index, bool nonscaling) noexcept {
  if (nonscaling) return p;
  if (index == 0) return first_layer_share * p;
  // The rest of the budget, (1 - 3/4) p, spread as 6 / (pi^2 i^2) over
  // i = 1, 2, ...: the series sums to 1 (Basel problem).
  const double i = index;
  return (1 - first_layer_share) * p * 6 / (std::numbers::pi * std::numbers::pi * i * i);
}

layered_bloom_filter::layered_bloom_filter(std::uint64_t capacity, double fpr,
                                           std::uint32_t expansion, bool nonscaling,
                                           std::uint64_t max_bytes)
    : fpr_(fpr), expansion_(expansion), nonscaling_(nonscaling), max_bytes_(max_bytes) {
  if (capacity < 1) throw std::invalid_argument("the capacity must be at least 1");
  if (!(fpr > 0 && fpr < 1)) throw std::invalid_argument("the error rate must be in (0, 1)");
  if (expansion < 1) throw std::invalid_argument("the expansion must be at least 1");
  const double first = layer_fpr(fpr, 0, nonscaling);
  const std::optional<filter_size> size =
      capacity > max_filter_bits ? std::nullopt : fitting_layer(capacity, first, max_bytes);
  if (!size) {
    throw std::length_error("the filter's first layer needs more than its limit of " +
                            std::to_string(max_bytes) + " bytes");
  }
  layers_.reserve(1);
  layers_.push_back({blocked_bloom_filter(size->bits, size->hashes), capacity});
}

bool layered_bloom_filter::add_layer() {
  // The limits do not change, so a refusal is final: remember it rather
  // than size the same layer again on every add.
  if (cannot_grow_ || layers_.size() >= max_layers) return false;
  cannot_grow_ = true;
  const layer& last = layers_.back();
  if (last.capacity > max_filter_bits / expansion_) return false;
  const std::uint64_t capacity = last.capacity * expansion_;
  const double budget = next_budget();
  if (!(budget >= blocked_min_fpr)) return false;
  const std::uint64_t used = word_bytes();
  if (used >= max_bytes_) return false;
  const std::optional<filter_size> size = fitting_layer(capacity, budget, max_bytes_ - used);
  if (!size) return false;
  layers_.reserve(layers_.size() + 1);  // exact: at most 64 layers, each copy is a few words
  layers_.push_back({blocked_bloom_filter(size->bits, size->hashes), capacity});
  cannot_grow_ = false;
  return true;
}

double layered_bloom_filter::next_budget() const noexcept {
  // Rates spent: each layer's exact rate when full, at most its budget and
  // lower when its words were grown to their size class.
  double spent = 0;
  for (const layer& l : layers_) {
    spent += bloom_math::blocked_fpr(static_cast<double>(l.capacity), l.filter.bits(),
                                     l.filter.hashes());
  }
  // Kept for the layers after this one: their schedule budgets,
  // (1 - s) p (1 - (6 / pi^2) sum_{j <= index} 1 / j^2).
  double series = 0;
  for (std::size_t j = 1; j <= layers_.size(); ++j) {
    series += 1.0 / (static_cast<double>(j) * static_cast<double>(j));
  }
  const double reserve =
      std::max(0.0, (1 - first_layer_share) * fpr_ *
                        (1 - 6 / (std::numbers::pi * std::numbers::pi) * series));
  return fpr_ - spent - reserve;
}

layered_bloom_filter::add_status layered_bloom_filter::add_hash(const hash128& h,
                                                                std::size_t first_layer) {
  for (std::size_t l = first_layer; l < layers_.size(); ++l) {
    if (layers_[l].filter.may_contain_hash(h)) return add_status::present;
  }
  if (layers_.back().filter.items_added() >= layers_.back().capacity) {
    if (nonscaling_) return add_status::full;
    if (!add_layer()) return add_status::too_large;
  }
  layers_.back().filter.add_hash(h);
  return add_status::added;
}

layered_bloom_filter::add_status layered_bloom_filter::add(std::string_view item) {
  return add_hash(layers_.front().filter.hash_item(item), 0);
}

std::size_t layered_bloom_filter::add_many(std::span<const std::string_view> items,
                                           std::span<add_status> out) {
  const std::size_t n = std::min(items.size(), out.size());
  batch_buffer<hash128> hashes(n);
  for (std::size_t i = 0; i < n; ++i) hashes[i] = layers_.front().filter.hash_item(items[i]);
  // Ask every layer for the whole batch first (hashing done, blocks
  // prefetched: one memory wait for many items). Bits are only ever set, so
  // a yes stays a yes. Items answered no are then re-asked, one by one, of
  // the newest layer and of any added meanwhile (earlier items of this batch
  // may have set their bits; the newest layer's blocks are now in cache),
  // and added.
  const std::size_t newest = layers_.size() - 1;
  batch_buffer<bool> present(n);
  batch_buffer<bool> answer(n);
  for (std::size_t l = 0; l <= newest; ++l) {
    layers_[l].filter.may_contain_many(std::span<const hash128>(hashes.data(), n),
                                       {answer.data(), n});
    for (std::size_t i = 0; i < n; ++i) present[i] = present[i] || answer[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = present[i] ? add_status::present : add_hash(hashes[i], newest);
    if (out[i] == add_status::full || out[i] == add_status::too_large) return i + 1;
  }
  return n;
}

bool layered_bloom_filter::may_contain(std::string_view item) const {
  const hash128 h = layers_.front().filter.hash_item(item);
  return std::any_of(layers_.rbegin(), layers_.rend(),
                     [&](const layer& l) { return l.filter.may_contain_hash(h); });
}

void layered_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                            std::span<bool> out) const {
  const std::size_t n = std::min(items.size(), out.size());
  batch_buffer<hash128> hashes(n);
  for (std::size_t i = 0; i < n; ++i) hashes[i] = layers_.front().filter.hash_item(items[i]);
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), false);
  batch_buffer<bool> answer(n);
  for (const layer& l : layers_) {
    l.filter.may_contain_many(std::span<const hash128>(hashes.data(), n), {answer.data(), n});
    for (std::size_t i = 0; i < n; ++i) out[i] = out[i] || answer[i];
  }
}

std::uint64_t layered_bloom_filter::capacity() const noexcept {
  std::uint64_t sum = 0;
  for (const layer& l : layers_) sum += l.capacity;
  return sum;
}

std::uint64_t layered_bloom_filter::items() const noexcept {
  std::uint64_t sum = 0;
  for (const layer& l : layers_) sum += l.filter.items_added();
  return sum;
}

std::uint64_t layered_bloom_filter::word_bytes() const noexcept {
  std::uint64_t sum = 0;
  for (const layer& l : layers_) sum += l.filter.bits() / 8;
  return sum;
}

std::uint64_t layered_bloom_filter::memory_bytes() const noexcept {
  return sizeof(*this) + layers_.size() * sizeof(layer) + word_bytes();
}

// Header: "RBCH", version u32, fpr f64, expansion u32, flags u32, layer
// count u32, reserved u32; per layer capacity u64, bits u64, items u64,
// hashes u32, reserved u32; XXH3-64 of all that.
std::string layered_bloom_filter::header() const {
  std::string out(header_fixed_bytes + layers_.size() * header_layer_bytes + checksum_bytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, header_magic, sizeof(header_magic));
  io::store_le<std::uint32_t>(p + 4, format_version);
  io::store_f64(p + 8, fpr_);
  io::store_le<std::uint32_t>(p + 16, expansion_);
  io::store_le<std::uint32_t>(p + 20, nonscaling_ ? flag_nonscaling : 0);
  io::store_le<std::uint32_t>(p + 24, static_cast<std::uint32_t>(layers_.size()));
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    unsigned char* at = p + header_fixed_bytes + i * header_layer_bytes;
    io::store_le<std::uint64_t>(at, layers_[i].capacity);
    io::store_le<std::uint64_t>(at + 8, layers_[i].filter.bits());
    io::store_le<std::uint64_t>(at + 16, layers_[i].filter.items_added());
    io::store_le<std::uint32_t>(at + 24, layers_[i].filter.hashes());
  }
  io::seal(out);
  return out;
}

layered_bloom_filter layered_bloom_filter::from_header(std::string_view bytes,
                                                       std::uint64_t max_bytes) {
  if (bytes.size() < header_fixed_bytes + checksum_bytes ||
      std::memcmp(bytes.data(), header_magic, sizeof(header_magic)) != 0) {
    throw data_error("the data is not a ringbloom filter header (BF.SCANDUMP's first chunk)");
  }
  check_seal(bytes, "the filter header");
  if (get<std::uint32_t>(bytes, 4) != format_version) {
    throw data_error("the filter header has an unknown format version");
  }
  layered_bloom_filter c;
  c.fpr_ = io::load_f64(bytes_of(bytes) + 8);
  c.expansion_ = get<std::uint32_t>(bytes, 16);
  const std::uint32_t flags = get<std::uint32_t>(bytes, 20);
  const std::uint32_t count = get<std::uint32_t>(bytes, 24);
  c.nonscaling_ = (flags & flag_nonscaling) != 0;
  c.max_bytes_ = max_bytes;
  if (!(c.fpr_ > 0 && c.fpr_ < 1) || c.expansion_ < 1 || (flags & ~flag_nonscaling) != 0 ||
      get<std::uint32_t>(bytes, 28) != 0 || count < 1 || count > max_layers ||
      bytes.size() != header_fixed_bytes + count * header_layer_bytes + checksum_bytes) {
    throw data_error("the filter header has impossible parameters");
  }
  std::uint64_t total = 0;
  c.layers_.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = header_fixed_bytes + i * header_layer_bytes;
    const auto capacity = get<std::uint64_t>(bytes, at);
    const auto bits = get<std::uint64_t>(bytes, at + 8);
    const auto items = get<std::uint64_t>(bytes, at + 16);
    const auto hashes = get<std::uint32_t>(bytes, at + 24);
    if (get<std::uint32_t>(bytes, at + 28) != 0 || capacity < 1 || bits < 512 || bits % 512 != 0 ||
        bits > max_filter_bits || hashes < 1 || hashes > max_blocked_hashes) {
      throw data_error("the filter header has an impossible layer");
    }
    total += bits / 8;
    if (total > max_bytes) {
      throw data_error("the filter's layers need more than its limit of " +
                       std::to_string(max_bytes) + " bytes");
    }
    c.layers_.push_back({blocked_bloom_filter::from_words(bits, hashes, hash_kind::xxh3, 0, items,
                                                          detail::word_store(bits / 64)),
                         capacity});
  }
  return c;
}

// Chunk: "RBCD", layer u32, first word u64, word count u64, the words,
// XXH3-64 of all that.
std::string layered_bloom_filter::chunk(std::uint64_t& cursor) const {
  if (cursor < 1) cursor = 1;
  std::uint64_t word = cursor - 1;
  std::size_t index = 0;
  while (index < layers_.size() && word >= words_of(layers_[index].filter)) {
    word -= words_of(layers_[index].filter);
    ++index;
  }
  if (index == layers_.size()) return {};
  const auto words = layers_[index].filter.words();
  constexpr std::uint64_t max_words = (max_chunk_bytes - chunk_fixed_bytes - checksum_bytes) / 8;
  const std::uint64_t count = std::min<std::uint64_t>(words.size() - word, max_words);
  std::string out(chunk_fixed_bytes + count * 8 + checksum_bytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, chunk_magic, sizeof(chunk_magic));
  io::store_le<std::uint32_t>(p + 4, static_cast<std::uint32_t>(index));
  io::store_le<std::uint64_t>(p + 8, word);
  io::store_le<std::uint64_t>(p + 16, count);
  for (std::uint64_t i = 0; i < count; ++i) {
    io::store_le<std::uint64_t>(p + chunk_fixed_bytes + 8 * i, words[word + i]);
  }
  io::seal(out);
  cursor += count;
  return out;
}

void layered_bloom_filter::load_chunk(std::string_view bytes) {
  if (bytes.size() < chunk_fixed_bytes + checksum_bytes ||
      std::memcmp(bytes.data(), chunk_magic, sizeof(chunk_magic)) != 0) {
    throw data_error("the data is not a ringbloom filter chunk (from BF.SCANDUMP)");
  }
  check_seal(bytes, "the filter chunk");
  const auto index = get<std::uint32_t>(bytes, 4);
  const auto first = get<std::uint64_t>(bytes, 8);
  const auto count = get<std::uint64_t>(bytes, 16);
  if (index >= layers_.size()) throw data_error("the filter chunk names a layer the filter lacks");
  if (count > bytes.size() / 8 || bytes.size() != chunk_fixed_bytes + count * 8 + checksum_bytes) {
    throw data_error("the filter chunk's word count does not match its length");
  }
  layers_[index].filter.load_words(first,
                                   std::span(bytes_of(bytes) + chunk_fixed_bytes,
                                             bytes.size() - chunk_fixed_bytes - checksum_bytes));
}

std::string layered_bloom_filter::layer_blob(std::size_t index) const {
  return serialize_filter(any_filter(layers_.at(index).filter));
}

layered_bloom_filter layered_bloom_filter::from_blobs(std::string_view header,
                                                      const std::vector<std::string>& blobs,
                                                      std::uint64_t max_bytes) {
  // Large limit here: a saved value loads whatever the current limit.
  layered_bloom_filter c =
      from_header(header, std::max(max_bytes, std::uint64_t{max_filter_bits / 8}));
  c.max_bytes_ = max_bytes;
  if (blobs.size() != c.layers_.size()) {
    throw data_error("the saved filter has a different number of layers than its header");
  }
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    any_filter f = deserialize_filter(blobs[i]);
    auto* b = f.get_if<blocked_bloom_filter>();
    layer& l = c.layers_[i];
    if (b == nullptr || b->bits() != l.filter.bits() || b->hashes() != l.filter.hashes() ||
        b->hash() != hash_kind::xxh3 || b->seed() != 0 ||
        b->items_added() != l.filter.items_added()) {
      throw data_error("a saved filter layer does not match its header");
    }
    l.filter = std::move(*b);
  }
  return c;
}

bool operator==(const layered_bloom_filter& a, const layered_bloom_filter& b) noexcept {
  if (a.fpr_ != b.fpr_ || a.expansion_ != b.expansion_ || a.nonscaling_ != b.nonscaling_ ||
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
