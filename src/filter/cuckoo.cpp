// The cuckoo filter (include/ringbloom/filter/cuckoo.hpp).
#include "ringbloom/filter/cuckoo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "item_hash.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom {

namespace {

// MurmurHash2's multiplier, RedisBloom's getAltHash constant.
constexpr std::uint64_t alt_multiplier = 0x5bd1e995;

std::uint64_t next_power_of_two(std::uint64_t n) noexcept { return n <= 1 ? 1 : std::bit_ceil(n); }

cuckoo_filter::options checked(std::uint64_t capacity, cuckoo_filter::options o) {
  if (capacity < 1) {
    throw std::invalid_argument("a cuckoo filter needs a capacity of at least 1 item");
  }
  if (o.bucket_size < 1 || o.bucket_size > cuckoo_filter::max_bucket_size) {
    throw std::invalid_argument(fmt::format(
        "cuckoo bucket size {} is not offered; give 1 to 255 fingerprints per bucket (2, as "
        "RedisBloom, or 4 for a higher load factor)",
        o.bucket_size));
  }
  if (o.fingerprint_bits != 8 && o.fingerprint_bits != 12 && o.fingerprint_bits != 16) {
    throw std::invalid_argument(fmt::format(
        "cuckoo fingerprint size {} bits is not offered; give 8, 12 or 16", o.fingerprint_bits));
  }
  if (o.max_kicks < 1 || o.max_kicks > 65535) {
    throw std::invalid_argument(fmt::format(
        "cuckoo max kicks {} is out of range; give 1 to 65535 (RedisBloom's default is 20)",
        o.max_kicks));
  }
  if (o.expansion > 32768) {
    throw std::invalid_argument(fmt::format(
        "cuckoo expansion {} is out of range; give 0 (never grow) to 32768", o.expansion));
  }
  if (capacity / o.bucket_size > cuckoo_filter::max_buckets) {
    throw std::invalid_argument(fmt::format(
        "a cuckoo filter for {} items is too large; keep the capacity under 2^40 buckets",
        capacity));
  }
  o.expansion = o.expansion == 0 ? 0 : static_cast<std::uint32_t>(next_power_of_two(o.expansion));
  return o;
}

std::size_t bytes_for(std::uint64_t buckets, const cuckoo_filter::options& o) {
  const std::uint64_t bits = buckets * o.bucket_size * o.fingerprint_bits;
  return static_cast<std::size_t>((bits + 7) / 8 + cuckoo_filter::slack_bytes(o));
}

// The lookups, over slot bytes wherever they live (a cuckoo_filter's own
// sub-filters or a mapped file's, cuckoo_view): the same code answers both.
struct item_key {
  std::uint64_t hash;
  std::uint32_t fingerprint;
};

[[gnu::always_inline]] inline item_key key_for(std::string_view item,
                                               const cuckoo_filter::options& o) noexcept {
  // xxh3_64(item, o.seed) compiled in (the same bits: the golden files pin
  // them); as a call it cost about 14 instructions of every add, lookup and
  // removal.
  const std::uint64_t h = detail::inline_xxh3_64(item, o.seed);
  // 1 + (h >> 32) mod (2^bits - 1), with a constant divisor for each offered
  // width: the compiler turns it into a multiplication, where a divisor
  // read at run time costs a 64-bit division (tens of cycles) per item.
  const auto high = static_cast<std::uint32_t>(h >> 32);
  if (o.fingerprint_bits == 8) [[likely]]
    return {h, 1 + high % 255u};
  switch (o.fingerprint_bits) {
    case 12:
      return {h, 1 + high % 4095u};
    case 16:
      return {h, 1 + high % 65535u};
    default:
      return {h, 1 + high % ((std::uint32_t{1} << o.fingerprint_bits) - 1)};
  }
}

std::uint32_t slot_at(const unsigned char* bytes, std::uint64_t bucket, std::uint32_t i,
                      const cuckoo_filter::options& o) noexcept {
  const std::uint64_t bit = (bucket * o.bucket_size + i) * o.fingerprint_bits;
  // 8- and 16-bit slots are read at their own width (their arrays have no
  // slack); 12-bit ones as a 4-byte word, within the 7 bytes of slack.
  if (o.fingerprint_bits == 8) return bytes[bit / 8];
  if (o.fingerprint_bits == 16) return io::load_le<std::uint16_t>(bytes + bit / 8);
  const std::uint32_t word = io::load_le<std::uint32_t>(bytes + bit / 8);
  return (word >> (bit % 8)) & ((std::uint32_t{1} << o.fingerprint_bits) - 1);
}

// Whether a bucket holds `fp`. 8-bit slots are bytes, compared in place.
// For the other common shapes (b x bits is 16 to 64 bits, a whole number of
// bytes: b = 2 or 4 at 12 or 16 bits) every bucket starts on a byte and fits
// one 8-byte load, and its slots are compared in registers; other shapes
// read slot by slot. Inlined into the lookups, which call it for every
// sub-filter's two buckets. The load
// may run past the bucket, so it is used only where 8 bytes remain in the
// array of `buckets` buckets (with its slack, if any): in all buckets but
// the last few of an array without slack.
[[gnu::always_inline]] inline bool bucket_holds(const unsigned char* bytes, std::uint64_t bucket,
                                                std::uint64_t buckets, std::uint32_t fp,
                                                const cuckoo_filter::options& o) noexcept {
  const std::uint32_t bits = o.fingerprint_bits;
  if (bits == 8) {  // RedisBloom's width and the default: a slot is a byte
    const unsigned char* p = bytes + bucket * o.bucket_size;
    if (o.bucket_size == 2) return p[0] == fp || p[1] == fp;  // the default bucket
    for (std::uint32_t i = 0; i < o.bucket_size; ++i) {
      if (p[i] == fp) return true;
    }
    return false;
  }
  const std::uint64_t bucket_bits = std::uint64_t{o.bucket_size} * bits;
  const std::uint64_t bucket_bytes = bucket_bits / 8;
  if (bucket_bits > 64 || bucket_bits % 8 != 0 ||
      bucket * bucket_bytes + 8 > buckets * bucket_bytes + cuckoo_filter::slack_bytes(o)) {
    for (std::uint32_t i = 0; i < o.bucket_size; ++i) {
      if (slot_at(bytes, bucket, i, o) == fp) return true;
    }
    return false;
  }
  const std::uint64_t word = io::load_le<std::uint64_t>(bytes + bucket * bucket_bytes);
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  bool found = false;
  for (std::uint32_t i = 0; i < o.bucket_size; ++i) {
    found |= ((word >> (i * bits)) & mask) == fp;
  }
  return found;
}

// The default shape, RedisBloom's: 8-bit fingerprints in buckets of 2, a
// bucket two bytes. add, remove and the lookups take it on a path of its
// own, about half the instructions of the general one (callgrind).
bool default_shape(const cuckoo_filter::options& o) noexcept {
  return o.fingerprint_bits == 8 && o.bucket_size == 2;
}

struct bucket_pair {
  std::uint64_t first;
  std::uint64_t second;
};

bucket_pair buckets_for(item_key k, std::uint64_t buckets) noexcept {
  const std::uint64_t mask = buckets - 1;
  const std::uint64_t b1 = k.hash & mask;
  return {b1, (b1 ^ (k.fingerprint * alt_multiplier)) & mask};
}

// The default shape's four slots of k, in probe order: its two buckets of
// two byte slots each. `Byte` is unsigned char or const unsigned char.
template <class Byte>
[[gnu::always_inline]] inline std::array<Byte*, 4> default_shape_slots(
    Byte* bytes, item_key k, std::uint64_t buckets) noexcept {
  const auto [b1, b2] = buckets_for(k, buckets);
  return {bytes + 2 * b1, bytes + 2 * b1 + 1, bytes + 2 * b2, bytes + 2 * b2 + 1};
}

// `subs` is a range of sub-filters; bytes_of(s) gives one's slot bytes.
template <class Subs, class BytesOf>
bool contains_other_shape(const Subs& subs, BytesOf bytes_of, item_key k,
                          const cuckoo_filter::options& o) noexcept;

template <class Subs, class BytesOf>
[[gnu::always_inline]] inline bool contains(const Subs& subs, BytesOf bytes_of, item_key k,
                                            const cuckoo_filter::options& o) noexcept {
  if (!default_shape(o)) return contains_other_shape(subs, bytes_of, k, o);
  for (const auto& s : subs) {
    for (const unsigned char* p : default_shape_slots(bytes_of(s), k, s.buckets)) {
      if (*p == k.fingerprint) return true;
    }
  }
  return false;
}

// Out of line, so that the default shape's lookup above needs no saved
// registers.
template <class Subs, class BytesOf>
[[gnu::noinline]] bool contains_other_shape(const Subs& subs, BytesOf bytes_of, item_key k,
                                            const cuckoo_filter::options& o) noexcept {
  for (const auto& s : subs) {
    const auto [b1, b2] = buckets_for(k, s.buckets);
    if (bucket_holds(bytes_of(s), b1, s.buckets, k.fingerprint, o) ||
        bucket_holds(bytes_of(s), b2, s.buckets, k.fingerprint, o)) {
      return true;
    }
  }
  return false;
}

template <class Subs, class BytesOf>
std::uint64_t copies(const Subs& subs, BytesOf bytes_of, item_key k,
                     const cuckoo_filter::options& o) noexcept {
  std::uint64_t n = 0;
  for (const auto& s : subs) {
    const auto [b1, b2] = buckets_for(k, s.buckets);
    for (std::uint32_t j = 0; j < o.bucket_size; ++j) {
      n += slot_at(bytes_of(s), b1, j, o) == k.fingerprint ? 1 : 0;
      if (b2 != b1) n += slot_at(bytes_of(s), b2, j, o) == k.fingerprint ? 1 : 0;
    }
  }
  return n;
}

template <class Subs, class BytesOf>
void contains_many(const Subs& subs, BytesOf bytes_of, const cuckoo_filter::options& o,
                   std::span<const std::string_view> items, std::span<bool> answers) {
  if (answers.size() < items.size()) {
    throw std::invalid_argument(fmt::format(
        "may_contain_many has room for {} answers but was given {} items; pass a span as long "
        "as the items",
        answers.size(), items.size()));
  }
  constexpr std::size_t batch = 32;
  const std::uint64_t bucket_bits = std::uint64_t{o.bucket_size} * o.fingerprint_bits;
  std::array<item_key, batch> keys{};
  for (std::size_t start = 0; start < items.size(); start += batch) {
    const std::size_t n = std::min(batch, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = key_for(items[start + i], o);
      for (const auto& s : subs) {
        const auto [b1, b2] = buckets_for(keys[i], s.buckets);
        __builtin_prefetch(bytes_of(s) + b1 * bucket_bits / 8);
        __builtin_prefetch(bytes_of(s) + b2 * bucket_bits / 8);
      }
    }
    for (std::size_t i = 0; i < n; ++i) answers[start + i] = contains(subs, bytes_of, keys[i], o);
  }
}

// Occupied slots of one sub-filter.
std::uint64_t occupied(const unsigned char* bytes, std::uint64_t buckets,
                       const cuckoo_filter::options& o) noexcept {
  std::uint64_t n = 0;
  for (std::uint64_t bucket = 0; bucket < buckets; ++bucket) {
    for (std::uint32_t j = 0; j < o.bucket_size; ++j)
      n += slot_at(bytes, bucket, j, o) != 0 ? 1 : 0;
  }
  return n;
}

const unsigned char* own_bytes(const cuckoo_filter::sub_filter& s) noexcept {
  return s.bytes.data();
}
const unsigned char* view_bytes(const cuckoo_view::sub_view& s) noexcept { return s.bytes; }

}  // namespace

