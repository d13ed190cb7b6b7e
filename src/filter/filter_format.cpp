// The filter file format (docs/format.md): the envelope, the header and the
// layer table, read and written here for every kind; each kind's payload is
// turned into a filter and back by its row of the kind table
// (filter_kinds.hpp: load, save, payload_words).
#include "filter_format.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "bloom_internal.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/file_patch.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/mapped_file.hpp"

namespace ringbloom {

// All integers little-endian; doubles are IEEE 754 binary64 stored as their
// bit pattern.

namespace {

constexpr std::size_t header_bytes = detail::filter_header_bytes;
constexpr std::size_t layer_entry_bytes = detail::filter_layer_entry_bytes;
constexpr std::size_t checksum_bytes = io::checksum_bytes;
constexpr std::uint64_t min_file_bytes = header_bytes + checksum_bytes;
constexpr std::array<unsigned char, 8> filter_magic{0x89, 'R', 'B', 'F', '\r', '\n', 0x1a, '\n'};
constexpr io::envelope envelope{filter_magic, filter_format_version, min_file_bytes, "filter file",
                                "filter"};
// Version 1 (one checksum over the whole file) is still read.
constexpr io::envelope envelope_v1{filter_magic, 1, min_file_bytes, "filter file", "filter"};
constexpr std::uint64_t region_bytes = detail::filter_region_bytes;

// Header field offsets.
constexpr std::size_t off_version = io::version_offset;
constexpr std::size_t off_kind = detail::filter_off_kind;
constexpr std::size_t off_hash = 11;
constexpr std::size_t off_layers = 12;
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_items = detail::filter_off_items;
constexpr std::size_t off_file_size = io::file_size_offset;
constexpr std::size_t off_fpr = 40;
constexpr std::size_t off_tightening = 48;
constexpr std::size_t off_growth = 56;
constexpr std::size_t off_reserved = 60;  // version 2: the region count
constexpr std::size_t off_regions = detail::filter_off_regions;

// Layer entry field offsets.
constexpr std::size_t le_bits = 0;
constexpr std::size_t le_hashes = 8;
constexpr std::size_t le_reserved = 12;
constexpr std::size_t le_items = detail::filter_le_items;
constexpr std::size_t le_capacity = 24;

using io::align_up;
using io::all_zero;
using io::load_f64;
using io::load_le;
using io::store_f64;
using io::store_le;

// The words of one layer of m cells of `kind`, from its row.
std::uint64_t layer_words_of(filter_kind kind, std::uint64_t m) {
  std::uint64_t words = 0;
  filter_kind_table::visit(kind, [&](auto tag) {
    words = filter_kind_row<typename decltype(tag)::type>::payload_words(m);
  });
  return words;
}

// The payload (header fields and layers) of a filter, from its row's save.
detail::filter_payload payload_of(const any_filter& filter) {
  detail::filter_payload out;
  out.hash = filter.hash();
  out.seed = filter.seed();
  std::visit([&](const auto& f) { filter_kind_row<std::decay_t<decltype(f)>>::save(f, out); },
             filter.variant());
  return out;
}

// Whether filters of this kind and hash place items by the classic xxh3
// positions, whose rule version 3 changed.
bool has_mixed_positions(filter_kind kind, hash_kind hash) {
  return hash == hash_kind::xxh3 &&
         (kind == filter_kind::classic || kind == filter_kind::counting ||
          kind == filter_kind::scalable);
}

// The version a filter is written in: 3 when its positions need it (a
// classic, counting or scalable filter hashed with xxh3 by the mixed rule),
// else 2, which every ringbloom since version 2 reads with the same meaning.
// So every filter has one file, and a file that loads saves back unchanged.
std::uint16_t version_of(filter_kind kind, const detail::filter_payload& v) {
  return has_mixed_positions(kind, v.hash) && v.rule == position_rule::mixed ? filter_format_version
                                                                             : 2;
}

detail::filter_geometry geometry_of(filter_kind kind, const detail::filter_payload& v) {
  std::uint64_t payload = 0;
  for (const auto& l : v.layers) payload += align_up(layer_words_of(kind, l.bits) * 8);
  return detail::filter_geometry_for(v.layers.size(), payload);
}

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

}  // namespace

void detail::corrupt_filter_file(std::string_view what) { corrupt(what); }

std::uint64_t detail::filter_geometry::region_end(std::uint64_t i) const noexcept {
  const std::uint64_t end = region_begin(i) + region_bytes;
  return end < size - checksum_bytes ? end : size - checksum_bytes;
}

detail::filter_geometry detail::filter_geometry_for(std::uint64_t layers,
                                                    std::uint64_t payload_bytes) noexcept {
  filter_geometry g;
  g.layers = layers;
  g.regions = (payload_bytes + region_bytes - 1) / region_bytes;
  g.table_at = align_up(header_bytes + layer_entry_bytes * layers);
  g.payload_start = align_up(g.table_at + 8 * g.regions);
  g.size = g.payload_start + payload_bytes + checksum_bytes;
  return g;
}

detail::filter_geometry detail::check_filter_head(std::string_view bytes) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  const auto recorded_size = load_le<std::uint64_t>(data + off_file_size);
  if (recorded_size != size) {
    corrupt(
        fmt::format("the filter file has {} bytes but its header records {} (truncated or "
                    "extended)",
                    size, recorded_size));
  }
  filter_geometry g;
  g.size = size;
  g.layers = load_le<std::uint32_t>(data + off_layers);
  g.regions = load_le<std::uint32_t>(data + off_regions);
  if (g.layers == 0 || g.layers > scalable_bloom_filter::max_layers) {
    corrupt(fmt::format("the filter file records {} layers, outside 1..{}", g.layers,
                        scalable_bloom_filter::max_layers));
  }
  g.table_at = align_up(header_bytes + layer_entry_bytes * g.layers);
  g.payload_start = align_up(g.table_at + 8 * g.regions);
  if (g.payload_start + checksum_bytes > size) {
    corrupt(
        fmt::format("the filter file is too short for its layer table and {} region "
                    "checksums",
                    g.regions));
  }
  const auto stored = load_le<std::uint64_t>(data + size - checksum_bytes);
  const std::uint64_t actual =
      xxh3_64(bytes.substr(0, static_cast<std::size_t>(g.payload_start)), 0);
  if (stored != actual) {
    corrupt(
        fmt::format("the filter file's checksum of its header and region table does not "
                    "match (stored {:016x}, computed {:016x})",
                    stored, actual));
  }
  const std::uint64_t payload = size - checksum_bytes - g.payload_start;
  if (g.regions != (payload + region_bytes - 1) / region_bytes) {
    corrupt(
        fmt::format("the filter file records {} region checksums but its {} payload bytes "
                    "make {} regions",
                    g.regions, payload, (payload + region_bytes - 1) / region_bytes));
  }
  const std::uint64_t table_end = g.table_at + 8 * g.regions;
  if (!all_zero(data + table_end, g.payload_start - table_end)) {
    corrupt("the filter file has non-zero padding after its region table");
  }
  return g;
}

