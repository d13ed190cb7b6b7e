// `ringbloom bloom ...` end to end: every command and option, exit codes,
// stdin streaming, --json shapes, damaged files and concurrent adders.
//
// Expected positions and counts come from independent sources: the German
// lesson's printed output and its Python (hashlib) code, and lab11's
// hash_str, both run here with python3 (the commands are quoted next to each
// constant). Sizes are checked against the formulas of bloom.hpp, computed in
// the test.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bloom_cli_checks.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::cli_result;
using test::run_cli;
using test::temp_dir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// --- helpers -------------------------------------------------------------------

using test::bloom;
using test::describe;
using test::expect_error;
using test::expect_exit;

json parse_json(const std::string& text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << "not one JSON document:\n" << text;
  return doc;
}

json info(const std::string& file) {
  return parse_json(expect_exit(0, {"info", file, "--json"}).out);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string numbered(const std::string& prefix, int begin, int end) {
  std::string text;
  for (int i = begin; i < end; ++i) text += prefix + std::to_string(i) + "\n";
  return text;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::size_t count_lines_ending(const std::string& text, const std::string& suffix) {
  std::size_t n = 0;
  for (const auto& line : lines_of(text)) {
    if (line.size() >= suffix.size() && line.ends_with(suffix)) ++n;
  }
  return n;
}

/// The lesson's filter: m = 16, k = 2, SHA-256 positions, anna and bora added.
std::string german_filter(const temp_dir& dir, const std::string& kind = "classic") {
  const std::string file = dir.file("lesson.rbf");
  expect_exit(
      0, {"create", file, "--bits", "16", "--hashes", "2", "--kind", kind, "--hash", "sha256"});
  expect_exit(0, {"add", file, "anna", "bora"});
  return file;
}

// --- the lessons, bit for bit ------------------------------------------------------

// The German lesson prints (step 1, m = 16, k = 2):
//   0001100000000001
//   anna [4, 15] vielleicht enthalten
//   cem [5, 3] sicher nicht enthalten
//   user5 [15, 3] vielleicht enthalten
TEST(CliBloomLessons, GermanWalkthroughExplained) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const cli_result r = expect_exit(1, {"check", file, "anna", "cem", "user5", "--explain"});
  EXPECT_EQ(r.out,
            "anna\tmaybe\tpositions 4,15\n"
            "cem\tno\tpositions 5,3 (zero: 5)\n"
            "user5\tmaybe\tpositions 15,3\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliBloomLessons, GermanWalkthroughAsJson) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const json doc = parse_json(
      expect_exit(1, {"check", file, "anna", "cem", "user5", "--explain", "--json"}).out);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 3u);
  EXPECT_EQ(doc[0]["key"], "anna");
  EXPECT_EQ(doc[0]["present"], true);
  EXPECT_EQ(doc[0]["positions"], json::array({4, 15}));
  EXPECT_EQ(doc[0]["values"], json::array({1, 1}));
  EXPECT_EQ(doc[1]["key"], "cem");
  EXPECT_EQ(doc[1]["present"], false);
  EXPECT_EQ(doc[1]["positions"], json::array({5, 3}));
  EXPECT_EQ(doc[1]["values"], json::array({0, 1}));
  EXPECT_EQ(doc[2]["key"], "user5");
  EXPECT_EQ(doc[2]["present"], true);
  EXPECT_EQ(doc[2]["positions"], json::array({15, 3}));
  EXPECT_FALSE(doc[0].contains("layers")) << "layers are for scalable filters";
}

TEST(CliBloomLessons, GermanWalkthroughInfoMatchesTheBitString) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const json doc = info(file);
  // "0001100000000001": bits 3, 4 and 15 are set.
  EXPECT_EQ(doc["kind"], "classic");
  EXPECT_EQ(doc["bits"], 16);
  EXPECT_EQ(doc["hashes"], 2);
  EXPECT_EQ(doc["hash"], "sha256");
  EXPECT_EQ(doc["seed"], 0);
  EXPECT_EQ(doc["items"], 2);
  EXPECT_EQ(doc["bits_set"], 3);
  EXPECT_DOUBLE_EQ(doc["fill_ratio"].get<double>(), 3.0 / 16);
  // A stranger is "maybe" when both its bits are set: (3/16)^2.
  EXPECT_NEAR(doc["expected_fpr"].get<double>(), std::pow(3.0 / 16, 2), 1e-12);
  // Swamidass-Baldi: -(m/k) ln(1 - X/m).
  EXPECT_NEAR(doc["estimated_items"].get<double>(), -(16.0 / 2) * std::log(1 - 3.0 / 16), 1e-9);
  EXPECT_EQ(doc["layers"], 1);
  EXPECT_EQ(doc["size_on_disk"].get<std::uintmax_t>(), fs::file_size(file));
}

// The German exercise: 1000 addresses in m = 8000, k = 7, then 5000 strangers.
// python3: bits from positionen() over f"nutzer{i}@beispiel.de", i < 1000;
// all(bits[p] for p in positionen(f"fremd{i}@beispiel.de", 7, 8000)) is true
// for 123 of the 5000 strangers; 4704 bits are set.
TEST(CliBloomLessons, GermanExerciseThousandAddresses) {
  temp_dir dir;
  const std::string file = dir.file("mail.rbf");
  expect_exit(0, {"create", file, "--bits", "8000", "--hashes", "7", "--kind", "classic", "--hash",
                  "sha256"});
  const std::string added = numbered("nutzer", 0, 1000);
  std::string addresses;
  for (const auto& line : lines_of(added)) addresses += line + "@beispiel.de\n";
  expect_exit(0, {"add", file}, addresses);

  const cli_result all = expect_exit(0, {"check", file}, addresses);
  EXPECT_EQ(count_lines_ending(all.out, "\tmaybe"), 1000u) << "a false negative";

  std::string strangers;
  for (int i = 0; i < 5000; ++i) strangers += "fremd" + std::to_string(i) + "@beispiel.de\n";
  const cli_result probe = expect_exit(1, {"check", file}, strangers);
  EXPECT_EQ(count_lines_ending(probe.out, "\tmaybe"), 123u);
  EXPECT_EQ(count_lines_ending(probe.out, "\tno"), 5000u - 123u);
  EXPECT_EQ(info(file)["bits_set"], 4704);
}

