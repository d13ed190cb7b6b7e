// Boost.Bloom fast_multiblock32<8> for bloom_bench (see boost_bloom_peer.hpp).
// Not a *_bench.cpp: bench/CMakeLists.txt adds it to bloom_bench only when
// RINGBLOOM_BOOST_BLOOM_INCLUDE is set.
#include "boost_bloom_peer.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <boost/bloom.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringbloom::bench {

using filter_type = boost::bloom::filter<std::string_view, 1, boost::bloom::fast_multiblock32<8>>;

struct boost_fmb32::impl {
  explicit impl(std::size_t bits) : f(bits) {}
  filter_type f;
};

boost_fmb32::boost_fmb32(std::size_t bits) : impl_(std::make_unique<impl>(bits)) {}
boost_fmb32::~boost_fmb32() = default;
boost_fmb32::boost_fmb32(boost_fmb32&&) noexcept = default;
boost_fmb32& boost_fmb32::operator=(boost_fmb32&&) noexcept = default;

namespace {

std::string_view key_at(const char* keys, std::size_t i, std::size_t key_bytes) {
  return {keys + i * key_bytes, key_bytes};
}

// Batches of string_views built on the fly, as bloom_bench does for ours.
constexpr std::size_t batch_items = 1024;

}  // namespace

void boost_fmb32::insert_each(const char* keys, std::size_t n, std::size_t key_bytes) {
  for (std::size_t i = 0; i < n; ++i) impl_->f.insert(key_at(keys, i, key_bytes));
}

void boost_fmb32::insert_bulk(const char* keys, std::size_t n, std::size_t key_bytes) {
  std::array<std::string_view, batch_items> views;
  for (std::size_t first = 0; first < n; first += batch_items) {
    const std::size_t count = std::min(batch_items, n - first);
    for (std::size_t i = 0; i < count; ++i) views[i] = key_at(keys, first + i, key_bytes);
    impl_->f.insert(views.begin(), views.begin() + static_cast<std::ptrdiff_t>(count));
  }
}

std::size_t boost_fmb32::count_each(const char* keys, std::size_t n, std::size_t key_bytes) const {
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool hit = impl_->f.may_contain(key_at(keys, i, key_bytes));
    benchmark::DoNotOptimize(hit);
    found += hit ? 1 : 0;
  }
  return found;
}

std::size_t boost_fmb32::count_bulk(const char* keys, std::size_t n, std::size_t key_bytes) const {
  std::array<std::string_view, batch_items> views;
  std::array<bool, batch_items> out;
  std::size_t found = 0;
  for (std::size_t first = 0; first < n; first += batch_items) {
    const std::size_t count = std::min(batch_items, n - first);
    for (std::size_t i = 0; i < count; ++i) views[i] = key_at(keys, first + i, key_bytes);
    std::size_t at = 0;
    impl_->f.may_contain(views.begin(), views.begin() + static_cast<std::ptrdiff_t>(count),
                         [&](std::string_view, bool res) {
                           out[at++] = res;
                           found += res ? 1 : 0;
                         });
    benchmark::DoNotOptimize(out.data());
  }
  return found;
}

std::size_t boost_fmb32::bits() const { return impl_->f.capacity(); }

// --- the equal-rate table ---------------------------------------------------------

namespace {

template <class Subfilter, std::size_t Stride = 0>
double rate_of(double bits_per_key, const char* members, std::size_t n, const char* strangers,
               std::size_t m, std::size_t key_bytes) {
  boost::bloom::filter<std::string_view, 1, Subfilter, Stride> f(
      static_cast<std::size_t>(bits_per_key * static_cast<double>(n)));
  for (std::size_t i = 0; i < n; ++i) f.insert(key_at(members, i, key_bytes));
  std::size_t hits = 0;
  for (std::size_t i = 0; i < m; ++i)
    hits += f.may_contain(key_at(strangers, i, key_bytes)) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(m);
}

using rate_fn = double (*)(double, const char*, std::size_t, const char*, std::size_t, std::size_t);
struct variant {
  const char* name;
  rate_fn rate;
};

template <std::size_t K>
constexpr std::array<variant, 6> family() {
  using boost::bloom::block;
  using boost::bloom::fast_multiblock32;
  using boost::bloom::fast_multiblock64;
  using boost::bloom::multiblock;
  return {{
      {"block<uint64_t,K>", &rate_of<block<std::uint64_t, K>>},
      {"multiblock<uint32_t,K>", &rate_of<multiblock<std::uint32_t, K>>},
      {"multiblock<uint64_t,K>", &rate_of<multiblock<std::uint64_t, K>>},
      {"multiblock<uint64_t,K>, stride 1", &rate_of<multiblock<std::uint64_t, K>, 1>},
      {"fast_multiblock32<K>", &rate_of<fast_multiblock32<K>>},
      {"fast_multiblock64<K>", &rate_of<fast_multiblock64<K>>},
  }};
}

struct named_variant {
  std::string name;
  rate_fn rate;
};

template <std::size_t... Ks>
std::vector<named_variant> all_variants(std::index_sequence<Ks...>) {
  std::vector<named_variant> out;
  auto add = [&](std::size_t k, const auto& fam) {
    for (const variant& v : fam) {
      std::string name = v.name;
      name.replace(name.find('K'), 1, std::to_string(k));
      out.push_back({name, v.rate});
    }
  };
  (add(Ks + 4, family<Ks + 4>()), ...);
  return out;
}

const std::vector<named_variant>& variants() {
  static const std::vector<named_variant> v =
      all_variants(std::make_index_sequence<9>{});  // K 4..12
  return v;
}

}  // namespace

std::vector<std::string> boost_blocked_variants() {
  std::vector<std::string> names;
  for (const auto& v : variants()) names.push_back(v.name);
  return names;
}

double boost_blocked_fpr(std::size_t index, double bits_per_key, const char* members, std::size_t n,
                         const char* strangers, std::size_t m, std::size_t key_bytes) {
  return variants().at(index).rate(bits_per_key, members, n, strangers, m, key_bytes);
}

}  // namespace ringbloom::bench