cuckoo_filter::cuckoo_filter(std::uint64_t capacity, options opts)
    : capacity_(capacity),
      options_(checked(capacity, opts)),
      base_buckets_(next_power_of_two(capacity / options_.bucket_size)) {
  // Checked before the allocation, as grow() checks (a capacity such as 10^12
  // is a sentence, not std::bad_alloc); small filters skip reading the
  // operating system's figures, which costs more than allocating them.
  const std::uint64_t bytes = bytes_for(base_buckets_, options_);
  if (bytes >= (std::uint64_t{1} << 26)) {
    io::require_memory(bytes, fmt::format("a cuckoo filter of capacity {}", capacity),
                       "give a smaller capacity (the filter grows when it fills up)");
  }
  add_sub_filter();
}

[[gnu::always_inline]] inline cuckoo_filter::key cuckoo_filter::key_of(
    std::string_view item) const noexcept {
  const item_key k = key_for(item, options_);
  return {k.hash, k.fingerprint};
}

std::uint64_t cuckoo_filter::buckets_of(std::size_t sub) const noexcept {
  std::uint64_t n = base_buckets_;
  for (std::size_t i = 0; i < sub; ++i) n *= options_.expansion;
  return n;
}

void cuckoo_filter::add_sub_filter() {
  sub_filter s;
  s.buckets = buckets_of(subs_.size());
  s.bytes.assign(bytes_for(s.buckets, options_), 0);
  subs_.push_back(std::move(s));
}