// lab11: position i = hash_str(item, salt=i) % m. python3 with lab11's
// hash_str gives for m = 64, k = 3: anna [33, 18, 3], bora [61, 46, 31],
// кот [29, 12, 59] (code points, not bytes), cem [42, 25, 8].
TEST(CliBloomLessons, Lab11Poly31Positions) {
  temp_dir dir;
  const std::string file = dir.file("lab11.rbf");
  expect_exit(0, {"create", file, "--bits", "64", "--hashes", "3", "--kind", "classic", "--hash",
                  "poly31"});
  expect_exit(0, {"add", file, "anna", "bora", "кот"});
  const cli_result r = expect_exit(1, {"check", file, "anna", "кот", "cem", "--explain"});
  EXPECT_EQ(r.out,
            "anna\tmaybe\tpositions 33,18,3\n"
            "кот\tmaybe\tpositions 29,12,59\n"
            "cem\tno\tpositions 42,25,8 (zero: 42,25,8)\n");
}

// --- create ------------------------------------------------------------------------

TEST(CliBloomCreate, SummaryLineNamesKindSizeAndMemory) {
  temp_dir dir;
  const cli_result r = expect_exit(0, {"create", dir.file("f.rbf"), "--bits", "16", "--hashes", "2",
                                       "--kind", "classic", "--hash", "sha256"});
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("classic"));
  EXPECT_THAT(r.out, HasSubstr("m = 16 bits"));
  EXPECT_THAT(r.out, HasSubstr("k = 2"));
  EXPECT_THAT(r.out, HasSubstr("sha256"));
  EXPECT_THAT(r.out, HasSubstr("memory"));
  EXPECT_TRUE(fs::exists(dir.file("f.rbf")));
}

TEST(CliBloomCreate, DefaultKindIsFastWithXxh3) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  const json doc = parse_json(
      expect_exit(0, {"create", file, "--capacity", "1000", "--fpr", "0.01", "--json"}).out);
  EXPECT_EQ(doc["kind"], "fast");
  EXPECT_EQ(doc["hash"], "xxh3");
  EXPECT_EQ(doc["file"], file);
  EXPECT_EQ(doc["capacity"], 1000);
  EXPECT_DOUBLE_EQ(doc["fpr"].get<double>(), 0.01);
  EXPECT_EQ(doc["bits"].get<std::uint64_t>() % 512, 0u) << "blocked filters are 512-bit blocks";
  EXPECT_GE(doc["hashes"].get<int>(), 1);
  EXPECT_LE(doc["hashes"].get<int>(), 16);
  EXPECT_EQ(doc["memory_bytes"].get<std::uint64_t>(), doc["bits"].get<std::uint64_t>() / 8);
  EXPECT_EQ(doc["file_bytes"].get<std::uintmax_t>(), fs::file_size(file));
  const json i = info(file);
  EXPECT_EQ(i["bits"], doc["bits"]);
  EXPECT_EQ(i["hashes"], doc["hashes"]);
  EXPECT_EQ(i["items"], 0);
  EXPECT_EQ(i["bits_set"], 0);
}

// bloom.hpp: for each k, m_k = ceil(-k n / ln(1 - p^(1/k))); the smallest m_k
// wins. Computed here from the formula, not by the library.
TEST(CliBloomCreate, ClassicCapacitySizingFollowsTheFormula) {
  const double n = 1000;
  const double p = 0.01;
  double best_m = std::numeric_limits<double>::infinity();
  int best_k = 0;
  for (int k = 1; k <= 128; ++k) {
    const double m = std::ceil(-k * n / std::log(1 - std::pow(p, 1.0 / k)));
    if (m < best_m) {
      best_m = m;
      best_k = k;
    }
  }
  ASSERT_EQ(best_k, 7);  // the textbook optimum for 1%
  temp_dir dir;
  const json doc = parse_json(expect_exit(0, {"create", dir.file("c.rbf"), "--capacity", "1000",
                                              "--fpr", "0.01", "--kind", "classic", "--json"})
                                  .out);
  EXPECT_EQ(doc["hashes"], best_k);
  EXPECT_NEAR(doc["bits"].get<double>(), best_m, 1.0);
}

// Filled with its capacity, a filter made for 1% measures near 1%: 20,000
// never-added probes, fixed item names. The rate must stay under the target
// with a 25% margin for the sampling error (sd of the count ~ 14 of ~200).
TEST(CliBloomCreate, CapacityFilterMeasuresNearTheTargetRate) {
  for (const std::string kind : {"blocked", "classic", "counting", "scalable"}) {
    SCOPED_TRACE(kind);
    temp_dir dir;
    const std::string file = dir.file("f.rbf");
    expect_exit(0, {"create", file, "--capacity", "10000", "--fpr", "0.01", "--kind", kind});
    const std::string items = numbered("member-", 0, 10000);
    expect_exit(0, {"add", file}, items);
    const cli_result members = expect_exit(0, {"check", file}, items);
    EXPECT_EQ(count_lines_ending(members.out, "\tmaybe"), 10000u) << "a false negative";
    const cli_result strangers = expect_exit(1, {"check", file}, numbered("stranger-", 0, 20000));
    const double rate = static_cast<double>(count_lines_ending(strangers.out, "\tmaybe")) / 20000.0;
    EXPECT_LE(rate, 0.0125);
    EXPECT_GT(rate, 0.0) << "a Bloom filter at capacity has false positives";
    const double expected = info(file)["expected_fpr"].get<double>();
    EXPECT_GT(expected, 0.0);
    EXPECT_LE(expected, 0.0125);
  }
}

TEST(CliBloomCreate, EveryKindAndHashCanBeCreated) {
  temp_dir dir;
  int n = 0;
  for (const std::string kind : {"blocked", "classic", "counting", "scalable"}) {
    for (const std::string hash : {"xxh3", "sha256", "poly31", "md5"}) {
      SCOPED_TRACE(kind + " " + hash);
      const std::string file = dir.file("f" + std::to_string(n++) + ".rbf");
      const json doc = parse_json(expect_exit(0, {"create", file, "--bits", "4096", "--hashes", "4",
                                                  "--kind", kind, "--hash", hash, "--json"})
                                      .out);
      EXPECT_EQ(doc["kind"], kind);
      EXPECT_EQ(doc["hash"], hash);
      expect_exit(0, {"add", file, "anna", "bora"});
      expect_exit(0, {"check", file, "anna", "bora"});
      const json i = info(file);
      EXPECT_EQ(i["kind"], kind);
      EXPECT_EQ(i["hash"], hash);
      EXPECT_EQ(i["items"], 2);
    }
  }
}

