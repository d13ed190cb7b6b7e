// ringbloom/sketch/hyperloglog.hpp: HyperLogLog, the distinct-count sketch,
// with a Redis mode that is register-for-register Redis 7.0's PFADD.
//
// What: m = 2^p registers (p = 4..18, default 14: 16,384 registers) estimate
// the number of distinct items added, with a relative standard error of about
// 1.04 / sqrt(m) (0.81% at p = 14), in either direction. Adding an item twice
// changes nothing; merging two sketches gives the sketch of the union.
//
// When: counting distinct users, keys or flows where an exact set would not
// fit, or where sketches of shards must be combined.
//
// The register rule (Flajolet et al. 2007 with a 64-bit hash, Heule et al.
// 2013; the same rule Redis uses): h = hash(item); register index =
// h mod 2^p; value = 1 + the number of trailing zero bits of h >> p, at most
// 64 - p + 1; the register keeps the largest value seen.
//
// The estimator: Ertl 2017, "New cardinality estimation algorithms for
// HyperLogLog sketches" (arXiv:1702.01284), section 4, the "improved raw
// estimator": alpha_inf m^2 / (m sigma(C_0/m) + sum_k C_k 2^-k + m tau(1 -
// C_{q+1}/m) 2^-q) with q = 64 - p and C_k the number of registers equal to
// k. It needs neither linear counting nor an empirical bias table and has no
// bump near 2.5 m, the classic estimator's weak point. Redis (since 5.0) uses
// the same formula, so on the same registers count() equals PFCOUNT.
//
// Redis mode (hyperloglog::redis()): p = 14, hash MurmurHash64A with seed
// 0xadc83b19 (Redis's src/hyperloglog.c), so the registers equal those of a
// Redis key after PFADD of the same items. to_redis_string / from_redis_string
// write and read the bytes Redis stores for the key ("HYLL" header, dense or
// sparse encoding; see docs/format.md).
//
// Guarantees: add and merge never lower a register; equal items always land
// on the same register (the hash is fixed per mode and seed); the estimate is
// exactly 0 for an empty sketch. Not guaranteed: any bound for one sketch;
// the error is statistical.
//
// Example:
//
//   ringbloom::hyperloglog users;             // p = 14, xxh3
//   users.add("anna");
//   users.add("bora");
//   users.add("anna");
//   std::uint64_t n = users.count();          // 2
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom {

/// Which hash feeds the registers.
enum class hll_mode : std::uint8_t {
  native = 0,  ///< xxh3_64(item, seed); any p
  redis = 1,   ///< MurmurHash64A(item, seed 0xadc83b19), p = 14: Redis 7.0's PFADD
};

class hll_view;

class hyperloglog {
 public:
  static constexpr unsigned min_precision = 4;
  static constexpr unsigned max_precision = 18;
  static constexpr unsigned default_precision = 14;
  static constexpr unsigned redis_precision = 14;
  static constexpr std::uint64_t redis_seed = 0xadc83b19;

  /// A native sketch with 2^precision registers. Throws std::invalid_argument
  /// naming the range unless 4 <= precision <= 18.
  explicit hyperloglog(unsigned precision = default_precision, std::uint64_t seed = 0);

  /// An empty sketch whose registers follow Redis 7.0's PFADD.
  [[nodiscard]] static hyperloglog redis();

  /// A sketch from saved registers (one byte per register). Throws
  /// data_error when the count is not 2^precision or a register exceeds
  /// 64 - precision + 1, std::invalid_argument for a bad precision or a redis
  /// mode with p != 14.
  [[nodiscard]] static hyperloglog from_registers(unsigned precision, hll_mode mode,
                                                  std::uint64_t seed,
                                                  std::vector<std::uint8_t> registers);

  [[nodiscard]] unsigned precision() const noexcept { return precision_; }
  [[nodiscard]] std::size_t register_count() const noexcept { return registers_.size(); }
  [[nodiscard]] hll_mode mode() const noexcept { return mode_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  /// The largest value a register can hold: 64 - p + 1.
  [[nodiscard]] unsigned max_register() const noexcept { return 65 - precision_; }
  [[nodiscard]] std::span<const std::uint8_t> registers() const noexcept { return registers_; }
  /// Bytes of register memory (one byte per register).
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return registers_.size(); }
  /// 1.04 / sqrt(m): the relative standard error the estimator aims at.
  [[nodiscard]] double standard_error() const noexcept;

  /// The 64-bit hash this sketch uses for `item`.
  [[nodiscard]] std::uint64_t hash_of(std::string_view item) const noexcept;

  /// Adds an item; true when a register grew (as PFADD's reply).
  bool add(std::string_view item) noexcept { return add_hash(hash_of(item)); }
  /// Adds a value already hashed with hash_of (or any well-mixed 64-bit hash).
  bool add_hash(std::uint64_t hash) noexcept {
    const std::uint64_t index = hash & (registers_.size() - 1);
    const std::uint64_t rest = (hash >> precision_) | (std::uint64_t{1} << (64 - precision_));
    const auto value = static_cast<std::uint8_t>(std::countr_zero(rest) + 1);
    std::uint8_t& r = registers_[index];
    if (value <= r) return false;
    r = value;
    return true;
  }
  /// Adds many items: hashes a batch first, then updates (the batch loop
  /// overlaps the hashing with the register misses). Returns how many grew a register.
  std::size_t add_many(std::span<const std::string_view> items) noexcept;
  std::size_t add_hashes(std::span<const std::uint64_t> hashes) noexcept;

  /// The estimated number of distinct items (Ertl's improved estimator).
  [[nodiscard]] double estimate() const noexcept;
  /// estimate() rounded to the nearest integer, as Redis's PFCOUNT.
  [[nodiscard]] std::uint64_t count() const noexcept;

  /// Union: each register becomes the larger of the two. Throws
  /// std::invalid_argument (sketch unchanged) unless mode, precision and
  /// seed agree, saying which differs.
  void merge(const hyperloglog& other);
  /// The same union with a read-only sketch (a mapped file's registers).
  void merge(const hll_view& other);

  /// Sets every register to zero.
  void clear() noexcept;

  friend bool operator==(const hyperloglog&, const hyperloglog&) = default;

 private:
  hyperloglog(unsigned precision, hll_mode mode, std::uint64_t seed);

  unsigned precision_;
  hll_mode mode_;
  std::uint64_t seed_;
  hooked_vector<std::uint8_t> registers_;
};

/// A read-only HyperLogLog over registers that live elsewhere: the register
/// bytes of a memory-mapped sketch file (open_sketch_mapped,
/// sketch_file.hpp). count() reads them in place, without a copy; the
/// answers are those of a hyperloglog with the same registers. `keepalive`
/// keeps their storage (the mapping) alive as long as the view and its copies.
class hll_view {
 public:
  /// Checks what from_registers checks (std::invalid_argument for a bad
  /// precision or Redis mode, data_error for a wrong register count or a
  /// register above max_register()): one pass over the registers.
  hll_view(unsigned precision, hll_mode mode, std::uint64_t seed,
           std::span<const std::uint8_t> registers, std::shared_ptr<const void> keepalive = {});

  [[nodiscard]] unsigned precision() const noexcept { return precision_; }
  [[nodiscard]] hll_mode mode() const noexcept { return mode_; }
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }
  [[nodiscard]] std::size_t register_count() const noexcept { return registers_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return registers_.size(); }
  [[nodiscard]] unsigned max_register() const noexcept { return 65 - precision_; }
  [[nodiscard]] std::span<const std::uint8_t> registers() const noexcept { return registers_; }
  [[nodiscard]] double standard_error() const noexcept;
  [[nodiscard]] double estimate() const noexcept;
  [[nodiscard]] std::uint64_t count() const noexcept;
  /// A writable sketch with a copy of the registers.
  [[nodiscard]] hyperloglog copy() const;

 private:
  unsigned precision_;
  hll_mode mode_;
  std::uint64_t seed_;
  std::span<const std::uint8_t> registers_;
  std::shared_ptr<const void> keepalive_;
};

