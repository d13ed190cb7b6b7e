// Quantile files: golden bytes from tests/quantile/quantile_golden.py, round
// trips that go on as the saved sketch would, and damaged files refused.
#include "ringbloom/quantile/quantile_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "quantile/stream_helpers.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"
#include "support/cli_run.hpp"

namespace {

using namespace ringbloom;

const std::filesystem::path data_dir =
    std::filesystem::path(RINGBLOOM_SOURCE_DIR) / "tests/quantile/data";

std::string golden(const std::string& name) { return io::read_file(data_dir / name); }

tdigest golden_tdigest() {
  tdigest td(100);
  for (int i = 0; i < 20; ++i) td.add((i * 7 % 20) * 1.5);
  return td;
}

TEST(QuantileFile, TDigestMatchesTheGoldenFiles) {
  tdigest td = golden_tdigest();
  EXPECT_EQ(serialize_quantile(td), golden("tdigest_c100_buffered.rbq"));
  td.compress();
  EXPECT_EQ(serialize_quantile(td), golden("tdigest_c100_compressed.rbq"));
  const auto back = std::get<tdigest>(deserialize_quantile(golden("tdigest_c100_compressed.rbq")));
  EXPECT_EQ(back.quantile(0.5), td.quantile(0.5));
  EXPECT_EQ(back.sum(), td.sum());
}

TEST(QuantileFile, KllMatchesTheGoldenFile) {
  kll_sketch s(8, 5);
  for (int i = 0; i < 40; ++i) s.add(i * 13 % 40);
  EXPECT_GT(s.levels(), 1u);  // the file pins compactions, not only a buffer
  EXPECT_EQ(serialize_quantile(s), golden("kll_k8_seed5_40.rbq"));
}

TEST(QuantileFile, RoundTripsGoOnAsTheSavedSketch) {
  const auto xs = quantile_test::stream("normal", 30000, 9);
  tdigest td(50);
  kll_sketch k(64, 3);
  for (std::size_t i = 0; i < 20000; ++i) {
    td.add(xs[i]);
    k.add(xs[i]);
  }
  auto td2 = std::get<tdigest>(deserialize_quantile(serialize_quantile(td)));
  auto k2 = std::get<kll_sketch>(deserialize_quantile(serialize_quantile(k)));
  for (std::size_t i = 20000; i < xs.size(); ++i) {
    td.add(xs[i]);
    td2.add(xs[i]);
    k.add(xs[i]);
    k2.add(xs[i]);
  }
  EXPECT_EQ(serialize_quantile(td), serialize_quantile(td2));
  EXPECT_EQ(serialize_quantile(k), serialize_quantile(k2));
}

TEST(QuantileFile, DamageIsRefused) {
  for (const char* name :
       {"tdigest_c100_buffered.rbq", "tdigest_c100_compressed.rbq", "kll_k8_seed5_40.rbq"}) {
    const std::string good = golden(name);
    // Every single flipped byte is caught (the checksum, or a field first).
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ 0x40);
      EXPECT_THROW((void)deserialize_quantile(bad), data_error) << name << " byte " << i;
    }
    EXPECT_THROW((void)deserialize_quantile(good.substr(0, good.size() - 1)), data_error);
    EXPECT_THROW((void)deserialize_quantile(good.substr(0, 70)), data_error);
  }
}

// A file whose checksum is right but whose content is inconsistent (resealed
// after the edit) is refused by the field checks, with a sentence.
TEST(QuantileFile, ResealedInconsistenciesAreRefused) {
  const auto expect_refused = [](std::string bytes, std::size_t at, unsigned char v,
                                 const char* part) {
    bytes[at] = static_cast<char>(v);
    io::seal(bytes);
    try {
      (void)deserialize_quantile(bytes);
      ADD_FAILURE() << "accepted a change at " << at;
    } catch (const data_error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  const std::string td = golden("tdigest_c100_compressed.rbq");
  expect_refused(td, 10, 9, "unknown sketch kind 9");
  expect_refused(td, 40, 200, "too short for 200 t-digest nodes");
  expect_refused(td, 128 + 16 + 8, 0, "weight");  // a node of weight 0
  expect_refused(td, 128 + 7, 0x7f, "");          // a mean far beyond max
  const std::string k = golden("kll_k8_seed5_40.rbq");
  expect_refused(k, 40, 41, "weigh");  // n no longer matches the levels
  expect_refused(k, 12, 4, "k = 4");
}

TEST(QuantileFile, SaveLoadUpdateAndKindMismatch) {
  test::temp_dir dir;
  const auto path = dir / "lat.rbq";
  save_quantile(path, tdigest(100));
  update_quantile_file(path, [](any_quantile& q) { std::get<tdigest>(q).add(3.5); });
  EXPECT_EQ(load_quantile_as<tdigest>(path).count(), 1u);
  try {
    (void)load_quantile_as<kll_sketch>(path);
    FAIL();
  } catch (const data_error& e) {
    EXPECT_EQ(std::string(e.what()), path.string() +
                                         ": the file holds a t-digest, not a KLL sketch; use a "
                                         "KLL sketch file");
  }
}

}  // namespace