TEST(CliBloomCreate, SeedIsRecordedAndChangesPositions) {
  temp_dir dir;
  expect_exit(
      0, {"create", dir.file("a.rbf"), "--bits", "100000", "--hashes", "4", "--kind", "classic"});
  expect_exit(0, {"create", dir.file("b.rbf"), "--bits", "100000", "--hashes", "4", "--kind",
                  "classic", "--seed", "7"});
  EXPECT_EQ(info(dir.file("b.rbf"))["seed"], 7);
  const json a =
      parse_json(expect_exit(1, {"check", dir.file("a.rbf"), "x", "--explain", "--json"}).out);
  const json b =
      parse_json(expect_exit(1, {"check", dir.file("b.rbf"), "x", "--explain", "--json"}).out);
  EXPECT_NE(a[0]["positions"], b[0]["positions"]);
}

// A user picks a role (default, densest, textbook); the file records, and
// info shows, the kind that plays it.
TEST(CliBloomCreate, RoleNamesMakeTheirKindAndInfoShowsTheKind) {
  temp_dir dir;
  const std::string dense = dir.file("dense.rbf");
  const json made = parse_json(expect_exit(0, {"create", dense, "--kind", "densest", "--capacity",
                                               "1000", "--fpr", "0.01", "--json"})
                                   .out);
  EXPECT_EQ(made["kind"], "blocked1024");
  EXPECT_EQ(made["bits"].get<std::uint64_t>() % 1024, 0u);
  EXPECT_EQ(info(dense)["kind"], "blocked1024");
  EXPECT_THAT(expect_exit(0, {"info", dense}).out, HasSubstr("kind            blocked1024\n"));

  const std::string lesson = dir.file("lesson.rbf");
  expect_exit(0, {"create", lesson, "--kind", "textbook", "--bits", "16", "--hashes", "2", "--hash",
                  "sha256"});
  EXPECT_EQ(info(lesson)["kind"], "classic");
  const std::string plain = dir.file("plain.rbf");
  expect_exit(0, {"create", plain, "--kind", "default", "--capacity", "1000", "--fpr", "0.01"});
  EXPECT_EQ(info(plain)["kind"], "fast");

  // An unknown name is refused with the roles and the kinds to choose from.
  expect_error(
      2,
      {"create", dir.file("bad.rbf"), "--kind", "fastest", "--capacity", "1000", "--fpr", "0.01"},
      "unknown filter kind 'fastest'; choose default (fast), densest (blocked1024) or "
      "textbook (classic), or one of the kinds fast, blocked64");
  EXPECT_FALSE(fs::exists(dir.file("bad.rbf")));
  // The help offers the roles first.
  EXPECT_THAT(expect_exit(0, {"create", "--help"}).out, HasSubstr("A role: default (fast"));
}

TEST(CliBloomCreate, RefusesToOverwriteWithoutForce) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const std::string before = read_bytes(file);
  expect_error(2, {"create", file, "--bits", "1024", "--hashes", "8"}, "--force");
  EXPECT_EQ(read_bytes(file), before) << "the existing filter was touched";

  expect_exit(0,
              {"create", file, "--bits", "1024", "--hashes", "3", "--kind", "classic", "--force"});
  const json doc = info(file);
  EXPECT_EQ(doc["bits"], 1024);
  EXPECT_EQ(doc["items"], 0);
}

TEST(CliBloomCreate, RefusesBadSizesKindsAndHashes) {
  temp_dir dir;
  const std::string f = dir.file("f.rbf");
  expect_error(2, {"create", f}, "--capacity");
  expect_error(2, {"create", f, "--capacity", "100"}, "--fpr");
  expect_error(2, {"create", f, "--fpr", "0.01"}, "--capacity");
  expect_error(2, {"create", f, "--bits", "100"}, "--hashes");
  expect_error(2, {"create", f, "--hashes", "3"}, "--bits");
  expect_error(
      2, {"create", f, "--capacity", "100", "--fpr", "0.01", "--bits", "100", "--hashes", "3"},
      "both");
  expect_error(2, {"create", f, "--capacity", "100", "--fpr", "1.5"}, "1.5");
  expect_error(2, {"create", f, "--capacity", "0", "--fpr", "0.01"}, "apacity");
  expect_error(2, {"create", f, "--bits", "0", "--hashes", "3"}, "bits");
  expect_error(2, {"create", f, "--bits", "100", "--hashes", "0"}, "hashes");
  expect_error(2, {"create", f, "--capacity", "many", "--fpr", "0.01"}, "many");
  expect_error(2, {"create", f, "--bits", "100", "--hashes", "3", "--kind", "cuckoo"}, "blocked");
  expect_error(2, {"create", f, "--bits", "100", "--hashes", "3", "--hash", "crc32"}, "xxh3");
  expect_error(2,
               {"create", f, "--bits", "100", "--hashes", "3", "--kind", "blocked", "--hash",
                "sha256", "--seed", "5"},
               "seed");
  // The default kind (fast) sets 8 or 16 bits per item; another k names the kinds that take it.
  expect_error(2, {"create", f, "--bits", "10000", "--hashes", "7"},
               "not 7; give --hashes 8 or 16, size it by capacity and rate, or choose a kind that "
               "takes 7 hashes (blocked64 takes 1 to 16");
  // The default kind (fast) hashes with xxh3 only; the error names the kind that takes
  // another hash.
  expect_error(2, {"create", f, "--bits", "512", "--hashes", "8", "--hash", "sha256"},
               "use the blocked kind for another hash");
  expect_error(2, {"create"}, "file");
  EXPECT_FALSE(fs::exists(f)) << "a refused create wrote a file";
}

TEST(CliBloomCreate, UnwritableDirectoryIsAnIoError) {
  temp_dir dir;
  expect_error(3, {"create", dir.file("no/such/dir/f.rbf"), "--bits", "512", "--hashes", "8"},
               "no/such/dir");
}

// --- add -----------------------------------------------------------------------------

