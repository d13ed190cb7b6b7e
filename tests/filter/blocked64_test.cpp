// The blocked64 kind (ringbloom/filter/blocked64_bloom.hpp): the inline
// XXH3-64 against the library's, the golden file written by
// tests/filter/bloom_golden.py from the documented rule, no false negatives on
// every path (one at a time, batched, scalar, AVX2, integer keys), the
// measured false-positive rate at 10 bits per key, files (round trip, mapped,
// in-place streamed add, every damaged byte refused) and the CLI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "filter/filter_format.hpp"
#include "hash64_kinds.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/blocked64_bloom.hpp"
#include "ringbloom/filter/fast_bloom.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

using filter_test::golden;
using filter_test::golden_items;
using filter_test::keys;

std::vector<simd_path> paths() { return filter_test::simd_paths<blocked64_bloom_filter>(512); }

TEST(Blocked64Hash, InlineXxh3EqualsTheLibrarysForEveryLengthAndSeed) {
  std::mt19937_64 rng(16);
  std::string bytes(64, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  const std::uint64_t seeds[] = {0, 1, 42, 0xffffffffULL, 0x123456789abcdef0ULL, ~0ULL};
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t at = 0; at + len <= bytes.size(); at += 7) {
      const std::string_view s(bytes.data() + at, len);
      for (const std::uint64_t seed : seeds) {
        ASSERT_EQ(detail::blocked64_item_hash(s, seed), xxh3_64(s, seed))
            << "length " << len << " seed " << seed;
        if (len <= 16) {
          ASSERT_EQ(detail::xxh3_64_short(s, seed), xxh3_64(s, seed));
        }
      }
    }
  }
}

TEST(Blocked64Golden, LibraryWritesAndReadsTheIndependentFile) {
  blocked64_bloom_filter f(2048, 10);
  for (const auto& item : golden_items()) f.add(item);
  const std::string expected = golden("blocked64_xxh3.rbf");
  EXPECT_TRUE(serialize_filter(f) == expected)
      << "the blocked64 placement or the format changed; regenerate with bloom_golden.py only "
         "if on purpose (a new kind or format version)";
  const any_filter g = deserialize_filter(expected);
  EXPECT_EQ(g.kind(), filter_kind::blocked64);
  EXPECT_EQ(g.hashes(), 10U);
  EXPECT_EQ(g.items_added(), golden_items().size());
  for (const auto& item : golden_items()) EXPECT_TRUE(g.may_contain(item)) << item;
  // Batch adds give the same bytes.
  blocked64_bloom_filter b(2048, 10);
  const auto items = golden_items();
  b.add_many(std::span<const std::string>(items));
  EXPECT_TRUE(serialize_filter(b) == expected);
}

TEST(Blocked64Filter, BatchesOfEveryLengthAroundTheRingEqualOneAtATime) {
  // The batch paths keep a ring of 64 hashed items: lengths below, at and
  // just past one and two rings take every branch of its fill and drain.
  for (const std::size_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 200}) {
    const auto members = keys("m:", n);
    const auto probes = keys("p:", n + 7);
    blocked64_bloom_filter one(4096, 6);
    blocked64_bloom_filter many(4096, 6);
    for (const auto& m : members) one.add(m);
    many.add_many(std::span<const std::string>(members));
    EXPECT_TRUE(one == many) << n;
    auto out = std::make_unique<bool[]>(probes.size() + 1);
    out[probes.size()] = true;  // past the items: left alone
    std::size_t expected = 0;
    for (const auto& p : probes) expected += one.may_contain(p) ? 1 : 0;
    EXPECT_EQ(
        many.may_contain_many(std::span<const std::string>(probes), {out.get(), probes.size()}),
        expected)
        << n;
    for (std::size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(out[i], one.may_contain(probes[i]));
    EXPECT_TRUE(out[probes.size()]);
  }
}

