// redis/commands/tdigest.cpp: TDIGEST.* over the library's t-digest, with
// RedisBloom 2.4/2.6's arguments, RESP2 replies and error sentences
// (src/rm_tdigest.c); docs/redis.md tables them and where we differ. The
// commands parse, call the library and reply: every number comes from
// ringbloom::tdigest.
//
// Two differences of substance from RedisBloom, both for replicas: read
// commands never change the value (RedisBloom compresses the buffer on a
// query; the library answers from a compressed copy instead), so a master
// that answers queries and a replica that does not keep identical values;
// and the image saved to RDB, AOF and DUMP is the compressed digest (as
// RedisBloom compresses before it saves), so DEBUG DIGEST-VALUE is the same
// on both whatever their buffers hold.
#include "ringbloom/quantile/tdigest.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "types/sketch_types.hpp"
#include "types/tdigest_type.hpp"

namespace ringbloom::redis {
namespace {

api::Type* tdigest_type = nullptr;

struct tdigest_traits {
  using type = tdigest;
  static constexpr const char* name = "TDIGEST";
  static constexpr const char* type_name = "RBloom-TD";
  static constexpr const char* loadchunk = "TDIGEST.LOADCHUNK";
  static api::Type* type_handle() { return tdigest_type; }
  static std::string image(const type& v) {
    if (v.statistics().unmerged_nodes == 0) return serialize_quantile(any_quantile(v));
    tdigest c = v;
    c.compress();
    return serialize_quantile(any_quantile(std::move(c)));
  }
  static type from_image(std::string_view b) {
    any_quantile q = deserialize_quantile(b);
    if (auto* t = std::get_if<tdigest>(&q)) return std::move(*t);
    throw data_error("the dump holds a KLL sketch, not a t-digest");
  }
  /// RedisBloom's "Memory usage": the fixed node array and the struct.
  static std::size_t memory(const type& v) { return sizeof(v) + v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "ERR T-Digest: key does not exist";
  }
};

using value = value_of<tdigest_traits>;

int reply_double(const call& c, double v) { return api::ReplyWithDouble(c.ctx, v); }

// REDISMODULE_CTX_FLAGS_RESP3 (redismodule.h): the client said HELLO 3.
constexpr int ctx_flags_resp3 = 1 << 22;

// A reply of `pairs` name/value pairs: a map for a RESP3 client, a flat
// array of 2 x pairs elements otherwise, as RedisBloom's INFO replies.
// Doubles need nothing of the kind: ReplyWithDouble sends a RESP3 double or
// a RESP2 bulk string by itself.
int reply_pairs(const call& c, long pairs) {
  if ((api::GetContextFlags(c.ctx) & ctx_flags_resp3) != 0) return api::ReplyWithMap(c.ctx, pairs);
  return c.array(2 * pairs);
}

// The key's complete digest, or nullptr after replying the error.
tdigest* existing(const call& c, open_key& key) {
  key_status status;
  tdigest* d = complete_value<tdigest_traits>(key, status);
  if (status != key_status::ok) {
    c.error(tdigest_traits::status_error(status));
    return nullptr;
  }
  if (d == nullptr) c.error(pending_error);
  return d;
}

// A compressed view of `d` for queries: d itself when nothing is buffered,
// else a compressed copy (the value stays as it is).
const tdigest& for_query(const tdigest& d, std::unique_ptr<tdigest>& scratch) {
  if (d.statistics().unmerged_nodes == 0) return d;
  scratch = std::make_unique<tdigest>(d);
  scratch->compress();
  return *scratch;
}

// COMPRESSION's value: RedisBloom's checks, then the library's ceiling.
bool parse_compression(const call& c, int i, long long& out, const char* too_large) {
  if (!c.to_long(i, out)) {
    c.error("ERR T-Digest: error parsing compression parameter");
    return false;
  }
  if (out <= 0) {
    c.error("ERR T-Digest: compression parameter needs to be a positive integer");
    return false;
  }
  if (static_cast<double>(out) > tdigest::max_compression) {
    c.error(too_large);
    return false;
  }
  return true;
}

constexpr const char* create_too_large =
    "ERR T-Digest: allocation failed: the compression must be at most 100000";
constexpr const char* merge_too_large =
    "ERR T-Digest: allocation of destination digest failed: the compression must be at most "
    "100000";

// TDIGEST.CREATE key [COMPRESSION compression]
int td_create(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc == 3 && !c.is(2, "COMPRESSION")) {
      return c.error(unknown_argument(c, 2, "COMPRESSION c", "ERR T-Digest: wrong keyword"));
    }
    if (argc != 2 && argc != 4) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(tdigest_type);
    if (status == key_status::ok) return c.error("ERR T-Digest: key already exists");
    if (status == key_status::mismatch) return c.error(api::wrongtype_error);
    long long compression = static_cast<long long>(tdigest::default_compression);
    if (argc == 4) {
      if (!c.is(2, "COMPRESSION")) {
        return c.error(unknown_argument(c, 2, "COMPRESSION c", "ERR T-Digest: wrong keyword"));
      }
      if (!parse_compression(c, 3, compression, create_too_large)) return 0;
    }
    auto* v = make<value>();
    try {
      v->value.emplace(static_cast<double>(compression));
    } catch (...) {
      destroy(v);
      throw;
    }
    key.set(tdigest_type, v);
    c.replicate();
    return c.ok();
  });
}

