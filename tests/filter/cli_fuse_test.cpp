// `ringbloom bloom create --kind fuse8|fuse16|fuse8-4wise --from KEYS` end to end: keys
// from a file and from stdin, check and info on the mapped file, the static
// rule (add and remove refused with exit 2 and a sentence saying to rebuild,
// the file unchanged), wrong option combinations, damaged files (exit 3).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bloom_cli_checks.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "support/cli_run.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::bloom;
using test::cli_result;
using test::describe;
using test::expect_error;
using test::run_cli;
using test::temp_dir;
using ::testing::HasSubstr;

std::string key_lines(const std::string& prefix, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += prefix + std::to_string(i) + "\n";
  return out;
}

/// `bloom create DIR/KIND.rbf --kind KIND --from keys.txt` of user:0 ..
/// user:N-1 and user:7 again (a duplicate is counted once); the file's path.
std::string created_from_user_keys(const temp_dir& dir, const std::string& kind, int n) {
  const std::string keys = dir.file("keys.txt");
  {
    std::ofstream out(keys);
    out << key_lines("user:", n) << "user:7\n";
  }
  const std::string file = dir.file(kind + ".rbf");
  const cli_result made = bloom({"create", file, "--kind", kind, "--from", keys});
  EXPECT_EQ(made.exit_code, 0) << describe(made);
  EXPECT_THAT(made.out, HasSubstr(kind + " filter of " + std::to_string(n) + " distinct keys (" +
                                  std::to_string(n + 1) + " lines read)"));
  return file;
}

/// The key hashes of those lines, the duplicate included.
std::vector<std::uint64_t> user_key_hashes(int n) {
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < n; ++i) {
    hashes.push_back(fuse8_filter::key_hash("user:" + std::to_string(i), 0));
  }
  hashes.push_back(fuse8_filter::key_hash("user:7", 0));
  return hashes;
}

TEST(CliFuse, create_from_a_file_and_from_stdin_then_check_and_info) {
  temp_dir dir;
  const std::string f8 = created_from_user_keys(dir, "fuse8", 5000);

  const std::string f16 = dir.file("f16.rbf");
  const cli_result piped =
      bloom({"create", f16, "--kind", "fuse16", "--from", "-", "--json"}, key_lines("user:", 5000));
  ASSERT_EQ(piped.exit_code, 0) << describe(piped);
  const json doc = json::parse(piped.out);
  EXPECT_EQ(doc["kind"], "fuse16");
  EXPECT_EQ(doc["items"], 5000);
  EXPECT_DOUBLE_EQ(doc["expected_fpr"].get<double>(), 1.0 / 65536);

  for (const std::string& file : {f8, f16}) {
    // Every key present (exit 0), from arguments and from stdin.
    const cli_result all = bloom({"check", file}, key_lines("user:", 5000));
    EXPECT_EQ(all.exit_code, 0) << describe(all);
    EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 5000);
    EXPECT_EQ(all.out.find("\tno"), std::string::npos);
    const cli_result some = bloom({"check", file, "user:1", "nobody-at-all-xyz"});
    if (some.out.find("nobody-at-all-xyz\tno") != std::string::npos) {
      EXPECT_EQ(some.exit_code, 1) << describe(some);
    }
    EXPECT_THAT(some.out, HasSubstr("user:1\tmaybe"));
    const cli_result explained = bloom({"check", file, "user:1", "--explain"});
    EXPECT_THAT(explained.out, HasSubstr("positions "));

    const cli_result shown = bloom({"info", file, "--json"});
    ASSERT_EQ(shown.exit_code, 0) << describe(shown);
    const json info = json::parse(shown.out);
    EXPECT_EQ(info["items"], 5000);
    EXPECT_EQ(info["hashes"], 3);
    EXPECT_EQ(info["static"], true);
    // The library agrees with what info printed.
    const any_filter f = open_filter_mapped(file);
    EXPECT_EQ(info["bits"], f.bits());
    EXPECT_EQ(info["size_on_disk"], fs::file_size(file));
  }
  // The file is the library's build of the same keys, byte for byte.
  EXPECT_TRUE(io::read_file(f8) ==
              serialize_filter(build_fuse_filter(filter_kind::fuse8, user_key_hashes(5000))));
}

