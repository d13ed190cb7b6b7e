// ringbloom/tour/tour.hpp: the seed tour, every experiment of the two seed
// lessons replayed on the library, as plain data.
//
// What it is. The two lessons the project starts from (lab11, Russian; the
// German lesson on Bloom filters and consistent hashing) make claims with
// numbers: "hash % N moves 79.6% of the keys", "with 100 virtual nodes the
// shares lie between 24 and 26 percent", "user5 is a false positive". Each
// function here runs one of those experiments on the real library (hash.hpp,
// ring.hpp, bloom.hpp) and returns what it measured, with nothing formatted.
// `ringbloom demo` prints these structs as text, JSON or an HTML report, and
// tests/tour/tour_test.cpp checks them against the library and the lessons.
//
// The sections (docs/tour.md shows each one and the JSON shape):
//   1. rebalance:  hash % N against the ring when N grows by one.
//   2. removal:    a node leaves; only its keys move, to the clockwise
//                  neighbour.
//   3. vnodes:     shares with 1 and 100 virtual nodes, and a sweep of
//                  virtual nodes against balance, memory and add cost.
//   4. poly31:     lab11's polynomial hash on short keys.
//   5. exercises:  the German lesson's hand-computed rings (explicit tokens).
//   6. bloom:      the m=16, k=2 walkthrough, the 1,000-address exercise, the
//                  rate as a filter fills past capacity, memory against a set.
//   7. sketches:   HyperLogLog's error in both directions, Count-Min never
//                  under, Top-K recall, cuckoo against counting Bloom
//                  (sketch_section.hpp).
//   8. merkle:     two replicas compared through Merkle trees: digests
//                  exchanged and rows to compare, and the depth trade-off.
//   9. strategies: every placement strategy on section 1's N -> N+1
//                  (strategies_section.hpp).
//  10. systems:    the real systems' rules (nginx, HAProxy, twemproxy, ...)
//                  on the same change, and their quirks (systems_section.hpp).
//  11. window:     filters that forget: second-hit cache admission on a CDN
//                  trace, and a log deduplicated within a window
//                  (window_section.hpp).
//  12. quantiles:  t-digest and KLL on seven streams; the stream that drives
//                  t-digest's rank error to tens of percent while KLL holds
//                  its bound (quantile_section.hpp).
//
// Guarantees. Everything is deterministic: keys are "key-0", "key-1", ...;
// addresses are "user<i>@example.com" and strangers "other<i>@example.org";
// no random numbers are drawn but the quantile section's, from fixed seeds
// (quantile/streams.hpp). The same options give the same result on
// every platform. The default options are the lessons' sizes and run in well
// under a second in a release build; tour_options::quick() shrinks only the
// parts whose meaning does not depend on size (sanitizer builds, tests).
//
// Example:
//
//   #include <ringbloom/tour/tour.hpp>
//   ringbloom::tour::tour_result t = ringbloom::tour::run_tour();
//   double moved = t.rebalance.rows[0].modulo_fraction();   // 0.7959 for sha256, 4 -> 5
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/tour/merkle_section.hpp"
#include "ringbloom/tour/quantile_section.hpp"
#include "ringbloom/tour/sketch_section.hpp"
#include "ringbloom/tour/strategies_section.hpp"
#include "ringbloom/tour/systems_section.hpp"
#include "ringbloom/tour/window_section.hpp"

