// any_filter: a filter of any kind of the kind table (any_filter.hpp).
#include "ringbloom/filter/any_filter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "bloom_internal.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/line_reader.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom {

// --- any_filter ------------------------------------------------------------------

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;  // clang 14 lacks aggregate deduction

template <class F>
constexpr bool is_fuse = filter_kind_row<F>::is_static;  // the binary fuse kinds

// The sentence every change to a static filter throws.
[[noreturn]] void throw_static(std::string_view operation, filter_kind kind) {
  throw std::invalid_argument(fmt::format(
      "cannot {} a {} filter: it is static, built once from its whole key set; rebuild it from "
      "the key set (ringbloom bloom create FILE --kind {} --from KEYS.txt), or use a blocked "
      "filter for a set that changes",
      operation, filter_kind_name(kind), filter_kind_name(kind)));
}

}  // namespace

filter_kind any_filter::kind() const noexcept {
  return std::visit([](const auto& f) { return filter_kind_row<std::decay_t<decltype(f)>>::kind; },
                    filter_);
}

hash_kind any_filter::hash() const noexcept {
  return std::visit(
      [](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return hash_kind::xxh3;  // XXH3-64 of the item (fuse_filter.hpp)
        } else {
          return f.hash();
        }
      },
      filter_);
}
std::uint64_t any_filter::seed() const noexcept {
  return std::visit([](const auto& f) { return f.seed(); }, filter_);
}
std::uint64_t any_filter::bits() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint64_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return f.slots() * f.fingerprint_bits;
        } else {
          return f.bits();
        }
      },
      filter_);
}
std::uint32_t any_filter::hashes() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint32_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return f.arity;
        } else {
          return f.hashes();
        }
      },
      filter_);
}
std::uint64_t any_filter::items_added() const noexcept {
  return std::visit(
      [](const auto& f) -> std::uint64_t {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return f.items();
        } else {
          return f.items_added();
        }
      },
      filter_);
}
bool any_filter::read_only() const noexcept {
  return std::visit(
      [](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return true;  // static, mapped or not
        } else {
          return f.read_only();
        }
      },
      filter_);
}

void any_filter::add(std::string_view item) {
  std::visit(
      [&](auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (filter_kind_row<F>::is_static) {
          throw_static("add to", filter_kind_row<F>::kind);
        } else {
          f.add(item);
        }
      },
      filter_);
}

namespace {

// One dispatch per batch: the kind's own batch path where it has one, else
// one call per item on the concrete filter (no further dispatch).
template <class Item>
void add_batch(any_filter::variant_type& filter, std::span<const Item> items) {
  std::visit(
      [&](auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (filter_kind_row<F>::is_static) {
          throw_static("add to", filter_kind_row<F>::kind);
        } else if constexpr (requires { f.add_many(items); }) {
          f.add_many(items);
        } else {
          for (const Item& item : items) f.add(item);
        }
      },
      filter);
}

template <class Item>
std::size_t may_contain_batch(const any_filter::variant_type& filter, std::span<const Item> items,
                              std::span<bool> out) {
  return std::visit(
      [&](const auto& f) -> std::size_t {
        if constexpr (requires { f.may_contain_many(items, out); }) {
          return f.may_contain_many(items, out);
        } else {
          detail::check_answer_span(items.size(), out.size());
          std::size_t count = 0;
          for (std::size_t i = 0; i < items.size(); ++i) {
            out[i] = f.may_contain(items[i]);
            count += out[i] ? 1 : 0;
          }
          return count;
        }
      },
      filter);
}

}  // namespace

void any_filter::add_many(std::span<const std::string_view> items) { add_batch(filter_, items); }
void any_filter::add_many(std::span<const std::string> items) { add_batch(filter_, items); }

std::size_t any_filter::may_contain_many(std::span<const std::string_view> items,
                                         std::span<bool> out) const {
  return may_contain_batch(filter_, items, out);
}
std::size_t any_filter::may_contain_many(std::span<const std::string> items,
                                         std::span<bool> out) const {
  return may_contain_batch(filter_, items, out);
}

bool any_filter::may_contain(std::string_view item) const {
  return std::visit([item](const auto& f) { return f.may_contain(item); }, filter_);
}

void any_filter::require_removable(filter_kind kind) {
  const filter_kind_info& info = filter_kind_of(kind);
  if (info.removable) return;
  if (info.is_static) throw_static("remove from", kind);
  const std::string removable = filter_kind_names(&filter_kind_info::removable);
  throw std::invalid_argument(
      fmt::format("remove needs a {} filter, but this is a {} filter, whose bits may be shared by "
                  "other items; create the filter with kind {} to remove items",
                  removable, info.name, removable));
}

