// A study, not a library structure: can a windowed filter built as a cuckoo
// table with age tags hold one window's items in at most 1.6x the bits of a
// blocked filter (bloom_math::blocked_size_for(N, p)), within 3 cache lines
// per call? docs/performance.md, "Windowed filter: a cuckoo table with age
// tags (study)", holds the results and the commands.
//
// The design measured (the prototype below, `age_cuckoo`):
//   - a cuckoo table; each entry is an f-bit fingerprint (0 = empty) and a
//     t-bit generation tag; time is cut into generations of W / (g - 1)
//     (g = 2^t), and the g latest generations are live, so an item added at
//     t is kept until at least t + W and forgotten by t + W (1 + s), s =
//     1 / (g - 1);
//   - add(x): when one of x's two buckets holds x's fingerprint, that entry's
//     tag becomes the current generation (a refresh); otherwise x is
//     inserted with partial-key cuckoo kicks (at most `max_kicks`), the
//     alternate bucket computed from the bucket and the fingerprint alone;
//   - may_contain(x): some entry of x's two buckets holds x's fingerprint
//     (every stored entry is live: expired ones were cleared), compared
//     64 bits (up to floor(64 / (f + t)) entries) at a time;
//   - at each generation boundary one pass clears the entries tagged with
//     the generation that leaves (the tag the new generation reuses).
//   Packing: entries of f + t bits packed tightly inside each 64-byte line;
//   no bucket crosses a line, so a lookup reads at most 2 lines. Two
//   layouts: "aligned" puts floor(512 / (b e)) buckets of b entries in a
//   line (the tail of the line is wasted); "filled" puts floor(512 / e)
//   entries in a line, in ceil(E / b) buckets whose sizes differ by at most
//   one (b and b - 1), wasting fewer than e bits a line.
//   A bucket is (line, slot in the line); its alternate is (H1(fp) - line
//   mod lines, H2(fp) - slot mod buckets per line), an involution for any
//   number of lines (no power of two, so any load can be chosen).
//
// Modes (all fixed seeds; N = items per window):
//   windowed_cuckoo_study stream  [N=1000000] [p=0.01] [g=8] [alpha=0.95] [f=0: from alpha]
//                                 [layout=filled|aligned] [gens=28] [repeats=0.25]
//                                 [burst=-1: generation with 2x the items] [policy=refuse|evict]
//                                 [kicks=500] [insert=walk|lookahead] [seed=1: the stream's]
//                                 [strangers=100000: per generation] [hash_seed=0]
//     one steady-state stream: per generation N / (g - 1) distinct items, a
//     share `repeats` of them re-adds of items among the last 2N new ones
//     (repeats=0: all new, the highest load); prints insert failures, false
//     negatives inside the window, the rate of strangers and of expired
//     items, peak load, bits per window item and how often inserts kick.
//   windowed_cuckoo_study search  [N] [p] [g] [layout] [from=0.88] [step=0.01] [gens] [seeds=2]
//     the highest alpha (in steps) whose streams never fail an insert, for
//     `seeds` seeds, and the row of the study's table at that alpha.
//   windowed_cuckoo_study speed   [N] [p] [g] [alpha] [layout] [rounds=5]
//     ns per add, lookup of members and of strangers, one at a time and
//     batched, against windowed_bloom_filter and blocked_bloom_filter in the
//     same process (median of `rounds`, interleaved), as ratios to blocked.
//   windowed_cuckoo_study calls   [N] [p] [g] [alpha] [layout] [filter=cuckoo|windowed|blocked]
//                                 [op=add|member|stranger|add_many|member_many|stranger_many]
//     one operation over 2^18 keys with callgrind's instrumentation on only
//     around it: run under valgrind --tool=callgrind --instr-atstart=no, and
//     divide the Ir total by the count it prints (2^18 keys for lookups, one
//     generation's new items, at most 2^18, for adds).
#include <fmt/core.h>

// callgrind's client requests (the valgrind package's header); without it
// the calls mode counts nothing but still runs.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom_math.hpp"
#include "ringbloom/filter/detail/bloom_storage.hpp"
#include "ringbloom/filter/windowed_bloom.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/mix.hpp"

namespace {

using ringbloom::blocked_bloom_filter;
using ringbloom::windowed_bloom_filter;

constexpr std::uint64_t line_bits = 512;
constexpr std::uint32_t max_bucket = 8;

/// The prototype: a cuckoo table of (fingerprint, tag) entries.
class age_cuckoo {
 public:
  struct options {
    std::uint64_t window_items = 1'000'000;  // N
    double alpha = 0.95;                     // load when g generations of N/(g-1) are held
    std::uint32_t f = 10;                    // fingerprint bits
    std::uint32_t t = 3;                     // tag bits: g = 2^t generations
    std::uint32_t b = 4;                     // entries per bucket (at most)
    bool filled = true;                      // layout: fill each line (sizes b and b-1)
    std::uint32_t max_kicks = 500;
    bool evict_oldest = false;  // on a failed insert: forget the oldest entry of the pair
    bool lookahead = false;     // try one level of breadth-first search before kicking
    std::uint64_t seed = 0;     // of the item hash
  };
  enum class result { refreshed, inserted, evicted, failed };

