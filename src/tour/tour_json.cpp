// `ringbloom demo --json`: every figure of the tour (shape in docs/tour.md).
#include <string>

#include "ringbloom/hash.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

using nlohmann::json;
namespace t = ringbloom::tour;

std::string name(hash_kind h) { return std::string(hash_name(h)); }

json shares_json(const t::share_table& s) {
  json nodes = json::array();
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    nodes.push_back({{"node", s.nodes[i]},
                     {"key_share", s.key_shares[i]},
                     {"space_share", i < s.space_shares.size() ? s.space_shares[i] : 0.0}});
  }
  return {{"hash", name(s.hash)},
          {"vnodes", s.vnodes},
          {"keys", s.keys},
          {"nodes", nodes},
          {"min_share", s.min_share()},
          {"max_share", s.max_share()},
          {"peak_to_average", s.peak_to_average}};
}

json spread_json(const t::spread& s) {
  return {{"values", s.values}, {"arcs", s.arcs}, {"occupied_arcs", s.occupied_arcs}};
}

json fill_point_json(const t::fill_point& p) {
  return {{"items", p.items},       {"load", p.load},       {"false_positives", p.false_positives},
          {"measured", p.measured}, {"formula", p.formula}, {"fill_ratio", p.fill_ratio}};
}

json size_json(const filter_size& s) { return {{"bits", s.bits}, {"hashes", s.hashes}}; }

// Section 10: ringbloom/tour/systems_section.hpp.
json systems_json(const t::systems_section& s) {
  json rows = json::array();
  for (const auto& r : s.rows) {
    json row = {{"scheme", r.scheme},
                {"system", r.system},
                {"add_moved_fraction", r.add_moved},
                {"add_between_old_fraction", r.add_between_old},
                {"peak_avg_before", r.peak_avg_before},
                {"peak_avg_after", r.peak_avg_after},
                {"remove_supported", r.remove_supported}};
    if (r.remove_supported) {
      row["remove_moved_fraction"] = r.remove_moved;
      row["remove_between_survivors_fraction"] = r.remove_between_survivors;
    } else {
      row["remove_reason"] = r.remove_reason;
    }
    if (r.points_max_before > 0) {
      row["points_per_server_before"] = {r.points_min_before, r.points_max_before};
      row["points_per_server_after"] = {r.points_min_after, r.points_max_after};
    }
    if (r.scheme == "haproxy") row["renumbered"] = r.renumbered;
    rows.push_back(std::move(row));
  }
  return {{"keys", s.keys},
          {"from_nodes", s.from_nodes},
          {"removed", s.removed},
          {"ideal_add_fraction", s.ideal_add},
          {"ideal_remove_fraction", s.ideal_remove},
          {"systems", rows}};
}

}  // namespace

