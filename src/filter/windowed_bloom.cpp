// The windowed Bloom filter (include/ringbloom/filter/windowed_bloom.hpp):
// sizing, generations, probes, and the file member "\x89RBW".
#include "ringbloom/filter/windowed_bloom.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/blocked_bloom.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/detail/blocked64_probe.hpp"
#include "ringbloom/filter/detail/bloom_hashing.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

namespace {

constexpr std::uint32_t max_hashes = 16;
constexpr std::uint32_t gens = windowed_math::generations;
constexpr std::size_t seg_words = windowed_math::segment_bits / 64;  // 6: a v1 segment
constexpr std::size_t sb_words = windowed_bloom_filter::superblock_words;
/// Cache lines per super-block: 128 nibbles (512 bits) each, so 3.
constexpr std::size_t sb_lines = windowed_math::segment_bits / 128;
static_assert(windowed_math::segment_bits % 128 == 0 && sb_lines >= 1 && sb_lines <= 3);

/// The generation bits of a super-block (24 words, 384 nibbles): position p
/// (0..383) is nibble p % 16 of word p / 16, and bit s of that nibble is
/// position p of generation slot s. nibble_bits(s) has bit s of every nibble.
constexpr std::uint64_t nibble_ones = 0x1111111111111111ULL;
inline std::uint64_t nibble_bits(unsigned slot) noexcept { return nibble_ones << slot; }

/// The word of position p in a super-block and the shift of its nibble.
inline std::size_t nibble_word(std::uint32_t p) noexcept { return p >> 4; }
inline unsigned nibble_shift(std::uint32_t p) noexcept { return (p & 15u) << 2; }

/// Calls fn(word, shift) for the item's K positions. Position j is the
/// blocked kinds' 32-bit multiply-shift u_j = half_j * block_multipliers[j]
/// (half_j the low 32 bits of h2 for j < 8, the high ones after), mapped
/// onto 0..383 by Lemire's multiply-shift p = (u_j * 384) >> 32, since 384
/// is not a power of 2. With v = 3 u_j (34 bits; 3 = sb_lines), p = v >> 25,
/// so its word p / 16 is v >> 29 and its nibble's shift 4 (p % 16) is
/// (v >> 23) & 60.
/// K is a template argument (with_hashes below picks it once per call or
/// batch), so the loop unrolls and every multiplier is an immediate.
template <std::uint32_t J, class Fn>
[[gnu::always_inline]] inline void nibble_step(std::uint32_t half, Fn& fn) noexcept {
  const std::uint64_t v =
      std::uint64_t{static_cast<std::uint32_t>(half * detail::block_multipliers[J])} * sb_lines;
  fn(static_cast<std::size_t>(v >> 29), static_cast<unsigned>(v >> 23) & 60u);
}

template <class Fn, std::uint32_t... J>
[[gnu::always_inline]] inline void nibble_steps(
    std::uint64_t h2, Fn& fn, std::integer_sequence<std::uint32_t, J...>) noexcept {
  const auto lo = static_cast<std::uint32_t>(h2);
  const auto hi = static_cast<std::uint32_t>(h2 >> 32);
  (nibble_step<J>(J < 8 ? lo : hi, fn), ...);
}

template <std::uint32_t K, class Fn>
[[gnu::always_inline]] inline void for_each_nibble(std::uint64_t h2, Fn&& fn) noexcept {
  nibble_steps(h2, fn, std::make_integer_sequence<std::uint32_t, K>{});
}

/// fn(std::integral_constant<uint32_t, k>{}) for k in 1..16 (the range
/// make and deserialize enforce): one jump per call or per batch, after
/// which the probes are straight-line code.
template <class Fn>
[[gnu::always_inline]] inline decltype(auto) with_hashes(std::uint32_t k, Fn&& fn) {
  using u = std::uint32_t;
  switch (k) {
    case 1:
      return fn(std::integral_constant<u, 1>{});
    case 2:
      return fn(std::integral_constant<u, 2>{});
    case 3:
      return fn(std::integral_constant<u, 3>{});
    case 4:
      return fn(std::integral_constant<u, 4>{});
    case 5:
      return fn(std::integral_constant<u, 5>{});
    case 6:
      return fn(std::integral_constant<u, 6>{});
    case 7:
      return fn(std::integral_constant<u, 7>{});
    case 8:
      return fn(std::integral_constant<u, 8>{});
    case 9:
      return fn(std::integral_constant<u, 9>{});
    case 10:
      return fn(std::integral_constant<u, 10>{});
    case 11:
      return fn(std::integral_constant<u, 11>{});
    case 12:
      return fn(std::integral_constant<u, 12>{});
    case 13:
      return fn(std::integral_constant<u, 13>{});
    case 14:
      return fn(std::integral_constant<u, 14>{});
    case 15:
      return fn(std::integral_constant<u, 15>{});
    default:
      return fn(std::integral_constant<u, 16>{});
  }
}

/// The item's K nibbles ANDed, masked by `live` (bit s: slot s is live):
/// non-zero when some live generation holds all K positions. One load, shift
/// and AND per hash, branch-free: members and strangers alternate
/// unpredictably.
template <std::uint32_t K>
[[gnu::always_inline]] inline unsigned probe_nibbles(const std::uint64_t* sb, std::uint64_t x,
                                                     unsigned live) noexcept {
  std::uint64_t acc = live;
  for_each_nibble<K>(x * detail::blocked64_mixer,
                     [&](std::size_t w, unsigned shift) { acc &= sb[w] >> shift; });
  return static_cast<unsigned>(acc & 0xFu);
}

template <std::uint32_t K>
[[gnu::always_inline]] inline void insert_nibbles(std::uint64_t* sb, std::uint64_t x,
                                                  unsigned slot) noexcept {
  for_each_nibble<K>(x * detail::blocked64_mixer, [&](std::size_t w, unsigned shift) {
    sb[w] |= std::uint64_t{1} << (shift + slot);
  });
}

/// probe_nibbles with every slot live, then insert_nibbles, in one pass:
/// each word is read and written once. The answer is probe_nibbles': the
/// first read of a position sees its bits as they were (the item's other
/// positions set other nibbles, or this one again after it was read), and
/// later reads of it can only AND again what was already ANDed.
template <std::uint32_t K>
[[gnu::always_inline]] inline unsigned probe_insert_nibbles(std::uint64_t* sb, std::uint64_t x,
                                                            unsigned slot) noexcept {
  std::uint64_t acc = 0xFu;
  const std::uint64_t bit = std::uint64_t{1} << slot;
  for_each_nibble<K>(x * detail::blocked64_mixer, [&](std::size_t w, unsigned shift) {
    const std::uint64_t word = sb[w];
    acc &= word >> shift;
    sb[w] = word | (bit << shift);
  });
  return static_cast<unsigned>(acc & 0xFu);
}

inline unsigned slot_of(std::int64_t gen) noexcept {
  return static_cast<unsigned>(static_cast<std::uint64_t>(gen) % gens);
}

void check_fpr(double fpr) {
  if (!(fpr >= blocked_min_fpr && fpr < 1)) {
    throw std::invalid_argument(
        "the false-positive rate of a windowed filter must be at least 1e-12 and below 1, not " +
        std::to_string(fpr) + "; pass a rate such as 0.01");
  }
}

}  // namespace

