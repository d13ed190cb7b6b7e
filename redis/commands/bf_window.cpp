// redis/commands/bf_window.cpp: the BF.* commands on windowed keys, BF.ADDAT
// and BF.LOADWINDOW, and the data type "RBloom-WF" (types/windowed_type.hpp;
// docs/redis.md, "Windowed filters"). The filter is the library's
// windowed_bloom_filter: this file parses, reads the clock, replies and
// replicates.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "module/module_common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/windowed_bloom.hpp"
#include "types/windowed_type.hpp"

namespace ringbloom::redis {
namespace {

/// The key's value: the filter, and what its bit array costs in the
/// server's allocator (for MEMORY USAGE; see storage_bytes).
struct window_value {
  windowed_bloom_filter filter;
  std::size_t storage = 0;
};

api::Type* window_type = nullptr;

// The AOF rewrite writes a value as one BF.LOADWINDOW argument, and a bulk
// argument is at most proto-max-bulk-len (512 MB by default): windowed
// filters stay under 384 MiB of bits, and under MAX_FILTER_BYTES.
constexpr std::uint64_t window_max_bytes = std::uint64_t{384} << 20;

std::uint64_t max_window_bytes() noexcept {
  return std::min(window_max_bytes, settings().max_filter_bytes);
}

// What the server's allocator gives the bit array: the module's allocator
// hook (module.cpp) serves cache-line-aligned storage from RedisModule_TryAlloc
// with 64 + 8 bytes of padding, and the allocator rounds that up to its size
// class; one probe of the same size asks it which class.
std::size_t storage_bytes(const windowed_bloom_filter& f) noexcept {
  const std::size_t bytes = f.memory_bytes() + 64 + sizeof(void*);
  void* p = api::TryAlloc(bytes);
  if (p == nullptr) return bytes;
  const std::size_t usable = api::MallocSize(p);
  api::Free(p);
  return usable;
}

window_value* make_value(windowed_bloom_filter&& f) {
  const std::size_t storage = storage_bytes(f);
  return make<window_value>(window_value{std::move(f), storage});
}

std::string too_large_error() {
  return fmt::format(
      "ERR Insufficient memory to create filter: a windowed filter is at most {} bytes "
      "(MAX_FILTER_BYTES, and 384 MiB so that its AOF form fits one argument); use a smaller "
      "capacity or a larger error rate",
      max_window_bytes());
}

// The time of a command on a time window, in Unix milliseconds: the server's
// clock, read once, but never before the latest time the filter holds (after
// a failover to a server whose clock is behind, or BF.ADDAT times ahead of
// the clock), so that a write is never refused for its time.
long long command_time_ms(const windowed_bloom_filter& f) {
  long long now = api::Milliseconds();
  if (f.items_added() > 0) {
    const double latest = f.latest_time() * 1000.0;
    if (std::isfinite(latest) && std::fabs(latest) < 9.0e18) {
      now = std::max(now, std::llround(latest));
    }
  }
  return now;
}

double seconds(long long ms) noexcept { return static_cast<double>(ms) / 1000.0; }

/// The time a read uses: the command's time (time windows) or 0 (count).
double read_time(const windowed_bloom_filter& f) {
  return f.kind() == window_kind::time ? seconds(command_time_ms(f)) : 0.0;
}

// --- creation options --------------------------------------------------------

struct window_options {
  long long capacity = 0;
  double error_rate = 0;
  window_kind kind = window_kind::time;
  double window_seconds = 0;
  bool window_given = false;
};

constexpr const char* both_windows_error =
    "ERR WINDOW and WINDOWITEMS exclude each other: WINDOW seconds forgets by time, "
    "WINDOWITEMS after capacity more items; give one";
constexpr const char* bad_window_error =
    "ERR bad window: WINDOW takes a number of seconds of at least 0.001 (the server's clock "
    "counts milliseconds), such as 3600";
constexpr const char* no_growth_error =
    "ERR a windowed filter does not grow, it forgets: drop EXPANSION and NONSCALING";

/// Reads WINDOW seconds at `at` (the keyword) into o; an error sentence or
/// nullptr.
const char* read_window(const call& c, int at, window_options& o) {
  if (o.window_given) return both_windows_error;
  if (at + 1 >= c.argc) return bad_window_error;
  double w = 0;
  if (!c.to_double(at + 1, w) || !std::isfinite(w) || w < 0.001) return bad_window_error;
  o.kind = window_kind::time;
  o.window_seconds = w;
  o.window_given = true;
  return nullptr;
}

const char* read_window_items(window_options& o) {
  if (o.window_given) return both_windows_error;
  o.kind = window_kind::count;
  o.window_given = true;
  return nullptr;
}

/// The new filter for `o`, or an error reply's sentence in `error`.
window_value* create(const window_options& o, std::string& error) {
  const auto n = static_cast<std::uint64_t>(o.capacity);
  if (o.error_rate < 1e-12) {
    error = "ERR bad error rate: a windowed filter reaches rates down to 1e-12; pass a larger one";
    return nullptr;
  }
  // Refuse before allocating what would pass the limit: the filter fits when
  // some k reaches the rate with the largest allowed array (the rate falls
  // as super-blocks are added, as the library's sizing search assumes).
  // Sixteen rates, instead of a second sizing search besides the library's.
  const std::uint64_t limit = max_window_bytes() / (windowed_math::superblock_bits / 8);
  const auto g = static_cast<double>(windowed_math::generation_items(n));
  bool fits = false;
  for (std::uint32_t k = 1; k <= 16 && !fits; ++k) {
    fits = windowed_math::fpr(g, limit, k) <= o.error_rate;
  }
  if (!fits) {
    error = too_large_error();
    return nullptr;
  }
  return make_value(o.kind == window_kind::time
                        ? windowed_bloom_filter::for_time(o.window_seconds, n, o.error_rate)
                        : windowed_bloom_filter::for_count(n, o.error_rate));
}

/// The BF.RESERVE that creates the same empty filter, for the replicas when
/// BF.INSERT created it (a double's shortest form reads back exactly).
void replicate_creation(const call& c, const window_options& o) {
  const std::string rate = fmt::format("{}", o.error_rate);
  const std::string capacity = std::to_string(o.capacity);
  if (o.kind == window_kind::time) {
    const std::string w = fmt::format("{}", o.window_seconds);
    api::Replicate(c.ctx, command_name("BF.RESERVE").c_str(), "scccc", c.argv[1], rate.c_str(),
                   capacity.c_str(), "WINDOW", w.c_str());
  } else {
    api::Replicate(c.ctx, command_name("BF.RESERVE").c_str(), "sccc", c.argv[1], rate.c_str(),
                   capacity.c_str(), "WINDOWITEMS");
  }
}

// --- writes ----------------------------------------------------------------------

/// Adds argv[first..] and replies (an array when `multi`): 1 for an item the
/// window had not seen, 0 for one it may have seen. Replicates the write
/// with its time (time windows: BF.ADDAT key ms items) or as BF.MADD (count
/// windows).
int add_items(const call& c, window_value& v, int first, bool multi) {
  auto& f = v.filter;
  const auto n = static_cast<std::size_t>(c.argc - first);
  std::vector<unsigned char> fresh(n);
  long long ms = 0;
  if (f.kind() == window_kind::time) {
    ms = command_time_ms(f);
    const double now = seconds(ms);
    for (std::size_t i = 0; i < n; ++i) {
      fresh[i] = f.test_and_add(c.arg(first + static_cast<int>(i)), now) ? 0 : 1;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      fresh[i] = f.test_and_add(c.arg(first + static_cast<int>(i))) ? 0 : 1;
    }
  }
  if (f.kind() == window_kind::time) {
    api::Replicate(c.ctx, command_name("BF.ADDAT").c_str(), "slv", c.argv[1], ms, c.argv + first,
                   n);
  } else {
    api::Replicate(c.ctx, command_name("BF.MADD").c_str(), "sv", c.argv[1], c.argv + first, n);
  }
  if (!multi) return c.boolean(fresh[0] != 0);
  c.array(static_cast<long>(n));
  for (const unsigned char x : fresh) c.boolean(x != 0);
  return api::ok;
}

// BF.RESERVE key error_rate capacity (WINDOW seconds | WINDOWITEMS)
int window_reserve(const call& c) {
  window_options o;
  if (!c.to_double(2, o.error_rate)) return c.error("ERR bad error rate");
  if (!(o.error_rate > 0 && o.error_rate < 1)) return c.error("ERR (0 < error rate range < 1) ");
  if (!c.to_long(3, o.capacity)) return c.error("ERR bad capacity");
  if (o.capacity <= 0) return c.error("ERR (capacity should be larger than 0)");
  for (int at = 4; at < c.argc; ++at) {
    const char* error = nullptr;
    if (c.is(at, "WINDOW")) {
      error = read_window(c, at++, o);
    } else if (c.is(at, "WINDOWITEMS")) {
      error = read_window_items(o);
    } else if (c.is(at, "EXPANSION") || c.is(at, "NONSCALING")) {
      error = no_growth_error;
    } else {
      return c.error(unknown_argument(c, at, "WINDOW seconds or WINDOWITEMS with a window"));
    }
    if (error != nullptr) return c.error(error);
  }
  open_key key(c, 1, api::key_read | api::key_write);
  const key_status status = key.status(window_type);
  if (status != key_status::empty) return c.error(status_error(status));
  std::string error;
  window_value* v = create(o, error);
  if (v == nullptr) return c.error(error);
  key.set(window_type, v);
  c.replicate();
  return c.ok();
}

// BF.INSERT key [CAPACITY c] [ERROR e] [NOCREATE] [WINDOW s | WINDOWITEMS] ITEMS item...
int window_insert(const call& c) {
  window_options o;
  o.capacity = static_cast<long long>(settings().bf_capacity);
  o.error_rate = settings().bf_error_rate;
  bool autocreate = true;
  int items = -1;
  int pos = 2;
  while (pos < c.argc && items < 0) {
    const char* error = nullptr;
    if (c.is(pos, "ITEMS")) {
      items = ++pos;
    } else if (c.is(pos, "ERROR")) {
      if (++pos == c.argc) return c.wrong_arity();
      if (!c.to_double(pos++, o.error_rate)) return c.error("Bad error rate");
    } else if (c.is(pos, "CAPACITY")) {
      if (++pos == c.argc) return c.wrong_arity();
      if (!c.to_long(pos++, o.capacity)) return c.error("Bad capacity");
    } else if (c.is(pos, "NOCREATE")) {
      autocreate = false;
      ++pos;
    } else if (c.is(pos, "WINDOW")) {
      error = read_window(c, pos, o);
      pos += 2;
    } else if (c.is(pos, "WINDOWITEMS")) {
      error = read_window_items(o);
      ++pos;
    } else if (c.is(pos, "EXPANSION") || c.is(pos, "NONSCALING")) {
      error = no_growth_error;
    } else {
      return c.error(unknown_argument(
          c, pos, "CAPACITY c, ERROR e, NOCREATE, WINDOW s or WINDOWITEMS, and ITEMS item...",
          "Unknown argument received"));
    }
    if (error != nullptr) return c.error(error);
  }
  if (items < 0 || items == c.argc) return c.wrong_arity();
  if (!(o.error_rate > 0 && o.error_rate < 1) || o.capacity < 1) {
    return c.error("Bad argument received");
  }
  open_key key(c, 1, api::key_read | api::key_write);
  const key_status status = key.status(window_type);
  if (status == key_status::ok) return add_items(c, *key.value<window_value>(), items, true);
  if (status != key_status::empty) return c.error(status_error(status));
  if (!autocreate || !o.window_given) return c.error(status_error(status));
  std::string error;
  window_value* v = create(o, error);
  if (v == nullptr) return c.error(error);
  key.set(window_type, v);
  replicate_creation(c, o);
  return add_items(c, *v, items, true);
}

// BF.ADDAT key milliseconds item [item ...]: adds at a given Unix time in
// milliseconds (the replicated form of BF.ADD and BF.MADD on a time window,
// and a replay's command).
int bf_addat(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 4) return c.wrong_arity();
    long long ms = 0;
    if (!c.to_long(2, ms)) {
      return c.error(
          "ERR bad time: BF.ADDAT takes the time in Unix milliseconds, such as 1700000000000");
    }
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(window_type);
    if (status != key_status::ok) return c.error(status_error(status));
    auto& f = key.value<window_value>()->filter;
    if (f.kind() != window_kind::time) {
      return c.error(
          "ERR BF.ADDAT needs a time window: this filter's window counts items; use BF.MADD");
    }
    const double now = seconds(ms);
    const auto n = static_cast<std::size_t>(argc - 3);
    std::vector<unsigned char> fresh(n);
    try {
      // One time for all: the first add refuses a bad time before any change.
      for (std::size_t i = 0; i < n; ++i) {
        fresh[i] = f.test_and_add(c.arg(3 + static_cast<int>(i)), now) ? 0 : 1;
      }
    } catch (const std::invalid_argument& e) {
      return c.error(std::string("ERR ") + e.what());
    }
    c.replicate();
    c.array(static_cast<long>(n));
    for (const unsigned char x : fresh) c.boolean(x != 0);
    return api::ok;
  });
}

