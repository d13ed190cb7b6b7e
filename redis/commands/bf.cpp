// redis/commands/bf.cpp: BF.* -- RedisBloom's Bloom filter commands over
// layered_bloom_filter (the data type "RBloom-BF" is types/bloom_type.cpp).
// Replies and error sentences follow RedisBloom 2.4/2.6
// (src/rebloom.c); docs/redis.md tables them and the few differences.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/bloom.hpp"
#include "ringbloom/filter/layered_bloom.hpp"
#include "types/bloom_type.hpp"
#include "types/windowed_type.hpp"

namespace ringbloom::redis {
namespace {

constexpr std::uint64_t max_expansion = std::numeric_limits<std::uint32_t>::max();

struct bf_options {
  long long capacity;
  double error_rate;
  long long expansion = 2;
  bool autocreate = true;
  bool nonscaling = false;
};

bf_options default_options() {
  return {static_cast<long long>(settings().bf_capacity), settings().bf_error_rate,
          static_cast<long long>(settings().bf_expansion)};
}

layered_bloom_filter* create_chain(open_key& key, const bf_options& o) {
  auto* chain = make<layered_bloom_filter>(static_cast<std::uint64_t>(o.capacity), o.error_rate,
                                           static_cast<std::uint32_t>(o.expansion), o.nonscaling,
                                           settings().max_filter_bytes);
  key.set(types().bloom, chain);
  return chain;
}

/// A command's items and answers: on the stack up to 32 (BF.MADD and
/// BF.MEXISTS of a few items then allocate nothing), on the heap beyond.
template <class T>
class batch {
 public:
  explicit batch(std::size_t n) {
    if (n > local_.size()) heap_ = std::make_unique<T[]>(n);
    data_ = n > local_.size() ? heap_.get() : local_.data();
  }
  [[nodiscard]] std::span<T> first(std::size_t n) noexcept { return {data_, n}; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }

 private:
  std::array<T, 32> local_;  // every element read is written first
  std::unique_ptr<T[]> heap_;
  T* data_;
};

/// A key of another type: a windowed filter's (bf_window.cpp answers the
/// call, once this handler's key is closed), else WRONGTYPE.
int other_type(const call& c, open_key& key) {
  if (!holds_window(key)) return c.error(status_error(key_status::mismatch));
  key.close();
  return window_call(c);
}

const char* add_error(layered_bloom_filter::add_status s) {
  return s == layered_bloom_filter::add_status::full
             ? "ERR non scaling filter is full"
             : "ERR the filter cannot grow: its next layer would pass MAX_FILTER_BYTES or 64 "
               "layers; reserve a larger capacity or raise MAX_FILTER_BYTES";
}

std::string too_large_error() {
  return "ERR Insufficient memory to create filter: it would need more than MAX_FILTER_BYTES (" +
         std::to_string(settings().max_filter_bytes) +
         " bytes); use a smaller capacity or a larger error rate, or load the module with a "
         "larger MAX_FILTER_BYTES";
}

/// BF.ADD, BF.MADD and BF.INSERT after parsing: one answer per item (an
/// array for the multi forms), stopping at the first full answer.
int insert_items(const call& c, int key_index, int first_item, const bf_options& o, bool multi) {
  open_key key(c, key_index, api::key_read | api::key_write);
  const key_status status = key.status(types().bloom);
  layered_bloom_filter* chain = nullptr;
  if (status == key_status::empty && o.autocreate) {
    try {
      chain = create_chain(key, o);
    } catch (const std::length_error&) {
      return c.error(too_large_error());
    }
  } else if (status == key_status::mismatch) {
    return other_type(c, key);
  } else if (status != key_status::ok) {
    return c.error(status_error(status));
  } else {
    chain = key.value<layered_bloom_filter>();
  }

  if (!multi) {  // BF.ADD: one item, no batch buffers
    const auto s = chain->add(c.arg(first_item));
    if (s == layered_bloom_filter::add_status::added ||
        s == layered_bloom_filter::add_status::present) {
      c.boolean(s == layered_bloom_filter::add_status::added);
    } else {
      c.error(add_error(s));
    }
    c.replicate();
    return api::ok;
  }
  const auto n = static_cast<std::size_t>(c.argc - first_item);
  batch<std::string_view> items(n);
  for (std::size_t i = 0; i < n; ++i) items[i] = c.arg(first_item + static_cast<int>(i));
  batch<layered_bloom_filter::add_status> answers(n);
  const std::size_t answered = chain->add_many(items.first(n), answers.first(n));

  c.array(static_cast<long>(answered));
  for (std::size_t i = 0; i < answered; ++i) {
    const auto s = answers[i];
    if (s == layered_bloom_filter::add_status::added ||
        s == layered_bloom_filter::add_status::present) {
      c.boolean(s == layered_bloom_filter::add_status::added);
    } else {
      c.error(add_error(s));
    }
  }
  c.replicate();
  return api::ok;
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
int bf_reserve(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4 || argc > 7) return c.wrong_arity();
    bf_options o = default_options();
    if (!c.to_double(2, o.error_rate)) return c.error("ERR bad error rate");
    if (!(o.error_rate > 0 && o.error_rate < 1)) return c.error("ERR (0 < error rate range < 1) ");
    if (!c.to_long(3, o.capacity)) return c.error("ERR bad capacity");
    if (o.capacity <= 0) return c.error("ERR (capacity should be larger than 0)");
    int ex = -1;
    for (int at = 4; at < argc; ++at) {
      if (c.is(at, "NONSCALING")) {
        o.nonscaling = true;
      } else if (c.is(at, "EXPANSION")) {
        ex = at++;  // its value is read below
      } else {
        return c.error(unknown_argument(c, at, "EXPANSION e and NONSCALING"));
      }
    }
    if (ex != -1 && ex + 1 == argc) return c.error("ERR no expansion");
    if (ex != -1) {
      if (o.nonscaling) return c.error("Nonscaling filters cannot expand");
      if (!c.to_long(ex + 1, o.expansion)) return c.error("ERR bad expansion");
      if (o.expansion < 1) return c.error("ERR expansion should be greater or equal to 1");
      if (static_cast<std::uint64_t>(o.expansion) > max_expansion) {
        return c.error("ERR expansion is too large; the largest is 4294967295");
      }
    }
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(types().bloom);
    if (status != key_status::empty) return c.error(status_error(status));
    try {
      create_chain(key, o);
    } catch (const std::length_error&) {
      return c.error(too_large_error());
    }
    c.ok();
    c.replicate();
    return api::ok;
  });
}

// BF.ADD key item / BF.MADD key item [item ...] (a handler each, as for
// every command below with a multi form: reading the command's name back
// cost ~40 instructions a call)
template <bool multi>
int bf_add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if ((multi && argc < 3) || (!multi && argc != 3)) return c.wrong_arity();
    return insert_items(c, 1, 2, default_options(), multi);
  });
}

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...
int bf_insert(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    bf_options o = default_options();
    int items = -1;
    int pos = 2;
    while (pos < argc && items < 0) {
      if (c.is(pos, "ITEMS")) {
        items = ++pos;
      } else if (c.is(pos, "ERROR")) {
        if (++pos == argc) return c.wrong_arity();
        if (!c.to_double(pos++, o.error_rate)) return c.error("Bad error rate");
      } else if (c.is(pos, "EXPANSION")) {
        if (++pos == argc) return c.wrong_arity();
        if (!c.to_long(pos++, o.expansion)) return c.error("Bad expansion");
      } else if (c.is(pos, "CAPACITY")) {
        if (++pos == argc) return c.wrong_arity();
        if (!c.to_long(pos++, o.capacity)) return c.error("Bad capacity");
      } else if (c.is(pos, "NOCREATE")) {
        o.autocreate = false;
        ++pos;
      } else if (c.is(pos, "NONSCALING")) {
        o.nonscaling = true;
        ++pos;
      } else {
        return c.error(unknown_argument(
            c, pos, "CAPACITY c, ERROR e, EXPANSION x, NOCREATE, NONSCALING and ITEMS item...",
            "Unknown argument received"));
      }
    }
    if (items < 0 || items == argc) return c.wrong_arity();
    if (!(o.error_rate > 0 && o.error_rate < 1) || o.capacity < 1 || o.expansion < 1 ||
        static_cast<std::uint64_t>(o.expansion) > max_expansion) {
      return c.error("Bad argument received");
    }
    return insert_items(c, 1, items, o, true);
  });
}

