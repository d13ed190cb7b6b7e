// libFuzzer target over the topology parser.
//
// The parser's contract: any byte string either parses into a topology that
// builds a ring, or throws ringbloom::data_error; never a crash, a hang, a
// huge allocation (max_topology_points bounds the ring), a sanitizer report
// or another exception. An accepted topology must write back to JSON that
// parses to the same topology and builds a ring placing keys identically.
//
// Seed corpus: fuzz/placement/corpus/topology_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/topology.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::topology topo = ringbloom::parse_topology(bytes, "fuzz input");
  const ringbloom::hash_ring ring = ringbloom::build_ring(topo);
  const ringbloom::topology again = ringbloom::parse_topology(ringbloom::to_json(topo), "again");
  if (!(again == topo)) std::abort();
  if (ring.empty()) return;
  const ringbloom::hash_ring rebuilt = ringbloom::build_ring(again);
  for (std::string_view key : {"", "anna", "user:42", "k0"}) {
    if (ring.node_for(key) != rebuilt.node_for(key)) std::abort();
    (void)ring.nodes_for(key, 3);
  }
  (void)ringbloom::ownership(ring);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    exercise(bytes);
  } catch (const ringbloom::data_error&) {
    // Refused: the expected outcome for almost every input.
  }
  return 0;
}