// BF.LOADWINDOW key image: a windowed filter from the library's image (the
// AOF rewrite's form; RDB and DUMP use the same bytes).
int bf_loadwindow(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    const key_status status = key.status(window_type);
    if (status != key_status::empty) return c.error(status_error(status));
    const std::string_view image = c.arg(2);
    if (image.size() > max_window_bytes() + 4096) return c.error(too_large_error());
    try {
      key.set(window_type, make_value(windowed_bloom_filter::deserialize(image)));
    } catch (const data_error& e) {
      api::Log(ctx, "verbose", "ringbloom: BF.LOADWINDOW refused: %s", e.what());
      return c.error("ERR received bad data");
    }
    c.replicate();
    return c.ok();
  });
}

// --- reads -------------------------------------------------------------------------

int window_exists(const call& c, const window_value& v, bool multi) {
  const auto& f = v.filter;
  const double now = read_time(f);
  if (!multi) return c.boolean(f.may_contain(c.arg(2), now));
  const auto n = static_cast<std::size_t>(c.argc - 2);
  std::vector<std::string_view> items(n);
  for (std::size_t i = 0; i < n; ++i) items[i] = c.arg(2 + static_cast<int>(i));
  auto answers = std::make_unique<bool[]>(n);
  f.may_contain_many(items, now, {answers.get(), n});
  c.array(static_cast<long>(n));
  for (std::size_t i = 0; i < n; ++i) c.boolean(answers[i]);
  return api::ok;
}

