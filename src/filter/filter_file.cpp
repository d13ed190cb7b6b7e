// any_filter and the filter file format (docs/format.md).
#include "ringbloom/filter/filter_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/mapped_file.hpp"

namespace ringbloom {

// --- any_filter ------------------------------------------------------------------

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;  // clang 14 lacks aggregate deduction

template <class F>
constexpr bool is_fuse = std::is_same_v<F, fuse8_filter> || std::is_same_v<F, fuse16_filter>;

// The sentence every change to a static filter throws.
[[noreturn]] void throw_static(std::string_view operation, filter_kind kind) {
  throw std::invalid_argument(fmt::format(
      "cannot {} a {} filter: it is static, built once from its whole key set; rebuild it from "
      "the key set (ringbloom bloom create FILE --kind {} --from KEYS.txt), or use a blocked "
      "filter for a set that changes",
      operation, filter_kind_name(kind), filter_kind_name(kind)));
}

}  // namespace

filter_kind any_filter::kind() const noexcept {
  return std::visit(overloaded{
                        [](const bloom_filter&) { return filter_kind::classic; },
                        [](const blocked_bloom_filter&) { return filter_kind::blocked; },
                        [](const counting_bloom_filter&) { return filter_kind::counting; },
                        [](const scalable_bloom_filter&) { return filter_kind::scalable; },
                        [](const fuse8_filter&) { return filter_kind::fuse8; },
                        [](const fuse16_filter&) { return filter_kind::fuse16; },
                        [](const blocked64_bloom_filter&) { return filter_kind::blocked64; },
                        [](const blocked1024_bloom_filter&) { return filter_kind::blocked1024; },
                    },
                    filter_);
}

hash_kind any_filter::hash() const noexcept {
  return std::visit(
      [](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return hash_kind::xxh3;  // XXH3-64 of the item (fuse_filter.hpp)
        } else {
          return f.hash();
        }
      },
      filter_);
}
std::uint64_t any_filter::seed() const noexcept {
  return std::visit([](const auto& f) { return f.seed(); }, filter_);
}
std::uint64_t any_filter::bits() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint64_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return f.slots() * f.fingerprint_bits;
        } else {
          return f.bits();
        }
      },
      filter_);
}
std::uint32_t any_filter::hashes() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint32_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return 3;
        } else {
          return f.hashes();
        }
      },
      filter_);
}
std::uint64_t any_filter::items_added() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint64_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return f.items();
        } else {
          return f.items_added();
        }
      },
      filter_);
}
bool any_filter::read_only() const noexcept {
  return std::visit(
      [](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return true;  // static, mapped or not
        } else {
          return f.read_only();
        }
      },
      filter_);
}

void any_filter::add(std::string_view item) {
  if (is_static_kind(kind())) throw_static("add to", kind());
  std::visit(
      [item](auto& f) {
        if constexpr (!is_fuse<std::decay_t<decltype(f)>>) f.add(item);
      },
      filter_);
}

void any_filter::add_many(std::span<const std::string_view> items) {
  if (is_static_kind(kind())) throw_static("add to", kind());
  if (auto* blocked = std::get_if<blocked_bloom_filter>(&filter_)) {
    blocked->add_many(items);
  } else if (auto* blocked64 = std::get_if<blocked64_bloom_filter>(&filter_)) {
    blocked64->add_many(items);
  } else if (auto* blocked1024 = std::get_if<blocked1024_bloom_filter>(&filter_)) {
    blocked1024->add_many(items);
  } else if (auto* classic = std::get_if<bloom_filter>(&filter_)) {
    classic->add_many(items);
  } else {
    for (const std::string_view item : items) add(item);
  }
}

bool any_filter::may_contain(std::string_view item) const {
  return std::visit([item](const auto& f) { return f.may_contain(item); }, filter_);
}

void any_filter::remove(std::string_view item) {
  if (auto* f = std::get_if<counting_bloom_filter>(&filter_)) {
    f->remove(item);
    return;
  }
  if (is_static_kind(kind())) throw_static("remove from", kind());
  throw std::invalid_argument(fmt::format(
      "remove needs a counting filter, but this is a {} filter, whose bits may be shared by "
      "other items; create the filter with kind counting to remove items",
      filter_kind_name(kind())));
}