std::uint64_t detail::filter_region_checksum(const unsigned char* file, const filter_geometry& g,
                                             std::uint64_t i) {
  const std::uint64_t begin = g.region_begin(i);
  return xxh3_64(std::string_view(reinterpret_cast<const char*>(file) + begin,
                                  static_cast<std::size_t>(g.region_end(i) - begin)),
                 0);
}

void detail::check_filter_region(const unsigned char* file, const filter_geometry& g,
                                 std::uint64_t i) {
  const auto stored = load_le<std::uint64_t>(file + g.table_at + 8 * i);
  const std::uint64_t actual = filter_region_checksum(file, g, i);
  if (stored != actual) {
    corrupt(
        fmt::format("region {} of the filter file (bytes {}..{}) does not match its "
                    "checksum (stored {:016x}, computed {:016x})",
                    i, g.region_begin(i), g.region_end(i), stored, actual));
  }
}

void detail::reseal_filter_bytes(std::string& bytes) {
  auto* p = reinterpret_cast<unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  const auto version = size < min_file_bytes ? 0 : load_le<std::uint16_t>(p + off_version);
  if (version != 2 && version != 3) return;
  const std::uint64_t layers = load_le<std::uint32_t>(p + off_layers);
  const std::uint64_t regions = load_le<std::uint32_t>(p + off_regions);
  if (layers == 0 || layers > scalable_bloom_filter::max_layers) return;
  filter_geometry g;
  g.size = size;
  g.layers = layers;
  g.regions = regions;
  g.table_at = align_up(header_bytes + layer_entry_bytes * layers);
  g.payload_start = align_up(g.table_at + 8 * regions);
  if (g.payload_start + checksum_bytes > size) return;
  const std::uint64_t payload = size - checksum_bytes - g.payload_start;
  if (regions == (payload + region_bytes - 1) / region_bytes) {
    for (std::uint64_t r = 0; r < regions; ++r) {
      store_le<std::uint64_t>(p + g.table_at + 8 * r, filter_region_checksum(p, g, r));
    }
  }
  seal_filter_head(p, g);
}

