// The windowed Bloom filter (windowed_bloom.hpp): no false negatives inside
// the window for both kinds across whole streams (boundaries, bursts, quiet
// hours, times out of order), the rate of strangers and of expired items at
// or below the target, the memory against the blocked filter, the refusals
// with their messages, batches, and the serialized form.
//
// Statistical bounds: with P probes at rate p the count has standard
// deviation sqrt(P p (1 - p)); "at or below p" is checked as measured <= p +
// 3 standard deviations (fixed seeds, so a pass is reproducible).
#include "ringbloom/filter/windowed_bloom.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

std::string item(std::uint64_t i) { return "item:" + std::to_string(i); }
std::string stranger(std::uint64_t i) { return "stranger:" + std::to_string(i); }

double three_sigma_bound(double p, double probes) {
  return p + 3 * std::sqrt(p * (1 - p) / probes);
}

template <class Fn>
void expect_invalid(Fn&& fn, const std::string& says) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one saying '" << says << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr(says));
  }
}

// --- no false negatives ---------------------------------------------------------

// A day of uneven traffic against an hour's window: steady hours, a burst
// of 3x the sized rate in ten minutes, a quiet stretch of two hours with no
// items, arrivals at exact generation boundaries. Every item is queried at
// t + W exactly (the last instant the guarantee covers), and at random
// moments in between, interleaved with the adds in time order.
TEST(WindowedBloom, TimeWindowHasNoFalseNegativesAcrossAnUnevenDay) {
  const double w = 3600;
  const std::uint64_t n = 20'000;
  auto f = windowed_bloom_filter::for_time(w, n, 0.01);
  std::mt19937_64 rng(7);
  std::vector<double> times;
  const double t0 = 1'700'000'000;
  for (int hour = 0; hour < 24; ++hour) {
    if (hour == 9 || hour == 10) continue;  // quiet
    const double per_hour = hour == 14 ? 3.0 * n : 0.8 * n;
    const double span = hour == 14 ? 600 : 3600;
    std::uniform_real_distribution<double> at(0, span);
    for (int i = 0; i < static_cast<int>(per_hour); ++i)
      times.push_back(t0 + hour * 3600 + at(rng));
  }
  // Items exactly on generation boundaries (D = 1200 s) and just before them.
  for (int g = 0; g < 72; ++g) {
    times.push_back(std::floor(t0 / 1200) * 1200 + g * 1200.0);
    times.push_back(std::nextafter(std::floor(t0 / 1200) * 1200 + g * 1200.0, 0.0));
  }
  std::sort(times.begin(), times.end());
  struct event {
    double t;
    int what;  // 0 add, 1 check at t_i + W, 2 check in the middle
    std::uint64_t id;
  };
  std::vector<event> events;
  std::uniform_real_distribution<double> frac(0, 1);
  for (std::uint64_t i = 0; i < times.size(); ++i) {
    events.push_back({times[i], 0, i});
    events.push_back({times[i] + w, 1, i});
    if (i % 7 == 0) events.push_back({times[i] + frac(rng) * w, 2, i});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const event& a, const event& b) { return a.t < b.t; });
  std::uint64_t checks = 0, missing = 0;
  for (const event& e : events) {
    if (e.what == 0) {
      f.add(item(e.id), e.t);
    } else {
      ++checks;
      if (!f.may_contain(item(e.id), e.t)) ++missing;
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << checks << " checks";
  EXPECT_GT(checks, 400'000u);
}

// Adds out of order by up to one window still land in a live generation.
TEST(WindowedBloom, TimesOutOfOrderWithinAWindowAreKept) {
  const double w = 60;
  auto f = windowed_bloom_filter::for_time(w, 10'000, 0.01);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> back(0, w);
  double latest = 1000;
  std::vector<std::pair<std::string, double>> added;
  for (int i = 0; i < 20'000; ++i) {
    latest += 0.01;
    const double t = i % 3 == 0 ? latest - back(rng) : latest;
    f.add(item(i), t);
    added.emplace_back(item(i), t);
  }
  // Every item added at t answers "maybe" up to t + W, as seen from the latest time.
  std::uint64_t missing = 0;
  for (const auto& [x, t] : added) {
    if (t + w >= latest && !f.may_contain(x, t + w)) ++missing;
  }
  EXPECT_EQ(missing, 0u);
}

// The last N insertions always answer "maybe"; checked after every add for
// the oldest one the guarantee covers and for a random one in the window.
TEST(WindowedBloom, CountWindowHasNoFalseNegativesAcrossAStream) {
  const std::uint64_t n = 30'000;
  auto f = windowed_bloom_filter::for_count(n, 0.01);
  std::mt19937_64 rng(11);
  std::uint64_t missing = 0;
  for (std::uint64_t i = 0; i < 300'000; ++i) {
    f.add(item(i));
    const std::uint64_t oldest = i + 1 >= n ? i + 1 - n : 0;
    if (!f.may_contain(item(oldest))) ++missing;
    const std::uint64_t any = oldest + rng() % (i - oldest + 1);
    if (!f.may_contain(item(any))) ++missing;
  }
  EXPECT_EQ(missing, 0u);
}

// --- false positives --------------------------------------------------------------

struct rate_case {
  double p;
  std::uint64_t n;
};

class WindowedRate : public ::testing::TestWithParam<rate_case> {};

// Ten windows of steady traffic sized exactly at N per window; at the end of
// a generation (all four segments full: the worst moment) 10^6 strangers and
// 10^6 items last added more than W (1 + 1/3) ago are queried.
TEST_P(WindowedRate, StrangersAndExpiredItemsPassAtMostAtTheTarget) {
  const auto [p, n] = GetParam();
  const double w = 3600;
  auto f = windowed_bloom_filter::for_time(w, n, p, 5);
  const std::uint64_t per_gen = f.generation_items();
  const double d = w / 3;
  const int gens = 110;
  const std::uint64_t total = per_gen * gens;
  for (std::uint64_t i = 0; i < total; ++i) {
    const auto g = static_cast<double>(i / per_gen);
    const double t = g * d + d * static_cast<double>(i % per_gen) / static_cast<double>(per_gen);
    f.add(item(i), t);
  }
  const double now = gens * d - 1e-3;  // the last instant of the last generation
  EXPECT_EQ(f.overfull_generations(now), 0u);
  const std::uint64_t probes = 1'000'000;
  std::uint64_t strangers = 0;
  for (std::uint64_t i = 0; i < probes; ++i) strangers += f.may_contain(stranger(i), now) ? 1 : 0;
  // Expired: added before now - W (1 + 1/3) = now - 4 D, i.e. in generations < gens - 4.
  std::uint64_t expired = 0, expired_probes = 0;
  for (std::uint64_t i = 0; i < per_gen * (gens - 4) && expired_probes < probes; ++i) {
    ++expired_probes;
    expired += f.may_contain(item(i), now) ? 1 : 0;
  }
  ASSERT_EQ(expired_probes, probes);
  const double rs = static_cast<double>(strangers) / probes;
  const double re = static_cast<double>(expired) / probes;
  const double bound = three_sigma_bound(p, probes);
  EXPECT_LE(rs, bound) << "strangers at p = " << p;
  EXPECT_LE(re, bound) << "expired at p = " << p;
  // The model is not loose either: the measured rate is near what the bits say.
  const double model = f.expected_fpr(now);
  EXPECT_NEAR(rs, model, 4 * std::sqrt(model / probes) + 0.05 * model);
  std::printf("windowed p=%g N=%llu: strangers %.5f%%, expired %.5f%%, bits say %.5f%%\n", p,
              static_cast<unsigned long long>(n), 100 * rs, 100 * re, 100 * model);
}

INSTANTIATE_TEST_SUITE_P(Targets, WindowedRate,
                         ::testing::Values(rate_case{1e-2, 30'000}, rate_case{1e-3, 30'000}));

TEST(WindowedBloom, CountWindowForgetsPastItsSlack) {
  const std::uint64_t n = 30'000;
  const double p = 0.01;
  auto f = windowed_bloom_filter::for_count(n, p, 9);
  const std::uint64_t g = f.generation_items();
  const std::uint64_t total = g * 110;  // end on a full generation
  for (std::uint64_t i = 0; i < total; ++i) f.add(item(i));
  // Items followed by more than 4 G insertions are in cleared generations.
  const std::uint64_t probes = 1'000'000;
  std::uint64_t hits = 0;
  for (std::uint64_t i = 0; i < probes; ++i) hits += f.may_contain(item(i)) ? 1 : 0;
  ASSERT_LE(probes, total - 4 * g);
  EXPECT_LE(static_cast<double>(hits) / probes, three_sigma_bound(p, probes));
}

// --- bursts ------------------------------------------------------------------------

// A generation that receives 3x its share keeps every item (no early shift),
// says so, and its rate rises until it expires; then the rate falls back.
TEST(WindowedBloom, ABurstRaisesTheRateUntilItExpires) {
  const double w = 300;
  const std::uint64_t n = 9'000;
  auto f = windowed_bloom_filter::for_time(w, n, 0.01);
  const std::uint64_t share = f.generation_items();
  for (std::uint64_t i = 0; i < 3 * share; ++i) f.add(item(i), 10 + 1e-3 * static_cast<double>(i));
  EXPECT_EQ(f.overfull_generations(20), 1u);
  for (std::uint64_t i = 0; i < 3 * share; ++i) ASSERT_TRUE(f.may_contain(item(i), 10 + w));
  std::uint64_t hits = 0;
  for (int i = 0; i < 200'000; ++i) hits += f.may_contain(stranger(i), 20) ? 1 : 0;
  const double measured = static_cast<double>(hits) / 200'000.0;
  EXPECT_GT(f.expected_fpr(20), 0.01);
  EXPECT_GT(measured, 0.01);  // one overfull segment alone passes more than p
  EXPECT_NEAR(measured, f.expected_fpr(20), 0.2 * f.expected_fpr(20));
  // Four generations later (W (1 + 1/3)) the burst is forgotten.
  const double later = 10 + w * 4.0 / 3.0 + 1;
  EXPECT_EQ(f.overfull_generations(later), 0u);
  EXPECT_EQ(f.expected_fpr(later), 0.0);
  EXPECT_FALSE(f.may_contain(item(0), later));
  f.add("after", later);
  EXPECT_EQ(f.items_in_window(later), 1u);
}

// --- memory -------------------------------------------------------------------------

// Against the library's blocked filter for N items at the same rate. The
// goal of 1.6x is not met by this design (windowed_bloom.hpp explains why);
// these are the documented ratios, asserted so that a change shows.
TEST(WindowedBloom, MemoryAgainstTheBlockedFilterOfOneWindow) {
  const std::uint64_t n = 1'000'000;
  for (const auto& [p, documented] :
       std::vector<std::pair<double, double>>{{1e-2, 1.81}, {1e-3, 1.72}, {1e-4, 1.69}}) {
    const auto f = windowed_bloom_filter::for_count(n, p);
    const auto blocked = bloom_math::blocked_size_for(n, p);
    const double ratio = static_cast<double>(f.bits()) / static_cast<double>(blocked.bits);
    std::printf("p=%g: windowed %.2f bits/item (k=%u), blocked %.2f: %.3fx\n", p,
                static_cast<double>(f.bits()) / n, f.hashes(),
                static_cast<double>(blocked.bits) / n, ratio);
    EXPECT_LE(ratio, documented + 0.005) << "p = " << p;
    EXPECT_LE(
        windowed_math::fpr(static_cast<double>(f.generation_items()), f.superblocks(), f.hashes()),
        p);
    // One super-block fewer would miss the target: the sizing is the smallest.
    EXPECT_GT(windowed_math::fpr(static_cast<double>(f.generation_items()), f.superblocks() - 1,
                                 f.hashes()),
              p);
  }
}

// --- refusals -----------------------------------------------------------------------

TEST(WindowedBloom, RefusesBadArgumentsWithSentences) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_invalid([] { (void)windowed_bloom_filter::for_time(0, 10, 0.01); },
                 "window of a windowed filter must be a finite number of seconds above 0");
  expect_invalid([&] { (void)windowed_bloom_filter::for_time(nan, 10, 0.01); },
                 "finite number of seconds above 0");
  expect_invalid([] { (void)windowed_bloom_filter::for_time(60, 0, 0.01); },
                 "capacity of at least 1 item per window");
  expect_invalid([] { (void)windowed_bloom_filter::for_count(0, 0.01); },
                 "a count window must hold at least 1 item");
  expect_invalid([] { (void)windowed_bloom_filter::for_count(10, 0); },
                 "must be at least 1e-12 and below 1");
  expect_invalid([] { (void)windowed_bloom_filter::for_count(10, 1); }, "below 1");
  expect_invalid([&] { (void)windowed_bloom_filter::for_count(10, nan); }, "below 1");

  auto f = windowed_bloom_filter::for_time(60, 100, 0.01);
  f.add("a", 1000);
  expect_invalid([&] { f.add("b", 1000 - 61); },
                 "is more than one window (60.000000 s) before the latest time");
  expect_invalid([&] { (void)f.may_contain("b", 1000 - 61); }, "more than one window");
  expect_invalid([&] { f.add("b", nan); }, "must be a finite number of seconds, not nan");
  expect_invalid([&] { f.add("b", inf); }, "finite number of seconds");
  expect_invalid([&] { (void)f.may_contain("b", -inf); }, "finite number of seconds");
  expect_invalid([&] { f.add("b"); }, "this filter has a time window, so pass the time");
  f.add("b", 1000 - 60);  // exactly one window back: accepted
  EXPECT_TRUE(f.may_contain("b", 1000));

  auto c = windowed_bloom_filter::for_count(100, 0.01);
  expect_invalid([&] { c.add("x", 5); }, "this filter has a count window, so call it without");
  std::vector<std::string_view> items{"a", "b"};
  bool one[1];
  expect_invalid([&] { (void)c.may_contain_many(items, 0, std::span<bool>(one, 1)); },
                 "needs an answer slot for every item");
}

// --- batches and determinism --------------------------------------------------------

// may_contain_many has its own AVX2 loop on CPUs that have it (8 positions
// at a time, a second round for k > 8, padding for k not a multiple of 8):
// it must answer as the scalar single calls do for every k, in a filter
// filled to twice its sizing (so that many strangers pass some but not all
// positions), in the steady state, at the start of a new generation and
// after the oldest is forgotten.
TEST(WindowedBloom, BatchedLookupsMatchSingleCallsForEveryK) {
  std::set<std::uint32_t> ks;
  for (const double rate : {0.6, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12}) {
    auto f = windowed_bloom_filter::for_time(300, 500, rate, 7);
    ks.insert(f.hashes());
    std::vector<std::string> keys;
    for (int i = 0; i < 1'000; ++i) keys.push_back(item(i));
    // Twice the sizing: 333 items in each of the first three generations.
    for (int i = 0; i < 1'000; ++i) f.add(keys[static_cast<std::size_t>(i)], 0.3 * i);
    for (int i = 0; i < 1'000; ++i) keys.push_back(stranger(i));
    const std::vector<std::string_view> probe(keys.begin(), keys.end());
    std::unique_ptr<bool[]> out(new bool[probe.size()]);
    for (const double at : {150.0, 300.0, 400.0}) {
      const std::size_t found = f.may_contain_many(probe, at, {out.get(), probe.size()});
      std::size_t expect = 0;
      for (std::size_t i = 0; i < probe.size(); ++i) {
        ASSERT_EQ(out[i], f.may_contain(probe[i], at))
            << "rate " << rate << ", k = " << f.hashes() << ", item " << i << ", at " << at;
        expect += out[i] ? 1 : 0;
      }
      EXPECT_EQ(found, expect);
      EXPECT_GT(found, 0u);
      EXPECT_LT(found, probe.size());
    }
  }
  // Both rounds and the padding are exercised: k below, at and above 8.
  EXPECT_LT(*ks.begin(), 8u);
  EXPECT_TRUE(ks.count(8) == 1 || ks.count(7) == 1);
  EXPECT_GT(*ks.rbegin(), 8u);
}

TEST(WindowedBloom, BatchesMatchSingleCalls) {
  auto one = windowed_bloom_filter::for_time(100, 5'000, 0.001);
  auto many = one;
  std::vector<std::string> keys;
  for (int i = 0; i < 20'000; ++i) keys.push_back(item(i));
  for (int b = 0; b < 20; ++b) {
    const double t = 10.0 * b;
    std::vector<std::string_view> batch;
    for (int i = b * 1000; i < (b + 1) * 1000; ++i) {
      one.add(keys[i], t);
      batch.push_back(keys[i]);
    }
    many.add_many(batch, t);
  }
  EXPECT_TRUE(one == many);
  EXPECT_EQ(one.serialize(), many.serialize());
  std::vector<std::string_view> probe;
  for (int i = 0; i < 40'000; ++i) probe.push_back(i < 20'000 ? std::string_view(keys[i]) : "");
  std::vector<std::string> strangers;
  for (int i = 0; i < 20'000; ++i) strangers.push_back(stranger(i));
  for (int i = 0; i < 20'000; ++i) probe[20'000 + i] = strangers[i];
  std::unique_ptr<bool[]> out(new bool[probe.size()]);
  const std::size_t found =
      many.may_contain_many(probe, 200, std::span<bool>(out.get(), probe.size()));
  std::size_t expect = 0;
  for (std::size_t i = 0; i < probe.size(); ++i) {
    ASSERT_EQ(out[i], many.may_contain(probe[i], 200)) << i;
    expect += out[i] ? 1 : 0;
  }
  EXPECT_EQ(found, expect);

  auto c1 = windowed_bloom_filter::for_count(1'000, 0.01);
  auto c2 = c1;
  std::vector<std::string_view> all(keys.begin(), keys.begin() + 5'000);
  for (auto k : all) c1.add(k);
  c2.add_many(all);
  EXPECT_TRUE(c1 == c2);
}

TEST(WindowedBloom, TestAndAddIsTheDedupPrimitive) {
  auto f = windowed_bloom_filter::for_time(600, 1'000, 0.001);
  EXPECT_FALSE(f.test_and_add("click:u1", 0));
  EXPECT_TRUE(f.test_and_add("click:u1", 300));
  EXPECT_TRUE(f.test_and_add("click:u1", 900));  // 300 + 600: still inside
  // Past W (1 + 1/3) from the last add at 900 the click counts again.
  EXPECT_FALSE(f.test_and_add("click:u1", 900 + 800 + 1));
}

// The hot paths compare the time with the first times of the live
// generations instead of dividing; those bounds must give the generation
// floor(t / D) exactly, on either side of every boundary, for a D that is
// not a binary fraction (0.7 / 3). An item added in generation e answers
// "maybe" through generation e + 3 and is forgotten from e + 4 on (the rate
// is 1e-9, so a false positive here is out of the question), the latest
// generation follows floor(t / D), and the same holds after a round trip
// through the bytes (deserialize rebuilds the bounds).
TEST(WindowedBloom, GenerationBoundariesFollowTheDivisionToTheLastBit) {
  const double w = 0.7;
  const double d = w / 3;
  auto f = windowed_bloom_filter::for_time(w, 1'000, 1e-9);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> times;
  for (int e = 1'000; e < 1'030; ++e) {
    const double b = e * d;
    times.push_back(std::nextafter(std::nextafter(b, -inf), -inf));
    times.push_back(std::nextafter(b, -inf));
    times.push_back(b);
    times.push_back(std::nextafter(b, inf));
    times.push_back(b + d / 2);
  }
  std::sort(times.begin(), times.end());
  const auto gen = [&](double t) { return static_cast<std::int64_t>(std::floor(t / d)); };
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    if (i % 2 == 0) {
      f.add(item(i), t);
    } else {
      EXPECT_FALSE(f.test_and_add(item(i), t)) << "at " << i;
    }
    ASSERT_EQ(f.latest_generation(), gen(t)) << "after the add at " << i;
    if (i % 7 == 3) f = windowed_bloom_filter::deserialize(f.serialize());
    for (std::size_t j = 0; j <= i; ++j) {
      const std::int64_t age = gen(t) - gen(times[j]);
      ASSERT_EQ(f.may_contain(item(j), t), age <= 3) << "item " << j << " asked at " << i;
    }
  }
  // A query just before a generation's first time keeps the generation
  // four back; at that first time it is gone.
  const double last = times.back();
  const double next = static_cast<double>(gen(last) + 1) * d;
  for (std::size_t j = 0; j < times.size(); ++j) {
    const std::int64_t age = gen(last) + 1 - gen(times[j]);
    const double at = gen(next) == gen(last) + 1 ? next : std::nextafter(next, inf);
    EXPECT_EQ(f.may_contain(item(j), at), age <= 3) << "item " << j;
  }
}

// test_and_add reads and sets each word in one pass when the time is in the
// latest generation: its answers and bits equal may_contain then add, for
// every k, in both kinds of window, across generation turns.
TEST(WindowedBloom, TestAndAddEqualsMayContainThenAdd) {
  for (const double p : {0.3, 0.01, 1e-4, 1e-7}) {
    auto one = windowed_bloom_filter::for_time(60, 2'000, p, 5);
    auto two = one;
    auto count_one = windowed_bloom_filter::for_count(2'000, p, 5);
    auto count_two = count_one;
    std::mt19937_64 rng(11);
    double t = 1'000;
    for (int i = 0; i < 12'000; ++i) {
      t += 0.01;
      const std::string x = item(rng() % 4'000);
      const bool expect = two.may_contain(x, t);
      two.add(x, t);
      ASSERT_EQ(one.test_and_add(x, t), expect) << "p " << p << " item " << i;
      const bool count_expect = count_two.may_contain(x);
      count_two.add(x);
      ASSERT_EQ(count_one.test_and_add(x), count_expect) << "p " << p << " item " << i;
    }
    EXPECT_TRUE(one == two) << "p " << p;
    EXPECT_TRUE(count_one == count_two) << "p " << p;
  }
}

// --- serialization ------------------------------------------------------------------

windowed_bloom_filter small_filter() {
  auto f = windowed_bloom_filter::for_time(30, 40, 0.01, 77);
  for (int i = 0; i < 60; ++i) f.add(item(i), 100 + i * 0.5);
  return f;
}

TEST(WindowedBloomFile, RoundTripsBothKinds) {
  const auto f = small_filter();
  const auto back = windowed_bloom_filter::deserialize(f.serialize());
  EXPECT_TRUE(back == f);
  EXPECT_EQ(back.serialize(), f.serialize());
  for (int i = 0; i < 60; ++i) {
    EXPECT_EQ(back.may_contain(item(i), 130), f.may_contain(item(i), 130));
  }
  auto c = windowed_bloom_filter::for_count(25, 0.001, 3);
  for (int i = 0; i < 80; ++i) c.add(item(i));
  auto cb = windowed_bloom_filter::deserialize(c.serialize());
  EXPECT_TRUE(cb == c);
  cb.add("more");
  c.add("more");
  EXPECT_TRUE(cb == c);
  // An empty filter too.
  const auto e = windowed_bloom_filter::for_count(5, 0.1);
  EXPECT_TRUE(windowed_bloom_filter::deserialize(e.serialize()) == e);
}

TEST(WindowedBloomFile, EveryTruncationAndByteFlipIsRefused) {
  const std::string bytes = small_filter().serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW((void)windowed_bloom_filter::deserialize(bytes.substr(0, n)), data_error) << n;
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_THROW((void)windowed_bloom_filter::deserialize(bad), data_error) << i;
  }
}

// Edits with the checksum repaired reach the field checks.
TEST(WindowedBloomFile, FieldEditsAreRefusedWithTheirReason) {
  const std::string bytes = small_filter().serialize();
  const auto edit = [&](std::size_t off, auto value, const std::string& says) {
    std::string bad = bytes;
    auto* p = reinterpret_cast<unsigned char*>(bad.data());
    if constexpr (std::is_same_v<decltype(value), double>) {
      io::store_f64(p + off, value);
    } else {
      io::store_le(p + off, value);
    }
    io::seal(bad);
    try {
      (void)windowed_bloom_filter::deserialize(bad);
      ADD_FAILURE() << "accepted an edit at " << off << "; expected '" << says << "'";
    } catch (const data_error& e) {
      EXPECT_THAT(e.what(), HasSubstr(says));
      EXPECT_THAT(e.what(), HasSubstr("recreate the windowed filter"));
    }
  };
  edit(10, std::uint8_t{3}, "unknown window kind 3");
  edit(11, std::uint8_t{5}, "generations");
  edit(12, std::uint32_t{0}, "outside 1..16");
  edit(12, std::uint32_t{17}, "outside 1..16");
  edit(24, std::uint64_t{2}, "does not match its 2 super-blocks");
  edit(24, std::uint64_t{0}, "super-blocks 0");
  edit(40, std::numeric_limits<double>::quiet_NaN(), "window is not a number above 0");
  edit(48, std::uint64_t{0}, "capacity is 0");
  edit(56, 1.5, "target rate");
  edit(64, std::uint64_t{12345}, "latest generation does not match the latest time");
  edit(72, std::numeric_limits<double>::infinity(), "latest time is not a finite number");
  edit(80, std::uint64_t{3}, "more items than were added");
  edit(120, std::uint8_t{1}, "reserved bytes are not zero");
  edit(10, std::uint8_t{2}, "count window's length differs");
  // Bits in a segment that holds no items.
  {
    auto f = windowed_bloom_filter::for_time(30, 40, 0.01, 77);
    f.add("x", 0);  // one segment used
    std::string b = f.serialize();
    auto* p = reinterpret_cast<unsigned char*>(b.data());
    // Find an empty slot and set its bit in the first nibble of super-block 0.
    for (int s = 0; s < 4; ++s) {
      if (io::load_le<std::uint64_t>(p + 88 + 8 * s) == 0) {
        p[128] |= static_cast<unsigned char>(1u << s);
        break;
      }
    }
    io::seal(b);
    EXPECT_THROW((void)windowed_bloom_filter::deserialize(b), data_error);
  }
}

}  // namespace
}  // namespace ringbloom
