// ringbloom/filter/filter_kinds.hpp: the table of filter kinds, one row per
// kind, and what front ends read off it (names, codes, sizing).
//
// Every place that depends on a filter's kind goes through this table: the
// kind-erased filter (any_filter.hpp: its variant is the table's list, its
// batch calls dispatch once per batch), make_filter, the file loader and
// saver and the in-place add (filter_file.hpp), `ringbloom bloom create
// --kind` and its help text, Python's kind= arguments, the fuzz target.
//
// Guarantees: a kind's name and code never change (the code is written into
// files, docs/format.md); filter_kinds() lists the kinds in the table's order,
// which is the order they are shown to users (the default first). Three role
// names, "default", "densest" and "textbook" (filter_roles), are accepted
// wherever a kind's name is parsed and stand for the kinds that play them.
//
// Example:
//
//   #include <ringbloom/filter/filter_kinds.hpp>
//   for (const ringbloom::filter_kind_info& k : ringbloom::filter_kinds()) {
//     std::printf("%s%s\n", std::string(k.name).c_str(), k.is_static ? " (static)" : "");
//   }
//   ringbloom::filter_size s = ringbloom::filter_size_for(ringbloom::filter_kind::blocked64, 1000,
//   0.01);
//   ringbloom::filter_kind k = ringbloom::parse_filter_kind("densest");  // blocked1024
//
// ## Adding a kind
//
// 1. The filter itself, in its own files: include/ringbloom/filter/<name>.hpp
//    and src/filter/<name>.cpp, a class with the Bloom members any_filter
//    calls (add, may_contain, bits, hashes, hash, seed, items_added,
//    read_only, explain, stats, merge, intersect, operator==; add_many and
//    may_contain_many when it has a batch path, found automatically).
// 2. Its code in `enum class filter_kind` (bloom.hpp): the next free number.
// 3. Its row, in this file next to the others: a specialisation
//    `filter_kind_row<your_filter>` deriving from filter_kind_row_base,
//    setting kind, name (and summary and flags where they differ from the
//    base) and declaring size_for, fpr_for, make, load, save (and
//    add_in_place with adds_in_place = true); define the functions in the
//    kind's source file. The built-in rows below are the pattern: blocked64
//    is a plain one, counting one with other cells, scalable a layered one.
// 4. The type in `filter_kind_table` at the bottom of this file (and its
//    header's include at the top): where it appears there is where users see
//    it.
// Nothing else: the loader, saver, CLI, Python and fuzz target follow.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "ringbloom/filter/blocked1024_bloom.hpp"
#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/bloom_math.hpp"
#include "ringbloom/filter/counting_bloom.hpp"
#include "ringbloom/filter/detail/filter_payload.hpp"
#include "ringbloom/filter/fast_bloom.hpp"
#include "ringbloom/filter/fuse_filter.hpp"
#include "ringbloom/filter/scalable_bloom.hpp"
#include "ringbloom/hash.hpp"

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

/// One layer of a layered filter, as `bloom info` lists it.
struct filter_layer_detail {
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::uint64_t items = 0;
  std::uint64_t capacity = 0;  ///< the items the layer was made for
};

/// The value of one named detail: a flag, a count, a number, a list of
/// layers or a name (write std::string("...") for a name: a string literal
/// would convert to bool).
using filter_detail_value =
    std::variant<bool, std::uint64_t, double, std::vector<filter_layer_detail>, std::string>;

/// What a filter says about itself beyond filter_stats, the facts only some
/// kinds have (a counting filter's saturated counters, a static filter's
/// slots, a scalable filter's schedule and layers), written by the kind's
/// row so that front ends print them without knowing the kind:
///
///   fields   named values, in order, for machines: `bloom info --json`
///            members, Python's BloomFilter.details() keys
///   rows     the same facts for people: (label, text) lines of `bloom info`,
///            shown after the counts (after_layers false) or after the
///            "layers" line (after_layers true)
struct filter_description {
  struct field {
    std::string_view name;
    filter_detail_value value;
  };
  struct row {
    std::string label;
    std::string text;
    bool after_layers = false;
  };
  std::vector<field> fields;
  std::vector<row> rows;
};

