// Hostile input to `ringbloom demo`: refused with the exit code,
// one sentence naming the option or path, nothing written, bounded memory and
// time (tests/support/hostile.hpp runs and checks each row).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/hostile.hpp"

namespace ringbloom {
namespace {

using test::hostile_case;

const std::vector<hostile_case> cases = {
    {"report_into_a_regular_file",
     {"demo", "--report", "{dir}/file"},
     3,
     {"{dir}/file"},
     {},
     [](const std::string& dir) { std::ofstream(dir + "/file") << "keep me\n"; }},
    {"report_into_a_device", {"demo", "--report", "/dev/null"}, 3, {"/dev/null"}},
    {"report_empty_name", {"demo", "--report", ""}, 2, {"--report", "empty"}},
    {"report_with_json", {"demo", "--json", "--report", "{dir}/out"}, 2, {"--json"}},
    {"unknown_option", {"demo", "--keys", "5"}, 2, {"--keys"}},
};

class DemoHostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(DemoHostile, RefusedCleanly) { test::expect_clean_refusal(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, DemoHostile, ::testing::ValuesIn(cases), test::hostile_label{});

}  // namespace
}  // namespace ringbloom