// BF.EXISTS key item / BF.MEXISTS key item [item ...]
template <bool multi>
int bf_exists(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if ((multi && argc < 3) || (!multi && argc != 3)) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    // As RedisBloom: a missing key, or one of another type, contains nothing.
    const key_status status = key.status(types().bloom);
    if (status == key_status::mismatch && holds_window(key)) return other_type(c, key);
    const layered_bloom_filter* chain =
        status == key_status::ok ? key.value<layered_bloom_filter>() : nullptr;
    const auto n = static_cast<std::size_t>(argc - 2);
    if (!multi) return c.boolean(chain != nullptr && chain->may_contain(c.arg(2)));
    c.array(static_cast<long>(n));
    if (chain == nullptr) {
      for (std::size_t i = 0; i < n; ++i) c.boolean(false);
      return api::ok;
    }
    batch<std::string_view> items(n);
    for (std::size_t i = 0; i < n; ++i) items[i] = c.arg(2 + static_cast<int>(i));
    batch<bool> answers(n);
    chain->may_contain_many(items.first(n), answers.first(n));
    for (std::size_t i = 0; i < n; ++i) c.boolean(answers[i]);
    return api::ok;
  });
}

// BF.INFO's fields in RedisBloom's order: the word that asks for one alone,
// its name in the reply, and its value (none: a null reply).
using info_value = std::optional<std::uint64_t>;
struct bf_info_field {
  const char* keyword;
  const char* name;
  info_value (*value)(const layered_bloom_filter&);
};
const std::array<bf_info_field, 5> bf_info_fields{{
    {"capacity", "Capacity",
     [](const layered_bloom_filter& f) { return info_value(f.capacity()); }},
    {"size", "Size", [](const layered_bloom_filter& f) { return info_value(f.memory_bytes()); }},
    {"filters", "Number of filters",
     [](const layered_bloom_filter& f) { return info_value(f.layer_count()); }},
    {"items", "Number of items inserted",
     [](const layered_bloom_filter& f) { return info_value(f.items()); }},
    {"expansion", "Expansion rate",
     [](const layered_bloom_filter& f) {
       return f.nonscaling() ? std::nullopt : info_value(f.expansion());
     }},
}};

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]
int bf_info(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2 && argc != 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const key_status status = key.status(types().bloom);
    if (status == key_status::mismatch) return other_type(c, key);
    if (status != key_status::ok) return c.error(status_error(status));
    const auto* chain = key.value<layered_bloom_filter>();
    const auto reply = [&](const bf_info_field& field) {
      const info_value v = field.value(*chain);
      return v ? c.integer(static_cast<long long>(*v)) : c.null();
    };
    if (argc == 3) {
      // One field: [value] under RESP2, {name: value} under RESP3 (RedisBloom 2.6).
      for (const bf_info_field& field : bf_info_fields) {
        if (!c.is(2, field.keyword)) continue;
        c.one_field(field.name);
        return reply(field);
      }
      return c.error(unknown_argument(c, 2, "CAPACITY, SIZE, FILTERS, ITEMS or EXPANSION",
                                      "Invalid information value"));
    }
    c.pairs(static_cast<long>(bf_info_fields.size()));
    int rc = api::ok;
    for (const bf_info_field& field : bf_info_fields) {
      c.simple(field.name);
      rc = reply(field);
    }
    return rc;
  });
}

// BF.DEBUG key: RedisBloom's description of the layers, in its format:
// "size:<items>", then per layer its bytes, bits, hashes, hash width (64:
// one 64-bit hash per item), capacity, items and its false-positive rate
// when full (from its kind's exact formula: classic or blocked).
int bf_debug(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const key_status status = key.status(types().bloom);
    if (status == key_status::mismatch) return other_type(c, key);
    if (status != key_status::ok) return c.error(status_error(status));
    const auto* chain = key.value<layered_bloom_filter>();
    c.array(static_cast<long>(1 + chain->layer_count()));
    c.bulk("size:" + std::to_string(chain->items()));
    for (std::size_t i = 0; i < chain->layer_count(); ++i) {
      const auto l = chain->layer(i);
      c.bulk(fmt::format("bytes:{} bits:{} hashes:{} hashwidth:64 capacity:{} size:{} ratio:{:g}",
                         l.bits / 8, l.bits, l.hashes, l.capacity, l.items, l.full_fpr()));
    }
    return api::ok;
  });
}

