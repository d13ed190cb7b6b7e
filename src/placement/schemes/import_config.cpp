// import_config: the one dispatcher from a system's name to its reader, and
// the rules every configuration passes (see config_import.hpp).
#include <fmt/core.h>

#include <array>
#include <charconv>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::array<std::string_view, 6> systems = {"nginx",         "haproxy",   "twemproxy",
                                                     "redis-cluster", "cassandra", "envoy"};

/// Refuses a configuration holding a control byte (other than tab and CR):
/// binary or compressed data, never a text configuration.
void refuse_binary(std::string_view text, std::string_view source) {
  std::uint64_t line = 1;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line;
    } else if ((byte < 0x20 && c != '\t' && c != '\r') || byte == 0x7f) {
      throw data_error(fmt::format(
          "{}:{}: holds the control byte {:#04x}, which no text configuration has; give the "
          "text file itself (not a binary or compressed one)",
          source, line, byte));
    }
  }
}

/// Every node name must follow the ring's rule, so that `key<TAB>node`
/// output stays one line.
void require_node_names(const placement& p, std::string_view source) {
  for (std::uint32_t i = 0; i < p.node_count(); ++i) {
    try {
      check_node_name(p.node_name(i));
    } catch (const std::invalid_argument& e) {
      throw data_error(fmt::format("{}: {}", source, e.what()));
    }
  }
}

imported_config read(std::string_view system, std::string_view text, std::string_view source,
                     const config_options& o) {
  refuse_binary(text, source);
  imported_config r;
  // The section to read: the one named, else the file's only candidate.
  const auto section = [&](std::string_view flag, std::string_view what,
                           const std::vector<std::string>& candidates) -> std::string {
    if (!o.section.empty()) return o.section;
    if (candidates.size() == 1) {
      r.notes.push_back(fmt::format("{}: read {} '{}', the only one of the file that hashes",
                                    source, what, printable(candidates[0])));
      return candidates[0];
    }
    const std::string option =
        o.section_option.empty() ? fmt::format("{} NAME", flag) : o.section_option;
    std::string names;
    for (const std::string& c : candidates)
      names += (names.empty() ? "'" : ", '") + printable(c) + "'";
    throw std::invalid_argument(
        candidates.empty()
            ? fmt::format("{} {} needs {}; name the section to read (the file has no {} that "
                          "hashes consistently)",
                          system, source, option, what)
            : fmt::format("{} {} needs {}; name the section to read, one of the {} {}s that hash "
                          "consistently: {}",
                          system, source, option, candidates.size(), what, names));
  };
  if (system == "nginx") {
    const std::string name =
        section("--upstream", "upstream",
                o.section.empty() ? nginx_hashing_upstreams(text, source, o.include_directory)
                                  : std::vector<std::string>{});
    r.scheme = import_nginx(text, source, name, o.include_directory);
  } else if (system == "haproxy") {
    const std::string name = section(
        "--backend", "backend",
        o.section.empty() ? haproxy_hashing_backends(text, source) : std::vector<std::string>{});
    r.scheme = import_haproxy(text, source, name, r.notes);
  } else if (system == "twemproxy") {
    r.scheme = import_twemproxy(text, source, o.section, r.notes);
  } else if (system == "redis-cluster") {
    r.scheme = import_redis_cluster(text, source);
  } else if (system == "envoy") {
    r.scheme = import_envoy(text, source, o.section);
  } else if (system == "cassandra") {
    r.scheme = import_nodetool_ring(text, source, o.replication, r.notes);
  } else {
    throw std::invalid_argument(
        fmt::format("'{}' is not a system whose configuration ringbloom reads; give nginx, "
                    "haproxy, twemproxy, redis-cluster, cassandra or envoy",
                    printable(system)));
  }
  require_node_names(*r.scheme, source);
  return r;
}

}  // namespace

std::span<const std::string_view> config_systems() noexcept { return systems; }

cassandra_replication replication_from_factors(std::map<std::string, std::uint32_t> per_datacenter,
                                               std::string_view what) {
  std::uint64_t replicas = 0;
  for (const auto& [dc, rf] : per_datacenter) replicas += rf;
  if (replicas == 0) {
    throw std::invalid_argument(fmt::format(
        "{} gives every data centre replication factor 0, so no key would have a replica; give "
        "at least one data centre a factor of 1 or more",
        what));
  }
  return cassandra_replication::network(std::move(per_datacenter));
}

cassandra_replication parse_datacenter_factors(std::string_view text, std::string_view what) {
  std::map<std::string, std::uint32_t> per_dc;
  for (const std::string_view item : split_list(text)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw std::invalid_argument(fmt::format("{} '{}' is not DC=N; write e.g. {} dc1=3,dc2=2",
                                              what, printable(item), what));
    }
    const std::string dc(item.substr(0, eq));
    const std::string_view number = item.substr(eq + 1);
    std::uint32_t rf = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), rf);
    if (number.empty() || ec != std::errc{} || end != number.data() + number.size() ||
        rf > max_replication_factor) {
      throw std::invalid_argument(
          fmt::format("{} '{}' must be an integer from 0 to {}, got '{}'; give each data centre a "
                      "replication factor from 0 (no replica there) to {}, e.g. {} dc1=3,dc2=2",
                      what, printable(item), max_replication_factor, printable(number, 40),
                      max_replication_factor, what));
    }
    if (!per_dc.emplace(dc, rf).second) {
      throw std::invalid_argument(fmt::format(
          "{} names data centre '{}' twice; give each data centre once", what, printable(dc)));
    }
  }
  return replication_from_factors(std::move(per_dc), fmt::format("{} '{}'", what, printable(text)));
}

imported_config import_config(std::string_view system, std::string_view text,
                              std::string_view source, const config_options& options) {
  try {
    return read(system, text, source, options);
  } catch (const data_error& e) {  // every refusal says what to do
    if (e.has_advice()) throw;
    throw with_advice(e, "fix that line of the file and try again");
  }
}

imported_config import_config_file(std::string_view system, const std::string& path,
                                   const config_options& options) {
  config_options o = options;
  if (o.include_directory.empty()) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    o.include_directory = parent.empty() ? "." : parent.string();
  }
  return import_config(system, io::read_file(path, max_config_bytes), path, o);
}

}  // namespace ringbloom::schemes