/// The row of one kind: specialised for each filter class (see "Adding a
/// kind" above). A row holds:
///
///   kind, name, summary     its code (filter_kind), its stable name, and a
///                           few words for help texts ("" for none)
///   flags                   as in filter_kind_row_base (is_static, xxh3_only,
///                           layered, ...): what the file format and any_filter
///                           allow for the kind
///   size_for(n, p)          the (m, k) its for_capacity makes; std::invalid_argument
///                           as that does
///   fpr_for(n, m, k)        its rate after n items; std::invalid_argument for
///                           an m or k it cannot have
///   make(spec)              a new empty filter (make_filter), after make_filter
///                           checked that exactly one size is given
///   load(payload)           the filter of a file's validated header and layers;
///                           data_error for what its constructors refuse
///   save(filter, payload)   the layers (and scalable fields) to write
///   add_in_place(...)       only with adds_in_place: sets the bits of items in
///                           a file's words, for the streamed add
///   describe(filter, out)   optional: appends the kind's own facts to a
///                           filter_description (bloom info, details())
template <class Filter>
struct filter_kind_row;

/// What a row inherits unless it says otherwise.
struct filter_kind_row_base {
  static constexpr std::string_view summary = "";
  /// Built once from the whole key set: add, remove, merge refused.
  static constexpr bool is_static = false;
  /// Items can be removed (any_filter::remove); other kinds refuse it.
  static constexpr bool removable = false;
  /// Items are hashed with XXH3 only: other hashes are refused (create, load).
  static constexpr bool xxh3_only = false;
  /// Several layers with scalable parameters in the header (scalable).
  static constexpr bool layered = false;
  /// A fixed k recorded in every layer entry (0: any k the filter accepts).
  static constexpr std::uint32_t fixed_hashes = 0;
  /// Whether layer entries carry a capacity (scalable: the layer's; fuse:
  /// the build seed) and the reserved field (fuse: the segment length).
  static constexpr bool entry_capacity = false;
  static constexpr bool entry_reserved = false;
  /// What m counts, and the bits each of them takes in memory.
  static constexpr std::string_view cells = "bits";
  static constexpr unsigned cell_bits = 1;
  /// Whether add_in_place exists: the streamed add sets bits in the file's
  /// words instead of decoding and re-encoding the filter.
  static constexpr bool adds_in_place = false;
  /// The 64-bit words of one layer of m cells, and the bytes of them in use
  /// (the rest is zero padding the loader checks).
  [[nodiscard]] static constexpr std::uint64_t payload_words(std::uint64_t m) noexcept {
    return (m + 63) / 64;
  }
  [[nodiscard]] static constexpr std::uint64_t payload_bytes(std::uint64_t m) noexcept {
    return payload_words(m) * 8;
  }
  /// The kind's own facts for filter_description: none.
  template <class Filter>
  static void describe(const Filter& /*filter*/, filter_description& /*out*/) {}
};

template <>
struct filter_kind_row<blocked_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::blocked;
  static constexpr std::string_view name = "blocked";
  static constexpr std::string_view summary =
      "blocked64's layout placed by a 128-bit hash: any --hash, slower; older files' default";
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static blocked_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static blocked_bloom_filter load(const detail::filter_payload& in);
  static void save(const blocked_bloom_filter& f, detail::filter_payload& out);
  static constexpr bool adds_in_place = true;
  static void add_in_place(std::uint64_t* words, const blocked_bloom_filter& view,
                           std::span<const std::string_view> items);
};

template <>
struct filter_kind_row<blocked64_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::blocked64;
  static constexpr std::string_view name = "blocked64";
  static constexpr std::string_view summary =
      "the lowest rate per bit in one cache line: k bits anywhere in a 512-bit block, any k up "
      "to 16, slower adds";
  static constexpr bool xxh3_only = true;
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static blocked64_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static blocked64_bloom_filter load(const detail::filter_payload& in);
  static void save(const blocked64_bloom_filter& f, detail::filter_payload& out);
  static constexpr bool adds_in_place = true;
  static void add_in_place(std::uint64_t* words, const blocked64_bloom_filter& view,
                           std::span<const std::string_view> items);
};

