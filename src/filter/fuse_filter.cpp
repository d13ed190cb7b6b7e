// Binary fuse filters (see ringbloom/filter/fuse_filter.hpp).
//
// Construction is the paper's peeling (Graf and Lemire 2022, section 4;
// the same idea as xor filters, Graf and Lemire 2020): every slot counts the
// keys that hash to it and keeps the XOR of their hashes; a slot with one key
// identifies that key, which is removed from its other slots and pushed on a
// stack; when every key is on the stack, fingerprints are assigned in reverse
// order, each key's free slot chosen so that its Arity slots XOR to its
// fingerprint. Each slot's count lives in the top 6 bits of a byte and the XOR
// of the slot indexes (0..Arity-1, at most 3) of its keys in the low 2 bits,
// so the last key of a slot also says which of its slots this is. The code is
// one template for arity 3 and 4; only the sizing constants differ.
#include "ringbloom/filter/fuse_filter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "ringbloom/hash.hpp"
#include "ringbloom/mix.hpp"

namespace ringbloom {
namespace {

/// The next build seed after a failed try: splitmix64's increment (2^64 /
/// golden ratio), mixed.
std::uint64_t next_seed(std::uint64_t seed) noexcept {
  return fmix64(seed + 0x9e3779b97f4a7c15ULL);
}

constexpr int max_tries = 1000;

struct free_deleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

/// n zeroed Ts (calloc: no memset pass for large n). Throws std::bad_alloc.
template <class T>
std::unique_ptr<T[], free_deleter> zeroed(std::size_t n) {
  void* p = std::calloc(n == 0 ? 1 : n, sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  return std::unique_ptr<T[], free_deleter>(static_cast<T*>(p));
}

/// The paper's sizing rules (section 5, and Graf and Lemire's reference code,
/// fastfilter_cpp's calculateSegmentLength / calculateSizeFactor): segment
/// length 2^floor(ln n / ln base + offset), at most 2^18; slots per key
/// max(floor_factor, a + b ln(pivot) / ln n), which tends to floor_factor for
/// large n and gives small sets relatively more room.
struct fuse_sizing {
  double base, offset;               // the segment length's exponent
  double floor_factor, a, b, pivot;  // the slots per key
};
constexpr fuse_sizing sizing_for(unsigned arity) noexcept {
  return arity == 3 ? fuse_sizing{3.33, 2.25, 1.125, 0.875, 0.25, 1e6}
                    : fuse_sizing{2.91, -0.5, 1.075, 0.77, 0.305, 6e5};
}

}  // namespace

template <class Fingerprint, unsigned Arity>
std::uint64_t binary_fuse_filter<Fingerprint, Arity>::key_hash(std::string_view item,
                                                               std::uint64_t seed) noexcept {
  return xxh3_64(item, seed);
}

template <class Fingerprint, unsigned Arity>
void binary_fuse_filter<Fingerprint, Arity>::size_for(std::uint64_t n) {
  // Arity 3: about 1.125 n slots for large n; arity 4: about 1.075 n.
  constexpr fuse_sizing rule = sizing_for(Arity);
  const double dn = static_cast<double>(n);
  const int exponent =
      n == 0 ? 2 : static_cast<int>(std::floor(std::log(dn) / std::log(rule.base) + rule.offset));
  segment_length_ = std::uint32_t{1} << std::clamp(exponent, 2, 18);
  segment_mask_ = segment_length_ - 1;
  const double factor =
      n <= 1 ? 0.0
             : std::max(rule.floor_factor, rule.a + rule.b * std::log(rule.pivot) / std::log(dn));
  const auto capacity = static_cast<std::int64_t>(std::llround(dn * factor));
  const std::int64_t length = segment_length_;
  constexpr std::int64_t extra = Arity - 1;  // segments h0 cannot start in
  std::int64_t segments = (capacity + length - 1) / length - extra;
  segments = std::max<std::int64_t>(segments, 1);
  segment_count_length_ = static_cast<std::uint32_t>(segments * length);
  slot_count_ = static_cast<std::uint64_t>((segments + extra) * length);
}

template <class Fingerprint, unsigned Arity>
void binary_fuse_filter<Fingerprint, Arity>::mixed_by_segment(
    std::span<const std::uint64_t> keys, std::vector<std::uint64_t>& out) const {
  // The keys' mixed hashes, ordered by the top bits of their spread h (the
  // mixed hash itself for arity 3). h0 grows with h
  // (multiply-shift), so this order visits the slots' counters front to
  // back: the counting pass then touches a few cache lines at a time instead
  // of Arity random ones per key (the paper's section 5 does the same). One
  // counting sort by the top `bits` bits, about one bucket per segment, that
  // mixes each key twice rather than holding a second array; the order
  // within a bucket does not matter.
  out.resize(keys.size());
  const std::uint64_t segments = segment_count_length_ / segment_length_;
  int bits = 0;
  while (bits < 20 && (std::uint64_t{1} << (bits + 1)) <= segments) ++bits;
  if (bits == 0) {
    for (std::size_t i = 0; i < keys.size(); ++i) out[i] = mixed(keys[i]);
    return;
  }
  const int shift = 64 - bits;
  std::vector<std::uint32_t> start((std::size_t{1} << bits) + 1, 0);
  for (const std::uint64_t key : keys) ++start[(spread(mixed(key)).h >> shift) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  for (const std::uint64_t key : keys) {
    const std::uint64_t m = mixed(key);
    out[start[spread(m).h >> shift]++] = m;
  }
}

template <class Fingerprint, unsigned Arity>
bool binary_fuse_filter<Fingerprint, Arity>::try_build(std::span<const std::uint64_t> keys,
                                                       std::vector<Fingerprint>& out) {
  const auto size = static_cast<std::size_t>(slot_count_);
  out.assign(size, Fingerprint{0});
  // Zeroed by calloc: large blocks come straight from the kernel already
  // zero, so no pass over them is made before the first use.
  const auto count = zeroed<std::uint8_t>(size);  // keys << 2 | XOR of their slot indexes
  const auto xor_hash = zeroed<std::uint64_t>(size);
  std::vector<std::uint64_t> hashes;
  mixed_by_segment(keys, hashes);
  // No test per update: the OR of every count seen tells at the end whether
  // a slot reached 32 keys (bit 7). That is far below the 63 a byte holds
  // and never happens for distinct keys (about 2.7 keys per slot for arity
  // 3, 3.7 for arity 4); equal
  // keys fail the peeling anyway and are removed before the next try.
  std::uint8_t seen = 0;
  for (const std::uint64_t h : hashes) {
    const slot_array at = slots_of(h);
    for (std::uint8_t j = 0; j < Arity; ++j) {
      count[at[j]] = static_cast<std::uint8_t>((count[at[j]] + 4) ^ j);
      seen |= count[at[j]];
      xor_hash[at[j]] ^= h;
    }
  }
  if (seen >= 0x80) return false;  // a crowded slot: try another seed
  // The slots holding one key, as a stack. Each slot enters it at most once
  // (here with one key, or later when its count drops from 2 to 1; counts
  // only fall), so `size` entries always suffice and a push needs no test.
  const auto alone = std::make_unique_for_overwrite<std::uint32_t[]>(size);
  std::size_t top = 0;
  for (std::uint32_t i = 0; i < size; ++i) {
    alone[top] = i;
    top += (count[i] >> 2) == 1 ? 1 : 0;
  }
  // The peeled keys' mixed hashes, in the storage of `hashes` (no longer
  // needed), and which of their slots each was peeled from.
  std::vector<std::uint64_t> order;
  order.swap(hashes);
  std::size_t peeled = 0;
  const auto which = std::make_unique_for_overwrite<std::uint8_t[]>(keys.size());
  while (top > 0) {
    const std::uint32_t i = alone[--top];
    if ((count[i] >> 2) != 1) continue;  // emptied since it was queued
    const std::uint64_t h = xor_hash[i];
    const auto found = static_cast<std::uint8_t>(count[i] & 3);
    order[peeled] = h;
    which[peeled] = found;
    ++peeled;
    const slot_array at = slots_of(h);
    // Slot i itself is left as it is: it never enters the stack again and
    // its count and XOR are not read after this.
    for (std::uint8_t j = 0; j < Arity; ++j) {
      if (j == found) continue;
      const std::uint32_t slot = at[j];
      count[slot] = static_cast<std::uint8_t>((count[slot] - 4) ^ j);
      xor_hash[slot] ^= h;
      alone[top] = slot;
      top += (count[slot] >> 2) == 1 ? 1 : 0;
    }
  }
  order.resize(peeled);
  if (order.size() != keys.size()) return false;
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::uint64_t h = order[k];
    const slot_array at = slots_of(h);
    const std::uint32_t free_slot = at[which[k]];
    out[free_slot] = 0;
    Fingerprint value = fingerprint_of(h);
    for (const std::uint32_t slot : at) value = static_cast<Fingerprint>(value ^ out[slot]);
    out[free_slot] = value;
  }
  return true;
}

template <class Fingerprint, unsigned Arity>
binary_fuse_filter<Fingerprint, Arity> binary_fuse_filter<Fingerprint, Arity>::build_from_hashes(
    std::span<const std::uint64_t> hashes, std::uint64_t seed) {
  if (hashes.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error(
        "a fuse filter holds at most 2^32 items; split the key set into several filters");
  }
  std::span<const std::uint64_t> keys = hashes;
  std::vector<std::uint64_t> unique;  // filled only after a failed try
  binary_fuse_filter f;
  f.seed_ = seed;
  f.items_ = keys.size();
  f.size_for(keys.size());
  f.build_seed_ = next_seed(seed);
  auto built = std::make_shared<std::vector<Fingerprint>>();
  for (int attempt = 0; attempt < max_tries; ++attempt) {
    if (f.try_build(keys, *built)) {
      f.fingerprints_ = *built;
      f.owner_ = std::move(built);
      return f;
    }
    if (attempt == 0) {
      // Equal hashes cancel out in the slots' XORs and make every try fail:
      // after a first failure, keep each hash once (sorting costs more than
      // the build, so it is not done up front).
      unique.assign(hashes.begin(), hashes.end());
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      keys = unique;
      f.items_ = keys.size();
      f.size_for(keys.size());
    }
    f.build_seed_ = next_seed(f.build_seed_);
  }
  throw std::runtime_error("the fuse filter could not be built in " + std::to_string(max_tries) +
                           " tries; this should not happen, please report it with the key count");
}

template <class Fingerprint, unsigned Arity>
binary_fuse_filter<Fingerprint, Arity> binary_fuse_filter<Fingerprint, Arity>::build(
    std::span<const std::string_view> items, std::uint64_t seed) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(items.size());
  for (const std::string_view item : items) hashes.push_back(xxh3_64(item, seed));
  return build_from_hashes(hashes, seed);
}

template <class Fingerprint, unsigned Arity>
void binary_fuse_filter<Fingerprint, Arity>::add(std::string_view /*item*/) {
  throw std::logic_error(
      "a fuse filter is static and cannot take a key after it is built; rebuild it from the "
      "whole key set with build(), or use a blocked Bloom filter for a set that grows");
}

template <class Fingerprint, unsigned Arity>
binary_fuse_filter<Fingerprint, Arity> binary_fuse_filter<Fingerprint, Arity>::from_parts(
    const parts& p, std::shared_ptr<const void> keepalive) {
  const std::uint64_t length = p.segment_length;
  const std::uint64_t slots = p.fingerprints.size();
  auto refuse = [](const std::string& what) { throw std::invalid_argument(what); };
  if (length < 4 || length > (std::uint64_t{1} << 18) || (length & (length - 1)) != 0) {
    refuse("the fuse filter's segment length " + std::to_string(length) +
           " is not a power of two between 4 and 2^18");
  }
  if (slots % length != 0 || slots < Arity * length ||
      slots > std::numeric_limits<std::uint32_t>::max()) {
    refuse("the fuse filter's " + std::to_string(slots) +
           " slots are not a whole number of at least " + std::to_string(Arity) + " segments of " +
           std::to_string(length) + " below 2^32");
  }
  if (p.items > slots || p.items > std::numeric_limits<std::uint32_t>::max()) {
    refuse("the fuse filter records " + std::to_string(p.items) + " items for " +
           std::to_string(slots) + " slots");
  }
  binary_fuse_filter f;
  f.seed_ = p.seed;
  f.build_seed_ = p.build_seed;
  f.items_ = p.items;
  f.segment_length_ = static_cast<std::uint32_t>(length);
  f.segment_mask_ = f.segment_length_ - 1;
  f.segment_count_length_ = static_cast<std::uint32_t>(slots - (Arity - 1) * length);
  f.slot_count_ = slots;
  if (keepalive) {
    f.fingerprints_ = p.fingerprints;
    f.keepalive_ = std::move(keepalive);
  } else {
    auto copy =
        std::make_shared<std::vector<Fingerprint>>(p.fingerprints.begin(), p.fingerprints.end());
    f.fingerprints_ = *copy;
    f.owner_ = std::move(copy);
  }
  return f;
}

template <class Fingerprint, unsigned Arity>
double binary_fuse_filter<Fingerprint, Arity>::bits_per_item() const noexcept {
  if (items_ == 0) return 0;
  return static_cast<double>(fingerprints_.size()) * fingerprint_bits / static_cast<double>(items_);
}

template class binary_fuse_filter<std::uint8_t>;
template class binary_fuse_filter<std::uint16_t>;
template class binary_fuse_filter<std::uint8_t, 4>;

}  // namespace ringbloom
