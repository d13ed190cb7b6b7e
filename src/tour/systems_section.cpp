// Section 10 of the tour: the real systems' rules on the lessons' N -> N+1
// (see systems_section.hpp).
#include "ringbloom/tour/systems_section.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "ringbloom/placement/change.hpp"
#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/envoy.hpp"
#include "ringbloom/placement/schemes/groupcache.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/schemes/twemproxy.hpp"
#include "ringbloom/placement/strategies.hpp"

namespace ringbloom::tour {
namespace {

struct system_entry {
  std::string_view scheme;
  std::string_view label;
};

// The systems compared, in the order of docs/placement.md.
constexpr system_entry systems[] = {
    {"nginx", "nginx 1.22 hash consistent"},
    {"haproxy", "HAProxy 2.6 hash-type consistent"},
    {"twemproxy", "twemproxy 0.5 ketama (fnv1a_64)"},
    {"groupcache", "groupcache consistenthash (50 replicas)"},
    {"envoy-ring-hash", "Envoy RING_HASH (ring 1024..8M)"},
    {"envoy-maglev", "Envoy MAGLEV (table 65537)"},
    {"guava", "Guava Hashing.consistentHash"},
};

/// The owner name of every key.
std::vector<std::string> owners(const placement& p, const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(p.node_for(k));
  return out;
}

/// The busiest server's keys over the average (node_count servers).
double peak_to_average(const std::vector<std::string>& owner, std::size_t node_count) {
  std::vector<std::string> sorted = owner;
  std::sort(sorted.begin(), sorted.end());
  std::size_t top = 0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    top = std::max(top, j - i);
    i = j;
  }
  return sorted.empty() ? 0.0
                        : static_cast<double>(top) * static_cast<double>(node_count) /
                              static_cast<double>(sorted.size());
}

/// Counts of points per server index, from a list of point owners.
std::pair<std::uint32_t, std::uint32_t> min_max_points(const std::vector<std::uint32_t>& owner,
                                                       std::size_t node_count) {
  std::vector<std::uint32_t> count(node_count, 0);
  for (const std::uint32_t o : owner) ++count.at(o);
  const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
  return {*lo, *hi};
}

/// Points per server of the schemes that keep a continuum of points.
std::pair<std::uint32_t, std::uint32_t> points_per_server(const placement& p) {
  std::vector<std::uint32_t> owner;
  const auto from_table = [&](const schemes::detail::point_table& t) {
    for (std::size_t i = 0; i < t.size(); ++i) owner.push_back(t.owner(i));
  };
  if (const auto* n = dynamic_cast<const schemes::nginx_placement*>(&p)) {
    from_table(n->points());
  } else if (const auto* h = dynamic_cast<const schemes::haproxy_placement*>(&p)) {
    from_table(h->points());
  } else if (const auto* t = dynamic_cast<const schemes::twemproxy_placement*>(&p)) {
    from_table(t->points());
  } else if (const auto* g = dynamic_cast<const schemes::groupcache_placement*>(&p)) {
    from_table(g->points());
  } else if (const auto* e = dynamic_cast<const schemes::envoy_ring_hash_placement*>(&p)) {
    owner = e->owners();
  } else {
    return {0, 0};
  }
  return min_max_points(owner, p.node_count());
}

/// The share of the keys that moved, and of those moved between servers on
/// both sides (measure_change, ringbloom/placement/change.hpp).
std::pair<double, double> moved(const change_measure& m) {
  const auto n = static_cast<double>(m.keys);
  return {m.moved_fraction(), static_cast<double>(m.moved_between_survivors) / n};
}

system_row measure_one(const system_entry& entry, const std::vector<std::string>& keys,
                       std::uint32_t n) {
  system_row row;
  row.scheme = std::string(entry.scheme);
  row.system = std::string(entry.label);
  const std::vector<placement_node> before_nodes = numbered_nodes(n);
  const std::vector<placement_node> after_nodes = numbered_nodes(n + 1);
  const auto before = schemes::make_scheme_placement(entry.scheme, before_nodes);
  const auto after = schemes::make_scheme_placement(entry.scheme, after_nodes);
  const change_measure added = measure_change(*before, *after, keys);
  std::tie(row.add_moved, row.add_between_old) = moved(added);
  row.peak_avg_before = added.peak_to_average_before;
  row.peak_avg_after = added.peak_to_average_after;
  std::tie(row.points_min_before, row.points_max_before) = points_per_server(*before);
  std::tie(row.points_min_after, row.points_max_after) = points_per_server(*after);

  // The middle server leaves: the list without it, as an edited config.
  std::vector<placement_node> without = before_nodes;
  const std::size_t middle = n / 2 - 1;  // n(N/2)
  without.erase(without.begin() + static_cast<std::ptrdiff_t>(middle));
  std::unique_ptr<placement> removed;
  try {
    removed = schemes::make_scheme_placement(entry.scheme, without);
  } catch (const std::invalid_argument& e) {
    row.remove_supported = false;
    row.remove_reason = entry.scheme == "guava"
                            ? "buckets are numbered 0..N-1: only the last one can leave"
                            : e.what();
    return row;
  }
  std::tie(row.remove_moved, row.remove_between_survivors) =
      moved(measure_change(*before, *removed, keys));
  if (const auto* h0 = dynamic_cast<const schemes::haproxy_placement*>(before.get())) {
    const auto* h1 = dynamic_cast<const schemes::haproxy_placement*>(removed.get());
    for (std::size_t i = 0; i < h1->ids().size(); ++i) {
      const std::size_t was = i < middle ? i : i + 1;
      row.renumbered += h1->ids()[i] != h0->ids()[was] ? 1 : 0;
    }
  }
  return row;
}

}  // namespace

