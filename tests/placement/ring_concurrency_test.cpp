// ring_holder under many readers and writers (also run under ThreadSanitizer
// by `make test`). Readers must always see one whole ring: each published
// ring of version v has exactly v nodes named "v<v>-<i>", so a reader that saw
// a mix of two rings would find a node count or a name that does not match
// its snapshot's version.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ringbloom/placement/ring_holder.hpp"

namespace ringbloom {
namespace {

hash_ring ring_of_version(std::uint64_t v) {
  hash_ring ring({8, hash_kind::xxh3, ring_scheme::native});
  for (std::uint64_t i = 0; i < v; ++i) {
    ring.add_node("v" + std::to_string(v) + "-" + std::to_string(i));
  }
  return ring;
}

TEST(RingHolder, ReadersAlwaysSeeOneWholeRing) {
  ring_holder holder(ring_of_version(1));
  constexpr std::uint64_t last_version = 60;
  std::atomic<bool> done{false};
  std::atomic<long> lookups{0};
  std::atomic<int> torn{0};

  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      std::uint64_t seen = 0;
      long count = 0;
      while (!done.load()) {
        const auto snap = holder.read();
        const std::uint64_t v = snap.version();
        if (v < seen) ++torn;  // versions never go back for one reader
        seen = v;
        if (snap->node_count() != v) ++torn;
        const std::string& owner = snap->node_for("key-" + std::to_string(count + r));
        if (owner.rfind("v" + std::to_string(v) + "-", 0) != 0) ++torn;
        ++count;
      }
      lookups += count;
    });
  }
  std::thread writer([&] {
    for (std::uint64_t v = 2; v <= last_version; ++v) holder.publish(ring_of_version(v));
  });
  writer.join();
  // Let the readers see the final ring too.
  while (holder.read().version() != last_version) std::this_thread::yield();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GT(lookups.load(), 0);
  EXPECT_EQ(holder.read()->node_count(), last_version);
}

TEST(RingHolder, ConcurrentUpdatesLoseNoChange) {
  ring_holder holder;
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 25; ++i) {
        holder.update([&](hash_ring& ring) {
          ring.add_node("w" + std::to_string(w) + "-" + std::to_string(i));
        });
      }
    });
  }
  std::atomic<bool> done{false};
  std::thread reader([&] {
    std::size_t last = 0;
    while (!done.load()) {
      const auto snap = holder.read();
      EXPECT_GE(snap->node_count(), last);
      last = snap->node_count();
    }
  });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(holder.read()->node_count(), 100u);
  EXPECT_EQ(holder.version(), 101u);
}

TEST(RingHolder, FailedUpdatePublishesNothing) {
  hash_ring initial;
  initial.add_node("a");
  ring_holder holder(std::move(initial));
  EXPECT_THROW(holder.update([](hash_ring& ring) { ring.add_node("a"); }), std::invalid_argument);
  EXPECT_EQ(holder.version(), 1u);
  EXPECT_EQ(holder.read()->node_count(), 1u);
}

TEST(RingHolder, ASnapshotOutlivesLaterPublishes) {
  ring_holder holder(ring_of_version(1));
  const auto old = holder.read();
  holder.publish(ring_of_version(2));  // reuses the empty slot
  EXPECT_EQ(old->node_count(), 1u);    // the snapshot still reads ring 1
  EXPECT_EQ(holder.read()->node_count(), 2u);
}

}  // namespace
}  // namespace ringbloom