namespace ringbloom::tour {

/// The sizes of the experiments. The defaults are the lessons' own.
struct tour_options {
  /// Keys "key-0" .. "key-(keys-1)" (both lessons' 20,000 for the German
  /// figures; lab11 used 10,000).
  std::uint32_t keys = 20000;
  /// Virtual nodes per node of the rings in sections 1, 2 and 4 (both
  /// lessons: 100).
  std::uint32_t vnodes = 100;
  /// The moved-fraction curve covers N -> N+1 for N = 1 .. max_nodes.
  std::uint32_t max_nodes = 16;
  /// Section 3's sweep: virtual nodes per node, on sweep_nodes nodes.
  std::vector<std::uint32_t> vnode_sweep{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  std::uint32_t sweep_nodes = 10;
  /// The German Bloom exercise: items in m bits with k hashes, probed with
  /// strangers.
  std::uint64_t exercise_items = 1000;
  std::uint64_t exercise_bits = 8000;
  std::uint32_t exercise_hashes = 7;
  std::uint64_t exercise_strangers = 5000;
  /// The fill curve: a classic filter sized for fill_capacity items at
  /// fill_target_fpr, filled to each multiple of the capacity in fill_steps
  /// and probed with fill_strangers strangers at each step.
  std::uint64_t fill_capacity = 10000;
  double fill_target_fpr = 0.01;
  std::uint64_t fill_strangers = 20000;
  std::vector<double> fill_steps{0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0};
  /// Section 6's memory comparison: a filter at memory_fpr against an exact
  /// set, for each item count.
  std::vector<std::uint64_t> memory_items{1000, 10000, 100000};
  /// Section 8, Merkle trees (merkle_section.hpp).
  merkle_tour_options merkle{};
  double memory_fpr = 0.01;
  /// Section 7's sizes (sketch_section.hpp).
  sketch_options sketches;
  /// Section 11's sizes (window_section.hpp).
  window_tour_options window{};
  /// Section 12's sizes (quantile_section.hpp).
  quantile_tour_options quantiles{};

  /// Smaller sizes for tests under sanitizers. The lessons' figures that
  /// depend on size (keys, the exercise) keep their real sizes; only the
  /// sweep, the fill curve and the memory rows shrink.
  [[nodiscard]] static tour_options quick();
};

/// Figures the lessons print, quoted for comparison. Not computed: the tour
/// measures its own and shows these beside them.
struct lesson_figures {
  // German lesson, Step 2: hash % N over key-0..key-19999 with SHA-256.
  static constexpr double modulo_4_to_5 = 0.796;
  static constexpr double modulo_10_to_11 = 0.908;
  // German lesson, Step 2: 4 nodes n1..n4, 20000 keys, SHA-256 of "name#i".
  static constexpr double share_1_vnode_low = 0.07;
  static constexpr double share_1_vnode_high = 0.37;
  static constexpr double share_100_vnodes_low = 0.24;
  static constexpr double share_100_vnodes_high = 0.26;
  // lab11: "on 10000 keys: hash % N about 80%, the ring about 20% (1/5)".
  static constexpr double lab11_modulo = 0.80;
  static constexpr double lab11_ring = 0.20;
};

// --- 1. rebalance -----------------------------------------------------------

/// One growth N -> N+1 under one hash: how many keys move under hash % N and
/// on a ring of nodes n1..nN (then n(N+1) joins).
struct rebalance_row {
  hash_kind hash = default_hash;
  std::uint32_t from_nodes = 0;
  std::uint64_t keys = 0;
  std::uint64_t modulo_moved = 0;
  std::uint64_t ring_moved = 0;
  /// Of ring_moved, those that moved onto the new node (all of them, by the
  /// ring's rule).
  std::uint64_t ring_moved_to_new = 0;

