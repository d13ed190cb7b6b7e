// What the kind table tells front ends about a filter without their knowing
// its kind: any_filter::describe (bloom info's kind-specific lines),
// require_removable and words.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "ringbloom/filter/any_filter.hpp"

namespace ringbloom {
namespace {

using ::testing::HasSubstr;

const filter_description::field* find(const filter_description& d, std::string_view name) {
  for (const auto& f : d.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(FilterDescribe, PlainKindsHaveNoFactsOfTheirOwn) {
  for (const filter_kind kind : {filter_kind::blocked, filter_kind::blocked64,
                                 filter_kind::blocked1024, filter_kind::classic}) {
    filter_spec spec;
    spec.kind = kind;
    spec.capacity = 1000;
    spec.fpr = 0.01;
    const filter_description d = make_filter(spec).describe();
    EXPECT_TRUE(d.fields.empty()) << filter_kind_name(kind);
    EXPECT_TRUE(d.rows.empty()) << filter_kind_name(kind);
  }
}

TEST(FilterDescribe, CountingReportsSaturatedCounters) {
  any_filter f = counting_bloom_filter(64, 1);
  for (int i = 0; i < 20; ++i) f.add("x");  // one counter past 15
  const filter_description d = f.describe();
  ASSERT_EQ(d.fields.size(), 1u);
  EXPECT_EQ(d.fields[0].name, "saturated_counters");
  EXPECT_EQ(std::get<std::uint64_t>(d.fields[0].value), 1u);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].label, "saturated");
  EXPECT_EQ(d.rows[0].text, "1");
  EXPECT_FALSE(d.rows[0].after_layers);
}

TEST(FilterDescribe, ScalableReportsScheduleAndEveryLayer) {
  filter_spec spec;
  spec.kind = filter_kind::scalable;
  spec.capacity = 100;
  spec.fpr = 0.01;
  any_filter f = make_filter(spec);
  for (int i = 0; i < 1000; ++i) f.add("item-" + std::to_string(i));
  const filter_description d = f.describe();
  const auto* layers = find(d, "layer_details");
  ASSERT_NE(layers, nullptr);
  const auto& list = std::get<std::vector<filter_layer_detail>>(layers->value);
  ASSERT_EQ(list.size(), f.stats().layers);
  EXPECT_EQ(list[0].capacity, 100u);
  EXPECT_EQ(list[1].capacity, 200u);
  std::uint64_t items = 0;
  for (const auto& l : list) items += l.items;
  EXPECT_EQ(items, f.items_added());
  EXPECT_EQ(std::get<double>(find(d, "target_fpr")->value), 0.01);
  EXPECT_EQ(std::get<std::uint64_t>(find(d, "growth")->value), 2u);
  // The rows: the schedule, then one per layer, all after the layers line.
  ASSERT_EQ(d.rows.size(), 1 + list.size());
  EXPECT_EQ(d.rows[0].label, "target fpr");
  EXPECT_THAT(d.rows[0].text, HasSubstr("growth 2"));
  EXPECT_EQ(d.rows[1].label, "  layer 0");
  EXPECT_THAT(d.rows[1].text, HasSubstr("of 100 items"));
  for (const auto& r : d.rows) EXPECT_TRUE(r.after_layers);
}

TEST(FilterDescribe, StaticKindsReportSlotsAndBitsPerItem) {
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 1000; ++i)
    hashes.push_back(fuse8_filter::key_hash(std::to_string(i), 0));
  const any_filter f = build_fuse_filter(filter_kind::fuse16, hashes);
  const filter_description d = f.describe();
  EXPECT_TRUE(std::get<bool>(find(d, "static")->value));
  EXPECT_EQ(std::get<std::uint64_t>(find(d, "slots")->value), f.bits() / 16);
  EXPECT_DOUBLE_EQ(std::get<double>(find(d, "bits_per_item")->value),
                   static_cast<double>(f.bits()) / 1000.0);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_THAT(d.rows[0].text, HasSubstr("of 16 bits"));
}

TEST(FilterRemoval, TheTableSaysWhichKindsRemove) {
  for (const filter_kind_info& k : filter_kinds()) {
    SCOPED_TRACE(std::string(k.name));
    if (k.removable) {
      EXPECT_NO_THROW(any_filter::require_removable(k.kind));
    } else {
      try {
        any_filter::require_removable(k.kind);
        FAIL() << "not refused";
      } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr(k.is_static ? "static" : "remove needs a counting filter"));
      }
    }
  }
  EXPECT_EQ(filter_kind_names(&filter_kind_info::removable), "counting");
}

TEST(FilterWords, SingleArrayKindsGiveWordsOthersNameThem) {
  any_filter classic = bloom_filter(128, 2);
  classic.add("x");
  EXPECT_EQ(classic.words().size(), 2u);
  EXPECT_EQ(filter_kind_names(&filter_kind_info::has_words),
            "fast, blocked64, blocked1024, blocked, classic or counting");
  filter_spec spec;
  spec.kind = filter_kind::scalable;
  spec.capacity = 100;
  spec.fpr = 0.01;
  try {
    (void)make_filter(spec).words();
    FAIL() << "not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("a scalable filter has no single array"));
  }
}

TEST(FilterDescribe, ProbesReadAsPositionsWithTheZeroOnesOnce) {
  const std::vector<bit_probe> probes{{0, 5, 0}, {0, 3, 1}, {0, 5, 0}, {0, 9, 0}};
  EXPECT_EQ(describe_probes(probes, false), "positions 5,3,5,9 (zero: 5,9)");
  const std::vector<bit_probe> all_set{{0, 1, 1}, {0, 2, 1}};
  EXPECT_EQ(describe_probes(all_set, false), "positions 1,2");
  const std::vector<bit_probe> layered{{0, 5, 1}, {0, 3, 0}, {1, 7, 1}};
  EXPECT_EQ(describe_probes(layered, true), "layer 0 positions 5,3 (zero: 3); layer 1 positions 7");
}

TEST(FilterDescribe, KindsHelpNamesTheDefaultAndTheStaticKinds) {
  const std::string help = filter_kinds_help();
  EXPECT_NE(help.find(std::string(filter_kind_name(default_filter_kind)) + " (default"),
            std::string::npos)
      << help;
  for (const filter_kind_info& k : filter_kinds()) {
    EXPECT_NE(help.find(k.name), std::string::npos) << k.name << " missing from: " << help;
  }
  EXPECT_NE(help.find(", or, with --from, the static "), std::string::npos) << help;
}

}  // namespace
}  // namespace ringbloom
