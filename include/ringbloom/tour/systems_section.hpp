// ringbloom/tour/systems_section.hpp: the tour's section 10, the real
// systems' placement rules on the lessons' fleet change.
//
// What it is. Section 1 asks how many of 20,000 keys move when server N+1
// joins N servers, against the 1/(N+1) it should take. This section asks it
// of the systems people run, each placing keys exactly as its source does
// (ringbloom/placement/schemes/): nginx `hash ... consistent`, HAProxy
// `hash-type consistent`, twemproxy ketama, groupcache, Envoy RING_HASH and
// MAGLEV, and Guava's consistentHash, every one with its defaults and
// servers n1..nN of weight 1 (the fleet of `ringbloom ring simulate
// --scheme S --nodes N`). For each it measures:
//   - the keys that move when n(N+1) joins, and how many of them move
//     between old servers (the ideal moves none);
//   - balance: the busiest server's keys over the average, before and after;
//   - the keys that move when the middle server n(N/2) leaves (ideal 1/N),
//     and how many of them were not on it;
//   - the points each server gets on the continuum, before and after (the
//     ring-based schemes), and for HAProxy how many servers got a new id.
// Redis Cluster and Cassandra are left out: their keys move only when an
// operator moves slots or tokens, which `ring diff` of two imported
// topologies measures; a node list alone says nothing about that.
//
// Guarantees. Deterministic (keys "key-0".., no randomness): the same
// arguments give the same numbers on every platform. About 50 ms in a
// release build at the defaults.
//
// Example:
//
//   #include <ringbloom/tour/systems_section.hpp>
//   auto s = ringbloom::tour::measure_systems();          // 20,000 keys, 10 -> 11
//   double haproxy_remove = s.rows[1].remove_moved;       // renumbering: far above 1/10
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringbloom::tour {

/// One system on the fleet change. Fractions are of all keys.
struct system_row {
  std::string scheme;                   ///< the scheme name, as `ring simulate --scheme` spells it
  std::string system;                   ///< what it reproduces, e.g. "nginx 1.22 hash consistent"
  double add_moved = 0;                 ///< keys that change server when n(N+1) joins
  double add_between_old = 0;           ///< of those, keys that go to an old server
  double peak_avg_before = 0;           ///< busiest server / average, N servers
  double peak_avg_after = 0;            ///< the same, N+1 servers
  bool remove_supported = true;         ///< false: the system cannot drop a middle server
  std::string remove_reason;            ///< why not, when !remove_supported
  double remove_moved = 0;              ///< keys that change server when n(N/2) leaves
  double remove_between_survivors = 0;  ///< of those, keys that were not on it
  /// Points per server on the continuum (0 when the scheme has none: a
  /// lookup table or jump hash), with N and with N+1 servers.
  std::uint32_t points_min_before = 0;
  std::uint32_t points_max_before = 0;
  std::uint32_t points_min_after = 0;
  std::uint32_t points_max_after = 0;
  /// HAProxy: servers whose id changed when n(N/2) left (0 elsewhere).
  std::uint32_t renumbered = 0;
};

struct systems_section {
  std::uint64_t keys = 0;
  std::uint32_t from_nodes = 0;  ///< N
  std::string removed;           ///< the middle server, "n(N/2)"
  double ideal_add = 0;          ///< 1/(N+1)
  double ideal_remove = 0;       ///< 1/N
  std::vector<system_row> rows;  ///< nginx, haproxy, twemproxy, groupcache, envoy x2, guava
  /// twemproxy: the fleet sizes 2..100 at which equal-weight servers get
  /// fewer than 160 points (its float arithmetic), and the points each
  /// server of the smallest such fleet has, counted on a real placement.
  std::vector<std::uint32_t> twemproxy_short_fleets;
  std::uint32_t twemproxy_short_points = 0;
  /// twemproxy's balance (peak/avg, N servers) with `hash: md5` instead of
  /// its default fnv1a_64: how much of its imbalance is the key hash.
  double twemproxy_md5_peak_avg = 0;
};

/// Runs the section with `keys` keys "key-0".. and `nodes` servers n1..nN
/// (nodes >= 2). Throws std::invalid_argument for keys 0 or nodes < 2.
[[nodiscard]] systems_section measure_systems(std::uint32_t keys = 20000, std::uint32_t nodes = 10);

/// One sentence per quirk the numbers of `s` show (HAProxy's renumbering,
/// twemproxy's point count, Envoy's resized ring, ...), each quoting the
/// measured values; a quirk whose numbers do not show it is left out.
[[nodiscard]] std::vector<std::string> measured_quirks(const systems_section& s);

}  // namespace ringbloom::tour
