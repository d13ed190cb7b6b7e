// redis/commands/cf.cpp: CF.*, CMS.* and TOPK.* over the library's
// cuckoo filter, Count-Min sketch and Top-K, with RedisBloom 2.4/2.6's
// replies and error sentences (src/rebloom.c, src/rm_cms.c,
// src/rm_topk.c); docs/redis.md tables them and where we differ.
#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/memory.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "ringbloom/sketch/top_k.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {
namespace {

// --- traits ------------------------------------------------------------------

struct cf_traits {
  using type = cuckoo_filter;
  static constexpr const char* name = "CF";
  static constexpr const char* type_name = "RBloom-CF";
  static constexpr const char* loadchunk = "CF.LOADCHUNK";
  static api::Type* type_handle() { return types().cuckoo; }
  static std::string image(const type& v) { return serialize_cuckoo(v); }
  static type from_image(std::string_view b) { return deserialize_cuckoo(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& v) { return v.items() == 0; }
  static const char* status_error(key_status s) { return redis::status_error(s); }
};

template <class T>
T sketch_from_image(std::string_view bytes) {
  any_sketch s = deserialize_sketch(bytes);
  if (auto* t = std::get_if<T>(&s)) return std::move(*t);
  throw data_error("the dump holds another kind of sketch");
}

struct cms_traits {
  using type = count_min_sketch;
  static constexpr const char* name = "CMS";
  static constexpr const char* type_name = "RBloomCMS";
  static constexpr const char* loadchunk = "CMS.LOADCHUNK";
  static api::Type* type_handle() { return types().cms; }
  static std::string image(const type& v) { return serialize_sketch(any_sketch(v)); }
  static type from_image(std::string_view b) { return sketch_from_image<type>(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "CMS: key does not exist";
  }
};

struct topk_traits {
  using type = top_k;
  static constexpr const char* name = "TOPK";
  static constexpr const char* type_name = "RBloomTPK";
  static constexpr const char* loadchunk = "TOPK.LOADCHUNK";
  static api::Type* type_handle() { return types().topk; }
  static std::string image(const type& v) { return serialize_sketch(any_sketch(v)); }
  static type from_image(std::string_view b) { return sketch_from_image<type>(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "TopK: key does not exist";
  }
};

/// RedisBloom's refusal `refusal` for a creation too large, then why: `what`
/// would pass MAX_FILTER_BYTES.
std::string limit_error(const char* refusal, const char* what) {
  return std::string(refusal) + ": the " + what + " would need more than MAX_FILTER_BYTES (" +
         std::to_string(settings().max_filter_bytes) +
         " bytes); make it smaller or load the module with a larger MAX_FILTER_BYTES";
}

constexpr const char* cf_too_large = "ERR Insufficient memory to create filter";
constexpr const char* cms_too_large = "CMS: Insufficient memory to create the key";
constexpr const char* topk_too_large = "ERR Insufficient memory to create topk data structure";

// --- CF ----------------------------------------------------------------------

constexpr std::uint32_t cf_default_bucket_size = 2;
constexpr std::uint32_t cf_default_max_iterations = 20;
constexpr std::uint32_t cf_default_expansion = 1;

/// How many sub-filters of a filter with these parameters fit in
/// MAX_FILTER_BYTES together (0 when not even the first does). The
/// library grows inside add(), at most one sub-filter per item, so the
/// commands stop adding once a filter has this many.
std::uint64_t cf_fitting_subs(std::uint64_t capacity, const cuckoo_filter::options& o) {
  const std::uint64_t limit = settings().max_filter_bytes;
  std::uint64_t buckets = std::max<std::uint64_t>(1, std::bit_ceil(capacity / o.bucket_size));
  const std::uint64_t growth = o.expansion == 0 ? 0 : std::bit_ceil(std::uint64_t{o.expansion});
  std::uint64_t total = 0;
  std::uint64_t subs = 0;
  while (subs < cuckoo_filter::max_sub_filters && buckets <= limit) {
    total += (buckets * o.bucket_size * o.fingerprint_bits + 7) / 8 + 3;
    if (total > limit) break;
    ++subs;
    if (growth == 0) break;
    buckets *= growth;
  }
  return subs;
}

value_of<cf_traits>* cf_create(open_key& key, std::uint64_t capacity,
                               const cuckoo_filter::options& o) {
  auto* v = make<value_of<cf_traits>>();
  try {
    v->value.emplace(capacity, o);
  } catch (...) {
    destroy(v);
    throw;
  }
  key.set(types().cuckoo, v);
  return v;
}

/// One numeric option of CF.RESERVE, as RedisBloom reads it: the value
/// must parse ("Couldn't parse NAME") and lie in [low, high] (RedisBloom's
/// range sentence).
struct cf_option {
  const char* name;
  long long low;
  long long high;
  long long* value;
};

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
int cf_reserve(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3 || argc % 2 == 0) return c.wrong_arity();
    long long capacity = 0;
    if (!c.to_long(2, capacity)) return c.error("Bad capacity");
    long long max_iterations = cf_default_max_iterations;
    long long bucket_size = cf_default_bucket_size;
    long long expansion = cf_default_expansion;
    const cf_option options[] = {{"MAXITERATIONS", 1, 65535, &max_iterations},
                                 {"BUCKETSIZE", 1, 255, &bucket_size},
                                 {"EXPANSION", 0, 32768, &expansion}};
    for (int at = 3; at < argc; at += 2) {
      const cf_option* o = nullptr;
      for (const cf_option& candidate : options) {
        if (c.is(at, candidate.name)) o = &candidate;
      }
      if (o == nullptr) {
        return c.error(unknown_argument(c, at, "MAXITERATIONS m, BUCKETSIZE b and EXPANSION e"));
      }
      if (!c.to_long(at + 1, *o->value)) return c.error(std::string("Couldn't parse ") + o->name);
      if (*o->value < o->low || *o->value > o->high) {
        return c.error(std::string(o->name) + ": value must be an integer between " +
                       std::to_string(o->low) + " and " + std::to_string(o->high) + ", inclusive.");
      }
    }
    if (bucket_size * 2 > capacity) return c.error("Capacity must be at least (BucketSize * 2)");
    if (bucket_size != 2 && bucket_size != 4) {
      return c.error("ERR ringbloom's cuckoo filter takes BUCKETSIZE 2 or 4");
    }
    cuckoo_filter::options o;
    o.bucket_size = static_cast<std::uint32_t>(bucket_size);
    o.max_kicks = static_cast<std::uint32_t>(max_iterations);
    o.expansion = static_cast<std::uint32_t>(expansion);
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(types().cuckoo);
    if (status != key_status::empty) return c.error(status_error(status));
    if (cf_fitting_subs(static_cast<std::uint64_t>(capacity), o) == 0) {
      return c.error(limit_error(cf_too_large, "cuckoo filter"));
    }
    cf_create(key, static_cast<std::uint64_t>(capacity), o);
    c.replicate();
    return c.ok();
  });
}

struct cf_insert_options {
  bool nx = false;
  bool autocreate = true;
  bool multi = false;
  long long capacity = 0;
};

int cf_insert_items(const call& c, int first, const cf_insert_options& o) {
  open_key key(c, 1, api::key_read | api::key_write);
  key_status status;
  cuckoo_filter* f = complete_value<cf_traits>(key, status);
  if (status == key_status::empty && o.autocreate) {
    cuckoo_filter::options opts;
    if (cf_fitting_subs(static_cast<std::uint64_t>(o.capacity), opts) == 0) {
      return c.error(limit_error(cf_too_large, "cuckoo filter"));
    }
    f = &*cf_create(key, static_cast<std::uint64_t>(o.capacity), opts)->value;
  } else if (status != key_status::ok) {
    return c.error(status_error(status));
  } else if (f == nullptr) {
    return c.error(pending_error);
  }
  const std::uint64_t max_subs = settings().cf_max_expansions;
  if (f->sub_filters().size() >= max_subs) return c.error("Maximum expansions reached");
  const std::uint64_t fitting = cf_fitting_subs(f->capacity(), f->settings());
  const int n = c.argc - first;
  if (o.multi) c.array(n);
  for (int i = 0; i < n; ++i) {
    const std::string_view item = c.arg(first + i);
    int answer = 0;  // 1 inserted, 0 exists, -1 no space
    if (o.nx && f->may_contain(item)) {
      answer = 0;
    } else if (f->sub_filters().size() > max_subs ||
               (f->settings().expansion != 0 && f->sub_filters().size() >= fitting)) {
      answer = -1;  // a growth now could pass CF_MAX_EXPANSIONS or MAX_FILTER_BYTES
    } else {
      try {
        answer = f->add(item) ? 1 : -1;
      } catch (const io::memory_error& e) {
        // The library refused a growth this server cannot hold before
        // allocating it; the filter is unchanged, so nothing is replicated
        // for a single item.
        if (!o.multi) return c.error(std::string("ERR ") + e.what());
        answer = -1;
      }
    }
    if (answer == -1 && !o.multi) {
      c.replicate();
      return c.error("Filter is full");
    }
    c.integer(answer);
  }
  c.replicate();
  return api::ok;
}

bool ends_with_x(const call& c) {
  const std::string_view name = c.arg(0);
  return !name.empty() && (name.back() == 'x' || name.back() == 'X');
}

// CF.ADD key item / CF.ADDNX key item
int cf_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    cf_insert_options o;
    o.nx = ends_with_x(c);
    o.capacity = static_cast<long long>(settings().cf_capacity);
    return cf_insert_items(c, 2, o);
  });
}

// CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item...
int cf_insert(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    cf_insert_options o;
    o.nx = ends_with_x(c);
    o.multi = true;
    o.capacity = static_cast<long long>(settings().cf_capacity);
    int pos = 2;
    int items = -1;
    while (pos < argc && items < 0) {
      if (c.is(pos, "CAPACITY")) {
        if (++pos == argc) return c.wrong_arity();
        if (!c.to_long(pos++, o.capacity)) return c.error("Bad capacity");
        if (2 * static_cast<long long>(cf_default_bucket_size) > o.capacity) {
          return c.error("Capacity must be at least (BucketSize * 2)");
        }
      } else if (c.is(pos, "ITEMS")) {
        items = ++pos;
      } else if (c.is(pos, "NOCREATE")) {
        o.autocreate = false;
        ++pos;
      } else {
        return c.error(unknown_argument(c, pos, "CAPACITY c, NOCREATE and ITEMS item...",
                                        "Unknown argument received"));
      }
    }
    if (items < 0 || items == argc) return c.wrong_arity();
    return cf_insert_items(c, items, o);
  });
}

// CF.EXISTS / CF.MEXISTS / CF.COUNT key item...
int cf_check(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    const std::string_view name = c.arg(0);
    const bool multi = name.size() > 3 && (name[3] == 'm' || name[3] == 'M');
    const bool count = !name.empty() && (name.back() == 't' || name.back() == 'T');
    if ((!multi && argc != 3) || (multi && argc < 3)) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (multi) c.array(argc - 2);
    for (int i = 2; i < argc; ++i) {
      long long answer = 0;
      if (f != nullptr) {
        answer =
            count ? static_cast<long long>(f->count(c.arg(i))) : (f->may_contain(c.arg(i)) ? 1 : 0);
      }
      c.integer(answer);
    }
    return api::ok;
  });
}

