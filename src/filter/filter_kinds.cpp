// The kind table (ringbloom/filter/filter_kinds.hpp): names and codes, and
// the functions of the built-in kinds' rows.
#include "ringbloom/filter/filter_kinds.hpp"

#include <fmt/format.h>

#include <bit>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bloom_internal.hpp"
#include "hash64_batch.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

// --- names and codes -------------------------------------------------------------

std::string_view filter_kind_name(filter_kind kind) noexcept {
  for (const auto& info : filter_kinds()) {
    if (info.kind == kind) return info.name;
  }
  return "unknown";
}

std::optional<filter_kind> find_filter_kind(std::string_view name) noexcept {
  for (const auto& info : filter_kinds()) {
    if (info.name == name) return info.kind;
  }
  for (const filter_role& role : filter_roles) {
    if (role.name == name) return role.kind;
  }
  return std::nullopt;
}

namespace {

// "default (fast), densest (blocked1024) or textbook (classic)".
std::string role_list() {
  std::string roles;
  for (std::size_t i = 0; i < filter_roles.size(); ++i) {
    roles += i == 0 ? "" : (i + 1 == filter_roles.size() ? " or " : ", ");
    roles += fmt::format("{} ({})", filter_roles[i].name, filter_kind_name(filter_roles[i].kind));
  }
  return roles;
}

}  // namespace

filter_kind parse_filter_kind(std::string_view name) {
  if (auto kind = find_filter_kind(name)) return *kind;
  std::string known;
  for (const auto& info : filter_kinds()) {
    known += known.empty() ? "" : ", ";
    known += info.name;
  }
  throw std::invalid_argument(
      fmt::format("unknown filter kind '{}'; choose {}, or one of the kinds {}", printable(name),
                  role_list(), known));
}

std::optional<filter_kind> filter_kind_from_code(std::uint8_t code) noexcept {
  for (const auto& info : filter_kinds()) {
    if (static_cast<std::uint8_t>(info.kind) == code) return info.kind;
  }
  return std::nullopt;
}

// --- sizing through the table ----------------------------------------------------

namespace {

// Calls fn with the row of `kind`; a kind outside the table (a cast number)
// is std::invalid_argument naming the mutable kinds.
template <class Fn>
void with_row(filter_kind kind, Fn&& fn) {
  if (!filter_kind_table::visit(kind, fn)) detail::throw_unknown_kind(kind);
}

}  // namespace

std::string filter_kind_names(bool filter_kind_info::*flag) {
  std::vector<std::string_view> names;
  for (const auto& info : filter_kinds()) {
    if (info.*flag) names.push_back(info.name);
  }
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) {
    joined += i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ");
    joined += names[i];
  }
  return joined;
}

std::string filter_kinds_help() {
  std::string kinds;
  std::string statics;
  for (const filter_kind_info& k : filter_kinds()) {
    if (k.is_static) {
      statics += fmt::format("{}{}", statics.empty() ? "" : ", ", k.name);
      if (!k.summary.empty()) statics += fmt::format(" ({})", k.summary);
      continue;
    }
    kinds += fmt::format("{}{}", kinds.empty() ? "" : ", ", k.name);
    std::string note(k.role);
    if (!k.summary.empty()) note += fmt::format("{}{}", note.empty() ? "" : "; ", k.summary);
    if (!note.empty()) kinds += fmt::format(" ({})", note);
  }
  std::string help = fmt::format("A role: {}; or a kind: {}", role_list(), kinds);
  if (!statics.empty()) help += fmt::format(", or, with --from, the static {}", statics);
  return help;
}

void detail::throw_unknown_kind(filter_kind kind) {
  std::string known;
  std::vector<std::string_view> names;
  for (const auto& info : filter_kinds()) {
    if (!info.is_static) names.push_back(info.name);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    known += i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ");
    known += names[i];
  }
  throw std::invalid_argument(
      fmt::format("unknown filter kind code {}; use {}", static_cast<unsigned>(kind), known));
}

filter_size filter_size_for(filter_kind kind, std::uint64_t capacity, double fpr) {
  filter_size size;
  with_row(kind, [&](auto tag) {
    size = filter_kind_row<typename decltype(tag)::type>::size_for(capacity, fpr);
  });
  return size;
}

