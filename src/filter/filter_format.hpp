// src/filter/filter_format.hpp: the filter file format's internals shared by
// its reader and writer (filter_format.cpp) and the in-place updates
// (filter_update.cpp). Private to the library; the layout is docs/format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ringbloom/filter/any_filter.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom::detail {

inline constexpr std::size_t filter_header_bytes = 64;
inline constexpr std::size_t filter_layer_entry_bytes = 32;
/// Header offset of the item count, and layer-entry offset of a layer's.
inline constexpr std::size_t filter_off_kind = 10;
inline constexpr std::size_t filter_off_items = 24;
inline constexpr std::size_t filter_le_items = 16;
/// Version 2: the header's region count, and the size of a checked region.
inline constexpr std::size_t filter_off_regions = 60;
inline constexpr std::uint64_t filter_region_bytes = 4096;

/// Where the parts of a version-2 file lie (docs/format.md): the region
/// table at `table_at` (`regions` u64 checksums), the payloads from
/// `payload_start` to `size - 8`, the head checksum at `size - 8` over bytes
/// [0, payload_start).
struct filter_geometry {
  std::uint64_t layers = 0;
  std::uint64_t regions = 0;
  std::uint64_t table_at = 0;
  std::uint64_t payload_start = 0;
  std::uint64_t size = 0;
  /// Bytes [begin, end) of region i.
  [[nodiscard]] std::uint64_t region_begin(std::uint64_t i) const noexcept {
    return payload_start + i * filter_region_bytes;
  }
  [[nodiscard]] std::uint64_t region_end(std::uint64_t i) const noexcept;
};

/// The geometry of a version-2 file of `layers` layers whose payloads take
/// `payload_bytes` (each already padded to 64).
[[nodiscard]] filter_geometry filter_geometry_for(std::uint64_t layers,
                                                  std::uint64_t payload_bytes) noexcept;

/// The geometry a version-2 file's header announces, after checking its
/// head checksum and that the announced regions cover its payloads exactly
/// (data_error otherwise). The payloads are not read.
[[nodiscard]] filter_geometry check_filter_head(std::string_view bytes);

/// XXH3-64 (seed 0) of region i's bytes.
[[nodiscard]] std::uint64_t filter_region_checksum(const unsigned char* file,
                                                   const filter_geometry& g, std::uint64_t i);

/// Throws data_error naming region i when its bytes do not match its stored
/// checksum.
void check_filter_region(const unsigned char* file, const filter_geometry& g, std::uint64_t i);

/// Recomputes the head checksum (after the header, layer table or region
/// table changed) and stores it at size - 8.
void seal_filter_head(unsigned char* file, const filter_geometry& g);

/// Recomputes a version-2 file's region checksums and head checksum from the
/// layer and region counts its header records, as far as they fit the bytes
/// (nothing when they do not): for the tests and the fuzz target, which edit
/// fields on purpose and must still reach the checks behind the checksums.
void reseal_filter_bytes(std::string& bytes);

/// Validates `bytes` as a filter file (every check of deserialize_filter)
/// and builds its filter: viewing the words in place when `keepalive` is set
/// (it then owns the bytes), else copying them. With `check_regions` false,
/// a version-2 file's payload regions are not checked against their
/// checksums (the in-place add checks those it changes).
[[nodiscard]] any_filter parse_filter_file(std::string_view bytes,
                                           const std::shared_ptr<const void>& keepalive,
                                           bool check_regions = true);

}  // namespace ringbloom::detail