TEST(CliFuse, the_four_wise_kind_is_created_checked_and_described) {
  temp_dir dir;
  const std::string file = created_from_user_keys(dir, "fuse8-4wise", 20000);

  const cli_result all = bloom({"check", file}, key_lines("user:", 20000));
  EXPECT_EQ(all.exit_code, 0) << describe(all);
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 20000);
  EXPECT_EQ(all.out.find("\tno"), std::string::npos);
  // 100,000 strangers at 2^-8 expect 391 hits (standard deviation 20); the
  // band is +-25%, five deviations.
  const cli_result strangers = bloom({"check", file}, key_lines("stranger:", 100000));
  const auto present = static_cast<double>(std::count(strangers.out.begin(), strangers.out.end(),
                                                      'y'));  // "maybe" is the only 'y'
  EXPECT_NEAR(present, 100000.0 / 256, 0.25 * 100000.0 / 256);
  const cli_result explained = bloom({"check", file, "user:1", "--explain"});
  EXPECT_THAT(explained.out, HasSubstr("positions "));

  const cli_result shown = bloom({"info", file, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << describe(shown);
  const json info = json::parse(shown.out);
  EXPECT_EQ(info["kind"], "fuse8-4wise");
  EXPECT_EQ(info["items"], 20000);
  EXPECT_EQ(info["hashes"], 4);
  EXPECT_EQ(info["static"], true);
  EXPECT_DOUBLE_EQ(info["expected_fpr"].get<double>(), 1.0 / 256);
  const any_filter f = open_filter_mapped(file);
  EXPECT_EQ(info["bits"], f.bits());
  EXPECT_EQ(info["slots"].get<std::uint64_t>() * 8, f.bits());
  // 20,000 keys: the paper's 4-wise sizing gives 0.77 + 0.305 ln(6e5) /
  // ln(2e4) = 1.18 slots per key, under fuse8's 1.24 at this size.
  EXPECT_LT(info["bits_per_item"].get<double>(), 8 * 1.2);
  const cli_result text = bloom({"info", file});
  EXPECT_THAT(text.out, HasSubstr("fuse8-4wise"));

  EXPECT_TRUE(io::read_file(file) == serialize_filter(build_fuse_filter(filter_kind::fuse8_4wise,
                                                                        user_key_hashes(20000))));
  expect_error(2, {"add", file, "x"}, "--kind fuse8-4wise --from KEYS.txt");
  const cli_result help = bloom({"create", "--help"});
  EXPECT_THAT(help.out, HasSubstr("fuse8-4wise"));
}

TEST(CliFuse, a_static_file_refuses_add_and_remove_with_exit_2_and_is_left_unchanged) {
  temp_dir dir;
  const std::string file = dir.file("f.rbf");
  ASSERT_EQ(
      bloom({"create", file, "--kind", "fuse8", "--from", "-"}, key_lines("k", 100)).exit_code, 0);
  const std::string before = io::read_file(file);
  expect_error(2, {"add", file, "x"}, "bloom create " + file + " --kind fuse8 --from KEYS.txt");
  expect_error(2, {"add", file}, "static", "x\ny\n");
  expect_error(2, {"remove", file, "k1"}, "--kind fuse8 --from KEYS.txt");
  expect_error(2, {"merge", file, file, "-o", dir.file("m.rbf")}, "static");
  EXPECT_EQ(io::read_file(file), before);
  EXPECT_FALSE(fs::exists(dir.file("m.rbf")));
}

TEST(CliFuse, wrong_combinations_and_bad_inputs_are_refused_by_name) {
  temp_dir dir;
  const std::string out = dir.file("f.rbf");
  const std::string keys = dir.file("keys.txt");
  {
    std::ofstream k(keys);
    k << "a\nb\n";
  }
  expect_error(2, {"create", out, "--kind", "fuse8"}, "--from");
  expect_error(2, {"create", out, "--kind", "fuse16", "--from", keys, "--capacity", "5"},
               "--capacity does not apply");
  expect_error(2, {"create", out, "--kind", "fuse8", "--from", keys, "--hash", "sha256"},
               "hashes with xxh3");
  expect_error(2, {"create", out, "--from", keys, "--capacity", "5", "--fpr", "0.1"},
               "--kind fuse8, fuse16 or fuse8-4wise");
  expect_error(3, {"create", out, "--kind", "fuse8", "--from", dir.file("missing")}, "--from");
  expect_error(3, {"create", out, "--kind", "fuse8", "--from", dir.path()}, "directory");
  EXPECT_FALSE(fs::exists(out));
  ASSERT_EQ(bloom({"create", out, "--kind", "fuse8", "--from", keys}).exit_code, 0);
  expect_error(2, {"create", out, "--kind", "fuse8", "--from", keys}, "already exists");
  EXPECT_EQ(bloom({"create", out, "--kind", "fuse8", "--from", keys, "--force"}).exit_code, 0);

  // A damaged file: one flipped fingerprint byte fails the checksum (exit 3).
  std::string bytes = io::read_file(out);
  bytes[130] = static_cast<char>(bytes[130] ^ 1);
  const std::string bad = dir.file("bad.rbf");
  io::write_file_atomic(bad, bytes);
  expect_error(3, {"check", bad, "a"}, "checksum");
  expect_error(3, {"info", bad}, "checksum");
}

}  // namespace
}  // namespace ringbloom