double filter_fpr_for(filter_kind kind, double items, std::uint64_t bits, std::uint32_t hashes) {
  double fpr = 0;
  with_row(kind, [&](auto tag) {
    fpr = filter_kind_row<typename decltype(tag)::type>::fpr_for(items, bits, hashes);
  });
  return fpr;
}

std::uint64_t planned_cells(const filter_spec& spec) {
  if (spec.bits != 0) return spec.bits;
  std::uint64_t cells = 0;
  with_row(spec.kind, [&](auto tag) {
    using row = filter_kind_row<typename decltype(tag)::type>;
    if constexpr (requires { row::planned_bits(spec); }) {
      cells = row::planned_bits(spec);
    } else {
      cells = row::size_for(spec.capacity, spec.fpr).bits;
    }
  });
  return cells;
}

std::uint64_t planned_memory_bytes(const filter_spec& spec) {
  const std::uint64_t cells = planned_cells(spec);
  std::uint64_t cell_bits = 1;
  with_row(spec.kind,
           [&](auto tag) { cell_bits = filter_kind_row<typename decltype(tag)::type>::cell_bits; });
  return (cells / 64 + 1) * 8 * cell_bits;
}

// --- the rows --------------------------------------------------------------------
//
// make: make_filter has checked that exactly one of (capacity, fpr) and
// (bits, hashes) is given, both halves non-zero.

namespace {

void require_xxh3(std::string_view kind, hash_kind hash) {
  if (hash != hash_kind::xxh3) {
    throw std::invalid_argument(fmt::format(
        "a {} filter hashes items with XXH3-64 and cannot use the {} hash; leave the hash at "
        "xxh3, or use the blocked kind for another hash",
        kind, hash_name(hash)));
  }
}

void check_blocked_geometry(std::string_view what, std::uint64_t block, std::uint64_t bits,
                            std::uint32_t hashes) {
  if (bits % block != 0 || hashes > max_blocked_hashes) {
    throw std::invalid_argument(
        fmt::format("a {} filter has a multiple of {} bits and at most {} hashes", what, block,
                    max_blocked_hashes));
  }
}

// The layer of a filter stored as m bits (counters) in 64-bit words.
template <class Filter>
detail::filter_layer word_layer(const Filter& f) {
  detail::filter_layer l;
  l.bits = f.bits();
  l.hashes = f.hashes();
  l.items = f.items_added();
  l.words = f.words();
  return l;
}

}  // namespace

// blocked

