// Boost.Bloom fast_multiblock32<8> for bloom_bench (see boost_bloom_peer.hpp).
// Not a *_bench.cpp: bench/CMakeLists.txt adds it to bloom_bench only when
// RINGBLOOM_BOOST_BLOOM_INCLUDE is set.
#include "boost_bloom_peer.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <boost/bloom.hpp>
#include <string_view>

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

}  // namespace ringbloom::bench