int reply_window(const call& c, const windowed_bloom_filter& f) {
  if (f.kind() == window_kind::time) return api::ReplyWithDouble(c.ctx, f.window());
  return c.integer(static_cast<long long>(f.capacity()));
}

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION | WINDOW]
int window_info(const call& c, const window_value& v) {
  if (c.argc != 2 && c.argc != 3) return c.wrong_arity();
  const auto& f = v.filter;
  const double now = read_time(f);
  const auto items = static_cast<long long>(f.items_in_window(now));
  if (c.argc == 3) {
    const auto one = [&](const char* name, auto reply) {
      c.one_field(name);
      return reply();
    };
    if (c.is(2, "capacity"))
      return one("Capacity", [&] { return c.integer(static_cast<long long>(f.capacity())); });
    if (c.is(2, "size"))
      return one("Size", [&] { return c.integer(static_cast<long long>(f.memory_bytes())); });
    if (c.is(2, "filters")) return one("Number of filters", [&] { return c.integer(1); });
    if (c.is(2, "items")) return one("Number of items inserted", [&] { return c.integer(items); });
    if (c.is(2, "expansion")) return one("Expansion rate", [&] { return c.null(); });
    if (c.is(2, "window")) return one("Window", [&] { return reply_window(c, f); });
    return c.error(unknown_argument(c, 2, "CAPACITY, SIZE, FILTERS, ITEMS, EXPANSION or WINDOW",
                                    "Invalid information value"));
  }
  c.pairs(9);
  c.simple("Capacity");
  c.integer(static_cast<long long>(f.capacity()));
  c.simple("Size");
  c.integer(static_cast<long long>(f.memory_bytes()));
  c.simple("Number of filters");
  c.integer(1);
  c.simple("Number of items inserted");
  c.integer(items);
  c.simple("Expansion rate");
  c.null();
  c.simple("Window type");
  c.simple(f.kind() == window_kind::time ? "time" : "items");
  c.simple("Window");
  reply_window(c, f);
  c.simple("Error rate");
  api::ReplyWithDouble(c.ctx, f.target_fpr());
  c.simple("Expected error rate now");
  return api::ReplyWithDouble(c.ctx, f.expected_fpr(now));
}