namespace {

template <class Fuse>
std::vector<bit_probe> fuse_probes(const Fuse& f, std::string_view item) {
  std::vector<bit_probe> probes;
  const auto fp = f.fingerprints();
  for (const std::uint64_t slot : f.slots_of_item(item)) {
    probes.push_back({0, slot, static_cast<std::uint32_t>(fp[static_cast<std::size_t>(slot)])});
  }
  return probes;
}

template <class Fuse>
filter_stats fuse_stats(const Fuse& f, filter_kind kind) {
  filter_stats s;
  s.kind = kind;
  s.hash = hash_kind::xxh3;
  s.seed = f.seed();
  s.bits = f.slots() * f.fingerprint_bits;
  s.hashes = 3;
  s.layers = 1;
  s.items_added = f.items();
  for (const auto v : f.fingerprints()) s.bits_set += static_cast<std::uint64_t>(std::popcount(v));
  s.fill_ratio = s.bits == 0 ? 0 : static_cast<double>(s.bits_set) / static_cast<double>(s.bits);
  s.expected_fpr = f.items() == 0 ? 0 : Fuse::expected_fpr();
  s.estimated_items = static_cast<double>(f.items());  // exact: recorded at build
  s.memory_bytes = f.slots() * sizeof(f.fingerprints()[0]);
  return s;
}

}  // namespace

std::vector<bit_probe> any_filter::explain(std::string_view item) const {
  return std::visit(
      [item](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return fuse_probes(f, item);
        } else {
          return f.explain(item);
        }
      },
      filter_);
}

filter_stats any_filter::stats() const {
  const filter_kind k = kind();
  return std::visit(
      [k](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return fuse_stats(f, k);
        } else {
          return f.stats();
        }
      },
      filter_);
}

namespace {

template <class Op>
void combine(any_filter::variant_type& a, const any_filter::variant_type& b,
             std::string_view operation, filter_kind kind_a, filter_kind kind_b, Op op) {
  if (a.index() != b.index()) {
    detail::throw_incompatible(operation,
                               fmt::format("the first is a {} filter and the second a {} filter",
                                           filter_kind_name(kind_a), filter_kind_name(kind_b)));
  }
  std::visit(
      [&](auto& fa) {
        using F = std::decay_t<decltype(fa)>;
        op(fa, std::get<F>(b));
      },
      a);
}

}  // namespace

void any_filter::merge(const any_filter& other) {
  if (is_static_kind(kind())) throw_static("merge into", kind());
  combine(filter_, other.filter_, "merge", kind(), other.kind(), [](auto& a, const auto& b) {
    if constexpr (!is_fuse<std::decay_t<decltype(a)>>) a.merge(b);
  });
}

void any_filter::intersect(const any_filter& other) {
  if (is_static_kind(kind())) throw_static("intersect into", kind());
  combine(filter_, other.filter_, "intersect", kind(), other.kind(), [](auto& a, const auto& b) {
    if constexpr (!is_fuse<std::decay_t<decltype(a)>>) a.intersect(b);
  });
}