filter_size filter_kind_row<blocked_bloom_filter>::size_for(std::uint64_t n, double p) {
  return bloom_math::blocked_size_for(n, p);
}
double filter_kind_row<blocked_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                      std::uint32_t hashes) {
  check_blocked_geometry("blocked", blocked_bloom_filter::block_bits, bits, hashes);
  return bloom_math::blocked_fpr(items, bits, hashes);
}
blocked_bloom_filter filter_kind_row<blocked_bloom_filter>::make(const filter_spec& spec) {
  return spec.capacity != 0
             ? blocked_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash, spec.seed)
             : blocked_bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
}
blocked_bloom_filter filter_kind_row<blocked_bloom_filter>::load(const detail::filter_payload& in) {
  const auto& l = in.layers[0];
  return blocked_bloom_filter::from_words(l.bits, l.hashes, in.hash, in.seed, l.items,
                                          detail::layer_words(in, l));
}
void filter_kind_row<blocked_bloom_filter>::save(const blocked_bloom_filter& f,
                                                 detail::filter_payload& out) {
  out.layers.push_back(word_layer(f));
}
void filter_kind_row<blocked_bloom_filter>::add_in_place(std::uint64_t* words,
                                                         const blocked_bloom_filter& f,
                                                         std::span<const std::string_view> items) {
  // Hash a chunk and prefetch its blocks, then OR the masks in: the blocks
  // of a large filter arrive in parallel instead of one miss at a time.
  constexpr std::size_t chunk = 16;
  std::array<hash128, chunk> hashes{};
  std::array<std::uint64_t*, chunk> blocks{};
  for (std::size_t at = 0; at < items.size(); at += chunk) {
    const std::size_t n = std::min(chunk, items.size() - at);
    for (std::size_t i = 0; i < n; ++i) {
      hashes[i] = f.hash_item(items[at + i]);
      blocks[i] = words + f.block_of(hashes[i]) * blocked_bloom_filter::block_words;
      __builtin_prefetch(blocks[i], 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto mask = detail::block_mask(hashes[i].high, f.hashes());
      for (std::size_t w = 0; w < mask.size(); ++w) blocks[i][w] |= mask[w];
    }
  }
}

// blocked64 and blocked1024: one template of rows over hash64_filter.

namespace {

template <class Filter>
struct hash64_row {
  static double fpr_for(double items, std::uint64_t bits, std::uint32_t hashes) {
    check_blocked_geometry(
        Filter::kind == filter_kind::blocked64 ? "blocked" : filter_kind_name(Filter::kind),
        Filter::block_bits, bits, hashes);
    if (hashes % Filter::parts() != 0) {
      throw std::invalid_argument(fmt::format("a {} filter has a multiple of {} hashes",
                                              filter_kind_name(Filter::kind), Filter::parts()));
    }
    return bloom_math::blocked_fpr(items, bits, hashes, Filter::block_bits, Filter::parts());
  }
  static Filter make(const filter_spec& spec) {
    require_xxh3(filter_kind_name(Filter::kind), spec.hash);
    return spec.capacity != 0 ? Filter::for_capacity(spec.capacity, spec.fpr, spec.seed)
                              : Filter(spec.bits, spec.hashes, spec.seed);
  }
  static Filter load(const detail::filter_payload& in) {
    const auto& l = in.layers[0];
    return Filter::from_words(l.bits, l.hashes, in.seed, l.items, detail::layer_words(in, l));
  }
  // The kinds' add_many pipeline (hash64_batch.hpp), on the file's words.
  static void add_in_place(std::uint64_t* words, const Filter& f,
                           std::span<const std::string_view> items) {
    hash64_batch::set_all<Filter, Filter::batch_chunk>(words, f.blocks(), f.seed(), f.hashes(),
                                                       items);
  }
};

}  // namespace

filter_size filter_kind_row<blocked64_bloom_filter>::size_for(std::uint64_t n, double p) {
  return blocked64_bloom_filter::size_for(n, p);
}
double filter_kind_row<blocked64_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                        std::uint32_t hashes) {
  return hash64_row<blocked64_bloom_filter>::fpr_for(items, bits, hashes);
}
blocked64_bloom_filter filter_kind_row<blocked64_bloom_filter>::make(const filter_spec& spec) {
  return hash64_row<blocked64_bloom_filter>::make(spec);
}
blocked64_bloom_filter filter_kind_row<blocked64_bloom_filter>::load(
    const detail::filter_payload& in) {
  return hash64_row<blocked64_bloom_filter>::load(in);
}
void filter_kind_row<blocked64_bloom_filter>::save(const blocked64_bloom_filter& f,
                                                   detail::filter_payload& out) {
  out.layers.push_back(word_layer(f));
}
void filter_kind_row<blocked64_bloom_filter>::add_in_place(
    std::uint64_t* words, const blocked64_bloom_filter& f,
    std::span<const std::string_view> items) {
  hash64_row<blocked64_bloom_filter>::add_in_place(words, f, items);
}

filter_size filter_kind_row<fast_bloom_filter>::size_for(std::uint64_t n, double p) {
  return fast_bloom_filter::size_for(n, p);
}
double filter_kind_row<fast_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                   std::uint32_t hashes) {
  return hash64_row<fast_bloom_filter>::fpr_for(items, bits, hashes);
}
fast_bloom_filter filter_kind_row<fast_bloom_filter>::make(const filter_spec& spec) {
  // A size given as (bits, hashes) that suits another kind: as the default,
  // fast is what a caller gets without naming a kind, so say which kinds
  // take that k (the constructor's own message knows only this kind).
  if (spec.capacity == 0 && spec.hashes != 8 && spec.hashes != 16) {
    throw std::invalid_argument(fmt::format(
        "a fast filter{} sets 8 or 16 bits per item (one or two in each 64-bit word of its "
        "block), not {}; give --hashes 8 or 16, size it by capacity and rate, or choose a kind "
        "that takes {} hashes (blocked64 takes 1 to {}, textbook up to {})",
        default_filter_kind == filter_kind::fast ? " (the default kind)" : "", spec.hashes,
        spec.hashes, max_blocked_hashes, max_filter_hashes));
  }
  return hash64_row<fast_bloom_filter>::make(spec);
}
fast_bloom_filter filter_kind_row<fast_bloom_filter>::load(const detail::filter_payload& in) {
  return hash64_row<fast_bloom_filter>::load(in);
}
void filter_kind_row<fast_bloom_filter>::save(const fast_bloom_filter& f,
                                              detail::filter_payload& out) {
  out.layers.push_back(word_layer(f));
}
void filter_kind_row<fast_bloom_filter>::add_in_place(std::uint64_t* words,
                                                      const fast_bloom_filter& f,
                                                      std::span<const std::string_view> items) {
  hash64_row<fast_bloom_filter>::add_in_place(words, f, items);
}