void detail::seal_filter_head(unsigned char* file, const filter_geometry& g) {
  store_le<std::uint64_t>(file + g.size - checksum_bytes,
                          xxh3_64(std::string_view(reinterpret_cast<const char*>(file),
                                                   static_cast<std::size_t>(g.payload_start)),
                                  0));
}

detail::word_store detail::layer_words(const filter_payload& in, const filter_layer& layer) {
  const auto n = static_cast<std::size_t>(layer.payload_words);
  if (in.keepalive && std::endian::native == std::endian::little) {
    return word_store::view(reinterpret_cast<const std::uint64_t*>(layer.payload), n, in.keepalive);
  }
  word_store store(n);
  std::uint64_t* out = store.mutable_data();
  for (std::size_t i = 0; i < n; ++i) out[i] = load_le<std::uint64_t>(layer.payload + 8 * i);
  return store;
}

namespace {

// Checks every field and length the format owns, with the rules of the
// kind's row, then builds the filter with the row's load.
template <class Filter>
any_filter parse_kind(const unsigned char* data, std::uint64_t size, hash_kind hash,
                      const std::shared_ptr<const void>& keepalive, std::uint16_t version,
                      std::uint64_t payload_start) {
  using row = filter_kind_row<Filter>;
  const std::string_view name = row::name;
  const auto layer_count = load_le<std::uint32_t>(data + off_layers);
  if (row::xxh3_only && hash != hash_kind::xxh3) {
    corrupt(fmt::format("the filter file records hash {} for a {} filter, which hashes with xxh3",
                        hash_name(hash), name));
  }
  if (layer_count == 0 || (!row::layered && layer_count != 1) ||
      layer_count > scalable_bloom_filter::max_layers) {
    corrupt(fmt::format("the filter file records {} layers for a {} filter", layer_count, name));
  }
  detail::filter_payload in;
  in.hash = hash;
  in.seed = load_le<std::uint64_t>(data + off_seed);
  // Files before version 3 placed xxh3 classic positions without the mix:
  // their bits were set by that rule, so the filter keeps it.
  in.rule =
      version < 3 && hash == hash_kind::xxh3 ? position_rule::double_hashing : position_rule::mixed;
  in.keepalive = keepalive;
  const auto items = load_le<std::uint64_t>(data + off_items);
  in.fpr = load_f64(data + off_fpr);
  in.tightening = load_f64(data + off_tightening);
  in.growth = load_le<std::uint32_t>(data + off_growth);
  if (version == 1 && load_le<std::uint32_t>(data + off_reserved) != 0) {
    corrupt("the filter file has non-zero reserved header bytes");
  }
  if (!row::layered && (load_le<std::uint64_t>(data + off_fpr) != 0 ||
                        load_le<std::uint64_t>(data + off_tightening) != 0 || in.growth != 0)) {
    corrupt("the filter file records scalable-filter parameters for a fixed-size filter");
  }

  const std::uint64_t table_end = header_bytes + layer_entry_bytes * layer_count;
  const std::uint64_t table_pad = align_up(table_end);
  if (payload_start + checksum_bytes > size) {
    corrupt("the filter file is too short for its layer table");
  }
  if (!all_zero(data + table_end, table_pad - table_end)) {
    corrupt("the filter file has non-zero padding after its layer table");
  }

  in.layers.reserve(layer_count);
  std::uint64_t offset = payload_start;
  std::uint64_t item_sum = 0;
  for (std::uint32_t i = 0; i < layer_count; ++i) {
    const unsigned char* e = data + header_bytes + layer_entry_bytes * i;
    detail::filter_layer l;
    l.bits = load_le<std::uint64_t>(e + le_bits);
    l.hashes = load_le<std::uint32_t>(e + le_hashes);
    l.items = load_le<std::uint64_t>(e + le_items);
    l.capacity = load_le<std::uint64_t>(e + le_capacity);
    l.reserved = load_le<std::uint32_t>(e + le_reserved);
    if (!row::entry_reserved && l.reserved != 0) {
      corrupt(fmt::format("layer {} of the filter file has non-zero reserved bytes", i));
    }
    if (row::fixed_hashes != 0 && l.hashes != row::fixed_hashes) {
      corrupt(fmt::format("the filter file records {} hashes for a {} filter, which has {}",
                          l.hashes, name, row::fixed_hashes));
    }
    if (l.bits == 0 || l.bits > max_filter_bits) {
      corrupt(fmt::format("layer {} of the filter file records {} bits, outside 1..{}", i, l.bits,
                          max_filter_bits));
    }
    if (!row::entry_capacity && l.capacity != 0) {
      corrupt("the filter file records a layer capacity for a fixed-size filter");
    }
    // bits <= 2^40, so words * 8 <= 2^37 and 64 layers cannot overflow.
    l.payload_words = row::payload_words(l.bits);
    l.payload = data + offset;
    const std::uint64_t start = offset;
    offset += align_up(l.payload_words * 8);
    if (offset + checksum_bytes > size) {
      corrupt(fmt::format("the filter file is too short for the {} bits of layer {}", l.bits, i));
    }
    const std::uint64_t used = row::payload_bytes(l.bits);
    if (!all_zero(data + start + used, offset - start - used)) {
      corrupt(fmt::format("the filter file has non-zero padding after layer {}", i));
    }
    if (l.items > std::numeric_limits<std::uint64_t>::max() - item_sum) {
      corrupt("the filter file's item counts overflow");
    }
    item_sum += l.items;
    in.layers.push_back(l);
  }
  if (offset + checksum_bytes != size) {
    corrupt(fmt::format("the filter file has {} bytes but its layers account for {}", size,
                        offset + checksum_bytes));
  }
  if (item_sum != items) {
    corrupt(fmt::format("the filter file records {} items in its header but {} in its layers",
                        items, item_sum));
  }
  // The row's load; the constructors check the remaining rules (hash/seed,
  // k limits, block sizes, zero tail bits) and throw data_error.
  return row::load(in);
}

}  // namespace

