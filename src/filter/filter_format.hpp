// src/filter/filter_format.hpp: the filter file format's internals shared by
// its reader and writer (filter_format.cpp) and the in-place updates
// (filter_update.cpp). Private to the library; the layout is docs/format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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

/// Validates `bytes` as a filter file (every check of deserialize_filter)
/// and builds its filter: viewing the words in place when `keepalive` is set
/// (it then owns the bytes), else copying them.
[[nodiscard]] any_filter parse_filter_file(std::string_view bytes,
                                           const std::shared_ptr<const void>& keepalive);

}  // namespace ringbloom::detail