// TDIGEST.RESET key
int td_reset(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    d->reset();
    c.replicate();
    return c.ok();
  });
}

// TDIGEST.ADD key value [value ...]: all parsed before any is added.
int td_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    std::vector<double> xs(static_cast<std::size_t>(argc - 2));
    for (int i = 2; i < argc; ++i) {
      double& x = xs[static_cast<std::size_t>(i - 2)];
      if (!c.to_double(i, x) || std::isnan(x)) {
        return c.error("ERR T-Digest: error parsing val parameter");
      }
      if (!std::isfinite(x))
        return c.error("ERR T-Digest: val parameter needs to be a finite number");
    }
    try {
      d->add_many(xs);
    } catch (const std::overflow_error&) {
      return c.error("ERR T-Digest: overflow detected");
    }
    c.replicate();
    return c.ok();
  });
}

// TDIGEST.MERGE dest numkeys src [src ...] [COMPRESSION c] [OVERRIDE]
int td_merge(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    open_key dest(c, 1, api::key_read | api::key_write);
    const key_status dest_status = dest.status(tdigest_type);
    if (dest_status == key_status::mismatch) return c.error(api::wrongtype_error);
    tdigest* to = nullptr;
    if (dest_status == key_status::ok) {
      to = dest.value<value>()->complete() ? &*dest.value<value>()->value : nullptr;
      if (to == nullptr) return c.error(pending_error);
    }
    long long numkeys = 0;
    if (!c.to_long(2, numkeys)) return c.error("ERR T-Digest: error parsing numkeys");
    if (numkeys <= 0) return c.error("ERR T-Digest: numkeys needs to be a positive integer");
    if (numkeys > argc - 3) return c.wrong_arity();
    const int rest = 3 + static_cast<int>(numkeys);
    long long compression = 0;
    bool explicit_compression = false;
    bool override = false;
    for (int i = rest; i < argc; ++i) {
      if (c.is(i, "COMPRESSION")) {
        if (i + 1 >= argc) return c.wrong_arity();
        if (!parse_compression(c, i + 1, compression, merge_too_large)) return 0;
        explicit_compression = true;
        ++i;
      } else if (c.is(i, "OVERRIDE")) {
        override = true;
      } else {
        return c.error(
            unknown_argument(c, i, "COMPRESSION c and OVERRIDE", "ERR T-Digest: wrong keyword"));
      }
    }
    std::vector<std::unique_ptr<open_key>> keys;
    std::vector<tdigest*> sources;
    for (int i = 3; i < rest; ++i) {
      if (c.arg(i) == c.arg(1)) {
        if (to == nullptr) return c.error("ERR T-Digest: key does not exist");
        sources.push_back(to);
        continue;
      }
      keys.push_back(std::make_unique<open_key>(c, i, api::key_read));
      tdigest* s = existing(c, *keys.back());
      if (s == nullptr) return 0;
      sources.push_back(s);
    }
    // The compression: COMPRESSION's; else the destination's when it exists
    // and is kept; else the largest of the sources (RedisBloom's rule).
    double chosen = static_cast<double>(compression);
    if (!explicit_compression) {
      if (to != nullptr && !override) {
        chosen = to->compression();
      } else {
        chosen = 0;
        for (const tdigest* s : sources) chosen = std::max(chosen, s->compression());
      }
    }
    std::vector<const tdigest*> inputs;
    if (to != nullptr && !override) inputs.push_back(to);
    inputs.insert(inputs.end(), sources.begin(), sources.end());
    auto* v = make<value>();
    try {
      v->value.emplace(tdigest::merged(inputs, chosen));
    } catch (const std::overflow_error&) {
      destroy(v);
      return c.error("ERR T-Digest: overflow detected");
    } catch (...) {
      destroy(v);
      throw;
    }
    keys.clear();
    dest.set(tdigest_type, v);
    c.replicate();
    return c.ok();
  });
}