// CF.DEL key item
int cf_del(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    key_status status;
    cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (f == nullptr) return c.error("Not found");
    c.replicate();
    return c.integer(f->remove(c.arg(2)) ? 1 : 0);
  });
}

// CF.INFO key
int cf_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (status != key_status::ok) return c.error(status_error(status));
    if (f == nullptr) return c.error(pending_error);
    c.array(16);
    c.simple("Size");
    c.integer(static_cast<long long>(f->memory_bytes()));
    c.simple("Number of buckets");
    c.integer(static_cast<long long>(f->sub_filters().front().buckets));
    c.simple("Number of filters");
    c.integer(static_cast<long long>(f->sub_filters().size()));
    c.simple("Number of items inserted");
    c.integer(static_cast<long long>(f->items()));
    c.simple("Number of items deleted");
    c.integer(static_cast<long long>(f->deletes()));
    c.simple("Bucket size");
    c.integer(f->settings().bucket_size);
    c.simple("Expansion rate");
    c.integer(f->settings().expansion);
    c.simple("Max iterations");
    return c.integer(f->settings().max_kicks);
  });
}

// CF.DEBUG key: RedisBloom's one-line summary of the filter's shape.
int cf_debug(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (status != key_status::ok) return c.error(status_error(status));
    if (f == nullptr) return c.error(pending_error);
    const auto& o = f->settings();
    return c.bulk("bktsize:" + std::to_string(o.bucket_size) +
                  " buckets:" + std::to_string(f->sub_filters().front().buckets) + " items:" +
                  std::to_string(f->items()) + " deletes:" + std::to_string(f->deletes()) +
                  " filters:" + std::to_string(f->sub_filters().size()) + " max_iterations:" +
                  std::to_string(o.max_kicks) + " expansion:" + std::to_string(o.expansion));
  });
}

// CF.COMPACT key: accepted for RedisBloom's scripts. The library's filter
// does not move fingerprints between sub-filters, so the filter is left as
// it is (every answer stays the same, as after RedisBloom's compaction).
int cf_compact(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    key_status status;
    const cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (f == nullptr) return c.error("Cuckoo filter was not found");
    c.replicate();
    return c.ok();
  });
}

int cf_scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return scandump<cf_traits>(call{ctx, argv, argc}, "Invalid position");
  });
}

