// redis/commands/topk.cpp: TOPK.* over the library's Top-K (HeavyKeeper),
// with RedisBloom 2.4/2.6's replies and error sentences (src/rm_topk.c); the
// data type is types/topk_type.hpp; docs/redis.md tables them and where we
// differ.
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
#include "ringbloom/sketch/top_k.hpp"
#include "types/sketch_types.hpp"
#include "types/topk_type.hpp"

namespace ringbloom::redis {
namespace {

constexpr const char* topk_too_large = "ERR Insufficient memory to create topk data structure";

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
// (one handler per command: telling them apart by name cost ~140
// instructions of a call's ~2,700).
template <bool incrby>
int topk_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3 || (incrby && (argc < 4 || argc % 2 == 1))) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    key_status status;
    top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    const int step = incrby ? 2 : 1;
    // The reply's length is known before any add: the items up to the
    // first bad increment, and that refusal. (A postponed array length cost
    // the server a deferred-length node and a reallocation: about 1,000
    // instructions per TOPK.ADD, more than the add itself.)
    const auto increment = [&](int i, long long& n) {
      n = 1;
      return !incrby || (c.to_long(i + 1, n) && n >= 0 && n <= 100000);
    };
    int stop = argc;  // the first item whose increment is refused
    long long n = 1;
    for (int i = 2; incrby && i < argc; i += step) {
      if (!increment(i, n)) {
        stop = i;
        break;
      }
    }
    c.array((stop - 2) / step + (stop < argc ? 1 : 0));
    for (int i = 2; i < stop; i += step) {
      (void)increment(i, n);
      if (n == 0) {
        c.null();
      } else {
        reply_expelled(c, t->add(c.arg(i), static_cast<std::uint32_t>(n)));
      }
    }
    if (stop < argc) {
      c.error(
          "TopK: increment must be an integer greater or equal to 0"
          "                            and smaller or equal to 100,000");
    }
    c.replicate();
    return api::ok;
  });
}

// TOPK.QUERY / TOPK.COUNT key item...
template <bool count>
int topk_query(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    key_status status;
    const top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    c.array(argc - 2);
    for (int i = 2; i < argc; ++i) {
      if (count) {
        c.integer(t->count(c.arg(i)));
      } else {
        c.boolean(t->query(c.arg(i)));
      }
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
        return c.error(unknown_argument(c, 2, "WITHCOUNT", "WITHCOUNT keyword expected"));
      }
      with_count = true;
    }
    open_key key(c, 1, api::key_read);
    key_status status;
    const top_k* t = complete_value<topk_traits>(key, status);
    if (status != key_status::ok) return c.error(topk_traits::status_error(status));
    if (t == nullptr) return c.error(pending_error);
    const auto leaders = t->list(top_k::ties::by_heap);  // RedisBloom's order
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
    c.pairs(4);
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

const command_spec topk_commands[] = {
    {"topk.reserve", topk_reserve, true, insert_key, -3, "Creates a Top-K sketch"},
    {"topk.add", topk_add<false>, true, update_key, -3,
     "Counts items; replies the ones pushed out"},
    {"topk.incrby", topk_add<true>, true, update_key, -4, "Counts items by increments"},
    {"topk.query", topk_query<false>, false, read_key, -3, "Whether items are in the top k"},
    {"topk.count", topk_query<true>, false, read_key, -3, "Items' estimated counts"},
    {"topk.list", topk_list, false, read_key, -2, "The top k, largest first"},
    {"topk.info", topk_info, false, read_key, 2, "The sketch's parameters"},
    {"topk.scandump", topk_scandump, false, read_key, 3, "One chunk of the sketch's dump"},
    {"topk.loadchunk", topk_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_topk(api::Ctx* ctx) {
  types().topk = type_methods<topk_traits>::create(ctx);
  if (types().topk == nullptr) return false;
  return register_commands(ctx, topk_commands, std::size(topk_commands));
}

}  // namespace ringbloom::redis