filter_size filter_kind_row<blocked1024_bloom_filter>::size_for(std::uint64_t n, double p) {
  return blocked1024_bloom_filter::size_for(n, p);
}
double filter_kind_row<blocked1024_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                          std::uint32_t hashes) {
  return hash64_row<blocked1024_bloom_filter>::fpr_for(items, bits, hashes);
}
blocked1024_bloom_filter filter_kind_row<blocked1024_bloom_filter>::make(const filter_spec& spec) {
  return hash64_row<blocked1024_bloom_filter>::make(spec);
}
blocked1024_bloom_filter filter_kind_row<blocked1024_bloom_filter>::load(
    const detail::filter_payload& in) {
  return hash64_row<blocked1024_bloom_filter>::load(in);
}
void filter_kind_row<blocked1024_bloom_filter>::save(const blocked1024_bloom_filter& f,
                                                     detail::filter_payload& out) {
  out.layers.push_back(word_layer(f));
}
void filter_kind_row<blocked1024_bloom_filter>::add_in_place(
    std::uint64_t* words, const blocked1024_bloom_filter& f,
    std::span<const std::string_view> items) {
  hash64_row<blocked1024_bloom_filter>::add_in_place(words, f, items);
}

// classic

filter_size filter_kind_row<bloom_filter>::size_for(std::uint64_t n, double p) {
  return bloom_math::classic_size_for(n, p);
}
double filter_kind_row<bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                              std::uint32_t hashes) {
  return bloom_math::classic_fpr(items, static_cast<double>(bits), hashes);
}
bloom_filter filter_kind_row<bloom_filter>::make(const filter_spec& spec) {
  return spec.capacity != 0
             ? bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash, spec.seed)
             : bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
}
bloom_filter filter_kind_row<bloom_filter>::load(const detail::filter_payload& in) {
  const auto& l = in.layers[0];
  return bloom_filter::from_words(l.bits, l.hashes, in.hash, in.seed, l.items,
                                  detail::layer_words(in, l), in.rule);
}
void filter_kind_row<bloom_filter>::save(const bloom_filter& f, detail::filter_payload& out) {
  out.rule = f.rule();
  out.layers.push_back(word_layer(f));
}
namespace {
// The xxh3 position rule of the classic-position kinds (bloom.hpp), as
// `bloom info` shows it: only for a filter read from a file before version 3,
// which keeps the old rule (new filters all use the mixed one; the other
// hashes have one rule each).
void describe_positions(hash_kind hash, position_rule rule, filter_description& out) {
  if (hash != hash_kind::xxh3 || rule == position_rule::mixed) return;
  out.fields.push_back({"positions", std::string(position_rule_name(rule))});
  out.rows.push_back({"positions", std::string(position_rule_name(rule))});
}
}  // namespace
void filter_kind_row<bloom_filter>::describe(const bloom_filter& f, filter_description& out) {
  describe_positions(f.hash(), f.rule(), out);
}
void filter_kind_row<bloom_filter>::add_in_place(std::uint64_t* words, const bloom_filter& f,
                                                 std::span<const std::string_view> items) {
  // The positions are the format's (bloom.hpp), computed by the same detail
  // functions the filter uses; xxh3 through add_many's batch.
  if (f.hash() == hash_kind::xxh3) {
    detail::classic_add_xxh3(words, f.bits(), f.hashes(), f.seed(), f.rule(), items);
    return;
  }
  for (const std::string_view item : items) {
    detail::classic_positions(f.hash(), f.seed(), f.bits(), f.hashes(), f.rule(), item,
                              [words](std::uint64_t p) {
                                words[p >> 6] |= std::uint64_t{1} << (p & 63);
                                return true;
                              });
  }
}

// counting (sized as the classic filter)