// --- sizing -------------------------------------------------------------------

std::uint64_t windowed_math::generation_items(std::uint64_t window_items) noexcept {
  return window_items / (gens - 1) + (window_items % (gens - 1) != 0 ? 1 : 0);
}

double windowed_math::fpr(double items_per_generation, std::uint64_t superblocks,
                          std::uint32_t k) noexcept {
  const double f =
      bloom_math::blocked_fpr(items_per_generation, superblocks * segment_bits, k, segment_bits);
  return -std::expm1(gens * std::log1p(-f));
}

windowed_math::size windowed_math::size_for(std::uint64_t window_items, double p) {
  if (window_items == 0) {
    throw std::invalid_argument(
        "a windowed filter needs a capacity of at least 1 item per window; pass the number of "
        "items one window holds");
  }
  check_fpr(p);
  const auto g = static_cast<double>(generation_items(window_items));
  const std::uint64_t max_blocks = max_filter_bits / superblock_bits;
  // The smallest B in [1, hi] with fpr(g, B, k) <= p, given fpr(g, hi, k) <= p
  // (the rate falls as super-blocks are added).
  const auto smallest = [&](std::uint32_t k, std::uint64_t hi) {
    std::uint64_t lo = 1;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fpr(g, mid, k) <= p)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  };
  // The smallest B over every k, ties to the smaller k. One full search at
  // the k near the optimum for a segment rate of p / 4 (each of the four
  // segments gets a quarter of the rate), then each other k needs one rate
  // to show whether it can do better (fewer super-blocks, or as few with
  // fewer hashes) and a search below the best only when it can: the result
  // of a full search at every k, with a fraction of the rate evaluations
  // (each a Poisson sum of long-double exponentials).
  const auto guess = static_cast<std::uint32_t>(
      std::clamp(std::llround(std::log2(4.0 / p)), 1LL, static_cast<long long>(max_hashes)));
  size best;
  for (std::uint32_t i = 0; i < max_hashes; ++i) {
    const std::uint32_t k = i == 0 ? guess : (i < guess ? i : i + 1);
    if (best.hashes == 0) {
      if (fpr(g, max_blocks, k) <= p) best = {smallest(k, max_blocks), k};
    } else if (best.superblocks > 1 && fpr(g, best.superblocks - 1, k) <= p) {
      best = {smallest(k, best.superblocks - 1), k};
    } else if (k < best.hashes && fpr(g, best.superblocks, k) <= p) {
      best.hashes = k;
    }
  }
  if (best.hashes == 0) {
    throw std::invalid_argument("a windowed filter for " + std::to_string(window_items) +
                                " items per window at rate " + std::to_string(p) +
                                " would need more than 2^40 bits; lower the capacity or raise "
                                "the rate");
  }
  return best;
}

// --- construction -------------------------------------------------------------

windowed_bloom_filter windowed_bloom_filter::make(window_kind kind, double window,
                                                  std::uint64_t capacity, double fpr,
                                                  std::uint64_t seed) {
  const auto sz = windowed_math::size_for(capacity, fpr);
  windowed_bloom_filter f;
  f.kind_ = kind;
  f.window_ = window;
  f.generation_seconds_ = kind == window_kind::time ? window / (gens - 1) : 0;
  f.capacity_ = capacity;
  f.target_fpr_ = fpr;
  f.seed_ = seed;
  f.hashes_ = sz.hashes;
  f.superblocks_ = sz.superblocks;
  f.generation_items_ = windowed_math::generation_items(capacity);
  f.words_.assign(sz.superblocks * sb_words, 0);
  return f;
}

windowed_bloom_filter windowed_bloom_filter::for_time(double window_seconds,
                                                      std::uint64_t items_per_window, double fpr,
                                                      std::uint64_t seed) {
  if (!(std::isfinite(window_seconds) && window_seconds > 0)) {
    throw std::invalid_argument(
        "the window of a windowed filter must be a finite number of seconds above 0, not " +
        std::to_string(window_seconds) + "; pass e.g. 3600 for an hour");
  }
  return make(window_kind::time, window_seconds, items_per_window, fpr, seed);
}

windowed_bloom_filter windowed_bloom_filter::for_count(std::uint64_t window_items, double fpr,
                                                       std::uint64_t seed) {
  if (window_items == 0) {
    throw std::invalid_argument(
        "a count window must hold at least 1 item; pass the number of recent insertions to "
        "remember");
  }
  return make(window_kind::count, static_cast<double>(window_items), window_items, fpr, seed);
}

// --- generations --------------------------------------------------------------

namespace {

/// Throws the sentence for a call made with (or without) a time on the
/// other kind of window, out of the hot path.
[[noreturn, gnu::cold, gnu::noinline]] void refuse_kind(window_kind wanted, const char* call) {
  if (wanted == window_kind::time) {
    throw std::invalid_argument(std::string(call) +
                                " with a time is for time windows; this filter has a count "
                                "window, so call it without a time");
  }
  throw std::invalid_argument(std::string(call) +
                              " without a time is for count windows; this filter has a time "
                              "window, so pass the time of the call in seconds");
}

}  // namespace