any_filter detail::parse_filter_file(std::string_view bytes,
                                     const std::shared_ptr<const void>& keepalive,
                                     bool check_regions) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  // 1. Is it ours at all, whole, and intact? (magic, size, version, recorded
  // size, checksums: version 1 is the family's envelope; version 2 checks
  // its header and region table, then each region of the payloads)
  if (bytes.size() < min_file_bytes ||
      std::memcmp(data, filter_magic.data(), filter_magic.size()) != 0) {
    io::check_envelope(bytes, envelope);  // throws the family's sentence
  }
  const auto version = load_le<std::uint16_t>(data + off_version);
  std::uint64_t payload_start = 0;
  if (version == 1) {
    io::check_envelope(bytes, envelope_v1);
    payload_start =
        align_up(header_bytes + layer_entry_bytes * load_le<std::uint32_t>(data + off_layers));
  } else if (version == 2 || version == filter_format_version) {
    const filter_geometry g = check_filter_head(bytes);
    if (check_regions) {
      for (std::uint64_t i = 0; i < g.regions; ++i) check_filter_region(data, g, i);
    }
    payload_start = g.payload_start;
  } else {
    throw data_error(fmt::format(
        "the filter file has format version {}, but this ringbloom reads versions 1 to {}; "
        "open it with the ringbloom that wrote it, or recreate the filter",
        version, filter_format_version));
  }
  // 2. Every field in range, every length consistent; 3. build.
  const auto kind = filter_kind_from_code(data[off_kind]);
  if (!kind) {
    corrupt(fmt::format("the filter file records an unknown filter kind {}", data[off_kind]));
  }
  const auto hash = hash_from_code(data[off_hash]);
  if (!hash) {
    corrupt(fmt::format("the filter file records an unknown hash code {}", data[off_hash]));
  }
  if (version == 3 && !has_mixed_positions(*kind, *hash)) {
    corrupt(fmt::format(
        "the filter file has format version 3, which only classic, counting and scalable filters "
        "hashed with xxh3 are written in, but holds a {} filter hashed with {}",
        filter_kind_name(*kind), hash_name(*hash)));
  }
  std::optional<any_filter> filter;
  filter_kind_table::visit(*kind, [&](auto tag) {
    filter.emplace(parse_kind<typename decltype(tag)::type>(data, bytes.size(), *hash, keepalive,
                                                            version, payload_start));
  });
  return std::move(*filter);
}