TEST(CliBloomAdd, ArgumentsAreAddedAndCounted) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  expect_exit(0, {"create", file, "--capacity", "1000", "--fpr", "0.01"});
  const cli_result r = expect_exit(0, {"add", file, "anna", "bora", "cem"});
  EXPECT_THAT(r.out, HasSubstr("added 3 items"));
  EXPECT_EQ(r.err, "");
  const json doc = parse_json(expect_exit(0, {"add", file, "dora", "--json"}).out);
  EXPECT_EQ(doc, (json{{"file", file}, {"added", 1}, {"items", 4}}));
  expect_exit(0, {"check", file, "anna", "bora", "cem", "dora"});
}

// More than two 64k batches from stdin: all present, counted once each, and
// no progress line because stderr is not a terminal here.
TEST(CliBloomAdd, StdinIsStreamedInBatches) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  expect_exit(0, {"create", file, "--capacity", "200000", "--fpr", "0.01"});
  const std::string items = numbered("user:", 0, 150000);
  const cli_result r = expect_exit(0, {"add", file, "--json"}, items);
  EXPECT_EQ(r.err, "") << "progress is only for terminals";
  const json doc = parse_json(r.out);
  EXPECT_EQ(doc["added"], 150000);
  EXPECT_EQ(doc["items"], 150000);
  const cli_result all = expect_exit(0, {"check", file}, items);
  EXPECT_EQ(count_lines_ending(all.out, "\tmaybe"), 150000u);
  EXPECT_EQ(info(file)["items"], 150000);
}

TEST(CliBloomAdd, CrLfLinesAndEmptyInput) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  expect_exit(0, {"create", file, "--bits", "4096", "--hashes", "3", "--kind", "classic"});
  expect_exit(0, {"add", file}, "anna\r\nbora\r\n");
  expect_exit(0, {"check", file, "anna", "bora"});
  const json doc = parse_json(expect_exit(0, {"add", file, "--json"}, "").out);
  EXPECT_EQ(doc["added"], 0);
  EXPECT_EQ(doc["items"], 2);
}

TEST(CliBloomAdd, ItemsThatLookLikeOptionsAfterDoubleDash) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  expect_exit(0, {"create", file, "--bits", "4096", "--hashes", "8"});
  expect_exit(0, {"add", file, "--", "--json", "-x"});
  expect_exit(0, {"check", file, "--", "--json", "-x"});
  EXPECT_EQ(info(file)["items"], 2);
}

// Several processes add their own items to one file at the same time: the
// file lock serialises them, so nothing is lost and the count is the total.
TEST(CliBloomAdd, ConcurrentProcessesLoseNothing) {
  temp_dir dir;
  const std::string file = dir.file("shared.rbf");
  expect_exit(0, {"create", file, "--capacity", "100000", "--fpr", "0.001", "--kind", "classic"});
  constexpr int writers = 4;
  constexpr int runs = 3;
  constexpr int per_run = 400;
  std::vector<std::thread> threads;
  std::vector<std::vector<cli_result>> results(writers);
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int run = 0; run < runs; ++run) {
        const std::string prefix = "w" + std::to_string(w) + "-r" + std::to_string(run) + "-";
        if (run % 2 == 0) {
          results[w].push_back(run_cli({"bloom", "add", file}, numbered(prefix, 0, per_run)));
        } else {
          std::vector<std::string> args{"bloom", "add", file};
          for (const auto& item : lines_of(numbered(prefix, 0, per_run))) args.push_back(item);
          results[w].push_back(run_cli(args));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::string everything;
  for (int w = 0; w < writers; ++w) {
    for (const auto& r : results[w]) EXPECT_EQ(r.exit_code, 0) << describe(r);
    for (int run = 0; run < runs; ++run) {
      everything +=
          numbered("w" + std::to_string(w) + "-r" + std::to_string(run) + "-", 0, per_run);
    }
  }
  const cli_result all = expect_exit(0, {"check", file}, everything);
  EXPECT_EQ(count_lines_ending(all.out, "\tmaybe"),
            static_cast<std::size_t>(writers * runs * per_run));
  EXPECT_EQ(info(file)["items"], writers * runs * per_run);
}

/// Runs the CLI with stderr on a pseudo-terminal (stdout to /dev/null) and
/// returns {exit code, what it wrote to the terminal}.
std::pair<int, std::string> run_with_terminal_stderr(const std::vector<std::string>& args,
                                                     const std::string& stdin_text) {
  int master = -1;
  int slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return {-1, "openpty failed"};
  int in[2];
  if (::pipe(in) != 0) return {-1, "pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, slave, 2);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, master);
  std::vector<std::string> strings{RINGBLOOM_CLI_PATH};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const test::sigpipe_default_in_child attr;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, attr.get(), argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(slave);
  if (spawned != 0) return {-1, "posix_spawn failed"};
  // The progress output is far smaller than the terminal's buffer, so the
  // child never blocks on stderr while we feed its stdin.
  std::size_t written = 0;
  while (written < stdin_text.size()) {
    const ssize_t n = ::write(in[1], stdin_text.data() + written, stdin_text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(in[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string terminal;
  char buffer[4096];
  for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;) {
    terminal.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(master);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, terminal};
}

TEST(CliBloomAdd, ProgressLineOnlyOnATerminalForLargeInput) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  expect_exit(0, {"create", file, "--capacity", "200000", "--fpr", "0.01"});
  const auto [big_exit, big_err] = run_with_terminal_stderr(
      {"bloom", "add", file, "--checkpoint-items", "65536"}, numbered("user:", 0, 150000));
  if (big_exit == -1 && big_err == "openpty failed") GTEST_SKIP() << "no pseudo-terminals here";
  EXPECT_EQ(big_exit, 0) << big_err;
  EXPECT_THAT(big_err, HasSubstr("\r65536 items added"));
  EXPECT_THAT(big_err, HasSubstr("\r131072 items added"));
  EXPECT_THAT(big_err, HasSubstr("\r150000 items added"));
  const auto [small_exit, small_err] =
      run_with_terminal_stderr({"bloom", "add", file}, numbered("small:", 0, 100));
  EXPECT_EQ(small_exit, 0) << small_err;
  EXPECT_EQ(small_err, "") << "no progress line for small input";
  EXPECT_EQ(info(file)["items"], 150100);
}

// --- check -----------------------------------------------------------------------

TEST(CliBloomCheck, ExitCodeSaysWhetherAnyItemIsAbsent) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const cli_result yes = expect_exit(0, {"check", file, "anna", "bora", "user5"});
  EXPECT_EQ(yes.out, "anna\tmaybe\nbora\tmaybe\nuser5\tmaybe\n");
  const cli_result no = expect_exit(1, {"check", file, "cem"});
  EXPECT_EQ(no.out, "cem\tno\n");
  EXPECT_EQ(no.err, "") << "a negative answer is not an error";
}

TEST(CliBloomCheck, StdinIsReadWhenNoItemsAreGiven) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  EXPECT_EQ(expect_exit(1, {"check", file}, "anna\ncem\nuser5\n").out,
            "anna\tmaybe\ncem\tno\nuser5\tmaybe\n");
  EXPECT_EQ(expect_exit(0, {"check", file}, "anna\r\nbora\r\n").out, "anna\tmaybe\nbora\tmaybe\n");
  const cli_result empty = expect_exit(0, {"check", file}, "");
  EXPECT_EQ(empty.out, "");
}

TEST(CliBloomCheck, JsonIsOneDocumentWithKeyAndPresent) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const json doc = parse_json(expect_exit(1, {"check", file, "anna", "cem", "--json"}).out);
  EXPECT_EQ(doc, json::parse(R"([{"key":"anna","present":true},{"key":"cem","present":false}])"))
      << "no positions without --explain";

  const json streamed =
      parse_json(expect_exit(1, {"check", file, "--json"}, "anna\ncem\nbora\n").out);
  ASSERT_TRUE(streamed.is_array());
  ASSERT_EQ(streamed.size(), 3u);
  EXPECT_EQ(streamed[2], (json{{"key", "bora"}, {"present", true}}));

  EXPECT_EQ(parse_json(expect_exit(0, {"check", file, "--json"}, "").out), json::array());
}

TEST(CliBloomCheck, JsonSurvivesItemsThatAreNotUtf8) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const json doc = parse_json(expect_exit(1, {"check", file, "--json"}, "\xff\xfe\n").out);
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["present"], false);
}

