// The seed tour's experiments (see include/ringbloom/tour/tour.hpp).
#include "ringbloom/tour/tour.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory_resource>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/placement/ring.hpp"

namespace ringbloom::tour {
namespace {

double ratio(std::uint64_t part, std::uint64_t whole) noexcept {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

std::string node_name(std::uint32_t i) { return "n" + std::to_string(i); }

// A native ring of nodes n1..n<nodes>.
hash_ring make_ring(hash_kind hash, std::uint32_t nodes, std::uint32_t vnodes) {
  ring_options options;
  options.hash = hash;
  options.vnodes = vnodes;
  hash_ring ring(options);
  for (std::uint32_t i = 1; i <= nodes; ++i) ring.add_node(node_name(i));
  return ring;
}

std::vector<std::uint64_t> key_hashes(hash_kind hash, std::uint32_t keys) {
  std::vector<std::uint64_t> out;
  out.reserve(keys);
  for (std::uint32_t i = 0; i < keys; ++i) out.push_back(hash64(hash, tour_key(i)));
  return out;
}

std::uint64_t modulo_moved(std::span<const std::uint64_t> hashes, std::uint32_t nodes) {
  std::uint64_t moved = 0;
  for (std::uint64_t h : hashes) moved += (h % nodes != h % (nodes + 1)) ? 1 : 0;
  return moved;
}

struct ring_moves {
  std::uint64_t moved = 0;
  std::uint64_t moved_to_new = 0;
};

// Keys whose owner differs between `before` and `after`; `joined` names the
// node that joined (or is empty).
ring_moves ring_moved(const hash_ring& before, const hash_ring& after,
                      std::span<const std::uint64_t> hashes, std::string_view joined) {
  ring_moves out;
  for (std::uint64_t h : hashes) {
    const std::string& to = after.node_for_hash(h);
    if (before.node_for_hash(h) != to) {
      ++out.moved;
      if (to == joined) ++out.moved_to_new;
    }
  }
  return out;
}

spread spread_of(std::span<const std::uint64_t> values) {
  constexpr int arc_bits = 10;
  spread s;
  s.values = values.size();
  s.arcs = 1u << arc_bits;
  std::vector<bool> hit(s.arcs, false);
  for (std::uint64_t v : values) hit[static_cast<std::size_t>(v >> (64 - arc_bits))] = true;
  s.occupied_arcs = static_cast<std::uint32_t>(std::count(hit.begin(), hit.end(), true));
  return s;
}

void check_options(const tour_options& o) {
  auto fail = [](const char* what) {
    throw std::invalid_argument(std::string("tour option ") + what);
  };
  if (o.keys == 0) fail("keys is 0; give at least one key");
  if (o.vnodes == 0) fail("vnodes is 0; give each node at least one point");
  if (o.max_nodes == 0) fail("max_nodes is 0; the moved-fraction curve needs at least N = 1");
  if (o.sweep_nodes == 0) fail("sweep_nodes is 0; the sweep needs at least one node");
  for (std::uint32_t v : o.vnode_sweep) {
    if (v == 0) fail("vnode_sweep holds 0; every sweep value must be at least 1");
  }
  if (o.exercise_items == 0 || o.exercise_bits == 0 || o.exercise_hashes == 0 ||
      o.exercise_strangers == 0) {
    fail(
        "exercise_items, exercise_bits, exercise_hashes or exercise_strangers is 0; give each a "
        "positive value");
  }
  if (o.fill_capacity == 0 || o.fill_strangers == 0) {
    fail("fill_capacity or fill_strangers is 0; give each a positive value");
  }
  if (!(o.fill_target_fpr > 0 && o.fill_target_fpr < 1) ||
      !(o.memory_fpr > 0 && o.memory_fpr < 1)) {
    fail("fill_target_fpr or memory_fpr is outside (0, 1); give a rate such as 0.01");
  }
  for (double step : o.fill_steps) {
    if (!(step > 0) || !std::isfinite(step)) {
      fail("fill_steps holds a step <= 0; give positive multiples of the capacity");
    }
  }
  for (std::uint64_t n : o.memory_items) {
    if (n == 0) fail("memory_items holds 0; give positive item counts");
  }
}

// A memory resource that counts the bytes it hands out and takes back.
class counting_resource : public std::pmr::memory_resource {
 public:
  [[nodiscard]] std::uint64_t in_use() const noexcept { return in_use_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    void* p = upstream_->allocate(bytes, alignment);
    in_use_ += bytes;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    upstream_->deallocate(p, bytes, alignment);
    in_use_ -= bytes;
  }
  [[nodiscard]] bool do_is_equal(const memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::pmr::memory_resource* upstream_ = std::pmr::new_delete_resource();
  std::uint64_t in_use_ = 0;
};

}  // namespace

tour_options tour_options::quick() {
  tour_options o;
  o.max_nodes = 8;
  o.vnode_sweep = {1, 10, 100, 1000};
  o.fill_capacity = 2000;
  o.fill_strangers = 5000;
  o.fill_steps = {0.5, 1.0, 2.0, 3.0};
  o.memory_items = {1000, 5000};
  o.sketches = sketch_options::quick();
  o.merkle = merkle_tour_options::quick();
  o.window = window_tour_options::quick();
  o.quantiles = quantile_tour_options::quick();
  return o;
}

std::string tour_key(std::uint64_t i) { return "key-" + std::to_string(i); }
std::string tour_address(std::uint64_t i) { return "user" + std::to_string(i) + "@example.com"; }
std::string tour_stranger(std::uint64_t i) { return "other" + std::to_string(i) + "@example.org"; }

// --- 1 -----------------------------------------------------------------------

double rebalance_row::modulo_fraction() const noexcept { return ratio(modulo_moved, keys); }
double rebalance_row::ring_fraction() const noexcept { return ratio(ring_moved, keys); }
double rebalance_row::ideal_fraction() const noexcept { return 1.0 / (from_nodes + 1.0); }

rebalance_section measure_rebalance(const tour_options& options) {
  check_options(options);
  rebalance_section out;
  out.vnodes = options.vnodes;
  for (hash_kind hash : {hash_kind::sha256, hash_kind::xxh3, hash_kind::poly31}) {
    const std::vector<std::uint64_t> hashes = key_hashes(hash, options.keys);
    for (std::uint32_t n : {4u, 10u}) {
      const hash_ring before = make_ring(hash, n, options.vnodes);
      hash_ring after = before;
      const std::string joined = node_name(n + 1);
      after.add_node(joined);
      const ring_moves moves = ring_moved(before, after, hashes, joined);
      out.rows.push_back(
          {hash, n, options.keys, modulo_moved(hashes, n), moves.moved, moves.moved_to_new});
    }
  }

  out.curve_hash = hash_kind::sha256;
  const std::vector<std::uint64_t> hashes = key_hashes(out.curve_hash, options.keys);
  hash_ring ring = make_ring(out.curve_hash, 1, options.vnodes);
  for (std::uint32_t n = 1; n <= options.max_nodes; ++n) {
    const hash_ring before = ring;
    const std::string joined = node_name(n + 1);
    ring.add_node(joined);
    rebalance_point p;
    p.from_nodes = n;
    p.modulo = ratio(modulo_moved(hashes, n), options.keys);
    p.ring = ratio(ring_moved(before, ring, hashes, joined).moved, options.keys);
    p.ideal = 1.0 / (n + 1.0);
    out.curve.push_back(p);
  }
  return out;
}

// --- 2 -----------------------------------------------------------------------

std::vector<removal_case> measure_removal(const tour_options& options) {
  check_options(options);
  constexpr hash_kind hash = hash_kind::sha256;
  const std::vector<std::uint64_t> hashes = key_hashes(hash, options.keys);
  std::vector<removal_case> out;
  for (std::uint32_t vnodes : {1u, options.vnodes}) {
    const hash_ring before = make_ring(hash, 5, vnodes);
    hash_ring after = before;
    removal_case c;
    c.vnodes = vnodes;
    c.removed = node_name(3);
    c.keys = options.keys;
    after.remove_node(c.removed);
    const std::uint32_t removed_index = *before.find_node(c.removed);
    const auto positions = before.positions();
    const auto owners = before.point_owners();
    for (std::uint64_t h : hashes) {
      const std::string& from = before.node_for_hash(h);
      const std::string& to = after.node_for_hash(h);
      if (from == c.removed) ++c.keys_on_removed;
      if (from == to) continue;
      ++c.moved;
      ++c.moved_to[to];
      if (from != c.removed) ++c.moved_from_others;
      // Walk the old ring clockwise from the key to the first point that is
      // not the removed node's.
      std::size_t i = static_cast<std::size_t>(
          std::lower_bound(positions.begin(), positions.end(), h) - positions.begin());
      for (std::size_t steps = 0; steps < positions.size(); ++steps, ++i) {
        if (i == positions.size()) i = 0;
        if (owners[i] != removed_index) break;
      }
      if (before.nodes()[owners[i % positions.size()]].name == to) {
        ++c.moved_to_clockwise_neighbour;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

// --- 3 -----------------------------------------------------------------------

double share_table::min_share() const noexcept {
  return key_shares.empty() ? 0.0 : *std::min_element(key_shares.begin(), key_shares.end());
}
double share_table::max_share() const noexcept {
  return key_shares.empty() ? 0.0 : *std::max_element(key_shares.begin(), key_shares.end());
}

share_table measure_shares(hash_kind hash, std::uint32_t nodes, std::uint32_t vnodes,
                           std::uint32_t keys) {
  if (nodes == 0 || vnodes == 0 || keys == 0) {
    throw std::invalid_argument(
        "measure_shares needs at least one node, one virtual node and one key; give positive "
        "counts");
  }
  const hash_ring ring = make_ring(hash, nodes, vnodes);
  load_tally tally(ring);
  for (std::uint32_t i = 0; i < keys; ++i) tally.add(tour_key(i));
  const load_report report = tally.report();
  share_table t;
  t.hash = hash;
  t.vnodes = vnodes;
  t.keys = keys;
  for (const node_share& s : report.shares) {
    t.nodes.push_back(s.node);
    t.key_shares.push_back(s.share);
  }
  for (const node_share& s : ownership(ring)) t.space_shares.push_back(s.share);
  t.peak_to_average = report.peak_to_average;
  return t;
}

vnode_section measure_vnodes(const tour_options& options) {
  check_options(options);
  vnode_section out;
  for (hash_kind hash : {hash_kind::sha256, hash_kind::xxh3}) {
    for (std::uint32_t vnodes : {1u, options.vnodes}) {
      out.shares.push_back(measure_shares(hash, 4, vnodes, options.keys));
    }
  }
  out.sweep_hash = default_hash;
  out.sweep_nodes = options.sweep_nodes;
  const std::vector<std::uint64_t> hashes = key_hashes(out.sweep_hash, options.keys);
  for (std::uint32_t vnodes : options.vnode_sweep) {
    const hash_ring before = make_ring(out.sweep_hash, options.sweep_nodes, vnodes);
    sweep_row row;
    row.vnodes = vnodes;
    row.points = before.point_count();
    row.memory_bytes = before.memory_bytes();
    double max_space = 0;
    for (const node_share& s : ownership(before)) max_space = std::max(max_space, s.share);
    row.space_peak_to_average = max_space * options.sweep_nodes;
    load_tally tally(before);
    for (std::uint64_t h : hashes) tally.add_hash(h);
    row.key_peak_to_average = tally.report().peak_to_average;

    hash_ring after = before;
    after.add_node(node_name(options.sweep_nodes + 1));
    row.add_points = after.point_count() - before.point_count();
    const movement_plan plan = plan_movement(before, after);
    std::set<std::string> donors;
    for (const moved_range& r : plan.ranges) donors.insert(r.from);
    row.add_donors = static_cast<std::uint32_t>(donors.size());
    row.add_moved_space = plan.moved_fraction;
    out.sweep.push_back(row);
  }
  return out;
}

// --- 4 -----------------------------------------------------------------------

poly31_section measure_poly31(const tour_options& options) {
  check_options(options);
  poly31_section out;
  out.hash_key_1 = poly31("key-1");
  out.hash_key_2 = poly31("key-2");
  for (std::uint32_t i = 0; i + 1 < options.keys; ++i) {
    const std::string a = tour_key(i);
    const std::string b = tour_key(i + 1);
    if (a.size() != b.size()) continue;
    ++out.adjacent_pairs_checked;
    if (poly31(b) - poly31(a) == 1) ++out.adjacent_pairs;
  }
  out.poly31_keys = spread_of(key_hashes(hash_kind::poly31, options.keys));
  out.xxh3_keys = spread_of(key_hashes(hash_kind::xxh3, options.keys));
  const hash_ring poly_ring = make_ring(hash_kind::poly31, 4, options.vnodes);
  const hash_ring xxh3_ring = make_ring(hash_kind::xxh3, 4, options.vnodes);
  out.poly31_points = spread_of(poly_ring.positions());
  out.xxh3_points = spread_of(xxh3_ring.positions());
  out.poly31_shares = measure_shares(hash_kind::poly31, 4, options.vnodes, options.keys);
  out.xxh3_shares = measure_shares(hash_kind::xxh3, 4, options.vnodes, options.keys);
  return out;
}

// --- 5 -----------------------------------------------------------------------

namespace {

std::string owners_of(const hash_ring& ring, std::span<const std::uint64_t> key_hashes) {
  std::string out;
  for (std::uint64_t h : key_hashes) out += ring.node_for_hash(h);
  return out;
}

token_exercise run_exercise(std::string name, std::vector<token_node> nodes,
                            std::vector<std::uint64_t> keys, std::string change,
                            const std::function<void(hash_ring&)>& apply) {
  token_exercise e;
  e.name = std::move(name);
  e.nodes = std::move(nodes);
  e.key_hashes = std::move(keys);
  e.change = std::move(change);
  hash_ring ring;
  for (const token_node& n : e.nodes) ring.add_node_at(n.name, n.tokens);
  e.before = owners_of(ring, e.key_hashes);
  apply(ring);
  e.after = owners_of(ring, e.key_hashes);
  for (std::size_t i = 0; i < e.before.size(); ++i) e.moved += e.before[i] != e.after[i] ? 1 : 0;
  return e;
}

}  // namespace

std::vector<token_exercise> run_token_exercises() {
  std::vector<token_exercise> out;
  // German lesson, Step 2: "A at 10, B at 45, C at 80. Then D joins at 60."
  out.push_back(run_exercise("step2", {{"A", {10}}, {"B", {45}}, {"C", {80}}}, {5, 30, 47, 70, 90},
                             "D joins at 60", [](hash_ring& ring) {
                               const std::uint64_t token = 60;
                               ring.add_node_at("D", std::span(&token, 1));
                             }));
  out.back().lesson_before = "ABCCA";
  out.back().lesson_after = "ABDCA";
  out.back().lesson_moved = 1;
  // Exercise 2: "X at 20, Y at 55, Z at 90; keys 3, 21, 56, 91, 99, 54; Y fails."
  out.push_back(run_exercise("exercise2", {{"X", {20}}, {"Y", {55}}, {"Z", {90}}},
                             {3, 21, 56, 91, 99, 54}, "Y fails",
                             [](hash_ring& ring) { ring.remove_node("Y"); }));
  out.back().lesson_before = "XYZXXY";
  out.back().lesson_after = "XZZXXZ";
  out.back().lesson_moved = 2;
  return out;
}

// --- 6 -----------------------------------------------------------------------

bloom_walkthrough run_bloom_walkthrough() {
  bloom_walkthrough w;
  w.size = {16, 2};
  w.hash = hash_kind::sha256;
  w.added = {"anna", "bora"};
  bloom_filter filter(w.size.bits, w.size.hashes, w.hash);
  for (const std::string& item : w.added) filter.add(item);
  for (std::uint64_t i = 0; i < w.size.bits; ++i) w.bit_string += filter.bit(i) ? '1' : '0';
  for (const char* item : {"anna", "bora", "cem", "user5"}) {
    bloom_probe p;
    p.item = item;
    p.added = std::find(w.added.begin(), w.added.end(), p.item) != w.added.end();
    p.positions = filter.positions(p.item);
    for (std::uint64_t pos : p.positions) {
      p.bits.push_back(filter.bit(pos));
      std::vector<std::string> by;
      for (const std::string& added : w.added) {
        const std::vector<std::uint64_t> theirs = filter.positions(added);
        if (std::find(theirs.begin(), theirs.end(), pos) != theirs.end()) by.push_back(added);
      }
      p.set_by.push_back(std::move(by));
    }
    p.may_contain = filter.may_contain(p.item);
    w.probes.push_back(std::move(p));
  }
  return w;
}

double fpr_exercise::measured() const noexcept { return ratio(false_positives, strangers); }

std::vector<fpr_exercise> run_fpr_exercise(const tour_options& options) {
  check_options(options);
  std::vector<fpr_exercise> out;
  for (hash_kind hash : {hash_kind::sha256, hash_kind::xxh3, hash_kind::poly31}) {
    fpr_exercise e;
    e.hash = hash;
    e.size = {options.exercise_bits, options.exercise_hashes};
    e.items = options.exercise_items;
    e.strangers = options.exercise_strangers;
    bloom_filter filter(e.size.bits, e.size.hashes, hash);
    for (std::uint64_t i = 0; i < e.items; ++i) filter.add(tour_address(i));
    for (std::uint64_t i = 0; i < e.items; ++i) {
      e.false_negatives += filter.may_contain(tour_address(i)) ? 0 : 1;
    }
    for (std::uint64_t i = 0; i < e.strangers; ++i) {
      e.false_positives += filter.may_contain(tour_stranger(i)) ? 1 : 0;
    }
    e.formula = bloom_math::classic_fpr(static_cast<double>(e.items),
                                        static_cast<double>(e.size.bits), e.size.hashes);
    e.expected_from_bits = filter.stats().expected_fpr;
    out.push_back(e);
  }
  return out;
}

fill_curve measure_fill(const tour_options& options) {
  check_options(options);
  fill_curve c;
  c.capacity = options.fill_capacity;
  c.target_fpr = options.fill_target_fpr;
  c.strangers = options.fill_strangers;
  bloom_filter filter = bloom_filter::for_capacity(c.capacity, c.target_fpr, hash_kind::xxh3);
  c.size = {filter.bits(), filter.hashes()};
  const double m = static_cast<double>(c.size.bits);
  const double k = c.size.hashes;
  const double cap = static_cast<double>(c.capacity);

  std::vector<double> steps = options.fill_steps;
  std::sort(steps.begin(), steps.end());
  std::uint64_t added = 0;
  for (double step : steps) {
    const auto target = static_cast<std::uint64_t>(std::llround(step * cap));
    for (; added < target; ++added) filter.add(tour_address(added));
    fill_point p;
    p.items = added;
    p.load = static_cast<double>(added) / cap;
    for (std::uint64_t i = 0; i < c.strangers; ++i) {
      p.false_positives += filter.may_contain(tour_stranger(i)) ? 1 : 0;
    }
    p.measured = ratio(p.false_positives, c.strangers);
    p.formula = bloom_math::classic_fpr(static_cast<double>(added), m, k);
    p.fill_ratio = filter.stats().fill_ratio;
    c.points.push_back(p);
  }

  constexpr int samples = 60;
  const double last = steps.empty() ? 1.0 : steps.back();
  for (int i = 0; i <= samples; ++i) {
    fill_point p;
    p.load = last * i / samples;
    p.items = static_cast<std::uint64_t>(std::llround(p.load * cap));
    p.formula = bloom_math::classic_fpr(p.load * cap, m, k);
    p.fill_ratio = 1.0 - std::exp(-k * p.load * cap / m);
    c.formula_curve.push_back(p);
  }
  return c;
}

std::vector<memory_row> measure_memory(const tour_options& options) {
  check_options(options);
  std::vector<memory_row> out;
  for (std::uint64_t n : options.memory_items) {
    memory_row row;
    row.items = n;
    row.fpr = options.memory_fpr;
    counting_resource counter;
    {
      std::pmr::unordered_set<std::pmr::string> set(&counter);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string item = tour_address(i);
        row.item_bytes += item.size();
        set.emplace(item);
      }
      row.set_bytes = counter.in_use();
    }
    const bloom_filter filter = bloom_filter::for_capacity(n, options.memory_fpr);
    row.size = {filter.bits(), filter.hashes()};
    row.filter_bytes = filter.stats().memory_bytes;
    out.push_back(row);
  }
  return out;
}

tour_result run_tour(const tour_options& options) {
  check_options(options);
  tour_result t;
  t.options = options;
  t.rebalance = measure_rebalance(options);
  t.removal = measure_removal(options);
  t.vnodes = measure_vnodes(options);
  t.poly31 = measure_poly31(options);
  t.exercises = run_token_exercises();
  t.bloom.walkthrough = run_bloom_walkthrough();
  t.bloom.exercise = run_fpr_exercise(options);
  t.bloom.fill = measure_fill(options);
  t.bloom.memory = measure_memory(options);
  t.sketches = run_sketch_section(options.sketches);
  t.merkle = measure_merkle(options.merkle);
  t.strategies = measure_strategies(options.keys, options.vnodes);
  t.systems = measure_systems(options.keys, 10);
  t.window = measure_window(options.window);
  t.quantiles = measure_quantiles(options.quantiles);
  return t;
}

}  // namespace ringbloom::tour
