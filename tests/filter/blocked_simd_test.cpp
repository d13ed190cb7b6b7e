// The blocked filter's SIMD paths: every path this CPU supports (scalar
// always, AVX2 and AVX-512 when present) computes the same masks, sets the
// same bits byte for byte and gives the same answers as the scalar
// reference, and reproduces the independent Python golden file and
// positions (tests/filter/bloom_golden.py). Paths the CPU lacks are reported as
// skipped, never silently passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/filter/detail/simd.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"

namespace ringbloom {
namespace {

constexpr std::array<simd_path, 3> all_paths = {simd_path::scalar, simd_path::avx2,
                                                simd_path::avx512};

std::vector<simd_path> supported_paths() {
  std::vector<simd_path> out;
  for (simd_path p : all_paths) {
    if (simd_path_supported(p)) out.push_back(p);
  }
  return out;
}

std::vector<std::string> make_items(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> items;
  items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) items.push_back("item:" + std::to_string(rng()));
  return items;
}

bool same_bytes(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

TEST(SimdPaths, ScalarIsAlwaysSupportedAndTheBestIsSupported) {
  EXPECT_TRUE(simd_path_supported(simd_path::scalar));
  EXPECT_TRUE(simd_path_supported(best_simd_path()));
  EXPECT_EQ(simd_path_name(simd_path::scalar), "scalar");
  EXPECT_EQ(simd_path_name(simd_path::avx2), "avx2");
  EXPECT_EQ(simd_path_name(simd_path::avx512), "avx512");
  // A new filter uses the best path.
  EXPECT_EQ(blocked_bloom_filter(4096, 8).simd(), best_simd_path());
  std::cout << "best path on this CPU: " << simd_path_name(best_simd_path()) << '\n';
}

TEST(SimdPaths, EachPathIsTestedOrReportedSkipped) {
  for (simd_path p : {simd_path::avx2, simd_path::avx512}) {
    if (!simd_path_supported(p)) {
      std::cout << "[  SKIPPED ] " << simd_path_name(p) << ": not supported by this CPU\n";
    }
  }
  EXPECT_GE(supported_paths().size(), 1U);
}

TEST(SimdPaths, UnsupportedPathIsRefusedWithAClearError) {
  bool any_unsupported = false;
  for (simd_path p : all_paths) {
    if (simd_path_supported(p)) continue;
    any_unsupported = true;
    blocked_bloom_filter f(4096, 8);
    try {
      f.use_simd_path(p);
      ADD_FAILURE() << "use_simd_path accepted an unsupported path";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("does not support"), std::string::npos) << e.what();
    }
    EXPECT_EQ(f.simd(), best_simd_path());  // unchanged
  }
  if (!any_unsupported) GTEST_SKIP() << "this CPU supports every path";
}

TEST(SimdPaths, MasksEqualTheScalarReferenceForEveryK) {
  std::mt19937_64 rng(20240601);
  std::vector<std::uint64_t> h2s = {0, ~std::uint64_t{0}, 0x0123456789abcdefULL,
                                    0xffffffff00000000ULL, 0x00000000ffffffffULL};
  for (int i = 0; i < 2000; ++i) h2s.push_back(rng());
  for (simd_path p : supported_paths()) {
    const auto& kernels = detail::kernels_for(p);
    EXPECT_EQ(kernels.path, p);
    for (std::uint32_t k = 1; k <= max_blocked_hashes; ++k) {
      for (std::uint64_t h2 : h2s) {
        std::array<std::uint64_t, 8> got{};
        kernels.mask(h2, k, got.data());
        ASSERT_EQ(got, detail::block_mask(h2, k))
            << simd_path_name(p) << " k=" << k << " h2=" << h2;
      }
    }
  }
}

TEST(SimdPaths, SingleBlockAddAndTestAgreeWithTheMask) {
  std::mt19937_64 rng(7);
  for (simd_path p : supported_paths()) {
    const auto& kernels = detail::kernels_for(p);
    for (std::uint32_t k = 1; k <= max_blocked_hashes; ++k) {
      for (int i = 0; i < 200; ++i) {
        const std::uint64_t h2 = rng();
        // A block with random bits: add ORs exactly the mask in.
        alignas(64) std::array<std::uint64_t, 8> block{};
        for (auto& w : block) w = rng() & rng();  // about a quarter of the bits set
        const auto before = block;
        const auto mask = detail::block_mask(h2, k);
        bool contains = true;
        for (std::size_t w = 0; w < 8; ++w) contains = contains && (before[w] & mask[w]) == mask[w];
        ASSERT_EQ(kernels.test(block.data(), h2, k), contains) << simd_path_name(p) << " k=" << k;
        kernels.add(block.data(), h2, k);
        for (std::size_t w = 0; w < 8; ++w) ASSERT_EQ(block[w], before[w] | mask[w]);
        ASSERT_TRUE(kernels.test(block.data(), h2, k));
      }
    }
  }
}

TEST(SimdPaths, FiltersFilledByEveryPathAreByteIdentical) {
  const auto items = make_items(20000, 1);
  const auto strangers = make_items(20000, 2);
  for (std::uint32_t k : {1U, 5U, 8U, 9U, 12U, 16U}) {
    // The reference: scalar, one add per item.
    blocked_bloom_filter reference(512 * 300, k);
    reference.use_simd_path(simd_path::scalar);
    for (const auto& item : items) reference.add(item);

    for (simd_path p : supported_paths()) {
      blocked_bloom_filter one(512 * 300, k);
      one.use_simd_path(p);
      for (const auto& item : items) one.add(item);
      blocked_bloom_filter many(512 * 300, k);
      many.use_simd_path(p);
      many.add_many(std::span<const std::string>(items));
      EXPECT_TRUE(same_bytes(one.words(), reference.words())) << simd_path_name(p) << " k=" << k;
      EXPECT_TRUE(same_bytes(many.words(), reference.words())) << simd_path_name(p) << " k=" << k;
      EXPECT_EQ(many.items_added(), items.size());

      // The same answers, one at a time and batched, for members and strangers.
      auto out = std::make_unique<bool[]>(strangers.size());
      const std::size_t found = many.may_contain_many(std::span<const std::string>(strangers),
                                                      {out.get(), strangers.size()});
      std::size_t expected_found = 0;
      for (std::size_t i = 0; i < strangers.size(); ++i) {
        const bool ref = reference.may_contain(strangers[i]);
        expected_found += ref ? 1 : 0;
        ASSERT_EQ(many.may_contain(strangers[i]), ref) << simd_path_name(p) << " " << i;
        ASSERT_EQ(out[i], ref) << simd_path_name(p) << " " << i;
      }
      EXPECT_EQ(found, expected_found);
      EXPECT_EQ(
          many.may_contain_many(std::span<const std::string>(items), {out.get(), items.size()}),
          items.size())
          << "a false negative on the " << simd_path_name(p) << " path";
    }
  }
}

TEST(SimdPaths, EveryPathWritesThePythonGoldenFile) {
  // tests/filter/data/blocked_xxh3.rbf was written by tests/filter/bloom_golden.py: m = 2048,
  // k = 8, items b0..b49.
  const any_filter golden =
      deserialize_filter(io::read_file(std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests" /
                                       "filter" / "data" / "blocked_xxh3.rbf"));
  const auto* g = golden.get_if<blocked_bloom_filter>();
  ASSERT_NE(g, nullptr);
  std::vector<std::string> items;
  for (int i = 0; i < 50; ++i) items.push_back("b" + std::to_string(i));
  for (simd_path p : supported_paths()) {
    blocked_bloom_filter one(2048, 8);
    one.use_simd_path(p);
    for (const auto& item : items) one.add(item);
    blocked_bloom_filter many(2048, 8);
    many.use_simd_path(p);
    many.add_many(std::span<const std::string>(items));
    EXPECT_TRUE(same_bytes(one.words(), g->words())) << simd_path_name(p);
    EXPECT_TRUE(same_bytes(many.words(), g->words())) << simd_path_name(p);
  }
}

TEST(SimdPaths, EveryPathSetsThePythonPositionsForKAbove8) {
  // Positions of "anna" with m = 512 * 1000 and k = 12 from tests/filter/bloom_golden.py
  // (as in blocked_bloom_test.cpp): the second round of multiply-shifts.
  const std::vector<std::uint64_t> expected = {480589, 480513, 480375, 480716, 480349, 480674,
                                               480564, 480543, 480283, 480506, 480518, 480411};
  for (simd_path p : supported_paths()) {
    blocked_bloom_filter f(512 * 1000, 12);
    f.use_simd_path(p);
    f.add("anna");
    std::vector<std::uint64_t> set;
    const auto w = f.words();
    for (std::size_t i = 0; i < w.size(); ++i) {
      for (unsigned b = 0; b < 64; ++b) {
        if ((w[i] >> b) & 1) set.push_back(i * 64 + b);
      }
    }
    std::vector<std::uint64_t> sorted = expected;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(set, sorted) << simd_path_name(p);
  }
}

TEST(SimdPaths, UnalignedMappedWordsGiveTheSameAnswers) {
  // Mapped files give 8-byte (not 64-byte) aligned words: the vector code must
  // use unaligned loads.
  const auto items = make_items(3000, 3);
  const auto strangers = make_items(3000, 4);
  blocked_bloom_filter owned(512 * 64, 8);
  owned.add_many(std::span<const std::string>(items));
  const auto words = owned.words();
  auto storage = std::make_shared<std::vector<std::uint64_t>>(words.size() + 1);
  std::copy(words.begin(), words.end(), storage->begin() + 1);  // 8 bytes past a 16-byte boundary
  const std::uint64_t* data = storage->data() + 1;
  for (simd_path p : supported_paths()) {
    auto view =
        blocked_bloom_filter::from_words(owned.bits(), 8, hash_kind::xxh3, 0, owned.items_added(),
                                         detail::word_store::view(data, words.size(), storage));
    view.use_simd_path(p);
    auto out = std::make_unique<bool[]>(strangers.size());
    view.may_contain_many(std::span<const std::string>(strangers), {out.get(), strangers.size()});
    for (std::size_t i = 0; i < strangers.size(); ++i) {
      ASSERT_EQ(out[i], owned.may_contain(strangers[i])) << simd_path_name(p);
      ASSERT_EQ(view.may_contain(strangers[i]), out[i]) << simd_path_name(p);
    }
    for (const auto& item : items) ASSERT_TRUE(view.may_contain(item)) << simd_path_name(p);
  }
}

TEST(SimdPaths, CopiesKeepThePathAndEqualityIgnoresIt) {
  blocked_bloom_filter a(4096, 8);
  a.use_simd_path(simd_path::scalar);
  const blocked_bloom_filter b = a;
  EXPECT_EQ(b.simd(), simd_path::scalar);
  blocked_bloom_filter c(4096, 8);
  a.add("x");
  c.add("x");
  EXPECT_TRUE(a == c);
}

}  // namespace
}  // namespace ringbloom