// BF.DEBUG key: "size:<items in the window>" and one line on the layout.
int window_debug(const call& c, const window_value& v) {
  if (c.argc != 2) return c.wrong_arity();
  const auto& f = v.filter;
  const double now = read_time(f);
  c.array(2);
  c.bulk("size:" + std::to_string(f.items_in_window(now)));
  return c.bulk(
      fmt::format("window:{}{} generations:{} bytes:{} bits:{} hashes:{} hashwidth:64 capacity:{} "
                  "added:{} overfull:{} ratio:{:g}",
                  f.window(), f.kind() == window_kind::time ? "s" : "items",
                  windowed_bloom_filter::generations, f.memory_bytes(), f.bits(), f.hashes(),
                  f.capacity(), f.items_added(), f.overfull_generations(now), f.expected_fpr(now)));
}

// --- the router ----------------------------------------------------------------------

/// Whether a WINDOW or WINDOWITEMS keyword is among BF.INSERT's options
/// (before ITEMS; option values are skipped).
bool insert_has_window(const call& c) {
  for (int pos = 2; pos < c.argc; ++pos) {
    if (c.is(pos, "ITEMS")) return false;
    if (c.is(pos, "WINDOW") || c.is(pos, "WINDOWITEMS")) return true;
    if (c.is(pos, "ERROR") || c.is(pos, "CAPACITY") || c.is(pos, "EXPANSION")) ++pos;
  }
  return false;
}