  [[nodiscard]] double modulo_fraction() const noexcept;
  [[nodiscard]] double ring_fraction() const noexcept;
  /// 1/(N+1): the share a new node should take.
  [[nodiscard]] double ideal_fraction() const noexcept;
};

/// One point of the moved-fraction curve.
struct rebalance_point {
  std::uint32_t from_nodes = 0;
  double modulo = 0;
  double ring = 0;
  double ideal = 0;
};

struct rebalance_section {
  std::uint32_t vnodes = 0;
  /// 4 -> 5 and 10 -> 11 for sha256 (the German lesson's hash), xxh3 (the
  /// default) and poly31 (lab11's).
  std::vector<rebalance_row> rows;
  /// N -> N+1 for N = 1..max_nodes, with curve_hash.
  hash_kind curve_hash = hash_kind::sha256;
  std::vector<rebalance_point> curve;
};

[[nodiscard]] rebalance_section measure_rebalance(const tour_options& options = {});

// --- 2. removal -------------------------------------------------------------

/// Node `removed` leaves a ring of nodes n1..n5 (sha256 points).
struct removal_case {
  std::uint32_t vnodes = 0;
  std::string removed;
  std::uint64_t keys = 0;
  /// Keys the removed node owned before.
  std::uint64_t keys_on_removed = 0;
  std::uint64_t moved = 0;
  /// Moved keys that were not on the removed node (0 by the ring's rule).
  std::uint64_t moved_from_others = 0;
  /// Moved keys whose new owner is the owner of the first point clockwise
  /// from the key that is not the removed node's, read from the old ring's
  /// points (all of them, by the ring's rule).
  std::uint64_t moved_to_clockwise_neighbour = 0;
  /// Moved keys by the node that took them.
  std::map<std::string, std::uint64_t> moved_to;
};

/// With 1 virtual node (the keys go to one neighbour) and with the
/// options' vnodes (they spread over all the others).
[[nodiscard]] std::vector<removal_case> measure_removal(const tour_options& options = {});

// --- 3. virtual nodes ---------------------------------------------------------

/// How keys spread over the nodes of one ring.
struct share_table {
  hash_kind hash = default_hash;
  std::uint32_t vnodes = 0;
  std::uint64_t keys = 0;
  std::vector<std::string> nodes;
  /// Keys per node / keys, in node order.
  std::vector<double> key_shares;
  /// The fraction of the hash space each node owns, in node order.
  std::vector<double> space_shares;
  /// The largest key count over the average (1 is perfect).
  double peak_to_average = 0;
  [[nodiscard]] double min_share() const noexcept;
  [[nodiscard]] double max_share() const noexcept;
};

/// One row of the sweep: a ring of sweep_nodes nodes (xxh3) with `vnodes`
/// points per node, then one more node joins.
struct sweep_row {
  std::uint32_t vnodes = 0;
  std::size_t points = 0;
  /// hash_ring::memory_bytes() of the ring.
  std::size_t memory_bytes = 0;
  /// Largest space share over the average: the ring's own imbalance,
  /// without the noise of sampling keys.
  double space_peak_to_average = 0;
  /// Largest key count over the average, with the tour's keys.
  double key_peak_to_average = 0;
  /// Points the joining node inserts (the cost of add_node).
  std::size_t add_points = 0;
  /// Nodes that lose keys to the joining node.
  std::uint32_t add_donors = 0;
  /// Fraction of the hash space that changes owner (plan_movement).
  double add_moved_space = 0;
};

struct vnode_section {
  /// n1..n4 with 1 and with the options' vnodes, for sha256 (the lesson's
  /// figures) and xxh3 (the default).
  std::vector<share_table> shares;
  hash_kind sweep_hash = default_hash;
  std::uint32_t sweep_nodes = 0;
  std::vector<sweep_row> sweep;
};

[[nodiscard]] vnode_section measure_vnodes(const tour_options& options = {});

/// The load of key-0..key-(keys-1) on a ring of `nodes` ("n1".."n<nodes>")
/// with `vnodes` points each under `hash`. Used by the sections above.
[[nodiscard]] share_table measure_shares(hash_kind hash, std::uint32_t nodes, std::uint32_t vnodes,
                                         std::uint32_t keys);

// --- 4. poly31 --------------------------------------------------------------

/// Where a set of 64-bit values lands: of `arcs` equal arcs of the ring, how
/// many hold at least one value.
struct spread {
  std::uint64_t values = 0;
  std::uint32_t arcs = 0;
  std::uint32_t occupied_arcs = 0;
};

struct poly31_section {
  std::uint64_t hash_key_1 = 0;  ///< poly31("key-1")
  std::uint64_t hash_key_2 = 0;  ///< poly31("key-2")
  /// Consecutive keys key-i, key-(i+1) of the same length whose poly31
  /// hashes differ by exactly 1, and the number of such pairs checked.
  std::uint64_t adjacent_pairs = 0;
  std::uint64_t adjacent_pairs_checked = 0;
  /// Where the keys and the ring's points land, for poly31 and xxh3.
  spread poly31_keys, xxh3_keys, poly31_points, xxh3_points;
  /// n1..n4 with the options' vnodes, keys as in section 1.
  share_table poly31_shares;
  share_table xxh3_shares;
};

[[nodiscard]] poly31_section measure_poly31(const tour_options& options = {});

// --- 5. the German ring exercises ---------------------------------------------

struct token_node {
  std::string name;
  std::vector<std::uint64_t> tokens;
};

/// A ring of nodes at explicit positions, keys given by their hash values,
/// and one change of membership.
struct token_exercise {
  std::string name;  ///< "step2" or "exercise2"
  std::vector<token_node> nodes;
  std::vector<std::uint64_t> key_hashes;
  std::string change;  ///< e.g. "Y fails", "D joins at 60"
  /// The owner of each key, one letter per key, before and after.
  std::string before;
  std::string after;
  std::uint32_t moved = 0;
  /// The lesson's printed answer.
  std::string lesson_before;
  std::string lesson_after;
  std::uint32_t lesson_moved = 0;
};

/// Step 2's example (A 10, B 45, C 80; D joins at 60) and exercise 2 (X 20,
/// Y 55, Z 90; Y fails), computed with add_node_at and node_for_hash.
[[nodiscard]] std::vector<token_exercise> run_token_exercises();

// --- 6. Bloom filters -----------------------------------------------------------

/// One item of the walkthrough.
struct bloom_probe {
  std::string item;
  bool added = false;
  std::vector<std::uint64_t> positions;
  /// The bit at each position after the additions.
  std::vector<bool> bits;
  bool may_contain = false;
  /// For each position, the added items whose positions include it.
  std::vector<std::vector<std::string>> set_by;
};

/// The German lesson's m=16, k=2 walkthrough (sha256 positions).
struct bloom_walkthrough {
  filter_size size;
  hash_kind hash = hash_kind::sha256;
  std::vector<std::string> added;
  /// The bits after the additions, bit 0 first, as '0'/'1'.
  std::string bit_string;
  std::vector<bloom_probe> probes;
};

[[nodiscard]] bloom_walkthrough run_bloom_walkthrough();

/// One run of the exercise: `items` addresses in a classic filter, probed
/// with `strangers` other addresses.
struct fpr_exercise {
  hash_kind hash = default_hash;
  filter_size size;
  std::uint64_t items = 0;
  std::uint64_t strangers = 0;
  std::uint64_t false_negatives = 0;
  std::uint64_t false_positives = 0;
  /// (1 - e^(-kn/m))^k.
  double formula = 0;
  /// stats().expected_fpr: the rate predicted from the bits actually set.
  double expected_from_bits = 0;
  [[nodiscard]] double measured() const noexcept;
};

/// The exercise with sha256 (the lesson's positions), xxh3 (the default)
/// and poly31 (lab11's positions).
[[nodiscard]] std::vector<fpr_exercise> run_fpr_exercise(const tour_options& options = {});

struct fill_point {
  std::uint64_t items = 0;
  /// items / capacity.
  double load = 0;
  std::uint64_t false_positives = 0;
  double measured = 0;
  double formula = 0;
  /// Fraction of bits set.
  double fill_ratio = 0;
};

/// A classic filter (xxh3) sized for `capacity` at `target_fpr`, filled past
/// its capacity.
struct fill_curve {
  std::uint64_t capacity = 0;
  double target_fpr = 0;
  filter_size size;
  std::uint64_t strangers = 0;
  std::vector<fill_point> points;
  /// The formula sampled densely over [0, the last step's load], for
  /// drawing the curve.
  std::vector<fill_point> formula_curve;
};

[[nodiscard]] fill_curve measure_fill(const tour_options& options = {});

/// A filter sized for `items` at `fpr` against an exact set of the same
/// items (std::pmr::unordered_set<std::pmr::string>, every byte it
/// allocates counted: nodes, buckets and string buffers).
struct memory_row {
  std::uint64_t items = 0;
  /// The bytes of the items themselves.
  std::uint64_t item_bytes = 0;
  std::uint64_t set_bytes = 0;
  std::uint64_t filter_bytes = 0;
  double fpr = 0;
  filter_size size;
};

[[nodiscard]] std::vector<memory_row> measure_memory(const tour_options& options = {});

struct bloom_section {
  bloom_walkthrough walkthrough;
  std::vector<fpr_exercise> exercise;
  fill_curve fill;
  std::vector<memory_row> memory;
};

// --- the whole tour ----------------------------------------------------------------

struct tour_result {
  tour_options options;
  rebalance_section rebalance;
  std::vector<removal_case> removal;
  vnode_section vnodes;
  poly31_section poly31;
  std::vector<token_exercise> exercises;
  bloom_section bloom;
  /// Section 7: the German lesson's claims about HyperLogLog and Count-Min,
  /// Top-K and the cuckoo filter (sketch_section.hpp).
  sketch_section sketches;
  merkle_section merkle;
  strategies_section strategies;  ///< section 9 (strategies_section.hpp)
  systems_section systems;        ///< section 10 (systems_section.hpp), N = 10
  window_section window;          ///< section 11 (window_section.hpp)
  quantile_section quantiles;     ///< section 12 (quantile_section.hpp)
};

/// Every section. Throws std::invalid_argument if an option is out of range
/// (keys 0, max_nodes 0, a vnode count 0, a fill step <= 0 ...).
[[nodiscard]] tour_result run_tour(const tour_options& options = {});

/// The test keys: "key-<i>".
[[nodiscard]] std::string tour_key(std::uint64_t i);
/// The exercise's addresses "user<i>@example.com" and strangers
/// "other<i>@example.org".
[[nodiscard]] std::string tour_address(std::uint64_t i);
[[nodiscard]] std::string tour_stranger(std::uint64_t i);

}  // namespace ringbloom::tour