template <>
struct filter_kind_row<fast_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::fast;
  static constexpr std::string_view name = "fast";
  static constexpr std::string_view summary =
      "the fastest adds and lookups: one bit per 64-bit word of a 512-bit block, k = 8 or 16; "
      "0.5-4% more bits than blocked64 for the same rate";
  static constexpr bool xxh3_only = true;
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static fast_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static fast_bloom_filter load(const detail::filter_payload& in);
  static void save(const fast_bloom_filter& f, detail::filter_payload& out);
  static constexpr bool adds_in_place = true;
  static void add_in_place(std::uint64_t* words, const fast_bloom_filter& view,
                           std::span<const std::string_view> items);
};

template <>
struct filter_kind_row<blocked1024_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::blocked1024;
  static constexpr std::string_view name = "blocked1024";
  static constexpr std::string_view summary =
      "1024-bit blocks: fewer bits than blocked64 for the same rate (1.6% fewer at 1%, 13% at "
      "1e-6), two cache lines per lookup";
  static constexpr bool xxh3_only = true;
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static blocked1024_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static blocked1024_bloom_filter load(const detail::filter_payload& in);
  static void save(const blocked1024_bloom_filter& f, detail::filter_payload& out);
  static constexpr bool adds_in_place = true;
  static void add_in_place(std::uint64_t* words, const blocked1024_bloom_filter& view,
                           std::span<const std::string_view> items);
};

template <>
struct filter_kind_row<bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::classic;
  static constexpr std::string_view name = "classic";
  static constexpr std::string_view summary =
      "k positions anywhere in the array, up to k cache lines per lookup; any --hash";
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static bloom_filter load(const detail::filter_payload& in);
  static void save(const bloom_filter& f, detail::filter_payload& out);
  static constexpr bool adds_in_place = true;
  static void add_in_place(std::uint64_t* words, const bloom_filter& view,
                           std::span<const std::string_view> items);
  static void describe(const bloom_filter& f, filter_description& out);
};

template <>
struct filter_kind_row<counting_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::counting;
  static constexpr std::string_view name = "counting";
  static constexpr bool removable = true;
  static constexpr std::string_view cells = "counters";
  static constexpr unsigned cell_bits = 4;
  [[nodiscard]] static constexpr std::uint64_t payload_words(std::uint64_t m) noexcept {
    return (m + 15) / 16;  // 4-bit counters
  }
  [[nodiscard]] static constexpr std::uint64_t payload_bytes(std::uint64_t m) noexcept {
    return payload_words(m) * 8;
  }
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static counting_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static counting_bloom_filter load(const detail::filter_payload& in);
  static void save(const counting_bloom_filter& f, detail::filter_payload& out);
  /// saturated_counters.
  static void describe(const counting_bloom_filter& f, filter_description& out);
};

template <>
struct filter_kind_row<scalable_bloom_filter> : filter_kind_row_base {
  static constexpr filter_kind kind = filter_kind::scalable;
  static constexpr std::string_view name = "scalable";
  static constexpr bool layered = true;
  static constexpr bool entry_capacity = true;
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static scalable_bloom_filter make(const filter_spec& spec);
  [[nodiscard]] static scalable_bloom_filter load(const detail::filter_payload& in);
  static void save(const scalable_bloom_filter& f, detail::filter_payload& out);
  /// target_fpr, growth, tightening and layer_details.
  static void describe(const scalable_bloom_filter& f, filter_description& out);
  /// The first layer's bits, which is what a new filter allocates.
  [[nodiscard]] static std::uint64_t planned_bits(const filter_spec& spec);
};

/// The rows of the static fuse kinds (one template: they differ in the
/// fingerprint width and the arity only).
template <class Fuse>
struct fuse_kind_row : filter_kind_row_base {
  static constexpr bool is_static = true;
  static constexpr bool xxh3_only = true;
  static constexpr std::uint32_t fixed_hashes = Fuse::arity;
  static constexpr bool entry_capacity = true;
  static constexpr bool entry_reserved = true;
  static constexpr unsigned cell_bits = Fuse::fingerprint_bits;
  [[nodiscard]] static constexpr std::uint64_t payload_words(std::uint64_t slots) noexcept {
    return (slots * sizeof(typename Fuse::fingerprint_type) + 7) / 8;
  }
  [[nodiscard]] static constexpr std::uint64_t payload_bytes(std::uint64_t slots) noexcept {
    return slots * sizeof(typename Fuse::fingerprint_type);
  }
  /// size_for, fpr_for and make throw std::invalid_argument: a fuse filter is
  /// sized by its keys (build_fuse_filter).
  [[nodiscard]] static filter_size size_for(std::uint64_t n, double p);
  [[nodiscard]] static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes);
  [[nodiscard]] static Fuse make(const filter_spec& spec);
  [[nodiscard]] static Fuse load(const detail::filter_payload& in);
  static void save(const Fuse& f, detail::filter_payload& out);
  /// static, slots and bits_per_item.
  static void describe(const Fuse& f, filter_description& out);
};