any_filter make_filter(const filter_spec& spec) {
  const bool by_capacity = spec.capacity != 0 || spec.fpr != 0;
  const bool by_size = spec.bits != 0 || spec.hashes != 0;
  if (by_capacity == by_size) {
    throw std::invalid_argument(
        by_capacity ? "give either a capacity and a false-positive rate, or a number of bits and "
                      "of hashes, not both"
                    : "a new filter needs a size: give a capacity and a false-positive rate (for "
                      "example 1000000 and 0.01), or a number of bits and of hashes");
  }
  if (by_capacity && (spec.capacity == 0 || spec.fpr == 0)) {
    throw std::invalid_argument(
        spec.capacity == 0
            ? "a false-positive rate needs a capacity too: give the number of items to hold"
            : "a capacity needs a false-positive rate too: give a rate between 0 and 1, for "
              "example 0.01");
  }
  if (by_size && (spec.bits == 0 || spec.hashes == 0)) {
    throw std::invalid_argument(
        spec.bits == 0 ? "a number of hashes needs a number of bits too"
                       : "a number of bits needs a number of hashes too (about 7 for a 1% rate)");
  }
  switch (spec.kind) {
    case filter_kind::classic:
      return by_capacity ? bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash, spec.seed)
                         : bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
    case filter_kind::blocked:
      return by_capacity
                 ? blocked_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash, spec.seed)
                 : blocked_bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
    case filter_kind::counting:
      return by_capacity ? counting_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash,
                                                               spec.seed)
                         : counting_bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
    case filter_kind::scalable:
      return by_capacity
                 ? scalable_bloom_filter(spec.capacity, spec.fpr, spec.hash, spec.seed, spec.growth,
                                         spec.tightening)
                 : scalable_bloom_filter::from_size(spec.bits, spec.hashes, spec.hash, spec.seed,
                                                    spec.growth, spec.tightening);
    case filter_kind::blocked64:
      if (spec.hash != hash_kind::xxh3) {
        throw std::invalid_argument(fmt::format(
            "a blocked64 filter hashes items with XXH3-64 and cannot use the {} hash; leave the "
            "hash at xxh3, or use the blocked kind for another hash",
            hash_name(spec.hash)));
      }
      return by_capacity ? blocked64_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.seed)
                         : blocked64_bloom_filter(spec.bits, spec.hashes, spec.seed);
    case filter_kind::blocked1024:
      if (spec.hash != hash_kind::xxh3) {
        throw std::invalid_argument(fmt::format(
            "a blocked1024 filter hashes items with XXH3-64 and cannot use the {} hash; leave "
            "the hash at xxh3, or use the blocked kind for another hash",
            hash_name(spec.hash)));
      }
      return by_capacity
                 ? blocked1024_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.seed)
                 : blocked1024_bloom_filter(spec.bits, spec.hashes, spec.seed);
    case filter_kind::fuse8:
    case filter_kind::fuse16:
      throw std::invalid_argument(fmt::format(
          "a {} filter is static and cannot be created empty; build it from its whole key set "
          "(build_fuse_filter, or ringbloom bloom create FILE --kind {} --from KEYS.txt)",
          filter_kind_name(spec.kind), filter_kind_name(spec.kind)));
  }
  throw std::invalid_argument(
      fmt::format("unknown filter kind code {}; use blocked, blocked64, blocked1024, classic, "
                  "counting or scalable",
                  static_cast<unsigned>(spec.kind)));
}

any_filter build_fuse_filter(filter_kind kind, std::span<const std::uint64_t> hashes,
                             std::uint64_t seed) {
  if (kind == filter_kind::fuse8) return fuse8_filter::build_from_hashes(hashes, seed);
  if (kind == filter_kind::fuse16) return fuse16_filter::build_from_hashes(hashes, seed);
  throw std::invalid_argument(fmt::format(
      "build_fuse_filter builds the static kinds fuse8 and fuse16, not {}; use make_filter",
      filter_kind_name(kind)));
}

// --- the format ------------------------------------------------------------------
//
// See docs/format.md for the drawing. All integers little-endian; doubles
// are IEEE 754 binary64 stored as their bit pattern.

namespace {

constexpr std::size_t header_bytes = 64;
constexpr std::size_t layer_entry_bytes = 32;
constexpr std::size_t checksum_bytes = io::checksum_bytes;
constexpr std::uint64_t min_file_bytes = header_bytes + checksum_bytes;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'F', '\r', '\n', 0x1a, '\n'},
                                filter_format_version,
                                min_file_bytes,
                                "filter file",
                                "filter"};

// Header field offsets.
constexpr std::size_t off_version = io::version_offset;
constexpr std::size_t off_kind = 10;
constexpr std::size_t off_hash = 11;
constexpr std::size_t off_layers = 12;
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_items = 24;
constexpr std::size_t off_file_size = io::file_size_offset;
constexpr std::size_t off_fpr = 40;
constexpr std::size_t off_tightening = 48;
constexpr std::size_t off_growth = 56;
constexpr std::size_t off_reserved = 60;

