// tests/filter/hash64_kinds.hpp: what the tests of the kinds placed by one
// 64-bit item hash (blocked64, blocked1024) share: the golden files' items,
// numbered keys, and the SIMD paths a CPU runs for a kind.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "filter_file_fixtures.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"

namespace ringbloom::filter_test {

/// The items tests/filter/bloom_golden.py puts into blocked64_xxh3.rbf and
/// blocked1024_xxh3.rbf: 50 short keys, then one per branch of XXH3's
/// short-input code (0, 1, 3, 4, 8, 9, 16 bytes) and one hashed out of line.
inline std::vector<std::string> golden_items() {
  std::vector<std::string> items;
  for (int i = 0; i < 50; ++i) items.push_back("c" + std::to_string(i));
  for (const char* s : {"", "x", "xyz", "1234", "12345678", "123456789", "sixteen-byte-key",
                        "a key longer than sixteen bytes, hashed out of line"}) {
    items.emplace_back(s);
  }
  return items;
}

/// prefix + "0" .. prefix + (n - 1).
inline std::vector<std::string> keys(const std::string& prefix, std::size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

/// The block tests this CPU runs for Filter (a filter of `bits` bits takes
/// each path it supports; blocked64's avx512 needs AVX-512VL too).
template <class Filter>
std::vector<simd_path> simd_paths(std::uint64_t bits) {
  std::vector<simd_path> out;
  for (const simd_path p : {simd_path::scalar, simd_path::avx2, simd_path::avx512}) {
    try {
      Filter(bits, 1).use_simd_path(p);
      out.push_back(p);
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

}  // namespace ringbloom::filter_test
