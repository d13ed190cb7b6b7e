// ringbloom/placement/ring_holder.hpp: publish a new hash_ring to reader threads
// atomically, without ever making a reader wait.
//
// What it is. A holder of the current ring. Readers call read() and get a
// snapshot: a guard through which they look up on one complete ring. A
// writer builds a new ring off to the side and publish()es it; readers that
// start after that see the new ring, readers already holding a snapshot keep
// the old one until they drop it. Nobody ever sees half an update.
//
// Why not std::atomic<std::shared_ptr>? In libstdc++ 12 it is not lock-free:
// load() takes an internal spin lock, so a reader can wait behind another
// thread that was descheduled while holding it. Readers here never wait.
//
// The design (two slots with reader counts, a simple form of read-copy-update):
//   - two slots, each with a ring and a count of the readers inside it, and
//     an atomic `current` naming the slot readers should enter;
//   - read(): s = current; readers[s]++; if current is still s, read the
//     ring of slot s, else readers[s]-- and try again. The retry happens only
//     when a publish completed between the two loads of `current`, so every
//     retry means a writer made progress: readers are lock-free. They take
//     no lock and never wait for a writer;
//   - publish(r): writers take a mutex among themselves, wait until the
//     readers of the other slot (which holds the ring before last) have left,
//     move r into it and store `current` to point at it. A reader that
//     arrives at that slot while it is being written finds `current` still
//     pointing at the other slot and retries, so it never reads a slot under
//     construction. All atomics are sequentially consistent.
// The cost of the guarantee falls on writers: a publish waits for readers
// still holding a snapshot of the ring before last. Keep snapshots short (one
// lookup or one batch), never hold one across blocking work.
//
// Memory: at most two rings live at a time (the current one and the
// previous one, freed when the next publish reuses its slot).
//
// Example:
//
//   ringbloom::ring_holder holder{std::move(initial_ring)};
//   // reader threads:
//   { auto ring = holder.read(); send(ring->node_for(key)); }
//   // a writer thread:
//   holder.update([](ringbloom::hash_ring& r) { r.add_node("cache-d"); });
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

#include "ringbloom/placement/ring.hpp"

namespace ringbloom {

class ring_holder {
  struct slot {
    alignas(64) std::atomic<std::uint32_t> readers{0};
    hash_ring ring;
    std::uint64_t version = 0;
  };

 public:
  /// A read guard on one published ring. Move-only; the ring stays valid and
  /// unchanged while the snapshot lives.
  class snapshot {
   public:
    snapshot(snapshot&& other) noexcept : slot_(std::exchange(other.slot_, nullptr)) {}
    snapshot& operator=(snapshot&&) = delete;
    snapshot(const snapshot&) = delete;
    snapshot& operator=(const snapshot&) = delete;
    ~snapshot() {
      if (slot_ != nullptr) slot_->readers.fetch_sub(1);
    }

    [[nodiscard]] const hash_ring& operator*() const noexcept { return slot_->ring; }
    [[nodiscard]] const hash_ring* operator->() const noexcept { return &slot_->ring; }
    /// 1 for the ring given to the constructor, +1 per publish.
    [[nodiscard]] std::uint64_t version() const noexcept { return slot_->version; }

   private:
    friend class ring_holder;
    explicit snapshot(slot* s) noexcept : slot_(s) {}
    slot* slot_;
  };

  explicit ring_holder(hash_ring initial = hash_ring{}) {
    slots_[0].ring = std::move(initial);
    slots_[0].version = 1;
  }
  ring_holder(const ring_holder&) = delete;
  ring_holder& operator=(const ring_holder&) = delete;

  /// A snapshot of the current ring. Lock-free, never waits.
  [[nodiscard]] snapshot read() const noexcept {
    for (;;) {
      const std::uint32_t s = current_.load();
      slots_[s].readers.fetch_add(1);
      if (current_.load() == s) return snapshot(&slots_[s]);
      slots_[s].readers.fetch_sub(1);  // a publish got in between: retry
    }
  }

  /// Makes `next` the current ring. Waits for readers still holding a
  /// snapshot of the ring before last; other writers wait for each other.
  void publish(hash_ring next) {
    const std::lock_guard<std::mutex> lock(writer_);
    publish_locked(std::move(next));
  }

  /// Copies the current ring, applies `change` to the copy and publishes
  /// it, all under the writers' mutex (so concurrent updates never lose each
  /// other's changes). If `change` throws, nothing is published and the
  /// exception propagates.
  template <class Change>
  void update(Change&& change) {
    const std::lock_guard<std::mutex> lock(writer_);
    hash_ring next = slots_[current_.load()].ring;
    std::forward<Change>(change)(next);
    publish_locked(std::move(next));
  }

  /// The version of the current ring.
  [[nodiscard]] std::uint64_t version() const noexcept { return read().version(); }

 private:
  void publish_locked(hash_ring next) {
    const std::uint32_t current = current_.load();
    const std::uint32_t other = 1 - current;
    while (slots_[other].readers.load() != 0) std::this_thread::yield();
    slots_[other].ring = std::move(next);
    slots_[other].version = slots_[current].version + 1;
    current_.store(other);
  }

  mutable slot slots_[2];
  std::atomic<std::uint32_t> current_{0};
  std::mutex writer_;
};

}  // namespace ringbloom
