// Hostile input to `ringbloom cuckoo ...`: each row is a command a
// script, a typo or an attacker could produce, and must be refused with the
// exit code, one sentence naming the option or file, nothing written, and
// bounded memory and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/filter/cuckoo.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void sub_directory(const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }
void fifo(const std::string& dir) { ::mkfifo((dir + "/pipe").c_str(), 0644); }

// DIR/f.cf: a small cuckoo filter holding "a"; DIR/full.cf: one that may not
// grow and is full.
void filters(const std::string& dir) {
  cuckoo_filter f(100);
  f.add("a");
  save_cuckoo(dir + "/f.cf", f);
  cuckoo_filter::options fixed;
  fixed.expansion = 0;
  cuckoo_filter full(4, fixed);
  for (int i = 0; i < 100 && full.add("item" + std::to_string(i));) ++i;
  save_cuckoo(dir + "/full.cf", full);
}

// DIR/grow.cf: 1 bucket of 4 16-bit slots, growing 32768-fold: its second
// sub-filter has 131,072 slots, its third would take 8 GiB.
void growing_filter(const std::string& dir) {
  cuckoo_filter::options o;
  o.bucket_size = 4;
  o.fingerprint_bits = 16;
  o.expansion = 32768;
  save_cuckoo(dir + "/grow.cf", cuckoo_filter(4, o));
}

std::vector<std::string> create(std::vector<std::string> options) {
  std::vector<std::string> args{"cuckoo", "create", "{dir}/new.cf"};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

// `cuckoo add DIR/grow.cf` with `n` items as arguments (one batch).
std::vector<std::string> add_many(int n = 140000) {
  std::vector<std::string> args{"cuckoo", "add", "{dir}/grow.cf"};
  for (int i = 0; i < n; ++i) args.push_back(std::to_string(i));
  return args;
}

const std::string long_line(17u << 20, 'x');  // one line over the 16 MiB cap

const std::vector<hostile_case> cases = {
    {"capacity_1e15_exponent", create({"--capacity", "1e15"}), 2, {"--capacity", "'1e15'"}},
    {"capacity_1e15_larger_than_2_to_40_buckets",
     create({"--capacity", "1000000000000000"}),
     2,
     {"1000000000000000", "2^40"}},
    {"capacity_larger_than_memory",
     create({"--capacity", "1000000000000", "--fingerprint-bits", "16"}),
     2,
     {"--capacity 1000000000000", "of memory"}},
    {"capacity_negative", create({"--capacity", "-5"}), 2, {"--capacity", "'-5'", "from 1 to"}},
    {"capacity_zero", create({"--capacity", "0"}), 2, {"--capacity", "'0'"}},
    {"bucket_size_256",
     create({"--capacity", "100", "--bucket-size", "256"}),
     2,
     {"--bucket-size", "'256'"}},
    {"bucket_size_huge",
     create({"--capacity", "100", "--bucket-size", "4294967298"}),
     2,
     {"--bucket-size", "'4294967298'"}},
    {"fingerprint_bits_negative",
     create({"--capacity", "100", "--fingerprint-bits", "-8"}),
     2,
     {"--fingerprint-bits", "'-8'"}},
    {"fingerprint_bits_10",
     create({"--capacity", "100", "--fingerprint-bits", "10"}),
     2,
     {"fingerprint size 10"}},
    {"max_kicks_zero",
     create({"--capacity", "100", "--max-kicks", "0"}),
     2,
     {"--max-kicks", "'0'"}},
    {"expansion_past_limit",
     create({"--capacity", "100", "--expansion", "65536"}),
     2,
     {"--expansion", "'65536'", "from 0 to 32768"}},
    {"seed_nan", create({"--capacity", "100", "--seed", "nan"}), 2, {"--seed", "'nan'"}},
    {"create_over_pipe_forced",
     {"cuckoo", "create", "{dir}/pipe", "--capacity", "10", "--force"},
     3,
     {"'{dir}/pipe'", "pipe"},
     {},
     fifo},
    {"info_device", {"cuckoo", "info", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"check_directory", {"cuckoo", "check", "{dir}", "x"}, 3, {"'{dir}'", "is a directory"}},
    {"add_to_directory",
     {"cuckoo", "add", "{dir}/sub", "x"},
     3,
     {"{dir}/sub", "directory"},
     {},
     sub_directory},
    {"info_not_a_filter",
     {"cuckoo", "info", "{dir}/text"},
     3,
     {"{dir}/text"},
     {},
     [](const std::string& dir) { write_text(dir + "/text", "hello\n"); }},
    {"info_truncated",
     {"cuckoo", "info", "{dir}/f.cf"},
     3,
     {"{dir}/f.cf"},
     {},
     [](const std::string& dir) {
       filters(dir);
       std::filesystem::resize_file(dir + "/f.cf", 40);
     }},
    {"info_from_stdin_garbage",
     {"cuckoo", "info", "/dev/stdin"},
     3,
     {"/dev/stdin"},
     std::string(100000, 'z')},
    {"check_item_with_a_newline",
     {"cuckoo", "check", "{dir}/f.cf", "a\nb"},
     2,
     {"item 1", "'a\\nb'", "line break"},
     {},
     filters},
    {"add_item_with_a_newline",
     {"cuckoo", "add", "{dir}/f.cf", "x", "a\nb"},
     2,
     {"item 2", "line break"},
     {},
     filters},
    {"add_line_over_16_mib",
     {"cuckoo", "add", "{dir}/f.cf"},
     2,
     {"line 1", "16 MiB"},
     long_line,
     filters},
    {"add_to_a_full_filter_that_may_not_grow",
     {"cuckoo", "add", "{dir}/full.cf", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"},
     3,
     {"{dir}/full.cf", "full"},
     {},
     filters},
    {"add_growing_past_memory",
     add_many(),
     2,
     {"{dir}/grow.cf", "expansion 32768", "of memory"},
     {},
     growing_filter},
    // 120,000 items fit the 131,076 slots of two sub-filters, so the command's
    // own check before the batch lets them through; but with 20 kicks an
    // insertion fails at about 3/4 load, and the third sub-filter (8 GiB) is
    // refused by the library before it allocates (io::require_memory).
    {"add_growing_below_full_load_past_memory",
     add_many(120000),
     2,
     {"{dir}/grow.cf", "sub-filter 3 (1073741824 buckets, expansion 32768)", "8.0 GiB", "of memory",
      "nothing of this batch was written"},
     {},
     growing_filter},
};

class CuckooHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(CuckooHostile, RefusedCleanly) {
  if (GetParam().label.find("memory") != std::string::npos && test::sanitized_build()) {
    GTEST_SKIP() << "sizes between the 512 MiB test limit and this machine's memory: under the "
                    "sanitizers there is no address-space limit, so the machine's memory decides";
  }
  test::expect_clean_refusal(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, CuckooHostile, ::testing::ValuesIn(cases), test::hostile_label{});

}  // namespace
}  // namespace ringbloom
