// redis/commands/cms.cpp: CMS.* over the library's Count-Min sketch, with
// RedisBloom 2.4/2.6's replies and error sentences (src/rm_cms.c); the data
// type is types/cms_type.hpp; docs/redis.md tables them and where we differ.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "types/cms_type.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {
namespace {

constexpr const char* cms_too_large = "CMS: Insufficient memory to create the key";

// CMS.INITBYDIM key width depth / CMS.INITBYPROB key error probability
int cms_init(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 4) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    if (key.status(types().cms) != key_status::empty) return c.error("CMS: key already exists");
    long long width = 0;
    long long depth = 0;
    if (c.command_is("cms.initbydim")) {
      if (!c.to_long(2, width) || width < 1) return c.error("CMS: invalid width");
      if (!c.to_long(3, depth) || depth < 1) return c.error("CMS: invalid depth");
    } else {
      double error = 0;
      double probability = 0;
      if (!c.to_double(2, error) || !(error > 0 && error < 1)) {
        return c.error("CMS: invalid overestimation value");
      }
      if (!c.to_double(3, probability) || !(probability > 0 && probability < 1)) {
        return c.error("CMS: invalid prob value");
      }
      const auto dims = count_min_sketch::redis_dimensions(error, probability);
      width = dims.first;
      depth = dims.second;
    }
    if (width < 1 || depth < 1 || width > std::numeric_limits<long long>::max() / depth) {
      return c.error("CMS: invalid init arguments");  // RedisBloom 2.6: width x depth overflows
    }
    if (width > static_cast<long long>(count_min_sketch::max_width) ||
        depth > static_cast<long long>(count_min_sketch::max_depth) ||
        static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(depth) * 4 >
            settings().max_filter_bytes) {
      return c.error(
          limit_error(cms_too_large, "Count-Min sketch (at most 2^30 wide and 64 deep)"));
    }
    auto* v = make<value_of<cms_traits>>();
    try {
      v->value.emplace(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(depth));
    } catch (...) {
      destroy(v);
      throw;
    }
    key.set(types().cms, v);
    c.replicate();
    return c.ok();
  });
}

// CMS.INCRBY key item increment [item increment ...]
int cms_incrby(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4 || argc % 2 == 1) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    key_status status;
    count_min_sketch* s = complete_value<cms_traits>(key, status);
    if (status != key_status::ok) return c.error(cms_traits::status_error(status));
    if (s == nullptr) return c.error(pending_error);
    const int pairs = (argc - 2) / 2;
    std::vector<std::uint32_t> increments(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i) {
      long long n = 0;
      if (!c.to_long(3 + 2 * i, n)) return c.error("CMS: Cannot parse number");
      if (n < 0) return c.error("CMS: Number cannot be negative");
      increments[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(
          std::min<long long>(n, std::numeric_limits<std::uint32_t>::max()));
    }
    c.array(pairs);
    for (int i = 0; i < pairs; ++i) {
      const std::uint32_t count =
          s->increment(c.arg(2 + 2 * i), increments[static_cast<std::size_t>(i)]);
      if (count == std::numeric_limits<std::uint32_t>::max()) {
        c.error("CMS: INCRBY overflow");
      } else {
        c.integer(count);
      }
    }
    c.replicate();
    return api::ok;
  });
}

// CMS.QUERY key item...
int cms_query(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const count_min_sketch* s = complete_value<cms_traits>(key, status);
    if (status != key_status::ok) return c.error(cms_traits::status_error(status));
    if (s == nullptr) return c.error(pending_error);
    c.array(argc - 2);
    for (int i = 2; i < argc; ++i) c.integer(s->estimate(c.arg(i)));
    return api::ok;
  });
}