// TDIGEST.MIN key / TDIGEST.MAX key: NaN when empty.
int td_min_max(api::Ctx* ctx, api::String** argv, int argc, bool max) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    return reply_double(c, max ? d->max() : d->min());
  });
}
int td_min(api::Ctx* ctx, api::String** argv, int argc) {
  return td_min_max(ctx, argv, argc, false);
}
int td_max(api::Ctx* ctx, api::String** argv, int argc) {
  return td_min_max(ctx, argv, argc, true);
}

// Parses arguments 2.. as doubles; replies `message` and returns false on
// the first that is not a number.
bool parse_doubles(const call& c, std::vector<double>& out, const char* message) {
  out.resize(static_cast<std::size_t>(c.argc - 2));
  for (int i = 2; i < c.argc; ++i) {
    double& x = out[static_cast<std::size_t>(i - 2)];
    if (!c.to_double(i, x) || std::isnan(x)) {
      c.error(message);
      return false;
    }
  }
  return true;
}

// TDIGEST.QUANTILE key q [q ...]
int td_quantile(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    std::vector<double> qs;
    if (!parse_doubles(c, qs, "ERR T-Digest: error parsing quantile")) return 0;
    for (const double q : qs) {
      if (q < 0 || q > 1) return c.error("ERR T-Digest: quantile should be in [0,1]");
    }
    std::unique_ptr<tdigest> scratch;
    const tdigest& t = for_query(*d, scratch);
    c.array(static_cast<long>(qs.size()));
    for (const double q : qs) reply_double(c, t.quantile(q));
    return 0;
  });
}

// TDIGEST.CDF key value [value ...]
int td_cdf(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    std::vector<double> xs;
    if (!parse_doubles(c, xs, "ERR T-Digest: error parsing cdf")) return 0;
    std::unique_ptr<tdigest> scratch;
    const tdigest& t = for_query(*d, scratch);
    c.array(static_cast<long>(xs.size()));
    for (const double x : xs) reply_double(c, t.cdf(x));
    return 0;
  });
}

// TDIGEST.RANK / REVRANK key value [value ...]
int td_rank(api::Ctx* ctx, api::String** argv, int argc, bool reverse) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    std::vector<double> xs;
    if (!parse_doubles(c, xs, "ERR T-Digest: error parsing value")) return 0;
    std::unique_ptr<tdigest> scratch;
    const tdigest& t = for_query(*d, scratch);
    c.array(static_cast<long>(xs.size()));
    for (const double x : xs) c.integer(reverse ? t.rev_rank(x) : t.rank(x));
    return 0;
  });
}
int td_rank_cmd(api::Ctx* ctx, api::String** argv, int argc) {
  return td_rank(ctx, argv, argc, false);
}
int td_revrank_cmd(api::Ctx* ctx, api::String** argv, int argc) {
  return td_rank(ctx, argv, argc, true);
}

// TDIGEST.BYRANK / BYREVRANK key rank [rank ...]
int td_byrank(api::Ctx* ctx, api::String** argv, int argc, bool reverse) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    std::vector<std::uint64_t> ranks;
    for (int i = 2; i < argc; ++i) {
      long long r = 0;
      if (!c.to_long(i, r)) return c.error("ERR T-Digest: error parsing rank");
      if (r < 0) return c.error("ERR T-Digest: rank needs to be non negative");
      ranks.push_back(static_cast<std::uint64_t>(r));
    }
    std::unique_ptr<tdigest> scratch;
    const tdigest& t = for_query(*d, scratch);
    c.array(static_cast<long>(ranks.size()));
    for (const std::uint64_t r : ranks) reply_double(c, reverse ? t.by_rev_rank(r) : t.by_rank(r));
    return 0;
  });
}
int td_byrank_cmd(api::Ctx* ctx, api::String** argv, int argc) {
  return td_byrank(ctx, argv, argc, false);
}
int td_byrevrank_cmd(api::Ctx* ctx, api::String** argv, int argc) {
  return td_byrank(ctx, argv, argc, true);
}

