// bench/filter/boost_bloom_peer.hpp: Boost.Bloom's fast_multiblock32<8> (K = 1,
// its default hash) as a peer of bloom_bench, behind a small interface.
//
// Built only when a developer points the benchmark at a Boost with Boost.Bloom
// (1.90 or later), outside this repository:
//
//   cmake --preset bench -DRINGBLOOM_BOOST_BLOOM_INCLUDE=/path/to/boost/include
//
// boost_bloom_peer.cpp is then compiled with -mavx2 -mbmi2 (Boost selects its
// AVX2 subfilter at compile time), and every timed loop runs inside that
// file, so Boost's inlined one-at-a-time path is measured as its users get it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ringbloom::bench {

class boost_fmb32 {
 public:
  /// A filter of `bits` bits (Boost rounds up to whole 256-bit blocks).
  explicit boost_fmb32(std::size_t bits);
  ~boost_fmb32();
  boost_fmb32(const boost_fmb32&) = delete;
  boost_fmb32& operator=(const boost_fmb32&) = delete;
  boost_fmb32(boost_fmb32&&) noexcept;
  boost_fmb32& operator=(boost_fmb32&&) noexcept;

  /// Keys are `n` strings of `key_bytes` bytes each, back to back at `keys`.
  void insert_each(const char* keys, std::size_t n, std::size_t key_bytes);
  void insert_bulk(const char* keys, std::size_t n, std::size_t key_bytes);
  /// How many answer "maybe", one call each / through the bulk API.
  [[nodiscard]] std::size_t count_each(const char* keys, std::size_t n,
                                       std::size_t key_bytes) const;
  [[nodiscard]] std::size_t count_bulk(const char* keys, std::size_t n,
                                       std::size_t key_bytes) const;
  [[nodiscard]] std::size_t bits() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// For the equal-rate table (bloom_bench --equal-fpr): Boost's blocked
/// subfilters (every lookup in one block: filter K = 1), each at several K,
/// by name ("fast_multiblock32<8>", "multiblock<uint64_t,8>, stride 1", ...).
[[nodiscard]] std::vector<std::string> boost_blocked_variants();
/// The measured false-positive rate of variant `index` made with
/// `bits_per_key` x n bits, holding the n `members`, probed with the m
/// `strangers` (keys of key_bytes bytes back to back).
[[nodiscard]] double boost_blocked_fpr(std::size_t index, double bits_per_key, const char* members,
                                       std::size_t n, const char* strangers, std::size_t m,
                                       std::size_t key_bytes);

}  // namespace ringbloom::bench