nlohmann::json tour_to_json(const tour::tour_result& tour) {
  const t::tour_options& o = tour.options;
  json doc;
  doc["format"] = "ringbloom-tour";
  doc["version"] = 1;
  doc["options"] = {{"keys", o.keys},
                    {"vnodes", o.vnodes},
                    {"max_nodes", o.max_nodes},
                    {"vnode_sweep", o.vnode_sweep},
                    {"sweep_nodes", o.sweep_nodes},
                    {"exercise_items", o.exercise_items},
                    {"exercise_bits", o.exercise_bits},
                    {"exercise_hashes", o.exercise_hashes},
                    {"exercise_strangers", o.exercise_strangers},
                    {"fill_capacity", o.fill_capacity},
                    {"fill_target_fpr", o.fill_target_fpr},
                    {"fill_strangers", o.fill_strangers},
                    {"fill_steps", o.fill_steps},
                    {"memory_items", o.memory_items},
                    {"memory_fpr", o.memory_fpr}};
  using lf = t::lesson_figures;
  doc["lessons"] = {{"modulo_4_to_5", lf::modulo_4_to_5},
                    {"modulo_10_to_11", lf::modulo_10_to_11},
                    {"share_1_vnode", {lf::share_1_vnode_low, lf::share_1_vnode_high}},
                    {"share_100_vnodes", {lf::share_100_vnodes_low, lf::share_100_vnodes_high}},
                    {"lab11_modulo", lf::lab11_modulo},
                    {"lab11_ring", lf::lab11_ring}};

  json rows = json::array();
  for (const auto& r : tour.rebalance.rows) {
    rows.push_back({{"hash", name(r.hash)},
                    {"from_nodes", r.from_nodes},
                    {"to_nodes", r.from_nodes + 1},
                    {"keys", r.keys},
                    {"modulo_moved", r.modulo_moved},
                    {"modulo_fraction", r.modulo_fraction()},
                    {"ring_moved", r.ring_moved},
                    {"ring_fraction", r.ring_fraction()},
                    {"ring_moved_to_new", r.ring_moved_to_new},
                    {"ideal_fraction", r.ideal_fraction()}});
  }
  json curve = json::array();
  for (const auto& p : tour.rebalance.curve) {
    curve.push_back(
        {{"from_nodes", p.from_nodes}, {"modulo", p.modulo}, {"ring", p.ring}, {"ideal", p.ideal}});
  }
  doc["rebalance"] = {{"vnodes", tour.rebalance.vnodes},
                      {"rows", rows},
                      {"curve", {{"hash", name(tour.rebalance.curve_hash)}, {"points", curve}}}};

  json removal = json::array();
  for (const auto& c : tour.removal) {
    removal.push_back({{"vnodes", c.vnodes},
                       {"removed", c.removed},
                       {"keys", c.keys},
                       {"keys_on_removed", c.keys_on_removed},
                       {"moved", c.moved},
                       {"moved_from_others", c.moved_from_others},
                       {"moved_to_clockwise_neighbour", c.moved_to_clockwise_neighbour},
                       {"moved_to", c.moved_to}});
  }
  doc["removal"] = removal;

  json shares = json::array();
  for (const auto& s : tour.vnodes.shares) shares.push_back(shares_json(s));
  json sweep = json::array();
  for (const auto& r : tour.vnodes.sweep) {
    sweep.push_back({{"vnodes", r.vnodes},
                     {"points", r.points},
                     {"memory_bytes", r.memory_bytes},
                     {"space_peak_to_average", r.space_peak_to_average},
                     {"key_peak_to_average", r.key_peak_to_average},
                     {"add_points", r.add_points},
                     {"add_donors", r.add_donors},
                     {"add_moved_space", r.add_moved_space}});
  }
  doc["vnodes"] = {{"shares", shares},
                   {"sweep",
                    {{"hash", name(tour.vnodes.sweep_hash)},
                     {"nodes", tour.vnodes.sweep_nodes},
                     {"rows", sweep}}}};

  const auto& p = tour.poly31;
  doc["poly31"] = {
      {"hash_key_1", p.hash_key_1},
      {"hash_key_2", p.hash_key_2},
      {"adjacent_pairs", p.adjacent_pairs},
      {"adjacent_pairs_checked", p.adjacent_pairs_checked},
      {"keys", {{"poly31", spread_json(p.poly31_keys)}, {"xxh3", spread_json(p.xxh3_keys)}}},
      {"points", {{"poly31", spread_json(p.poly31_points)}, {"xxh3", spread_json(p.xxh3_points)}}},
      {"shares", {{"poly31", shares_json(p.poly31_shares)}, {"xxh3", shares_json(p.xxh3_shares)}}}};

  json exercises = json::array();
  for (const auto& e : tour.exercises) {
    json nodes = json::array();
    for (const auto& n : e.nodes) nodes.push_back({{"name", n.name}, {"tokens", n.tokens}});
    exercises.push_back(
        {{"name", e.name},
         {"nodes", nodes},
         {"key_hashes", e.key_hashes},
         {"change", e.change},
         {"before", e.before},
         {"after", e.after},
         {"moved", e.moved},
         {"lesson",
          {{"before", e.lesson_before}, {"after", e.lesson_after}, {"moved", e.lesson_moved}}}});
  }
  doc["exercises"] = exercises;

  const auto& w = tour.bloom.walkthrough;
  json probes = json::array();
  for (const auto& pr : w.probes) {
    json bits = json::array();
    for (bool b : pr.bits) bits.push_back(b ? 1 : 0);
    probes.push_back({{"item", pr.item},
                      {"added", pr.added},
                      {"positions", pr.positions},
                      {"bits", bits},
                      {"may_contain", pr.may_contain},
                      {"set_by", pr.set_by}});
  }
  json exercise = json::array();
  for (const auto& e : tour.bloom.exercise) {
    exercise.push_back({{"hash", name(e.hash)},
                        {"size", size_json(e.size)},
                        {"items", e.items},
                        {"strangers", e.strangers},
                        {"false_negatives", e.false_negatives},
                        {"false_positives", e.false_positives},
                        {"measured", e.measured()},
                        {"formula", e.formula},
                        {"expected_from_bits", e.expected_from_bits}});
  }
  const auto& f = tour.bloom.fill;
  json points = json::array();
  for (const auto& pt : f.points) points.push_back(fill_point_json(pt));
  json formula = json::array();
  for (const auto& pt : f.formula_curve) formula.push_back(fill_point_json(pt));
  json memory = json::array();
  for (const auto& m : tour.bloom.memory) {
    memory.push_back({{"items", m.items},
                      {"item_bytes", m.item_bytes},
                      {"set_bytes", m.set_bytes},
                      {"filter_bytes", m.filter_bytes},
                      {"fpr", m.fpr},
                      {"size", size_json(m.size)}});
  }
  doc["bloom"] = {{"walkthrough",
                   {{"hash", name(w.hash)},
                    {"size", size_json(w.size)},
                    {"added", w.added},
                    {"bits", w.bit_string},
                    {"probes", probes}}},
                  {"exercise", exercise},
                  {"fill",
                   {{"capacity", f.capacity},
                    {"target_fpr", f.target_fpr},
                    {"size", size_json(f.size)},
                    {"strangers", f.strangers},
                    {"points", points},
                    {"formula_curve", formula}}},
                  {"memory", memory}};
  doc["sketches"] = sketch_section_json(tour.sketches);
  doc["quantiles"] = quantile_section_json(tour.quantiles);
  json merkle_exchanges = json::array();
  for (const auto& e : tour.merkle.exchanges) {
    merkle_exchanges.push_back({{"differences", e.differences},
                                {"differing_leaves", e.differing_leaves},
                                {"digests_exchanged", e.digests_exchanged},
                                {"estimate", e.estimate},
                                {"rows_to_compare", e.rows_to_compare},
                                {"rows_without_tree", e.rows_without_tree}});
  }
  json merkle_sweep = json::array();
  for (const auto& point : tour.merkle.depth_sweep) {
    merkle_sweep.push_back({{"depth", point.depth},
                            {"leaves", point.leaves},
                            {"rows_per_leaf", point.rows_per_leaf},
                            {"digests_exchanged", point.digests_exchanged},
                            {"rows_to_compare", point.rows_to_compare}});
  }
  doc["merkle"] = {{"rows", tour.merkle.rows},
                   {"depth", tour.merkle.depth},
                   {"exchanges", merkle_exchanges},
                   {"sweep_differences", tour.merkle.sweep_differences},
                   {"depth_sweep", merkle_sweep}};
  json runs = json::array();
  for (const auto& run : tour.strategies.runs) {
    json strategy_rows = json::array();
    for (const auto& r : run.rows) {
      strategy_rows.push_back({{"name", r.name},
                               {"moved", r.moved},
                               {"moved_fraction", r.moved_fraction},
                               {"ideal_fraction", r.ideal_fraction},
                               {"changed_share", r.changed_share},
                               {"peak_avg", r.peak_avg},
                               {"min_share", r.min_share},
                               {"max_share", r.max_share},
                               {"memory_bytes", r.memory_bytes},
                               {"supports", r.supports}});
    }
    runs.push_back({{"from_nodes", run.from_nodes},
                    {"ideal_fraction", run.ideal_fraction},
                    {"strategies", strategy_rows}});
  }
  doc["strategies"] = {
      {"keys", tour.strategies.keys}, {"ring_vnodes", tour.strategies.ring_vnodes}, {"runs", runs}};
  doc["systems"] = systems_json(tour.systems);
  doc["window"] = window_section_json(tour.window);
  return doc;
}

}  // namespace ringbloom::tour
