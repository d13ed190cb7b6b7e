// redis/types/staged_value.hpp: the value behind a CF.*, CMS.* or TOPK.* key, and
// its dump protocol.
//
// A value is either complete (`value` holds the filter or sketch) or being
// restored by *.LOADCHUNK (`pending` collects the bytes). The dump is the
// library's own checksummed image (serialize_cuckoo / serialize_sketch),
// cut into slices:
//
//   SCANDUMP key 0  ->  [1, header]        header: "RBSH", image size u64,
//                                          image XXH3-64 u64, XXH3-64 of those
//   SCANDUMP key c  ->  [c + n, slice]     n bytes of the image from c - 1,
//                                          n <= 16 MiB - 64
//   past the end    ->  [0, nil]
//
//   LOADCHUNK key 1 header     a new, pending value (the key must be empty)
//   LOADCHUNK key c slice      appends the slice, which must start where the
//                              last one ended (c - 1 - n == bytes so far);
//                              after the last byte the image is checked and
//                              loaded (the library validates every field).
//
// While pending, the key answers reads as empty and refuses writes. The AOF
// rewrite emits exactly these LOADCHUNK commands.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"

namespace ringbloom::redis {

inline constexpr std::size_t max_slice_bytes = (std::size_t{16} << 20) - 64;
/// The length of a dump header: "RBSH", two u64 fields, the u64 seal.
inline constexpr std::size_t dump_header_bytes = 28;

/// What take_chunk did with a LOADCHUNK slice.
enum class chunk_result : std::uint8_t {
  appended,      ///< added; more bytes are expected
  loaded,        ///< added, and the image was complete, intact and loaded
  out_of_order,  ///< refused, nothing changed: not where the last slice ended, or too long
  damaged,       ///< the image was complete but its checksum or content was refused
};

/// What a value being restored by LOADCHUNK keeps: the bytes so far and the
/// header's size and checksum of the whole image.
struct restore_state {
  std::string pending;
  std::uint64_t expected_size = 0;
  std::uint64_t expected_hash = 0;
};

template <class T>
struct staged_value {
  std::optional<T> value;
  /// Only while LOADCHUNK restores the value: a pointer, so that a complete
  /// value (the common case, millions of small keys) does not carry 48
  /// bytes for it (a CF value falls from jemalloc's 160-byte class to 96).
  std::unique_ptr<restore_state> restore;

  staged_value() = default;
  staged_value(const staged_value& other)
      : value(other.value),
        restore(other.restore ? std::make_unique<restore_state>(*other.restore) : nullptr) {}
  staged_value(staged_value&&) noexcept = default;
  staged_value& operator=(const staged_value& other) {
    if (this != &other) *this = staged_value(other);
    return *this;
  }
  staged_value& operator=(staged_value&&) noexcept = default;
  ~staged_value() = default;

  [[nodiscard]] bool complete() const noexcept { return value.has_value(); }
  /// The restore state, made on first use.
  restore_state& restoring() {
    if (!restore) restore = std::make_unique<restore_state>();
    return *restore;
  }
  /// The bytes received so far (empty when complete).
  [[nodiscard]] std::string_view pending() const noexcept {
    return restore ? std::string_view(restore->pending) : std::string_view();
  }

  /// LOADCHUNK key `end + 1` data: appends `data`, which must end at byte
  /// `end` of the image (so start where the last slice ended); once the
  /// image is whole, checks its XXH3-64 and loads it with from_image (the
  /// library validates every field; any refusal means damaged). Pure: the
  /// module's LOADCHUNK and the fuzz target fuzz/redis/staged_dump_fuzz.cpp
  /// both run it.
  template <class FromImage>
  chunk_result take_chunk(std::uint64_t end, std::string_view data, FromImage&& from_image) {
    if (complete()) return chunk_result::out_of_order;
    restore_state& r = restoring();
    if (end < data.size() || end - data.size() != r.pending.size() || end > r.expected_size) {
      return chunk_result::out_of_order;
    }
    r.pending.append(data);
    if (r.pending.size() != r.expected_size) return chunk_result::appended;
    try {
      if (xxh3_64(r.pending) != r.expected_hash) return chunk_result::damaged;
      value.emplace(from_image(std::string_view(r.pending)));
    } catch (const std::exception&) {  // data_error, or a size this process cannot hold
      return chunk_result::damaged;
    }
    restore.reset();
    return chunk_result::loaded;
  }
};

/// The header of a dump of `image`.
inline std::string dump_header(std::string_view image) {
  std::string out("RBSH");
  const std::uint64_t fields[2] = {image.size(), xxh3_64(image)};
  out.append(reinterpret_cast<const char*>(fields), sizeof(fields));
  const std::uint64_t seal = xxh3_64(out);
  out.append(reinterpret_cast<const char*>(&seal), sizeof(seal));
  return out;
}

/// Reads a header into `size` and `hash`; throws data_error when it is not one.
inline void parse_dump_header(std::string_view bytes, std::uint64_t& size, std::uint64_t& hash) {
  if (bytes.size() != dump_header_bytes || bytes.substr(0, 4) != "RBSH") {
    throw data_error("not a ringbloom dump header (SCANDUMP's first chunk)");
  }
  std::uint64_t seal = 0;
  std::memcpy(&seal, bytes.data() + 20, 8);
  if (xxh3_64(bytes.substr(0, 20)) != seal) throw data_error("the dump header is damaged");
  std::memcpy(&size, bytes.data() + 4, 8);
  std::memcpy(&hash, bytes.data() + 12, 8);
}

}  // namespace ringbloom::redis