// A growth step is checked against the memory this process may still have
// before the new sub-filter is allocated (io::require_memory): an impossible
// growth is refused with a sentence, and the filter is left as it was.
bool cuckoo_filter::grow() {
  if (options_.expansion == 0 || subs_.size() >= max_sub_filters) return false;
  if (buckets_of(subs_.size() - 1) > max_buckets / options_.expansion) return false;
  const std::uint64_t buckets = buckets_of(subs_.size());
  io::require_memory(
      bytes_for(buckets, options_),
      fmt::format("growing the full cuckoo filter by sub-filter {} ({} buckets, expansion {})",
                  subs_.size() + 1, buckets, options_.expansion),
      "the item was not added and the filter is unchanged; create the filter with a larger "
      "capacity and a smaller expansion");
  add_sub_filter();
  return true;
}

// slot, set_slot and put_in_free_slot are inlined into add and remove: as
// calls they cost more than their work (about 60 instructions of a CF.ADD).
[[gnu::always_inline]] inline std::uint32_t cuckoo_filter::slot(const sub_filter& s,
                                                                std::uint64_t bucket,
                                                                std::uint32_t i) const noexcept {
  return slot_at(s.bytes.data(), bucket, i, options_);
}

[[gnu::always_inline]] inline void cuckoo_filter::set_slot(sub_filter& s, std::uint64_t bucket,
                                                           std::uint32_t i,
                                                           std::uint32_t fp) noexcept {
  const std::uint64_t bit = (bucket * options_.bucket_size + i) * options_.fingerprint_bits;
  unsigned char* p = s.bytes.data() + bit / 8;
  if (options_.fingerprint_bits == 8) {  // at the slot's own width, as slot_at
    *p = static_cast<unsigned char>(fp);
    return;
  }
  if (options_.fingerprint_bits == 16) {
    io::store_le<std::uint16_t>(p, static_cast<std::uint16_t>(fp));
    return;
  }
  const std::uint32_t mask = ((std::uint32_t{1} << options_.fingerprint_bits) - 1) << (bit % 8);
  const std::uint32_t word = io::load_le<std::uint32_t>(p);
  io::store_le<std::uint32_t>(p, (word & ~mask) | (fp << (bit % 8)));
}

