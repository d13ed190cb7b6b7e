// `ringbloom bloom` on windowed filters end to end: create --window and
// --window-items, add / check / info with --at and with the clock, dedup
// (one run, across runs with a state file, times from a field), and hostile
// command lines. Every number compared comes from the library (load_windowed)
// or from an exact set computed here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bloom_cli_checks.hpp"
#include "ringbloom/filter/windowed_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

using json = nlohmann::json;
using test::cli_result;
using test::temp_dir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using test::bloom;
using test::describe;
using test::expect_error;
using test::expect_exit;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

double clock_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TEST(WindowedCli, TimeWindowCreateAddCheckInfo) {
  const temp_dir dir;
  const std::string file = dir.file("clicks.rbw");
  const json created = json::parse(expect_exit(0, {"create", file, "--window", "60", "--capacity",
                                                   "1000", "--fpr", "0.01", "--json"})
                                       .out);
  const windowed_bloom_filter fresh = load_windowed(file);
  EXPECT_EQ(created["kind"], "windowed");
  EXPECT_EQ(created["window_kind"], "time");
  EXPECT_EQ(created["window"], 60.0);
  EXPECT_EQ(created["hashes"], fresh.hashes());
  EXPECT_EQ(created["memory_bytes"], fresh.memory_bytes());
  EXPECT_TRUE(fresh == windowed_bloom_filter::for_time(60, 1000, 0.01));

  expect_exit(0, {"add", file, "anna", "bora", "--at", "1000"});
  EXPECT_EQ(expect_exit(0, {"check", file, "anna", "bora", "--at", "1060"}).out,
            "anna\tmaybe\nbora\tmaybe\n");
  // Past W (1 + 1/3) = 80 s both are forgotten; a stranger is absent now.
  EXPECT_EQ(expect_exit(1, {"check", file, "anna", "--at", "1081"}).out, "anna\tno\n");
  EXPECT_EQ(expect_exit(1, {"check", file, "cem", "--at", "1001"}).out, "cem\tno\n");
  // Streamed from stdin at one --at, JSON answers.
  expect_exit(0, {"add", file, "--at", "1010"}, "x1\nx2\nx3\n");
  const json answers =
      json::parse(expect_exit(0, {"check", file, "--at", "1020", "--json"}, "x1\nx3\n").out);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1]["present"], true);

  const json info = json::parse(expect_exit(0, {"info", file, "--at", "1020", "--json"}).out);
  const windowed_bloom_filter f = load_windowed(file);
  EXPECT_EQ(info["items_added"], 5u);
  EXPECT_EQ(info["items_in_window"], f.items_in_window(1020));
  EXPECT_DOUBLE_EQ(info["expected_fpr"].get<double>(), f.expected_fpr(1020));
  EXPECT_EQ(info["overfull_generations"], 0u);
  EXPECT_EQ(info["latest_time"], 1010.0);
  const std::string text = expect_exit(0, {"info", file, "--at", "1020"}).out;
  EXPECT_THAT(text, HasSubstr("windowed, by time"));
  EXPECT_THAT(text, HasSubstr("forgotten 60 to 80 s after"));
}

TEST(WindowedCli, AddWithoutAtReadsTheClock) {
  const temp_dir dir;
  const std::string file = dir.file("w.rbw");
  expect_exit(0, {"create", file, "--window", "3600", "--capacity", "100", "--fpr", "0.01"});
  const double before = clock_now();
  expect_exit(0, {"add", file, "now-item"});
  expect_exit(0, {"add", file}, "streamed-1\nstreamed-2\n");
  const double after = clock_now();
  const windowed_bloom_filter f = load_windowed(file);
  EXPECT_GE(f.latest_time(), before);
  EXPECT_LE(f.latest_time(), after);
  EXPECT_EQ(expect_exit(0, {"check", file, "now-item", "streamed-2"}).out,
            "now-item\tmaybe\nstreamed-2\tmaybe\n");
}