// Layer entry field offsets.
constexpr std::size_t le_bits = 0;
constexpr std::size_t le_hashes = 8;
constexpr std::size_t le_reserved = 12;
constexpr std::size_t le_items = 16;
constexpr std::size_t le_capacity = 24;

using io::align_up;
using io::load_f64;
using io::load_le;
using io::store_f64;
using io::store_le;

// The words of one layer: m bits (counters) of a kind.
std::uint64_t layer_words(filter_kind kind, std::uint64_t m) {
  switch (kind) {
    case filter_kind::counting:
      return (m + 15) / 16;
    case filter_kind::fuse8:  // m is the number of slots (fingerprints)
      return (m + 7) / 8;
    case filter_kind::fuse16:
      return (m + 3) / 4;
    case filter_kind::blocked:
    case filter_kind::blocked64:
    case filter_kind::blocked1024:
    case filter_kind::classic:
    case filter_kind::scalable:
      break;
  }
  return (m + 63) / 64;
}

// What the serializer needs to know of one layer.
struct layer_view {
  std::uint64_t bits;
  std::uint32_t hashes;
  std::uint64_t items;
  std::uint64_t capacity;
  std::span<const std::uint64_t> words;
  // Fuse kinds: the fingerprints instead of words, and the segment length
  // (stored in the entry's reserved field).
  std::span<const std::uint8_t> fuse8;
  std::span<const std::uint16_t> fuse16;
  std::uint32_t segment_length = 0;
};

struct filter_view {
  filter_kind kind;
  hash_kind hash;
  std::uint64_t seed;
  double fpr = 0;
  double tightening = 0;
  std::uint32_t growth = 0;
  std::vector<layer_view> layers;
};

filter_view view_of(const any_filter& filter) {
  filter_view v{filter.kind(), filter.hash(), filter.seed(), 0, 0, 0, {}};
  std::visit(
      overloaded{
          [&](const scalable_bloom_filter& f) {
            v.fpr = f.target_fpr();
            v.tightening = f.tightening();
            v.growth = f.growth();
            for (const auto& l : f.layers()) {
              v.layers.push_back({l.filter.bits(),
                                  l.filter.hashes(),
                                  l.filter.items_added(),
                                  l.capacity,
                                  l.filter.words(),
                                  {},
                                  {},
                                  0});
            }
          },
          [&](const fuse8_filter& f) {
            v.layers.push_back({f.slots(),
                                3,
                                f.items(),
                                f.build_seed(),
                                {},
                                f.fingerprints(),
                                {},
                                f.segment_length()});
          },
          [&](const fuse16_filter& f) {
            v.layers.push_back({f.slots(),
                                3,
                                f.items(),
                                f.build_seed(),
                                {},
                                {},
                                f.fingerprints(),
                                f.segment_length()});
          },
          [&](const auto& f) {
            v.layers.push_back({f.bits(), f.hashes(), f.items_added(), 0, f.words(), {}, {}, 0});
          },
      },
      filter.variant());
  return v;
}

std::uint64_t size_of(const filter_view& v) {
  std::uint64_t size = align_up(header_bytes + layer_entry_bytes * v.layers.size());
  for (const auto& l : v.layers) size += align_up(layer_words(v.kind, l.bits) * 8);
  return size + checksum_bytes;
}

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

// Makes a word_store for `count` words at `p`: a view into the mapping when
// `keepalive` is set (little-endian hosts only), else a copy.
detail::word_store words_at(const unsigned char* p, std::uint64_t count,
                            const std::shared_ptr<const void>& keepalive) {
  const auto n = static_cast<std::size_t>(count);
  if (keepalive && std::endian::native == std::endian::little) {
    return detail::word_store::view(reinterpret_cast<const std::uint64_t*>(p), n, keepalive);
  }
  detail::word_store store(n);
  std::uint64_t* out = store.mutable_data();
  for (std::size_t i = 0; i < n; ++i) out[i] = load_le<std::uint64_t>(p + 8 * i);
  return store;
}

using io::all_zero;

