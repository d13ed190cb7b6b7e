// Merkle tree files (include/ringbloom/merkle/merkle_file.hpp, docs/format.md).
#include "ringbloom/merkle/merkle_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

namespace {

constexpr std::array<unsigned char, 8> magic = {0x89, 'R', 'B', 'M', '\r', '\n', 0x1a, '\n'};
constexpr std::size_t header_size = 64;
constexpr std::size_t range_size = 16;
constexpr std::size_t leaf_size = 24;
constexpr std::size_t checksum_size = 8;

std::uint64_t align64(std::uint64_t n) noexcept { return (n + 63) / 64 * 64; }

// memcpy-based little-endian access: no alignment or aliasing assumptions.
template <class T>
T get_le(const char* p) noexcept {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v = static_cast<T>(v |
                       static_cast<T>(static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i)));
  }
  return v;
}

template <class T>
void put_le(char* p, T v) noexcept {
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<char>(v >> (8 * i));
}

std::uint64_t leaves_offset(std::uint64_t ranges) noexcept {
  return align64(header_size + range_size * ranges);
}

std::uint64_t file_size_for(unsigned depth, std::uint64_t ranges) noexcept {
  return leaves_offset(ranges) + leaf_size * (std::uint64_t{1} << depth) + checksum_size;
}

bool all_zero(std::string_view bytes) noexcept {
  for (const char c : bytes) {
    if (c != 0) return false;
  }
  return true;
}

}  // namespace

std::string serialize_tree(const merkle_tree& tree) {
  const merkle_options& options = tree.options();
  const std::uint64_t ranges = options.ranges.size();
  std::string out(file_size_for(tree.depth(), ranges), '\0');
  char* p = out.data();
  std::memcpy(p, magic.data(), magic.size());
  put_le<std::uint16_t>(p + 8, merkle_format_version);
  put_le<std::uint8_t>(p + 10, static_cast<std::uint8_t>(options.key_hash));
  put_le<std::uint8_t>(p + 11, static_cast<std::uint8_t>(options.row_hash));
  put_le<std::uint8_t>(p + 12, static_cast<std::uint8_t>(tree.depth()));
  put_le<std::uint64_t>(p + 16, tree.rows());
  put_le<std::uint64_t>(p + 24, out.size());
  put_le<std::uint32_t>(p + 32, static_cast<std::uint32_t>(ranges));
  put_le<std::uint64_t>(p + 40, tree.root().low);
  put_le<std::uint64_t>(p + 48, tree.root().high);
  for (std::uint64_t i = 0; i < ranges; ++i) {
    put_le<std::uint64_t>(p + header_size + range_size * i, options.ranges[i].first);
    put_le<std::uint64_t>(p + header_size + range_size * i + 8, options.ranges[i].last);
  }
  char* leaf = p + leaves_offset(ranges);
  for (std::uint64_t i = 0; i < tree.leaf_count(); ++i, leaf += leaf_size) {
    const merkle_leaf l = tree.leaf(i);
    put_le<std::uint64_t>(leaf, l.sum.low);
    put_le<std::uint64_t>(leaf + 8, l.sum.high);
    put_le<std::uint64_t>(leaf + 16, l.rows);
  }
  const std::size_t body = out.size() - checksum_size;
  put_le<std::uint64_t>(p + body, xxh3_64(std::string_view(out.data(), body)));
  return out;
}

