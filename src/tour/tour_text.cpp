// `ringbloom demo` on a terminal: each section says what is measured, shows
// the figures in an aligned table and says in a sentence or two what they mean.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ringbloom/hash.hpp"
#include "ringbloom/tour/render.hpp"

namespace ringbloom::tour {
namespace {

namespace t = ringbloom::tour;

std::string pct(double x, int decimals = 1) { return fmt::format("{:.{}f}%", 100 * x, decimals); }
std::string name(hash_kind h) { return std::string(hash_name(h)); }

// Renders rows of cells as aligned columns: the first column left-aligned,
// the others right-aligned. Row 0 is the header.
class text_table {
 public:
  explicit text_table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  [[nodiscard]] std::string render(bool color) const {
    std::vector<std::size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()), 0);
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    std::string out;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::string line = "   ";
      for (std::size_t c = 0; c < rows_[r].size(); ++c) {
        if (c > 0) line += "  ";
        line += c == 0 ? fmt::format("{:<{}}", rows_[r][c], width[c])
                       : fmt::format("{:>{}}", rows_[r][c], width[c]);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      if (r == 0 && color) line = "\x1b[1m" + line + "\x1b[0m";
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

struct writer {
  bool color;
  std::string out;

  void title(const std::string& text) {
    out += color ? fmt::format("\x1b[1;36m{}\x1b[0m\n", text) : text + "\n";
  }
  void line(const std::string& text) { out += "   " + text + "\n"; }
  void note(const std::string& text) {
    // Wrap at about 88 columns, indented like the tables.
    std::string current;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find(' ', start);
      if (end == std::string::npos) end = text.size();
      const std::string word = text.substr(start, end - start);
      if (!current.empty() && current.size() + 1 + word.size() > 85) {
        out += (color ? "   \x1b[2m" + current + "\x1b[0m" : "   " + current) + "\n";
        current.clear();
      }
      current += (current.empty() ? "" : " ") + word;
      start = end + 1;
    }
    if (!current.empty())
      out += (color ? "   \x1b[2m" + current + "\x1b[0m" : "   " + current) + "\n";
  }
  void table(const text_table& table) { out += table.render(color); }
  void blank() { out += "\n"; }
};

void rebalance(writer& w, const t::tour_result& tour) {
  const auto& s = tour.rebalance;
  w.title("1. hash % N against the ring, when a node joins");
  w.line(
      fmt::format("keys key-0..key-{}; ring: nodes n1..nN with {} virtual nodes each, then "
                  "n(N+1) joins",
                  tour.options.keys - 1, s.vnodes));
  text_table table(
      {"hash", "N -> N+1", "hash % N moved", "ring moved", "onto new node", "ideal 1/(N+1)"});
  for (const auto& r : s.rows) {
    table.add({name(r.hash), fmt::format("{} -> {}", r.from_nodes, r.from_nodes + 1),
               fmt::format("{} ({})", pct(r.modulo_fraction(), 2), r.modulo_moved),
               fmt::format("{} ({})", pct(r.ring_fraction(), 2), r.ring_moved),
               fmt::format("{}", r.ring_moved_to_new), pct(r.ideal_fraction(), 2)});
  }
  w.table(table);
  using lf = t::lesson_figures;
  w.note(
      fmt::format("The German lesson printed {} and {} for hash % N with sha256; lab11 says "
                  "about {} for hash % N and about {} for the ring.",
                  pct(lf::modulo_4_to_5), pct(lf::modulo_10_to_11), pct(lf::lab11_modulo, 0),
                  pct(lf::lab11_ring, 0)));
  w.note(
      "hash % N moves almost every key because the remainder changes with the divisor; the "
      "ring moves only the keys that fall before the new node's points, close to 1/(N+1), and "
      "every one of them onto the new node. With poly31 the ring moves nothing here only "
      "because all keys sit on one node (section 4).");
  w.blank();
}

void removal(writer& w, const t::tour_result& tour) {
  w.title("2. A node leaves the ring");
  w.line(fmt::format("nodes n1..n5 (sha256 points), keys key-0..key-{}; n3 is removed",
                     tour.options.keys - 1));
  text_table table(
      {"vnodes", "keys on n3", "moved", "moved from others", "to clockwise next", "taken by"});
  for (const auto& c : tour.removal) {
    std::string takers;
    for (const auto& [node, count] : c.moved_to) {
      takers += fmt::format("{}{}={}", takers.empty() ? "" : " ", node, count);
    }
    table.add({fmt::format("{}", c.vnodes), fmt::format("{}", c.keys_on_removed),
               fmt::format("{}", c.moved), fmt::format("{}", c.moved_from_others),
               fmt::format("{}", c.moved_to_clockwise_neighbour), takers});
  }
  w.table(table);
  w.note(
      "Only the removed node's keys move, each to the next point clockwise. With one point "
      "per node one neighbour inherits the whole load; with many points the load spreads "
      "over every remaining node.");
  w.blank();
}

void vnodes(writer& w, const t::tour_result& tour) {
  const auto& s = tour.vnodes;
  w.title("3. Virtual nodes: balance, memory and the cost of a change");
  w.line(fmt::format("nodes n1..n4, keys key-0..key-{}: each node's share of the keys",
                     tour.options.keys - 1));
  std::vector<std::string> header{"hash", "vnodes"};
  if (!s.shares.empty()) {
    for (const auto& n : s.shares.front().nodes) header.push_back(n);
  }
  header.push_back("min-max");
  header.push_back("peak/avg");
  text_table shares(header);
  for (const auto& t : s.shares) {
    std::vector<std::string> row{name(t.hash), fmt::format("{}", t.vnodes)};
    for (double x : t.key_shares) row.push_back(pct(x));
    row.push_back(fmt::format("{}-{}", pct(t.min_share()), pct(t.max_share())));
    row.push_back(fmt::format("{:.3f}", t.peak_to_average));
    shares.add(row);
  }
  w.table(shares);
  using lf = t::lesson_figures;
  w.note(
      fmt::format("The German lesson measured {}-{} with one point per node and {}-{} with "
                  "100 (sha256).",
                  pct(lf::share_1_vnode_low, 0), pct(lf::share_1_vnode_high, 0),
                  pct(lf::share_100_vnodes_low, 0), pct(lf::share_100_vnodes_high, 0)));
  w.blank();
  w.line(
      fmt::format("sweep: {} nodes ({}), then one more joins (donors: nodes that lose keys to it)",
                  s.sweep_nodes, name(s.sweep_hash)));
  text_table sweep({"vnodes", "points", "memory", "peak/avg space", "peak/avg keys", "add: points",
                    "donors", "moved"});
  for (const auto& r : s.sweep) {
    sweep.add({fmt::format("{}", r.vnodes), fmt::format("{}", r.points),
               fmt::format("{:.1f} KiB", static_cast<double>(r.memory_bytes) / 1024),
               fmt::format("{:.3f}", r.space_peak_to_average),
               fmt::format("{:.3f}", r.key_peak_to_average), fmt::format("{}", r.add_points),
               fmt::format("{}", r.add_donors), pct(r.add_moved_space)});
  }
  w.table(sweep);
  w.note(
      "lab11's table, measured: more points even out the load (peak/avg falls towards 1) and "
      "let a new node take its share from many donors instead of one, at the price of memory "
      "and of one insertion per point on every change.");
  w.blank();
}

void poly(writer& w, const t::tour_result& tour) {
  const auto& p = tour.poly31;
  w.title("4. lab11's hash (poly31) on short keys");
  w.line(fmt::format("poly31(\"key-1\") = {}, poly31(\"key-2\") = {}: they differ by {}",
                     p.hash_key_1, p.hash_key_2, p.hash_key_2 - p.hash_key_1));
  w.line(fmt::format("{} of {} consecutive keys of equal length hash exactly 1 apart",
                     p.adjacent_pairs, p.adjacent_pairs_checked));
  text_table table({"hash", "key arcs hit", "point arcs hit", "n1", "n2", "n3", "n4", "peak/avg"});
  auto row = [&](const std::string& h, const t::spread& keys, const t::spread& points,
                 const t::share_table& shares) {
    std::vector<std::string> r{h, fmt::format("{} / {}", keys.occupied_arcs, keys.arcs),
                               fmt::format("{} / {}", points.occupied_arcs, points.arcs)};
    for (double x : shares.key_shares) r.push_back(pct(x));
    r.push_back(fmt::format("{:.3f}", shares.peak_to_average));
    table.add(r);
  };
  row("poly31", p.poly31_keys, p.poly31_points, p.poly31_shares);
  row("xxh3", p.xxh3_keys, p.xxh3_points, p.xxh3_shares);
  w.table(table);
  w.note(
      fmt::format("Arcs: the ring cut into {} equal arcs. A polynomial hash keeps keys that "
                  "share a prefix next to each other, so {} keys crowd into a few arcs and a "
                  "node takes nearly all of them; xxh3 mixes every bit and spreads them over "
                  "the whole ring. That is why poly31 is kept only to reproduce lab11 and xxh3 "
                  "is the default.",
                  p.poly31_keys.arcs, p.poly31_keys.values));
  w.blank();
}

void exercises(writer& w, const t::tour_result& tour) {
  w.title("5. The German lesson's rings, by hand and by the library");
  text_table table(
      {"example", "nodes at", "keys at", "before", "change", "after", "moved", "lesson"});
  for (const auto& e : tour.exercises) {
    std::string nodes;
    for (const auto& n : e.nodes) {
      for (auto token : n.tokens)
        nodes += fmt::format("{}{} {}", nodes.empty() ? "" : ", ", n.name, token);
    }
    std::string keys;
    for (auto h : e.key_hashes) keys += fmt::format("{}{}", keys.empty() ? "" : ",", h);
    table.add({e.name, nodes, keys, e.before, e.change, e.after, fmt::format("{}", e.moved),
               fmt::format("{} {} {}", e.lesson_before, e.lesson_after, e.lesson_moved)});
  }
  w.table(table);
  w.note(
      "Computed with add_node_at (explicit tokens) and node_for_hash in the 64-bit space: "
      "past the last point a key wraps to the first. Only the keys between the changed point "
      "and its predecessor change owner.");
  w.blank();
}

void bloom(writer& w, const t::tour_result& tour) {
  const auto& b = tour.bloom;
  const auto& wt = b.walkthrough;
  w.title("6. Bloom filters");
  w.line(fmt::format("m={}, k={}, positions {}(\"i:item\") % m; added: anna, bora", wt.size.bits,
                     wt.size.hashes, name(wt.hash)));
  w.line(fmt::format("bits (bit 0 first): {}", wt.bit_string));
  text_table walk({"item", "added", "positions", "bits", "answer", "bits set by"});
  for (const auto& p : wt.probes) {
    std::string positions, bits, by;
    for (std::size_t i = 0; i < p.positions.size(); ++i) {
      positions += fmt::format("{}{}", i ? "," : "", p.positions[i]);
      bits += p.bits[i] ? '1' : '0';
      std::string names;
      for (const auto& n : p.set_by[i]) names += (names.empty() ? "" : "+") + n;
      by += fmt::format("{}{}:{}", i ? " " : "", p.positions[i], names.empty() ? "-" : names);
    }
    const std::string answer = !p.may_contain ? "definitely absent"
                               : p.added      ? "maybe (added)"
                                              : "maybe (false positive)";
    walk.add({p.item, p.added ? "yes" : "no", positions, bits, answer, by});
  }
  w.table(walk);
  w.note(
      "One 0 bit is enough for \"definitely absent\"; \"maybe\" needs all k bits, and a "
      "stranger gets it when other items happen to have set them.");
  w.blank();

  if (!b.exercise.empty()) {
    const auto& e0 = b.exercise.front();
    w.line(fmt::format("exercise: {} addresses in m={}, k={}, probed with {} strangers", e0.items,
                       e0.size.bits, e0.size.hashes, e0.strangers));
  }
  text_table ex({"hash", "false negatives", "false positives", "measured", "(1-e^(-kn/m))^k",
                 "from the bits"});
  for (const auto& e : b.exercise) {
    ex.add({name(e.hash), fmt::format("{}", e.false_negatives),
            fmt::format("{}", e.false_positives), pct(e.measured(), 2), pct(e.formula, 2),
            pct(e.expected_from_bits, 2)});
  }
  w.table(ex);
  w.note(
      "No false negatives, ever; the measured rate lands near the formula. poly31's "
      "positions follow a pattern instead of looking random, so the bits it sets depart from "
      "the random model and the rate read from them (last column) is off.");
  w.blank();

  const auto& f = b.fill;
  w.line(
      fmt::format("filling past capacity: a classic filter for {} items at {} (m={}, k={}), "
                  "{} strangers per step",
                  f.capacity, pct(f.target_fpr, 0), f.size.bits, f.size.hashes, f.strangers));
  text_table fill({"items", "load", "bits set", "measured", "formula"});
  for (const auto& p : f.points) {
    fill.add({fmt::format("{}", p.items), fmt::format("{:.2f}x", p.load), pct(p.fill_ratio),
              pct(p.measured, 2), pct(p.formula, 2)});
  }
  w.table(fill);
  w.note(
      "The filter never refuses an item, it just gets worse: past its capacity the rate "
      "climbs quickly. Size for the real count, or use a scalable filter.");
  w.blank();

  text_table mem({"items", "item bytes", "exact set", "filter", "filter bits/item", "set/filter"});
  for (const auto& m : b.memory) {
    const double per_item = static_cast<double>(m.size.bits) / static_cast<double>(m.items);
    mem.add({fmt::format("{}", m.items), fmt::format("{}", m.item_bytes),
             fmt::format("{}", m.set_bytes), fmt::format("{}", m.filter_bytes),
             fmt::format("{:.1f}", per_item),
             fmt::format("{:.0f}x",
                         static_cast<double>(m.set_bytes) /
                             static_cast<double>(std::max<std::uint64_t>(1, m.filter_bytes)))});
  }
  w.line(
      fmt::format("memory: a classic filter at {} against std::pmr::unordered_set<string> "
                  "(every byte it allocates)",
                  b.memory.empty() ? std::string("-") : pct(b.memory.front().fpr, 0)));
  w.table(mem);
  w.note(
      "The filter stores no items, only bits: about 9.6 bits per item at 1% whatever the "
      "items look like, against tens of bytes per item for the set.");
}

void merkle(writer& w, const t::tour_result& tour) {
  const auto& m = tour.merkle;
  w.blank();
  w.title("8. Merkle trees: where two replicas differ");
  w.line(fmt::format("replica A: {} rows; B: A with d rows changed; trees of depth {} ({} leaves)",
                     m.rows, m.depth, std::uint64_t{1} << m.depth));
  text_table ex(
      {"d", "leaves differ", "digests", "d x depth x 2", "rows to compare", "without a tree"});
  for (const auto& e : m.exchanges) {
    ex.add({fmt::format("{}", e.differences), fmt::format("{}", e.differing_leaves),
            fmt::format("{}", e.digests_exchanged), fmt::format("{}", e.estimate),
            fmt::format("{}", e.rows_to_compare), fmt::format("{}", e.rows_without_tree)});
  }
  w.table(ex);
  w.note(
      "The replicas compare roots, then the children of every node that differs: about two "
      "digests per level per difference, fewer when differences share the top of their paths, "
      "and when most leaves differ the tree saves nothing.");
  w.blank();
  w.line(fmt::format("the depth trade-off, d = {}", m.sweep_differences));
  text_table sweep({"depth", "leaves", "rows/leaf", "digests", "rows to compare", "together"});
  for (const auto& p : m.depth_sweep) {
    sweep.add({fmt::format("{}", p.depth), fmt::format("{}", p.leaves),
               fmt::format("{:.1f}", p.rows_per_leaf), fmt::format("{}", p.digests_exchanged),
               fmt::format("{}", p.rows_to_compare), fmt::format("{}", p.total())});
  }
  w.table(sweep);
  w.note(
      "A deeper tree exchanges more digests but narrows each difference to fewer rows; the sum "
      "is smallest where rows per leaf is about the digests per level.");
}

// Section 9: ringbloom/tour/strategies_section.hpp.
void strategies(writer& w, const t::tour_result& tour) {
  const auto& s = tour.strategies;
  w.title("9. Other placement strategies on the same experiment");
  w.line(fmt::format(
      "keys key-0..key-{}; nodes n1..nN, then n(N+1) joins; ring and bounded with {} points "
      "per node",
      s.keys - 1, s.ring_vnodes));
  for (const auto& run : s.runs) {
    text_table table({fmt::format("N = {} -> {}", run.from_nodes, run.from_nodes + 1), "moved",
                      "x 1/(N+1)", "to/from n" + std::to_string(run.from_nodes + 1), "peak/avg",
                      "min share", "max share", "memory"});
    for (const auto& r : run.rows) {
      table.add({r.name, fmt::format("{} ({})", pct(r.moved_fraction, 2), r.moved),
                 fmt::format("{:.3f}", r.moved_fraction / run.ideal_fraction), pct(r.changed_share),
                 fmt::format("{:.3f}", r.peak_avg), pct(r.min_share), pct(r.max_share),
                 fmt::format("{} B", r.memory_bytes)});
    }
    w.table(table);
  }
  w.note(
      "Rendezvous, anchor, memento, jump and multi-probe move only keys onto the new node, like "
      "the ring; maglev (its table is refilled) and bounded loads (a full node passes keys on) "
      "also move a few keys between old nodes, the to/from column. `ringbloom ring simulate "
      "--strategy all` runs the same table on any fleet and change, with lookup times.");
  w.blank();
}

// Section 10: ringbloom/tour/systems_section.hpp.
void systems(writer& w, const t::tour_result& tour) {
  const auto& s = tour.systems;
  w.title("10. The same change under the systems people run");
  w.line(fmt::format(
      "keys key-0..key-{}; servers n1..n{} of weight 1, each system with its defaults; then "
      "n{} joins (ideal {}), or {} leaves (ideal {})",
      s.keys - 1, s.from_nodes, s.from_nodes + 1, pct(s.ideal_add, 2), s.removed,
      pct(s.ideal_remove, 2)));
  text_table table({"system", "join: moved", "x 1/(N+1)", "between old", "peak/avg", "leave: moved",
                    "between others", "points/server"});
  for (const auto& r : s.rows) {
    const std::string points =
        r.points_max_before == 0
            ? "-"
            : fmt::format("{}-{} -> {}-{}", r.points_min_before, r.points_max_before,
                          r.points_min_after, r.points_max_after);
    table.add({r.scheme, pct(r.add_moved, 2), fmt::format("{:.3f}", r.add_moved / s.ideal_add),
               pct(r.add_between_old, 2),
               fmt::format("{:.3f} -> {:.3f}", r.peak_avg_before, r.peak_avg_after),
               r.remove_supported ? pct(r.remove_moved, 2) : "n/a",
               r.remove_supported ? pct(r.remove_between_survivors, 2) : "n/a", points});
  }
  w.table(table);
  for (const auto& quirk : t::measured_quirks(s)) w.note(quirk);
  w.note(
      "Redis Cluster and Cassandra move keys only when slots or tokens are moved; import the "
      "topology before and after and run `ringbloom ring diff` (or `ring diff --from`).");
  w.blank();
}

}  // namespace

std::string render_tour_text(const tour::tour_result& tour, bool color) {
  writer w{color, {}};
  w.title("ringbloom demo: the two seed lessons, replayed on the library");
  w.blank();
  rebalance(w, tour);
  removal(w, tour);
  vnodes(w, tour);
  poly(w, tour);
  exercises(w, tour);
  bloom(w, tour);
  w.out += render_sketch_text(tour.sketches);
  merkle(w, tour);
  strategies(w, tour);
  systems(w, tour);
  w.out += render_window_text(tour.window);
  w.out += render_quantile_text(tour.quantiles);
  return w.out;
}

}  // namespace ringbloom::tour