any_filter parse(std::string_view bytes, const std::shared_ptr<const void>& keepalive) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();

  // 1. Is it ours at all, whole, and intact? (magic, size, version, recorded
  // size, checksum: the family's envelope)
  io::check_envelope(bytes, envelope);

  // 2. Every field in range, every length consistent.
  const auto kind = filter_kind_from_code(data[off_kind]);
  if (!kind)
    corrupt(fmt::format("the filter file records an unknown filter kind {}", data[off_kind]));
  const auto hash = hash_from_code(data[off_hash]);
  if (!hash)
    corrupt(fmt::format("the filter file records an unknown hash code {}", data[off_hash]));
  const auto layer_count = load_le<std::uint32_t>(data + off_layers);
  const bool scalable = *kind == filter_kind::scalable;
  const bool fuse = is_static_kind(*kind);
  if ((*kind == filter_kind::blocked64 || *kind == filter_kind::blocked1024) &&
      *hash != hash_kind::xxh3) {
    corrupt(fmt::format("the filter file records hash {} for a {} filter, which hashes with xxh3",
                        hash_name(*hash), filter_kind_name(*kind)));
  }
  if (fuse && *hash != hash_kind::xxh3) {
    corrupt(fmt::format("the filter file records hash {} for a {} filter, which hashes with xxh3",
                        hash_name(*hash), filter_kind_name(*kind)));
  }
  if (layer_count == 0 || (!scalable && layer_count != 1) ||
      layer_count > scalable_bloom_filter::max_layers) {
    corrupt(fmt::format("the filter file records {} layers for a {} filter", layer_count,
                        filter_kind_name(*kind)));
  }
  const auto seed = load_le<std::uint64_t>(data + off_seed);
  const auto items = load_le<std::uint64_t>(data + off_items);
  const double fpr = load_f64(data + off_fpr);
  const double tightening = load_f64(data + off_tightening);
  const auto growth = load_le<std::uint32_t>(data + off_growth);
  if (load_le<std::uint32_t>(data + off_reserved) != 0) {
    corrupt("the filter file has non-zero reserved header bytes");
  }
  if (!scalable && (load_le<std::uint64_t>(data + off_fpr) != 0 ||
                    load_le<std::uint64_t>(data + off_tightening) != 0 || growth != 0)) {
    corrupt("the filter file records scalable-filter parameters for a fixed-size filter");
  }

  const std::uint64_t table_end = header_bytes + layer_entry_bytes * layer_count;
  const std::uint64_t payload_start = align_up(table_end);
  if (payload_start + checksum_bytes > size) {
    corrupt("the filter file is too short for its layer table");
  }
  if (!all_zero(data + table_end, payload_start - table_end)) {
    corrupt("the filter file has non-zero padding after its layer table");
  }

  struct entry {
    std::uint64_t bits, items, capacity, offset, words;
    std::uint32_t hashes, reserved;
  };
  std::vector<entry> entries;
  entries.reserve(layer_count);
  std::uint64_t offset = payload_start;
  std::uint64_t item_sum = 0;
  for (std::uint32_t i = 0; i < layer_count; ++i) {
    const unsigned char* e = data + header_bytes + layer_entry_bytes * i;
    entry en{};
    en.bits = load_le<std::uint64_t>(e + le_bits);
    en.hashes = load_le<std::uint32_t>(e + le_hashes);
    en.items = load_le<std::uint64_t>(e + le_items);
    en.capacity = load_le<std::uint64_t>(e + le_capacity);
    en.reserved = load_le<std::uint32_t>(e + le_reserved);  // fuse: the segment length
    if (!fuse && en.reserved != 0) {
      corrupt(fmt::format("layer {} of the filter file has non-zero reserved bytes", i));
    }
    if (fuse && en.hashes != 3) {
      corrupt(fmt::format("the filter file records {} hashes for a {} filter, which has 3",
                          en.hashes, filter_kind_name(*kind)));
    }
    if (en.bits == 0 || en.bits > max_filter_bits) {
      corrupt(fmt::format("layer {} of the filter file records {} bits, outside 1..{}", i, en.bits,
                          max_filter_bits));
    }
    if (!scalable && !fuse && en.capacity != 0) {
      corrupt("the filter file records a layer capacity for a fixed-size filter");
    }
    // bits <= 2^40, so words * 8 <= 2^37 and 64 layers cannot overflow.
    en.words = layer_words(*kind, en.bits);
    en.offset = offset;
    offset += align_up(en.words * 8);
    if (offset + checksum_bytes > size) {
      corrupt(fmt::format("the filter file is too short for the {} bits of layer {}", en.bits, i));
    }
    const std::uint64_t used =
        fuse ? en.bits * (*kind == filter_kind::fuse8 ? 1 : 2) : en.words * 8;
    if (!all_zero(data + en.offset + used, offset - en.offset - used)) {
      corrupt(fmt::format("the filter file has non-zero padding after layer {}", i));
    }
    if (en.items > std::numeric_limits<std::uint64_t>::max() - item_sum) {
      corrupt("the filter file's item counts overflow");
    }
    item_sum += en.items;
    entries.push_back(en);
  }
  if (offset + checksum_bytes != size) {
    corrupt(fmt::format("the filter file has {} bytes but its layers account for {}", size,
                        offset + checksum_bytes));
  }
  if (item_sum != items) {
    corrupt(fmt::format("the filter file records {} items in its header but {} in its layers",
                        items, item_sum));
  }

  // 3. Build; the constructors check the remaining rules (hash/seed, k
  // limits, blocked sizes, zero tail bits) and throw data_error.
  auto words_of = [&](const entry& en) { return words_at(data + en.offset, en.words, keepalive); };
  const entry& first = entries[0];
  // Fuse kinds: the fingerprints in place when mapped (fuse8 on any host,
  // fuse16 on little-endian ones; the payload is 64-byte aligned), else a
  // copy; from_parts checks the geometry (every lookup in bounds).
  auto fuse_of = [&](auto tag, const entry& en) -> any_filter {
    using F = typename decltype(tag)::type;
    using fp = typename F::fingerprint_type;
    const auto n = static_cast<std::size_t>(en.bits);
    const unsigned char* at = data + en.offset;
    typename F::parts parts{seed, en.capacity, en.items, en.reserved, {}};
    std::vector<fp> copy;
    std::shared_ptr<const void> owner;
    if (keepalive && (sizeof(fp) == 1 || std::endian::native == std::endian::little)) {
      parts.fingerprints = {reinterpret_cast<const fp*>(at), n};
      owner = keepalive;
    } else {
      copy.resize(n);
      for (std::size_t i = 0; i < n; ++i) copy[i] = load_le<fp>(at + sizeof(fp) * i);
      parts.fingerprints = copy;
    }
    try {
      return F::from_parts(parts, owner);
    } catch (const std::invalid_argument& e) {
      corrupt(e.what());
    }
  };
  switch (*kind) {
    case filter_kind::classic:
      return bloom_filter::from_words(first.bits, first.hashes, *hash, seed, first.items,
                                      words_of(first));
    case filter_kind::blocked:
      return blocked_bloom_filter::from_words(first.bits, first.hashes, *hash, seed, first.items,
                                              words_of(first));
    case filter_kind::counting:
      return counting_bloom_filter::from_words(first.bits, first.hashes, *hash, seed, first.items,
                                               words_of(first));
    case filter_kind::blocked64:
      return blocked64_bloom_filter::from_words(first.bits, first.hashes, seed, first.items,
                                                words_of(first));
    case filter_kind::blocked1024:
      return blocked1024_bloom_filter::from_words(first.bits, first.hashes, seed, first.items,
                                                  words_of(first));
    case filter_kind::fuse8:
      return fuse_of(std::type_identity<fuse8_filter>{}, first);
    case filter_kind::fuse16:
      return fuse_of(std::type_identity<fuse16_filter>{}, first);
    case filter_kind::scalable:
      break;
  }
  std::vector<scalable_bloom_filter::layer> layers;
  layers.reserve(entries.size());
  for (const entry& en : entries) {
    layers.push_back(
        {bloom_filter::from_words(en.bits, en.hashes, *hash, seed, en.items, words_of(en)),
         en.capacity});
  }
  return scalable_bloom_filter::from_layers(fpr, growth, tightening, std::move(layers));
}

}  // namespace