namespace {

[[noreturn]] void refuse(const std::string& what) { throw data_error(fmt::format("{}", what)); }

// The framing: magic, version, size, checksum. After it every byte is covered.
void check_framing(std::string_view bytes) {
  if (bytes.size() < magic.size() || std::memcmp(bytes.data(), magic.data(), magic.size()) != 0) {
    refuse(
        "not a ringbloom Merkle tree file (bad magic); give a file written by 'ringbloom merkle "
        "build'");
  }
  if (bytes.size() < header_size + checksum_size) {
    refuse(fmt::format(
        "truncated Merkle tree file ({} bytes, a header needs {}); rebuild or copy it again",
        bytes.size(), header_size + checksum_size));
  }
  const auto version = get_le<std::uint16_t>(bytes.data() + 8);
  if (version != merkle_format_version) {
    refuse(
        fmt::format("Merkle tree format version {} is not supported (this build reads {}); "
                    "use a matching ringbloom",
                    version, merkle_format_version));
  }
  if (get_le<std::uint64_t>(bytes.data() + 24) != bytes.size()) {
    refuse(
        fmt::format("Merkle tree file truncated or extended: the header says {} bytes, the file "
                    "has {}; copy it again",
                    get_le<std::uint64_t>(bytes.data() + 24), bytes.size()));
  }
  const std::size_t body = bytes.size() - checksum_size;
  if (xxh3_64(bytes.substr(0, body)) != get_le<std::uint64_t>(bytes.data() + body)) {
    refuse("Merkle tree file checksum does not match: the file is corrupt; copy or rebuild it");
  }
}

merkle_options read_options(std::string_view bytes) {
  const char* p = bytes.data();
  merkle_options options;
  const auto hash = hash_from_code(get_le<std::uint8_t>(p + 10));
  if (!hash) refuse(fmt::format("unknown key hash code {}", get_le<std::uint8_t>(p + 10)));
  options.key_hash = *hash;
  if (get_le<std::uint8_t>(p + 11) != static_cast<std::uint8_t>(row_hash_kind::xxh3_128)) {
    refuse(fmt::format("unknown row hash code {}", get_le<std::uint8_t>(p + 11)));
  }
  options.depth = get_le<std::uint8_t>(p + 12);
  if (options.depth < merkle_tree::min_depth || options.depth > merkle_tree::max_depth) {
    refuse(fmt::format("depth {} is outside {}..{}", options.depth, merkle_tree::min_depth,
                       merkle_tree::max_depth));
  }
  if (!all_zero(bytes.substr(13, 3)) || !all_zero(bytes.substr(36, 4)) ||
      !all_zero(bytes.substr(56, 8))) {
    refuse("reserved header bytes are not zero");
  }
  const std::uint32_t ranges = get_le<std::uint32_t>(p + 32);
  if (ranges > merkle_max_ranges)
    refuse(fmt::format("{} ranges is more than the {} allowed", ranges, merkle_max_ranges));
  if (file_size_for(options.depth, ranges) != bytes.size()) {
    refuse(fmt::format("the file has {} bytes but depth {} with {} ranges needs {}", bytes.size(),
                       options.depth, ranges, file_size_for(options.depth, ranges)));
  }
  options.ranges.reserve(ranges);
  for (std::uint32_t i = 0; i < ranges; ++i) {
    const char* r = p + header_size + range_size * i;
    options.ranges.push_back({get_le<std::uint64_t>(r), get_le<std::uint64_t>(r + 8)});
  }
  if (!ranges_normalized(options.ranges)) {
    refuse("the range table is not sorted, disjoint and non-adjacent");
  }
  const std::uint64_t table_end = header_size + range_size * ranges;
  if (!all_zero(bytes.substr(table_end, leaves_offset(ranges) - table_end))) {
    refuse("the padding after the range table is not zero");
  }
  return options;
}

merkle_tree read_tree(std::string_view bytes) {
  check_framing(bytes);
  merkle_options options = read_options(bytes);
  const std::uint64_t count = std::uint64_t{1} << options.depth;
  std::vector<merkle_leaf> leaves(count);
  const char* leaf = bytes.data() + leaves_offset(options.ranges.size());
  for (std::uint64_t i = 0; i < count; ++i, leaf += leaf_size) {
    leaves[i] = {{get_le<std::uint64_t>(leaf), get_le<std::uint64_t>(leaf + 8)},
                 get_le<std::uint64_t>(leaf + 16)};
  }
  merkle_tree tree = [&] {
    try {
      return merkle_tree::from_leaves(std::move(options), std::move(leaves));
    } catch (const std::invalid_argument& e) {
      refuse(e.what());
    }
  }();
  if (tree.rows() != get_le<std::uint64_t>(bytes.data() + 16)) {
    refuse(fmt::format("the header says {} rows but the leaves hold {}",
                       get_le<std::uint64_t>(bytes.data() + 16), tree.rows()));
  }
  const hash128 root{get_le<std::uint64_t>(bytes.data() + 40),
                     get_le<std::uint64_t>(bytes.data() + 48)};
  if (tree.root() != root) refuse("the root digest does not match the leaves");
  return tree;
}

}  // namespace

merkle_tree deserialize_tree(std::string_view bytes) {
  try {
    return read_tree(bytes);
  } catch (const data_error& e) {
    // Sentences from the field checks get the common prefix and advice.
    if (e.has_advice()) throw;
    throw data_error(fmt::format("invalid Merkle tree file: {}", e.sentence()),
                     "rebuild it with 'ringbloom merkle build'");
  }
}

void save_tree(const std::filesystem::path& path, const merkle_tree& tree) {
  io::write_file_atomic(path, serialize_tree(tree));
}

merkle_tree load_tree(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return deserialize_tree(bytes); });
}

}  // namespace ringbloom