TEST(WindowedCli, CountWindowForgetsOldInsertions) {
  const temp_dir dir;
  const std::string file = dir.file("recent.rbw");
  expect_exit(0, {"create", file, "--window-items", "30", "--fpr", "0.01"});
  std::string in;
  for (int i = 0; i < 200; ++i) in += "n" + std::to_string(i) + "\n";
  const json added = json::parse(expect_exit(0, {"add", file, "--json"}, in).out);
  EXPECT_EQ(added["added"], 200u);
  EXPECT_EQ(added["items"], 200u);
  std::string recent;
  for (int i = 170; i < 200; ++i) recent += "n" + std::to_string(i) + "\n";
  EXPECT_EQ(bloom({"check", file}, recent).out.find("\tno"), std::string::npos);
  // n0..n99 were followed by at least 100 > 4 x 10 insertions: forgotten,
  // but for the rate of 1% (at most 2 of 100 allowed here).
  std::string old;
  for (int i = 0; i < 100; ++i) old += "n" + std::to_string(i) + "\n";
  const std::string out = bloom({"check", file}, old).out;
  int maybe = 0;
  for (const auto& line : lines_of(out)) maybe += line.ends_with("\tmaybe") ? 1 : 0;
  EXPECT_LE(maybe, 2) << out;
  expect_error(2, {"check", file, "n1", "--at", "5"}, "count window");
  expect_error(2, {"add", file, "n1", "--at", "5"}, "count window");
}

TEST(WindowedCli, DedupPrintsFirstSightingsOnly) {
  std::string in;
  std::vector<std::string> all;
  for (int i = 0; i < 3000; ++i) {
    all.push_back("event-" + std::to_string((i * 7919) % 1000));
    in += all.back() + "\n";
  }
  const cli_result r = expect_exit(0, {"dedup", "--window-items", "10000"}, in);
  // The exact answer: each distinct line once, at its first sighting.
  std::vector<std::string> exact;
  std::set<std::string> seen;
  for (const auto& line : all) {
    if (seen.insert(line).second) exact.push_back(line);
  }
  const std::vector<std::string> got = lines_of(r.out);
  // A false positive drops a new line (rate 1% at a full window; this one is
  // a tenth full): never a line twice, never a line out of order.
  EXPECT_LE(exact.size() - got.size(), 10u);
  std::size_t j = 0;
  for (const auto& line : got) {
    while (j < exact.size() && exact[j] != line) ++j;
    ASSERT_LT(j, exact.size()) << "printed a line that was not a first sighting: " << line;
    ++j;
  }
}

TEST(WindowedCli, DedupKeepsStateAcrossRunsAndForgets) {
  const temp_dir dir;
  const std::string state = dir.file("state.rbw");
  std::string first;
  for (int i = 0; i < 50; ++i) first += "u" + std::to_string(i) + "\n";
  EXPECT_EQ(lines_of(expect_exit(0, {"dedup", state, "--window-items", "100"}, first).out).size(),
            50u);
  // Second run, same lines: the file remembers them (options come from it).
  EXPECT_EQ(expect_exit(0, {"dedup", state}, first).out, "");
  EXPECT_EQ(load_windowed(state).items_added(), 100u);
  // 500 other lines later, u0..u49 are past the window: printed again.
  std::string other;
  for (int i = 0; i < 500; ++i) other += "v" + std::to_string(i) + "\n";
  (void)expect_exit(0, {"dedup", state}, other);
  EXPECT_GE(lines_of(expect_exit(0, {"dedup", state}, first).out).size(), 49u);
  expect_error(2, {"dedup", state, "--window-items", "200"}, "not the one the options describe");
}

TEST(WindowedCli, DedupTakesTimesFromAField) {
  // key<TAB>time<TAB>rest: the field is removed from what is compared.
  const std::string in =
      "a\t1000\tx\n"
      "a\t1010\tx\n"    // seen 10 s ago: dropped
      "b\t1020\tx\n"    // new
      "a\t1010.5\ty\n"  // a different line once the time is removed
      "b\t1100.5\tx\n"  // 80.5 s after b, past W (1 + 1/3) = 80 s: forgotten, printed
      "a\t1200\tx\n";   // 190 s after a: printed
  const cli_result r =
      expect_exit(0, {"dedup", "--window", "60", "--capacity", "100", "--at-field", "2"}, in);
  EXPECT_EQ(r.out, "a\t1000\tx\nb\t1020\tx\na\t1010.5\ty\nb\t1100.5\tx\na\t1200\tx\n");
  // First and last field.
  EXPECT_EQ(expect_exit(0, {"dedup", "--window", "60", "--capacity", "100", "--at-field", "1"},
                        "1000\tk\n1001\tk\n")
                .out,
            "1000\tk\n");
  EXPECT_EQ(expect_exit(0, {"dedup", "--window", "60", "--capacity", "100", "--at-field", "2"},
                        "k\t1000\nk\t1001\n")
                .out,
            "k\t1000\n");
}

