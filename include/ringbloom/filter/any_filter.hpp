// ringbloom/filter/any_filter.hpp: a filter of any kind behind one type, and
// making one from a spec.
//
// Use any_filter where the kind is chosen at run time (a file, a command-line
// option, a Python argument): every call forwards to the filter inside. The
// kinds are the rows of the kind table (filter_kinds.hpp); files of any kind
// are read and written by filter_file.hpp.
//
// Guarantees: the answers, bits and counts are the inner filter's; the batch
// calls (add_many, may_contain_many) dispatch on the kind once per call and
// then run the kind's own batch path. Operations a kind does not have throw
// std::invalid_argument with a sentence saying which kind has them.
//
// Example:
//
//   #include <ringbloom/filter/any_filter.hpp>
//   ringbloom::filter_spec spec;  // the default kind (fast), xxh3
//   spec.capacity = 1'000'000;
//   spec.fpr = 0.01;
//   ringbloom::any_filter f = ringbloom::make_filter(spec);
//   f.add("anna");
//   bool maybe = f.may_contain("anna");  // true
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ringbloom/filter/filter_kinds.hpp"

namespace ringbloom {

namespace io {
class line_reader;
}  // namespace io

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
  /// One alternative per row of the kind table (filter_kinds.hpp).
  using variant_type = filter_kind_table::variant;

  /// From a filter of any kind in the table (implicit by design).
  template <class Filter>
  requires std::is_constructible_v<variant_type, Filter&&> &&
      (!std::is_same_v<std::remove_cvref_t<Filter>, any_filter>)any_filter(Filter&& f)
      : filter_(std::forward<Filter>(f)) {}  // NOLINT

  [[nodiscard]] filter_kind kind() const noexcept;
  [[nodiscard]] hash_kind hash() const noexcept;
  [[nodiscard]] std::uint64_t seed() const noexcept;
  [[nodiscard]] std::uint64_t bits() const noexcept;
  [[nodiscard]] std::uint32_t hashes() const noexcept;
  [[nodiscard]] std::uint64_t items_added() const noexcept;
  [[nodiscard]] bool read_only() const noexcept;

  void add(std::string_view item);
  [[nodiscard]] bool may_contain(std::string_view item) const;

  /// add() for each item in order, through the kind's batch path where it
  /// has one (blocked, blocked64, blocked1024, classic: hash a chunk,
  /// prefetch, then set). The kind is dispatched once per call, not per item.
  /// Static kinds throw std::invalid_argument as add does.
  void add_many(std::span<const std::string_view> items);
  void add_many(std::span<const std::string> items);

  /// out[i] = may_contain(items[i]) for every i < items.size(), through the
  /// kind's batch path where it has one (hash a chunk, prefetch, then probe);
  /// returns how many are true. Dispatched once per call. Throws
  /// std::invalid_argument when out.size() < items.size() (out is one bool
  /// per item; std::vector<bool> has no span: use std::unique_ptr<bool[]>).
  std::size_t may_contain_many(std::span<const std::string_view> items, std::span<bool> out) const;
  std::size_t may_contain_many(std::span<const std::string> items, std::span<bool> out) const;
  /// Kinds whose row says `removable` (counting) only; other kinds throw
  /// std::invalid_argument (require_removable's sentence) and are unchanged.
  void remove(std::string_view item);
  /// Throws std::invalid_argument, with advice, unless items can be removed
  /// from a filter of `kind` ("remove needs a counting filter, but this is a
  /// blocked filter, ...; create the filter with kind counting ..."; a static
  /// kind says to rebuild it). For checks made before any item is removed.
  static void require_removable(filter_kind kind);
  /// The filter's one array of 64-bit words (bit p is bit p % 64 of word
  /// p / 64; a counting filter's counter p is bits 4 (p % 16).. of word
  /// p / 16). Kinds without one array (layered, static) throw
  /// std::invalid_argument naming the kinds that have one.
  [[nodiscard]] std::span<const std::uint64_t> words() const;
  /// The facts of the filter's kind beyond stats() (a counting filter's
  /// saturated counters, a static filter's slots, a scalable filter's
  /// schedule and layers), from its kind row: what `bloom info` prints.
  [[nodiscard]] filter_description describe() const;
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

/// An item's probes (any_filter::explain) as one line of text: "positions
/// 5,3 (zero: 5)", the zero positions listed once each; with `layered`
/// (a scalable filter), "layer 0 positions 5,3 (zero: 5); layer 1 ...".
[[nodiscard]] std::string describe_probes(std::span<const bit_probe> probes, bool layered);

/// A new empty filter. Throws std::invalid_argument unless exactly one of
/// (capacity and fpr) or (bits and hashes) is given, and for any value a
/// constructor refuses.
[[nodiscard]] any_filter make_filter(const filter_spec& spec);

/// Peak bytes per key while a fuse filter is built from streamed keys: the
/// key hashes (8), the construction's own arrays (fuse_filter.cpp: a second
/// hash array 8, slot counters and XORs about 10 per slot at 1.125+ slots
/// per key, the peel stack 5 and queue up to 4.5, a deduplicated copy 8
/// after a failed try) and the file image (2 per slot for fuse16): below 48.
inline constexpr std::uint64_t fuse_build_bytes_per_key = 48;

/// The key hashes (fuse8_filter::key_hash(line, seed)) of every line `in`
/// gives, for build_fuse_filter(kind, ..., seed): the keys themselves are
/// never held, only 8 bytes each. Before the hash array grows, the memory
/// the build needs for that many keys (fuse_build_bytes_per_key each) is
/// checked: io::memory_error "SOURCE (more than N keys, about 48 bytes each
/// while the fuse8 filter is built) needs ...; split the keys into several
/// filters". More than 2^32 keys is std::invalid_argument. `source` names
/// the input in messages ("--from keys.txt").
///
///   ringbloom::io::line_reader in = ringbloom::io::line_reader::open("keys.txt", "keys.txt");
///   auto hashes = ringbloom::read_fuse_key_hashes(in, ringbloom::filter_kind::fuse8, 0,
///   "keys.txt"); ringbloom::any_filter f =
///   ringbloom::build_fuse_filter(ringbloom::filter_kind::fuse8, hashes);
[[nodiscard]] std::vector<std::uint64_t> read_fuse_key_hashes(io::line_reader& in, filter_kind kind,
                                                              std::uint64_t seed,
                                                              std::string_view source);

/// A static fuse filter (kind fuse8, fuse16 or fuse8-4wise) of the items whose
/// key hashes (fuse8_filter::key_hash(item, seed)) are given; duplicates are
/// counted once. Throws std::invalid_argument for another kind.
[[nodiscard]] any_filter build_fuse_filter(filter_kind kind, std::span<const std::uint64_t> hashes,
                                           std::uint64_t seed = 0);

}  // namespace ringbloom