// TDIGEST.TRIMMED_MEAN key low_cut high_cut
int td_trimmed_mean(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 4) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    double lo = 0;
    double hi = 0;
    if (!c.to_double(2, lo)) return c.error("ERR T-Digest: error parsing low_cut_percentile");
    if (!c.to_double(3, hi)) return c.error("ERR T-Digest: error parsing high_cut_percentile");
    if (lo < 0 || lo > 1 || hi < 0 || hi > 1) {
      return c.error("ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]");
    }
    if (lo >= hi) {
      return c.error("ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile");
    }
    return reply_double(c, d->trimmed_mean(lo, hi));
  });
}

// TDIGEST.INFO key: RedisBloom's nine fields, names as simple strings; a map
// for a RESP3 client.
int td_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = existing(c, key);
    if (d == nullptr) return 0;
    const auto s = d->statistics();
    const auto ll = [](auto v) { return static_cast<long long>(v); };
    reply_pairs(c, 9);
    c.simple("Compression");
    c.integer(ll(d->compression()));
    c.simple("Capacity");
    c.integer(ll(d->capacity()));
    c.simple("Merged nodes");
    c.integer(ll(s.merged_nodes));
    c.simple("Unmerged nodes");
    c.integer(ll(s.unmerged_nodes));
    c.simple("Merged weight");
    c.integer(ll(s.merged_weight));
    c.simple("Unmerged weight");
    c.integer(ll(s.unmerged_weight));
    c.simple("Observations");
    c.integer(ll(d->count()));
    c.simple("Total compressions");
    c.integer(ll(s.total_compressions));
    c.simple("Memory usage");
    return c.integer(ll(tdigest_traits::memory(*d)));
  });
}

int td_scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return scandump<tdigest_traits>(call{ctx, argv, argc}, "ERR T-Digest: invalid iterator");
  });
}

int td_loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return loadchunk<tdigest_traits>(call{ctx, argv, argc}, "ERR T-Digest: invalid iterator",
                                     "ERR T-Digest: invalid dump header",
                                     "ERR T-Digest: invalid dump header",
                                     "ERR T-Digest: invalid chunk, or chunks out of order");
  });
}

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec tdigest_commands[] = {
    {"tdigest.create", td_create, true, insert_key, -2, "Creates an empty t-digest"},
    {"tdigest.reset", td_reset, true, update_key, 2, "Empties a t-digest"},
    {"tdigest.add", td_add, true, update_key, -3, "Adds values to a t-digest"},
    {"tdigest.merge", td_merge, true, insert_key, -4, "Merges t-digests into one", 2},
    {"tdigest.min", td_min, false, read_key, 2, "The smallest value added"},
    {"tdigest.max", td_max, false, read_key, 2, "The largest value added"},
    {"tdigest.quantile", td_quantile, false, read_key, -3, "Estimated values at quantiles"},
    {"tdigest.cdf", td_cdf, false, read_key, -3, "Estimated fractions at or below values"},
    {"tdigest.rank", td_rank_cmd, false, read_key, -3, "Estimated ranks of values"},
    {"tdigest.revrank", td_revrank_cmd, false, read_key, -3, "Estimated reverse ranks"},
    {"tdigest.byrank", td_byrank_cmd, false, read_key, -3, "Estimated values at ranks"},
    {"tdigest.byrevrank", td_byrevrank_cmd, false, read_key, -3, "Values at reverse ranks"},
    {"tdigest.trimmed_mean", td_trimmed_mean, false, read_key, 4, "Mean between two quantiles"},
    {"tdigest.info", td_info, false, read_key, 2, "The digest's parameters and counts"},
    {"tdigest.scandump", td_scandump, false, read_key, 3, "One chunk of the digest's dump"},
    {"tdigest.loadchunk", td_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_tdigest(api::Ctx* ctx) {
  tdigest_type = type_methods<tdigest_traits>::create(ctx);
  if (tdigest_type == nullptr) return false;
  return register_commands(ctx, tdigest_commands, std::size(tdigest_commands));
}

}  // namespace ringbloom::redis
