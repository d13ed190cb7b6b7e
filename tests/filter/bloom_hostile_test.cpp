// Hostile input to `ringbloom bloom ...`: each row is a command a
// script, a typo or an attacker could produce, and must be refused with the
// exit code, one sentence naming the option or file, nothing written, and
// bounded memory and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/filter/filter_file.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

// A small blocked filter at DIR/f.rbf (and a larger one at DIR/big.rbf).
void two_filters(const std::string& dir) {
  filter_spec small;
  small.capacity = 100;
  small.fpr = 0.01;
  save_filter(dir + "/f.rbf", make_filter(small));
  filter_spec big = small;
  big.capacity = 10000;
  save_filter(dir + "/big.rbf", make_filter(big));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void sub_directory(const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }
void fifo(const std::string& dir) { ::mkfifo((dir + "/pipe").c_str(), 0644); }

std::vector<std::string> create(std::vector<std::string> options) {
  std::vector<std::string> args{"bloom", "create", "{dir}/new.rbf"};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

const std::string long_line(17u << 20, 'x');  // one line over the 16 MiB cap

const std::vector<hostile_case> cases = {
    // Numbers read as what they mean, with the range in the message.
    {"capacity_negative_does_not_wrap",
     create({"--capacity", "-5", "--fpr", "0.01"}),
     2,
     {"--capacity", "'-5'", "from 1 to"}},
    {"capacity_zero", create({"--capacity", "0", "--fpr", "0.01"}), 2, {"--capacity", "'0'"}},
    // A rate below what 64-bit item hashes can tell apart is refused by the sizing.
    {"fpr_below_what_64_bit_hashes_reach",
     create({"--capacity", "1000", "--fpr", "1e-300", "--kind", "classic"}),
     2,
     {"1e-300", "2^-64", "5.5e-20 or more"}},
    // CLI11's messages in our words, naming the option.
    {"option_given_twice",
     create({"--capacity", "10", "--capacity", "20", "--fpr", "0.01"}),
     2,
     {"--capacity is given more than once", "give it once"}},
    {"capacity_exponent",
     create({"--capacity", "1e6", "--fpr", "0.01"}),
     2,
     {"--capacity", "'1e6'"}},
    {"capacity_past_2_to_64",
     create({"--capacity", "18446744073709551616", "--fpr", "0.01"}),
     2,
     {"--capacity", "18446744073709551616"}},
    {"fpr_zero_names_the_rate",
     create({"--capacity", "100", "--fpr", "0"}),
     2,
     {"--fpr", "'0'", "greater than 0 and less than 1"}},
    {"fpr_one", create({"--capacity", "100", "--fpr", "1"}), 2, {"--fpr", "'1'"}},
    {"fpr_nan", create({"--capacity", "100", "--fpr", "nan"}), 2, {"--fpr", "'nan'"}},
    {"fpr_infinite", create({"--capacity", "100", "--fpr", "inf"}), 2, {"--fpr", "'inf'"}},
    {"fpr_trailing_junk", create({"--capacity", "100", "--fpr", "0.01x"}), 2, {"--fpr", "'0.01x'"}},
    {"fpr_hex_float", create({"--capacity", "100", "--fpr", "0x1p-3"}), 2, {"--fpr", "0x1p-3"}},
    {"fpr_leading_blank", create({"--capacity", "100", "--fpr", " 0.01"}), 2, {"--fpr"}},
    {"bits_zero", create({"--bits", "0", "--hashes", "3"}), 2, {"--bits", "'0'"}},
    {"bits_past_the_limit",
     create({"--bits", "1099511627777", "--hashes", "3"}),
     2,
     {"--bits", "1099511627776"}},
    {"hashes_negative", create({"--bits", "1024", "--hashes", "-1"}), 2, {"--hashes", "'-1'"}},
    {"hashes_past_the_blocked_kind", create({"--bits", "1024", "--hashes", "17"}), 2, {"16", "17"}},
    {"seed_negative",
     create({"--capacity", "100", "--fpr", "0.01", "--seed", "-1"}),
     2,
     {"--seed", "'-1'"}},
    {"seed_with_sha256",
     create({"--capacity", "100", "--fpr", "0.01", "--kind", "blocked", "--hash", "sha256",
             "--seed", "5"}),
     2,
     {"seed 5", "sha256"}},
    {"kind_unknown",
     create({"--capacity", "100", "--fpr", "0.01", "--kind", "bogus"}),
     2,
     {"'bogus'"}},
    {"hash_unknown", create({"--capacity", "100", "--fpr", "0.01", "--hash", "crc"}), 2, {"crc"}},
    {"option_misspelt", create({"--capacity", "100", "--fpr", "0.01", "--frp", "3"}), 2, {"--frp"}},
    // Sizes refused before allocating, naming the number and the option.
    {"bits_larger_than_memory",
     create({"--bits", "1099511627776", "--hashes", "7"}),
     2,
     {"--bits 1099511627776", "of memory"}},
    {"capacity_larger_than_memory",
     create({"--capacity", "100000000000", "--fpr", "0.01"}),
     2,
     {"--capacity 100000000000", "of memory"}},
    {"blocked_rate_unreachable_names_classic",
     create({"--capacity", "1", "--fpr", "1e-15"}),
     2,
     {"1e-12", "1e-15", "classic"}},
    // Static filters: the key file is checked like any input.
    {"fuse_keys_from_device",
     {"bloom", "create", "{dir}/f.rbf", "--kind", "fuse8", "--from", "/dev/zero"},
     3,
     {"'/dev/zero'", "is a device"}},
    {"fuse_keys_from_directory",
     {"bloom", "create", "{dir}/f.rbf", "--kind", "fuse16", "--from", "{dir}"},
     3,
     {"'{dir}'", "is a directory"}},
    {"fuse_sized_by_capacity",
     {"bloom", "create", "{dir}/f.rbf", "--kind", "fuse8", "--from", "-", "--capacity", "9"},
     2,
     {"--capacity", "--from"},
     "a\n"},
    // Files that are not regular files, refused with their own sentence.
    {"info_device", {"bloom", "info", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"check_directory", {"bloom", "check", "{dir}", "x"}, 3, {"'{dir}'", "is a directory"}},
    {"info_directory", {"bloom", "info", "{dir}"}, 3, {"'{dir}'", "is a directory"}},
    {"add_to_directory",
     {"bloom", "add", "{dir}/sub", "x"},
     3,
     {"{dir}/sub", "directory"},
     {},
     sub_directory},
    {"add_to_pipe", {"bloom", "add", "{dir}/pipe", "x"}, 3, {"{dir}/pipe", "pipe"}, {}, fifo},
    {"create_over_directory",
     create({"--capacity", "10", "--fpr", "0.1"}),
     2,
     {"already exists"},
     {},
     [](const std::string& dir) { std::filesystem::create_directory(dir + "/new.rbf"); }},
    {"create_forced_over_directory",
     {"bloom", "create", "{dir}/sub", "--capacity", "10", "--fpr", "0.1", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     sub_directory},
    {"create_forced_over_pipe",
     {"bloom", "create", "{dir}/pipe", "--capacity", "10", "--fpr", "0.1", "--force"},
     3,
     {"'{dir}/pipe'", "pipe"},
     {},
     fifo},
    {"create_in_missing_directory",
     {"bloom", "create", "{dir}/no/such/f.rbf", "--capacity", "10", "--fpr", "0.1"},
     3,
     {"{dir}/no/such/f.rbf"}},
    // Bad data.
    {"info_missing", {"bloom", "info", "{dir}/absent.rbf"}, 3, {"{dir}/absent.rbf"}},
    {"info_not_a_filter",
     {"bloom", "info", "{dir}/text"},
     3,
     {"{dir}/text", "not a ringbloom"},
     {},
     [](const std::string& dir) { write_text(dir + "/text", "hello\n"); }},
    {"info_truncated",
     {"bloom", "info", "{dir}/f.rbf"},
     3,
     {"{dir}/f.rbf", "truncated"},
     {},
     [](const std::string& dir) {
       two_filters(dir);
       std::filesystem::resize_file(dir + "/f.rbf", 100);
     }},
    {"info_from_stdin_garbage",
     {"bloom", "info", "/dev/stdin"},
     3,
     {"/dev/stdin"},
     std::string(100000, 'z')},
    {"merge_incompatible",
     {"bloom", "merge", "{dir}/f.rbf", "{dir}/big.rbf", "-o", "{dir}/o.rbf"},
     2,
     {"incompatible"},
     {},
     two_filters},
    {"merge_into_directory",
     {"bloom", "merge", "{dir}/f.rbf", "{dir}/f.rbf", "-o", "{dir}/sub", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) {
       two_filters(dir);
       sub_directory(dir);
     }},
    {"remove_from_a_blocked_filter",
     {"bloom", "remove", "{dir}/f.rbf", "x"},
     2,
     {"{dir}/f.rbf", "counting"},
     {},
     two_filters},
    {"check_item_with_a_newline",
     {"bloom", "check", "{dir}/f.rbf", "a\nb"},
     2,
     {"item 1", "'a\\nb'", "line break"},
     {},
     two_filters},
    // Standard input is read line by line, each line capped.
    {"add_line_over_16_mib",
     {"bloom", "add", "{dir}/f.rbf"},
     2,
     {"line 1", "16 MiB"},
     long_line,
     two_filters},
    {"add_line_over_16_mib_ending_in_a_newline",
     {"bloom", "add", "{dir}/f.rbf"},
     2,
     {"line 1", "16 MiB"},
     long_line + "\n",
     two_filters},
    {"add_item_with_a_newline",
     {"bloom", "add", "{dir}/f.rbf", "a", "b\nc"},
     2,
     {"item 2", "'b\\nc'", "line break"},
     {},
     two_filters},
    {"remove_more_than_64_mib_from_stdin",
     {"bloom", "remove", "{dir}/c.rbf"},
     2,
     {"64 MiB", "several runs"},
     std::string(3u << 20, '\n'),
     [](const std::string& dir) {
       filter_spec spec;
       spec.kind = filter_kind::counting;
       spec.capacity = 100;
       spec.fpr = 0.01;
       save_filter(dir + "/c.rbf", make_filter(spec));
     }},
    {"check_line_over_16_mib",
     {"bloom", "check", "{dir}/f.rbf"},
     2,
     {"line 1", "16 MiB"},
     long_line,
     two_filters},
};

class BloomHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(BloomHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, BloomHostile, ::testing::ValuesIn(cases), test::hostile_label{});

// A pipe is read deliberately: a filter sent through one is answered.
TEST(BloomHostileInputs, FilterThroughAPipeIsRead) {
  filter_spec spec;
  spec.capacity = 100;
  spec.fpr = 0.01;
  const std::string bytes = serialize_filter(make_filter(spec));
  const auto r = test::run_cli_bounded({"bloom", "info", "/dev/stdin", "--json"}, bytes);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"size_on_disk\":" + std::to_string(bytes.size())), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace ringbloom