  explicit age_cuckoo(const options& o) : o_(o), rng_(o.seed ^ 0x5eedULL) {
    path_.reserve(o.max_kicks);
    e_ = o.f + o.t;
    if (o.f < 2 || o.t < 1 || o.t > o.f || e_ > 32 || o.b < 1 || o.b > max_bucket) {
      throw std::invalid_argument(
          "entry of f + t bits: give f >= 2, 1 <= t <= f, f + t <= 32, b in 1..8");
    }
    g_ = 1u << o.t;
    fmax_ = (std::uint64_t{1} << o.f) - 1;
    emask_ = (std::uint64_t{1} << e_) - 1;
    per_window_ = 64 / e_;
    inverse_e_ = (65536 + e_ - 1) / e_;
    for (std::uint32_t n = 1; n <= per_window_ && n < ones_.size(); ++n) {
      ones_[n] = ones_[n - 1] | (std::uint64_t{1} << ((n - 1) * e_));
    }
    entries_per_line_ = o.filled ? static_cast<std::uint32_t>(line_bits / e_)
                                 : o.b * static_cast<std::uint32_t>(line_bits / (o.b * e_));
    buckets_per_line_ = (entries_per_line_ + o.b - 1) / o.b;
    const std::uint32_t q = entries_per_line_ / buckets_per_line_;
    const std::uint32_t r = entries_per_line_ % buckets_per_line_;
    std::uint32_t start = 0;
    for (std::uint32_t j = 0; j < buckets_per_line_; ++j) {
      size_[j] = q + (j < r ? 1 : 0);
      start_[j] = start;
      start += size_[j];
    }
    const double held = static_cast<double>(o.window_items) * g_ / (g_ - 1);
    const auto entries = static_cast<std::uint64_t>(std::ceil(held / o.alpha));
    lines_ = (entries + entries_per_line_ - 1) / entries_per_line_;
    words_.assign(lines_ * 8 + 8, 0);
  }

  [[nodiscard]] std::uint64_t bits() const { return lines_ * line_bits; }
  [[nodiscard]] std::uint64_t slots() const { return lines_ * entries_per_line_; }
  [[nodiscard]] std::uint64_t stored() const { return stored_; }
  [[nodiscard]] std::uint32_t generations() const { return g_; }
  [[nodiscard]] std::uint32_t entries_per_line() const { return entries_per_line_; }
  /// Inserts that needed kicks: at least one (3 lines: its 2 buckets and
  /// the first victim's other bucket) and at least two (4 lines or more),
  /// and all kicks of successful inserts.
  [[nodiscard]] std::uint64_t kicked_inserts() const { return kicked_inserts_; }
  [[nodiscard]] std::uint64_t long_kicked_inserts() const { return long_kicked_inserts_; }
  [[nodiscard]] std::uint64_t kicks() const { return kicks_; }
  void reset_kick_counts() { kicks_ = kicked_inserts_ = long_kicked_inserts_ = 0; }

  [[nodiscard]] std::uint64_t hash(std::string_view key) const {
    return ringbloom::xxh3_64(key, o_.seed);
  }

  /// Enters generation `gen`: clears the entries of generation gen - g (the
  /// tag gen reuses). Generations must be entered in order.
  void begin_generation(std::uint64_t gen) {
    cur_ = gen;
    const std::uint64_t dead = gen & (g_ - 1);
    const std::uint64_t tmask = (std::uint64_t{1} << o_.t) - 1;
    std::uint64_t* w = words_.data();
    // Word-parallel: floor(64 / e) entries at a time, as in_bucket reads
    // them. A field is cleared when its tag equals `dead` (a zero-field
    // test on the tags, shifted down by f, guarded by bit t) and its
    // fingerprint is not 0 (bit f survives (fp | 2^f) - 1).
    for (std::uint64_t l = 0; l < lines_; ++l) {
      const std::uint64_t last_word = l * 8 + 7;
      for (std::uint32_t k = 0; k < entries_per_line_; k += per_window_) {
        const std::uint32_t n = std::min(per_window_, entries_per_line_ - k);
        const std::uint64_t at = l * line_bits + std::uint64_t{k} * e_;
        const std::uint64_t i = at >> 6, s = at & 63;
        const std::uint64_t i2 = std::min(i + 1, last_word);
        const std::uint64_t x = (w[i] >> s) | ((w[i2] << 1) << (63 - s));
        const std::uint64_t ones = ones_[n];
        const std::uint64_t tags = ((x >> o_.f) & (tmask * ones)) ^ (dead * ones);
        const std::uint64_t same_tag = ~((tags | (ones << o_.t)) - ones) & (ones << o_.t);
        const std::uint64_t filled =
            (((x & (fmax_ * ones)) | (ones << o_.f)) - ones) & (ones << o_.f);
        const std::uint64_t match = (same_tag << (o_.f - o_.t)) & filled;  // bit f of each
        if (match == 0) continue;
        const std::uint64_t m = (match >> o_.f) * emask_;  // the matching fields, whole
        w[i] &= ~(m << s);
        if (i2 != i) w[i2] &= ~((m >> 1) >> (63 - s));
        stored_ -= static_cast<std::uint64_t>(std::popcount(match));
      }
    }
  }

  struct place {
    std::uint64_t fp, line1, line2;
    std::uint32_t j1, j2;
  };
  [[nodiscard]] place locate(std::uint64_t h) const {
    place p{};
    p.fp = 1 + (((h & 0xffffffffULL) * fmax_) >> 32);
    p.line1 = ((h >> 32) * lines_) >> 32;
    p.j1 = static_cast<std::uint32_t>(((h & 0xfffULL) * buckets_per_line_) >> 12);
    alternate(p.fp, p.line1, p.j1, p.line2, p.j2);
    return p;
  }
  void prefetch(const place& p) const {
    __builtin_prefetch(words_.data() + p.line1 * 8);
    __builtin_prefetch(words_.data() + p.line2 * 8);
  }

  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const { return probe(locate(h)); }
  [[nodiscard]] bool probe(const place& p) const {
    return in_bucket(p.fp, p.line1, p.j1) || in_bucket(p.fp, p.line2, p.j2);
  }
  [[nodiscard]] bool may_contain(std::string_view key) const { return may_contain_hash(hash(key)); }

  result add(std::string_view key) { return add_place(locate(hash(key))); }
  result add_hash(std::uint64_t h) { return add_place(locate(h)); }

