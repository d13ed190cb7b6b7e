// ringbloom/quantile/quantile_file.hpp: quantile files, one t-digest or KLL
// sketch per file, in the ringbloom file family (io/format.hpp): versioned,
// little-endian, checksummed, saved atomically, updated under a lock.
//
// The byte layout is drawn in docs/format.md ("Quantile file format,
// version 1"): a 64-byte header (magic "\x89RBQ\r\n\x1a\n", version, kind,
// the kind's parameters, file size, counts), a 64-byte block of min, max
// (and the t-digest's sum), the payload at offset 128 (t-digest nodes as
// mean and weight; KLL level sizes then values), zero padding to a multiple
// of 64 and an XXH3-64 checksum of everything before it. Golden files in
// tests/quantile/data, written by tests/quantile/quantile_golden.py, pin the
// bytes.
//
// Guarantees: deserialize_quantile / load_quantile check the size, magic,
// version, checksum and every field before building anything (the sketch's
// own from_state checks its invariants: weights add up, centroids and levels
// sorted, values finite and within [min, max], nothing beyond capacity), so
// a truncated, corrupted or foreign file throws data_error; nothing is
// allocated beyond what the file's own size justifies. The whole state is
// saved (a t-digest's buffered nodes, a KLL sketch's generator), so a loaded
// sketch goes on exactly as the saved one would have. The files are a few
// KB, so they are read whole (no memory-mapped view).
//
// Example:
//
//   ringbloom::save_quantile("latency.rbq", ringbloom::tdigest(100));
//   ringbloom::update_quantile_file("latency.rbq", [](ringbloom::any_quantile& q) {
//     std::visit([](auto& s) { s.add(12.5); }, q);
//   });
//   auto td = ringbloom::load_quantile_as<ringbloom::tdigest>("latency.rbq");
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/tdigest.hpp"

namespace ringbloom {

/// The kind codes stored at byte 10 of a quantile file.
enum class quantile_kind : std::uint8_t { tdigest = 1, kll = 2 };

using any_quantile = std::variant<tdigest, kll_sketch>;

/// "t-digest", "KLL sketch".
[[nodiscard]] std::string_view quantile_kind_name(quantile_kind kind) noexcept;
[[nodiscard]] quantile_kind kind_of(const any_quantile& sketch) noexcept;

inline constexpr std::uint16_t quantile_format_version = 1;

/// The file's bytes (docs/format.md).
[[nodiscard]] std::string serialize_quantile(const any_quantile& sketch);
/// A sketch from a file's bytes. Throws data_error naming the problem.
[[nodiscard]] any_quantile deserialize_quantile(std::string_view bytes);

/// Saves atomically. Throws io_error.
void save_quantile(const std::filesystem::path& path, const any_quantile& sketch);
/// Reads and validates a whole file. Throws io_error, data_error (the
/// message names the file).
[[nodiscard]] any_quantile load_quantile(const std::filesystem::path& path);
/// load_quantile, then data_error unless the file holds a T.
template <class T>
[[nodiscard]] T load_quantile_as(const std::filesystem::path& path);

/// Under an exclusive lock of `path`: loads, calls `fn`, saves atomically.
/// If `fn` throws, the file is unchanged. Throws io_error, data_error.
void update_quantile_file(const std::filesystem::path& path,
                          const std::function<void(any_quantile&)>& fn);

extern template tdigest load_quantile_as<tdigest>(const std::filesystem::path&);
extern template kll_sketch load_quantile_as<kll_sketch>(const std::filesystem::path&);

}  // namespace ringbloom