[[gnu::always_inline]] inline bool cuckoo_filter::put_in_free_slot(sub_filter& s,
                                                                   std::uint64_t bucket,
                                                                   std::uint32_t fp) noexcept {
  if (options_.fingerprint_bits == 8) {  // byte slots, in place
    unsigned char* p = s.bytes.data() + bucket * options_.bucket_size;
    for (std::uint32_t i = 0; i < options_.bucket_size; ++i) {
      if (p[i] == 0) {
        p[i] = static_cast<unsigned char>(fp);
        return true;
      }
    }
    return false;
  }
  for (std::uint32_t i = 0; i < options_.bucket_size; ++i) {
    if (slot(s, bucket, i) == 0) {
      set_slot(s, bucket, i, fp);
      return true;
    }
  }
  return false;
}

// Evicts up to max_kicks fingerprints along a path; if no free slot turns up,
// puts every fingerprint back where it was (nothing is lost) and fails.
bool cuckoo_filter::insert_with_kicks(sub_filter& s, key k) {
  const std::uint64_t mask = s.buckets - 1;
  struct step {
    std::uint64_t bucket;
    std::uint32_t slot;
  };
  std::vector<step> path;
  path.reserve(options_.max_kicks);
  std::uint64_t rng = k.hash ^ 0x9e3779b97f4a7c15ULL;  // victim choice, reproducible per item
  std::uint32_t fp = k.fingerprint;
  std::uint64_t bucket = k.hash & mask;
  for (std::uint32_t kick = 0; kick < options_.max_kicks; ++kick) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    const auto victim = static_cast<std::uint32_t>((rng >> 33) % options_.bucket_size);
    const std::uint32_t evicted = slot(s, bucket, victim);
    set_slot(s, bucket, victim, fp);
    path.push_back({bucket, victim});
    fp = evicted;
    bucket = (bucket ^ (fp * alt_multiplier)) & mask;
    if (put_in_free_slot(s, bucket, fp)) return true;
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const std::uint32_t current = slot(s, it->bucket, it->slot);
    set_slot(s, it->bucket, it->slot, fp);
    fp = current;
  }
  return false;
}