namespace {

/// What generation_at checks, for the refusal, out of the hot path.
struct time_state {
  double window;
  double generation_seconds;
  double latest_time;
  std::int64_t latest_gen;
  bool empty;
};

/// Throws the sentence for a time generation_at refuses (in its order).
[[noreturn, gnu::cold, gnu::noinline]] void refuse_time(double now, const char* what,
                                                        const time_state& st) {
  if (!std::isfinite(now)) {
    throw std::invalid_argument(std::string("the time of ") + what +
                                " must be a finite number of seconds, not " + std::to_string(now) +
                                "; pass the time of the event");
  }
  if (!st.empty && now < st.latest_time - st.window) {
    throw std::invalid_argument(
        std::string("the time of ") + what + " (" + std::to_string(now) +
        ") is more than one window (" + std::to_string(st.window) +
        " s) before the latest time the filter has seen (" + std::to_string(st.latest_time) +
        "); a windowed filter accepts times out of order by at most one window");
  }
  const double g = std::floor(now / st.generation_seconds);
  if (!(std::fabs(g) < 4.0e18)) {
    throw std::invalid_argument(std::string("the time of ") + what + " (" + std::to_string(now) +
                                ") is too far from 0 for this window; pass Unix seconds");
  }
  // Rounding at a generation boundary: the generation has already been cleared.
  throw std::invalid_argument(std::string("the time of ") + what + " (" + std::to_string(now) +
                              ") falls in a generation the filter has already forgotten; a "
                              "windowed filter accepts times out of order by at most one "
                              "window");
}

}  // namespace

std::int64_t windowed_bloom_filter::generation_at(double now, const char* what) const {
  // The refusals, in refuse_time's order: not finite; more than a window
  // before the latest time; |g| at or above 4e18 (below 2^62 keeps the slot
  // arithmetic and the +-3 ranges exact); a generation already cleared.
  const double g = std::floor(now / generation_seconds_);
  const bool empty = added_ == 0;
  if (std::isfinite(now) && (empty || now >= latest_time_ - window_) && std::fabs(g) < 4.0e18)
      [[likely]] {
    const auto gen = static_cast<std::int64_t>(g);
    if (empty || gen >= latest_gen_ - static_cast<std::int64_t>(gens - 1)) [[likely]]
      return gen;
  }
  refuse_time(now, what, {window_, generation_seconds_, latest_time_, latest_gen_, empty});
}

std::int64_t windowed_bloom_filter::count_generation() const noexcept {
  return static_cast<std::int64_t>(added_ / generation_items_);
}

// Out of line: called once per generation, kept out of the hot paths below.
[[gnu::noinline]] void windowed_bloom_filter::advance_to(std::int64_t gen) {
  if (added_ == 0) {
    latest_gen_ = gen;
    refresh_bounds();
    return;
  }
  if (gen <= latest_gen_) return;
  const std::int64_t steps = gen - latest_gen_;
  unsigned clear = 0;
  if (steps >= static_cast<std::int64_t>(gens)) {
    clear = (1u << gens) - 1;
  } else {
    for (std::int64_t e = latest_gen_ + 1; e <= gen; ++e) clear |= 1u << slot_of(e);
  }
  if (clear == (1u << gens) - 1) {
    std::fill(words_.begin(), words_.end(), 0);
  } else {
    // Every word holds 16 nibbles, one bit per slot: clearing slots is one
    // AND with a constant over the array (vectorised by the compiler).
    std::uint64_t keep = ~std::uint64_t{0};
    for (unsigned s = 0; s < gens; ++s) {
      if ((clear >> s) & 1u) keep &= ~nibble_bits(s);
    }
    for (std::uint64_t& w : words_) w &= keep;
  }
  for (unsigned s = 0; s < gens; ++s) {
    if ((clear >> s) & 1u) segment_items_[s] = 0;
  }
  latest_gen_ = gen;
  refresh_bounds();
}