void any_filter::remove(std::string_view item) {
  require_removable(kind());
  std::visit(
      [&](auto& f) {
        if constexpr (filter_kind_row<std::decay_t<decltype(f)>>::removable) f.remove(item);
      },
      filter_);
}

std::span<const std::uint64_t> any_filter::words() const {
  return std::visit(
      [](const auto& f) -> std::span<const std::uint64_t> {
        if constexpr (requires { f.words(); }) {
          return f.words();
        } else {
          throw std::invalid_argument(fmt::format(
              "words() needs a {} filter: a {} filter has no single array of words (a layered "
              "filter keeps one array per layer, a fuse filter an array of fingerprints); use "
              "explain() for an item's probes",
              filter_kind_names(&filter_kind_info::has_words),
              filter_kind_row<std::decay_t<decltype(f)>>::name));
        }
      },
      filter_);
}

filter_description any_filter::describe() const {
  filter_description out;
  std::visit([&](const auto& f) { filter_kind_row<std::decay_t<decltype(f)>>::describe(f, out); },
             filter_);
  return out;
}

namespace {

template <class Fuse>
std::vector<bit_probe> fuse_probes(const Fuse& f, std::string_view item) {
  std::vector<bit_probe> probes;
  const auto fp = f.fingerprints();
  for (const std::uint64_t slot : f.slots_of_item(item)) {
    probes.push_back({0, slot, static_cast<std::uint32_t>(fp[static_cast<std::size_t>(slot)])});
  }
  return probes;
}

template <class Fuse>
filter_stats fuse_stats(const Fuse& f, filter_kind kind) {
  filter_stats s;
  s.kind = kind;
  s.hash = hash_kind::xxh3;
  s.seed = f.seed();
  s.bits = f.slots() * f.fingerprint_bits;
  s.hashes = Fuse::arity;
  s.layers = 1;
  s.items_added = f.items();
  for (const auto v : f.fingerprints()) s.bits_set += static_cast<std::uint64_t>(std::popcount(v));
  s.fill_ratio = s.bits == 0 ? 0 : static_cast<double>(s.bits_set) / static_cast<double>(s.bits);
  s.expected_fpr = f.items() == 0 ? 0 : Fuse::expected_fpr();
  s.estimated_items = static_cast<double>(f.items());  // exact: recorded at build
  s.memory_bytes = f.slots() * sizeof(f.fingerprints()[0]);
  return s;
}

}  // namespace

std::vector<bit_probe> any_filter::explain(std::string_view item) const {
  return std::visit(
      [item](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return fuse_probes(f, item);
        } else {
          return f.explain(item);
        }
      },
      filter_);
}

filter_stats any_filter::stats() const {
  const filter_kind k = kind();
  return std::visit(
      [k](const auto& f) {
        if constexpr (is_fuse<std::decay_t<decltype(f)>>) {
          return fuse_stats(f, k);
        } else {
          return f.stats();
        }
      },
      filter_);
}

namespace {

template <class Op>
void combine(any_filter::variant_type& a, const any_filter::variant_type& b,
             std::string_view operation, filter_kind kind_a, filter_kind kind_b, Op op) {
  if (a.index() != b.index()) {
    detail::throw_incompatible(operation,
                               fmt::format("the first is a {} filter and the second a {} filter",
                                           filter_kind_name(kind_a), filter_kind_name(kind_b)));
  }
  std::visit(
      [&](auto& fa) {
        using F = std::decay_t<decltype(fa)>;
        op(fa, std::get<F>(b));
      },
      a);
}

}  // namespace

void any_filter::merge(const any_filter& other) {
  if (is_static_kind(kind())) throw_static("merge into", kind());
  combine(filter_, other.filter_, "merge", kind(), other.kind(), [](auto& a, const auto& b) {
    if constexpr (!is_fuse<std::decay_t<decltype(a)>>) a.merge(b);
  });
}

void any_filter::intersect(const any_filter& other) {
  if (is_static_kind(kind())) throw_static("intersect into", kind());
  combine(filter_, other.filter_, "intersect", kind(), other.kind(), [](auto& a, const auto& b) {
    if constexpr (!is_fuse<std::decay_t<decltype(a)>>) a.intersect(b);
  });
}

