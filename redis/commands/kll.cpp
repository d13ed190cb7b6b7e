// redis/commands/kll.cpp: KLL.*, ringbloom's own commands over the library's
// KLL sketch (ringbloom/quantile/kll.hpp), whose rank error is guaranteed
// whatever the stream. No other Redis module has the type; the commands
// mirror TDIGEST.* (their arguments, reply shapes and error sentences, with
// "KLL: " in place of "T-Digest: "), so that a user who knows one knows
// both, and the shared ones are written once (quantile_commands.hpp).
// docs/redis.md tables them beside TDIGEST.*.
//
// Randomness and replicas. A KLL sketch flips a coin at every compaction;
// the coins come from the sketch's own generator, whose seed and state are
// part of the value (and of its RDB, AOF and DUMP image). KLL.CREATE without
// SEED draws a seed on the master and replicates (and appends to the AOF)
// the command with that SEED, so a replica or an AOF replay creates the
// same sketch; every later command is deterministic given the value, so it
// replicates verbatim. A new KLL.MERGE destination starts as a copy of the
// first source (its seed and state), the rest merged in order.
#include "ringbloom/quantile/kll.hpp"

#include <charconv>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "commands/quantile_commands.hpp"
#include "module/module_common.hpp"
#include "types/kll_type.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {
namespace {

using value = value_of<kll_traits>;
using T = kll_traits;
namespace qc = quantile_commands;

constexpr const char* bad_k =
    "ERR KLL: K must be an integer from 8 to 65535 (200 gives a rank error of 1.33% at 99% "
    "confidence)";

// K's value; false after replying.
bool parse_k(const call& c, int i, std::uint32_t& out) {
  long long k = 0;
  if (!c.to_long(i, k) || k < kll_sketch::min_k || k > kll_sketch::max_k) {
    c.error(bad_k);
    return false;
  }
  out = static_cast<std::uint32_t>(k);
  return true;
}

// KLL.CREATE key [K k] [SEED seed]
int kll_create(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2 && argc != 4 && argc != 6) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(kll_type_slot());
    if (status == key_status::ok) return c.error("ERR KLL: key already exists");
    if (status == key_status::mismatch) return c.error(api::wrongtype_error);
    std::uint32_t k = kll_sketch::default_k;
    std::uint64_t seed = 0;
    bool seeded = false;
    for (int i = 2; i < argc; i += 2) {
      if (c.is(i, "K")) {
        if (!parse_k(c, i + 1, k)) return 0;
      } else if (c.is(i, "SEED")) {
        const std::string_view s = c.arg(i + 1);
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
        if (ec != std::errc() || end != s.data() + s.size()) {
          return c.error("ERR KLL: SEED must be an integer from 0 to 18446744073709551615");
        }
        seeded = true;
      } else {
        return c.error(unknown_argument(c, i, "K k and SEED seed", "ERR KLL: wrong keyword"));
      }
    }
    if (!seeded) seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    auto* v = make<value>();
    try {
      v->value.emplace(k, seed);
    } catch (...) {
      destroy(v);
      throw;
    }
    key.set(kll_type_slot(), v);
    // Replicas and the AOF get the seed the master used.
    const std::string name = command_name("KLL.CREATE");
    const std::string seed_text = std::to_string(seed);
    api::Replicate(ctx, name.c_str(), "sclcc", argv[1], "K", static_cast<long long>(k), "SEED",
                   seed_text.c_str());
    return c.ok();
  });
}

