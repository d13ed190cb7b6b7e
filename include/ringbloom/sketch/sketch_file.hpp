// ringbloom/sketch/sketch_file.hpp: sketch files, one HyperLogLog, Count-Min
// sketch or Top-K per file, in the ringbloom file family (io/format.hpp):
// versioned, little-endian, checksummed, saved atomically, updated under a lock.
//
// The byte layout is drawn in docs/format.md ("Sketch file format, version
// 1"). In short: a 64-byte header (magic "\x89RBS\r\n\x1a\n", version, kind,
// variant, the kind's parameters, seed, file size), the payload at offset 64
// (HLL registers, Count-Min counters, Top-K buckets and heap), zero padding to
// a multiple of 64 and an XXH3-64 checksum of everything before it. Golden
// files in tests/sketch/data, written by tests/sketch/sketch_golden.py, pin
// the bytes.
//
// Guarantees: deserialize_sketch / load_sketch / open_sketch_mapped check the
// size, magic, version, checksum and every field and length before building
// anything, so a truncated, corrupted or foreign file throws data_error and
// nothing is answered from it; nothing is allocated beyond what the file's
// own size justifies. save_sketch is atomic; update_sketch_file serialises
// concurrent updaters (io::update_file_locked).
//
// Memory-mapped, read-only open (open_sketch_mapped, io/mapped_file.hpp):
//   - verification is the same as load_sketch's and reads the whole mapping
//     once (the XXH3-64 checksum): measured, a 1 GiB Count-Min file (2^26 x
//     4) in the page cache opens and answers `cms query` in 0.06 s in all,
//     against 2.6-3.3 s and 3 GB of private memory when read whole (shared
//     machine, docs/performance.md); a cold file also pays its disk read. A
//     HyperLogLog's registers are scanned once more for their maximum;
//   - then a HyperLogLog (hll_view) counts over the registers in place and a
//     Count-Min sketch (count_min_view) reads the depth counters of a query
//     in place: no copy of the payload;
//   - a Top-K is decoded (copied) on open: its heap holds items of variable
//     length that the queries search, so it is returned as a top_k;
//   - the views keep the mapping alive. Replacing the file with save_sketch
//     or update_sketch_file (a rename) does not disturb them; truncating the
//     file in place while it is mapped makes a later read raise SIGBUS
//     (io/mapped_file.hpp): ringbloom never does that, other tools must not.
//
// Example:
//
//   #include <ringbloom/sketch/sketch_file.hpp>
//   ringbloom::save_sketch("visitors.rbs", ringbloom::hyperloglog());
//   ringbloom::update_sketch_file("visitors.rbs", [](ringbloom::any_sketch& s) {
//     std::get<ringbloom::hyperloglog>(s).add("anna");
//   });
//   auto h = ringbloom::load_sketch_as<ringbloom::hyperloglog>("visitors.rbs");
//   auto v = ringbloom::open_sketch_mapped_as<ringbloom::hll_view>("visitors.rbs");
//   std::uint64_t n = v.count();   // == h.count(), read in place
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace ringbloom {

/// The kind codes stored at byte 10 of a sketch file.
enum class sketch_kind : std::uint8_t { hyperloglog = 1, count_min = 2, top_k = 3 };

using any_sketch = std::variant<hyperloglog, count_min_sketch, top_k>;

/// "HyperLogLog", "Count-Min sketch", "Top-K".
[[nodiscard]] std::string_view sketch_kind_name(sketch_kind kind) noexcept;
[[nodiscard]] sketch_kind kind_of(const any_sketch& sketch) noexcept;

inline constexpr std::uint16_t sketch_format_version = 1;

/// The file's bytes (docs/format.md).
[[nodiscard]] std::string serialize_sketch(const any_sketch& sketch);
/// A sketch from a file's bytes. Throws data_error naming the problem.
[[nodiscard]] any_sketch deserialize_sketch(std::string_view bytes);

/// Saves atomically. Throws io_error.
void save_sketch(const std::filesystem::path& path, const any_sketch& sketch);
/// Reads and validates a whole file. Throws io_error, data_error (the
/// message names the file).
[[nodiscard]] any_sketch load_sketch(const std::filesystem::path& path);

/// load_sketch, then data_error unless the file holds a T ("... holds a
/// Count-Min sketch, not a HyperLogLog; ...").
template <class T>
[[nodiscard]] T load_sketch_as(const std::filesystem::path& path);

/// A sketch file opened read-only through mmap (see above): a view of a
/// HyperLogLog or Count-Min sketch that reads the mapping in place, or a
/// decoded Top-K. Throws io_error, data_error (naming the file).
using mapped_sketch = std::variant<hll_view, count_min_view, top_k>;
[[nodiscard]] mapped_sketch open_sketch_mapped(const std::filesystem::path& path);
[[nodiscard]] sketch_kind kind_of(const mapped_sketch& sketch) noexcept;

/// What open_sketch_mapped does once the bytes are there: checks them as
/// deserialize_sketch does and returns views into `bytes`, which must stay
/// valid and unchanged while a view lives (`keepalive` may own them).
/// Throws data_error.
[[nodiscard]] mapped_sketch view_sketch(std::string_view bytes,
                                        std::shared_ptr<const void> keepalive = {});

/// open_sketch_mapped, then data_error unless the file holds a T (hll_view,
/// count_min_view or top_k), as load_sketch_as.
template <class T>
[[nodiscard]] T open_sketch_mapped_as(const std::filesystem::path& path);

/// Under an exclusive lock of `path`: loads, calls `fn`, saves atomically.
/// If `fn` throws, the file is unchanged. Throws io_error, data_error.
void update_sketch_file(const std::filesystem::path& path,
                        const std::function<void(any_sketch&)>& fn);

/// The sketch in `path` as a T (data_error if it holds another kind), for
/// update_sketch_file callbacks and the CLI.
template <class T>
[[nodiscard]] T& sketch_as(any_sketch& sketch, const std::filesystem::path& path);

extern template hyperloglog load_sketch_as<hyperloglog>(const std::filesystem::path&);
extern template count_min_sketch load_sketch_as<count_min_sketch>(const std::filesystem::path&);
extern template top_k load_sketch_as<top_k>(const std::filesystem::path&);
extern template hll_view open_sketch_mapped_as<hll_view>(const std::filesystem::path&);
extern template count_min_view open_sketch_mapped_as<count_min_view>(const std::filesystem::path&);
extern template top_k open_sketch_mapped_as<top_k>(const std::filesystem::path&);
extern template hyperloglog& sketch_as<hyperloglog>(any_sketch&, const std::filesystem::path&);
extern template count_min_sketch& sketch_as<count_min_sketch>(any_sketch&,
                                                              const std::filesystem::path&);
extern template top_k& sketch_as<top_k>(any_sketch&, const std::filesystem::path&);

}  // namespace ringbloom