  /// Batches: each item is hashed and located, and both its lines
  /// prefetched, `ahead` items before it is probed or added.
  static constexpr std::size_t ahead = 8;
  std::size_t may_contain_many(std::span<const std::string_view> keys, bool* out) const {
    std::size_t found = 0;
    std::array<place, 16> ring{};
    for (std::size_t i = 0; i < std::min(ahead, keys.size()); ++i) {
      ring[i % ring.size()] = locate(hash(keys[i]));
      prefetch(ring[i % ring.size()]);
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i + ahead < keys.size()) {
        place& next = ring[(i + ahead) % ring.size()];
        next = locate(hash(keys[i + ahead]));
        prefetch(next);
      }
      out[i] = probe(ring[i % ring.size()]);
      found += out[i] ? 1 : 0;
    }
    return found;
  }
  void add_many(std::span<const std::string_view> keys, std::uint64_t* failed) {
    std::array<place, 16> ring{};
    for (std::size_t i = 0; i < std::min(ahead, keys.size()); ++i) {
      ring[i % ring.size()] = locate(hash(keys[i]));
      prefetch(ring[i % ring.size()]);
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i + ahead < keys.size()) {
        place& next = ring[(i + ahead) % ring.size()];
        next = locate(hash(keys[i + ahead]));
        prefetch(next);
      }
      *failed += add_place(ring[i % ring.size()]) == result::failed ? 1 : 0;
    }
  }

 private:
  void alternate(std::uint64_t fp, std::uint64_t line, std::uint32_t j, std::uint64_t& line2,
                 std::uint32_t& j2) const {
    const std::uint64_t m = fp * 0x9E3779B97F4A7C15ULL;  // 2^64 / golden ratio
    const std::uint64_t dl = ((m >> 32) * lines_) >> 32;
    const auto dj = static_cast<std::uint32_t>((((m >> 20) & 0xfffULL) * buckets_per_line_) >> 12);
    line2 = dl >= line ? dl - line : dl + lines_ - line;
    j2 = dj >= j ? dj - j : dj + buckets_per_line_ - j;
  }

  [[nodiscard]] std::uint64_t offset(std::uint64_t line, std::uint32_t j, std::uint32_t k) const {
    return line * line_bits + std::uint64_t{start_[j] + k} * e_;
  }
  // An entry never crosses a line, so both words read are in its line.
  [[nodiscard]] std::uint64_t get(std::uint64_t at) const {
    const std::uint64_t* w = words_.data();
    const std::uint64_t s = at & 63;
    const std::uint64_t lo = w[at >> 6] >> s;
    const std::uint64_t hi = (w[(at + e_ - 1) >> 6] << 1) << (63 - s);
    return (lo | hi) & emask_;
  }
  void put(std::uint64_t at, std::uint64_t v) {
    std::uint64_t* w = words_.data();
    const std::uint64_t s = at & 63;
    const std::uint64_t i = at >> 6;
    if (s + e_ <= 64) {
      w[i] = (w[i] & ~(emask_ << s)) | (v << s);
    } else {
      const std::uint64_t high_bits = s + e_ - 64;
      w[i] = (w[i] & ((std::uint64_t{1} << s) - 1)) | (v << s);
      w[i + 1] = (w[i + 1] & ~((std::uint64_t{1} << high_bits) - 1)) | (v >> (64 - s));
    }
  }
  // Whether bucket (line, j) holds fp: the bucket is read 64 bits at a time
  // (floor(64 / e) entries, all of a bucket when e <= 16) and compared
  // whole: d holds each entry's fingerprint xor fp; a field of d is zero
  // exactly when (d | 2^f) - 1 clears its bit f, the tag's lowest bit,
  // which keeps the subtraction inside the field.
  static constexpr std::uint64_t none = ~std::uint64_t{0};
  /// The bit offset of bucket (line, j)'s first entry holding fp (fp 0: its
  /// first empty slot), or `none`; with Where false only whether there is one
  /// (not none), without computing the offset.
  template <bool Where = true>
  [[nodiscard]] std::uint64_t find(std::uint64_t fp, std::uint64_t line, std::uint32_t j) const {
    std::uint64_t at = offset(line, j, 0);
    const std::uint64_t last_word = line * 8 + 7;
    std::uint32_t left = size_[j];
    for (;;) {
      const std::uint32_t n = std::min(left, per_window_);
      const std::uint64_t* w = words_.data();
      const std::uint64_t i = at >> 6, s = at & 63;
      const std::uint64_t x = (w[i] >> s) | ((w[std::min(i + 1, last_word)] << 1) << (63 - s));
      const std::uint64_t ones = ones_[n];
      const std::uint64_t guard = ones << o_.f;
      const std::uint64_t d = (x ^ (fp * ones)) & (fmax_ * ones);
      const std::uint64_t z = ~((d | guard) - ones) & guard;
      if (!Where && z != 0) return 0;
      if (z != 0) {
        // The field's index: floor(ctz / e) by a multiply (exact for ctz < 64).
        const auto bit = static_cast<std::uint64_t>(std::countr_zero(z));
        return at + ((bit * inverse_e_) >> 16) * e_;
      }
      left -= n;
      if (left == 0) return none;
      at += std::uint64_t{n} * e_;
    }
  }
  /// Whether bucket (line, j) holds fp (fp 0: whether it has an empty slot).
  [[nodiscard]] bool in_bucket(std::uint64_t fp, std::uint64_t line, std::uint32_t j) const {
    return find<false>(fp, line, j) != none;
  }
  [[nodiscard]] std::uint64_t tagged(std::uint64_t fp) const {
    return fp | ((cur_ & (g_ - 1)) << o_.f);
  }

  result add_place(const place& p) {
    // A refresh when either bucket holds the fingerprint; else the first empty slot.
    std::uint64_t at = find(p.fp, p.line1, p.j1);
    if (at == none) at = find(p.fp, p.line2, p.j2);
    if (at != none) {
      put(at, tagged(p.fp));
      return result::refreshed;
    }
    at = find(0, p.line1, p.j1);
    if (at == none) at = find(0, p.line2, p.j2);
    if (at != none) {
      put(at, tagged(p.fp));
      ++stored_;
      return result::inserted;
    }
    if (o_.lookahead && move_one(p)) return result::inserted;
    return kick(p);
  }

  // One level of breadth-first search before the random walk: the other
  // buckets of the 2b residents are located and prefetched together, and the
  // first with an empty slot takes its resident, whose slot takes the item.
  // More lines (up to 2 + 2b), but fetched in parallel, not one after another.
  bool move_one(const place& p) {
    std::array<std::uint64_t, 2 * max_bucket> from{}, to_line{};
    std::array<std::uint32_t, 2 * max_bucket> to_j{};
    std::uint32_t n = 0;
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t line = side == 0 ? p.line1 : p.line2;
      const std::uint32_t j = side == 0 ? p.j1 : p.j2;
      for (std::uint32_t k = 0; k < size_[j]; ++k, ++n) {
        from[n] = offset(line, j, k);
        alternate(get(from[n]) & fmax_, line, j, to_line[n], to_j[n]);
        __builtin_prefetch(words_.data() + to_line[n] * 8);
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!in_bucket(0, to_line[i], to_j[i])) continue;  // fingerprint 0: an empty slot
      for (std::uint32_t k = 0;; ++k) {
        const std::uint64_t at = offset(to_line[i], to_j[i], k);
        if ((get(at) & fmax_) == 0) {
          put(at, get(from[i]));
          put(from[i], tagged(p.fp));
          ++stored_;
          ++kicks_;
          ++kicked_inserts_;
          return true;
        }
      }
    }
    return false;
  }

  // Random-walk cuckoo insertion (Fan et al. 2014, Algorithm 1): swap the
  // entry into a random slot of one of its buckets and move the victim to
  // the victim's alternate bucket, up to max_kicks times. On failure the
  // swaps are undone, then the item is refused or, with evict_oldest, takes
  // the place of the oldest entry of its two buckets.
  result kick(const place& p) {
    path_.clear();
    std::uint64_t line = (next_random() & 1) != 0 ? p.line2 : p.line1;
    std::uint32_t j = line == p.line1 ? p.j1 : p.j2;
    std::uint64_t carry = tagged(p.fp);
    for (std::uint32_t n = 0; n < o_.max_kicks; ++n) {
      const auto k = static_cast<std::uint32_t>(((next_random() >> 32) * size_[j]) >> 32);
      const std::uint64_t at = offset(line, j, k);
      const std::uint64_t victim = get(at);
      put(at, carry);
      path_.push_back({at, victim});
      carry = victim;
      alternate(victim & fmax_, line, j, line, j);
      const std::uint64_t to = find(0, line, j);
      if (to != none) {
        put(to, carry);
        ++stored_;
        kicks_ += n + 1;
        ++kicked_inserts_;
        long_kicked_inserts_ += n > 0 ? 1 : 0;
        return result::inserted;
      }
    }
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) put(it->first, it->second);
    if (!o_.evict_oldest) return result::failed;
    std::uint64_t oldest_at = 0, oldest_age = 0;
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t l = side == 0 ? p.line1 : p.line2;
      const std::uint32_t jj = side == 0 ? p.j1 : p.j2;
      for (std::uint32_t k = 0; k < size_[jj]; ++k) {
        const std::uint64_t at = offset(l, jj, k);
        const std::uint64_t age = (cur_ - (get(at) >> o_.f)) & (g_ - 1);
        if (age >= oldest_age) {
          oldest_age = age;
          oldest_at = at;
        }
      }
    }
    put(oldest_at, tagged(p.fp));
    ++evicted_;
    return result::evicted;
  }

  options o_;
  std::uint32_t e_ = 0, g_ = 0;
  std::uint64_t fmax_ = 0, emask_ = 0;
  std::uint32_t entries_per_line_ = 0, buckets_per_line_ = 0;
  std::uint32_t per_window_ = 0;          // entries one 64-bit read covers
  std::uint64_t inverse_e_ = 0;           // ceil(2^16 / e)
  std::array<std::uint64_t, 33> ones_{};  // ones_[n]: bit 0 of each of n fields
  std::array<std::uint32_t, 64> size_{}, start_{};
  std::uint64_t lines_ = 0;
  // Aligned to lines, and in huge pages when large, as the library's filters.
  std::vector<std::uint64_t, ringbloom::detail::aligned_allocator<
                                 std::uint64_t, ringbloom::detail::cache_line_bytes>>
      words_;
  std::uint64_t cur_ = 0, stored_ = 0, evicted_ = 0;
  std::uint64_t kicks_ = 0, kicked_inserts_ = 0, long_kicked_inserts_ = 0;
  std::uint64_t rng_;  // the kicks' choices
  std::uint64_t next_random() { return ringbloom::splitmix64_next(rng_); }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> path_;
};

