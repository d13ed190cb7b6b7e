// Hostile input to `ringbloom hll|cms|topk ...`: each row is a
// command a script, a typo or an attacker could produce, and must be refused
// with the exit code, one sentence naming the option or file, nothing written,
// and bounded memory and time (tests/support/hostile.hpp runs and checks it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringbloom/sketch/sketch_file.hpp"
#include "support/cli_run.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void sub_directory(const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }

// DIR/h.hll, DIR/c.cms (100 x 4) and DIR/t.topk (k = 5) in the sketch format.
void sketches(const std::string& dir) {
  save_sketch(dir + "/h.hll", hyperloglog(10, 0));
  save_sketch(dir + "/c.cms", count_min_sketch(100, 4, false, 0));
  save_sketch(dir + "/c2.cms", count_min_sketch(200, 4, false, 0));
  save_sketch(dir + "/t.topk", top_k(5));
}

// DIR/t.topk whose only leader, written by hand, holds a line break.
void topk_with_newline_item(const std::string& dir) {
  top_k t(3);
  t.add("a\nb");
  save_sketch(dir + "/t.topk", t);
}

std::vector<std::string> with(std::vector<std::string> head, std::vector<std::string> options) {
  head.insert(head.end(), options.begin(), options.end());
  return head;
}

std::vector<std::string> hll_create(std::vector<std::string> options) {
  return with({"hll", "create", "{dir}/new.hll"}, std::move(options));
}
std::vector<std::string> cms_create(std::vector<std::string> options) {
  return with({"cms", "create", "{dir}/new.cms"}, std::move(options));
}
std::vector<std::string> topk_create(std::vector<std::string> options) {
  return with({"topk", "create", "{dir}/new.topk"}, std::move(options));
}
std::vector<std::string> topk_create_10(std::vector<std::string> options) {
  return topk_create(with({"--k", "10"}, std::move(options)));
}

const std::string long_line(17u << 20, 'x');  // one line over the 16 MiB cap