// Filters above 16 MiB take the batch pipeline's other prefetch (into L2,
// src/filter/hash64_batch.hpp): the same bits and answers there, for both
// kinds that share it, on every path.
template <class Filter>
void expect_large_batches_equal_one_at_a_time(std::uint32_t k) {
  const auto members = keys("m:", 3000);
  const auto probes = keys("p:", 3000);
  Filter one(std::uint64_t{1} << 28, k);  // 32 MiB
  Filter many(std::uint64_t{1} << 28, k);
  for (const auto& m : members) one.add(m);
  many.add_many(std::span<const std::string>(members));
  ASSERT_TRUE(one == many);
  for (const simd_path p : {simd_path::scalar, simd_path::avx2, simd_path::avx512}) {
    if (!Filter::path_supported(p)) continue;
    many.use_simd_path(p);
    auto out = std::make_unique<bool[]>(probes.size());
    std::size_t expected = 0;
    for (const auto& q : probes) expected += one.may_contain(q) ? 1 : 0;
    EXPECT_EQ(
        many.may_contain_many(std::span<const std::string>(probes), {out.get(), probes.size()}),
        expected)
        << simd_path_name(p);
    for (std::size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(out[i], one.may_contain(probes[i]));
    EXPECT_EQ(
        many.may_contain_many(std::span<const std::string>(members), {out.get(), members.size()}),
        members.size());
  }
}

TEST(Blocked64Filter, BatchesOfAFilterAbove16MiBEqualOneAtATime) {
  expect_large_batches_equal_one_at_a_time<blocked64_bloom_filter>(6);
  expect_large_batches_equal_one_at_a_time<fast_bloom_filter>(8);
}

TEST(Blocked64Filter, NoFalseNegativesOnEveryPathAndBatchEqualsOneAtATime) {
  const auto members = keys("member:", 20000);
  const auto strangers = keys("stranger:", 20000);
  auto f = blocked64_bloom_filter::for_capacity(members.size(), 0.01, 7);
  f.add_many(std::span<const std::string>(members));
  auto out = std::make_unique<bool[]>(strangers.size());
  for (const simd_path p : paths()) {
    f.use_simd_path(p);
    for (const auto& m : members) ASSERT_TRUE(f.may_contain(m)) << m;
    EXPECT_EQ(
        f.may_contain_many(std::span<const std::string>(members), {out.get(), members.size()}),
        members.size());
    const std::size_t found =
        f.may_contain_many(std::span<const std::string>(strangers), {out.get(), strangers.size()});
    std::size_t one_by_one = 0;
    for (std::size_t i = 0; i < strangers.size(); ++i) {
      ASSERT_EQ(out[i], f.may_contain(strangers[i])) << strangers[i];
      one_by_one += out[i] ? 1 : 0;
    }
    EXPECT_EQ(found, one_by_one);
  }
  // One at a time and batched adds set the same bits.
  auto g = blocked64_bloom_filter::for_capacity(members.size(), 0.01, 7);
  for (const auto& m : members) g.add(m);
  EXPECT_TRUE(f == g);
}

TEST(Blocked64Filter, ScalarAvx2AndAvx512TestsAgreeOnRandomBlocks) {
  const auto p = paths();
  const bool avx512 = std::find(p.begin(), p.end(), simd_path::avx512) != p.end();
  if (p.size() < 2) GTEST_SKIP() << "this CPU has only the scalar test";
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200000; ++trial) {
    std::array<std::uint64_t, 8> block{};
    // Dense and sparse blocks, so that both answers occur.
    for (auto& w : block) w = rng() | (trial % 2 == 0 ? rng() | rng() : 0);
    const std::uint64_t h2 = rng();
    const auto k = static_cast<std::uint32_t>(1 + trial % 16);
    const bool expected = detail::blocked64_test_scalar(block.data(), h2, k);
    ASSERT_EQ(expected, detail::blocked64_test_avx2(block.data(), h2, k))
        << "trial " << trial << " k " << k;
    if (avx512) {
      ASSERT_EQ(expected, detail::blocked64_test_avx512(block.data(), h2, k))
          << "trial " << trial << " k " << k;
      if (k <= 8) {
        ASSERT_EQ(expected,
                  detail::blocked64_test8_avx512(block.data(), static_cast<std::uint32_t>(h2),
                                                 detail::blocked64_lane_mask(k)))
            << "trial " << trial << " k " << k;
      }
    }
  }
}

