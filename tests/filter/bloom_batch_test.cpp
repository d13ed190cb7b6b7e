// Batch operations (add_many / may_contain_many) of the blocked and classic
// filters: the same bits, counts and answers as one call per item, across
// chunk boundaries, for every input form; the output contract; errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

std::vector<std::string> make_items(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> items;
  items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) items.push_back("k" + std::to_string(rng() % 1000000007));
  return items;
}

std::vector<std::string_view> views(const std::vector<std::string>& items) {
  return {items.begin(), items.end()};
}

// Sizes around the chunk lengths (16 classic, 64 blocked, prefetch distance 16).
constexpr std::array<std::size_t, 9> sizes = {0, 1, 15, 16, 17, 63, 64, 65, 5000};

TEST(BlockedBatch, AddManyEqualsAddForEveryInputForm) {
  for (std::size_t n : sizes) {
    const auto items = make_items(n, n + 1);
    blocked_bloom_filter one(512 * 40, 8);
    for (const auto& item : items) one.add(item);

    blocked_bloom_filter from_strings(512 * 40, 8);
    from_strings.add_many(std::span<const std::string>(items));
    blocked_bloom_filter from_views(512 * 40, 8);
    const auto v = views(items);
    from_views.add_many(std::span<const std::string_view>(v));
    blocked_bloom_filter from_hashes(512 * 40, 8);
    std::vector<hash128> hashes;
    for (const auto& item : items) hashes.push_back(from_hashes.hash_item(item));
    from_hashes.add_many(std::span<const hash128>(hashes));

    EXPECT_TRUE(from_strings == one) << n;  // same words and items_added
    EXPECT_TRUE(from_views == one) << n;
    EXPECT_TRUE(from_hashes == one) << n;
    EXPECT_EQ(one.items_added(), n);
  }
}

TEST(BlockedBatch, AddManyWorksForEveryHashKind) {
  const auto items = make_items(300, 9);
  for (hash_kind kind : {hash_kind::xxh3, hash_kind::sha256, hash_kind::md5, hash_kind::poly31}) {
    blocked_bloom_filter one(512 * 16, 7, kind);
    for (const auto& item : items) one.add(item);
    blocked_bloom_filter many(512 * 16, 7, kind);
    many.add_many(std::span<const std::string>(items));
    EXPECT_TRUE(many == one) << hash_name(kind);
  }
}

TEST(BlockedBatch, MayContainManyEqualsMayContain) {
  const auto members = make_items(2000, 11);
  blocked_bloom_filter f(512 * 20, 6);  // small: many false positives to compare
  f.add_many(std::span<const std::string>(members));
  for (std::size_t n : sizes) {
    const auto probes = make_items(n, 1000 + n);
    const auto v = views(probes);
    std::vector<hash128> hashes;
    for (const auto& p : probes) hashes.push_back(f.hash_item(p));
    auto a = std::make_unique<bool[]>(n + 1);
    auto b = std::make_unique<bool[]>(n + 1);
    auto c = std::make_unique<bool[]>(n + 1);
    const std::size_t found_a =
        f.may_contain_many(std::span<const std::string>(probes), {a.get(), n});
    const std::size_t found_b =
        f.may_contain_many(std::span<const std::string_view>(v), {b.get(), n});
    const std::size_t found_c = f.may_contain_many(std::span<const hash128>(hashes), {c.get(), n});
    std::size_t expected = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool one = f.may_contain(probes[i]);
      expected += one ? 1 : 0;
      ASSERT_EQ(a[i], one) << n << " " << i;
      ASSERT_EQ(b[i], one) << n << " " << i;
      ASSERT_EQ(c[i], one) << n << " " << i;
    }
    EXPECT_EQ(found_a, expected);
    EXPECT_EQ(found_b, expected);
    EXPECT_EQ(found_c, expected);
  }
}