TEST(WindowedCli, DedupBadFieldStopsAfterTheGoodLines) {
  const temp_dir dir;
  const std::string state = dir.file("s.rbw");
  const cli_result r =
      bloom({"dedup", state, "--window", "60", "--capacity", "100", "--at-field", "1"},
            "1000\ta\n1001\tb\nnoon\tc\n1002\td\n");
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_THAT(r.err, HasSubstr("line 3"));
  EXPECT_THAT(r.err, HasSubstr("'noon'"));
  EXPECT_EQ(r.out, "1000\ta\n1001\tb\n");
  // The state holds exactly the lines printed.
  const windowed_bloom_filter f = load_windowed(state);
  EXPECT_EQ(f.items_added(), 2u);
  EXPECT_TRUE(f.may_contain("b", 1001));
  expect_error(3, {"dedup", "--window", "60", "--capacity", "10", "--at-field", "3"}, "field 3",
               "a\tb\n");
}

TEST(WindowedCli, HostileCommandLines) {
  const temp_dir dir;
  const std::string w = dir.file("w.rbw");
  const std::string b = dir.file("b.rbf");
  expect_error(2, {"create", w, "--window", "0", "--capacity", "10", "--fpr", "0.01"}, "--window");
  expect_error(2, {"create", w, "--window", "-5", "--capacity", "10", "--fpr", "0.01"}, "--window");
  expect_error(2, {"create", w, "--window", "nan", "--capacity", "10", "--fpr", "0.01"},
               "--window");
  expect_error(
      2,
      {"create", w, "--window", "60", "--window-items", "10", "--capacity", "10", "--fpr", "0.01"},
      "both");
  expect_error(2, {"create", w, "--window", "60", "--fpr", "0.01"}, "--capacity");
  expect_error(2, {"create", w, "--window-items", "10", "--capacity", "5", "--fpr", "0.01"},
               "--capacity does not apply");
  expect_error(2, {"create", w, "--window", "60", "--capacity", "10"}, "--fpr");
  expect_error(
      2, {"create", w, "--window", "60", "--capacity", "10", "--fpr", "0.01", "--bits", "512"},
      "--bits");
  expect_error(2, {"create", w, "--window-items", "10", "--fpr", "0.01", "--kind", "blocked64"},
               "--kind");
  expect_error(2, {"create", w, "--window-items", "10", "--fpr", "0.01", "--hash", "sha256"},
               "xxh3");
  expect_error(2, {"create", w, "--window-items", "0", "--fpr", "0.01"}, "--window-items");
  EXPECT_FALSE(std::filesystem::exists(w));

  expect_exit(0, {"create", w, "--window", "60", "--capacity", "10", "--fpr", "0.01"});
  expect_error(2, {"create", w, "--window", "60", "--capacity", "10", "--fpr", "0.01"},
               "already exists");
  for (const char* at : {"abc", "nan", "-1", "1e300", "12s"}) {
    expect_error(2, {"add", w, "x", "--at", at}, "--at");
  }
  expect_exit(0, {"add", w, "x", "--at", "1000"});
  const std::string before = io::read_file(w);
  expect_error(2, {"add", w, "y", "--at", "939"}, "more than one window");
  expect_error(2, {"add", w, "--at", "939"}, "more than one window", "y\nz\n");
  EXPECT_EQ(io::read_file(w), before);  // nothing was added
  expect_error(2, {"check", w, "x", "--at", "900"}, "more than one window");
  expect_error(2, {"check", w, "x", "--at", "1000", "--explain"}, "--explain");

  expect_exit(0, {"create", b, "--capacity", "100", "--fpr", "0.01"});
  expect_error(2, {"add", b, "x", "--at", "1000"}, "--at is for windowed filters");
  expect_error(2, {"check", b, "x", "--at", "1000"}, "--at is for windowed filters");
  expect_error(2, {"dedup"}, "needs a window", "a\n");
  expect_error(2, {"dedup", "--window-items", "10", "--at-field", "1"}, "time field", "1\ta\n");
  expect_error(2, {"dedup", "--window", "60"}, "--capacity", "a\n");
  expect_error(3, {"dedup", b}, "windowed filter", "a\n");  // a Bloom filter file is no state

  std::string damaged = before;
  damaged[150] = static_cast<char>(damaged[150] ^ 4);
  io::write_file_atomic(w, damaged);
  expect_error(3, {"check", w, "x", "--at", "1000"}, "checksum");
  expect_error(3, {"info", w}, "checksum");
  expect_error(3, {"add", w, "x", "--at", "1000"}, "checksum");
}

}  // namespace
}  // namespace ringbloom