TEST(Blocked64Filter, Avx2AddSetsTheScalarAddsBitsOnRandomBlocks) {
  if (!blocked64_bloom_filter::path_supported(simd_path::avx2))
    GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200000; ++trial) {
    std::array<std::uint64_t, 8> scalar{};
    // Empty and partly set blocks, k from 1 to 16 (k = 6 has its own code).
    for (auto& w : scalar) w = trial % 3 == 0 ? 0 : rng() & rng();
    std::array<std::uint64_t, 8> avx2 = scalar;
    const std::uint64_t h2 = rng();
    const auto k = static_cast<std::uint32_t>(1 + trial % 16);
    detail::blocked64_set_scalar(scalar.data(), h2, k);
    detail::blocked64_set_avx2(avx2.data(), h2, k);
    ASSERT_EQ(scalar, avx2) << "trial " << trial << " k " << k;
  }
  // Every position of the block (each p = 0..511 reached as position 0 and
  // as position 4, the two ways the AVX2 add builds a mask).
  for (const std::uint32_t j : {0U, 4U}) {
    std::array<bool, 512> seen{};
    for (std::uint32_t half = 0; half < (1U << 20); ++half) {
      const std::uint64_t h2 = std::uint64_t{half} << 12 | half;
      const std::uint32_t p = detail::block_position(h2, j);
      if (seen[p]) continue;
      seen[p] = true;
      std::array<std::uint64_t, 8> scalar{};
      std::array<std::uint64_t, 8> avx2{};
      detail::blocked64_set_scalar(scalar.data(), h2, 6);
      detail::blocked64_set_avx2(avx2.data(), h2, 6);
      ASSERT_EQ(scalar, avx2) << "position " << p << " as j " << j;
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 512) << "j " << j;
  }
  // Through the filter: add on the scalar path and on each vector path (which
  // adds with AVX2) set the same bits, at k = 6 and at k = 11.
  const auto items = keys("add:", 3000);
  for (const std::uint32_t k : {6U, 11U}) {
    blocked64_bloom_filter scalar_path(1 << 15, k, 9);
    scalar_path.use_simd_path(simd_path::scalar);
    for (const auto& item : items) scalar_path.add(item);
    for (const simd_path path : paths()) {
      blocked64_bloom_filter f(1 << 15, k, 9);
      f.use_simd_path(path);
      for (const auto& item : items) f.add(item);
      EXPECT_TRUE(f == scalar_path) << simd_path_name(path) << " k " << k;
    }
  }
}

TEST(Blocked64Filter, IntegerKeysAreTheirOwnItemSpace) {
  blocked64_bloom_filter f(1 << 20, 6);
  std::vector<std::uint64_t> ints;
  for (std::uint64_t i = 0; i < 50000; ++i) ints.push_back(i * 3);
  f.add_many(std::span<const std::uint64_t>(ints));
  for (const std::uint64_t i : ints) ASSERT_TRUE(f.may_contain(i)) << i;
  auto out = std::make_unique<bool[]>(ints.size());
  EXPECT_EQ(f.may_contain_many(std::span<const std::uint64_t>(ints), {out.get(), ints.size()}),
            ints.size());
  blocked64_bloom_filter g(1 << 20, 6);
  g.add(std::uint64_t{42});
  EXPECT_TRUE(g.may_contain(std::uint64_t{42}));
  EXPECT_NE(g.hash_key(42), g.hash_item("42"));  // not the string of the same digits
  EXPECT_EQ(g.hash_key(42), detail::blocked64_key_hash(42, 0));
}

// The measured rate at 10 bits per key. The blocked layout models 0.966% at
// k = 6 (bloom_math::blocked_fpr); 1,000,000 strangers give a standard error
// of about 0.01% absolute (1% relative), so 4% relative is 4 sigma.
TEST(Blocked64Filter, FalsePositiveRateAtTenBitsPerKeyStaysAtOrBelowOnePercent) {
  constexpr std::size_t n = 200000;
  blocked64_bloom_filter f(10 * n, 6, 0);
  const auto members = keys("user:", n);
  f.add_many(std::span<const std::string>(members));
  const double model = bloom_math::blocked_fpr(static_cast<double>(n), f.bits(), 6);
  std::size_t hits = 0;
  constexpr std::size_t probes = 1000000;
  for (std::size_t i = 0; i < probes; ++i) hits += f.may_contain("visitor:" + std::to_string(i));
  const double rate = static_cast<double>(hits) / probes;
  EXPECT_LE(rate, 0.0100) << "model " << model;
  EXPECT_NEAR(rate, model, 0.04 * model);
  // Integer keys (consecutive: the hardest input for a one-multiply mix). They
  // measure below the model (0.88% here): a multiply spreads consecutive keys
  // over the blocks more evenly than random hashes do, so no block is
  // overfull. Only the upper side is a requirement.
  blocked64_bloom_filter g(10 * n, 6, 0);
  for (std::uint64_t i = 0; i < n; ++i) g.add(i);
  std::size_t int_hits = 0;
  for (std::uint64_t i = 0; i < probes; ++i) int_hits += g.may_contain(n + i);
  const double int_rate = static_cast<double>(int_hits) / probes;
  EXPECT_LE(int_rate, 1.04 * model);
  EXPECT_GT(int_rate, 0.5 * model);  // the probes do run
}