/// Ertl's improved estimate over 2^precision registers (one byte each),
/// wherever they live: what hyperloglog::estimate and hll_view::estimate use.
[[nodiscard]] double hll_estimate(std::span<const std::uint8_t> registers,
                                  unsigned precision) noexcept;

/// Ertl 2017's improved estimator over a register histogram: `histogram[k]`
/// is the number of registers equal to k, for k = 0..q+1 (q = 64 - p).
[[nodiscard]] double hll_estimate_from_histogram(std::span<const std::uint32_t> histogram,
                                                 unsigned precision) noexcept;

/// MurmurHash64A (Austin Appleby), the endian-neutral variant in Redis's
/// src/hyperloglog.c, with its length-seeded start.
[[nodiscard]] std::uint64_t murmur64a(std::string_view data, std::uint64_t seed) noexcept;

/// The encoding of a Redis HLL string.
enum class redis_hll_encoding : std::uint8_t { dense = 0, sparse = 1 };

/// The bytes Redis 7.0 stores for an HLL key holding these registers
/// (`SET key <bytes>` then PFCOUNT / PFMERGE work on it). The cached
/// cardinality is marked stale, so Redis computes its own. Sparse is
/// refused (std::invalid_argument) when a register exceeds 32, the sparse
/// limit; `redis_hll_best` picks sparse when it is smaller and possible.
/// Throws std::invalid_argument unless the sketch is in Redis mode.
[[nodiscard]] std::string to_redis_string(const hyperloglog& hll, redis_hll_encoding encoding);
[[nodiscard]] std::string to_redis_string(const hyperloglog& hll);

/// A Redis-mode sketch from the bytes of `GET key` of a Redis HLL, dense or
/// sparse. Throws data_error naming the problem when the bytes are not a
/// valid Redis HLL (magic, encoding, length, opcodes that do not cover
/// exactly 16,384 registers, register values above 51).
[[nodiscard]] hyperloglog from_redis_string(std::string_view bytes);

/// The encoding recorded in a Redis HLL string (checked as from_redis_string does).
[[nodiscard]] redis_hll_encoding redis_string_encoding(std::string_view bytes);

}  // namespace ringbloom