filter_size filter_kind_row<counting_bloom_filter>::size_for(std::uint64_t n, double p) {
  return bloom_math::classic_size_for(n, p);
}
double filter_kind_row<counting_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                       std::uint32_t hashes) {
  return bloom_math::classic_fpr(items, static_cast<double>(bits), hashes);
}
counting_bloom_filter filter_kind_row<counting_bloom_filter>::make(const filter_spec& spec) {
  return spec.capacity != 0
             ? counting_bloom_filter::for_capacity(spec.capacity, spec.fpr, spec.hash, spec.seed)
             : counting_bloom_filter(spec.bits, spec.hashes, spec.hash, spec.seed);
}
counting_bloom_filter filter_kind_row<counting_bloom_filter>::load(
    const detail::filter_payload& in) {
  const auto& l = in.layers[0];
  return counting_bloom_filter::from_words(l.bits, l.hashes, in.hash, in.seed, l.items,
                                           detail::layer_words(in, l), in.rule);
}
void filter_kind_row<counting_bloom_filter>::save(const counting_bloom_filter& f,
                                                  detail::filter_payload& out) {
  out.rule = f.rule();
  out.layers.push_back(word_layer(f));
}
void filter_kind_row<counting_bloom_filter>::describe(const counting_bloom_filter& f,
                                                      filter_description& out) {
  describe_positions(f.hash(), f.rule(), out);
  const std::uint64_t saturated = f.saturated_counters();
  out.fields.push_back({"saturated_counters", saturated});
  out.rows.push_back({"saturated", std::to_string(saturated)});
}

// scalable (layers of classic filters)

filter_size filter_kind_row<scalable_bloom_filter>::size_for(std::uint64_t n, double p) {
  return bloom_math::classic_size_for(n, p);
}
double filter_kind_row<scalable_bloom_filter>::fpr_for(double items, std::uint64_t bits,
                                                       std::uint32_t hashes) {
  return bloom_math::classic_fpr(items, static_cast<double>(bits), hashes);
}
std::uint64_t filter_kind_row<scalable_bloom_filter>::planned_bits(const filter_spec& spec) {
  return bloom_math::classic_size_for(spec.capacity,
                                      bloom_math::scalable_layer_fpr(spec.fpr, spec.tightening, 0))
      .bits;
}
scalable_bloom_filter filter_kind_row<scalable_bloom_filter>::make(const filter_spec& spec) {
  return spec.capacity != 0
             ? scalable_bloom_filter(spec.capacity, spec.fpr, spec.hash, spec.seed, spec.growth,
                                     spec.tightening)
             : scalable_bloom_filter::from_size(spec.bits, spec.hashes, spec.hash, spec.seed,
                                                spec.growth, spec.tightening);
}
scalable_bloom_filter filter_kind_row<scalable_bloom_filter>::load(
    const detail::filter_payload& in) {
  std::vector<scalable_bloom_filter::layer> layers;
  layers.reserve(in.layers.size());
  for (const auto& l : in.layers) {
    layers.push_back({bloom_filter::from_words(l.bits, l.hashes, in.hash, in.seed, l.items,
                                               detail::layer_words(in, l), in.rule),
                      l.capacity});
  }
  return scalable_bloom_filter::from_layers(in.fpr, in.growth, in.tightening, std::move(layers));
}
void filter_kind_row<scalable_bloom_filter>::save(const scalable_bloom_filter& f,
                                                  detail::filter_payload& out) {
  out.fpr = f.target_fpr();
  out.tightening = f.tightening();
  out.growth = f.growth();
  out.rule = f.rule();
  for (const auto& layer : f.layers()) {
    detail::filter_layer l = word_layer(layer.filter);
    l.capacity = layer.capacity;
    out.layers.push_back(l);
  }
}
void filter_kind_row<scalable_bloom_filter>::describe(const scalable_bloom_filter& f,
                                                      filter_description& out) {
  describe_positions(f.hash(), f.rule(), out);
  out.fields.push_back({"target_fpr", f.target_fpr()});
  out.fields.push_back({"growth", std::uint64_t{f.growth()}});
  out.fields.push_back({"tightening", f.tightening()});
  out.rows.push_back(
      {"target fpr",
       fmt::format("{:.4g} (growth {}, tightening {})", f.target_fpr(), f.growth(), f.tightening()),
       true});
  std::vector<filter_layer_detail> layers;
  for (const auto& layer : f.layers()) {
    const filter_layer_detail d{layer.filter.bits(), layer.filter.hashes(),
                                layer.filter.items_added(), layer.capacity};
    out.rows.push_back(
        {fmt::format("  layer {}", layers.size()),
         fmt::format("m = {}, k = {}, {} of {} items", d.bits, d.hashes, d.items, d.capacity),
         true});
    layers.push_back(d);
  }
  out.fields.push_back({"layer_details", std::move(layers)});
}