// --- arguments ----------------------------------------------------------------

struct args {
  std::map<std::string, std::string, std::less<>> kv;
  args(int argc, char** argv, int from) {
    for (int i = from; i < argc; ++i) {
      const std::string a = argv[i];
      const auto eq = a.find('=');
      if (eq == std::string::npos) {
        throw std::invalid_argument(fmt::format("argument '{}' is not NAME=VALUE", a));
      }
      kv[a.substr(0, eq)] = a.substr(eq + 1);
    }
  }
  [[nodiscard]] double num(std::string_view k, double d) const {
    const auto it = kv.find(k);
    return it == kv.end() ? d : std::stod(it->second);
  }
  [[nodiscard]] std::string str(std::string_view k, std::string_view d) const {
    const auto it = kv.find(k);
    return it == kv.end() ? std::string(d) : it->second;
  }
};

/// f = ceil(log2(2 b alpha / p + 1)): the lead's rule for the fingerprint.
std::uint32_t fingerprint_bits(double p, double alpha, std::uint32_t b) {
  return static_cast<std::uint32_t>(std::ceil(std::log2(2.0 * b * alpha / p + 1.0)));
}

age_cuckoo::options cuckoo_options(const args& a) {
  age_cuckoo::options o;
  o.window_items = static_cast<std::uint64_t>(a.num("N", 1e6));
  o.alpha = a.num("alpha", 0.95);
  const double p = a.num("p", 0.01);
  o.t = static_cast<std::uint32_t>(std::log2(a.num("g", 8)));
  o.f = static_cast<std::uint32_t>(a.num("f", 0));
  if (o.f == 0) o.f = fingerprint_bits(p, o.alpha, o.b);
  o.filled = a.str("layout", "filled") == "filled";
  o.max_kicks = static_cast<std::uint32_t>(a.num("kicks", 500));
  o.evict_oldest = a.str("policy", "refuse") == "evict";
  o.lookahead = a.str("insert", "walk") == "lookahead";
  o.seed = static_cast<std::uint64_t>(a.num("hash_seed", 0));
  return o;
}

