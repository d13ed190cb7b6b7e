// ringbloom/merkle/merkle_file.hpp: Merkle tree files (.rbm), so that two
// machines exchange trees as files: versioned, little-endian, checksummed,
// saved atomically, in the house style of the filter files.
//
// The layout is drawn in docs/format.md ("Merkle tree files"). In short: a
// 64-byte header (magic "\x89RBM\r\n\x1a\n", version, key hash, row hash,
// depth, rows, file size, range count, root digest), the range table (16
// bytes a range), zeros to a multiple of 64, 2^depth leaves of 24 bytes (sum
// low, sum high, rows) and the XXH3-64 checksum of everything before it.
// Inner digests are not stored: a reader recomputes them (2^depth hashes,
// about 1 ms at depth 16) and checks the root against the header's.
//
// Guarantees: load_tree / deserialize_tree check the magic, version, size and
// checksum before trusting any field, then every field; a truncated,
// corrupted, foreign or absurd file throws data_error and nothing is built
// from it, and nothing is allocated beyond what the file's own size implies.
// save_tree is atomic and durable (io::write_file_atomic).
//
// Example:
//
//   ringbloom::merkle_tree tree({.depth = 16});
//   tree.add("user:1", "anna");
//   ringbloom::save_tree("replica-a.rbm", tree);
//   ringbloom::merkle_tree back = ringbloom::load_tree("replica-a.rbm");   // == tree
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "ringbloom/merkle/merkle_tree.hpp"

namespace ringbloom {

/// The current version of the tree file format.
inline constexpr std::uint16_t merkle_format_version = 1;

/// The most ranges a tree file may list.
inline constexpr std::uint32_t merkle_max_ranges = 1u << 24;

/// The file's bytes (docs/format.md).
[[nodiscard]] std::string serialize_tree(const merkle_tree& tree);

/// A tree from a file's bytes. Throws data_error naming the problem when the
/// bytes are not a valid tree file of a known version.
[[nodiscard]] merkle_tree deserialize_tree(std::string_view bytes);

/// Saves atomically. Throws io_error.
void save_tree(const std::filesystem::path& path, const merkle_tree& tree);

/// Reads and validates a whole file. Throws io_error, or data_error with the
/// file's name in the sentence.
[[nodiscard]] merkle_tree load_tree(const std::filesystem::path& path);

}  // namespace ringbloom