namespace {

/// The first time of generation e: the smallest double t with floor(t / D)
/// >= e, the division generation_at makes (monotone in t, so the times of
/// generation e and later are exactly [t, inf)). Found from e D by a few
/// steps of one ulp; infinity when that does not settle (absurd D), which
/// only turns the fast paths off.
double first_time_of(std::int64_t e, double d) noexcept {
  const auto ge = [&](double t) { return std::floor(t / d) >= static_cast<double>(e); };
  double t = static_cast<double>(e) * d;
  if (!std::isfinite(t)) return std::numeric_limits<double>::infinity();
  for (int i = 0; i < 64; ++i) {
    if (!ge(t)) {
      t = std::nextafter(t, std::numeric_limits<double>::infinity());
    } else if (ge(std::nextafter(t, -std::numeric_limits<double>::infinity()))) {
      t = std::nextafter(t, -std::numeric_limits<double>::infinity());
    } else {
      return t;
    }
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

void windowed_bloom_filter::refresh_bounds() noexcept {
  if (kind_ == window_kind::count) {
    const std::uint64_t next = static_cast<std::uint64_t>(latest_gen_) + 1;
    next_turn_ = next <= std::numeric_limits<std::uint64_t>::max() / generation_items_
                     ? next * generation_items_
                     : 0;
    return;
  }
  // Generations at or beyond 4e18 in magnitude are refused (generation_at);
  // a filter near that edge takes the long way every time.
  constexpr std::int64_t edge = 3'999'999'999'999'999'000;
  if (latest_gen_ - static_cast<std::int64_t>(gens - 1) <= -edge || latest_gen_ + 1 >= edge) {
    oldest_lo_ = latest_lo_ = next_gen_time_ = query_lo_ = add_lo_ = never;
    return;
  }
  oldest_lo_ =
      first_time_of(latest_gen_ - static_cast<std::int64_t>(gens - 1), generation_seconds_);
  latest_lo_ = first_time_of(latest_gen_, generation_seconds_);
  next_gen_time_ = first_time_of(latest_gen_ + 1, generation_seconds_);
  const double floor_time = latest_time_ - window_;
  query_lo_ = std::max(oldest_lo_, floor_time);
  add_lo_ = std::max(latest_lo_, floor_time);
}

/// latest_time_ = now (a later time than any before, or the first): the
/// refusal bound latest_time_ - W moves with it.
inline void windowed_bloom_filter::note_time(double now) noexcept {
  latest_time_ = now;
  const double floor_time = now - window_;
  query_lo_ = std::max(oldest_lo_, floor_time);
  add_lo_ = std::max(latest_lo_, floor_time);
}

unsigned windowed_bloom_filter::live_mask(std::int64_t gen) const noexcept {
  if (added_ == 0) return 0;
  // Up to the latest generation the four live ones fill every slot.
  if (gen <= latest_gen_) [[likely]]
    return (1u << gens) - 1;
  std::int64_t lo = latest_gen_ - (gens - 1);
  if (gen > latest_gen_) lo = std::max(lo, gen - static_cast<std::int64_t>(gens - 1));
  unsigned mask = 0;
  for (std::int64_t e = lo; e <= latest_gen_; ++e) mask |= 1u << slot_of(e);
  return mask;
}

std::int64_t windowed_bloom_filter::query_generation(double now) const {
  return kind_ == window_kind::time ? generation_at(now, "the query") : latest_gen_;
}

// --- probes ----------------------------------------------------------------------

/// The hot paths, inline into every public call: the steady state (a time
/// in a live generation, a known k) costs no calls; anything else (a new
/// generation, a time to refuse, a count window's turn) takes the long way
/// through the members above.
struct windowed_bloom_filter::hot {
  [[gnu::always_inline]] static std::uint64_t* block(windowed_bloom_filter& f,
                                                     std::uint64_t x) noexcept {
    return f.words_.data() + detail::fastrange64(x, f.superblocks_) * sb_words;
  }
  [[gnu::always_inline]] static const std::uint64_t* block(const windowed_bloom_filter& f,
                                                           std::uint64_t x) noexcept {
    return f.words_.data() + detail::fastrange64(x, f.superblocks_) * sb_words;
  }

  /// live_mask(query_generation(now)): every slot in the steady state (a
  /// time in a live generation no later than the latest, which the cached
  /// bounds tell with two comparisons).
  [[gnu::always_inline]] static unsigned live(const windowed_bloom_filter& f, double now) {
    if (now >= f.query_lo_ && now < f.next_gen_time_) [[likely]]
      return (1u << gens) - 1;
    if (f.kind_ == window_kind::count) return f.added_ == 0 ? 0 : (1u << gens) - 1;
    return f.live_mask(f.generation_at(now, "the query"));
  }

  [[gnu::always_inline]] static bool lookup(const windowed_bloom_filter& f, std::uint64_t x,
                                            double now) {
    const std::uint64_t* sb = block(f, x);
    const unsigned l = live(f, now);
    return with_hashes(
               f.hashes_, [&](auto k) __attribute__((always_inline)) {
                 return probe_nibbles<decltype(k)::value>(sb, x, l);
               }) != 0;
  }

  /// The generation an add (or a test-and-add, whose refusal names `what`)
  /// at `now` goes into, with the array advanced to it and the latest time
  /// kept.
  [[gnu::always_inline]] static std::int64_t enter(windowed_bloom_filter& f, double now,
                                                   const char* what) {
    if (in_latest(f, now)) [[likely]]
      return f.latest_gen_;
    std::int64_t gen = 0;
    if (f.kind_ == window_kind::time) {
      gen = f.generation_at(now, what);
      if (f.added_ == 0 || gen > f.latest_gen_) f.advance_to(gen);
      if (f.added_ == 0 || now > f.latest_time_) f.note_time(now);
    } else {
      gen = f.count_generation();
      if (f.added_ == 0 || gen > f.latest_gen_) f.advance_to(gen);
    }
    return gen;
  }

  /// The steady state of an add: true when an add at `now` goes into the
  /// latest generation of a filter that holds items (no refusal, nothing
  /// to clear), with the latest time kept; false leaves everything to enter.
  [[gnu::always_inline]] static bool in_latest(windowed_bloom_filter& f, double now) noexcept {
    if (f.kind_ == window_kind::time) {
      if (!(now >= f.add_lo_ && now < f.next_gen_time_)) return false;
      if (now > f.latest_time_) f.note_time(now);
      return true;
    }
    return f.added_ < f.next_turn_;
  }

  [[gnu::always_inline]] static void insert(windowed_bloom_filter& f, std::uint64_t* sb,
                                            std::uint64_t x, std::int64_t gen) noexcept {
    const unsigned s = slot_of(gen);
    with_hashes(
        f.hashes_, [&](auto k) __attribute__((always_inline)) {
          insert_nibbles<decltype(k)::value>(sb, x, s);
        });
    ++f.segment_items_[s];
    ++f.added_;
  }

  [[gnu::always_inline]] static void add(windowed_bloom_filter& f, std::uint64_t x, double now) {
    std::uint64_t* sb = block(f, x);
    insert(f, sb, x, enter(f, now, "the add"));
  }

  /// may_contain then add, with the time checked once (the checks are the
  /// same; the query's words the refusal) and the super-block found once.
  /// The probe reads the bits before a generation turns over, as the two
  /// calls do.
  [[gnu::always_inline]] static bool test_and_add(windowed_bloom_filter& f, std::uint64_t x,
                                                  double now) {
    std::uint64_t* sb = block(f, x);
    if (in_latest(f, now)) [[likely]] {
      // Every slot is live (the add's range lies inside the query's): one
      // pass reads and sets each word.
      const unsigned s = slot_of(f.latest_gen_);
      const bool seen = with_hashes(
                            f.hashes_, [&](auto k) __attribute__((always_inline)) {
                              return probe_insert_nibbles<decltype(k)::value>(sb, x, s);
                            }) != 0;
      ++f.segment_items_[s];
      ++f.added_;
      return seen;
    }
    const bool seen = f.added_ != 0 && lookup(f, x, now);
    insert(f, sb, x, enter(f, now, "the query"));
    return seen;
  }
};

std::uint64_t windowed_bloom_filter::hash_item(std::string_view item) const noexcept {
  // XXH3-64 with the seed: inline for items of at most 16 bytes.
  return detail::blocked64_item_hash(item, seed_);
}

void windowed_bloom_filter::add_hash(std::uint64_t x, double now) { hot::add(*this, x, now); }

bool windowed_bloom_filter::may_contain_hash(std::uint64_t x, double now) const {
  return hot::lookup(*this, x, now);
}

bool windowed_bloom_filter::test_and_add_hash(std::uint64_t x, double now) {
  return hot::test_and_add(*this, x, now);
}

void windowed_bloom_filter::add(std::string_view item, double now) {
  if (kind_ != window_kind::time) [[unlikely]]
    refuse_kind(window_kind::time, "add");
  hot::add(*this, detail::blocked64_item_hash(item, seed_), now);
}

bool windowed_bloom_filter::may_contain(std::string_view item, double now) const {
  if (kind_ != window_kind::time) [[unlikely]]
    refuse_kind(window_kind::time, "may_contain");
  return hot::lookup(*this, detail::blocked64_item_hash(item, seed_), now);
}

bool windowed_bloom_filter::test_and_add(std::string_view item, double now) {
  if (kind_ != window_kind::time) [[unlikely]]
    refuse_kind(window_kind::time, "test_and_add");
  return hot::test_and_add(*this, detail::blocked64_item_hash(item, seed_), now);
}

void windowed_bloom_filter::add(std::string_view item) {
  if (kind_ != window_kind::count) [[unlikely]]
    refuse_kind(window_kind::count, "add");
  hot::add(*this, detail::blocked64_item_hash(item, seed_), 0);
}

bool windowed_bloom_filter::may_contain(std::string_view item) const {
  if (kind_ != window_kind::count) [[unlikely]]
    refuse_kind(window_kind::count, "may_contain");
  return hot::lookup(*this, detail::blocked64_item_hash(item, seed_), 0);
}

bool windowed_bloom_filter::test_and_add(std::string_view item) {
  if (kind_ != window_kind::count) [[unlikely]]
    refuse_kind(window_kind::count, "test_and_add");
  return hot::test_and_add(*this, detail::blocked64_item_hash(item, seed_), 0);
}

// --- batches ---------------------------------------------------------------------

namespace {

/// Items hashed at a time, and how many items ahead of the one being probed
/// its super-block (3 lines) is prefetched. Measured (windowed_bench, CPU
/// ms at 10^7 items, load 4-4.7, windowed / blocked in the same run):
/// batched lookups 8 ahead 3.6x, 10 ahead 3.2x, 12 ahead 2.7-3.1x, 16 ahead
/// 3.1x; prefetching whole groups of 8 items (24 lines) before probing them
/// 3.4x, of 16 items 5.2x; batched adds 8 ahead 2.6x, 12 ahead 1.8-2.6x.
/// The batched lookup stays near 3x whatever the distance: at 10^7 both
/// filters stream their lines at the same rate, and this one needs three
/// per item. Earlier (load 14-16): 4 ahead 376-395 ms, 8 ahead 320-321, 16
/// ahead 324-339, 32 ahead 379-385; a whole chunk of 64 prefetched before
/// probing (192 lines) stalled on the prefetches themselves. Later (load
/// 5-10, medians of 5 alternating rounds, windowed / blocked at 10^7):
/// batched lookups 8 ahead 3.39x, 12 ahead 3.49x, the lines of the next
/// group of 4 items prefetched while probing the current 4 3.41x (groups of
/// 8 and 16 3.9-5.2x and 32 ahead 3.3-4.0x, in 2 rounds); batched adds 8
/// ahead 3.06x, 12 ahead 2.76x, groups of 4 2.81x. Nothing beats 12 ahead
/// beyond the noise.
constexpr std::size_t batch_chunk = 128;
constexpr std::size_t prefetch_ahead = 12;

inline void prefetch_superblock(const std::uint64_t* sb) noexcept {
  for (std::size_t line = 0; line < sb_lines; ++line) __builtin_prefetch(sb + 8 * line);
}

/// Calls fn(i, x_i) for every item in order, x_i its XXH3-64 with `seed`:
/// a chunk is hashed first, then item i is handed to fn while the
/// super-block of item i + prefetch_ahead is prefetched.
template <class Fn>
void for_each_hashed(std::span<const std::string_view> items, std::uint64_t seed,
                     const std::uint64_t* words, std::uint64_t superblocks, Fn&& fn) {
  std::array<std::uint64_t, batch_chunk> xs{};
  const auto fetch = [&](std::uint64_t x) {
    prefetch_superblock(words + detail::fastrange64(x, superblocks) * sb_words);
  };
  for (std::size_t start = 0; start < items.size(); start += batch_chunk) {
    const std::size_t n = std::min(batch_chunk, items.size() - start);
    for (std::size_t i = 0; i < n; ++i) xs[i] = detail::blocked64_item_hash(items[start + i], seed);
    for (std::size_t i = 0; i < std::min(n, prefetch_ahead); ++i) fetch(xs[i]);
    for (std::size_t i = 0; i < n; ++i) {
      if (i + prefetch_ahead < n) fetch(xs[i + prefetch_ahead]);
      fn(start + i, xs[i]);
    }
  }
}

}  // namespace

#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
namespace {

/// The AND over lanes j of (sb[word_j] >> shift_j) | pad_j for the 8
/// multiply-shifts u (8 x 32 bits) of one half of h2: the positions of
/// for_each_nibble, 4 per 64-bit lane group (v = 3u, word v >> 29, shift
/// (v >> 23) & 60), fetched with two gathers. A pad lane of all ones stands
/// for a hash j >= k.
[[gnu::target("avx2")]] inline __m256i nibbles_avx2(const std::uint64_t* sb, __m256i u,
                                                    __m256i pad_a, __m256i pad_b) noexcept {
  const auto half = [&](__m128i u4, __m256i pad) __attribute__((target("avx2"))) {
    const __m256i w = _mm256_cvtepu32_epi64(u4);
    const __m256i v = _mm256_add_epi64(w, _mm256_add_epi64(w, w));  // 3u, 34 bits
    const __m256i word = _mm256_srli_epi64(v, 29);
    const __m256i shift = _mm256_and_si256(_mm256_srli_epi64(v, 23), _mm256_set1_epi64x(60));
    const __m256i got = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(sb), word, 8);
    return _mm256_or_si256(_mm256_srlv_epi64(got, shift), pad);
  };
  return _mm256_and_si256(half(_mm256_castsi256_si128(u), pad_a),
                          half(_mm256_extracti128_si256(u, 1), pad_b));
}

/// may_contain_many's loop compiled for AVX2: the same answers as
/// probe_nibbles<k> (BatchedLookupsMatchSingleCallsForEveryK compares them
/// with the scalar single calls), 8 positions at a time. Single lookups stay
/// scalar: the same probe as one call per lookup took 159 instructions
/// against 197 but 5-10% more time (a gather's latency is not hidden when
/// the next lookup waits on it), and AVX-512's one 8-lane gather was slower
/// than two 4-lane ones here (1.92x the blocked filter's batched lookups at
/// 10^6 against 1.74-1.83x).
[[gnu::target("avx2"), gnu::flatten]] std::size_t probe_many_avx2(
    std::span<const std::string_view> items, std::uint64_t seed, const std::uint64_t* words,
    std::uint64_t blocks, std::uint32_t k, unsigned live, bool* out) {
  static_assert(sb_lines == 3, "nibbles_avx2 computes v = 3u");
  alignas(32) std::array<std::uint64_t, 16> pad{};
  for (std::uint32_t j = k; j < 16; ++j) pad[j] = ~std::uint64_t{0};
  const __m256i pad0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pad.data()));
  const __m256i pad1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pad.data() + 4));
  const __m256i pad2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pad.data() + 8));
  const __m256i pad3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(pad.data() + 12));
  const __m256i mult_lo =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(detail::block_multipliers.data()));
  const __m256i mult_hi =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(detail::block_multipliers.data() + 8));
  const bool second = k > 8;
  std::size_t found = 0;
  for_each_hashed(
      items, seed, words,
      blocks, [&](std::size_t i, std::uint64_t x) __attribute__((target("avx2"))) {
        const std::uint64_t h2 = x * detail::blocked64_mixer;
        const std::uint64_t* sb = words + detail::fastrange64(x, blocks) * sb_words;
        const auto lo = static_cast<int>(static_cast<std::uint32_t>(h2));
        __m256i acc =
            nibbles_avx2(sb, _mm256_mullo_epi32(_mm256_set1_epi32(lo), mult_lo), pad0, pad1);
        if (second) {
          const auto hi = static_cast<int>(static_cast<std::uint32_t>(h2 >> 32));
          acc = _mm256_and_si256(
              acc,
              nibbles_avx2(sb, _mm256_mullo_epi32(_mm256_set1_epi32(hi), mult_hi), pad2, pad3));
        }
        __m128i a = _mm_and_si128(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        a = _mm_and_si128(a, _mm_unpackhi_epi64(a, a));
        const bool r = (static_cast<unsigned>(_mm_cvtsi128_si64(a)) & live & 0xFu) != 0;
        out[i] = r;
        found += r ? 1 : 0;
      });
  return found;
}

}  // namespace
#endif