TEST(Blocked64Filter, CopiesAndMovesKeepTheirOwnWords) {
  blocked64_bloom_filter a(4096, 6);
  a.add("one");
  blocked64_bloom_filter b = a;
  b.add("two");
  EXPECT_TRUE(b.may_contain("one"));
  EXPECT_TRUE(b.may_contain("two"));
  EXPECT_FALSE(a.may_contain("two") && a.explain("two") != b.explain("two"));
  EXPECT_NE(a, b);
  blocked64_bloom_filter c = std::move(b);
  EXPECT_TRUE(c.may_contain("two"));
  a = c;
  EXPECT_TRUE(a.may_contain("two"));
  c.clear();
  EXPECT_FALSE(c.may_contain("two"));
  EXPECT_TRUE(a.may_contain("two"));
}

TEST(Blocked64Filter, MergeIntersectAndTheirRefusals) {
  blocked64_bloom_filter a(8192, 6, 5);
  blocked64_bloom_filter b(8192, 6, 5);
  a.add("left");
  b.add("right");
  blocked64_bloom_filter u = a;
  u.merge(b);
  EXPECT_TRUE(u.may_contain("left"));
  EXPECT_TRUE(u.may_contain("right"));
  u.intersect(a);
  EXPECT_TRUE(u.may_contain("left"));
  EXPECT_THROW(u.merge(blocked64_bloom_filter(8192, 6, 6)), std::invalid_argument);
  EXPECT_THROW(u.merge(blocked64_bloom_filter(16384, 6, 5)), std::invalid_argument);
  any_filter x = a;
  any_filter y = blocked_bloom_filter(8192, 6, hash_kind::xxh3, 5);
  EXPECT_THROW(x.merge(y), std::invalid_argument);
}

TEST(Blocked64Filter, StatsExplainAndSizing) {
  auto f = blocked64_bloom_filter::for_capacity(1000, 0.01);
  EXPECT_EQ(f.bits(), bloom_math::blocked_size_for(1000, 0.01).bits);
  EXPECT_EQ(f.hashes(), bloom_math::blocked_size_for(1000, 0.01).hashes);
  for (const auto& k : keys("k", 1000)) f.add(k);
  const filter_stats s = f.stats();
  EXPECT_EQ(s.kind, filter_kind::blocked64);
  EXPECT_EQ(s.items_added, 1000U);
  EXPECT_LT(s.expected_fpr, 0.0125);
  const auto probes = f.explain("k7");
  ASSERT_EQ(probes.size(), f.hashes());
  const std::uint64_t block = f.block_of(f.hash_item("k7"));
  for (const auto& p : probes) {
    EXPECT_EQ(p.value, 1U);
    EXPECT_EQ(p.position / 512, block);
  }
  EXPECT_THROW(blocked64_bloom_filter(0, 6), std::invalid_argument);
  EXPECT_THROW(blocked64_bloom_filter(512, 17), std::invalid_argument);
  filter_spec spec;
  spec.kind = filter_kind::blocked64;
  spec.capacity = 100;
  spec.fpr = 0.01;
  EXPECT_EQ(make_filter(spec).kind(), filter_kind::blocked64);
  spec.hash = hash_kind::sha256;
  EXPECT_THROW((void)make_filter(spec), std::invalid_argument);
  EXPECT_EQ(parse_filter_kind("blocked64"), filter_kind::blocked64);
  EXPECT_EQ(filter_kind_from_code(7), filter_kind::blocked64);
}

