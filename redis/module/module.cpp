// redis/module/module.cpp: RedisModule_OnLoad, the one symbol ringbloom.so exports.
//
// Load: redis-server --loadmodule ringbloom.so [ERROR_RATE p] [INITIAL_SIZE n]
//       [CF_MAX_EXPANSIONS n] [MAX_FILTER_BYTES bytes]
// (docs/redis.md). OnLoad fetches the API, routes the library's storage (the
// arrays of every filter and sketch, through ringbloom/allocator_hook.hpp) to
// RedisModule_TryAlloc, so that used_memory and maxmemory see every value,
// declares that our RDB loading handles I/O errors and async replica
// loading, then creates the data types and the commands.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "module/module_api.hpp"
#include "module/module_common.hpp"
#include "ringbloom/allocator_hook.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/layered_bloom.hpp"
#include "types/tdigest_type.hpp"

namespace ringbloom::redis {

module_settings& settings() noexcept {
  static module_settings s;
  return s;
}

module_types& types() noexcept {
  static module_types t;
  return t;
}

bool call::is(int i, std::string_view word) const {
  const std::string_view a = arg(i);
  return a.size() == word.size() &&
         std::equal(a.begin(), a.end(), word.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

int call::find(std::string_view word, int from) const {
  for (int i = from; i < argc; ++i) {
    if (is(i, word)) return i;
  }
  return -1;
}

std::string unknown_argument(const call& c, int at, std::string_view accepted,
                             std::string_view refusal) {
  std::string name(c.arg(0));
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return std::string(refusal) + ": '" + printable(c.arg(at)) + "'; " + name + " takes " +
         std::string(accepted);
}

const char* status_error(key_status status) noexcept {
  switch (status) {
    case key_status::empty:
      return "ERR not found";
    case key_status::mismatch:
      return api::wrongtype_error;
    case key_status::ok:
      return "ERR item exists";
  }
  return "ERR internal error";
}

void* module_alloc(std::size_t bytes) {
  void* p = api::TryAlloc != nullptr ? api::TryAlloc(bytes) : ::operator new(bytes, std::nothrow);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void module_free(void* p) noexcept {
  if (p == nullptr) return;
  if (api::Free != nullptr) {
    api::Free(p);
  } else {
    ::operator delete(p);
  }
}

namespace {

// The library's arrays through RedisModule_TryAlloc. Redis's allocator
// aligns to 16 bytes; the blocked filter wants its 512-bit blocks on cache
// lines, so we over-allocate and keep the allocator's pointer just before
// the aligned block. Alignments above a cache line (the library asks 2 MiB
// for huge arrays, to advise huge pages) are served at 64 bytes: Redis
// recommends transparent huge pages off, and 2 MiB of padding would be
// counted in used_memory. Alignments Redis's allocator already gives (up to
// that of std::max_align_t: a sketch's counters, a cuckoo filter's bytes)
// are passed straight through.
constexpr std::size_t served_alignment = 64;

bool served_directly(std::size_t alignment) noexcept {
  return alignment <= alignof(std::max_align_t);
}

void* hook_allocate(std::size_t bytes, std::size_t alignment) {
  if (served_directly(alignment)) return module_alloc(bytes);
  const std::size_t align = std::min(alignment, served_alignment);
  const std::size_t extra = align + sizeof(void*);
  if (bytes > static_cast<std::size_t>(-1) - extra) throw std::bad_alloc();
  void* raw = module_alloc(bytes + extra);
  auto start = reinterpret_cast<std::uintptr_t>(raw) + sizeof(void*);
  start = (start + align - 1) & ~(std::uintptr_t{align} - 1);
  void* aligned = reinterpret_cast<void*>(start);
  std::memcpy(static_cast<char*>(aligned) - sizeof(void*), &raw, sizeof(void*));
  return aligned;
}

void hook_deallocate(void* p, std::size_t /*bytes*/, std::size_t alignment) noexcept {
  if (p == nullptr) return;
  if (served_directly(alignment)) {
    module_free(p);
    return;
  }
  void* raw = nullptr;
  std::memcpy(&raw, static_cast<char*>(p) - sizeof(void*), sizeof(void*));
  module_free(raw);
}

constexpr allocator_hook redis_storage{hook_allocate, hook_deallocate};

// jemalloc's size classes (Redis's allocator; jemalloc 5, 16-byte quantum):
// 8, then multiples of 16 up to 128, then four classes per doubling,
// (2^g, 2^(g+1)] in steps of 2^(g-2): ..., 1 MiB, 1.25, 1.5, 1.75, 2 MiB.
std::uint64_t jemalloc_class(std::uint64_t bytes) noexcept {
  if (bytes <= 8) return 8;
  if (bytes <= 128) return (bytes + 15) / 16 * 16;
  const auto group = std::bit_width(bytes - 1) - 1;  // 2^group < bytes <= 2^(group+1)
  const std::uint64_t step = std::uint64_t{1} << (group - 2);
  return (bytes + step - 1) / step * step;
}

// A layer's words of `bytes` cost hook_allocate's padding too (they ask a
// cache line): the largest multiple of 64 that costs the same class.
std::uint64_t words_in_class(std::uint64_t bytes) noexcept {
  constexpr std::uint64_t padding = served_alignment + sizeof(void*);
  if (bytes > (std::uint64_t{1} << 50)) return bytes;
  return std::max(bytes, (jemalloc_class(bytes + padding) - padding) / 64 * 64);
}

// Layers grow to jemalloc's size classes (Redis's default allocator) on
// every server, whatever it was built with: a layer's size is a function of
// (capacity, rate) alone, so a master and its replicas, which both run the
// BF commands, size every layer alike and their values stay identical (DEBUG
// DIGEST-VALUE agrees). Where the allocator is not jemalloc's (libc malloc,
// or a sanitizer runtime preloaded), RedisModule_MallocSize shows it at
// load; the log says so, since the growth then buys bits without saving
// rounding there.
void install_size_classes(api::Ctx* ctx) {
  layered_bloom_filter::set_size_class(words_in_class);
  for (const std::size_t bytes :
       {std::size_t{100}, std::size_t{5000}, std::size_t{40000}, std::size_t{1300000}}) {
    void* p = api::TryAlloc(bytes);
    if (p == nullptr) return;
    const std::size_t usable = api::MallocSize(p);
    api::Free(p);
    if (usable != jemalloc_class(bytes)) {
      api::Log(ctx, "notice",
               "ringbloom: the server's allocator is not jemalloc's size classes; Bloom layers "
               "still fill jemalloc's classes, so that every server sizes them alike");
      return;
    }
  }
}

bool parse_settings(api::Ctx* ctx, api::String** argv, int argc) {
  const call c{ctx, argv, argc};
  if (argc % 2 != 0) {
    api::Log(ctx, "warning",
             "ringbloom: module arguments come in pairs, NAME value; see docs/redis.md");
    return false;
  }
  for (int i = 0; i < argc; i += 2) {
    long long n = 0;
    double d = 0;
    if (c.is(i, "ERROR_RATE") && c.to_double(i + 1, d) && d > 0 && d < 1) {
      settings().bf_error_rate = d;
    } else if (c.is(i, "INITIAL_SIZE") && c.to_long(i + 1, n) && n > 0) {
      settings().bf_capacity = static_cast<std::uint64_t>(n);
    } else if (c.is(i, "CF_MAX_EXPANSIONS") && c.to_long(i + 1, n) && n >= 1) {
      settings().cf_max_expansions = static_cast<std::uint64_t>(n);
    } else if (c.is(i, "MAX_FILTER_BYTES") && c.to_long(i + 1, n) && n >= 4096) {
      settings().max_filter_bytes = static_cast<std::uint64_t>(n);
    } else {
      const std::string name(c.arg(i));
      api::Log(ctx, "warning",
               "ringbloom: bad module argument '%s': expected ERROR_RATE in (0, 1), "
               "INITIAL_SIZE >= 1, CF_MAX_EXPANSIONS >= 1 or MAX_FILTER_BYTES >= 4096",
               name.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

bool register_commands(api::Ctx* ctx, const command_spec* specs, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const command_spec& s = specs[i];
    if (api::CreateCommand(ctx, s.name, s.handler, s.write ? "write deny-oom" : "readonly fast", 1,
                           1, 1) != api::ok) {
      api::Log(ctx, "warning", "ringbloom: the server refused the command %s", s.name);
      return false;
    }
    api::KeySpec keys[3]{};
    keys[0].flags = s.key_flags;
    keys[0].begin_search_type = api::begin_search_index;
    keys[0].bs.index.pos = 1;
    keys[0].find_keys_type = api::find_keys_range;
    keys[0].fk.range = {0, 1, 0};
    if (s.keynum_index > 0) {
      keys[1].flags = api::key_ro | api::key_access;
      keys[1].begin_search_type = api::begin_search_index;
      keys[1].bs.index.pos = s.keynum_index;
      keys[1].find_keys_type = api::find_keys_keynum;
      keys[1].fk.keynum = {0, 1, 1};
    }
    api::CommandInfo info;
    info.summary = s.summary;
    info.since = "0.1.0";
    info.arity = s.arity;
    info.key_specs = keys;
    api::Command* command = api::GetCommand(ctx, s.name);
    if (command == nullptr || api::SetCommandInfo(command, &info) != api::ok) {
      api::Log(ctx, "warning", "ringbloom: the server refused the key spec of %s", s.name);
      return false;
    }
  }
  return true;
}

}  // namespace ringbloom::redis

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(
    ringbloom::redis::api::Ctx* ctx, ringbloom::redis::api::String** argv, int argc) {
  namespace rb = ringbloom::redis;
  namespace api = ringbloom::redis::api;
  try {
    if (const char* missing = api::load(ctx); missing != nullptr) {
      // Log may be what is missing; nothing else can tell the operator.
      if (api::Log != nullptr) {
        api::Log(ctx, "warning", "ringbloom: this server lacks %s (Redis 7.0 or newer needed)",
                 missing);
      }
      return api::err;
    }
    if (api::IsModuleNameBusy("ringbloom")) return api::err;
    api::SetModuleAttribs(ctx, "ringbloom", 1, api::apiver_1);
    if (!rb::parse_settings(ctx, argv, argc)) return api::err;
    ringbloom::set_allocator_hook(&rb::redis_storage);
    rb::install_size_classes(ctx);
    api::SetModuleOptions(ctx, api::option_handle_io_errors | api::option_handle_repl_async_load);
    if (!rb::register_bloom(ctx) || !rb::register_cf(ctx)) return api::err;
    if (!rb::register_cms(ctx) || !rb::register_topk(ctx)) return api::err;
    if (!rb::register_tdigest(ctx)) return api::err;
    return api::ok;
  } catch (...) {
    return api::err;
  }
}
