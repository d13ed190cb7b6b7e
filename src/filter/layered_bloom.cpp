// src/filter/layered_bloom.cpp: the scalable filter of classic and blocked
// layers (see ringbloom/filter/layered_bloom.hpp).
#include "ringbloom/filter/layered_bloom.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "item_hash.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/filter/detail/simd.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {
namespace detail {

/// One layer: its parameters and its words (a classic first layer's live in
/// the block, after it; every other layer's in an array of their own). The
/// last four fields are the block's own, kept in its first layer only: packed
/// there the block is 64 bytes, so that a classic first layer of 192 bytes
/// (100 items at 0.08%) fills jemalloc's 256-byte class rather than the next.
struct layered_layer {
  std::uint64_t capacity = 0;
  std::uint64_t items = 0;
  std::uint64_t bits = 0;
  std::uint64_t* words = nullptr;
  std::uint32_t expansion = 2;  ///< the block's
  std::uint8_t hashes = 0;      ///< at most max_filter_hashes (128)
  filter_kind kind = filter_kind::blocked;
  std::uint8_t count = 1;         ///< the block's: layers, 1..64
  bool nonscaling : 1 = false;    ///< the block's
  bool cannot_grow : 1 = false;   ///< the block's: add_layer was refused (the limits are fixed)
  bool first_inline : 1 = false;  ///< the block's: the first layer's words follow it
};
static_assert(max_filter_hashes <= 255 && sizeof(layered_layer) == 40);

/// The filter's one allocation: parameters, the first layer, and when that
/// layer is inline its words right after this struct (sizeof is a multiple
/// of 8, so they are 8-byte aligned).
struct layered_block {
  double fpr = 0;
  std::uint64_t max_bytes = 0;
  layered_layer* more = nullptr;  ///< layers 1..count-1, exactly count-1 of them
  layered_layer first;

  [[nodiscard]] std::uint64_t* tail() noexcept {
    return reinterpret_cast<std::uint64_t*>(this + 1);
  }
  [[nodiscard]] layered_layer& at(std::size_t i) noexcept { return i == 0 ? first : more[i - 1]; }
  [[nodiscard]] const layered_layer& at(std::size_t i) const noexcept {
    return i == 0 ? first : more[i - 1];
  }
};
static_assert(sizeof(layered_block) == 64);

}  // namespace detail