int cf_loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return loadchunk<cf_traits>(call{ctx, argv, argc}, "Invalid position", "Invalid header",
                                "Couldn't create filter!", "Couldn't load chunk!");
  });
}

// --- CMS ---------------------------------------------------------------------

// CMS.INITBYDIM key width depth / CMS.INITBYPROB key error probability
int cms_init(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 4) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    if (key.status(types().cms) != key_status::empty) return c.error("CMS: key already exists");
    long long width = 0;
    long long depth = 0;
    if (c.is(0, "cms.initbydim")) {
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
      if (keys != argc - 3) return c.error("CMS: wrong number of keys");
    } else if (weights_at != 3 + keys || argc != 4 + keys * 2) {
      return c.error("CMS: wrong number of keys/weights");
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
    c.array(6);
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

// --- TOPK --------------------------------------------------------------------

// TOPK.RESERVE key topk [width depth decay]
int topk_reserve(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3 && argc != 6) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    if (key.status(types().topk) != key_status::empty) return c.error("TopK: key already exists");
    long long k = 0;
    long long width = top_k::default_width;
    long long depth = top_k::default_depth;
    double decay = top_k::default_decay;
    const auto u32 = static_cast<long long>(std::numeric_limits<std::uint32_t>::max());
    if (!c.to_long(2, k) || k < 1 || k > u32) return c.error("TopK: invalid k");
    if (argc == 6) {
      if (!c.to_long(3, width) || width < 1 || width > u32) return c.error("TopK: invalid width");
      if (!c.to_long(4, depth) || depth < 1 || depth > u32) return c.error("TopK: invalid depth");
      if (!c.to_double(5, decay) || !(decay > 0 && decay <= 1)) {
        return c.error("TopK: invalid decay value. must be '<= 1' & '> 0'");
      }
    }
    if (k > top_k::max_k || depth > top_k::max_depth ||
        static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(depth) * 8 >
            settings().max_filter_bytes) {
      return c.error(std::string(topk_too_large) +
                     ": k must be at most 100000, depth at most 64, and width x depth x 8 "
                     "bytes within MAX_FILTER_BYTES (" +
                     std::to_string(settings().max_filter_bytes) + ")");
    }
    auto* v = make<value_of<topk_traits>>();
    try {
      v->value.emplace(static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(width),
                       static_cast<std::uint32_t>(depth), decay);
    } catch (const std::invalid_argument& e) {
      destroy(v);
      return c.error(std::string("TopK: ") + e.what());
    } catch (...) {
      destroy(v);
      throw;
    }
    key.set(types().topk, v);
    c.replicate();
    return c.ok();
  });
}

void reply_expelled(const call& c, const std::optional<std::string>& expelled) {
  if (expelled) {
    c.bulk(*expelled);
  } else {
    c.null();
  }
}

// TOPK.ADD key item... / TOPK.INCRBY key item increment [item increment ...]
int topk_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    const bool incrby = c.is(0, "topk.incrby");
    if (argc < 3 || (incrby && (argc < 4 || argc % 2 == 1))) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    key_status status;
    top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    const int step = incrby ? 2 : 1;
    c.array(api::postponed_len);
    long replies = 0;
    for (int i = 2; i < argc; i += step) {
      long long n = 1;
      if (incrby && (!c.to_long(i + 1, n) || n < 0 || n > 100000)) {
        c.error(
            "TopK: increment must be an integer greater or equal to 0"
            "                            and smaller or equal to 100,000");
        ++replies;
        break;
      }
      if (n == 0) {
        c.null();
      } else {
        reply_expelled(c, t->add(c.arg(i), static_cast<std::uint32_t>(n)));
      }
      ++replies;
    }
    api::ReplySetArrayLength(ctx, replies);
    c.replicate();
    return api::ok;
  });
}

// TOPK.QUERY / TOPK.COUNT key item...
int topk_query(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    const bool count = c.is(0, "topk.count");
    open_key key(c, 1, api::key_read);
    key_status status;
    const top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    c.array(argc - 2);
    for (int i = 2; i < argc; ++i) {
      c.integer(count ? t->count(c.arg(i)) : (t->query(c.arg(i)) ? 1 : 0));
    }
    return api::ok;
  });
}