TEST(BlockedBatch, NoFalseNegativesAndAPlausibleRate) {
  const auto members = make_items(100000, 21);
  auto f = blocked_bloom_filter::for_capacity(members.size(), 0.01);
  f.add_many(std::span<const std::string>(members));
  auto out = std::make_unique<bool[]>(members.size());
  EXPECT_EQ(f.may_contain_many(std::span<const std::string>(members), {out.get(), members.size()}),
            members.size());
  // Strangers: distinct prefix, so none was added. A 1% filter at capacity;
  // the bound allows 15% over the target (STYLE: stated tolerance).
  std::vector<std::string> strangers;
  for (int i = 0; i < 100000; ++i) strangers.push_back("never:" + std::to_string(i));
  const std::size_t fp =
      f.may_contain_many(std::span<const std::string>(strangers), {out.get(), strangers.size()});
  EXPECT_LE(static_cast<double>(fp) / 100000.0, 0.0115);
  EXPECT_GT(fp, 0U);
}

TEST(BlockedBatch, OutputBeyondTheItemsIsLeftAloneAndTooSmallIsRefused) {
  blocked_bloom_filter f(4096, 8);
  f.add("a");
  const std::vector<std::string> probes = {"a", "b"};
  std::array<bool, 4> out = {false, false, true, true};
  EXPECT_EQ(f.may_contain_many(std::span<const std::string>(probes), out),
            f.may_contain("b") ? 2U : 1U);
  EXPECT_TRUE(out[0]);
  EXPECT_TRUE(out[2]);  // untouched
  EXPECT_TRUE(out[3]);
  std::array<bool, 1> small{};
  try {
    (void)f.may_contain_many(std::span<const std::string>(probes), small);
    ADD_FAILURE() << "a too small output span was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "may_contain_many was given 2 items but room for only 1 answers; pass an output "
                 "span with at least one bool per item");
  }
}

TEST(BlockedBatch, ReadOnlyFilterRefusesAddMany) {
  blocked_bloom_filter owned(4096, 8);
  const auto words = owned.words();
  auto keep = std::make_shared<std::vector<std::uint64_t>>(words.begin(), words.end());
  auto view = blocked_bloom_filter::from_words(
      4096, 8, hash_kind::xxh3, 0, 0, detail::word_store::view(keep->data(), keep->size(), keep));
  const std::vector<std::string> items = {"x"};
  EXPECT_THROW(view.add_many(std::span<const std::string>(items)), std::logic_error);
  EXPECT_EQ(view.items_added(), 0U);
}

TEST(ClassicBatch, AddManyAndMayContainManyEqualOneAtATime) {
  for (hash_kind kind : {hash_kind::xxh3, hash_kind::sha256, hash_kind::poly31}) {
    for (std::size_t n : sizes) {
      if (kind != hash_kind::xxh3 && n > 100) continue;  // the slow hashes just loop
      const auto items = make_items(n, 77 + n);
      bloom_filter one(20000, 7, kind);
      for (const auto& item : items) one.add(item);
      bloom_filter many(20000, 7, kind);
      many.add_many(std::span<const std::string>(items));
      EXPECT_TRUE(many == one) << hash_name(kind) << " " << n;
      bloom_filter many_views(20000, 7, kind);
      const auto v = views(items);
      many_views.add_many(std::span<const std::string_view>(v));
      EXPECT_TRUE(many_views == one) << hash_name(kind) << " " << n;

      const auto probes = make_items(n, 5000 + n);
      auto out = std::make_unique<bool[]>(n);
      const std::size_t found =
          one.may_contain_many(std::span<const std::string>(probes), {out.get(), n});
      std::size_t expected = 0;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], one.may_contain(probes[i])) << hash_name(kind) << " " << i;
        expected += out[i] ? 1 : 0;
      }
      EXPECT_EQ(found, expected);
      EXPECT_EQ(one.may_contain_many(std::span<const std::string>(items), {out.get(), n}), n);
    }
  }
}