// fuse8, fuse16, fuse8-4wise (static: built by build_fuse_filter, never sized or made empty)

namespace {

[[noreturn]] void throw_fuse_sized(filter_kind kind) {
  throw std::invalid_argument(fmt::format(
      "a {} filter is not sized by (bits, hashes): it is sized by its key count and its rate is "
      "fixed; build it from its keys (build_fuse_filter)",
      filter_kind_name(kind)));
}

}  // namespace

template <class Fuse>
filter_size fuse_kind_row<Fuse>::size_for(std::uint64_t, double) {
  throw_fuse_sized(filter_kind_row<Fuse>::kind);
}
template <class Fuse>
double fuse_kind_row<Fuse>::fpr_for(double, std::uint64_t, std::uint32_t) {
  throw_fuse_sized(filter_kind_row<Fuse>::kind);
}
template <class Fuse>
Fuse fuse_kind_row<Fuse>::make(const filter_spec& spec) {
  throw std::invalid_argument(fmt::format(
      "a {} filter is static and cannot be created empty; build it from its whole key set "
      "(build_fuse_filter, or ringbloom bloom create FILE --kind {} --from KEYS.txt)",
      filter_kind_name(spec.kind), filter_kind_name(spec.kind)));
}
template <class Fuse>
Fuse fuse_kind_row<Fuse>::load(const detail::filter_payload& in) {
  // The fingerprints in place when mapped (fuse8 on any host, fuse16 on
  // little-endian ones; the payload is 64-byte aligned), else a copy;
  // from_parts checks the geometry (every lookup in bounds).
  using fp = typename Fuse::fingerprint_type;
  const auto& l = in.layers[0];
  const auto n = static_cast<std::size_t>(l.bits);
  typename Fuse::parts parts{in.seed, l.capacity, l.items, l.reserved, {}};
  std::vector<fp> copy;
  std::shared_ptr<const void> owner;
  if (in.keepalive && (sizeof(fp) == 1 || std::endian::native == std::endian::little)) {
    parts.fingerprints = {reinterpret_cast<const fp*>(l.payload), n};
    owner = in.keepalive;
  } else {
    copy.resize(n);
    for (std::size_t i = 0; i < n; ++i) copy[i] = io::load_le<fp>(l.payload + sizeof(fp) * i);
    parts.fingerprints = copy;
  }
  try {
    return Fuse::from_parts(parts, owner);
  } catch (const std::invalid_argument& e) {
    detail::corrupt_filter_file(e.what());
  }
}
template <class Fuse>
void fuse_kind_row<Fuse>::save(const Fuse& f, detail::filter_payload& out) {
  detail::filter_layer l;
  l.bits = f.slots();
  l.hashes = Fuse::arity;
  l.items = f.items();
  l.capacity = f.build_seed();
  l.reserved = f.segment_length();
  if constexpr (sizeof(typename Fuse::fingerprint_type) == 1) {
    l.fingerprints8 = f.fingerprints();
  } else {
    l.fingerprints16 = f.fingerprints();
  }
  out.layers.push_back(l);
}

template <class Fuse>
void fuse_kind_row<Fuse>::describe(const Fuse& f, filter_description& out) {
  const std::uint64_t bits = f.slots() * Fuse::fingerprint_bits;
  const double bits_per_item =
      f.items() == 0 ? 0.0 : static_cast<double>(bits) / static_cast<double>(f.items());
  out.fields.push_back({"static", true});
  out.fields.push_back({"slots", std::uint64_t{f.slots()}});
  out.fields.push_back({"bits_per_item", bits_per_item});
  out.rows.push_back({"slots", fmt::format("{} of {} bits ({:.2f} bits per item); static: "
                                           "rebuild to change",
                                           f.slots(), Fuse::fingerprint_bits, bits_per_item)});
}

template struct fuse_kind_row<fuse8_filter>;
template struct fuse_kind_row<fuse16_filter>;
template struct fuse_kind_row<fuse8_4wise_filter>;

}  // namespace ringbloom