namespace {

using detail::layered_block;
using detail::layered_layer;

constexpr char header_magic[4] = {'R', 'B', 'C', 'H'};
constexpr char chunk_magic[4] = {'R', 'B', 'C', 'D'};
constexpr std::uint32_t format_version = 2;
constexpr std::size_t header_fixed_bytes = 32;
constexpr std::size_t header_layer_bytes = 32;
constexpr std::size_t chunk_fixed_bytes = 24;
constexpr std::size_t checksum_bytes = io::checksum_bytes;
constexpr std::uint32_t flag_nonscaling = 1;
constexpr std::uint64_t block_bits = blocked_bloom_filter::block_bits;
constexpr std::uint64_t block_header_words = sizeof(layered_block) / 8;

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

// --- memory ---------------------------------------------------------------------

/// A blocked layer's words are cache-line aligned (a block is one line); a
/// classic layer's need only be words.
using blocked_words = detail::zeroed_allocator<std::uint64_t, detail::cache_line_bytes>;
using classic_words = detail::zeroed_allocator<std::uint64_t, 8>;

std::uint64_t* allocate_words(filter_kind kind, std::uint64_t count) {
  return kind == filter_kind::blocked ? blocked_words{}.allocate(count)
                                      : classic_words{}.allocate(count);
}

void free_words(filter_kind kind, std::uint64_t* words, std::uint64_t count) noexcept {
  if (words == nullptr) return;
  if (kind == filter_kind::blocked) {
    blocked_words{}.deallocate(words, count);
  } else {
    classic_words{}.deallocate(words, count);
  }
}

/// A zeroed block with `inline_words` words after it; the first layer's
/// words point there when there are any.
layered_block* allocate_block(std::uint64_t inline_words) {
  std::uint64_t* raw = classic_words{}.allocate(block_header_words + inline_words);
  auto* block = ::new (static_cast<void*>(raw)) layered_block;
  if (inline_words > 0) {
    block->first.words = block->tail();
    block->first.first_inline = true;
  }
  return block;
}

std::uint64_t inline_words_of(layered_block* b) noexcept {
  return b->first.first_inline ? b->first.bits / 64 : 0;
}

/// Frees everything the block owns, and the block.
void free_block(layered_block* b) noexcept {
  if (b == nullptr) return;
  for (std::size_t i = 1; i < b->first.count; ++i) {
    free_words(b->more[i - 1].kind, b->more[i - 1].words, b->more[i - 1].bits / 64);
  }
  if (b->more != nullptr)
    hooked_allocator<layered_layer>{}.deallocate(b->more, b->first.count - 1U);
  const std::uint64_t inline_words = inline_words_of(b);
  if (inline_words == 0) free_words(b->first.kind, b->first.words, b->first.bits / 64);
  const std::uint64_t total = block_header_words + inline_words;
  b->~layered_block();
  classic_words{}.deallocate(reinterpret_cast<std::uint64_t*>(b), total);
}

struct block_deleter {
  void operator()(layered_block* b) const noexcept { free_block(b); }
};
using block_ptr = std::unique_ptr<layered_block, block_deleter>;

double full_rate(filter_kind kind, std::uint64_t capacity, std::uint64_t bits,
                 std::uint32_t hashes) noexcept;

/// Layers of at most this many bytes of words are taken to stay in the CPU's
/// caches (L2 is 256 KiB or more on current x86 cores), where a classic
/// layer's one miss per hash is not paid.
constexpr std::uint64_t cache_resident_bytes = std::uint64_t{64} << 10;

/// The bytes an allocation of `bytes` occupies: its size class.
std::uint64_t class_of(std::uint64_t bytes) noexcept {
  const layered_bloom_filter::size_class_fn size_class = layered_bloom_filter::size_class();
  return size_class == nullptr ? bytes : std::max(bytes, size_class(bytes));
}

// --- layer sizing ---------------------------------------------------------------

/// A layer's shape and what it costs: `words` of words and `cost` bytes of
/// memory in size classes (the block's header included for a first layer:
/// it is paid either way, but an inline layer shares its size class).
struct sized_layer {
  layered_bloom_filter::layer_shape shape;
  std::uint64_t words = 0;
  std::uint64_t cost = 0;
};

/// `least` (blocked_size_for) grown to fill the size class of its words.
filter_size blocked_grown(std::uint64_t capacity, filter_size least) {
  const std::uint64_t bytes = class_of(least.bits / 8) / 64 * 64;
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

/// The best k for a classic layer of `bits` bits near `hint` (the optimum
/// round(ln 2 m / n) or its neighbours: k is an integer, the rate convex).
std::uint32_t classic_hashes(std::uint64_t capacity, std::uint64_t bits) noexcept {
  const std::uint32_t center =
      bloom_math::optimal_hashes(static_cast<double>(bits), static_cast<double>(capacity));
  std::uint32_t best_k = center;
  double best =
      bloom_math::classic_fpr(static_cast<double>(capacity), static_cast<double>(bits), center);
  for (const std::uint32_t k : {center - 1, center + 1}) {
    if (k < 1 || k > max_filter_hashes) continue;
    const double rate =
        bloom_math::classic_fpr(static_cast<double>(capacity), static_cast<double>(bits), k);
    if (rate < best) {
      best = rate;
      best_k = k;
    }
  }
  return best_k;
}

/// Both kinds of a layer, as sized (`least`) and grown to their size class.
struct layer_options {
  std::optional<sized_layer> classic_least, classic_grown, blocked_least, blocked_grown;
};

/// The two kinds' sizes for (capacity, fpr) as layer `index`. The sizing
/// searches (blocked_size_for's over k and blocks with an exact formula:
/// tens to hundreds of microseconds) are kept for the last pairs asked:
/// filters are made with few distinct (capacity, rate) pairs (BF.ADD's
/// default, its layers).
layer_options layer_options_for(std::uint64_t capacity, double fpr, bool first) {
  struct entry {
    std::uint64_t capacity = 0;
    double fpr = 0;
    bool first = false;
    layered_bloom_filter::size_class_fn classes = nullptr;
    layer_options options;
  };
  constexpr std::size_t slots = 64;
  thread_local std::array<entry, slots> cache{};
  thread_local std::size_t next = 0;
  for (const entry& e : cache) {
    if (e.capacity == capacity && e.fpr == fpr && e.first == first &&
        e.classes == layered_bloom_filter::size_class()) {
      return e.options;
    }
  }
  layer_options o;
  const std::uint64_t header = first ? sizeof(layered_block) : 0;
  try {
    const filter_size least = bloom_math::classic_size_for(capacity, fpr);
    const std::uint64_t words = (least.bits + 63) / 64;
    // A classic first layer is inline: it fills what is left of the block's class.
    const std::uint64_t grown_words = (class_of(header + words * 8) - header) / 8;
    o.classic_least =
        sized_layer{{filter_kind::classic, {words * 64, classic_hashes(capacity, words * 64)}},
                    words,
                    class_of(header + words * 8)};
    if (grown_words * 64 <= max_filter_bits) {
      o.classic_grown = sized_layer{
          {filter_kind::classic, {grown_words * 64, classic_hashes(capacity, grown_words * 64)}},
          grown_words,
          class_of(header + words * 8)};
    }
  } catch (const std::invalid_argument&) {
    // more than max_filter_bits
  }
  try {
    if (fpr >= blocked_min_fpr) {
      const filter_size least = bloom_math::blocked_size_for(capacity, fpr);
      const filter_size grown = blocked_grown(capacity, least);
      const std::uint64_t cost = (header == 0 ? 0 : class_of(header)) + class_of(least.bits / 8);
      o.blocked_least = sized_layer{{filter_kind::blocked, least}, least.bits / 64, cost};
      o.blocked_grown = sized_layer{{filter_kind::blocked, grown}, grown.bits / 64, cost};
    }
  } catch (const std::invalid_argument&) {
    // more than max_filter_bits
  }
  cache[next] = {capacity, fpr, first, layered_bloom_filter::size_class(), o};
  next = (next + 1) % slots;
  return o;
}

/// A lower bound of a layer's bytes: the classic filter's optimum,
/// n log2(1/p) / ln 2 bits.
double least_layer_bytes(std::uint64_t capacity, double fpr) noexcept {
  return static_cast<double>(capacity) * -std::log(fpr) / (std::numbers::ln2 * std::numbers::ln2) /
         8;
}

/// The layer for `capacity` items at rate `fpr` whose words take at most
/// `limit` bytes: the kind that costs less memory (blocked at a tie), grown
/// to its size class when that fits, else as sized; none when neither fits
/// (checked cheaply first).
std::optional<sized_layer> fitting_layer(std::uint64_t capacity, double fpr, bool first,
                                         std::uint64_t limit) {
  if (least_layer_bytes(capacity, fpr) > static_cast<double>(limit)) return std::nullopt;
  const layer_options o = layer_options_for(capacity, fpr, first);
  const auto fits = [&](const std::optional<sized_layer>& s) { return s && s->words * 8 <= limit; };
  const auto pick = [&](const std::optional<sized_layer>& grown,
                        const std::optional<sized_layer>& least) -> std::optional<sized_layer> {
    if (fits(grown)) return grown;
    if (fits(least)) return least;
    return std::nullopt;
  };
  const std::optional<sized_layer> classic = pick(o.classic_grown, o.classic_least);
  const std::optional<sized_layer> blocked = pick(o.blocked_grown, o.blocked_least);
  if (!classic || !blocked) return classic ? classic : blocked;
  const auto rate = [&](const sized_layer& l) {
    return full_rate(l.shape.kind, capacity, l.shape.size.bits, l.shape.size.hashes);
  };
  // A layer that stays in cache (one miss per hash costs nothing there):
  // the smaller memory, then the lower rate (classic, at equal bits).
  if (blocked->words * 8 <= cache_resident_bytes) {
    if (classic->cost != blocked->cost) return classic->cost < blocked->cost ? classic : blocked;
    return rate(*classic) <= rate(*blocked) ? classic : blocked;
  }
  // A larger one: blocked unless classic saves more than 1/16 of the
  // memory. With jemalloc's classes (at least 1/8 apart from 64 bytes up)
  // a smaller class for the words does, a blocked first layer's separate
  // 64 bytes of block do not; without classes this keeps the faster kind
  // where blocking costs a few percent (10.43 against 10.05 bits per item
  // at 0.8%).
  if (classic->cost * 16 < blocked->cost * 15) return classic;
  return blocked;
}

// --- one layer's bits -------------------------------------------------------------

/// Calls fn(position) for the k positions of a classic layer: the mixed
/// double hashing of the classic kind (bloom_hashing.hpp,
/// mixed_positions_from_hash), which these layers used before the classic
/// kind did. Unmixed, small layers at tight rates measured up to 60x the
/// formula (100 items at 8e-7: m = 2,923, k = 20); mixed, they measure at
/// bloom_math::classic_fpr (tests/filter/layered_bloom_test.cpp).
template <class Fn>
bool classic_probes(const hash128& h, std::uint64_t m, std::uint32_t k, Fn&& fn) {
  return detail::mixed_positions_from_hash(h, m, k, std::forward<Fn>(fn));
}

bool layer_test(const layered_layer& l, const hash128& h) noexcept {
  if (l.kind == filter_kind::blocked) {
    return detail::best_kernels().test(
        l.words + detail::fastrange64(h.low, l.bits / block_bits) * 8, h.high, l.hashes);
  }
  const std::uint64_t* w = l.words;
  return classic_probes(h, l.bits, l.hashes,
                        [w](std::uint64_t p) { return ((w[p >> 6] >> (p & 63)) & 1) != 0; });
}

void layer_set(layered_layer& l, const hash128& h) noexcept {
  if (l.kind == filter_kind::blocked) {
    detail::best_kernels().add(l.words + detail::fastrange64(h.low, l.bits / block_bits) * 8,
                               h.high, l.hashes);
  } else {
    std::uint64_t* w = l.words;
    classic_probes(h, l.bits, l.hashes, [w](std::uint64_t p) {
      w[p >> 6] |= std::uint64_t{1} << (p & 63);
      return true;
    });
  }
  ++l.items;
}

/// out[i] = the layer may contain hashes[i].
void layer_test_many(const layered_layer& l, const hash128* hashes, std::size_t n, bool* out) {
  if (l.kind == filter_kind::blocked) {
    detail::best_kernels().test_many(l.words, l.bits / block_bits, l.hashes, hashes, n, out);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = layer_test(l, hashes[i]);
}

double full_rate(filter_kind kind, std::uint64_t capacity, std::uint64_t bits,
                 std::uint32_t hashes) noexcept {
  const auto n = static_cast<double>(capacity);
  return kind == filter_kind::blocked
             ? bloom_math::blocked_fpr(n, bits, hashes)
             : bloom_math::classic_fpr(n, static_cast<double>(bits), hashes);
}

/// The rate a layer's bits give now: for a classic layer (ones / m)^k, as
/// for k independent positions; for a blocked one the average over blocks of
/// (ones in the block / 512)^k, exact for the blocked layout.
double rate_of_bits(const layered_layer& l) noexcept {
  const auto k = static_cast<double>(l.hashes);
  const std::uint64_t words = l.bits / 64;
  if (l.kind == filter_kind::classic) {
    std::uint64_t ones = 0;
    for (std::uint64_t i = 0; i < words; ++i)
      ones += static_cast<unsigned>(std::popcount(l.words[i]));
    return std::pow(static_cast<double>(ones) / static_cast<double>(l.bits), k);
  }
  double sum = 0;
  for (std::uint64_t b = 0; b < words; b += 8) {
    unsigned ones = 0;
    for (std::uint64_t w = b; w < b + 8; ++w)
      ones += static_cast<unsigned>(std::popcount(l.words[w]));
    sum += std::pow(ones / 512.0, k);
  }
  return sum / static_cast<double>(words / 8);
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

hash128 item_hash(std::string_view item) noexcept { return detail::inline_xxh3_128(item, 0); }

/// A filter's block with the first layer of `shape` (zeroed words, inline
/// when classic), parameters from the arguments.
block_ptr new_block(double fpr, std::uint32_t expansion, bool nonscaling, std::uint64_t max_bytes,
                    std::uint64_t capacity, const layered_bloom_filter::layer_shape& shape,
                    std::uint64_t items) {
  const std::uint64_t words = shape.size.bits / 64;
  block_ptr b(allocate_block(shape.kind == filter_kind::classic ? words : 0));
  b->fpr = fpr;
  b->first.expansion = expansion;
  b->first.nonscaling = nonscaling;
  b->max_bytes = max_bytes;
  b->first.capacity = capacity;
  b->first.bits = shape.size.bits;
  b->first.hashes = static_cast<std::uint8_t>(shape.size.hashes);
  b->first.kind = shape.kind;
  b->first.items = items;
  if (shape.kind == filter_kind::blocked) {
    // first.words is null until this succeeds: free_block then frees nothing more.
    b->first.words = allocate_words(filter_kind::blocked, words);
  }
  return b;
}

/// Appends a layer of `shape` with zeroed words to `b` (the table of later
/// layers is reallocated at exactly its new size).
void append_layer(layered_block& b, std::uint64_t capacity,
                  const layered_bloom_filter::layer_shape& shape, std::uint64_t items) {
  const std::uint64_t words = shape.size.bits / 64;
  std::uint64_t* w = allocate_words(shape.kind, words);
  layered_layer* table = nullptr;
  try {
    table = hooked_allocator<layered_layer>{}.allocate(b.first.count);
  } catch (...) {
    free_words(shape.kind, w, words);
    throw;
  }
  if (b.more != nullptr) {
    std::copy(b.more, b.more + (b.first.count - 1), table);
    hooked_allocator<layered_layer>{}.deallocate(b.more, b.first.count - 1U);
  }
  layered_layer& added = table[b.first.count - 1];
  added = layered_layer{};
  added.capacity = capacity;
  added.items = items;
  added.bits = shape.size.bits;
  added.words = w;
  added.hashes = static_cast<std::uint8_t>(shape.size.hashes);
  added.kind = shape.kind;
  b.more = table;
  ++b.first.count;
}

}  // namespace

double layered_bloom_filter::layer_info::full_fpr() const noexcept {
  return full_rate(kind, capacity, bits, hashes);
}

layered_bloom_filter::layer_shape layered_bloom_filter::layer_shape_for(std::uint64_t capacity,
                                                                        double fpr,
                                                                        std::uint32_t index) {
  if (capacity < 1 || !(fpr > 0 && fpr < 1)) {
    throw std::invalid_argument("a layer needs a capacity of at least 1 and a rate in (0, 1)");
  }
  const std::optional<sized_layer> s =
      fitting_layer(capacity, fpr, index == 0, std::uint64_t{max_filter_bits / 8});
  if (!s) throw std::invalid_argument("the layer would need more than max_filter_bits");
  return s->shape;
}

double layered_bloom_filter::layer_fpr(double p, std::uint32_t index, bool nonscaling) noexcept {
  if (nonscaling) return p;
  if (index == 0) return first_layer_share * p;
  // The rest of the budget, (1 - s) p, spread as 6 / (pi^2 i^2) over
  // i = 1, 2, ...: the series sums to 1 (Basel problem).
  const double i = index;
  return (1 - first_layer_share) * p * 6 / (std::numbers::pi * std::numbers::pi * i * i);
}

layered_bloom_filter::layered_bloom_filter(std::uint64_t capacity, double fpr,
                                           std::uint32_t expansion, bool nonscaling,
                                           std::uint64_t max_bytes) {
  if (capacity < 1) throw std::invalid_argument("the capacity must be at least 1");
  if (!(fpr > 0 && fpr < 1)) throw std::invalid_argument("the error rate must be in (0, 1)");
  if (expansion < 1) throw std::invalid_argument("the expansion must be at least 1");
  const double first = layer_fpr(fpr, 0, nonscaling);
  const std::optional<sized_layer> size = capacity > max_filter_bits || first < min_fpr
                                              ? std::nullopt
                                              : fitting_layer(capacity, first, true, max_bytes);
  if (!size) {
    throw std::length_error("the filter's first layer needs more than its limit of " +
                            std::to_string(max_bytes) + " bytes");
  }
  block_ = new_block(fpr, expansion, nonscaling, max_bytes, capacity, size->shape, 0).release();
}

layered_bloom_filter::layered_bloom_filter(const layered_bloom_filter& other) {
  const layered_block& o = *other.block_;
  block_ptr b =
      new_block(o.fpr, o.first.expansion, o.first.nonscaling, o.max_bytes, o.first.capacity,
                {o.first.kind, {o.first.bits, o.first.hashes}}, o.first.items);
  b->first.cannot_grow = o.first.cannot_grow;
  std::copy(o.first.words, o.first.words + o.first.bits / 64, b->first.words);
  for (std::size_t i = 1; i < o.first.count; ++i) {
    const layered_layer& l = o.at(i);
    append_layer(*b, l.capacity, {l.kind, {l.bits, l.hashes}}, l.items);
    std::copy(l.words, l.words + l.bits / 64, b->at(i).words);
  }
  block_ = b.release();
}

layered_bloom_filter::layered_bloom_filter(layered_bloom_filter&& other) noexcept
    : block_(std::exchange(other.block_, nullptr)) {}

layered_bloom_filter& layered_bloom_filter::operator=(const layered_bloom_filter& other) {
  if (this != &other) *this = layered_bloom_filter(other);
  return *this;
}

layered_bloom_filter& layered_bloom_filter::operator=(layered_bloom_filter&& other) noexcept {
  if (this != &other) {
    free_block(block_);
    block_ = std::exchange(other.block_, nullptr);
  }
  return *this;
}

layered_bloom_filter::~layered_bloom_filter() { free_block(block_); }

bool layered_bloom_filter::add_layer() {
  layered_block& b = *block_;
  // The limits do not change, so a refusal is final: remember it rather
  // than size the same layer again on every add.
  if (b.first.cannot_grow || b.first.count >= max_layers) return false;
  b.first.cannot_grow = true;
  const layered_layer& last = b.at(b.first.count - 1U);
  if (last.capacity > max_filter_bits / b.first.expansion) return false;
  const std::uint64_t capacity = last.capacity * b.first.expansion;
  // Never below the schedule's own share for this layer: by the formulas
  // the budget is always at least that much, and only layers whose bits
  // drew a dense fill (tiny layers: 4 items in 64 bits measure up to 10x
  // their formula) can spend the rest. Without the floor such a chain
  // refused every add after about 15 layers (capacity 4, EXPANSION 1, p =
  // 1%), where RedisBloom grows on.
  const double budget =
      std::max(next_budget(), layer_fpr(b.fpr, static_cast<std::uint32_t>(b.first.count), false));
  if (!(budget >= min_fpr)) return false;
  const std::uint64_t used = word_bytes();
  if (used >= b.max_bytes) return false;
  std::optional<sized_layer> size = fitting_layer(capacity, budget, false, b.max_bytes - used);
  if (!size) return false;
  // A large layer is blocked at equal memory (faster), but its rate is
  // higher than classic's, and what it spends the next layer cannot: when
  // that pushes the next layer into a larger size class, classic. (A 3-layer
  // chain from 25,000 items at 1% took 344 KB with a blocked second layer,
  // 311 KB with a classic one.)
  if (size->shape.kind == filter_kind::blocked) {
    const layer_options o = layer_options_for(capacity, budget, false);
    const std::optional<sized_layer>& classic = o.classic_grown;
    if (classic && classic->cost == size->cost && classic->words * 8 <= b.max_bytes - used &&
        capacity <= max_filter_bits / b.first.expansion) {
      // The next layer's budget once this one is full: this budget, less
      // this layer's rate, plus the schedule's share for the next index.
      const double after = layer_fpr(b.fpr, b.first.count + 1U, false);
      const auto next_cost = [&](const sized_layer& l) {
        const double rate =
            full_rate(l.shape.kind, capacity, l.shape.size.bits, l.shape.size.hashes);
        const double next = budget - rate + after;
        if (!(next >= min_fpr)) return std::numeric_limits<std::uint64_t>::max();
        const std::optional<sized_layer> n = fitting_layer(
            capacity * b.first.expansion, next, false, std::uint64_t{max_filter_bits / 8});
        return n ? n->cost : std::numeric_limits<std::uint64_t>::max();
      };
      if (next_cost(*classic) < next_cost(*size)) size = classic;
    }
  }
  append_layer(b, capacity, size->shape, 0);
  b.first.cannot_grow = false;
  return true;
}

double layered_bloom_filter::next_budget() const noexcept {
  const layered_block& b = *block_;
  // Rates spent: each layer's exact rate when full (at most its budget,
  // lower when its words were grown to their size class), or the rate its
  // bits give now when that is higher. The formula is an average over item
  // sets; the bits are this filter's: 100 items in 1,024 bits set a fraction
  // that varies by about 2%, so a full first layer's rate varies by about
  // 12% around its 0.8 p, and a chain that trusted the formula measured
  // 1.10% at p = 1% for one item set (10 layers from a capacity of 100).
  // Every layer but the newest is full and never changes again.
  double spent = 0;
  for (std::size_t i = 0; i < b.first.count; ++i) {
    const layered_layer& l = b.at(i);
    spent += std::max(full_rate(l.kind, l.capacity, l.bits, l.hashes), rate_of_bits(l));
  }
  // Kept for the layers after this one: their schedule budgets,
  // (1 - s) p (1 - (6 / pi^2) sum_{j <= index} 1 / j^2).
  double series = 0;
  for (std::size_t j = 1; j <= b.first.count; ++j) {
    series += 1.0 / (static_cast<double>(j) * static_cast<double>(j));
  }
  const double reserve =
      std::max(0.0, (1 - first_layer_share) * b.fpr *
                        (1 - 6 / (std::numbers::pi * std::numbers::pi) * series));
  return b.fpr - spent - reserve;
}

layered_bloom_filter::add_status layered_bloom_filter::add_hash(const hash128& h,
                                                                std::size_t first_layer) {
  layered_block& b = *block_;
  for (std::size_t l = first_layer; l < b.first.count; ++l) {
    if (layer_test(b.at(l), h)) return add_status::present;
  }
  const layered_layer& last = b.at(b.first.count - 1U);
  if (last.items >= last.capacity) {
    if (b.first.nonscaling) return add_status::full;
    if (!add_layer()) return add_status::too_large;
  }
  layer_set(b.at(b.first.count - 1U), h);
  return add_status::added;
}

layered_bloom_filter::add_status layered_bloom_filter::add(std::string_view item) {
  return add_hash(item_hash(item), 0);
}

std::size_t layered_bloom_filter::add_many(std::span<const std::string_view> items,
                                           std::span<add_status> out) {
  const std::size_t n = std::min(items.size(), out.size());
  batch_buffer<hash128> hashes(n);
  for (std::size_t i = 0; i < n; ++i) hashes[i] = item_hash(items[i]);
  // Ask every layer for the whole batch first (hashing done, blocks
  // prefetched: one memory wait for many items). Bits are only ever set, so
  // a yes stays a yes. Items answered no are then re-asked, one by one, of
  // the newest layer and of any added meanwhile (earlier items of this batch
  // may have set their bits; the newest layer's blocks are now in cache),
  // and added.
  const std::size_t newest = block_->first.count - 1U;
  batch_buffer<bool> present(n);
  batch_buffer<bool> answer(n);
  for (std::size_t l = 0; l <= newest; ++l) {
    layer_test_many(block_->at(l), hashes.data(), n, answer.data());
    for (std::size_t i = 0; i < n; ++i) present[i] = present[i] || answer[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = present[i] ? add_status::present : add_hash(hashes[i], newest);
    if (out[i] == add_status::full || out[i] == add_status::too_large) return i + 1;
  }
  return n;
}

bool layered_bloom_filter::may_contain(std::string_view item) const {
  const hash128 h = item_hash(item);
  const layered_block& b = *block_;
  for (std::size_t i = b.first.count; i-- > 0;) {
    if (layer_test(b.at(i), h)) return true;
  }
  return false;
}

void layered_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                            std::span<bool> out) const {
  const std::size_t n = std::min(items.size(), out.size());
  batch_buffer<hash128> hashes(n);
  for (std::size_t i = 0; i < n; ++i) hashes[i] = item_hash(items[i]);
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), false);
  batch_buffer<bool> answer(n);
  for (std::size_t l = 0; l < block_->first.count; ++l) {
    layer_test_many(block_->at(l), hashes.data(), n, answer.data());
    for (std::size_t i = 0; i < n; ++i) out[i] = out[i] || answer[i];
  }
}

std::size_t layered_bloom_filter::layer_count() const noexcept { return block_->first.count; }

layered_bloom_filter::layer_info layered_bloom_filter::layer(std::size_t index) const noexcept {
  const layered_layer& l = block_->at(index);
  return {l.kind, l.capacity, l.bits, l.hashes, l.items, {l.words, l.bits / 64}};
}

double layered_bloom_filter::fpr() const noexcept { return block_->fpr; }
std::uint32_t layered_bloom_filter::expansion() const noexcept { return block_->first.expansion; }
bool layered_bloom_filter::nonscaling() const noexcept { return block_->first.nonscaling; }
std::uint64_t layered_bloom_filter::max_bytes() const noexcept { return block_->max_bytes; }

std::uint64_t layered_bloom_filter::capacity() const noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < block_->first.count; ++i) sum += block_->at(i).capacity;
  return sum;
}