const window_value* window_at(const call& c) {
  if (c.argc < 2) return nullptr;
  const open_key key(c, 1, api::key_read);
  return key.status(window_type) == key_status::ok ? key.value<window_value>() : nullptr;
}

/// The refusal of a BF command that does not apply to a windowed filter.
std::string not_for_windows(const call& c) {
  std::string name(c.arg(0));
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return "ERR " + name +
         " does not apply to a windowed filter; copy it with DUMP and RESTORE (its AOF form is "
         "BF.LOADWINDOW)";
}

/// A BF command (`name`, registered lower case) on a windowed key.
int windowed_call(std::string_view name, const call& c) {
  return guarded(c.ctx, [&] {
    const int argc = c.argc;
    if (name == "bf.insert") return window_insert(c);
    const bool multi = name == "bf.madd" || name == "bf.mexists";
    if (name == "bf.add" || name == "bf.madd") {
      if ((multi && argc < 3) || (!multi && argc != 3)) return c.wrong_arity();
      const open_key key(c, 1, api::key_read | api::key_write);
      return add_items(c, *key.value<window_value>(), 2, multi);
    }
    const window_value& v = *window_at(c);
    if (name == "bf.exists" || name == "bf.mexists") {
      if ((multi && argc < 3) || (!multi && argc != 3)) return c.wrong_arity();
      return window_exists(c, v, multi);
    }
    if (name == "bf.info") return window_info(c, v);
    if (name == "bf.card") {
      if (argc != 2) return c.wrong_arity();
      return c.integer(static_cast<long long>(v.filter.items_in_window(read_time(v.filter))));
    }
    if (name == "bf.debug") return window_debug(c, v);
    return c.error(not_for_windows(c));
  });
}

// Creations with a window come here; every other call goes to bf.cpp's
// handler, which opens its key once and hands a windowed key back
// (window_call): a key lookup here first would cost every BF call a
// second lookup (about 650 instructions of ~2,000).
int route(std::string_view name, api::CmdFunc classic, api::Ctx* ctx, api::String** argv,
          int argc) {
  const call c{ctx, argv, argc};
  if (name == "bf.reserve") {
    if (argc >= 5 && (c.find("WINDOW", 4) > 0 || c.find("WINDOWITEMS", 4) > 0)) {
      return guarded(ctx, [&] { return window_reserve(c); });
    }
    return classic(ctx, argv, argc);
  }
  if (name == "bf.insert" && argc >= 4 && insert_has_window(c)) {
    return guarded(ctx, [&] { return window_insert(c); });
  }
  return classic(ctx, argv, argc);
}

constexpr std::size_t max_routes = 16;

struct route_entry {
  const char* name = nullptr;
  api::CmdFunc classic = nullptr;
};
std::array<route_entry, max_routes> routes;

template <std::size_t I>
int routed(api::Ctx* ctx, api::String** argv, int argc) {
  return route(routes[I].name, routes[I].classic, ctx, argv, argc);
}

template <std::size_t... I>
constexpr std::array<api::CmdFunc, sizeof...(I)> make_trampolines(std::index_sequence<I...>) {
  return {routed<I>...};
}
constexpr auto trampolines = make_trampolines(std::make_index_sequence<max_routes>{});

// --- the data type -------------------------------------------------------------------

constexpr int encoding_version = 1;