bool cuckoo_filter::add(std::string_view item) {
  const key k = key_of(item);
  if (!default_shape(options_)) return add_other_shape(k);
  for (std::size_t i = subs_.size(); i-- > 0;) {  // the same slots in the same order, as bytes
    for (unsigned char* p :
         default_shape_slots(subs_[i].bytes.data(), {k.hash, k.fingerprint}, subs_[i].buckets)) {
      if (*p == 0) {
        *p = static_cast<unsigned char>(k.fingerprint);
        ++items_;
        return true;
      }
    }
  }
  return add_with_kicks(k);
}

// Out of line, as add_with_kicks, so that the default shape's path above
// needs no saved registers.
[[gnu::noinline]] bool cuckoo_filter::add_other_shape(key k) {
  for (std::size_t i = subs_.size(); i-- > 0;) {
    sub_filter& s = subs_[i];
    const std::uint64_t mask = s.buckets - 1;
    const std::uint64_t b1 = k.hash & mask;
    const std::uint64_t b2 = (b1 ^ (k.fingerprint * alt_multiplier)) & mask;
    if (put_in_free_slot(s, b1, k.fingerprint) || put_in_free_slot(s, b2, k.fingerprint)) {
      ++items_;
      return true;
    }
  }
  return add_with_kicks(k);
}

[[gnu::noinline]] bool cuckoo_filter::add_with_kicks(key k) {
  if (!insert_with_kicks(subs_.back(), k)) {
    if (!grow()) return false;
    sub_filter& s = subs_.back();
    put_in_free_slot(s, k.hash & (s.buckets - 1), k.fingerprint);  // an empty sub-filter
  }
  ++items_;
  return true;
}

bool cuckoo_filter::add_if_absent(std::string_view item) {
  return may_contain(item) ? false : add(item);
}

bool cuckoo_filter::remove(std::string_view item) {
  const key k = key_of(item);
  if (!default_shape(options_)) return remove_other_shape(k);
  for (std::size_t i = subs_.size(); i-- > 0;) {  // the same slots in the same order, as bytes
    for (unsigned char* p :
         default_shape_slots(subs_[i].bytes.data(), {k.hash, k.fingerprint}, subs_[i].buckets)) {
      if (*p == k.fingerprint) {
        *p = 0;
        --items_;
        ++deletes_;
        return true;
      }
    }
  }
  return false;
}

// Out of line, so that the default shape's path above needs no saved
// registers (about 15 instructions a call).
[[gnu::noinline]] bool cuckoo_filter::remove_other_shape(key k) {
  // Takes one copy of the fingerprint out of bucket b; whether there was one.
  const auto take = [&](sub_filter& s, std::uint64_t b) {
    if (options_.fingerprint_bits == 8) {  // byte slots, in place
      unsigned char* p = s.bytes.data() + b * options_.bucket_size;
      for (std::uint32_t j = 0; j < options_.bucket_size; ++j) {
        if (p[j] == k.fingerprint) {
          p[j] = 0;
          return true;
        }
      }
      return false;
    }
    for (std::uint32_t j = 0; j < options_.bucket_size; ++j) {
      if (slot(s, b, j) == k.fingerprint) {
        set_slot(s, b, j, 0);
        return true;
      }
    }
    return false;
  };
  for (std::size_t i = subs_.size(); i-- > 0;) {
    sub_filter& s = subs_[i];
    const auto [b1, b2] = buckets_for({k.hash, k.fingerprint}, s.buckets);
    if (take(s, b1) || take(s, b2)) {
      --items_;
      ++deletes_;
      return true;
    }
  }
  return false;
}

bool cuckoo_filter::may_contain(std::string_view item) const noexcept {
  return contains(subs_, own_bytes, key_for(item, options_), options_);
}

std::uint64_t cuckoo_filter::count(std::string_view item) const noexcept {
  return copies(subs_, own_bytes, key_for(item, options_), options_);
}