std::uint64_t serialized_size(const any_filter& filter) { return size_of(view_of(filter)); }

std::string serialize_filter(const any_filter& filter) {
  const filter_view v = view_of(filter);
  const std::uint64_t size = size_of(v);
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  store_le<std::uint16_t>(p + off_version, filter_format_version);
  p[off_kind] = static_cast<unsigned char>(v.kind);
  p[off_hash] = static_cast<unsigned char>(v.hash);
  store_le<std::uint32_t>(p + off_layers, static_cast<std::uint32_t>(v.layers.size()));
  store_le<std::uint64_t>(p + off_seed, v.seed);
  std::uint64_t items = 0;
  for (const auto& l : v.layers) items = detail::saturating_add(items, l.items);
  store_le<std::uint64_t>(p + off_items, items);
  store_le<std::uint64_t>(p + off_file_size, size);
  if (v.kind == filter_kind::scalable) {
    store_f64(p + off_fpr, v.fpr);
    store_f64(p + off_tightening, v.tightening);
    store_le<std::uint32_t>(p + off_growth, v.growth);
  }
  std::uint64_t offset = align_up(header_bytes + layer_entry_bytes * v.layers.size());
  for (std::size_t i = 0; i < v.layers.size(); ++i) {
    const layer_view& l = v.layers[i];
    unsigned char* e = p + header_bytes + layer_entry_bytes * i;
    store_le<std::uint64_t>(e + le_bits, l.bits);
    store_le<std::uint32_t>(e + le_hashes, l.hashes);
    store_le<std::uint64_t>(e + le_items, l.items);
    store_le<std::uint64_t>(e + le_capacity, l.capacity);
    store_le<std::uint32_t>(e + le_reserved, l.segment_length);
    for (std::size_t w = 0; w < l.words.size(); ++w) store_le(p + offset + 8 * w, l.words[w]);
    if (!l.fuse8.empty()) std::memcpy(p + offset, l.fuse8.data(), l.fuse8.size());
    for (std::size_t s = 0; s < l.fuse16.size(); ++s) store_le(p + offset + 2 * s, l.fuse16[s]);
    offset += align_up(layer_words(v.kind, l.bits) * 8);
  }
  io::seal(out);
  return out;
}