void* window_rdb_load(api::IO* io, int encver) noexcept {
  if (encver != encoding_version) {
    api::LogIOError(io, "warning", "ringbloom: windowed BF value of unknown encoding version %d",
                    encver);
    return nullptr;
  }
  std::size_t len = 0;
  char* buf = api::LoadStringBuffer(io, &len);
  if (api::IsIOError(io) || buf == nullptr) {
    if (buf != nullptr) api::Free(buf);
    return nullptr;
  }
  try {
    const std::string bytes(buf, len);
    api::Free(buf);
    return make_value(windowed_bloom_filter::deserialize(bytes));
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: refusing a damaged windowed BF value: %s", e.what());
    return nullptr;
  }
}

void window_rdb_save(api::IO* io, void* value) noexcept {
  try {
    const std::string image = static_cast<const window_value*>(value)->filter.serialize();
    api::SaveStringBuffer(io, image.data(), image.size());
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: could not save a windowed BF value: %s", e.what());
  }
}

void window_aof_rewrite(api::IO* io, api::String* key, void* value) noexcept {
  try {
    const std::string image = static_cast<const window_value*>(value)->filter.serialize();
    api::EmitAOF(io, command_name("BF.LOADWINDOW").c_str(), "sb", key, image.data(), image.size());
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: could not rewrite a windowed BF value: %s",
                    e.what());
  }
}

std::size_t window_mem_usage(const void* value) noexcept {
  const auto* v = static_cast<const window_value*>(value);
  return api::MallocSize(const_cast<void*>(value)) + v->storage;
}

void window_digest(api::Digest* digest, void* value) noexcept {
  try {
    const std::string image = static_cast<const window_value*>(value)->filter.serialize();
    api::DigestAddStringBuffer(digest, image.data(), image.size());
  } catch (...) {
    // Out of memory for the copy: the digest then covers nothing of the value.
  }
  api::DigestEndSequence(digest);
}

void window_free(void* value) noexcept { destroy(static_cast<window_value*>(value)); }

std::size_t window_free_effort(api::String* /*key*/, const void* /*value*/) noexcept {
  return 1;  // one array
}

void* window_copy(api::String* /*from*/, api::String* /*to*/, const void* value) noexcept {
  try {
    return make<window_value>(*static_cast<const window_value*>(value));
  } catch (...) {
    return nullptr;  // COPY then fails with an error, the source untouched
  }
}

constexpr std::uint64_t insert_key = api::key_rw | api::key_insert;

const command_spec window_commands[] = {
    {"bf.addat", bf_addat, true, api::key_rw | api::key_update, -4,
     "Adds items to a time-windowed filter at a given Unix time in milliseconds"},
    {"bf.loadwindow", bf_loadwindow, true, insert_key, 3,
     "Restores a windowed filter from its image (the AOF rewrite's form)"},
};

}  // namespace

bool holds_window(const open_key& key) { return key.status(window_type) == key_status::ok; }

int window_call(const call& c) {
  std::string name(c.command());
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return windowed_call(name, c);
}

std::vector<command_spec> with_window_routes(const command_spec* specs, std::size_t count) {
  if (count > max_routes) {
    throw std::length_error("more BF commands than bf_window.cpp's routes; raise max_routes");
  }
  std::vector<command_spec> out(specs, specs + count);
  for (std::size_t i = 0; i < count; ++i) {
    // Only the creations can carry a window; the other commands keep their
    // own handler (the router cost BF.ADD and BF.EXISTS about 55
    // instructions a call, comparing command names).
    const std::string_view name = specs[i].name;
    if (name != "bf.reserve" && name != "bf.insert") continue;
    routes[i] = {specs[i].name, specs[i].handler};
    out[i].handler = trampolines[i];
  }
  return out;
}

bool register_window(api::Ctx* ctx) {
  api::TypeMethods methods;
  methods.rdb_load = window_rdb_load;
  methods.rdb_save = window_rdb_save;
  methods.aof_rewrite = window_aof_rewrite;
  methods.mem_usage = window_mem_usage;
  methods.digest = window_digest;
  methods.free = window_free;
  methods.free_effort = window_free_effort;
  methods.copy = window_copy;
  window_type = api::CreateDataType(ctx, "RBloom-WF", encoding_version, &methods);
  if (window_type == nullptr) return false;
  return register_commands(ctx, window_commands, std::size(window_commands));
}

}  // namespace ringbloom::redis
