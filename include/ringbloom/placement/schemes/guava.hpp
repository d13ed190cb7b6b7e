// ringbloom/placement/schemes/guava.hpp: buckets chosen exactly as Guava's
// Hashing.consistentHash chooses them.
//
// What it reproduces. Guava 31.1 (Debian 12's libguava-java),
// com.google.common.hash.Hashing.consistentHash(long input, int buckets) and
// its LinearCongruentialGenerator, with the input Guava users usually give:
// Hashing.murmur3_128().hashString(key, UTF_8).padToLong() (the first
// little-endian 64 bits of reference MurmurHash3 x64 128, seed 0). Checked
// key for key against the JDK running Guava in
// tests/placement/scheme_peers_test.cpp. The rules:
//   - state = input; loop: state = 2862933555777941757 * state + 1 (64-bit
//     wrapping); d = ((int)(state >>> 33) + 1) / 2^31, the + 1 in 32-bit
//     int (so 2^31 - 1 + 1 wraps to -2^31 and d = -1); next = (int)((candidate
//     + 1) / d) with Java's saturating double-to-int cast; while 0 <= next <
//     buckets: candidate = next; else answer candidate;
//   - it is jump consistent hashing (Lamping and Veach 2014) with Guava's own
//     generator: not the paper's, so its buckets differ from jump.hpp's.
// Keys are UTF-8 text: Java re-encodes the String, so a key that is not valid
// UTF-8 has no Java equivalent (it is hashed as its bytes here).
// Nodes are buckets "0" .. "N-1"; only the last bucket can be removed.
//
// Example:
//
//   #include <ringbloom/placement/schemes/guava.hpp>
//   ringbloom::schemes::guava_placement buckets(10);
//   const std::string& bucket = buckets.node_for("user:42");   // "0".."9"
//   int b = ringbloom::schemes::guava_consistent_hash(42, 10);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/placement/placement.hpp"

namespace ringbloom::schemes {

/// Hashing.consistentHash(input, buckets). Precondition: buckets >= 1.
[[nodiscard]] std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets) noexcept;

class guava_placement final : public placement {
 public:
  static constexpr std::uint32_t max_buckets = 1u << 24;

  /// `buckets` buckets named "0".."buckets-1". Throws std::invalid_argument
  /// above max_buckets.
  explicit guava_placement(std::uint32_t buckets = 0);

  [[nodiscard]] std::string_view kind_name() const noexcept override { return "guava"; }
  /// murmur3_128().hashString(key, UTF_8).padToLong().
  [[nodiscard]] std::uint64_t key_hash(std::string_view key) const override;
  [[nodiscard]] std::uint32_t node_index_for_hash(std::uint64_t h) const override;
  [[nodiscard]] std::size_t node_count() const noexcept override { return names_.size(); }
  [[nodiscard]] const std::string& node_name(std::uint32_t index) const override {
    return names_.at(index);
  }
  /// Adds the next bucket: its name must be the next number ("N").
  void add_node(const placement_node& node) override;
  /// Removes the last bucket only.
  void remove_node(std::string_view name) override;
  [[nodiscard]] unsigned supports() const noexcept override;
  [[nodiscard]] std::size_t memory_bytes() const noexcept override { return 0; }
  [[nodiscard]] std::optional<placement_ownership> ownership() const override;
  [[nodiscard]] std::unique_ptr<placement> clone() const override;

 private:
  std::vector<std::string> names_;
};

}  // namespace ringbloom::schemes