any_filter deserialize_filter(std::string_view bytes) { return parse(bytes, nullptr); }

void save_filter(const std::filesystem::path& path, const any_filter& filter) {
  io::write_file_atomic(path, serialize_filter(filter));
}

any_filter load_filter(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return parse(bytes, nullptr); });
}

any_filter open_filter_mapped(const std::filesystem::path& path) {
  // io::mapped_file refuses a directory or a device with its own sentence and
  // reads a pipe (which cannot be mapped) with io::read_file's bounds; only a
  // real mapping is used in place.
  const auto file = io::mapped_file::open(path);
  const std::shared_ptr<const void> keepalive =
      file->mapped() ? std::shared_ptr<const void>(file) : nullptr;
  any_filter f = io::with_path(path, [&] { return parse(file->bytes(), keepalive); });
  // Lookups probe scattered pages; do not read ahead around them.
  file->advise_random();
  return f;
}

void update_filter_file(const std::filesystem::path& path,
                        const std::function<void(any_filter&)>& fn) {
  io::update_file_locked(path, [&](const std::string& current) {
    any_filter f = io::with_path(path, [&] { return parse(current, nullptr); });
    fn(f);
    return serialize_filter(f);
  });
}

// --- adding to a file's bytes (the checkpoint fold) ------------------------------

