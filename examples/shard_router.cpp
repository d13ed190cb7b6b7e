// shard_router: route keys to cache servers with a consistent hash ring, then
// add a server while reader threads keep routing, and show what moved.
//
//   build: see examples/CMakeLists.txt (uses the installed ringbloom package)
//   run:   ./shard_router
#include <atomic>
#include <cstdio>
#include <ringbloom/placement/ring.hpp>
#include <ringbloom/placement/ring_holder.hpp>
#include <string>
#include <thread>
#include <vector>

int main() {
  // Three servers; cache-c has twice the memory, so twice the weight.
  ringbloom::hash_ring ring;  // 100 points per unit of weight, xxh3
  ring.add_node("cache-a");
  ring.add_node("cache-b");
  ring.add_node("cache-c", 2);

  std::vector<std::string> keys;
  for (int i = 0; i < 100000; ++i) keys.push_back("user:" + std::to_string(i));

  // Readers route through a holder: they never block, and never see a
  // half-updated ring while a writer publishes a new one.
  ringbloom::ring_holder holder{ring};
  std::atomic<bool> stop{false};
  std::atomic<long> routed{0};
  std::thread reader([&] {
    for (std::size_t i = 0; !stop.load(); i = (i + 1) % keys.size()) {
      const auto snapshot = holder.read();
      if (!snapshot->node_for(keys[i]).empty()) routed.fetch_add(1);
    }
  });

  const auto wait_for = [&](long lookups) {
    while (routed.load() < lookups) std::this_thread::yield();
  };
  wait_for(10000);  // the reader is busy routing ...
  ringbloom::hash_ring grown = ring;
  grown.add_node("cache-d");
  holder.publish(grown);  // ... when the new ring goes live
  wait_for(20000);
  stop = true;
  reader.join();

  const ringbloom::key_movement moved = ringbloom::count_moved(ring, grown, keys);
  std::printf("routed %ld lookups while cache-d joined\n", routed.load());
  std::printf("%llu of %llu keys moved (%.1f%%; the new node's fair share is 20%%)\n",
              static_cast<unsigned long long>(moved.moved),
              static_cast<unsigned long long>(moved.keys), 100 * moved.moved_fraction());
  for (const auto& [node, count] : moved.moved_to) {
    std::printf("  moved to %s: %llu\n", node.c_str(), static_cast<unsigned long long>(count));
  }
  // Replication: the owner and the next distinct server clockwise.
  const auto replicas = grown.nodes_for("user:42", 2);
  std::printf("user:42 lives on %s, replica on %s\n", replicas[0].c_str(), replicas[1].c_str());
  return moved.moved_to.size() == 1 && moved.moved_to.count("cache-d") == 1 ? 0 : 1;
}