// Blocked: k positions, all inside one 512-bit block (blocked_bloom.hpp).
TEST(CliBloomCheck, ExplainBlockedPositionsShareOneBlock) {
  temp_dir dir;
  const std::string file = dir.file("b.rbf");
  expect_exit(0, {"create", file, "--capacity", "100000", "--fpr", "0.01"});
  expect_exit(0, {"add", file, "anna"});
  const json created = info(file);
  const json doc =
      parse_json(expect_exit(1, {"check", file, "anna", "zora", "--explain", "--json"}).out);
  for (const auto& entry : doc) {
    const auto positions = entry["positions"].get<std::vector<std::uint64_t>>();
    ASSERT_EQ(positions.size(), created["hashes"].get<std::size_t>());
    for (const auto p : positions) {
      EXPECT_LT(p, created["bits"].get<std::uint64_t>());
      EXPECT_EQ(p / 512, positions[0] / 512) << "bits of one item left their block";
    }
  }
  EXPECT_EQ(doc[0]["values"], json(std::vector<int>(doc[0]["positions"].size(), 1)));
}

TEST(CliBloomCheck, ExplainTextListsTheZeroBits) {
  temp_dir dir;
  const std::string file = dir.file("b.rbf");
  expect_exit(0, {"create", file, "--bits", "4096", "--hashes", "8"});
  expect_exit(0, {"add", file, "anna"});
  const json doc = parse_json(expect_exit(1, {"check", file, "zora", "--explain", "--json"}).out);
  std::vector<std::string> zeros;
  for (std::size_t i = 0; i < doc[0]["positions"].size(); ++i) {
    if (doc[0]["values"][i] == 0) {
      const std::string p = std::to_string(doc[0]["positions"][i].get<std::uint64_t>());
      if (std::find(zeros.begin(), zeros.end(), p) == zeros.end()) zeros.push_back(p);
    }
  }
  ASSERT_FALSE(zeros.empty());
  std::string expected_zero = " (zero: ";
  for (std::size_t i = 0; i < zeros.size(); ++i) expected_zero += (i ? "," : "") + zeros[i];
  expected_zero += ")\n";
  const cli_result text = expect_exit(1, {"check", file, "zora", "--explain"});
  EXPECT_THAT(text.out, StartsWith("zora\tno\tpositions "));
  EXPECT_TRUE(text.out.ends_with(expected_zero)) << text.out;
}

// --- counting filters and remove ------------------------------------------------

// The lesson's positions with counters: anna [4, 15], bora [3, 15], so
// counter 15 is 2 and counters 3 and 4 are 1.
TEST(CliBloomRemove, CountingFilterForgetsARemovedItem) {
  temp_dir dir;
  const std::string file = german_filter(dir, "counting");
  json doc =
      parse_json(expect_exit(0, {"check", file, "anna", "user5", "--explain", "--json"}).out);
  EXPECT_EQ(doc[0]["positions"], json::array({4, 15}));
  EXPECT_EQ(doc[0]["values"], json::array({1, 2}));
  EXPECT_EQ(doc[1]["values"], json::array({2, 1}));

  const cli_result r = expect_exit(0, {"remove", file, "anna"});
  EXPECT_THAT(r.out, HasSubstr("removed 1 item"));
  EXPECT_EQ(expect_exit(1, {"check", file, "anna", "bora", "--explain"}).out,
            "anna\tno\tpositions 4,15 (zero: 4)\n"
            "bora\tmaybe\tpositions 3,15\n");
  EXPECT_EQ(info(file)["items"], 1);
  EXPECT_EQ(info(file)["bits_set"], 2);
}

TEST(CliBloomRemove, NeverAddedItemIsRefusedAndNothingChanges) {
  temp_dir dir;
  const std::string file = german_filter(dir, "counting");
  const std::string before = read_bytes(file);
  expect_error(2, {"remove", file, "cem"}, "cem");
  EXPECT_EQ(read_bytes(file), before);
  // All or nothing: bora could go, cem cannot, so bora stays.
  expect_error(2, {"remove", file, "bora", "cem"}, "nothing was removed");
  EXPECT_EQ(read_bytes(file), before);
  expect_exit(0, {"check", file, "bora"});
  // Removing twice: the second time counter 4 is already 0.
  expect_exit(0, {"remove", file, "anna"});
  expect_error(2, {"remove", file, "anna"}, "anna");
  EXPECT_EQ(info(file)["items"], 1);
}

