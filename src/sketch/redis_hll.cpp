// Redis 7.0's HyperLogLog strings and hash (include/ringbloom/sketch/hyperloglog.hpp).
//
// The layout, read from Redis 7.0's src/hyperloglog.c and drawn in
// docs/format.md ("Redis HLL strings"):
//
//   0   4  "HYLL"
//   4   1  encoding: 0 dense, 1 sparse
//   5   3  unused (Redis writes zeros and does not check them)
//   8   8  cached cardinality, little-endian; bit 7 of byte 15 set = stale
//  16      registers:
//            dense: 16,384 six-bit registers, register i at bits 6i..6i+5 of
//                   the byte string read least significant bit first
//                   (12,288 bytes, the whole string is exactly 12,304 bytes)
//            sparse: opcodes covering exactly 16,384 registers:
//                   ZERO  00xxxxxx           xxxxxx + 1 registers at 0 (1..64)
//                   XZERO 01xxxxxx yyyyyyyy  (x:y) + 1 registers at 0 (1..16384)
//                   VAL   1vvvvvxx           xx + 1 registers at vvvvv + 1 (1..32)
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ringbloom/error.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"

namespace ringbloom {

namespace {

constexpr std::size_t header_bytes = 16;
constexpr std::size_t registers = std::size_t{1} << hyperloglog::redis_precision;
constexpr std::size_t dense_bytes = header_bytes + registers * 6 / 8;
constexpr unsigned sparse_max_value = 32;
constexpr unsigned sparse_max_val_run = 4;
constexpr unsigned zero_max_run = 64;
constexpr unsigned xzero_max_run = 16384;
// Redis's default hll-sparse-max-bytes: above it Redis keeps the key dense.
constexpr std::size_t sparse_max_bytes = 3000;

[[noreturn]] void invalid(std::string_view what) {
  throw data_error(fmt::format(
      "this is not a valid Redis HyperLogLog string: {}; give the exact bytes that GET "
      "returns for a key written by PFADD or PFMERGE (for example 'redis-cli --raw GET key "
      "| head -c -1 > blob', which drops the newline redis-cli adds)",
      what));
}

std::string header(redis_hll_encoding encoding) {
  std::string out(header_bytes, '\0');
  std::memcpy(out.data(), "HYLL", 4);
  out[4] = static_cast<char>(encoding);
  out[15] = static_cast<char>(0x80);  // cached cardinality stale: Redis recomputes
  return out;
}

std::string dense_string(std::span<const std::uint8_t> regs) {
  std::string out = header(redis_hll_encoding::dense);
  out.resize(dense_bytes, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data()) + header_bytes;
  for (std::size_t i = 0; i < registers; ++i) {
    const std::size_t bit = 6 * i;
    const unsigned v = regs[i];
    p[bit / 8] = static_cast<unsigned char>(p[bit / 8] | (v << (bit % 8)));
    if (bit % 8 > 2) p[bit / 8 + 1] = static_cast<unsigned char>(v >> (8 - bit % 8));
  }
  return out;
}

void put_zero_run(std::string& out, std::size_t run) {
  while (run > 0) {
    const std::size_t n = std::min<std::size_t>(run, xzero_max_run);
    if (n > zero_max_run) {
      out.push_back(static_cast<char>(0x40 | ((n - 1) >> 8)));
      out.push_back(static_cast<char>((n - 1) & 0xff));
    } else {
      out.push_back(static_cast<char>(n - 1));
    }
    run -= n;
  }
}

// Canonical run-length encoding; empty when a register exceeds 32.
std::string sparse_string(std::span<const std::uint8_t> regs) {
  std::string out = header(redis_hll_encoding::sparse);
  std::size_t i = 0;
  while (i < registers) {
    const unsigned v = regs[i];
    std::size_t j = i + 1;
    while (j < registers && regs[j] == v) ++j;
    if (v == 0) {
      put_zero_run(out, j - i);
    } else {
      if (v > sparse_max_value) return {};
      for (std::size_t left = j - i; left > 0;) {
        const std::size_t n = std::min<std::size_t>(left, sparse_max_val_run);
        out.push_back(static_cast<char>(0x80 | ((v - 1) << 2) | (n - 1)));
        left -= n;
      }
    }
    i = j;
  }
  return out;
}

void check_header(std::string_view bytes) {
  if (bytes.size() < header_bytes) {
    invalid(fmt::format("it has {} bytes, fewer than the 16 of the header", bytes.size()));
  }
  if (bytes.substr(0, 4) != "HYLL") invalid("it does not start with \"HYLL\"");
  const auto encoding = static_cast<unsigned char>(bytes[4]);
  if (encoding > 1) invalid(fmt::format("unknown encoding {} (0 dense, 1 sparse)", encoding));
  if (encoding == 0 && bytes.size() != dense_bytes) {
    invalid(fmt::format("a dense HLL has {} bytes, this one {}", dense_bytes, bytes.size()));
  }
}

std::vector<std::uint8_t> decode_dense(const unsigned char* p) {
  std::vector<std::uint8_t> regs(registers);
  for (std::size_t i = 0; i < registers; ++i) {
    const std::size_t bit = 6 * i;
    unsigned v = p[bit / 8] >> (bit % 8);
    if (bit % 8 > 2) v |= unsigned{p[bit / 8 + 1]} << (8 - bit % 8);
    regs[i] = static_cast<std::uint8_t>(v & 63);
  }
  return regs;
}

std::vector<std::uint8_t> decode_sparse(const unsigned char* p, std::size_t n) {
  std::vector<std::uint8_t> regs(registers, 0);
  std::size_t index = 0;
  for (std::size_t at = 0; at < n;) {
    const unsigned op = p[at];
    std::size_t run = 0;
    unsigned value = 0;
    if ((op & 0xc0) == 0) {
      run = (op & 0x3f) + 1;
      at += 1;
    } else if ((op & 0xc0) == 0x40) {
      if (at + 1 >= n) invalid("its last XZERO opcode is cut off");
      run = (((op & 0x3f) << 8) | p[at + 1]) + 1;
      at += 2;
    } else {
      run = (op & 3) + 1;
      value = ((op >> 2) & 0x1f) + 1;
      at += 1;
    }
    if (index + run > registers) {
      invalid(fmt::format("its sparse opcodes cover more than {} registers", registers));
    }
    std::fill_n(regs.begin() + static_cast<std::ptrdiff_t>(index), run,
                static_cast<std::uint8_t>(value));
    index += run;
  }
  if (index != registers) {
    invalid(fmt::format("its sparse opcodes cover {} registers, not {}", index, registers));
  }
  return regs;
}

}  // namespace

std::uint64_t murmur64a(std::string_view data, std::uint64_t seed) noexcept {
  // Austin Appleby's MurmurHash64A; constants from the original.
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const auto len = data.size();
  std::uint64_t h = seed ^ (len * m);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t blocks = len / 8;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint64_t k = io::load_le<std::uint64_t>(p + 8 * i);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const unsigned char* tail = p + 8 * blocks;
  const std::size_t rest = len & 7;
  if (rest > 0) {
    for (std::size_t i = rest; i-- > 0;) h ^= std::uint64_t{tail[i]} << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

std::string to_redis_string(const hyperloglog& hll, redis_hll_encoding encoding) {
  if (hll.mode() != hll_mode::redis) {
    throw std::invalid_argument(
        "only a Redis-mode HyperLogLog can be written as a Redis string (its registers follow "
        "Redis's hash); create it with --redis (hyperloglog::redis())");
  }
  if (encoding == redis_hll_encoding::dense) return dense_string(hll.registers());
  std::string sparse = sparse_string(hll.registers());
  if (sparse.empty()) {
    throw std::invalid_argument(
        "a register is above 32, which the sparse Redis encoding cannot hold; write it dense");
  }
  return sparse;
}

std::string to_redis_string(const hyperloglog& hll) {
  if (hll.mode() == hll_mode::redis) {
    std::string sparse = sparse_string(hll.registers());
    if (!sparse.empty() && sparse.size() <= sparse_max_bytes) return sparse;
  }
  return to_redis_string(hll, redis_hll_encoding::dense);
}

redis_hll_encoding redis_string_encoding(std::string_view bytes) {
  check_header(bytes);
  return static_cast<redis_hll_encoding>(bytes[4]);
}

hyperloglog from_redis_string(std::string_view bytes) {
  check_header(bytes);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + header_bytes;
  std::vector<std::uint8_t> regs =
      bytes[4] == 0 ? decode_dense(p) : decode_sparse(p, bytes.size() - header_bytes);
  const auto top = *std::max_element(regs.begin(), regs.end());
  if (top > 65 - hyperloglog::redis_precision) {
    invalid(fmt::format("a register holds {}, above 51, the largest PFADD can write", top));
  }
  return hyperloglog::from_registers(hyperloglog::redis_precision, hll_mode::redis,
                                     hyperloglog::redis_seed, std::move(regs));
}

}  // namespace ringbloom
