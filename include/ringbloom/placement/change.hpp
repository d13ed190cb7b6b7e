// ringbloom/placement/change.hpp: how many keys a change of nodes moves, and
// how few it could have moved: the one measurement behind `ringbloom ring
// simulate`, `ring diff` of system schemes and Python's measure_change.
//
// What it is. measure_change places each key with two placements, before and
// after a change (any placement.hpp kind: a ring, a strategy, a system's
// scheme), and counts:
//   - moved: keys whose owner's name differs (as ring.hpp's movement_tally
//     counts them, with the loads and flows in the same single lookup pass);
//   - moved between survivors: moved keys whose old and new owners are both
//     on each side, i.e. moves no added or removed node explains (0 for a
//     placement that is monotone, as consistent hashing promises);
//   - the flows (from, to) and each node's load before and after, and the
//     balance: the largest load over the average, load x nodes / keys;
//   - the least possible: given the nodes' weights on each side, the total
//     variation distance between the fair shares, ideal_moved_fraction
//     (strategies.hpp): no placement that gives every node its weight's
//     share can move fewer keys in expectation. For one node of weight 1
//     added to a=1,b=3 it is 20%, not 1/3.
// For two Redis Cluster placements it also counts the hash slots whose master
// changes (the exact share of the slot space).
//
// Keys come from a key_pattern ("key-{}" numbered from 0, the lessons' keys)
// or from a list. Cost: two lookups per key and counts by node index, no
// allocation per key. Memory: one count per node and per (from, to) pair;
// keys are not held.
//
// Example:
//
//   auto before = ringbloom::parse_node_list("a=1,b=3");
//   auto after = before; after.push_back({"c", 1});
//   auto p = ringbloom::schemes::make_scheme_placement("nginx", before);
//   auto q = ringbloom::schemes::make_scheme_placement("nginx", after);
//   auto m = ringbloom::measure_change(*p, *q, ringbloom::key_pattern("key-{}"), 20000,
//                                      before, after);
//   // m.moved_fraction() = 0.2084, m.ideal_fraction = 0.2
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/ring.hpp"

namespace ringbloom {

/// Keys made from a pattern: every "{}" of `format` replaced by the key's
/// number ("key-{}" makes key-0, key-1, ...).
class key_pattern {
 public:
  /// Throws std::invalid_argument "--key-format '...' has no '{}' ..." when
  /// `format` has no "{}".
  explicit key_pattern(std::string format);

  /// Key number `i`; the reference is valid until the next call.
  [[nodiscard]] const std::string& operator()(std::uint64_t i);

  [[nodiscard]] const std::string& format() const noexcept { return format_; }

 private:
  std::string format_;
  std::string key_;
};

/// The keys a change is measured over: `count` numbered keys of a pattern,
/// or a list (the lines of a keys file, `ring diff --keys FILE`), whose
/// moved keys measure_change keeps (change_measure::moved_keys).
///
///   key_source keys = key_source::read_file("keys.txt");   // or key_source(key_pattern("key-{}"),
///   100000) change_measure m = measure_change(*before, *after, keys);
class key_source {
 public:
  /// The largest keys file read_file reads: 1 GiB.
  static constexpr std::uint64_t max_file_bytes = std::uint64_t{1} << 30;

  key_source(key_pattern pattern, std::uint64_t count);
  /// The non-empty lines of `path` (io::read_lines with max_file_bytes and
  /// its refusals; messages name "--keys PATH").
  [[nodiscard]] static key_source read_file(const std::string& path);

  [[nodiscard]] std::uint64_t size() const noexcept { return is_list() ? list_.size() : count_; }
  [[nodiscard]] bool is_list() const noexcept { return !file_.empty(); }
  /// What the keys are, for people: the file's name, or "100000 keys key-{}".
  [[nodiscard]] std::string label() const;
  /// Calls `fn` with each key in order.
  void for_each(const std::function<void(std::string_view)>& fn) const;

 private:
  key_source() = default;
  key_pattern pattern_{"{}"};
  std::uint64_t count_ = 0;
  std::string file_;
  std::vector<std::string> list_;
};

/// One key whose owner changed, and its owners' names before and after.
struct moved_key {
  std::string key;
  std::string from;
  std::string to;
};

/// The figures of one change (see the header).
struct change_measure {
  std::uint64_t keys = 0;
  std::uint64_t moved = 0;
  std::uint64_t moved_between_survivors = 0;
  /// The least fraction that must move, by weight (0 when no weights were
  /// given: measure_change without node lists).
  double ideal_fraction = 0;
  /// Moved keys by the node they went to, by the node they left, and by
  /// (from, to).
  std::map<std::string, std::uint64_t> moved_to;
  std::map<std::string, std::uint64_t> moved_from;
  std::map<std::pair<std::string, std::string>, std::uint64_t> flows;
  /// Keys per node name (nodes without keys are absent).
  std::map<std::string, std::uint64_t> load_before;
  std::map<std::string, std::uint64_t> load_after;
  /// The largest load over the average (load x node count / keys; 0 without
  /// keys).
  double peak_to_average_before = 0;
  double peak_to_average_after = 0;
  /// Redis Cluster on both sides: the hash slots whose master changes.
  std::optional<std::uint32_t> slots_moved;
  /// The moved keys themselves, in the order they were added: only from a
  /// change_tally told to record_moved_keys() (it holds them; empty otherwise).
  std::vector<moved_key> moved_keys;

