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
constexpr std::size_t off_reserved = 60;

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

std::uint64_t size_of(filter_kind kind, const detail::filter_payload& v) {
  std::uint64_t size = align_up(header_bytes + layer_entry_bytes * v.layers.size());
  for (const auto& l : v.layers) size += align_up(layer_words_of(kind, l.bits) * 8);
  return size + checksum_bytes;
}

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

}  // namespace

void detail::corrupt_filter_file(std::string_view what) { corrupt(what); }

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
                      const std::shared_ptr<const void>& keepalive) {
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
  in.keepalive = keepalive;
  const auto items = load_le<std::uint64_t>(data + off_items);
  in.fpr = load_f64(data + off_fpr);
  in.tightening = load_f64(data + off_tightening);
  in.growth = load_le<std::uint32_t>(data + off_growth);
  if (load_le<std::uint32_t>(data + off_reserved) != 0) {
    corrupt("the filter file has non-zero reserved header bytes");
  }
  if (!row::layered && (load_le<std::uint64_t>(data + off_fpr) != 0 ||
                        load_le<std::uint64_t>(data + off_tightening) != 0 || in.growth != 0)) {
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
                                     const std::shared_ptr<const void>& keepalive) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  // 1. Is it ours at all, whole, and intact? (magic, size, version, recorded
  // size, checksum: the family's envelope)
  io::check_envelope(bytes, envelope);
  // 2. Every field in range, every length consistent; 3. build.
  const auto kind = filter_kind_from_code(data[off_kind]);
  if (!kind) {
    corrupt(fmt::format("the filter file records an unknown filter kind {}", data[off_kind]));
  }
  const auto hash = hash_from_code(data[off_hash]);
  if (!hash) {
    corrupt(fmt::format("the filter file records an unknown hash code {}", data[off_hash]));
  }
  std::optional<any_filter> filter;
  filter_kind_table::visit(*kind, [&](auto tag) {
    filter.emplace(parse_kind<typename decltype(tag)::type>(data, bytes.size(), *hash, keepalive));
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
  return size_of(filter.kind(), payload_of(filter));
}

std::string serialize_filter(const any_filter& filter) {
  const filter_kind kind = filter.kind();
  const detail::filter_payload v = payload_of(filter);
  const std::uint64_t size = size_of(kind, v);
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  store_le<std::uint16_t>(p + off_version, filter_format_version);
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
  std::uint64_t offset = align_up(header_bytes + layer_entry_bytes * v.layers.size());
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
  io::seal(out);
  return out;
}

any_filter deserialize_filter(std::string_view bytes) {
  return detail::parse_filter_file(bytes, nullptr);
}

void save_filter(const std::filesystem::path& path, const any_filter& filter) {
  io::write_file_atomic(path, serialize_filter(filter));
}

any_filter load_filter(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return detail::parse_filter_file(bytes, nullptr); });
}

any_filter open_filter_mapped(const std::filesystem::path& path) {
  // io::mapped_file refuses a directory or a device with its own sentence and
  // reads a pipe (which cannot be mapped) with io::read_file's bounds; only a
  // real mapping is used in place.
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