std::uint64_t layered_bloom_filter::items() const noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < block_->first.count; ++i) sum += block_->at(i).items;
  return sum;
}

std::uint64_t layered_bloom_filter::word_bytes() const noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < block_->first.count; ++i) sum += block_->at(i).bits / 8;
  return sum;
}

std::uint64_t layered_bloom_filter::memory_bytes() const noexcept {
  return sizeof(*this) + sizeof(layered_block) +
         (block_->first.count - 1U) * sizeof(layered_layer) + word_bytes();
}

// Header: "RBCH", version u32, fpr f64, expansion u32, flags u32, layer
// count u32, reserved u32; per layer capacity u64, bits u64, items u64,
// hashes u32, kind u32; XXH3-64 of all that.
std::string layered_bloom_filter::header() const {
  const layered_block& b = *block_;
  std::string out(header_fixed_bytes + b.first.count * header_layer_bytes + checksum_bytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, header_magic, sizeof(header_magic));
  io::store_le<std::uint32_t>(p + 4, format_version);
  io::store_f64(p + 8, b.fpr);
  io::store_le<std::uint32_t>(p + 16, b.first.expansion);
  io::store_le<std::uint32_t>(p + 20, b.first.nonscaling ? flag_nonscaling : 0);
  io::store_le<std::uint32_t>(p + 24, b.first.count);
  for (std::size_t i = 0; i < b.first.count; ++i) {
    const layered_layer& l = b.at(i);
    unsigned char* at = p + header_fixed_bytes + i * header_layer_bytes;
    io::store_le<std::uint64_t>(at, l.capacity);
    io::store_le<std::uint64_t>(at + 8, l.bits);
    io::store_le<std::uint64_t>(at + 16, l.items);
    io::store_le<std::uint32_t>(at + 24, l.hashes);
    io::store_le<std::uint32_t>(at + 28, static_cast<std::uint32_t>(l.kind));
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
  const auto version = get<std::uint32_t>(bytes, 4);
  if (version != 1 && version != format_version) {
    throw data_error("the filter header has an unknown format version");
  }
  const double fpr = io::load_f64(bytes_of(bytes) + 8);
  const auto expansion = get<std::uint32_t>(bytes, 16);
  const auto flags = get<std::uint32_t>(bytes, 20);
  const auto count = get<std::uint32_t>(bytes, 24);
  if (!(fpr > 0 && fpr < 1) || expansion < 1 || (flags & ~flag_nonscaling) != 0 ||
      get<std::uint32_t>(bytes, 28) != 0 || count < 1 || count > max_layers ||
      bytes.size() != header_fixed_bytes + count * header_layer_bytes + checksum_bytes) {
    throw data_error("the filter header has impossible parameters");
  }
  std::uint64_t total = 0;
  block_ptr b;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = header_fixed_bytes + i * header_layer_bytes;
    const auto capacity = get<std::uint64_t>(bytes, at);
    const auto bits = get<std::uint64_t>(bytes, at + 8);
    const auto items = get<std::uint64_t>(bytes, at + 16);
    const auto hashes = get<std::uint32_t>(bytes, at + 24);
    const auto code = get<std::uint32_t>(bytes, at + 28);
    // Version 1 knew blocked layers only, with a reserved 0 here.
    const auto kind = version == 1 ? (code == 0 ? filter_kind::blocked : filter_kind{0})
                                   : static_cast<filter_kind>(code);
    const bool blocked_ok = kind == filter_kind::blocked && bits >= block_bits &&
                            bits % block_bits == 0 && hashes <= max_blocked_hashes;
    const bool classic_ok =
        kind == filter_kind::classic && bits >= 64 && bits % 64 == 0 && hashes <= max_filter_hashes;
    if ((code >> 8) != 0 || capacity < 1 || (!blocked_ok && !classic_ok) ||
        bits > max_filter_bits || hashes < 1) {
      throw data_error("the filter header has an impossible layer");
    }
    total += bits / 8;
    if (total > max_bytes) {
      throw data_error("the filter's layers need more than its limit of " +
                       std::to_string(max_bytes) + " bytes");
    }
    const layer_shape shape{kind, {bits, hashes}};
    if (i == 0) {
      b = new_block(fpr, expansion, (flags & flag_nonscaling) != 0, max_bytes, capacity, shape,
                    items);
    } else {
      append_layer(*b, capacity, shape, items);
    }
  }
  return layered_bloom_filter(b.release());
}

