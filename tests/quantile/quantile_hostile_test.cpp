// Hostile command lines for `ringbloom quantile` (tests/support/hostile.hpp):
// each is refused with the right exit code and one sentence on stderr,
// writes nothing, and stays within 512 MiB and 20 seconds.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ringbloom/io/file_io.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

void make_tdigest(const std::string& dir) { save_quantile(dir + "/t.rbq", tdigest(100)); }

const std::string long_line(17u << 20, '1');  // one line over the 16 MiB cap

const std::vector<hostile_case> cases = {
    {"compression_zero",
     {"quantile", "create", "{dir}/x.rbq", "--kind", "tdigest", "--compression", "0"},
     2,
     {"--compression", "'0'"}},
    {"compression_huge",
     {"quantile", "create", "{dir}/x.rbq", "--kind", "tdigest", "--compression", "1e12"},
     2,
     {"--compression", "'1e12'"}},
    {"k_too_small",
     {"quantile", "create", "{dir}/x.rbq", "--kind", "kll", "--k", "7"},
     2,
     {"--k", "'7'", "8 to 65535"}},
    {"k_past_2_to_32",
     {"quantile", "create", "{dir}/x.rbq", "--kind", "kll", "--k", "4294967303"},
     2,
     {"--k", "'4294967303'"}},
    {"unknown_kind", {"quantile", "create", "{dir}/x.rbq", "--kind", "ddsketch"}, 2, {"--kind"}},
    {"create_over_directory_forced",
     {"quantile", "create", "{dir}/sub", "--kind", "kll", "--force"},
     3,
     {"'{dir}/sub'", "is a directory"},
     {},
     [](const std::string& dir) { std::filesystem::create_directory(dir + "/sub"); }},
    {"add_nan",
     {"quantile", "add", "{dir}/t.rbq", "nan"},
     2,
     {"'nan'", "finite"},
     {},
     make_tdigest},
    {"add_binary_line",
     {"quantile", "add", "{dir}/t.rbq"},
     2,
     {"line 1", "finite"},
     std::string("\x01\xff\x00z\n", 5),
     make_tdigest},
    {"add_line_over_cap", {"quantile", "add", "{dir}/t.rbq"}, 2, {"line"}, long_line, make_tdigest},
    {"add_to_directory", {"quantile", "add", "{dir}", "1"}, 3, {"'{dir}'", "directory"}},
    {"query_damaged",
     {"quantile", "query", "{dir}/bad.rbq", "--quantile", "0.5"},
     3,
     {"{dir}/bad.rbq", "damaged"},
     {},
     [](const std::string& dir) {
       std::string bytes = serialize_quantile(tdigest(100));
       bytes[20] = 'x';
       io::write_file_atomic(dir + "/bad.rbq", bytes);
     }},
    {"query_bad_list",
     {"quantile", "query", "{dir}/t.rbq", "--quantile", "0.5,,0.9"},
     2,
     {"--quantile", "''"},
     {},
     make_tdigest},
    {"trimmed_mean_reversed",
     {"quantile", "query", "{dir}/t.rbq", "--trimmed-mean", "0.9,0.1"},
     2,
     {"--trimmed-mean", "low cut"},
     {},
     make_tdigest},
    {"merge_one_input",
     {"quantile", "merge", "{dir}/t.rbq", "-o", "{dir}/m.rbq"},
     2,
     {"at least two"},
     {},
     make_tdigest},
};

class QuantileHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(QuantileHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, QuantileHostile, ::testing::ValuesIn(cases), test::hostile_label{});

}  // namespace
}  // namespace ringbloom