// CMS.MERGE destination numkeys source... [WEIGHTS weight...]
int cms_merge(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    long long keys = 0;
    if (!c.to_long(2, keys) || keys < 1 || keys > argc - 3) return c.error("CMS: invalid numkeys");
    const int weights_at = c.find("WEIGHTS", 3 + static_cast<int>(keys));
    if (weights_at < 0) {
      if (keys != argc - 3) {  // RedisBloom's text, then the word that is neither
        return c.error(unknown_argument(c, 3 + static_cast<int>(keys),
                                        "numkeys source keys, then WEIGHTS and one weight each",
                                        "CMS: wrong number of keys"));
      }
    } else if (weights_at != 3 + keys || argc != 4 + keys * 2) {
      return c.error(fmt::format(
          "CMS: wrong number of keys/weights: {} source keys and {} weights; CMS.MERGE takes "
          "numkeys source keys, then WEIGHTS and one weight each",
          keys, argc - weights_at - 1));
    }
    open_key dest(c, 1, api::key_read | api::key_write);
    key_status status;
    count_min_sketch* d = complete_value<cms_traits>(dest, status);
    if (status != key_status::ok) return c.error(cms_traits::status_error(status));
    if (d == nullptr) return c.error(pending_error);
    std::vector<std::int64_t> weights(static_cast<std::size_t>(keys), 1);
    std::vector<std::unique_ptr<open_key>> sources;
    std::vector<const count_min_sketch*> sketches;
    for (int i = 0; i < keys; ++i) {
      long long w = 1;
      if (weights_at >= 0 && !c.to_long(weights_at + 1 + i, w)) {
        return c.error("CMS: invalid weight value");
      }
      weights[static_cast<std::size_t>(i)] = w;
      // The destination may also be a source: read it through its open key.
      const count_min_sketch* s = nullptr;
      if (c.arg(3 + i) == c.arg(1)) {
        s = d;
      } else {
        sources.push_back(std::make_unique<open_key>(c, 3 + i, api::key_read));
        s = complete_value<cms_traits>(*sources.back(), status);
        if (status != key_status::ok) return c.error(cms_traits::status_error(status));
        if (s == nullptr) return c.error(pending_error);
      }
      if (s->width() != d->width() || s->depth() != d->depth()) {
        return c.error("CMS: width/depth is not equal");
      }
      sketches.push_back(s);
    }
    try {
      *d = count_min_sketch::merged_exact(sketches, weights);
    } catch (const std::overflow_error& e) {
      return c.error(std::string("CMS: MERGE overflow: ") + e.what());  // d unchanged
    }
    c.replicate();
    return c.ok();
  });
}

// CMS.INFO key
int cms_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const count_min_sketch* s = complete_value<cms_traits>(key, status);
    if (status != key_status::ok) return c.error(cms_traits::status_error(status));
    if (s == nullptr) return c.error(pending_error);
    c.pairs(3);
    c.simple("width");
    c.integer(s->width());
    c.simple("depth");
    c.integer(s->depth());
    c.simple("count");
    return c.integer(static_cast<long long>(s->total()));
  });
}

int cms_scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return scandump<cms_traits>(call{ctx, argv, argc}, "CMS: invalid position");
  });
}

int cms_loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return loadchunk<cms_traits>(call{ctx, argv, argc}, "CMS: invalid position",
                                 "CMS: invalid header", "CMS: invalid header",
                                 "CMS: invalid chunk");
  });
}

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec cms_commands[] = {
    {"cms.initbydim", cms_init, true, insert_key, 4, "Creates a Count-Min sketch by size"},
    {"cms.initbyprob", cms_init, true, insert_key, 4, "Creates a Count-Min sketch by error"},
    {"cms.incrby", cms_incrby, true, update_key, -4, "Adds to items' counts"},
    {"cms.query", cms_query, false, read_key, -3, "Items' estimated counts"},
    {"cms.merge", cms_merge, true, update_key, -4, "Weighted sum of sketches into one", 2},
    {"cms.info", cms_info, false, read_key, 2, "The sketch's size and total"},
    {"cms.scandump", cms_scandump, false, read_key, 3, "One chunk of the sketch's dump"},
    {"cms.loadchunk", cms_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_cms(api::Ctx* ctx) {
  types().cms = type_methods<cms_traits>::create(ctx);
  if (types().cms == nullptr) return false;
  return register_commands(ctx, cms_commands, std::size(cms_commands));
}

}  // namespace ringbloom::redis