// KLL.MERGE dest numkeys src [src ...] [K k] [OVERRIDE]
int kll_merge(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    open_key dest(c, 1, api::key_read | api::key_write);
    qc::merge_inputs<T> in;
    if (!qc::merge_head(c, dest, in)) return 0;
    std::uint32_t k = 0;
    bool override = false;
    for (int i = in.options; i < argc; ++i) {
      if (c.is(i, "K")) {
        if (i + 1 >= argc) return c.wrong_arity();
        if (!parse_k(c, i + 1, k)) return 0;
        ++i;
      } else if (c.is(i, "OVERRIDE")) {
        override = true;
      } else {
        return c.error("ERR KLL: wrong keyword");
      }
    }
    if (!qc::merge_sources(c, in)) return 0;
    // Every input must have the k of the result: K's; else the kept
    // destination's; else the first source's. (Sketches of different k do
    // not merge without losing the guarantee of the larger.)
    const bool keep = in.to != nullptr && !override;
    const std::uint32_t want = k != 0 ? k : keep ? in.to->k() : in.sources.front()->k();
    std::vector<const kll_sketch*> inputs;
    if (keep) inputs.push_back(in.to);
    inputs.insert(inputs.end(), in.sources.begin(), in.sources.end());
    for (const kll_sketch* s : inputs) {
      if (s->k() != want) {
        return c.error("ERR KLL: the sketches have different K (" + std::to_string(s->k()) +
                       " and " + std::to_string(want) +
                       "); merge only sketches created with the same K");
      }
    }
    auto* v = make<value>();
    try {
      v->value.emplace(*inputs.front());
      for (std::size_t i = 1; i < inputs.size(); ++i) v->value->merge(*inputs[i]);
    } catch (...) {
      destroy(v);
      throw;
    }
    in.keys.clear();
    dest.set(kll_type_slot(), v);
    c.replicate();
    return c.ok();
  });
}

// KLL.INFO key: the parameters and sizes, as TDIGEST.INFO (a flat array
// under RESP2, a map under RESP3).
int kll_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const kll_sketch* s = qc::existing<T>(c, key);
    if (s == nullptr) return 0;
    const auto ll = [](auto v) { return static_cast<long long>(v); };
    qc::reply_pairs(c, 6);
    c.simple("K");
    c.integer(ll(s->k()));
    c.simple("Observations");
    c.integer(ll(s->count()));
    c.simple("Retained items");
    c.integer(ll(s->retained()));
    c.simple("Levels");
    c.integer(ll(s->levels()));
    c.simple("Rank error");  // at 99% confidence, as a fraction of the count
    qc::reply_double(c, s->rank_error());
    c.simple("Memory usage");  // the struct and what it allocated
    return c.integer(ll(sizeof(kll_sketch) + kll_traits::memory(*s)));
  });
}

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec kll_commands[] = {
    {"kll.create", kll_create, true, insert_key, -2, "Creates an empty KLL sketch"},
    {"kll.reset", qc::reset<T>, true, update_key, 2, "Empties a KLL sketch"},
    {"kll.add", qc::add<T>, true, update_key, -3, "Adds values to a KLL sketch"},
    {"kll.merge", kll_merge, true, insert_key, -4, "Merges KLL sketches into one", 2},
    {"kll.min", qc::min_max<T, false>, false, read_key, 2, "The smallest value added"},
    {"kll.max", qc::min_max<T, true>, false, read_key, 2, "The largest value added"},
    {"kll.quantile", qc::quantile<T>, false, read_key, -3, "Values at quantiles"},
    {"kll.cdf", qc::cdf<T>, false, read_key, -3, "Fractions at or below values"},
    {"kll.rank", qc::rank<T, false>, false, read_key, -3, "Estimated ranks of values"},
    {"kll.revrank", qc::rank<T, true>, false, read_key, -3, "Estimated reverse ranks"},
    {"kll.byrank", qc::by_rank<T, false>, false, read_key, -3, "Values at ranks"},
    {"kll.byrevrank", qc::by_rank<T, true>, false, read_key, -3, "Values at reverse ranks"},
    {"kll.trimmed_mean", qc::trimmed_mean<T>, false, read_key, 4, "Mean between two quantiles"},
    {"kll.info", kll_info, false, read_key, 2, "The sketch's parameters and sizes"},
    {"kll.scandump", qc::scandump<T>, false, read_key, 3, "One chunk of the sketch's dump"},
    {"kll.loadchunk", qc::loadchunk<T>, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_kll(api::Ctx* ctx) {
  kll_type_slot() = type_methods<kll_traits>::create(ctx);
  if (kll_type_slot() == nullptr) return false;
  return register_commands(ctx, kll_commands, std::size(kll_commands));
}

}  // namespace ringbloom::redis