any_filter make_filter(const filter_spec& spec) {
  const bool by_capacity = spec.capacity != 0 || spec.fpr != 0;
  const bool by_size = spec.bits != 0 || spec.hashes != 0;
  if (by_capacity == by_size) {
    throw std::invalid_argument(
        by_capacity ? "give either a capacity and a false-positive rate, or a number of bits and "
                      "of hashes, not both"
                    : "a new filter needs a size: give a capacity and a false-positive rate (for "
                      "example 1000000 and 0.01), or a number of bits and of hashes");
  }
  if (by_capacity && (spec.capacity == 0 || spec.fpr == 0)) {
    throw std::invalid_argument(
        spec.capacity == 0
            ? "a false-positive rate needs a capacity too: give the number of items to hold"
            : "a capacity needs a false-positive rate too: give a rate between 0 and 1, for "
              "example 0.01");
  }
  if (by_size && (spec.bits == 0 || spec.hashes == 0)) {
    throw std::invalid_argument(
        spec.bits == 0 ? "a number of hashes needs a number of bits too"
                       : "a number of bits needs a number of hashes too (about 7 for a 1% rate)");
  }
  std::optional<any_filter> made;
  const bool known = filter_kind_table::visit(spec.kind, [&](auto tag) {
    made.emplace(filter_kind_row<typename decltype(tag)::type>::make(spec));
  });
  if (!known) detail::throw_unknown_kind(spec.kind);
  return std::move(*made);
}

any_filter build_fuse_filter(filter_kind kind, std::span<const std::uint64_t> hashes,
                             std::uint64_t seed) {
  std::optional<any_filter> built;
  filter_kind_table::visit(kind, [&](auto tag) {
    using filter = typename decltype(tag)::type;
    if constexpr (filter_kind_row<filter>::is_static) {
      built.emplace(filter::build_from_hashes(hashes, seed));
    }
  });
  if (built) return std::move(*built);
  throw std::invalid_argument(
      fmt::format("build_fuse_filter builds the static kinds {}, not {}; use make_filter",
                  filter_kind_names(&filter_kind_info::is_static), filter_kind_name(kind)));
}

std::vector<std::uint64_t> read_fuse_key_hashes(io::line_reader& in, filter_kind kind,
                                                std::uint64_t seed, std::string_view source) {
  std::vector<std::uint64_t> hashes;
  std::string line;
  while (in.next(line)) {
    if (hashes.size() == hashes.capacity()) {
      const std::uint64_t next = std::max<std::uint64_t>(1024, 2 * hashes.size());
      if (hashes.size() >= std::numeric_limits<std::uint32_t>::max()) {
        throw std::invalid_argument(
            fmt::format("{} has more than 2^32 keys, the most one fuse filter holds; split the "
                        "keys into several filters",
                        source));
      }
      io::require_memory(
          next * fuse_build_bytes_per_key,
          fmt::format("{} (more than {} keys, about {} bytes each while the {} "
                      "filter is built)",
                      source, hashes.size(), fuse_build_bytes_per_key, filter_kind_name(kind)),
          "split the keys into several filters");
      hashes.reserve(static_cast<std::size_t>(next));
    }
    hashes.push_back(fuse8_filter::key_hash(line, seed));
  }
  return hashes;
}

namespace {

// Positions of probes as "5,3", and the distinct zero ones as " (zero: 5)".
std::string describe_positions(std::span<const bit_probe> probes) {
  std::string positions;
  std::vector<std::uint64_t> zeros;
  for (const bit_probe& p : probes) {
    positions += fmt::format("{}{}", positions.empty() ? "" : ",", p.position);
    if (p.value == 0 && std::find(zeros.begin(), zeros.end(), p.position) == zeros.end()) {
      zeros.push_back(p.position);
    }
  }
  std::string text = "positions " + positions;
  if (!zeros.empty()) text += fmt::format(" (zero: {})", fmt::join(zeros, ","));
  return text;
}

}  // namespace

std::string describe_probes(std::span<const bit_probe> probes, bool layered) {
  if (!layered) return describe_positions(probes);
  std::string text;
  std::size_t begin = 0;
  while (begin < probes.size()) {
    std::size_t end = begin;
    while (end < probes.size() && probes[end].layer == probes[begin].layer) ++end;
    text += fmt::format("{}layer {} {}", text.empty() ? "" : "; ", probes[begin].layer,
                        describe_positions(probes.subspan(begin, end - begin)));
    begin = end;
  }
  return text;
}

}  // namespace ringbloom