// --- files ---------------------------------------------------------------------

// Repairs the checksums of an edited file (version 2: its region and head
// checksums) so that the field checks behind them are reached.
std::string resealed(std::string bytes) {
  if (bytes.size() > 9 && bytes[8] == 2) {
    detail::reseal_filter_bytes(bytes);
    return bytes;
  }
  const std::size_t body = bytes.size() - 8;
  const std::uint64_t sum = xxh3_64(std::string_view(bytes.data(), body), 0);
  for (int i = 0; i < 8; ++i)
    bytes[body + static_cast<std::size_t>(i)] = static_cast<char>(sum >> (8 * i));
  return bytes;
}

TEST(Blocked64File, RoundTripMappedAndStreamedAdd) {
  test::temp_dir dir;
  auto f = blocked64_bloom_filter::for_capacity(5000, 0.01, 9);
  const auto members = keys("m", 3000);
  f.add_many(std::span<const std::string>(members));
  const auto path = dir.file("f.rbf");
  save_filter(path, f);
  const any_filter loaded = load_filter(path);
  EXPECT_TRUE(loaded == any_filter(f));
  const any_filter mapped = open_filter_mapped(path);
  EXPECT_TRUE(mapped.read_only());
  for (const auto& m : members) ASSERT_TRUE(mapped.may_contain(m));
  // In-place streamed add: the same bytes as load, add, serialize.
  std::string bytes = serialize_filter(f);
  const auto more = keys("n", 500);
  std::vector<std::string_view> views(more.begin(), more.end());
  add_to_filter_bytes(bytes, views);
  auto g = f;
  g.add_many(std::span<const std::string>(more));
  EXPECT_TRUE(bytes == serialize_filter(g));
}

TEST(Blocked64File, EveryDamagedByteAndForeignFieldIsRefused) {
  const std::string good = golden("blocked64_xxh3.rbf");
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (unsigned mask : {0x01U, 0x10U, 0x80U, 0xffU}) {
      std::string bad = good;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ mask);
      ASSERT_THROW((void)deserialize_filter(bad), data_error) << "byte " << i << " mask " << mask;
    }
  }
  for (std::size_t n = 0; n < good.size(); ++n) {
    ASSERT_THROW((void)deserialize_filter(std::string_view(good).substr(0, n)), data_error);
  }
  // Valid checksums around invalid fields: another hash, an unknown kind, a
  // size that is not whole blocks.
  std::string sha = good;
  sha[11] = 2;
  try {
    (void)deserialize_filter(resealed(sha));
    ADD_FAILURE() << "a blocked64 file with hash sha256 was accepted";
  } catch (const data_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("blocked64"));
  }
  std::string unknown = good;
  unknown[10] = 9;  // 8 is blocked1024 now, which would read these bits
  EXPECT_THROW((void)deserialize_filter(resealed(unknown)), data_error);
  std::string odd = good;
  odd[64] = static_cast<char>(0xff);  // m = 2047 + ...: not a multiple of 512
  EXPECT_THROW((void)deserialize_filter(resealed(odd)), data_error);
}

// --- the CLI -----------------------------------------------------------------------

TEST(Blocked64Cli, CreateAddCheckInfo) {
  test::temp_dir dir;
  const auto file = dir.file("hot.rbf");
  auto r = test::run_cli({"bloom", "create", file, "--kind", "blocked64", "--capacity", "10000",
                          "--fpr", "0.01", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("blocked64"));
  r = test::run_cli({"bloom", "add", file}, "alpha\nbeta\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"bloom", "check", file, "alpha"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"bloom", "check", file, "gamma"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  r = test::run_cli({"bloom", "check", file}, "alpha\nbeta\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"bloom", "info", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("blocked64"));
  const any_filter f = load_filter(file);
  EXPECT_EQ(f.kind(), filter_kind::blocked64);
  EXPECT_TRUE(f.may_contain("beta"));
  r = test::run_cli({"bloom", "create", dir.file("x.rbf"), "--kind", "blocked64", "--capacity",
                     "10", "--fpr", "0.01", "--hash", "sha256"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("blocked64"));
}

}  // namespace
}  // namespace ringbloom
