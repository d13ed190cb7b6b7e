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
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands/quantile_commands.hpp"
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
  /// What the digest allocates beyond its struct (which the value's size
  /// already counts): the fixed node array.
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "ERR T-Digest: key does not exist";
  }
  static constexpr const char* prefix = "ERR T-Digest: ";
  /// A compressed view of `d` for queries: d itself when nothing is
  /// buffered, else a compressed copy (the value stays as it is).
  static const type& for_query(const type& d, std::unique_ptr<type>& scratch) {
    if (d.statistics().unmerged_nodes == 0) return d;
    scratch = std::make_unique<type>(d);
    scratch->compress();
    return *scratch;
  }
  static void add(type& d, std::span<const double> xs) { d.add_many(xs); }
};

using value = value_of<tdigest_traits>;
namespace qc = quantile_commands;

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

// TDIGEST.MERGE dest numkeys src [src ...] [COMPRESSION c] [OVERRIDE]
int td_merge(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    open_key dest(c, 1, api::key_read | api::key_write);
    qc::merge_inputs<tdigest_traits> in;
    if (!qc::merge_head(c, dest, in)) return 0;
    tdigest* const to = in.to;
    const int rest = in.options;
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
    if (!qc::merge_sources(c, in)) return 0;
    const auto& sources = in.sources;
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
    in.keys.clear();
    dest.set(tdigest_type, v);
    c.replicate();
    return c.ok();
  });
}

// TDIGEST.INFO key: RedisBloom's nine fields, names as simple strings; a map
// for a RESP3 client.
int td_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const tdigest* d = qc::existing<tdigest_traits>(c, key);
    if (d == nullptr) return 0;
    const auto s = d->statistics();
    const auto ll = [](auto v) { return static_cast<long long>(v); };
    qc::reply_pairs(c, 9);
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
    c.simple("Memory usage");  // RedisBloom's: the struct and the node array
    return c.integer(ll(sizeof(tdigest) + tdigest_traits::memory(*d)));
  });
}

using T = tdigest_traits;

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec tdigest_commands[] = {
    {"tdigest.create", td_create, true, insert_key, -2, "Creates an empty t-digest"},
    {"tdigest.reset", qc::reset<T>, true, update_key, 2, "Empties a t-digest"},
    {"tdigest.add", qc::add<T>, true, update_key, -3, "Adds values to a t-digest"},
    {"tdigest.merge", td_merge, true, insert_key, -4, "Merges t-digests into one", 2},
    {"tdigest.min", qc::min_max<T, false>, false, read_key, 2, "The smallest value added"},
    {"tdigest.max", qc::min_max<T, true>, false, read_key, 2, "The largest value added"},
    {"tdigest.quantile", qc::quantile<T>, false, read_key, -3, "Estimated values at quantiles"},
    {"tdigest.cdf", qc::cdf<T>, false, read_key, -3, "Estimated fractions at or below values"},
    {"tdigest.rank", qc::rank<T, false>, false, read_key, -3, "Estimated ranks of values"},
    {"tdigest.revrank", qc::rank<T, true>, false, read_key, -3, "Estimated reverse ranks"},
    {"tdigest.byrank", qc::by_rank<T, false>, false, read_key, -3, "Estimated values at ranks"},
    {"tdigest.byrevrank", qc::by_rank<T, true>, false, read_key, -3, "Values at reverse ranks"},
    {"tdigest.trimmed_mean", qc::trimmed_mean<T>, false, read_key, 4, "Mean between two quantiles"},
    {"tdigest.info", td_info, false, read_key, 2, "The digest's parameters and counts"},
    {"tdigest.scandump", qc::scandump<T>, false, read_key, 3, "One chunk of the digest's dump"},
    {"tdigest.loadchunk", qc::loadchunk<T>, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_tdigest(api::Ctx* ctx) {
  tdigest_type = type_methods<tdigest_traits>::create(ctx);
  if (tdigest_type == nullptr) return false;
  return register_commands(ctx, tdigest_commands, std::size(tdigest_commands));
}

}  // namespace ringbloom::redis