/// Item keys: 16 bytes, the id and a salt (members 1, strangers 2).
struct key16 {
  std::uint64_t id, salt;
  [[nodiscard]] std::string_view view() const {
    return {reinterpret_cast<const char*>(this), sizeof(*this)};
  }
};

// --- the stream -----------------------------------------------------------------

struct stream_result {
  std::uint64_t adds = 0, failed = 0, evicted = 0, false_negatives = 0;
  std::uint64_t strangers = 0, stranger_hits = 0, expired = 0, expired_hits = 0;
  double peak_load = 0, bits_per_item = 0;
  std::uint32_t f = 0, g = 0;
  std::uint64_t burst_failed = 0, burst_false_negatives = 0;
  std::uint64_t inserts = 0, kicked = 0, long_kicked = 0, kicks = 0;
};

/// Per generation: N / (g - 1) distinct items (twice as many in the burst
/// generation), a share `repeats` of them re-adds of items among the last 2N
/// new ones and the rest new, shuffled together; so no window holds more
/// than N distinct items (g generations at most N g / (g - 1)). At the end of each generation once
/// the table is in its steady state (from generation g on): every item whose latest add was g - 1
/// generations ago is queried (the last moment it must answer "maybe": later than t + W for each),
/// the items last added g generations ago are queried (expired beyond W (1 + s)), and
/// `strangers_per_gen` never-added keys.
stream_result run_stream(const age_cuckoo::options& o, std::uint32_t gens, double repeats,
                         std::int64_t burst, std::uint64_t stream_seed,
                         std::uint64_t strangers_per_gen) {
  age_cuckoo c(o);
  const std::uint32_t g = c.generations();
  const std::uint64_t per_gen = o.window_items / (g - 1);
  stream_result r;
  r.f = o.f;
  r.g = g;
  r.bits_per_item = static_cast<double>(c.bits()) / static_cast<double>(o.window_items);
  std::vector<std::int32_t> last;          // per id: generation of its latest add (-1: refused)
  std::vector<std::uint64_t> first_id{0};  // first new id of each generation
  std::mt19937_64 rng(stream_seed);
  std::uint64_t stranger_id = 0;
  std::vector<std::uint64_t> todo;  // ids to add this generation
  for (std::uint32_t e = 0; e < gens; ++e) {
    if (e > 0) c.begin_generation(e);
    if (e == g) c.reset_kick_counts();  // kicks are counted in the steady state
    const bool is_burst = static_cast<std::int64_t>(e) == burst;
    const std::uint64_t distinct = is_burst ? 2 * per_gen : per_gen;
    const std::uint64_t next = last.size();
    const auto rep = next == 0 ? std::uint64_t{0}
                               : static_cast<std::uint64_t>(repeats * static_cast<double>(per_gen));
    const std::uint64_t fresh = distinct - rep;
    last.resize(next + fresh, -1);
    todo.clear();
    for (std::uint64_t i = 0; i < fresh; ++i) todo.push_back(next + i);
    // Re-adds: distinct items among the last 2N new ones not yet added in
    // this generation (some still held: a refresh; some expired: an insert).
    const std::uint64_t lo = next > 2 * o.window_items ? next - 2 * o.window_items : 0;
    for (std::uint64_t i = 0; i < rep;) {
      const std::uint64_t id = lo + rng() % (next - lo);
      if (last[id] == static_cast<std::int32_t>(e)) continue;
      last[id] = static_cast<std::int32_t>(e);  // marks it taken; set again below
      todo.push_back(id);
      ++i;
    }
    std::shuffle(todo.begin(), todo.end(), rng);
    std::uint64_t failed_here = 0;
    for (const std::uint64_t id : todo) {
      const key16 k{id, 1};
      const auto res = c.add(k.view());
      ++r.adds;
      if (res == age_cuckoo::result::failed) {
        ++failed_here;
        // Counted as failed, not again as a false negative (a refused re-add
        // was not held: a held item is refreshed, which never fails).
        last[id] = -1;
      } else {
        last[id] = static_cast<std::int32_t>(e);
      }
      if (res == age_cuckoo::result::evicted) ++r.evicted;
      if (res == age_cuckoo::result::inserted && e >= g) ++r.inserts;
    }
    r.failed += failed_here;
    first_id.push_back(last.size());
    const double load = static_cast<double>(c.stored()) / static_cast<double>(c.slots());
    if (e < g) continue;  // warming up: the first g generations
    r.peak_load = std::max(r.peak_load, load);
    // Items whose latest add was in generation e - g + 1 (ids from g - 1
    // generations before it on, as repeats reach back one window).
    const auto check = [&](std::int64_t want, auto&& on) {
      const std::int64_t from_gen =
          std::max<std::int64_t>(0, want - 2 * static_cast<std::int64_t>(g));
      for (std::uint64_t id = first_id[static_cast<std::size_t>(from_gen)];
           id < first_id[static_cast<std::size_t>(want + 1)]; ++id) {
        if (last[id] == want) on(id);
      }
    };
    std::uint64_t fn_here = 0;
    check(static_cast<std::int64_t>(e) - g + 1, [&](std::uint64_t id) {
      const key16 k{id, 1};
      if (!c.may_contain(k.view())) ++fn_here;
    });
    r.false_negatives += fn_here;
    check(static_cast<std::int64_t>(e) - g, [&](std::uint64_t id) {
      const key16 k{id, 1};
      ++r.expired;
      r.expired_hits += c.may_contain(k.view()) ? 1 : 0;
    });
    for (std::uint64_t i = 0; i < strangers_per_gen; ++i) {
      const key16 k{stranger_id++, 2};
      ++r.strangers;
      r.stranger_hits += c.may_contain(k.view()) ? 1 : 0;
    }
    if (burst >= 0 && static_cast<std::int64_t>(e) >= burst &&
        static_cast<std::int64_t>(e) < burst + static_cast<std::int64_t>(g)) {
      r.burst_false_negatives += fn_here;
    }
    if (is_burst) r.burst_failed = failed_here;
  }
  r.kicked = c.kicked_inserts();
  r.long_kicked = c.long_kicked_inserts();
  r.kicks = c.kicks();
  return r;
}

