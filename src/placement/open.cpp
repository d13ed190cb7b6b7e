// open_placement (see open.hpp).
#include "ringbloom/placement/open.hpp"

#include <fmt/core.h>

#include <stdexcept>
#include <string>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/ring_placement.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom {

bool is_system_topology(const std::filesystem::path& path) {
  return schemes::is_system_scheme(schemes::topology_scheme(io::read_file(path), path.string()));
}

std::unique_ptr<placement> open_placement(const std::filesystem::path& path) {
  const std::string file = path.string();
  const std::string text = io::read_file(path);
  if (!schemes::is_system_scheme(schemes::topology_scheme(text, file))) {
    hash_ring ring = build_ring(load_topology(path));
    if (ring.empty()) {
      throw data_error(fmt::format(
          "{}: the topology has no nodes; add one with 'ringbloom ring add {} NAME'", file, file));
    }
    return std::make_unique<ring_placement>(std::move(ring));
  }
  std::unique_ptr<placement> p = schemes::parse_scheme_topology(text, file);
  for (std::uint32_t i = 0; i < p->node_count(); ++i) {
    try {
      check_node_name(p->node_name(i));
    } catch (const std::invalid_argument& e) {
      throw data_error(fmt::format("{}: {}", file, e.what()));
    }
  }
  if (p->node_count() == 0) throw data_error(fmt::format("{}: the topology has no nodes", file));
  return p;
}

}  // namespace ringbloom
