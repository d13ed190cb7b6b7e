// redis/commands/cf.cpp: CF.* over the library's cuckoo filter, with
// RedisBloom 2.4/2.6's replies and error sentences (src/rebloom.c); the data
// type is types/cuckoo_type.hpp; docs/redis.md tables them and where we
// differ.
#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "types/cuckoo_type.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {
namespace {

constexpr const char* cf_too_large = "ERR Insufficient memory to create filter";

/// How many sub-filters of a filter with these parameters fit in
/// MAX_FILTER_BYTES together (0 when not even the first does). The
/// library grows inside add(), at most one sub-filter per item, so the
/// commands stop adding once a filter has this many. The count stops at
/// `enough`.
/// Out of line, so that cf_fitting_subs_again's hit saves no registers for
/// this loop.
[[gnu::noinline]] std::uint64_t cf_fitting_subs(
    std::uint64_t capacity, const cuckoo_filter::options& o,
    std::uint64_t enough = cuckoo_filter::max_sub_filters) {
  const std::uint64_t limit = settings().max_filter_bytes;
  std::uint64_t total = 0;
  std::uint64_t subs = 0;
  while (subs < std::min<std::uint64_t>(enough, cuckoo_filter::max_sub_filters)) {
    const std::uint64_t buckets = cuckoo_filter::sub_filter_buckets(capacity, o, subs);
    if (buckets > limit) break;
    total += cuckoo_filter::sub_filter_bytes(buckets, o) + 3;
    if (total > limit) break;
    ++subs;
    if (o.expansion == 0) break;
  }
  return subs;
}

/// cf_fitting_subs for the last question asked, with the MAX_FILTER_BYTES
/// then in force: CF.ADD asks the same one on every call until its filter
/// grows, and the sum cost about 65 instructions a call (callgrind). The
/// answer depends on the capacity, bucket size, fingerprint width and
/// expansion only. Commands run on the server's main thread.
[[gnu::always_inline]] inline std::uint64_t cf_fitting_subs_again(std::uint64_t capacity,
                                                                  const cuckoo_filter::options& o,
                                                                  std::uint64_t enough) {
  struct question {
    std::uint64_t capacity = 0, limit = 0, enough = 0;
    std::uint32_t bucket_size = 0, fingerprint_bits = 0, expansion = 0;
    bool operator==(const question&) const = default;
  };
  static question last;
  static std::uint64_t answer = 0;
  const question q{capacity,      settings().max_filter_bytes, enough,
                   o.bucket_size, o.fingerprint_bits,          o.expansion};
  if (q.capacity == 0 || !(q == last)) [[unlikely]] {
    answer = cf_fitting_subs(capacity, o, enough);
    last = q;
  }
  return answer;
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
    if (argc < 3) return c.wrong_arity();
    if (argc % 2 == 0) {  // an option without its value; name a word that is no option
      for (int at = 3; at < argc; at += 2) {
        if (!c.is(at, "MAXITERATIONS") && !c.is(at, "BUCKETSIZE") && !c.is(at, "EXPANSION")) {
          return c.error(unknown_argument(c, at, "MAXITERATIONS m, BUCKETSIZE b and EXPANSION e"));
        }
      }
      return c.wrong_arity();
    }
    long long capacity = 0;
    if (!c.to_long(2, capacity)) return c.error("Bad capacity");
    auto max_iterations = static_cast<long long>(settings().cf_max_iterations);
    auto bucket_size = static_cast<long long>(settings().cf_bucket_size);
    auto expansion = static_cast<long long>(settings().cf_expansion);
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
    cuckoo_filter::options opts;  // the configured defaults, as CF.RESERVE's
    opts.bucket_size = static_cast<std::uint32_t>(settings().cf_bucket_size);
    opts.max_kicks = static_cast<std::uint32_t>(settings().cf_max_iterations);
    opts.expansion = static_cast<std::uint32_t>(settings().cf_expansion);
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
  // Only whether one more sub-filter fits matters, so the sum stops there
  // (a CF.ADD used to walk all 64 possible sub-filters: about 850
  // instructions a call), and is taken further when an insert of several
  // items has grown the filter to that count.
  std::uint64_t asked = f->sub_filters().size() + 1;
  std::uint64_t fitting = cf_fitting_subs_again(f->capacity(), f->settings(), asked);
  const auto no_room = [&] {
    const std::uint64_t subs = f->sub_filters().size();
    if (subs >= fitting && fitting == asked) {
      asked = subs + 1;
      fitting = cf_fitting_subs_again(f->capacity(), f->settings(), asked);
    }
    return subs >= fitting;
  };
  const int n = c.argc - first;
  if (o.multi) c.array(n);
  for (int i = 0; i < n; ++i) {
    const std::string_view item = c.arg(first + i);
    int answer = 0;  // 1 inserted, 0 exists, -1 no space
    if (o.nx && f->may_contain(item)) {
      answer = 0;
    } else if (f->sub_filters().size() > max_subs || (f->settings().expansion != 0 && no_room())) {
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
    // As RedisBloom 2.6: a boolean (RESP3) for CF.ADD, CF.ADDNX and
    // CF.INSERT; CF.INSERTNX's 1 / 0 and a full filter's -1 stay integers.
    if (answer != -1 && (!o.nx || !o.multi)) {
      c.boolean(answer == 1);
    } else {
      c.integer(answer);
    }
  }
  c.replicate();
  return api::ok;
}

bool ends_with_x(const call& c) {
  const std::string_view name = c.command();
  return !name.empty() && (name.back() == 'x' || name.back() == 'X');
}

// CF.ADD key item / CF.ADDNX key item. An existing filter takes the item
// here, in cf_insert_items' order of checks and answers without its loop
// and bookkeeping for several items (about 100 instructions a call); a
// missing key (created with the configured defaults), a key of another type
// and a half-restored one go to cf_insert_items.
template <bool nx>
int cf_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    {
      open_key key(c, 1, api::key_read | api::key_write);
      key_status status;
      cuckoo_filter* f = complete_value<cf_traits>(key, status);
      if (f != nullptr) [[likely]] {
        const std::uint64_t subs = f->sub_filters().size();
        if (subs >= settings().cf_max_expansions) return c.error("Maximum expansions reached");
        const std::string_view item = c.arg(2);
        bool added = false;
        if (nx && f->may_contain(item)) {
          added = false;
        } else if (f->settings().expansion != 0 &&
                   subs >= cf_fitting_subs_again(f->capacity(), f->settings(), subs + 1)) {
          c.replicate();  // a growth now could pass MAX_FILTER_BYTES
          return c.error("Filter is full");
        } else {
          try {
            added = f->add(item);
          } catch (const io::memory_error& e) {
            return c.error(std::string("ERR ") + e.what());  // the filter is unchanged
          }
          if (!added) {
            c.replicate();
            return c.error("Filter is full");
          }
        }
        c.boolean(added);
        c.replicate();
        return api::ok;
      }
    }
    cf_insert_options o;
    o.nx = nx;
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
        if (2 * static_cast<long long>(settings().cf_bucket_size) > o.capacity) {
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

// CF.EXISTS / CF.MEXISTS / CF.COUNT key item... (a handler each: reading
// the command's name back cost ~40 instructions a call)
template <bool multi, bool count>
int cf_check(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
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
      if (count) {
        c.integer(answer);
      } else {
        c.boolean(answer != 0);
      }
    }
    return api::ok;
  });
}