TEST(CliBloomRemove, ItemsFromStdinAndJson) {
  temp_dir dir;
  const std::string file = dir.file("c.rbf");
  expect_exit(0, {"create", file, "--capacity", "1000", "--fpr", "0.001", "--kind", "counting"});
  expect_exit(0, {"add", file}, numbered("s", 0, 100));
  const json doc = parse_json(expect_exit(0, {"remove", file, "--json"}, numbered("s", 0, 40)).out);
  EXPECT_EQ(doc, (json{{"file", file}, {"removed", 40}, {"items", 60}}));
  const cli_result kept = expect_exit(0, {"check", file}, numbered("s", 40, 100));
  EXPECT_EQ(count_lines_ending(kept.out, "\tmaybe"), 60u) << "removing others took counts away";
  const cli_result gone = expect_exit(1, {"check", file}, numbered("s", 0, 40));
  EXPECT_GE(count_lines_ending(gone.out, "\tno"), 38u) << "removed items still look present";
}

TEST(CliBloomRemove, OtherKindsAreRefused) {
  for (const std::string kind : {"classic", "blocked", "scalable"}) {
    SCOPED_TRACE(kind);
    temp_dir dir;
    const std::string file = dir.file("f.rbf");
    expect_exit(0, {"create", file, "--bits", "4096", "--hashes", "3", "--kind", kind});
    expect_exit(0, {"add", file, "anna"});
    const std::string before = read_bytes(file);
    expect_error(2, {"remove", file, "anna"}, "counting");
    EXPECT_EQ(read_bytes(file), before);
  }
}

TEST(CliBloomInfo, CountingReportsCountersAndSaturation) {
  temp_dir dir;
  const std::string file = dir.file("c.rbf");
  expect_exit(0, {"create", file, "--bits", "64", "--hashes", "1", "--kind", "counting", "--hash",
                  "sha256"});
  // 20 additions of one item drive its single counter past 15.
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += "x\n";
  expect_exit(0, {"add", file}, twenty);
  const json doc = info(file);
  EXPECT_EQ(doc["kind"], "counting");
  EXPECT_EQ(doc["saturated_counters"], 1);
  EXPECT_EQ(doc["bits_set"], 1);
  EXPECT_EQ(doc["memory_bytes"], 32) << "64 counters of 4 bits";
  const cli_result text = expect_exit(0, {"info", file});
  EXPECT_THAT(text.out, HasSubstr("counters (m)"));
  EXPECT_THAT(text.out, HasSubstr("saturated"));
}

// --- scalable filters ----------------------------------------------------------