std::optional<filter_kind> peek_filter_kind_bytes(std::string_view bytes) noexcept {
  if (bytes.size() <= off_kind ||
      std::memcmp(bytes.data(), filter_magic.data(), filter_magic.size()) != 0) {
    return std::nullopt;
  }
  return filter_kind_from_code(static_cast<std::uint8_t>(bytes[off_kind]));
}

std::uint64_t serialized_size(const any_filter& filter) {
  return geometry_of(filter.kind(), payload_of(filter)).size;
}

std::string serialize_filter(const any_filter& filter) {
  const filter_kind kind = filter.kind();
  const detail::filter_payload v = payload_of(filter);
  const detail::filter_geometry g = geometry_of(kind, v);
  const std::uint64_t size = g.size;
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  store_le<std::uint16_t>(p + off_version, version_of(kind, v));
  p[off_kind] = static_cast<unsigned char>(kind);
  p[off_hash] = static_cast<unsigned char>(v.hash);
  store_le<std::uint32_t>(p + off_layers, static_cast<std::uint32_t>(v.layers.size()));
  store_le<std::uint64_t>(p + off_seed, v.seed);
  std::uint64_t items = 0;
  for (const auto& l : v.layers) items = detail::saturating_add(items, l.items);
  store_le<std::uint64_t>(p + off_items, items);
  store_le<std::uint64_t>(p + off_file_size, size);
  bool layered = false;
  filter_kind_table::visit(
      kind, [&](auto tag) { layered = filter_kind_row<typename decltype(tag)::type>::layered; });
  if (layered) {
    store_f64(p + off_fpr, v.fpr);
    store_f64(p + off_tightening, v.tightening);
    store_le<std::uint32_t>(p + off_growth, v.growth);
  }
  store_le<std::uint32_t>(p + off_regions, static_cast<std::uint32_t>(g.regions));
  std::uint64_t offset = g.payload_start;
  for (std::size_t i = 0; i < v.layers.size(); ++i) {
    const detail::filter_layer& l = v.layers[i];
    unsigned char* e = p + header_bytes + layer_entry_bytes * i;
    store_le<std::uint64_t>(e + le_bits, l.bits);
    store_le<std::uint32_t>(e + le_hashes, l.hashes);
    store_le<std::uint64_t>(e + le_items, l.items);
    store_le<std::uint64_t>(e + le_capacity, l.capacity);
    store_le<std::uint32_t>(e + le_reserved, l.reserved);
    for (std::size_t w = 0; w < l.words.size(); ++w) store_le(p + offset + 8 * w, l.words[w]);
    if (!l.fingerprints8.empty()) {
      std::memcpy(p + offset, l.fingerprints8.data(), l.fingerprints8.size());
    }
    for (std::size_t s = 0; s < l.fingerprints16.size(); ++s) {
      store_le(p + offset + 2 * s, l.fingerprints16[s]);
    }
    offset += align_up(layer_words_of(kind, l.bits) * 8);
  }
  for (std::uint64_t r = 0; r < g.regions; ++r) {
    store_le<std::uint64_t>(p + g.table_at + 8 * r, detail::filter_region_checksum(p, g, r));
  }
  detail::seal_filter_head(p, g);
  return out;
}

any_filter deserialize_filter(std::string_view bytes) {
  return detail::parse_filter_file(bytes, nullptr);
}

void save_filter(const std::filesystem::path& path, const any_filter& filter) {
  io::write_file_atomic(path, serialize_filter(filter));
}

any_filter load_filter(const std::filesystem::path& path) {
  const io::read_lock lock(path);  // no patch in flight while we read
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return detail::parse_filter_file(bytes, nullptr); });
}

any_filter open_filter_mapped(const std::filesystem::path& path) {
  // io::mapped_file refuses a directory or a device with its own sentence and
  // reads a pipe (which cannot be mapped) with io::read_file's bounds; only a
  // real mapping is used in place. The lock holds patches off while the
  // file is verified; later lookups see bits that later adds set in place.
  const io::read_lock lock(path);
  const auto file = io::mapped_file::open(path);
  const std::shared_ptr<const void> keepalive =
      file->mapped() ? std::shared_ptr<const void>(file) : nullptr;
  any_filter f =
      io::with_path(path, [&] { return detail::parse_filter_file(file->bytes(), keepalive); });
  // Lookups probe scattered pages; do not read ahead around them.
  file->advise_random();
  return f;
}

}  // namespace ringbloom