template <>
struct filter_kind_row<fuse8_filter> : fuse_kind_row<fuse8_filter> {
  static constexpr filter_kind kind = filter_kind::fuse8;
  static constexpr std::string_view name = "fuse8";
};

template <>
struct filter_kind_row<fuse16_filter> : fuse_kind_row<fuse16_filter> {
  static constexpr filter_kind kind = filter_kind::fuse16;
  static constexpr std::string_view name = "fuse16";
};

template <>
struct filter_kind_row<fuse8_4wise_filter> : fuse_kind_row<fuse8_4wise_filter> {
  static constexpr filter_kind kind = filter_kind::fuse8_4wise;
  static constexpr std::string_view name = "fuse8-4wise";
  static constexpr std::string_view summary = "fuse8's rate in about 4.5% fewer bits";
};

/// A list of filter classes, each with a row.
template <class... Filters>
struct filter_kind_list {
  using variant = std::variant<Filters...>;
  static constexpr std::size_t size = sizeof...(Filters);

  /// Calls fn(std::type_identity<F>{}) for each kind, in order.
  template <class Fn>
  static constexpr void for_each(Fn&& fn) {
    (fn(std::type_identity<Filters>{}), ...);
  }

  /// Calls fn(std::type_identity<F>{}) for the kind `kind`; false when no
  /// row has that kind.
  template <class Fn>
  static constexpr bool visit(filter_kind kind, Fn&& fn) {
    return ((filter_kind_row<Filters>::kind == kind ? (fn(std::type_identity<Filters>{}), true)
                                                    : false) ||
            ...);
  }
};

/// THE TABLE: every filter kind, in the order users see them (help texts,
/// error messages, filter_kinds()). One line per kind.
using filter_kind_table = filter_kind_list<fast_bloom_filter,         // fast (the default)
                                           blocked64_bloom_filter,    // blocked64
                                           blocked1024_bloom_filter,  // blocked1024
                                           blocked_bloom_filter,      // blocked
                                           bloom_filter,              // classic
                                           counting_bloom_filter,     // counting
                                           scalable_bloom_filter,     // scalable
                                           fuse8_filter,              // fuse8 (static)
                                           fuse16_filter,             // fuse16 (static)
                                           fuse8_4wise_filter>;       // fuse8-4wise (static)

/// A role: what a user chooses a filter for, and the kind that plays it. A
/// user chooses between three roles rather than between block sizes and
/// hash widths:
///
///   role      kind         for
///   --------  -----------  --------------------------------------------------
///   default   fast         the fastest adds and lookups (default_filter_kind:
///                          what `bloom create` and Python's BloomFilter make
///                          without a kind)
///   densest   blocked1024  the fewest bits for a rate, still cache-local
///   textbook  classic      the textbook layout: k positions anywhere in the
///                          array, any hash, the lessons' exact bits
///
/// A role's name is accepted wherever a kind's name is (find_filter_kind,
/// parse_filter_kind: `bloom create --kind densest`, Python's
/// kind="textbook"). Filters and files record the kind, never the role:
/// `bloom info` says "blocked1024" of a filter created as "densest", and a
/// file keeps its kind whatever kind plays a role in a later version.
struct filter_role {
  std::string_view name;  ///< "default", "densest" or "textbook"
  filter_kind kind;       ///< the kind that plays it
};

/// The roles, in the order users see them.
inline constexpr std::array<filter_role, 3> filter_roles{{
    {"default", default_filter_kind},
    {"densest", filter_kind::blocked1024},
    {"textbook", filter_kind::classic},
}};