const std::vector<hostile_case> hll_cases = {
    {"precision_30", hll_create({"--precision", "30"}), 2, {"--precision", "'30'", "4 to 18"}},
    {"precision_negative", hll_create({"--precision", "-14"}), 2, {"--precision", "'-14'"}},
    {"precision_zero", hll_create({"--precision", "0"}), 2, {"--precision", "'0'"}},
    {"precision_past_2_to_32",
     hll_create({"--precision", "4294967310"}),
     2,
     {"--precision", "'4294967310'"}},
    {"precision_real", hll_create({"--precision", "14.5"}), 2, {"--precision", "'14.5'"}},
    {"seed_negative", hll_create({"--seed", "-1"}), 2, {"--seed", "'-1'"}},
    {"redis_with_other_precision",
     hll_create({"--redis", "--precision", "12"}),
     2,
     {"--redis", "--precision"}},
    {"create_over_directory_forced",
     {"hll", "create", "{dir}/sub", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     sub_directory},
    {"info_device", {"hll", "info", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"count_directory", {"hll", "count", "{dir}"}, 3, {"'{dir}'", "is a directory"}},
    {"info_not_a_sketch",
     {"hll", "info", "{dir}/text"},
     3,
     {"{dir}/text"},
     {},
     [](const std::string& dir) { write_text(dir + "/text", "hello\n"); }},
    {"info_of_a_count_min",
     {"hll", "info", "{dir}/c.cms"},
     3,
     {"{dir}/c.cms", "Count-Min"},
     {},
     sketches},
    {"add_item_with_a_newline",
     {"hll", "add", "{dir}/h.hll", "a\nb"},
     2,
     {"item 1", "'a\\nb'", "line break"},
     {},
     sketches},
    {"add_line_over_16_mib",
     {"hll", "add", "{dir}/h.hll"},
     2,
     {"line 1", "16 MiB"},
     long_line,
     sketches},
    {"import_redis_device",
     {"hll", "import-redis", "/dev/zero", "-o", "{dir}/o.hll"},
     3,
     {"'/dev/zero'", "is a device"}},
    {"import_redis_pipe_over_1_mib",
     {"hll", "import-redis", "/dev/stdin", "-o", "{dir}/o.hll"},
     3,
     {"/dev/stdin", "1.0 MiB"},
     std::string(2u << 20, 'H')},
    {"import_redis_garbage",
     {"hll", "import-redis", "{dir}/blob", "-o", "{dir}/o.hll"},
     3,
     {"{dir}/blob"},
     {},
     [](const std::string& dir) { write_text(dir + "/blob", "HYLL\x01junk"); }},
    {"export_redis_encoding_unknown",
     {"hll", "export-redis", "{dir}/h.hll", "-o", "{dir}/o.blob", "--encoding", "zip"},
     2,
     {"--encoding", "zip"},
     {},
     sketches},
};

const std::vector<hostile_case> cms_cases = {
    {"width_4e9_depth_100",
     cms_create({"--width", "4000000000", "--depth", "100"}),
     2,
     {"--width", "'4000000000'", "from 1 to 1073741824"}},
    {"width_negative", cms_create({"--width", "-5", "--depth", "4"}), 2, {"--width", "'-5'"}},
    {"width_zero", cms_create({"--width", "0", "--depth", "4"}), 2, {"--width", "'0'"}},
    {"depth_65", cms_create({"--width", "100", "--depth", "65"}), 2, {"--depth", "'65'"}},
    {"too_many_counters",
     cms_create({"--width", "1073741824", "--depth", "64"}),
     2,
     {"--width 1073741824 --depth 64", "2^31"}},
    {"larger_than_memory",
     cms_create({"--width", "1073741824", "--depth", "2"}),
     2,
     {"--width 1073741824 --depth 2", "of memory"}},
    {"error_tiny_larger_than_memory",
     cms_create({"--error", "0.00000001", "--probability", "0.01"}),
     2,
     {"--error 0.00000001 --probability 0.01", "of memory"}},
    {"error_nan", cms_create({"--error", "nan", "--probability", "0.01"}), 2, {"--error", "'nan'"}},
    {"error_zero", cms_create({"--error", "0", "--probability", "0.01"}), 2, {"--error", "'0'"}},
    {"probability_one",
     cms_create({"--error", "0.01", "--probability", "1"}),
     2,
     {"--probability", "'1'"}},
    {"seed_negative",
     cms_create({"--width", "10", "--depth", "2", "--seed", "-1"}),
     2,
     {"--seed", "'-1'"}},
    {"width_without_depth", cms_create({"--width", "10"}), 2, {"--width", "--depth"}},
    {"incr_count_negative",
     {"cms", "incr", "{dir}/c.cms"},
     2,
     {"'a\\t-5'", "from 1 to 4294967295"},
     "a\t-5\n",
     sketches},
    {"incr_count_zero", {"cms", "incr", "{dir}/c.cms"}, 2, {"'a\\t0'"}, "a\t0\n", sketches},
    {"incr_item_with_a_newline",
     {"cms", "incr", "{dir}/c.cms", "a\nb"},
     2,
     {"item 1", "line break"},
     {},
     sketches},
    {"query_item_with_a_carriage_return",
     {"cms", "query", "{dir}/c.cms", "a\rb"},
     2,
     {"item 1", "line break"},
     {},
     sketches},
    {"merge_weight_not_a_number",
     {"cms", "merge", "{dir}/o.cms", "{dir}/c.cms", "--weights", "2x"},
     2,
     {"--weights", "'2x'"},
     {},
     sketches},
    {"merge_weight_past_int64",
     {"cms", "merge", "{dir}/o.cms", "{dir}/c.cms", "--weights", "9223372036854775808"},
     2,
     {"--weights", "'9223372036854775808'"},
     {},
     sketches},
    {"merge_incompatible",
     {"cms", "merge", "{dir}/o.cms", "{dir}/c.cms", "{dir}/c2.cms"},
     2,
     {"incompatible"},
     {},
     sketches},
    {"merge_into_directory",
     {"cms", "merge", "{dir}/sub", "{dir}/c.cms"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) {
       sketches(dir);
       sub_directory(dir);
     }},
    {"info_truncated",
     {"cms", "info", "{dir}/c.cms"},
     3,
     {"{dir}/c.cms"},
     {},
     [](const std::string& dir) {
       sketches(dir);
       std::filesystem::resize_file(dir + "/c.cms", 100);
     }},
    {"info_from_stdin_garbage",
     {"cms", "info", "/dev/stdin"},
     3,
     {"/dev/stdin"},
     std::string(100000, 'z')},
};

const std::vector<hostile_case> topk_cases = {
    {"k_zero", topk_create({"--k", "0"}), 2, {"--k", "'0'", "from 1 to 100000"}},
    {"k_negative", topk_create({"--k", "-1"}), 2, {"--k", "'-1'"}},
    {"k_past_limit", topk_create({"--k", "100001"}), 2, {"--k", "'100001'"}},
    {"width_zero", topk_create_10({"--width", "0"}), 2, {"--width", "'0'"}},
    {"depth_65", topk_create_10({"--depth", "65"}), 2, {"--depth", "'65'"}},
    {"too_many_buckets",
     topk_create_10({"--width", "268435456", "--depth", "2"}),
     2,
     {"--width 268435456 --depth 2", "2^28"}},
    {"larger_than_memory",
     topk_create_10({"--width", "268435456", "--depth", "1"}),
     2,
     {"--width 268435456 --depth 1", "of memory"}},
    {"decay_zero", topk_create_10({"--decay", "0"}), 2, {"--decay", "'0'"}},
    {"decay_above_one", topk_create_10({"--decay", "1.5"}), 2, {"--decay", "'1.5'"}},
    {"decay_nan", topk_create_10({"--decay", "nan"}), 2, {"--decay", "'nan'"}},
    {"seed_negative", topk_create_10({"--seed", "-7"}), 2, {"--seed", "'-7'"}},
    {"add_item_with_a_newline",
     {"topk", "add", "{dir}/t.topk", "x\ny"},
     2,
     {"item 1", "line break"},
     {},
     sketches},
    {"list_leader_with_a_newline",
     {"topk", "list", "{dir}/t.topk", "--with-counts"},
     3,
     {"{dir}/t.topk", "line break"},
     {},
     topk_with_newline_item},
    {"list_device", {"topk", "list", "/dev/zero"}, 3, {"'/dev/zero'", "is a device"}},
    {"query_directory", {"topk", "query", "{dir}", "a"}, 3, {"'{dir}'", "is a directory"}},
    {"info_of_a_hyperloglog",
     {"topk", "info", "{dir}/h.hll"},
     3,
     {"{dir}/h.hll", "HyperLogLog"},
     {},
     sketches},
    {"query_line_over_16_mib",
     {"topk", "query", "{dir}/t.topk"},
     2,
     {"line 1", "16 MiB"},
     long_line,
     sketches},
};

class HllHostile : public ::testing::TestWithParam<hostile_case> {};
class CmsHostile : public ::testing::TestWithParam<hostile_case> {};
class TopkHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(HllHostile, RefusedCleanly) {
  if (GetParam().label.find("memory") != std::string::npos && test::sanitized_build()) {
    GTEST_SKIP() << "sizes between the 512 MiB test limit and this machine's memory: under the "
                    "sanitizers there is no address-space limit, so the machine's memory decides";
  }
  test::expect_clean_refusal(GetParam());
}
TEST_P(CmsHostile, RefusedCleanly) {
  if (GetParam().label.find("memory") != std::string::npos && test::sanitized_build()) {
    GTEST_SKIP() << "sizes between the 512 MiB test limit and this machine's memory: under the "
                    "sanitizers there is no address-space limit, so the machine's memory decides";
  }
  test::expect_clean_refusal(GetParam());
}
TEST_P(TopkHostile, RefusedCleanly) {
  if (GetParam().label.find("memory") != std::string::npos && test::sanitized_build()) {
    GTEST_SKIP() << "sizes between the 512 MiB test limit and this machine's memory: under the "
                    "sanitizers there is no address-space limit, so the machine's memory decides";
  }
  test::expect_clean_refusal(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, HllHostile, ::testing::ValuesIn(hll_cases), test::hostile_label{});
INSTANTIATE_TEST_SUITE_P(Cases, CmsHostile, ::testing::ValuesIn(cms_cases), test::hostile_label{});
INSTANTIATE_TEST_SUITE_P(Cases, TopkHostile, ::testing::ValuesIn(topk_cases),
                         test::hostile_label{});

// The bounds refuse only what is too large: the largest precision and a
// Top-K at its k limit are made.
TEST(SketchHostileInputs, LimitsThemselvesAreAccepted) {
  const test::temp_dir dir;
  auto r = test::run_cli_bounded({"hll", "create", dir.path() + "/p18.hll", "--precision", "18"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli_bounded({"topk", "create", dir.path() + "/k.topk", "--k", "100000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ringbloom