// Chunk: "RBCD", layer u32, first word u64, word count u64, the words,
// XXH3-64 of all that.
std::string layered_bloom_filter::chunk(std::uint64_t& cursor) const {
  const layered_block& b = *block_;
  if (cursor < 1) cursor = 1;
  std::uint64_t word = cursor - 1;
  std::size_t index = 0;
  while (index < b.first.count && word >= b.at(index).bits / 64) {
    word -= b.at(index).bits / 64;
    ++index;
  }
  if (index == b.first.count) return {};
  const layered_layer& l = b.at(index);
  constexpr std::uint64_t max_words = (max_chunk_bytes - chunk_fixed_bytes - checksum_bytes) / 8;
  const std::uint64_t count = std::min<std::uint64_t>(l.bits / 64 - word, max_words);
  std::string out(chunk_fixed_bytes + count * 8 + checksum_bytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, chunk_magic, sizeof(chunk_magic));
  io::store_le<std::uint32_t>(p + 4, static_cast<std::uint32_t>(index));
  io::store_le<std::uint64_t>(p + 8, word);
  io::store_le<std::uint64_t>(p + 16, count);
  for (std::uint64_t i = 0; i < count; ++i) {
    io::store_le<std::uint64_t>(p + chunk_fixed_bytes + 8 * i, l.words[word + i]);
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
  if (index >= block_->first.count)
    throw data_error("the filter chunk names a layer the filter lacks");
  if (count > bytes.size() / 8 || bytes.size() != chunk_fixed_bytes + count * 8 + checksum_bytes) {
    throw data_error("the filter chunk's word count does not match its length");
  }
  layered_layer& l = block_->at(index);
  const std::uint64_t words = l.bits / 64;
  if (first > words || count > words - first) {
    throw data_error("the filter chunk's words do not fit its layer");
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    l.words[first + i] = get<std::uint64_t>(bytes, chunk_fixed_bytes + 8 * i);
  }
}

std::string layered_bloom_filter::layer_blob(std::size_t index) const {
  const layered_layer& l = block_->at(index);
  // A read-only view of the layer's words (kept alive by this filter, for
  // the length of this call): serialized without a copy.
  const std::shared_ptr<const void> alive(std::shared_ptr<const void>{}, l.words);
  detail::word_store view = detail::word_store::view(l.words, l.bits / 64, alive);
  if (l.kind == filter_kind::blocked) {
    return serialize_filter(any_filter(blocked_bloom_filter::from_words(
        l.bits, l.hashes, hash_kind::xxh3, 0, l.items, std::move(view))));
  }
  // A classic layer's blob stays the version-2 classic file every release
  // has written (so an RDB loads in older modules too): its bits are placed
  // by the mixed rule, which these layers have always used and from_blobs
  // takes from the chain, not from the blob's version. (Read as a filter
  // file on its own, such a blob would be probed by the old rule.)
  return serialize_filter(
      any_filter(bloom_filter::from_words(l.bits, l.hashes, hash_kind::xxh3, 0, l.items,
                                          std::move(view), position_rule::double_hashing)));
}

layered_bloom_filter layered_bloom_filter::from_blobs(std::string_view header,
                                                      const std::vector<std::string>& blobs,
                                                      std::uint64_t max_bytes) {
  // Large limit here: a saved value loads whatever the current limit.
  layered_bloom_filter c =
      from_header(header, std::max(max_bytes, std::uint64_t{max_filter_bits / 8}));
  c.block_->max_bytes = max_bytes;
  if (blobs.size() != c.block_->first.count) {
    throw data_error("the saved filter has a different number of layers than its header");
  }
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    const any_filter f = deserialize_filter(blobs[i]);
    layered_layer& l = c.block_->at(i);
    const auto matches = [&](const auto* g) {
      return g != nullptr && g->bits() == l.bits && g->hashes() == l.hashes &&
             g->hash() == hash_kind::xxh3 && g->seed() == 0 && g->items_added() == l.items &&
             g->words().size() == l.bits / 64;
    };
    std::span<const std::uint64_t> words;
    if (l.kind == filter_kind::blocked && matches(f.get_if<blocked_bloom_filter>())) {
      words = f.get_if<blocked_bloom_filter>()->words();
    } else if (l.kind == filter_kind::classic && matches(f.get_if<bloom_filter>())) {
      words = f.get_if<bloom_filter>()->words();
    } else {
      throw data_error("a saved filter layer does not match its header");
    }
    std::copy(words.begin(), words.end(), l.words);
  }
  return c;
}

bool operator==(const layered_bloom_filter& a, const layered_bloom_filter& b) noexcept {
  const detail::layered_block& x = *a.block_;
  const detail::layered_block& y = *b.block_;
  if (x.fpr != y.fpr || x.first.expansion != y.first.expansion ||
      x.first.nonscaling != y.first.nonscaling || x.first.count != y.first.count) {
    return false;
  }
  for (std::size_t i = 0; i < x.first.count; ++i) {
    const detail::layered_layer& l = x.at(i);
    const detail::layered_layer& m = y.at(i);
    if (l.capacity != m.capacity || l.items != m.items || l.bits != m.bits ||
        l.hashes != m.hashes || l.kind != m.kind ||
        !std::equal(l.words, l.words + l.bits / 64, m.words)) {
      return false;
    }
  }
  return true;
}

}  // namespace ringbloom