// BF.CARD key
int bf_card(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const key_status status = key.status(types().bloom);
    if (status == key_status::empty) return c.integer(0);
    if (status == key_status::mismatch) return other_type(c, key);
    if (status != key_status::ok) return c.error(status_error(status));
    return c.integer(static_cast<long long>(key.value<layered_bloom_filter>()->items()));
  });
}

// BF.SCANDUMP key iterator
int bf_scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const key_status status = key.status(types().bloom);
    if (status == key_status::mismatch) return other_type(c, key);
    if (status != key_status::ok) return c.error(status_error(status));
    long long iter = 0;
    if (!c.to_long(2, iter)) return c.error("Second argument must be numeric");
    const auto* chain = key.value<layered_bloom_filter>();
    c.array(2);
    if (iter == 0) {
      c.integer(1);
      return c.bulk(chain->header());
    }
    if (iter < 0) {
      c.integer(0);
      return c.bulk({});
    }
    auto cursor = static_cast<std::uint64_t>(iter);
    const std::string chunk = chain->chunk(cursor);
    c.integer(chunk.empty() ? 0 : static_cast<long long>(cursor));
    return c.bulk(chunk);
  });
}

// BF.LOADCHUNK key iterator data
int bf_loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 4) return c.wrong_arity();
    long long iter = 0;
    if (!c.to_long(2, iter)) return c.error("ERR Second argument must be numeric");
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(types().bloom);
    try {
      if (status == key_status::empty && iter == 1) {
        auto chain = layered_bloom_filter::from_header(c.arg(3), settings().max_filter_bytes);
        key.set(types().bloom, make<layered_bloom_filter>(std::move(chain)));
      } else if (status == key_status::mismatch) {
        return other_type(c, key);
      } else if (status != key_status::ok) {
        return c.error(status_error(status));
      } else {
        key.value<layered_bloom_filter>()->load_chunk(c.arg(3));
      }
    } catch (const data_error& e) {
      // RedisBloom's exact sentence (clients compare it); the reason goes
      // to the server's log at the verbose level.
      api::Log(ctx, "verbose", "ringbloom: BF.LOADCHUNK refused: %s", e.what());
      return c.error("ERR received bad data");
    }
    c.replicate();
    return c.ok();
  });
}

constexpr std::uint64_t read_key = api::key_ro | api::key_access;
constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;
constexpr std::uint64_t update_key = api::key_rw | api::key_update;

const command_spec bloom_commands[] = {
    {"bf.reserve", bf_reserve, true, insert_key, -4, "Creates an empty scalable Bloom filter"},
    {"bf.add", bf_add<false>, true, insert_key, 3, "Adds an item, creating the filter if needed"},
    {"bf.madd", bf_add<true>, true, insert_key, -3, "Adds items, creating the filter if needed"},
    {"bf.insert", bf_insert, true, insert_key, -4, "Adds items with creation options"},
    {"bf.exists", bf_exists<false>, false, read_key, 3, "Whether an item may have been added"},
    {"bf.mexists", bf_exists<true>, false, read_key, -3, "Whether items may have been added"},
    {"bf.info", bf_info, false, read_key, -2, "The filter's parameters and counts"},
    {"bf.debug", bf_debug, false, read_key, 2, "The filter's layers, in RedisBloom's words"},
    {"bf.card", bf_card, false, read_key, 2, "The number of items added"},
    {"bf.scandump", bf_scandump, false, read_key, 3, "One chunk of the filter's dump"},
    {"bf.loadchunk", bf_loadchunk, true, update_key, 4, "Restores one chunk of a dump"},
};

}  // namespace

bool register_bloom(api::Ctx* ctx) {
  types().bloom = create_bloom_type(ctx);
  if (types().bloom == nullptr) return false;
  // Windowed keys and creations with a window go to bf_window.cpp first.
  const auto routed = with_window_routes(bloom_commands, std::size(bloom_commands));
  return register_commands(ctx, routed.data(), routed.size()) && register_window(ctx);
}

}  // namespace ringbloom::redis