TEST(CliBloomScalable, GrowsLayersAndExplainsEachLayer) {
  temp_dir dir;
  const std::string file = dir.file("s.rbf");
  expect_exit(0, {"create", file, "--capacity", "100", "--fpr", "0.01", "--kind", "scalable"});
  const std::string items = numbered("item-", 0, 1000);
  const json added = parse_json(expect_exit(0, {"add", file, "--json"}, items).out);
  EXPECT_EQ(added["added"], 1000);
  const cli_result all = expect_exit(0, {"check", file}, items);
  EXPECT_EQ(count_lines_ending(all.out, "\tmaybe"), 1000u);

  const json doc = info(file);
  EXPECT_EQ(doc["kind"], "scalable");
  // 100 + 200 + 400 < 1000 <= 100 + 200 + 400 + 800: four layers.
  EXPECT_EQ(doc["layers"], 4);
  ASSERT_EQ(doc["layer_details"].size(), 4u);
  EXPECT_EQ(doc["layer_details"][0]["capacity"], 100);
  EXPECT_EQ(doc["layer_details"][1]["capacity"], 200);
  std::uint64_t items_in_layers = 0;
  for (const auto& layer : doc["layer_details"])
    items_in_layers += layer["items"].get<std::uint64_t>();
  EXPECT_EQ(doc["items"].get<std::uint64_t>(), items_in_layers);
  // Duplicates (and false positives) are skipped, so at most 1000.
  EXPECT_LE(items_in_layers, 1000u);
  EXPECT_GE(items_in_layers, 990u);
  EXPECT_EQ(doc["growth"], 2);
  EXPECT_DOUBLE_EQ(doc["tightening"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(doc["target_fpr"].get<double>(), 0.01);

  const json probe =
      parse_json(expect_exit(1, {"check", file, "never-added-item", "--explain", "--json"}).out);
  ASSERT_TRUE(probe[0].contains("layers"));
  EXPECT_EQ(probe[0]["layers"].size(), probe[0]["positions"].size());
  EXPECT_EQ(probe[0]["layers"].front(), 0);
  EXPECT_EQ(probe[0]["layers"].back(), 3);
  const cli_result text = expect_exit(1, {"check", file, "never-added-item", "--explain"});
  EXPECT_THAT(text.out, StartsWith("never-added-item\tno\tlayer 0 positions "));
  EXPECT_THAT(text.out, HasSubstr("; layer 3 positions "));
  const cli_result info_text = expect_exit(0, {"info", file});
  EXPECT_THAT(info_text.out, HasSubstr("layers          4\n"));
  EXPECT_THAT(info_text.out, HasSubstr("  layer 3"));
}

// Two copies of one scalable file filled within the same layers merge; once
// one of them has grown a layer the other lacks, they no longer do.
TEST(CliBloomScalable, MergeNeedsTheSameLayers) {
  temp_dir dir;
  const std::string a = dir.file("a.rbf");
  const std::string b = dir.file("b.rbf");
  const std::string out = dir.file("out.rbf");
  for (const auto& f : {a, b}) {
    expect_exit(0, {"create", f, "--capacity", "1000", "--fpr", "0.01", "--kind", "scalable"});
  }
  expect_exit(0, {"add", a}, numbered("a", 0, 100));
  expect_exit(0, {"add", b}, numbered("b", 0, 100));
  expect_exit(0, {"merge", a, b, "-o", out});
  expect_exit(0, {"check", out}, numbered("a", 0, 100) + numbered("b", 0, 100));
  EXPECT_EQ(info(out)["layers"], 1);

  expect_exit(0, {"add", b}, numbered("more", 0, 2000));
  EXPECT_GT(info(b)["layers"].get<int>(), 1);
  const cli_result r = bloom({"merge", a, b, "-o", dir.file("refused.rbf")});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_FALSE(fs::exists(dir.file("refused.rbf")));
}

// --- info ------------------------------------------------------------------------

TEST(CliBloomInfo, TextShowsEveryStatistic) {
  temp_dir dir;
  const std::string file = german_filter(dir);
  const cli_result r = expect_exit(0, {"info", file});
  EXPECT_THAT(r.out, HasSubstr("kind            classic\n"));
  EXPECT_THAT(r.out, HasSubstr("bits (m)        16\n"));
  EXPECT_THAT(r.out, HasSubstr("hashes (k)      2\n"));
  EXPECT_THAT(r.out, HasSubstr("hash            sha256 (seed 0)\n"));
  EXPECT_THAT(r.out, HasSubstr("items           2\n"));
  EXPECT_THAT(r.out, HasSubstr("bits set        3 of 16 (fill 18.75%)\n"));
  EXPECT_THAT(r.out, HasSubstr("expected fpr    0.03516 (3.516%)\n"));  // (3/16)^2
  EXPECT_THAT(r.out, HasSubstr("estimated items 2 distinct\n"));        // 1.66 rounded
  EXPECT_THAT(r.out,
              HasSubstr("size on disk    " + std::to_string(fs::file_size(file)) + " bytes"));
  EXPECT_THAT(r.out, HasSubstr("layers          1\n"));
}

TEST(CliBloomInfo, FullFilterHasNoEstimate) {
  temp_dir dir;
  const std::string file = dir.file("full.rbf");
  expect_exit(
      0, {"create", file, "--bits", "2", "--hashes", "1", "--kind", "classic", "--hash", "sha256"});
  expect_exit(0, {"add", file}, numbered("k", 0, 50));
  const json doc = info(file);
  EXPECT_EQ(doc["bits_set"], 2);
  EXPECT_TRUE(doc["estimated_items"].is_null()) << "every bit set: no finite estimate";
  EXPECT_DOUBLE_EQ(doc["expected_fpr"].get<double>(), 1.0);
  EXPECT_THAT(expect_exit(0, {"info", file}).out, HasSubstr("every bit is set"));
}

// --- merge -------------------------------------------------------------------------

struct merge_fixture {
  temp_dir dir;
  std::string a = dir.file("a.rbf");
  std::string b = dir.file("b.rbf");
  std::string out = dir.file("out.rbf");

  explicit merge_fixture(const std::string& kind = "classic") {
    for (const auto& f : {a, b}) {
      expect_exit(0, {"create", f, "--bits", "65536", "--hashes", "5", "--kind", kind});
    }
    expect_exit(0, {"add", a}, numbered("common-", 0, 50) + numbered("only-a-", 0, 50));
    expect_exit(0, {"add", b}, numbered("common-", 0, 50) + numbered("only-b-", 0, 30));
  }
};

TEST(CliBloomMerge, UnionHoldsEveryItemOfBoth) {
  for (const std::string kind : {"classic", "blocked", "counting"}) {
    SCOPED_TRACE(kind);
    merge_fixture m(kind);
    const cli_result r = expect_exit(0, {"merge", m.a, m.b, "-o", m.out});
    EXPECT_THAT(r.out, HasSubstr("union"));
    const std::string all =
        numbered("common-", 0, 50) + numbered("only-a-", 0, 50) + numbered("only-b-", 0, 30);
    const cli_result check = expect_exit(0, {"check", m.out}, all);
    EXPECT_EQ(count_lines_ending(check.out, "\tmaybe"), 130u);
    EXPECT_EQ(info(m.out)["items"], 100 + 80) << "a union adds the counts (bloom.hpp)";
    EXPECT_EQ(info(m.out)["kind"], kind);
  }
}

TEST(CliBloomMerge, IntersectionKeepsCommonItems) {
  merge_fixture m;
  const json doc = parse_json(
      expect_exit(0, {"merge", m.a, m.b, "--output", m.out, "--intersect", "--json"}).out);
  EXPECT_EQ(doc["operation"], "intersection");
  EXPECT_EQ(doc["inputs"], json::array({m.a, m.b}));
  EXPECT_EQ(doc["output"], m.out);
  EXPECT_EQ(doc["items"], 80) << "the smaller count (bloom.hpp)";
  EXPECT_EQ(doc["kind"], "classic");
  EXPECT_TRUE(doc.contains("bits_set"));
  EXPECT_TRUE(doc.contains("fill_ratio"));
  EXPECT_TRUE(doc.contains("expected_fpr"));
  const cli_result common = expect_exit(0, {"check", m.out}, numbered("common-", 0, 50));
  EXPECT_EQ(count_lines_ending(common.out, "\tmaybe"), 50u);
  // 100 items in 65536 bits: an item of one side only keeps all 5 bits with
  // probability about (500/65536)^5, so practically every one is gone.
  const cli_result only_a = expect_exit(1, {"check", m.out}, numbered("only-a-", 0, 50));
  EXPECT_GE(count_lines_ending(only_a.out, "\tno"), 49u);
}

TEST(CliBloomMerge, OutputMayBeAnInput) {
  merge_fixture m;
  expect_exit(0, {"merge", m.a, m.b, "-o", m.a});
  expect_exit(0, {"check", m.a}, numbered("only-b-", 0, 30));
  EXPECT_EQ(info(m.a)["items"], 180);
  expect_exit(0, {"merge", m.a, m.b, "-o", m.b, "--intersect"});
  EXPECT_EQ(info(m.b)["items"], 80);
}

TEST(CliBloomMerge, ExistingOutputIsReplacedOnlyWithForce) {
  merge_fixture m;
  write_bytes(m.out, "an old file that is not a filter\n");
  expect_error(2, {"merge", m.a, m.b, "-o", m.out}, "already exists; pass --force");
  EXPECT_EQ(read_bytes(m.out), "an old file that is not a filter\n");
  expect_exit(0, {"merge", m.a, m.b, "-o", m.out, "--force"});
  EXPECT_EQ(info(m.out)["items"], 180);
}

// Merging into A while other processes add to A: the merge runs under A's
// lock, so neither the merged items nor the concurrent additions are lost.
TEST(CliBloomMerge, MergeIntoAnInputKeepsConcurrentAdds) {
  merge_fixture m;
  std::vector<std::thread> threads;
  std::vector<cli_result> results(4);
  threads.emplace_back([&] { results[0] = run_cli({"bloom", "merge", m.a, m.b, "-o", m.a}); });
  for (int w = 1; w < 4; ++w) {
    threads.emplace_back([&, w] {
      results[static_cast<std::size_t>(w)] =
          run_cli({"bloom", "add", m.a}, numbered("late-" + std::to_string(w) + "-", 0, 200));
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r.exit_code, 0) << describe(r);
  const std::string all = numbered("common-", 0, 50) + numbered("only-a-", 0, 50) +
                          numbered("only-b-", 0, 30) + numbered("late-1-", 0, 200) +
                          numbered("late-2-", 0, 200) + numbered("late-3-", 0, 200);
  const cli_result check = expect_exit(0, {"check", m.a}, all);
  EXPECT_EQ(count_lines_ending(check.out, "\tmaybe"), 730u);
  EXPECT_EQ(info(m.a)["items"], 180 + 600);
}

TEST(CliBloomMerge, IncompatibleFiltersAreRefused) {
  temp_dir dir;
  const auto make = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{"create", dir.file(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    expect_exit(0, args);
    return dir.file(name);
  };
  const std::string base =
      make("base.rbf", {"--bits", "4096", "--hashes", "3", "--kind", "classic"});
  const std::string bigger =
      make("bigger.rbf", {"--bits", "8192", "--hashes", "3", "--kind", "classic"});
  const std::string more_k =
      make("more_k.rbf", {"--bits", "4096", "--hashes", "4", "--kind", "classic"});
  const std::string sha =
      make("sha.rbf", {"--bits", "4096", "--hashes", "3", "--kind", "classic", "--hash", "sha256"});
  const std::string seeded =
      make("seeded.rbf", {"--bits", "4096", "--hashes", "3", "--kind", "classic", "--seed", "9"});
  const std::string counting =
      make("counting.rbf", {"--bits", "4096", "--hashes", "3", "--kind", "counting"});
  const std::string out = dir.file("out.rbf");
  for (const auto& other : {bigger, more_k, sha, seeded, counting}) {
    SCOPED_TRACE(other);
    const cli_result r = bloom({"merge", base, other, "-o", out});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_THAT(r.err, StartsWith("ringbloom: error: "));
    EXPECT_FALSE(fs::exists(out)) << "a refused merge wrote its output";
    EXPECT_EQ(bloom({"merge", base, other, "-o", out, "--intersect"}).exit_code, 2);
  }
  // Merging into an input that is refused leaves the input unchanged.
  const std::string before = read_bytes(base);
  EXPECT_EQ(bloom({"merge", base, bigger, "-o", base}).exit_code, 2);
  EXPECT_EQ(read_bytes(base), before);
}

TEST(CliBloomMerge, OutputIsRequired) {
  merge_fixture m;
  expect_error(2, {"merge", m.a, m.b}, "output");
}

// --- damaged, foreign and missing files ---------------------------------------------

std::vector<std::vector<std::string>> every_reader(const std::string& file,
                                                   const std::string& good) {
  return {{"check", file, "anna"},
          {"info", file},
          {"add", file, "anna"},
          {"remove", file, "anna"},
          {"merge", file, good, "-o", file + ".out"},
          {"merge", good, file, "-o", file + ".out"}};
}

class CliBloomBadFile : public ::testing::Test {
 protected:
  void SetUp() override {
    expect_exit(0, {"create", good, "--bits", "8192", "--hashes", "4", "--kind", "counting"});
    expect_exit(0, {"add", good}, numbered("g", 0, 100));
    bytes = read_bytes(good);
    ASSERT_GT(bytes.size(), 1024u);
  }

  /// Every command refuses `file` with exit 3, leaves it as it was, and says
  /// something containing `needle`.
  void expect_refused(const std::string& file, const std::string& needle) {
    const std::string before = read_bytes(file);
    for (const auto& args : every_reader(file, good)) {
      SCOPED_TRACE(args[0]);
      expect_error(3, args, needle);
      EXPECT_EQ(read_bytes(file), before);
      EXPECT_FALSE(fs::exists(file + ".out"));
    }
  }

  temp_dir dir;
  std::string good = dir.file("good.rbf");
  std::string bad = dir.file("bad.rbf");
  std::string bytes;
};

TEST_F(CliBloomBadFile, FlippedPayloadByteFailsTheChecksum) {
  std::string damaged = bytes;
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x10);
  write_bytes(bad, damaged);
  expect_refused(bad, "checksum");
}

TEST_F(CliBloomBadFile, TruncatedFileIsRefused) {
  write_bytes(bad, bytes.substr(0, bytes.size() - 100));
  expect_refused(bad, "bad.rbf");
  write_bytes(bad, bytes.substr(0, 10));
  expect_refused(bad, "bad.rbf");
}

TEST_F(CliBloomBadFile, ForeignAndEmptyFilesAreRefused) {
  write_bytes(bad, "name,email\nanna,anna@example.com\n");
  expect_refused(bad, "bad.rbf");
  write_bytes(bad, "");
  expect_refused(bad, "bad.rbf");
}

TEST_F(CliBloomBadFile, MissingFileIsAnIoError) {
  for (const auto& args : every_reader(dir.file("absent.rbf"), good)) {
    SCOPED_TRACE(args[0]);
    expect_error(3, args, "absent.rbf");
  }
  EXPECT_FALSE(fs::exists(dir.file("absent.rbf"))) << "add must not create a missing filter";
}

// --- help and usage ---------------------------------------------------------------

TEST(CliBloomHelp, EveryCommandHasHelpWithAnExample) {
  for (const std::string verb : {"create", "add", "check", "info", "merge", "remove"}) {
    SCOPED_TRACE(verb);
    const cli_result r = run_cli({"bloom", verb, "--help"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_THAT(r.out, HasSubstr("Example:\n  ringbloom bloom " + verb));
  }
  const cli_result r = run_cli({"bloom", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const std::string verb : {"create", "add", "check", "info", "merge", "remove"}) {
    EXPECT_THAT(r.out, HasSubstr(verb));
  }
}

TEST(CliBloomHelp, UsageErrorsExitTwo) {
  temp_dir dir;
  EXPECT_EQ(run_cli({"bloom"}).exit_code, 2);
  EXPECT_EQ(run_cli({"bloom", "frobnicate"}).exit_code, 2);
  expect_error(2, {"check"}, "file");
  expect_error(2, {"info"}, "file");
  expect_error(2, {"add"}, "file");
  expect_error(2, {"info", dir.file("x"), "--bogus"}, "--bogus");
}

}  // namespace
}  // namespace ringbloom
