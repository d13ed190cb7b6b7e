// ringbloom/filter/detail/filter_payload.hpp: what the filter file format
// (src/filter/filter_format.cpp) hands to a kind's row of the kind table
// (ringbloom/filter/filter_kinds.hpp) and takes back from it. Internal: the
// rows' load and save use it; nothing else should.
//
// The format reads and writes the envelope (magic, version, header, one
// 32-byte entry per layer, 64-byte aligned payloads, checksum; docs/format.md)
// and checks every length and every field it owns. A row only turns layers
// into a filter (load) and a filter into layers (save).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ringbloom/filter/detail/bloom_core.hpp"  // position_rule
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::detail {

/// One layer of a filter file: its 32-byte entry, and where its payload is.
struct filter_layer {
  std::uint64_t bits = 0;      ///< m (a fuse filter's slot count)
  std::uint32_t hashes = 0;    ///< k
  std::uint32_t reserved = 0;  ///< entry bytes 12..15: 0, or a fuse filter's segment length
  std::uint64_t items = 0;
  std::uint64_t capacity = 0;  ///< a scalable layer's capacity, a fuse filter's build seed, or 0
  // save: the payload to write, as one of these (little-endian on disk)
  std::span<const std::uint64_t> words;
  std::span<const std::uint8_t> fingerprints8;
  std::span<const std::uint16_t> fingerprints16;
  // load: the payload in the file's bytes, already bounds-checked
  const unsigned char* payload = nullptr;
  std::uint64_t payload_words = 0;  ///< the row's payload_words(bits)
};

/// The header fields and layers of one filter (docs/format.md).
struct filter_payload {
  hash_kind hash = default_hash;
  std::uint64_t seed = 0;
  double fpr = 0;            ///< layered kinds only (scalable), else 0
  double tightening = 0;     ///< layered kinds only
  std::uint32_t growth = 0;  ///< layered kinds only
  /// The xxh3 position rule of the classic, counting and scalable kinds:
  /// load: double_hashing for files before version 3; save: the filter's
  /// (a double_hashing filter is written as version 2, docs/format.md).
  position_rule rule = position_rule::mixed;
  std::vector<filter_layer> layers;
  /// load: set when the bytes are a mapping the filter may keep viewing
  /// (open_filter_mapped); empty when the filter must own a copy.
  std::shared_ptr<const void> keepalive;
};

/// The words of a loaded layer: a view into the mapping when `in.keepalive`
/// is set (little-endian hosts only), else a copy.
[[nodiscard]] word_store layer_words(const filter_payload& in, const filter_layer& layer);

/// Throws data_error "<what>; the file is damaged or was not written by
/// ringbloom, ..." (the format's sentence), for a row's load to refuse what
/// the filter's constructors refuse.
[[noreturn]] void corrupt_filter_file(std::string_view what);

}  // namespace ringbloom::detail