void windowed_bloom_filter::add_many(std::span<const std::string_view> items, double now) {
  if (items.empty()) return;
  if (kind_ == window_kind::time) {
    // One time for the batch: its generation is found (and the array
    // advanced) once, as the first add_hash would; the rest only insert.
    const std::int64_t gen = generation_at(now, "the add");
    if (added_ == 0 || gen > latest_gen_) advance_to(gen);
    if (added_ == 0 || now > latest_time_) note_time(now);
    const unsigned s = slot_of(gen);
    std::uint64_t* words = words_.data();
    const std::uint64_t blocks = superblocks_;
    with_hashes(hashes_, [&](auto k) {
      for_each_hashed(items, seed_, words, blocks, [&](std::size_t, std::uint64_t x) {
        insert_nibbles<decltype(k)::value>(words + detail::fastrange64(x, blocks) * sb_words, x, s);
      });
    });
    segment_items_[s] += items.size();
    added_ += items.size();
    return;
  }
  for_each_hashed(items, seed_, words_.data(), superblocks_,
                  [&](std::size_t, std::uint64_t x) { add_hash(x, now); });
}

std::size_t windowed_bloom_filter::may_contain_many(std::span<const std::string_view> items,
                                                    double now, std::span<bool> out) const {
  if (out.size() < items.size()) {
    throw std::invalid_argument("may_contain_many needs an answer slot for every item (" +
                                std::to_string(items.size()) + " items, " +
                                std::to_string(out.size()) + " slots); pass a larger span");
  }
  const unsigned live = hot::live(*this, now);
  std::size_t found = 0;
  const std::uint64_t* words = words_.data();
  const std::uint64_t blocks = superblocks_;
#ifdef RINGBLOOM_BLOCKED64_HAVE_AVX2_CODE
  static const bool avx2 = simd_path_supported(simd_path::avx2);
  if (avx2) return probe_many_avx2(items, seed_, words, blocks, hashes_, live, out.data());
#endif
  with_hashes(hashes_, [&](auto k) {
    for_each_hashed(items, seed_, words, blocks, [&](std::size_t i, std::uint64_t x) {
      const bool r = probe_nibbles<decltype(k)::value>(
                         words + detail::fastrange64(x, blocks) * sb_words, x, live) != 0;
      out[i] = r;
      found += r ? 1 : 0;
    });
  });
  return found;
}