double blocked_bits_per_item(std::uint64_t n, double p) {
  return static_cast<double>(ringbloom::bloom_math::blocked_size_for(n, p).bits) /
         static_cast<double>(n);
}
double windowed_bits_per_item(std::uint64_t n, double p) {
  return static_cast<double>(windowed_bloom_filter::for_time(3600, n, p).bits()) /
         static_cast<double>(n);
}

void print_stream(const char* label, const age_cuckoo::options& o, double p,
                  const stream_result& r) {
  const double blocked = blocked_bits_per_item(o.window_items, p);
  fmt::print(
      "{} N={} p={} g={} f={} layout={} alpha={:.3f} policy={}: adds {}, failed {}, evicted {}, "
      "false negatives {}; peak load {:.4f}; bits/item {:.2f} = {:.3f}x blocked ({:.2f}), "
      "windowed_bloom {:.3f}x; strangers {:.4g}% of {}, expired {:.4g}% of {}\n",
      label, o.window_items, p, r.g, r.f, o.filled ? "filled" : "aligned", o.alpha,
      o.evict_oldest ? "evict" : "refuse", r.adds, r.failed, r.evicted, r.false_negatives,
      r.peak_load, r.bits_per_item, r.bits_per_item / blocked, blocked,
      windowed_bits_per_item(o.window_items, p) / blocked,
      100.0 * static_cast<double>(r.stranger_hits) / static_cast<double>(r.strangers), r.strangers,
      100.0 * static_cast<double>(r.expired_hits) / static_cast<double>(r.expired), r.expired);
  fmt::print(
      "  inserts {}: {:.2f}% kicked (3 lines), {:.3f}% kicked twice or more (4+ lines), "
      "{:.3f} kicks per insert\n",
      r.inserts, 100.0 * static_cast<double>(r.kicked) / static_cast<double>(r.inserts),
      100.0 * static_cast<double>(r.long_kicked) / static_cast<double>(r.inserts),
      static_cast<double>(r.kicks) / static_cast<double>(r.inserts));
}