// CF.DEL key item. A CF.DEL that finds nothing changes nothing, so, as
// Redis's own commands (an SREM of a missing member), it is neither
// replicated nor signalled as a modification (WATCH, client tracking); a
// removal is both. The key is opened for reading and signalled by hand:
// opened for writing, closing it signals it whatever happened (with the
// replication, about 160 of a no-op CF.DEL's 1,250 instructions).
int cf_del(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    cuckoo_filter* f = complete_value<cf_traits>(key, status);
    if (f == nullptr) return c.error("Not found");
    const bool removed = f->remove(c.arg(2));
    if (removed) {
      api::SignalModifiedKey(ctx, argv[1]);
      c.replicate();
    }
    return c.boolean(removed);
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
    c.pairs(8);
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

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec cf_commands[] = {
    {"cf.reserve", cf_reserve, true, insert_key, -3, "Creates an empty cuckoo filter"},
    {"cf.add", cf_add<false>, true, insert_key, 3, "Adds an item to a cuckoo filter"},
    {"cf.addnx", cf_add<true>, true, insert_key, 3, "Adds an item unless it may be present"},
    {"cf.insert", cf_insert, true, insert_key, -4, "Adds items with creation options"},
    {"cf.insertnx", cf_insert, true, insert_key, -4, "Adds items unless present"},
    {"cf.exists", cf_check<false, false>, false, read_key, 3, "Whether an item may be present"},
    {"cf.mexists", cf_check<true, false>, false, read_key, -3, "Whether items may be present"},
    {"cf.count", cf_check<false, true>, false, read_key, 3, "Copies of an item's fingerprint"},
    {"cf.del", cf_del, true, api::key_rw | api::key_update, 3, "Removes one copy of an item"},
    {"cf.info", cf_info, false, read_key, 2, "The filter's parameters and counts"},
    {"cf.debug", cf_debug, false, read_key, 2, "The filter's shape, in RedisBloom's words"},
    {"cf.compact", cf_compact, true, update_key, 2, "Accepted; leaves the filter as it is"},
    {"cf.scandump", cf_scandump, false, read_key, 3, "One chunk of the filter's dump"},
    {"cf.loadchunk", cf_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_cf(api::Ctx* ctx) {
  types().cuckoo = type_methods<cf_traits>::create(ctx);
  if (types().cuckoo == nullptr) return false;
  return register_commands(ctx, cf_commands, std::size(cf_commands));
}

}  // namespace ringbloom::redis
