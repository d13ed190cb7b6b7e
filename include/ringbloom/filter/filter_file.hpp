// ringbloom/filter/filter_file.hpp: filter files: versioned, little-endian,
// checksummed, saved atomically, updated under a lock, and opened read-only
// through mmap. (The kind-erased filter, any_filter, is in any_filter.hpp,
// included here; the kinds a file may hold are the rows of filter_kinds.hpp.)
//
// The byte layout is drawn in docs/format.md (format version 3, which is
// version 2's layout with mixed classic xxh3 positions; versions 1 and 2 are
// still read, and their classic xxh3 filters keep their old positions). In short: a 64-byte header
// (magic "\x89RBF\r\n\x1a\n", version, kind, hash code, layer count, seed, items, file size,
// scalable parameters, region count), a 32-byte entry per layer (m, k, items, capacity), an XXH3-64
// checksum per 4096-byte region of the payloads, each layer's words 64-byte
// aligned, and last an XXH3-64 checksum of everything before the payloads.
// Golden files in tests/filter/data pin the bytes.
//
// Guarantees:
//   - load_filter / deserialize_filter / open_filter_mapped check the size,
//     magic, version, every checksum (the head's and every region's: a
//     mapped open verifies the whole file once, not each region on first
//     use) and every field and length before returning;
//     a truncated, corrupted, foreign or absurd file throws data_error and
//     nothing is answered from it. Nothing is allocated beyond the file's
//     own size.
//   - save_filter is atomic and durable: a crash leaves the old file or the
//     new one, never a mix (temporary file, fsync, rename, fsync directory).
//   - update_filter_file serialises concurrent updaters of one file, in this
//     process or others (flock), so two processes adding at once both take
//     effect.
//   - add_filter_stream streams items into a file in checkpoints
//     (io/checkpoint.hpp): the items wait in a private delta and are folded
//     in under the lock at most every second (configurable), so a long
//     stream costs per item, not per batch times the file's size; an item is
//     durable once the checkpoint holding it returns. A checkpoint patches a
//     version-2 or -3 classic or blocked-kind file in place (io/file_patch.hpp): it
//     reads the header, the region table and the pages its items fall in,
//     checks each region it changes against its old checksum, and writes
//     those regions with their checksums through a journal, so one item
//     added to a 1 GiB file costs a few KiB of I/O and two flushes; a process
//     killed at any moment leaves the state before the checkpoint or after
//     it. Other kinds, version-1 files and checkpoints that change more than
//     a quarter of the file are rewritten whole (atomically).
//   - Readers take a shared lock while they read and verify, and complete a
//     journal a killed updater left behind (which needs write permission).
//   - open_filter_mapped does not copy the words: lookups read the page
//     cache, and see bits that later in-place adds set. Opening still reads
//     the whole file once to verify the checksums
//     (XXH3 runs at memory speed, some GB/s; a 1 GiB filter costs well under a
//     second, once), then lookups touch only the pages they probe. The
//     returned filter is read-only: add, remove, merge throw std::logic_error.
//     The mapping (io/mapped_file.hpp, shared with sketch and cuckoo filter
//     files) survives a save over the file (a rename); truncating the file
//     in place while mapped makes a later lookup raise SIGBUS.
//
// Example:
//
//   #include <ringbloom/filter/filter_file.hpp>
//   ringbloom::filter_spec spec;              // the default kind (fast), xxh3
//   spec.capacity = 1'000'000;
//   spec.fpr = 0.01;
//   ringbloom::save_filter("users.rbf", ringbloom::make_filter(spec));
//   ringbloom::update_filter_file("users.rbf", [](ringbloom::any_filter& f) { f.add("anna"); });
//   auto view = ringbloom::open_filter_mapped("users.rbf");
//   bool maybe = view.may_contain("anna");    // true
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ringbloom/filter/any_filter.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/checkpoint.hpp"