void cuckoo_filter::may_contain_many(std::span<const std::string_view> items,
                                     std::span<bool> answers) const {
  contains_many(subs_, own_bytes, options_, items, answers);
}

std::uint64_t cuckoo_filter::slots() const noexcept {
  std::uint64_t n = 0;
  for (const sub_filter& s : subs_) n += s.buckets * options_.bucket_size;
  return n;
}

double cuckoo_filter::load_factor() const noexcept {
  return static_cast<double>(items_) / static_cast<double>(slots());
}

std::uint64_t cuckoo_filter::memory_bytes() const noexcept {
  std::uint64_t n = 0;
  for (const sub_filter& s : subs_) n += s.bytes.size();
  return n;
}

std::uint64_t cuckoo_filter::sub_filter_buckets(std::uint64_t capacity, const options& opts,
                                                std::size_t index) noexcept {
  std::uint64_t n = next_power_of_two(capacity / opts.bucket_size);
  const std::uint64_t growth = opts.expansion == 0 ? 0 : next_power_of_two(opts.expansion);
  for (std::size_t i = 0; i < index; ++i) {
    if (growth != 0 && n > std::numeric_limits<std::uint64_t>::max() / growth) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    n *= growth;
  }
  return n;
}

std::uint64_t cuckoo_filter::sub_filter_bytes(std::uint64_t buckets, const options& opts) noexcept {
  return bytes_for(buckets, opts) - slack_bytes(opts);
}

std::uint64_t cuckoo_filter::planned_memory_bytes(std::uint64_t capacity, const options& opts) {
  const options o = checked(capacity, opts);
  return bytes_for(sub_filter_buckets(capacity, o, 0), o);
}

std::uint64_t cuckoo_filter::memory_bytes_after(std::uint64_t more) const noexcept {
  std::uint64_t slots_now = slots();
  std::uint64_t bytes = memory_bytes();
  std::size_t count = subs_.size();
  // As grow(): a next sub-filter while the expansion allows one.
  while (items_ + more > slots_now && options_.expansion != 0 && count < max_sub_filters &&
         buckets_of(count - 1) <= max_buckets / options_.expansion) {
    const std::uint64_t buckets = buckets_of(count);
    slots_now += buckets * options_.bucket_size;
    bytes += bytes_for(buckets, options_);
    ++count;
  }
  return bytes;
}

double cuckoo_filter::expected_fpr(std::uint32_t bucket_size, std::uint32_t fingerprint_bits,
                                   double load_factor) noexcept {
  const double match = 1.0 / (std::ldexp(1.0, static_cast<int>(fingerprint_bits)) - 1.0);
  return -std::expm1(2.0 * bucket_size * load_factor * std::log1p(-match));
}

cuckoo_filter cuckoo_filter::from_state(std::uint64_t capacity, options opts, std::uint64_t items,
                                        std::uint64_t deletes, std::vector<sub_filter> subs) {
  cuckoo_filter f(capacity, opts);
  if (f.options_.expansion != opts.expansion) {
    throw data_error(fmt::format("cuckoo expansion {} is not a power of two", opts.expansion));
  }
  if (subs.empty() || subs.size() > max_sub_filters) {
    throw data_error(fmt::format("a cuckoo filter has 1 to {} sub-filters, not {}", max_sub_filters,
                                 subs.size()));
  }
  if (subs.size() > 1 && f.options_.expansion == 0) {
    throw data_error("a cuckoo filter with expansion 0 cannot have grown");
  }
  std::uint64_t stored = 0;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const sub_filter& s = subs[i];
    if (i > 0 &&
        f.buckets_of(i - 1) > max_buckets / std::max<std::uint32_t>(f.options_.expansion, 1)) {
      throw data_error("the cuckoo filter's sub-filters are larger than 2^40 buckets");
    }
    const std::uint64_t want = f.buckets_of(i);
    if (s.buckets != want || s.bytes.size() != bytes_for(want, f.options_)) {
      throw data_error(fmt::format(
          "cuckoo sub-filter {} has {} buckets in {} bytes; the growth rule gives {} buckets", i,
          s.buckets, s.bytes.size(), want));
    }
    f.subs_.resize(std::max(f.subs_.size(), i + 1));
    f.subs_[i] = s;
    const std::uint64_t used_bits = want * f.options_.bucket_size * f.options_.fingerprint_bits;
    for (std::uint64_t b = used_bits; b < s.bytes.size() * 8; ++b) {
      if ((s.bytes[b / 8] >> (b % 8)) & 1) {
        throw data_error(fmt::format("cuckoo sub-filter {} has bits set beyond its slots", i));
      }
    }
    stored += occupied(s.bytes.data(), want, f.options_);
  }
  if (stored != items) {
    throw data_error(fmt::format(
        "the cuckoo filter records {} items but its slots hold {} fingerprints", items, stored));
  }
  f.items_ = items;
  f.deletes_ = deletes;
  return f;
}