  /// slots_moved over the 16384 slots, when both sides are Redis Cluster
  /// placements.
  [[nodiscard]] std::optional<double> slots_moved_fraction() const noexcept;
  /// moved / keys (0 without keys).
  [[nodiscard]] double moved_fraction() const noexcept {
    return keys == 0 ? 0.0 : static_cast<double>(moved) / static_cast<double>(keys);
  }
  /// The share of the keys on `node` before / after the change: its load
  /// over keys (0 for a node without keys, and without keys).
  [[nodiscard]] double share_before(const std::string& node) const noexcept {
    return share(load_before, node);
  }
  [[nodiscard]] double share_after(const std::string& node) const noexcept {
    return share(load_after, node);
  }

 private:
  [[nodiscard]] double share(const std::map<std::string, std::uint64_t>& load,
                             const std::string& node) const noexcept {
    const auto it = load.find(node);
    if (keys == 0 || it == load.end()) return 0.0;
    return static_cast<double>(it->second) / static_cast<double>(keys);
  }
};

/// Counts a change one key at a time. Both placements must outlive the
/// tally and stay unmodified.
class change_tally {
 public:
  /// With node lists, the result's ideal_fraction is ideal_moved_fraction of
  /// them; without, 0. Throws std::logic_error (from the lookups) when a
  /// placement has no nodes, on the first key.
  change_tally(const placement& before, const placement& after,
               std::span<const placement_node> before_nodes = {},
               std::span<const placement_node> after_nodes = {});

  /// Keeps each moved key with its owners (change_measure::moved_keys), for
  /// a list of keys short enough to print (`ring diff --keys FILE`); the
  /// memory grows with the moved keys.
  void record_moved_keys() noexcept { record_ = true; }

  /// Places `key` before and after.
  void add(std::string_view key);

  /// The figures so far.
  [[nodiscard]] change_measure result() const;

 private:
  const placement* before_;
  const placement* after_;
  double ideal_ = 0;
  std::uint64_t keys_ = 0;
  // Counts by node index (names are looked up once, in result()); a flow is
  // before-index << 32 | after-index.
  std::vector<std::uint64_t> load_before_;
  std::vector<std::uint64_t> load_after_;
  std::unordered_map<std::uint64_t, std::uint64_t> flows_;
  bool record_ = false;
  std::vector<moved_key> moved_keys_;
};

/// The change from `before` to `after` over keys 0..count-1 of `keys`,
/// with the least possible figure from the node lists (when given).
[[nodiscard]] change_measure measure_change(const placement& before, const placement& after,
                                            key_pattern keys, std::uint64_t count,
                                            std::span<const placement_node> before_nodes = {},
                                            std::span<const placement_node> after_nodes = {});

/// The same over a list of keys.
[[nodiscard]] change_measure measure_change(const placement& before, const placement& after,
                                            std::span<const std::string> keys,
                                            std::span<const placement_node> before_nodes = {},
                                            std::span<const placement_node> after_nodes = {});

/// The same over a key_source; a list's moved keys are kept
/// (change_tally::record_moved_keys).
[[nodiscard]] change_measure measure_change(const placement& before, const placement& after,
                                            const key_source& keys);

/// The fraction of the hash space whose owner changes from ring `before` to
/// ring `after` (the topology files `ring add` and `ring remove` change):
/// plan_movement's moved_fraction when both have nodes; 1 when only one side
/// has (every key gains or loses its owner); 0 when neither has.
[[nodiscard]] double space_moved_fraction(const hash_ring& before, const hash_ring& after);

/// The share of the hash space that moves from one node to another.
struct range_flow {
  std::string from;
  std::string to;
  double fraction = 0;  ///< of the whole space [0, space_max]
};

/// The flows of a ring's movement plan (ring.hpp): its ranges summed per
/// (from, to), in order of first appearance, each range of size
/// (last - first + 1) / (space_max + 1). `space_max` is the rings'
/// hash_ring::space_max().
[[nodiscard]] std::vector<range_flow> range_flows(const movement_plan& plan,
                                                  std::uint64_t space_max);

}  // namespace ringbloom