namespace {

// Sets the bits of `items` in the words of a validated classic or blocked
// filter that live inside `file` at `words`. The positions are the format's
// (blocked_bloom.hpp, bloom.hpp), computed by the same detail functions the
// filters use; tests/filter/filter_stream_test.cpp checks the result against
// load, add, serialize byte for byte.
void set_blocked_bits(std::uint64_t* words, const blocked_bloom_filter& f,
                      std::span<const std::string_view> items) {
  // Hash a chunk and prefetch its blocks, then OR the masks in: the blocks
  // of a large filter arrive in parallel instead of one miss at a time.
  constexpr std::size_t chunk = 16;
  std::array<hash128, chunk> hashes{};
  std::array<std::uint64_t*, chunk> blocks{};
  for (std::size_t at = 0; at < items.size(); at += chunk) {
    const std::size_t n = std::min(chunk, items.size() - at);
    for (std::size_t i = 0; i < n; ++i) {
      hashes[i] = f.hash_item(items[at + i]);
      blocks[i] = words + f.block_of(hashes[i]) * blocked_bloom_filter::block_words;
      __builtin_prefetch(blocks[i], 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto mask = detail::block_mask(hashes[i].high, f.hashes());
      for (std::size_t w = 0; w < mask.size(); ++w) blocks[i][w] |= mask[w];
    }
  }
}

// The kinds placed by a 64-bit hash: their add_many's own pipeline
// (hash64_batch.hpp), on the file's words.
template <class Filter>
void set_hash64_bits(std::uint64_t* words, const Filter& f,
                     std::span<const std::string_view> items) {
  hash64_batch::set_all<Filter, Filter::batch_chunk>(words, f.blocks(), f.seed(), f.hashes(),
                                                     items);
}

void set_classic_bits(std::uint64_t* words, const bloom_filter& f,
                      std::span<const std::string_view> items) {
  for (const std::string_view item : items) {
    detail::classic_positions(f.hash(), f.seed(), f.bits(), f.hashes(), item,
                              [words](std::uint64_t p) {
                                words[p >> 6] |= std::uint64_t{1} << (p & 63);
                                return true;
                              });
  }
}

}  // namespace

void add_to_filter_bytes(std::string& file, std::span<const std::string_view> items) {
  // Parsed as a view (any non-null keepalive): every check, no copy.
  const auto no_owner = std::make_shared<const int>(0);
  const any_filter view = parse(file, no_owner);
  const bool in_place =
      std::endian::native == std::endian::little &&
      (view.kind() == filter_kind::blocked || view.kind() == filter_kind::blocked64 ||
       view.kind() == filter_kind::blocked1024 || view.kind() == filter_kind::classic);
  if (!in_place) {
    any_filter f = parse(file, nullptr);
    f.add_many(items);
    file = serialize_filter(f);
    return;
  }
  auto* p = reinterpret_cast<unsigned char*>(file.data());
  const std::uint64_t payload = align_up(header_bytes + layer_entry_bytes);
  // The words are 8-byte aligned: `file` comes from the allocator (16-byte
  // aligned) and the payload offset is a multiple of 64.
  auto* words = reinterpret_cast<std::uint64_t*>(p + payload);
  if (const auto* blocked = view.get_if<blocked_bloom_filter>()) {
    set_blocked_bits(words, *blocked, items);
  } else if (const auto* blocked64 = view.get_if<blocked64_bloom_filter>()) {
    set_hash64_bits(words, *blocked64, items);
  } else if (const auto* blocked1024 = view.get_if<blocked1024_bloom_filter>()) {
    set_hash64_bits(words, *blocked1024, items);
  } else {
    set_classic_bits(words, *view.get_if<bloom_filter>(), items);
  }
  const std::uint64_t items_now = detail::saturating_add(view.items_added(), items.size());
  store_le<std::uint64_t>(p + off_items, items_now);
  store_le<std::uint64_t>(p + header_bytes + le_items, items_now);
  const std::size_t body = file.size() - checksum_bytes;
  store_le<std::uint64_t>(p + body, xxh3_64(std::string_view(file.data(), body), 0));
}

io::checkpointed_stream add_filter_stream(const std::filesystem::path& path,
                                          io::checkpoint_policy policy,
                                          std::uint64_t* items_in_file) {
  return io::checkpointed_stream(
      path,
      [path, items_in_file](std::string& file, std::span<const std::string_view> items) {
        io::with_path(path, [&] { add_to_filter_bytes(file, items); });
        if (items_in_file != nullptr) {
          *items_in_file = load_le<std::uint64_t>(
              reinterpret_cast<const unsigned char*>(file.data()) + off_items);
        }
      },
      policy);
}

}  // namespace ringbloom