int stream_mode(const args& a) {
  const age_cuckoo::options o = cuckoo_options(a);
  const double p = a.num("p", 0.01);
  const auto gens = static_cast<std::uint32_t>(a.num("gens", 28));
  const auto r =
      run_stream(o, gens, a.num("repeats", 0.25), static_cast<std::int64_t>(a.num("burst", -1)),
                 static_cast<std::uint64_t>(a.num("seed", 1)),
                 static_cast<std::uint64_t>(a.num("strangers", 100'000)));
  print_stream("stream", o, p, r);
  if (a.num("burst", -1) >= 0) {
    fmt::print(
        "burst generation: {} inserts failed, {} false negatives in the g generations from it\n",
        r.burst_failed, r.burst_false_negatives);
  }
  return 0;
}

int search_mode(const args& a) {
  age_cuckoo::options o = cuckoo_options(a);
  const double p = a.num("p", 0.01);
  const auto gens = static_cast<std::uint32_t>(a.num("gens", 28));
  const auto seeds = static_cast<std::uint64_t>(a.num("seeds", 2));
  const double step = a.num("step", 0.01);
  const bool fixed_f = a.num("f", 0) != 0;
  double best = 0;
  stream_result best_r;
  for (double alpha = a.num("from", 0.88); alpha < 0.995; alpha += step) {
    o.alpha = alpha;
    if (!fixed_f) o.f = fingerprint_bits(p, alpha, o.b);
    bool ok = true;
    stream_result first;
    for (std::uint64_t s = 1; s <= seeds && ok; ++s) {
      o.seed = s * 1000;
      const auto r = run_stream(o, gens, a.num("repeats", 0.25), -1, s,
                                static_cast<std::uint64_t>(a.num("strangers", 100'000)));
      if (s == 1) first = r;
      fmt::print("  alpha {:.3f} seed {}: failed {}, false negatives {}, peak load {:.4f}\n", alpha,
                 s, r.failed, r.false_negatives, r.peak_load);
      std::fflush(stdout);
      ok = r.failed == 0 && r.false_negatives == 0;
    }
    if (!ok) break;
    best = alpha;
    best_r = first;
  }
  if (best == 0) {
    fmt::print("no alpha from {} passed\n", a.num("from", 0.88));
    return 1;
  }
  o.alpha = best;
  if (!fixed_f) o.f = fingerprint_bits(p, best, o.b);
  print_stream("best", o, p, best_r);
  return 0;
}

// --- speed ----------------------------------------------------------------------

using clock_type = std::chrono::steady_clock;

struct speed_setup {
  std::uint64_t n;
  double p;
  age_cuckoo cuckoo;
  windowed_bloom_filter windowed, windowed_start;
  blocked_bloom_filter blocked, blocked_start;
  std::vector<key16> cuckoo_members, members, strangers, fresh;
  std::vector<std::string_view> cuckoo_member_views, member_views, stranger_views, fresh_views;
  std::uint64_t next_gen = 0, next_id = 0, per_gen = 0;
  std::vector<double> clear_ns;  // each clearing pass
  std::mt19937_64 rng{7};

  speed_setup(const age_cuckoo::options& o, double rate, std::size_t sample)
      : n(o.window_items),
        p(rate),
        cuckoo(o),
        windowed(windowed_bloom_filter::for_time(3600, o.window_items, rate)),
        windowed_start(windowed),
        blocked(blocked_bloom_filter::for_capacity(o.window_items, rate)),
        blocked_start(blocked) {
    // The cuckoo table in its steady state: g generations of N/(g-1) new items.
    const std::uint32_t g = cuckoo.generations();
    per_gen = n / (g - 1);
    for (; next_gen < g; ++next_gen) {
      if (next_gen > 0) cuckoo.begin_generation(next_gen);
      for (std::uint64_t i = 0; i < per_gen; ++i) (void)cuckoo.add(key16{next_id++, 1}.view());
    }
    // The windowed filter: the last N items over its four live generations
    // (as windowed_bench), the blocked filter the same N items.
    std::uint64_t id = next_id - n;
    for (std::uint64_t q = 0; q < 4; ++q) {
      for (std::uint64_t i = q * n / 4; i < (q + 1) * n / 4; ++i, ++id) {
        windowed_start.add(key16{id, 1}.view(), at - 1200.0 * static_cast<double>(3 - q));
      }
    }
    for (id = next_id - n; id < next_id; ++id) blocked_start.add(key16{id, 1}.view());
    windowed = windowed_start;
    blocked = blocked_start;
    members.resize(sample);
    cuckoo_members.resize(sample);
    for (std::size_t i = 0; i < sample; ++i) members[i] = {next_id - 1 - rng() % n, 1};
    for (std::size_t i = 0; i < sample; ++i) strangers.push_back({i, 2});
    fresh.resize(per_gen);
    for (const auto& k : cuckoo_members) cuckoo_member_views.push_back(k.view());
    for (const auto& k : members) member_views.push_back(k.view());
    for (const auto& k : strangers) stranger_views.push_back(k.view());
    for (const auto& k : fresh) fresh_views.push_back(k.view());
    resample();
  }
  static constexpr double at = 1'700'000'000.0;

  /// Before timed adds: the cuckoo table enters its next generation (the
  /// clearing pass untimed), the others start again from their filled state;
  /// `fresh` becomes a generation's worth of new items.
  void next_generation() {
    const auto t0 = std::chrono::steady_clock::now();
    cuckoo.begin_generation(next_gen++);
    clear_ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    windowed = windowed_start;
    blocked = blocked_start;
    for (auto& k : fresh) k = {next_id++, 1};
  }
  /// The cuckoo table's members: items among its last N (all live).
  void resample() {
    for (auto& k : cuckoo_members) k = {next_id - 1 - rng() % n, 1};
  }
};

template <class F>
double time_ns(std::size_t count, F&& f) {
  const auto t0 = clock_type::now();
  f();
  const auto t1 = clock_type::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(count);
}

struct op_times {
  std::array<std::vector<double>, 3> ns;  // cuckoo, windowed, blocked
};

int speed_mode(const args& a) {
  const age_cuckoo::options o = cuckoo_options(a);
  const double p = a.num("p", 0.01);
  const auto rounds = static_cast<int>(a.num("rounds", 5));
  const std::size_t sample = std::size_t{1} << 20;
  speed_setup s(o, p, sample);
  const double at = speed_setup::at;
  const auto bools = std::make_unique<bool[]>(sample);
  std::uint64_t sink = 0;
  const std::array<const char*, 6> names{
      "add",      "lookup member",           "lookup stranger",
      "add_many", "may_contain_many member", "may_contain_many stranger"};
  std::array<op_times, 6> t;
  for (int round = 0; round < rounds; ++round) {
    // Adds: the new items of one generation's worth (at most 2^20), into a
    // copy-free state: the cuckoo table enters a new generation first (its
    // clearing pass is not timed), the others add at the latest time.
    for (int batched = 0; batched < 2; ++batched) {
      const std::size_t m = s.fresh_views.size();
      s.next_generation();
      std::uint64_t failed = 0;
      t[batched ? 3 : 0].ns[0].push_back(time_ns(m, [&] {
        if (batched) {
          s.cuckoo.add_many(s.fresh_views, &failed);
        } else {
          for (const auto k : s.fresh_views) {
            failed += s.cuckoo.add(k) == age_cuckoo::result::failed ? 1 : 0;
          }
        }
      }));
      sink += failed;
      t[batched ? 3 : 0].ns[1].push_back(time_ns(m, [&] {
        if (batched) {
          s.windowed.add_many(s.fresh_views, at);
        } else {
          for (const auto k : s.fresh_views) s.windowed.add(k, at);
        }
      }));
      t[batched ? 3 : 0].ns[2].push_back(time_ns(m, [&] {
        if (batched) {
          s.blocked.add_many(s.fresh_views);
        } else {
          for (const auto k : s.fresh_views) s.blocked.add(k);
        }
      }));
    }
    s.resample();
    for (std::size_t which = 0; which < 2; ++which) {
      const auto& views = which == 0 ? s.member_views : s.stranger_views;
      const auto& cuckoo_views = which == 0 ? s.cuckoo_member_views : s.stranger_views;
      t[1 + which].ns[0].push_back(time_ns(sample, [&] {
        for (const auto k : cuckoo_views) sink += s.cuckoo.may_contain(k) ? 1 : 0;
      }));
      t[1 + which].ns[1].push_back(time_ns(sample, [&] {
        for (const auto k : views) sink += s.windowed.may_contain(k, at) ? 1 : 0;
      }));
      t[1 + which].ns[2].push_back(time_ns(sample, [&] {
        for (const auto k : views) sink += s.blocked.may_contain(k) ? 1 : 0;
      }));
      t[4 + which].ns[0].push_back(
          time_ns(sample, [&] { sink += s.cuckoo.may_contain_many(cuckoo_views, bools.get()); }));
      t[4 + which].ns[1].push_back(time_ns(sample, [&] {
        sink += s.windowed.may_contain_many(views, at, {bools.get(), sample});
      }));
      t[4 + which].ns[2].push_back(time_ns(sample, [&] {
        sink += s.blocked.may_contain_many(views, {bools.get(), sample});
      }));
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  fmt::print(
      "speed N={} p={} g={} f={} alpha={} layout={}: bits/item cuckoo {:.2f}, windowed {:.2f}, "
      "blocked {:.2f}; median of {} rounds, ns per call (ratio to blocked)\n",
      s.n, p, s.cuckoo.generations(), o.f, o.alpha, o.filled ? "filled" : "aligned",
      static_cast<double>(s.cuckoo.bits()) / static_cast<double>(s.n),
      static_cast<double>(s.windowed.bits()) / static_cast<double>(s.n),
      static_cast<double>(s.blocked.bits()) / static_cast<double>(s.n), rounds);
  for (std::size_t op = 0; op < names.size(); ++op) {
    const double c = median(t[op].ns[0]), w = median(t[op].ns[1]), b = median(t[op].ns[2]);
    fmt::print("  {:<27} cuckoo {:7.1f} ({:.2f}x)  windowed {:7.1f} ({:.2f}x)  blocked {:7.1f}\n",
               names[op], c, c / b, w, w / b, b);
  }
  fmt::print("  clearing pass per generation: {:.2f} ms, {:.2f} ns per add of a generation\n",
             median(s.clear_ns) / 1e6, median(s.clear_ns) / static_cast<double>(s.per_gen));
  fmt::print("  (checksum {})\n", sink);
  return 0;
}

int calls_mode(const args& a) {
  const age_cuckoo::options o = cuckoo_options(a);
  const double p = a.num("p", 0.01);
  const std::size_t count = std::size_t{1} << 18;
  speed_setup s(o, p, count);
  const std::string filter = a.str("filter", "cuckoo");
  const std::string op = a.str("op", "member");
  const double at = speed_setup::at;
  const auto bools = std::make_unique<bool[]>(count);
  std::uint64_t sink = 0;
  s.next_generation();
  const bool member = op.find("member") != std::string::npos;
  const std::span<const std::string_view> views =
      op.find("stranger") != std::string::npos ? std::span<const std::string_view>(s.stranger_views)
      : member && filter == "cuckoo" ? std::span<const std::string_view>(s.cuckoo_member_views)
      : member                       ? std::span<const std::string_view>(s.member_views)
                                     : std::span<const std::string_view>(s.fresh_views)
                     .first(std::min(count, s.fresh_views.size()));
  // The choice is made before the counted part, so that only the calls count.
  const int fi = filter == "cuckoo" ? 0 : filter == "windowed" ? 1 : 2;
  const int oi = op == "add"                          ? 0
                 : op == "member" || op == "stranger" ? 1
                 : op == "add_many"                   ? 2
                                                      : 3;
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  switch (fi * 4 + oi) {
    case 0:
      for (const auto k : views) sink += s.cuckoo.add(k) == age_cuckoo::result::failed ? 1 : 0;
      break;
    case 1:
      for (const auto k : views) sink += s.cuckoo.may_contain(k) ? 1 : 0;
      break;
    case 2:
      s.cuckoo.add_many(views, &sink);
      break;
    case 3:
      sink += s.cuckoo.may_contain_many(views, bools.get());
      break;
    case 4:
      for (const auto k : views) s.windowed.add(k, at);
      break;
    case 5:
      for (const auto k : views) sink += s.windowed.may_contain(k, at) ? 1 : 0;
      break;
    case 6:
      s.windowed.add_many(views, at);
      break;
    case 7:
      sink += s.windowed.may_contain_many(views, at, {bools.get(), views.size()});
      break;
    case 8:
      for (const auto k : views) s.blocked.add(k);
      break;
    case 9:
      for (const auto k : views) sink += s.blocked.may_contain(k) ? 1 : 0;
      break;
    case 10:
      s.blocked.add_many(views);
      break;
    default:
      sink += s.blocked.may_contain_many(views, {bools.get(), views.size()});
      break;
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  fmt::print("calls filter={} op={} count={} (checksum {})\n", filter, op, views.size(), sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    const args a(argc, argv, 2);
    if (mode == "stream") return stream_mode(a);
    if (mode == "search") return search_mode(a);
    if (mode == "speed") return speed_mode(a);
    if (mode == "calls") return calls_mode(a);
    fmt::print(stderr,
               "usage: windowed_cuckoo_study stream|search|speed|calls [NAME=VALUE...] (see the "
               "source's top)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "windowed_cuckoo_study: error: {}\n", e.what());
    return 2;
  }
}