std::size_t windowed_bloom_filter::test_and_add_many(std::span<const std::string_view> items,
                                                     std::span<const double> times,
                                                     std::span<bool> seen) {
  if (seen.size() < items.size() || (kind_ == window_kind::time && times.size() < items.size())) {
    throw std::invalid_argument("test_and_add_many needs an answer slot" +
                                std::string(kind_ == window_kind::time ? " and a time" : "") +
                                " for every item (" + std::to_string(items.size()) +
                                " items); pass spans as long as the items");
  }
  std::size_t found = 0;
  const bool timed = kind_ == window_kind::time;
  for_each_hashed(items, seed_, words_.data(), superblocks_, [&](std::size_t i, std::uint64_t x) {
    const bool r = test_and_add_hash(x, timed ? times[i] : 0);
    seen[i] = r;
    found += r ? 1 : 0;
  });
  return found;
}

// --- stats ------------------------------------------------------------------------

double windowed_bloom_filter::expected_fpr(double now) const {
  const unsigned live = live_mask(query_generation(now));
  double pass_none = 1;
  for (unsigned s = 0; s < gens; ++s) {
    if (!((live >> s) & 1u) || segment_items_[s] == 0) continue;
    double sum = 0;
    for (std::uint64_t b = 0; b < superblocks_; ++b) {
      const std::uint64_t* sb = words_.data() + b * sb_words;
      int ones = 0;
      for (std::size_t w = 0; w < sb_words; ++w) ones += std::popcount(sb[w] & nibble_bits(s));
      sum += std::pow(ones / static_cast<double>(windowed_math::segment_bits), hashes_);
    }
    pass_none *= 1 - sum / static_cast<double>(superblocks_);
  }
  return 1 - pass_none;
}

