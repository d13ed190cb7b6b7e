// Guava's Hashing.consistentHash (see guava.hpp for the rules and source).
#include "ringbloom/placement/schemes/guava.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ringbloom/placement/schemes/system_hashes.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

constexpr std::string_view kind = "guava";

// Java's (int) of a double (JLS 5.1.3): NaN is 0, out-of-range values
// saturate, others truncate toward zero.
std::int32_t java_d2i(double d) noexcept {
  if (std::isnan(d)) return 0;
  if (d >= 2147483647.0) return std::numeric_limits<std::int32_t>::max();
  if (d <= -2147483648.0) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(d);
}

}  // namespace

std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets) noexcept {
  std::uint64_t state = static_cast<std::uint64_t>(input);
  std::int32_t candidate = 0;
  while (true) {
    state = 2862933555777941757u * state + 1u;
    // (int) (state >>> 33) + 1 in 32-bit int arithmetic (wraps at 2^31 - 1).
    const auto high = static_cast<std::uint32_t>(state >> 33);
    const auto plus_one = static_cast<std::int32_t>(high + 1u);
    const double next_double = static_cast<double>(plus_one) / 2147483648.0;  // 0x1.0p31
    const std::int32_t next = java_d2i(static_cast<double>(candidate + 1) / next_double);
    if (next >= 0 && next < buckets) {
      candidate = next;
    } else {
      return candidate;
    }
  }
}

guava_placement::guava_placement(std::uint32_t buckets) {
  if (buckets > max_buckets) {
    throw std::invalid_argument(
        fmt::format("guava: {} buckets is more than {}", buckets, max_buckets));
  }
  for (std::uint32_t i = 0; i < buckets; ++i) names_.push_back(std::to_string(i));
}

std::uint64_t guava_placement::key_hash(std::string_view key) const {
  return murmur3_x64_128_h1(key);
}

std::uint32_t guava_placement::node_index_for_hash(std::uint64_t h) const {
  if (names_.empty()) detail::throw_empty(kind);
  return static_cast<std::uint32_t>(guava_consistent_hash(
      static_cast<std::int64_t>(h), static_cast<std::int32_t>(names_.size())));
}

void guava_placement::add_node(const placement_node& node) {
  const std::string next = std::to_string(names_.size());
  if (node.name != next) {
    throw std::invalid_argument(fmt::format(
        "guava: buckets are numbered; the next one is '{}', not '{}'", next, node.name));
  }
  detail::integer_weight(kind, node.name, node.weight, 1, 1);
  if (names_.size() >= max_buckets) throw std::invalid_argument("guava: too many buckets");
  names_.push_back(next);
}

void guava_placement::remove_node(std::string_view name) {
  if (names_.empty() || names_.back() != name) {
    throw std::invalid_argument(
        fmt::format("guava: only the last bucket ('{}') can be removed; consistentHash renumbers "
                    "nothing, so removing '{}' "
                    "is not expressible",
                    names_.empty() ? "" : names_.back(), name));
  }
  names_.pop_back();
}

unsigned guava_placement::supports() const noexcept {
  return placement_change::add | placement_change::remove_last;
}

std::unique_ptr<placement> guava_placement::clone() const {
  return std::make_unique<guava_placement>(*this);
}

}  // namespace ringbloom::schemes