/// What front ends read about a kind.
struct filter_kind_info {
  filter_kind kind;
  std::string_view name;
  std::string_view summary;  ///< a few words for help texts, or ""
  std::string_view role;     ///< the role it plays (filter_roles), or ""
  bool is_static;            ///< built once from its key set (no add, remove, merge)
  bool removable;            ///< items can be removed (counting)
  bool has_words;            ///< one array of 64-bit words (any_filter::words)
  bool layered;              ///< grows by layers as items come (scalable)
  std::string_view cells;    ///< what m counts: "bits" or "counters"
  unsigned cell_bits;        ///< bits per cell: 1, 4 (counters), or the fingerprint width
};

namespace detail {
constexpr std::array<filter_kind_info, filter_kind_table::size> make_kind_infos() {
  std::array<filter_kind_info, filter_kind_table::size> infos{};
  std::size_t i = 0;
  filter_kind_table::for_each([&](auto tag) {
    using filter = typename decltype(tag)::type;
    using row = filter_kind_row<filter>;
    constexpr bool has_words = requires(const filter& f) { f.words(); };
    std::string_view role;
    for (const filter_role& r : filter_roles) {
      if (r.kind == row::kind) role = r.name;
    }
    infos[i++] = {row::kind,      row::name, row::summary, role,       row::is_static,
                  row::removable, has_words, row::layered, row::cells, row::cell_bits};
  });
  return infos;
}
inline constexpr auto kind_infos = make_kind_infos();

/// Throws std::invalid_argument "unknown filter kind code N; use blocked,
/// ... or scalable" (a filter_kind cast from a number no row has).
[[noreturn]] void throw_unknown_kind(filter_kind kind);
}  // namespace detail

/// Every kind, in the table's order.
[[nodiscard]] constexpr std::span<const filter_kind_info> filter_kinds() noexcept {
  return detail::kind_infos;
}

/// The row of `kind`. Precondition: `kind` is in the table (every value of
/// filter_kind is; a value cast from a stray number is not, and gets the
/// default kind's row).
[[nodiscard]] constexpr const filter_kind_info& filter_kind_of(filter_kind kind) noexcept {
  for (const auto& info : detail::kind_infos) {
    if (info.kind == kind) return info;
  }
  return detail::kind_infos[0];
}

/// True for the static kinds (fuse8, fuse16, fuse8-4wise).
[[nodiscard]] constexpr bool is_static_kind(filter_kind kind) noexcept {
  for (const auto& info : detail::kind_infos) {
    if (info.kind == kind) return info.is_static;
  }
  return false;
}

/// The names of the kinds whose info has `flag` set, in the table's order,
/// joined as "a, b or c" (for sentences such as "remove needs a counting
/// filter").
[[nodiscard]] std::string filter_kind_names(bool filter_kind_info::*flag);

/// The roles and kinds for a front end's help: the roles with their kinds,
/// then, in the table's order, each mutable kind with its role and summary in
/// parentheses, then the static kinds: "A role: default (fast), densest
/// (blocked1024) or textbook (classic); or a kind: fast (default; the fastest
/// adds and lookups: ...), ..., or, with --from, the static fuse8, ...".
[[nodiscard]] std::string filter_kinds_help();

/// The (bits, hashes) of the smallest filter of `kind` for `capacity` items
/// at rate `fpr` (the classic sizing for classic, counting and a scalable
/// filter's first layer at rate fpr). Throws std::invalid_argument as the
/// kind's for_capacity does, and for a static kind (sized by its keys).
[[nodiscard]] filter_size filter_size_for(filter_kind kind, std::uint64_t capacity, double fpr);

/// The rate of a filter of `kind` with `bits` bits and `hashes` hashes after
/// `items` distinct items, by the library's formula. Throws
/// std::invalid_argument for a size the kind cannot have ("a blocked filter
/// has a multiple of 512 bits and at most 16 hashes") and for a static kind.
[[nodiscard]] double filter_fpr_for(filter_kind kind, double items, std::uint64_t bits,
                                    std::uint32_t hashes);

/// The cells (bits, or counters) make_filter(spec) allocates, without
/// allocating: spec.bits when given, else the kind's sizing (a scalable
/// filter's first layer). Throws std::invalid_argument as make_filter would
/// for a size that cannot be made.
[[nodiscard]] std::uint64_t planned_cells(const filter_spec& spec);

/// The bytes of the cells make_filter(spec) allocates (planned_cells at the
/// kind's bits per cell, rounded up to whole words plus one).
[[nodiscard]] std::uint64_t planned_memory_bytes(const filter_spec& spec);

}  // namespace ringbloom