std::uint32_t windowed_bloom_filter::overfull_generations(double now) const {
  const unsigned live = live_mask(query_generation(now));
  std::uint32_t n = 0;
  for (unsigned s = 0; s < gens; ++s) {
    if (((live >> s) & 1u) && segment_items_[s] > generation_items_) ++n;
  }
  return n;
}

std::uint64_t windowed_bloom_filter::items_in_window(double now) const {
  const unsigned live = live_mask(query_generation(now));
  std::uint64_t n = 0;
  for (unsigned s = 0; s < gens; ++s) {
    if ((live >> s) & 1u) n += segment_items_[s];
  }
  return n;
}

bool operator==(const windowed_bloom_filter& a, const windowed_bloom_filter& b) {
  return a.kind_ == b.kind_ && a.window_ == b.window_ && a.capacity_ == b.capacity_ &&
         a.target_fpr_ == b.target_fpr_ && a.seed_ == b.seed_ && a.hashes_ == b.hashes_ &&
         a.superblocks_ == b.superblocks_ && a.added_ == b.added_ &&
         a.latest_gen_ == b.latest_gen_ && a.latest_time_ == b.latest_time_ &&
         a.segment_items_ == b.segment_items_ && a.words_ == b.words_;
}

// --- the file member "\x89RBW" ----------------------------------------------------
//
// docs/format.md, "Windowed filter files", draws it:
//
//   offset size field
//        0    8 magic "\x89RBW\r\n\x1a\n"
//        8    2 version u16 = 2 (1 is read, see below)
//       10    1 window kind u8: 1 time, 2 count
//       11    1 generations u8 = 4
//       12    4 k u32, 1..16
//       16    8 seed u64
//       24    8 super-blocks B u64, >= 1, 1536 B <= 2^40
//       32    8 file size u64 = 128 + 192 B + 8
//       40    8 window f64: seconds (time, finite, > 0) or N (count, = capacity)
//       48    8 capacity N u64 >= 1
//       56    8 target fpr f64 in [1e-12, 1)
//       64    8 latest generation i64 (two's complement)
//       72    8 latest time f64 (time windows; 0 for count windows)
//       80    8 items added u64
//       88   32 items per segment, 4 x u64 (sum <= items added)
//      120    8 reserved 0
//      128  192B the super-blocks, 24 u64 each: position p (0..383) is
//               nibble p % 16 of word p / 16, its bit s generation slot s
//     size-8  8 checksum XXH3-64 (seed 0) of bytes [0, size - 8)

namespace {

//   Version 1 (the first release) had the same header and, in place of the
//   nibbles, four segments per super-block: generation slot s in words
//   6s..6s+5, position p at bit p % 64 of word 6s + p / 64. deserialize
//   reads it and moves each bit to its nibble; serialize writes version 2.

constexpr std::size_t header_bytes = 128;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'W', '\r', '\n', 0x1a, '\n'},
                                2,
                                header_bytes + io::checksum_bytes,
                                "windowed filter file",
                                "windowed filter"};
constexpr io::envelope envelope_v1{envelope.magic, 1, envelope.min_bytes, envelope.noun,
                                   envelope.thing};
constexpr std::size_t off_kind = 10;
constexpr std::size_t off_generations = 11;
constexpr std::size_t off_hashes = 12;
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_superblocks = 24;
constexpr std::size_t off_window = 40;
constexpr std::size_t off_capacity = 48;
constexpr std::size_t off_fpr = 56;
constexpr std::size_t off_latest_gen = 64;
constexpr std::size_t off_latest_time = 72;
constexpr std::size_t off_added = 80;
constexpr std::size_t off_segment_items = 88;
constexpr std::size_t off_reserved = 120;

}  // namespace

std::string windowed_bloom_filter::serialize() const {
  const std::uint64_t size = header_bytes + superblocks_ * sb_words * 8 + io::checksum_bytes;
  std::string out(size, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), 8);
  io::store_le<std::uint16_t>(p + io::version_offset, envelope.version);
  p[off_kind] = static_cast<unsigned char>(kind_);
  p[off_generations] = static_cast<unsigned char>(gens);
  io::store_le<std::uint32_t>(p + off_hashes, hashes_);
  io::store_le<std::uint64_t>(p + off_seed, seed_);
  io::store_le<std::uint64_t>(p + off_superblocks, superblocks_);
  io::store_le<std::uint64_t>(p + io::file_size_offset, size);
  io::store_f64(p + off_window, window_);
  io::store_le<std::uint64_t>(p + off_capacity, capacity_);
  io::store_f64(p + off_fpr, target_fpr_);
  io::store_le<std::uint64_t>(p + off_latest_gen, static_cast<std::uint64_t>(latest_gen_));
  io::store_f64(p + off_latest_time, latest_time_);
  io::store_le<std::uint64_t>(p + off_added, added_);
  for (unsigned s = 0; s < gens; ++s) {
    io::store_le<std::uint64_t>(p + off_segment_items + 8 * s, segment_items_[s]);
  }
  for (std::size_t i = 0; i < words_.size(); ++i) {
    io::store_le<std::uint64_t>(p + header_bytes + 8 * i, words_[i]);
  }
  io::seal(out);
  return out;
}