namespace ringbloom {

/// The newest format version: written for classic, counting and scalable
/// filters hashed with xxh3 by the mixed position rule (bloom.hpp); every
/// other filter is written as version 2, which it reads the same in
/// (docs/format.md, "Version 3"). Versions 1 and 2 are read.
inline constexpr std::uint16_t filter_format_version = 3;

/// The kind recorded in a filter file's header (its magic and byte 10,
/// docs/format.md), read from the first 11 bytes only: nothing else is
/// checked, so a file that peeks as a kind may still fail to load. Nothing
/// when the bytes do not start as a filter file of a known kind. The path
/// form (peek_filter_kind) reads the first 11 bytes of a regular file and
/// answers nothing for a missing, unreadable or non-regular path (loading it
/// then says what is wrong); the bytes form (peek_filter_kind_bytes) reads a
/// file's bytes already in memory.
[[nodiscard]] std::optional<filter_kind> peek_filter_kind_bytes(std::string_view bytes) noexcept;
[[nodiscard]] std::optional<filter_kind> peek_filter_kind(const std::filesystem::path& path);

/// The file's bytes (docs/format.md).
[[nodiscard]] std::string serialize_filter(const any_filter& filter);

/// The number of bytes serialize_filter would produce.
[[nodiscard]] std::uint64_t serialized_size(const any_filter& filter);

/// A filter from a file's bytes, copied. Throws data_error naming the
/// problem when the bytes are not a valid filter file of a known version.
[[nodiscard]] any_filter deserialize_filter(std::string_view bytes);

/// Saves atomically (see above). Throws io_error.
void save_filter(const std::filesystem::path& path, const any_filter& filter);

/// Reads and validates a whole file. Throws io_error, data_error.
[[nodiscard]] any_filter load_filter(const std::filesystem::path& path);

/// Opens a file read-only through mmap; the words stay in the page cache
/// (see above). Throws io_error, data_error.
[[nodiscard]] any_filter open_filter_mapped(const std::filesystem::path& path);

/// Under an exclusive lock of `path`: loads the filter, calls `fn` on it and
/// saves it atomically. Concurrent updaters (threads or processes) are
/// serialised, so none loses the others' additions. If `fn` throws, the file
/// is left unchanged and the exception propagates. Throws io_error (also when
/// the file does not exist), data_error.
void update_filter_file(const std::filesystem::path& path,
                        const std::function<void(any_filter&)>& fn);

/// Adds `items` to a filter file's bytes: afterwards `file` equals
/// serialize_filter of deserialize_filter(file) with the items added in
/// order (so a version-1 file becomes version 2). The bytes are validated
/// first exactly as deserialize_filter does (data_error, `file` unchanged).
/// Version-2 classic, blocked, blocked64 and blocked1024 filters are changed
/// in place (their bits, item counts and checksums), without a copy of the
/// words; other files are decoded and re-encoded.
void add_to_filter_bytes(std::string& file, std::span<const std::string_view> items);

/// Throws std::invalid_argument when `kind` is static, saying that the file
/// at `path` cannot take items and how to rebuild it ("'PATH' is a fuse8
/// filter, which is static: ..."). `ringbloom bloom add` calls it with
/// peek_filter_kind before reading standard input.
void refuse_static_add(const std::filesystem::path& path, filter_kind kind);

/// A checkpointed stream of additions to the filter file `path`
/// (io/checkpoint.hpp): add() items, checkpoint() when due() and at the end.
/// Each checkpoint patches the file in place or rewrites it (see above) under
/// the file's lock; a static
/// filter's file is refused there as refuse_static_add refuses it. When
/// `items_in_file` is given, each checkpoint stores there the file's item
/// count right after it (it must outlive the stream).
[[nodiscard]] io::checkpointed_stream add_filter_stream(const std::filesystem::path& path,
                                                        io::checkpoint_policy policy = {},
                                                        std::uint64_t* items_in_file = nullptr);

}  // namespace ringbloom