// add_many sets (and may_contain_many tests) the positions it computed
// while prefetching; they must be add's (may_contain's), for the rule of new filters (mixed) and
// for that of files before version 3 (plain double hashing), at the largest k (the kept positions
// of a chunk fill their buffer) and at m not a multiple of 64.
TEST(ClassicBatch, BatchesUseOneAtATimesPositionsForBothRules) {
  for (const position_rule rule : {position_rule::mixed, position_rule::double_hashing}) {
    for (const std::uint32_t k : {1U, 7U, max_filter_hashes}) {
      for (std::size_t n : sizes) {
        SCOPED_TRACE(std::string(position_rule_name(rule)) + " k " + std::to_string(k) + " n " +
                     std::to_string(n));
        const std::uint64_t m = 40000 + 13;
        const auto empty = [&] {
          return bloom_filter::from_words(
              m, k, hash_kind::xxh3, 9, 0,
              detail::word_store(static_cast<std::size_t>((m + 63) / 64)), rule);
        };
        const auto items = make_items(n, 300 + n);
        bloom_filter one = empty();
        for (const auto& item : items) one.add(item);
        bloom_filter many = empty();
        many.add_many(std::span<const std::string>(items));
        ASSERT_TRUE(many == one);
        EXPECT_EQ(many.items_added(), n);
        // The bits are exactly the union of the items' positions (an
        // independent count: positions() does not go through add).
        std::vector<std::uint64_t> expected((m + 63) / 64, 0);
        for (const auto& item : items) {
          for (const std::uint64_t p : one.positions(item)) expected[p >> 6] |= 1ULL << (p & 63);
        }
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), many.words().begin()));
        // may_contain_many tests the positions it prefetched: may_contain's
        // answers, for strangers and members.
        auto probes = make_items(n, 900 + n);
        probes.insert(probes.end(), items.begin(), items.end());
        auto out = std::make_unique<bool[]>(probes.size());
        const std::size_t found =
            many.may_contain_many(std::span<const std::string>(probes), {out.get(), probes.size()});
        std::size_t expected_found = 0;
        for (std::size_t i = 0; i < probes.size(); ++i) {
          ASSERT_EQ(out[i], one.may_contain(probes[i])) << probes[i];
          expected_found += out[i] ? 1 : 0;
        }
        EXPECT_EQ(found, expected_found);
      }
    }
  }
  // The two rules place the same items differently (the rule is honoured).
  const auto items = make_items(100, 5);
  bloom_filter mixed(40000, 7);
  mixed.add_many(std::span<const std::string>(items));
  bloom_filter old = bloom_filter::from_words(
      40000, 7, hash_kind::xxh3, 0, 0, detail::word_store(625), position_rule::double_hashing);
  old.add_many(std::span<const std::string>(items));
  EXPECT_FALSE(std::equal(mixed.words().begin(), mixed.words().end(), old.words().begin()));
}

TEST(ClassicBatch, TooSmallOutputIsRefused) {
  bloom_filter f(1000, 3);
  const std::vector<std::string_view> probes = {"a", "b", "c"};
  std::array<bool, 2> out{};
  EXPECT_THROW((void)f.may_contain_many(std::span<const std::string_view>(probes), out),
               std::invalid_argument);
}

TEST(CliBatch, AddAndCheckThroughBatchesAgreeWithTheLibrary) {
  // More lines than one check batch (1024) and not a multiple of it, for each
  // kind: blocked and classic take the batch path, counting loops.
  test::temp_dir dir;
  const auto members = make_items(1500, 31);
  const auto probes = make_items(2500, 32);
  std::string add_input;
  for (const auto& m : members) add_input += m + "\n";
  std::string check_input;
  for (const auto& p : probes) check_input += p + "\r\n";  // CRLF is accepted too
  for (const char* kind : {"blocked", "classic", "counting"}) {
    const std::string file = dir.file(std::string(kind) + ".rbf");
    ASSERT_EQ(
        test::run_cli({"bloom", "create", file, "--bits", "8192", "--hashes", "5", "--kind", kind})
            .exit_code,
        0);
    ASSERT_EQ(test::run_cli({"bloom", "add", file}, add_input).exit_code, 0) << kind;
    const any_filter f = load_filter(file);
    EXPECT_EQ(f.items_added(), members.size()) << kind;
    for (const auto& m : members) ASSERT_TRUE(f.may_contain(m)) << kind;

    const auto result = test::run_cli({"bloom", "check", file}, check_input);
    std::string expected;
    bool any_absent = false;
    for (const auto& p : probes) {
      const bool present = f.may_contain(p);
      any_absent = any_absent || !present;
      expected += p + (present ? "\tmaybe\n" : "\tno\n");
    }
    EXPECT_EQ(result.out, expected) << kind;
    EXPECT_EQ(result.exit_code, any_absent ? 1 : 0) << kind;
  }
}

}  // namespace
}  // namespace ringbloom
