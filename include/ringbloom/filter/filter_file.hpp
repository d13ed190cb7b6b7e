// ringbloom/filter/filter_file.hpp: any filter kind behind one type, and filter
// files: versioned, little-endian, checksummed, saved atomically, updated
// under a lock, and opened read-only through mmap.
//
// The byte layout is drawn in docs/format.md (format version 1). In short: a
// 64-byte header (magic "\x89RBF\r\n\x1a\n", version, kind, hash code, layer
// count, seed, items, file size, scalable parameters), a 32-byte entry per
// layer (m, k, items, capacity), each layer's words 64-byte aligned, and an
// XXH3-64 checksum of everything before it. Golden files in tests/filter/data pin
// the bytes.
//
// Guarantees:
//   - load_filter / deserialize_filter / open_filter_mapped check the size,
//     magic, version, checksum and every field and length before returning;
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
//     durable once the checkpoint holding it returns.
//   - open_filter_mapped does not copy the words: lookups read the page
//     cache. Opening still reads the whole file once to verify the checksum
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
//   ringbloom::filter_spec spec;              // blocked, xxh3 by default
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
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ringbloom/filter/blocked1024_bloom.hpp"
#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/fuse_filter.hpp"
#include "ringbloom/filter/scalable_bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/checkpoint.hpp"

namespace ringbloom {

/// How to make a new filter (what `ringbloom bloom create` parses). Give
/// either capacity and fpr, or bits and hashes.
struct filter_spec {
  filter_kind kind = default_filter_kind;
  hash_kind hash = default_hash;
  std::uint64_t seed = 0;
  std::uint64_t capacity = 0;                                     ///< n, with fpr
  double fpr = 0;                                                 ///< p in (0, 1), with capacity
  std::uint64_t bits = 0;                                         ///< m, with hashes
  std::uint32_t hashes = 0;                                       ///< k, with bits
  std::uint32_t growth = scalable_bloom_filter::default_growth;   ///< scalable only
  double tightening = scalable_bloom_filter::default_tightening;  ///< scalable only
};

/// A filter of any kind. Calls forward to the filter inside; operations a
/// kind does not have throw std::invalid_argument with a sentence that says
/// which kind has them. The fuse kinds are static: add, add_many, remove,
/// merge and intersect throw std::invalid_argument saying to rebuild the
/// filter from its whole key set (build_fuse_filter, or `ringbloom bloom
/// create FILE --kind fuse8 --from KEYS.txt`). For them bits() is slots x
/// fingerprint bits, hashes() is 3, explain() gives the three slots with
/// their fingerprints as values.
class any_filter {
 public:
  using variant_type =
      std::variant<bloom_filter, blocked_bloom_filter, counting_bloom_filter, scalable_bloom_filter,
                   fuse8_filter, fuse16_filter, blocked64_bloom_filter, blocked1024_bloom_filter>;

  any_filter(bloom_filter f) : filter_(std::move(f)) {}              // NOLINT: implicit by design
  any_filter(blocked_bloom_filter f) : filter_(std::move(f)) {}      // NOLINT
  any_filter(counting_bloom_filter f) : filter_(std::move(f)) {}     // NOLINT
  any_filter(scalable_bloom_filter f) : filter_(std::move(f)) {}     // NOLINT
  any_filter(fuse8_filter f) : filter_(std::move(f)) {}              // NOLINT
  any_filter(fuse16_filter f) : filter_(std::move(f)) {}             // NOLINT
  any_filter(blocked64_bloom_filter f) : filter_(std::move(f)) {}    // NOLINT
  any_filter(blocked1024_bloom_filter f) : filter_(std::move(f)) {}  // NOLINT

  [[nodiscard]] filter_kind kind() const noexcept;
  [[nodiscard]] hash_kind hash() const noexcept;
  [[nodiscard]] std::uint64_t seed() const noexcept;
  [[nodiscard]] std::uint64_t bits() const noexcept;
  [[nodiscard]] std::uint32_t hashes() const noexcept;
  [[nodiscard]] std::uint64_t items_added() const noexcept;
  [[nodiscard]] bool read_only() const noexcept;

  void add(std::string_view item);
  /// add() for each item in order, through the batch path of the blocked,
  /// blocked64, blocked1024 and classic kinds (hash a chunk, prefetch, then set).
  void add_many(std::span<const std::string_view> items);
  [[nodiscard]] bool may_contain(std::string_view item) const;
  /// Counting filters only; other kinds throw std::invalid_argument
  /// ("remove needs a counting filter; ...").
  void remove(std::string_view item);
  /// The item's probes (for --explain). Blocked positions are global bit
  /// indexes; scalable probes carry their layer.
  [[nodiscard]] std::vector<bit_probe> explain(std::string_view item) const;
  [[nodiscard]] filter_stats stats() const;

  /// Union / intersection with a filter of the same kind, m, k, hash and seed;
  /// std::invalid_argument (filter unchanged) otherwise, saying what differs.
  void merge(const any_filter& other);
  void intersect(const any_filter& other);

  [[nodiscard]] const variant_type& variant() const noexcept { return filter_; }
  [[nodiscard]] variant_type& variant() noexcept { return filter_; }
  template <class Filter>
  [[nodiscard]] const Filter* get_if() const noexcept {
    return std::get_if<Filter>(&filter_);
  }
  template <class Filter>
  [[nodiscard]] Filter* get_if() noexcept {
    return std::get_if<Filter>(&filter_);
  }

  friend bool operator==(const any_filter& a, const any_filter& b) noexcept {
    return a.filter_ == b.filter_;
  }

 private:
  variant_type filter_;
};

/// A new empty filter. Throws std::invalid_argument unless exactly one of
/// (capacity and fpr) or (bits and hashes) is given, and for any value a
/// constructor refuses.
[[nodiscard]] any_filter make_filter(const filter_spec& spec);

/// A static fuse filter (kind fuse8 or fuse16) of the items whose
/// key hashes (fuse8_filter::key_hash(item, seed)) are given; duplicates are
/// counted once. Throws std::invalid_argument for another kind.
[[nodiscard]] any_filter build_fuse_filter(filter_kind kind, std::span<const std::uint64_t> hashes,
                                           std::uint64_t seed = 0);

/// True for the static kinds (fuse8, fuse16).
[[nodiscard]] constexpr bool is_static_kind(filter_kind kind) noexcept {
  return kind == filter_kind::fuse8 || kind == filter_kind::fuse16;
}

/// The current format version, written into every file.
inline constexpr std::uint16_t filter_format_version = 1;

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
/// order. The bytes are validated first exactly as deserialize_filter does
/// (data_error, `file` unchanged). Classic, blocked, blocked64 and blocked1024 filters are changed
/// in place (their bits, item counts and checksum), without a copy of the
/// words; counting and scalable filters are decoded and re-encoded.
void add_to_filter_bytes(std::string& file, std::span<const std::string_view> items);

/// A checkpointed stream of additions to the filter file `path`
/// (io/checkpoint.hpp): add() items, checkpoint() when due() and at the end.
/// Each checkpoint is add_to_filter_bytes under the file's lock. When
/// `items_in_file` is given, each checkpoint stores there the file's item
/// count right after it (it must outlive the stream).
[[nodiscard]] io::checkpointed_stream add_filter_stream(const std::filesystem::path& path,
                                                        io::checkpoint_policy policy = {},
                                                        std::uint64_t* items_in_file = nullptr);

}  // namespace ringbloom