systems_section measure_systems(std::uint32_t keys, std::uint32_t nodes) {
  if (keys == 0) throw std::invalid_argument("measure_systems: give at least one key");
  if (nodes < 2) throw std::invalid_argument("measure_systems: give at least two servers");
  systems_section s;
  s.keys = keys;
  s.from_nodes = nodes;
  s.removed = fmt::format("n{}", nodes / 2);
  s.ideal_add = 1.0 / static_cast<double>(nodes + 1);
  s.ideal_remove = 1.0 / static_cast<double>(nodes);
  const std::vector<std::string> key_list = numbered_keys(keys);
  for (const system_entry& entry : systems) s.rows.push_back(measure_one(entry, key_list, nodes));
  for (std::uint32_t n = 2; n <= 100; ++n) {
    if (schemes::twemproxy_points_per_server(1, n, n) < 160) s.twemproxy_short_fleets.push_back(n);
  }
  if (!s.twemproxy_short_fleets.empty()) {
    const auto p = schemes::make_scheme_placement("twemproxy",
                                                  numbered_nodes(s.twemproxy_short_fleets.front()));
    s.twemproxy_short_points = points_per_server(*p).second;
  }
  std::vector<schemes::twemproxy_server> servers;
  for (const auto& n : numbered_nodes(nodes)) servers.push_back({n.name, 1});
  const schemes::twemproxy_placement md5(schemes::twemproxy_hash::md5, std::move(servers));
  s.twemproxy_md5_peak_avg = peak_to_average(owners(md5, key_list), md5.node_count());
  return s;
}

std::vector<std::string> measured_quirks(const systems_section& s) {
  std::vector<std::string> out;
  const auto pct = [](double x) { return fmt::format("{:.2f}%", 100 * x); };
  for (const system_row& r : s.rows) {
    if (r.scheme == "haproxy" && r.remove_supported && r.renumbered > 0) {
      out.push_back(fmt::format(
          "HAProxy numbers servers in configuration order, and a server's points come from its "
          "number: removing {} renumbered {} servers, so {} of the keys moved (ideal {}), {} "
          "between servers that stayed. Giving each server an explicit id avoids it.",
          s.removed, r.renumbered, pct(r.remove_moved), pct(s.ideal_remove),
          pct(r.remove_between_survivors)));
    }
    if (r.scheme == "twemproxy" && r.peak_avg_before > 1.25) {
      out.push_back(fmt::format(
          "twemproxy's default key hash, fnv1a_64 (a 32-bit FNV with its own constants), spreads "
          "key-0..key-{} unevenly: the busiest of {} servers holds {:.3f}x the average with 160 "
          "points each ({:.3f}x with hash: md5), so the joining server took only {} of the keys "
          "(ideal {}).",
          s.keys - 1, s.from_nodes, r.peak_avg_before, s.twemproxy_md5_peak_avg, pct(r.add_moved),
          pct(s.ideal_add)));
    }
    if (r.scheme == "envoy-ring-hash" && r.add_between_old > 0) {
      out.push_back(fmt::format(
          "Envoy's ring hash sizes the ring to at least 1024 entries shared out by weight: "
          "{}-{} entries per host with {} hosts, {}-{} with {}; the old hosts' entries change, "
          "so {} of the keys moved between old hosts when one joined.",
          r.points_min_before, r.points_max_before, s.from_nodes, r.points_min_after,
          r.points_max_after, s.from_nodes + 1, pct(r.add_between_old)));
    }
    if (r.scheme == "envoy-maglev" && r.add_between_old > 0) {
      out.push_back(fmt::format(
          "Maglev refills its whole table when a host joins: {} of the keys moved between old "
          "hosts, for a near-perfect balance ({:.3f}).",
          pct(r.add_between_old), r.peak_avg_after));
    }
    if (r.scheme == "groupcache") {
      out.push_back(fmt::format(
          "groupcache places 50 points per peer: the busiest of {} peers holds {:.2f}x the "
          "average.",
          s.from_nodes, r.peak_avg_before));
    }
    if (r.scheme == "guava" && !r.remove_supported) {
      out.push_back(fmt::format("Guava's consistentHash: {}; {} cannot leave on its own.",
                                r.remove_reason, s.removed));
    }
  }
  if (!s.twemproxy_short_fleets.empty()) {
    std::string sizes;
    for (const std::uint32_t n : s.twemproxy_short_fleets)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
    out.push_back(fmt::format(
        "twemproxy gives a server floorf(share x 40 x servers) x 4 points in 32-bit float: 160 "
        "for equal weights, except with {} servers, where the product is 39.99999 and each "
        "server gets {} points.",
        sizes, s.twemproxy_short_points));
  }
  return out;
}

}  // namespace ringbloom::tour