windowed_bloom_filter windowed_bloom_filter::deserialize(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const bool v1 = bytes.size() >= io::version_offset + 2 &&
                  io::load_le<std::uint16_t>(p + io::version_offset) == envelope_v1.version;
  io::check_envelope(bytes, v1 ? envelope_v1 : envelope);
  const auto bad = [](std::string_view what) { io::corrupt(envelope, what); };

  const std::uint8_t kind = p[off_kind];
  if (kind != 1 && kind != 2) bad("unknown window kind " + std::to_string(kind));
  if (p[off_generations] != gens) {
    bad("the file has " + std::to_string(p[off_generations]) +
        " generations; this version reads windowed filters of 4");
  }
  if (!io::all_zero(p + off_reserved, 8)) bad("reserved bytes are not zero");
  const auto k = io::load_le<std::uint32_t>(p + off_hashes);
  if (k < 1 || k > max_hashes) bad("k = " + std::to_string(k) + " is outside 1..16");
  const auto blocks = io::load_le<std::uint64_t>(p + off_superblocks);
  if (blocks < 1 || blocks > max_filter_bits / windowed_math::superblock_bits) {
    bad("the number of super-blocks " + std::to_string(blocks) + " is outside 1..2^40 / 1536");
  }
  if (bytes.size() != header_bytes + blocks * sb_words * 8 + io::checksum_bytes) {
    bad("the file size does not match its " + std::to_string(blocks) + " super-blocks");
  }
  const double window = io::load_f64(p + off_window);
  const auto capacity = io::load_le<std::uint64_t>(p + off_capacity);
  const double fpr = io::load_f64(p + off_fpr);
  if (capacity < 1) bad("the capacity is 0");
  if (!(fpr >= blocked_min_fpr && fpr < 1)) bad("the target rate is outside [1e-12, 1)");
  if (!(std::isfinite(window) && window > 0)) bad("the window is not a number above 0");
  if (kind == 2 && window != static_cast<double>(capacity)) {
    bad("a count window's length differs from its capacity");
  }

  windowed_bloom_filter f;
  f.kind_ = static_cast<window_kind>(kind);
  f.window_ = window;
  f.generation_seconds_ = f.kind_ == window_kind::time ? window / (gens - 1) : 0;
  f.capacity_ = capacity;
  f.target_fpr_ = fpr;
  f.seed_ = io::load_le<std::uint64_t>(p + off_seed);
  f.hashes_ = k;
  f.superblocks_ = blocks;
  f.generation_items_ = windowed_math::generation_items(capacity);
  f.latest_gen_ = static_cast<std::int64_t>(io::load_le<std::uint64_t>(p + off_latest_gen));
  f.latest_time_ = io::load_f64(p + off_latest_time);
  f.added_ = io::load_le<std::uint64_t>(p + off_added);
  std::uint64_t held = 0;
  for (unsigned s = 0; s < gens; ++s) {
    f.segment_items_[s] = io::load_le<std::uint64_t>(p + off_segment_items + 8 * s);
    if (f.segment_items_[s] > f.added_ || held > f.added_ - f.segment_items_[s]) {
      bad("the segments hold more items than were added");
    }
    held += f.segment_items_[s];
  }
  if (f.kind_ == window_kind::time) {
    if (!std::isfinite(f.latest_time_)) bad("the latest time is not a finite number");
    const double g = std::floor(f.latest_time_ / f.generation_seconds_);
    if (f.added_ > 0 && !(std::fabs(g) < 4.0e18 && static_cast<std::int64_t>(g) == f.latest_gen_)) {
      bad("the latest generation does not match the latest time");
    }
  } else {
    if (f.latest_time_ != 0) bad("a count window records a time");
    const std::uint64_t expect = f.added_ == 0 ? 0 : (f.added_ - 1) / f.generation_items_;
    if (static_cast<std::uint64_t>(f.latest_gen_) != expect) {
      bad("the latest generation does not match the number of items added");
    }
  }
  if (f.added_ == 0 && (f.latest_gen_ != 0 || f.latest_time_ != 0)) {
    bad("an empty filter records a generation or a time");
  }
  f.words_.assign(blocks * sb_words, 0);
  const unsigned char* body = p + header_bytes;
  if (v1) {
    // Segment s, word w, bit i of each super-block: position 64 w + i of slot s.
    for (std::uint64_t b = 0; b < blocks; ++b) {
      std::uint64_t* sb = f.words_.data() + b * sb_words;
      for (unsigned s = 0; s < gens; ++s) {
        for (std::size_t w = 0; w < seg_words; ++w) {
          std::uint64_t bits =
              io::load_le<std::uint64_t>(body + 8 * (b * sb_words + s * seg_words + w));
          while (bits != 0) {
            const auto pos =
                static_cast<std::uint32_t>(64 * w + static_cast<unsigned>(std::countr_zero(bits)));
            sb[nibble_word(pos)] |= std::uint64_t{1} << (nibble_shift(pos) + s);
            bits &= bits - 1;
          }
        }
      }
    }
  } else {
    for (std::size_t i = 0; i < f.words_.size(); ++i) {
      f.words_[i] = io::load_le<std::uint64_t>(body + 8 * i);
    }
  }
  std::uint64_t empty = 0;  // the bits of slots that hold no items
  for (unsigned s = 0; s < gens; ++s) {
    if (f.segment_items_[s] == 0) empty |= nibble_bits(s);
  }
  bool any = false;
  for (const std::uint64_t w : f.words_) any |= (w & empty) != 0;
  if (any) bad("a segment with no items has bits set");
  if (f.added_ > 0) f.refresh_bounds();
  return f;
}

}  // namespace ringbloom