// TOPK.LIST key [WITHCOUNT]
int topk_list(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2 && argc != 3) return c.wrong_arity();
    bool with_count = false;
    if (argc == 3) {
      // As RedisBloom: any case-insensitive prefix of WITHCOUNT.
      const std::string_view word = c.arg(2);
      constexpr std::string_view keyword = "WITHCOUNT";
      if (word.size() > keyword.size() ||
          !std::equal(word.begin(), word.end(), keyword.begin(), [](char a, char b) {
            return std::toupper(static_cast<unsigned char>(a)) == b;
          })) {
        return c.error("WITHCOUNT keyword expected");
      }
      with_count = true;
    }
    open_key key(c, 1, api::key_read);
    key_status status;
    const top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    const auto leaders = t->list();
    c.array(static_cast<long>(leaders.size() * (with_count ? 2 : 1)));
    for (const auto& e : leaders) {
      c.bulk(e.item);
      if (with_count) c.integer(e.count);
    }
    return api::ok;
  });
}

// TOPK.INFO key
int topk_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    c.array(8);
    c.simple("k");
    c.integer(t->k());
    c.simple("width");
    c.integer(t->width());
    c.simple("depth");
    c.integer(t->depth());
    c.simple("decay");
    return api::ReplyWithDouble(ctx, t->decay());
  });
}

int topk_scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return scandump<topk_traits>(call{ctx, argv, argc}, "TopK: invalid position");
  });
}

int topk_loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    return loadchunk<topk_traits>(call{ctx, argv, argc}, "TopK: invalid position",
                                  "TopK: invalid header", "TopK: invalid header",
                                  "TopK: invalid chunk");
  });
}

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec sketch_commands[] = {
    {"cf.reserve", cf_reserve, true, insert_key, -3, "Creates an empty cuckoo filter"},
    {"cf.add", cf_add, true, insert_key, 3, "Adds an item to a cuckoo filter"},
    {"cf.addnx", cf_add, true, insert_key, 3, "Adds an item unless it may be present"},
    {"cf.insert", cf_insert, true, insert_key, -4, "Adds items with creation options"},
    {"cf.insertnx", cf_insert, true, insert_key, -4, "Adds items unless present"},
    {"cf.exists", cf_check, false, read_key, 3, "Whether an item may be present"},
    {"cf.mexists", cf_check, false, read_key, -3, "Whether items may be present"},
    {"cf.count", cf_check, false, read_key, 3, "Copies of an item's fingerprint"},
    {"cf.del", cf_del, true, api::key_rw | api::key_update, 3, "Removes one copy of an item"},
    {"cf.info", cf_info, false, read_key, 2, "The filter's parameters and counts"},
    {"cf.debug", cf_debug, false, read_key, 2, "The filter's shape, in RedisBloom's words"},
    {"cf.compact", cf_compact, true, update_key, 2, "Accepted; leaves the filter as it is"},
    {"cf.scandump", cf_scandump, false, read_key, 3, "One chunk of the filter's dump"},
    {"cf.loadchunk", cf_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
    {"cms.initbydim", cms_init, true, insert_key, 4, "Creates a Count-Min sketch by size"},
    {"cms.initbyprob", cms_init, true, insert_key, 4, "Creates a Count-Min sketch by error"},
    {"cms.incrby", cms_incrby, true, update_key, -4, "Adds to items' counts"},
    {"cms.query", cms_query, false, read_key, -3, "Items' estimated counts"},
    {"cms.merge", cms_merge, true, update_key, -4, "Weighted sum of sketches into one", 2},
    {"cms.info", cms_info, false, read_key, 2, "The sketch's size and total"},
    {"cms.scandump", cms_scandump, false, read_key, 3, "One chunk of the sketch's dump"},
    {"cms.loadchunk", cms_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
    {"topk.reserve", topk_reserve, true, insert_key, -3, "Creates a Top-K sketch"},
    {"topk.add", topk_add, true, update_key, -3, "Counts items; replies the ones pushed out"},
    {"topk.incrby", topk_add, true, update_key, -4, "Counts items by increments"},
    {"topk.query", topk_query, false, read_key, -3, "Whether items are in the top k"},
    {"topk.count", topk_query, false, read_key, -3, "Items' estimated counts"},
    {"topk.list", topk_list, false, read_key, -2, "The top k, largest first"},
    {"topk.info", topk_info, false, read_key, 2, "The sketch's parameters"},
    {"topk.scandump", topk_scandump, false, read_key, 3, "One chunk of the sketch's dump"},
    {"topk.loadchunk", topk_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_sketches(api::Ctx* ctx) {
  types().cuckoo = type_methods<cf_traits>::create(ctx);
  types().cms = type_methods<cms_traits>::create(ctx);
  types().topk = type_methods<topk_traits>::create(ctx);
  if (types().cuckoo == nullptr || types().cms == nullptr || types().topk == nullptr) return false;
  return register_commands(ctx, sketch_commands, std::size(sketch_commands));
}

}  // namespace ringbloom::redis