// --- cuckoo_view ------------------------------------------------------------------

cuckoo_view cuckoo_view::from_state(std::uint64_t capacity, cuckoo_filter::options opts,
                                    std::uint64_t items, std::uint64_t deletes,
                                    std::vector<sub_view> subs,
                                    std::shared_ptr<const void> keepalive) {
  const cuckoo_filter::options o = checked(capacity, opts);
  if (o.expansion != opts.expansion) {
    throw data_error(fmt::format("cuckoo expansion {} is not a power of two", opts.expansion));
  }
  if (subs.empty() || subs.size() > cuckoo_filter::max_sub_filters) {
    throw data_error(fmt::format("a cuckoo filter has 1 to {} sub-filters, not {}",
                                 cuckoo_filter::max_sub_filters, subs.size()));
  }
  if (subs.size() > 1 && o.expansion == 0) {
    throw data_error("a cuckoo filter with expansion 0 cannot have grown");
  }
  std::uint64_t want = next_power_of_two(capacity / o.bucket_size);
  std::uint64_t stored = 0;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    if (i > 0) {
      if (want > cuckoo_filter::max_buckets / o.expansion) {
        throw data_error("the cuckoo filter's sub-filters are larger than 2^40 buckets");
      }
      want *= o.expansion;
    }
    if (subs[i].buckets != want || subs[i].bytes == nullptr) {
      throw data_error(
          fmt::format("cuckoo sub-filter {} has {} buckets; the growth rule gives {} buckets", i,
                      subs[i].buckets, want));
    }
    stored += occupied(subs[i].bytes, want, o);
  }
  if (stored != items) {
    throw data_error(fmt::format(
        "the cuckoo filter records {} items but its slots hold {} fingerprints", items, stored));
  }
  cuckoo_view v;
  v.capacity_ = capacity;
  v.options_ = o;
  v.items_ = items;
  v.deletes_ = deletes;
  v.subs_ = std::move(subs);
  v.keepalive_ = std::move(keepalive);
  return v;
}

bool cuckoo_view::may_contain(std::string_view item) const noexcept {
  return contains(subs_, view_bytes, key_for(item, options_), options_);
}

std::uint64_t cuckoo_view::count(std::string_view item) const noexcept {
  return copies(subs_, view_bytes, key_for(item, options_), options_);
}

void cuckoo_view::may_contain_many(std::span<const std::string_view> items,
                                   std::span<bool> answers) const {
  contains_many(subs_, view_bytes, options_, items, answers);
}

std::uint64_t cuckoo_view::slots() const noexcept {
  std::uint64_t n = 0;
  for (const sub_view& s : subs_) n += s.buckets * options_.bucket_size;
  return n;
}

double cuckoo_view::load_factor() const noexcept {
  return static_cast<double>(items_) / static_cast<double>(slots());
}

std::uint64_t cuckoo_view::memory_bytes() const noexcept {
  std::uint64_t n = 0;
  for (const sub_view& s : subs_) n += bytes_for(s.buckets, options_);
  return n;
}

cuckoo_filter cuckoo_view::copy() const {
  std::vector<cuckoo_filter::sub_filter> subs;
  for (const sub_view& s : subs_) {
    cuckoo_filter::sub_filter own;
    own.buckets = s.buckets;
    const std::size_t n = bytes_for(s.buckets, options_) - cuckoo_filter::slack_bytes(options_);
    own.bytes.assign(s.bytes, s.bytes + n);
    own.bytes.resize(n + cuckoo_filter::slack_bytes(options_), 0);
    subs.push_back(std::move(own));
  }
  return cuckoo_filter::from_state(capacity_, options_, items_, deletes_, std::move(subs));
}

}  // namespace ringbloom
