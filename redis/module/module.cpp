// redis/module/module.cpp: RedisModule_OnLoad, the one symbol ringbloom.so exports.
//
// Load: redis-server --loadmodule ringbloom.so [PREFIX name] [SETTING value ...]
// (docs/redis.md: the settings are also configs, CONFIG SET ringbloom.NAME). OnLoad fetches the
// API, routes the library's storage (the arrays of every filter and sketch, through
// ringbloom/allocator_hook.hpp) to RedisModule_TryAlloc, so that used_memory and maxmemory see
// every value, declares that our RDB loading handles I/O errors and async replica loading, then
// creates the data types and the commands.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <string>
#include <string_view>

#include "module/module_api.hpp"
#include "module/module_common.hpp"
#include "ringbloom/allocator_hook.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/layered_bloom.hpp"
#include "types/kll_type.hpp"
#include "types/tdigest_type.hpp"

namespace ringbloom::redis {

namespace {

// ASCII case folding in line: the locale's std::tolower is a libc call per
// character, which made keyword and command-name tests a tenth of a short
// command's instructions. Keywords and command names are ASCII.
constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

}  // namespace

bool call::is(int i, std::string_view word) const { return equal_ignoring_case(arg(i), word); }

std::string_view call::command() const {
  std::string_view name = arg(0);
  const std::string& prefix = settings().prefix;
  if (!prefix.empty() && name.size() > prefix.size()) name.remove_prefix(prefix.size() + 1);
  return name;
}

bool call::command_is(std::string_view name) const { return equal_ignoring_case(command(), name); }

std::string command_name(std::string_view name) {
  const std::string& prefix = settings().prefix;
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
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
// lines. jemalloc (Redis's default) places every allocation whose size class
// is a multiple of 64 bytes on a 64-byte boundary already (its slabs are
// page-aligned arrays of equal regions; large allocations are page-aligned,
// at most offset by whole cache lines): a layer's words (whole 64-byte
// blocks) then cost exactly their size class. Elsewhere (libc malloc, a
// sanitizer runtime) we over-allocate and keep the allocator's pointer just
// before the aligned block. Alignments above a cache line (the library asks
// 2 MiB for huge arrays, to advise huge pages) are served at 64 bytes: Redis
// recommends transparent huge pages off, and 2 MiB of padding would be
// counted in used_memory. Alignments Redis's allocator already gives (up to
// that of std::max_align_t: a sketch's counters, a cuckoo filter's bytes)
// are passed straight through.
constexpr std::size_t served_alignment = 64;

/// Set once at load (install_size_classes) when the server's allocations
/// have jemalloc's size classes and alignment; read-only afterwards, so an
/// array is freed the way it was allocated.
bool jemalloc_aligns = false;

std::uint64_t jemalloc_class(std::uint64_t bytes) noexcept;

bool served_directly(std::size_t bytes, std::size_t alignment) noexcept {
  return alignment <= alignof(std::max_align_t) || (jemalloc_aligns && bytes >= served_alignment &&
                                                    jemalloc_class(bytes) % served_alignment == 0);
}

void* hook_allocate(std::size_t bytes, std::size_t alignment) {
  if (served_directly(bytes, alignment)) return module_alloc(bytes);
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

/// RedisModule_TryCalloc where the server has it (Redis 7.4 and newer),
/// else RedisModule_Calloc (which, as every allocation of the server's own,
/// ends the server when the OS refuses the memory).
void* module_calloc(std::size_t bytes) {
  void* p = api::TryCalloc != nullptr ? api::TryCalloc(1, bytes) : api::Calloc(1, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// As hook_allocate, from calloc: jemalloc hands a large array fresh pages
// from the OS, zero already, and the kernel commits each one when it is
// first written. BF.RESERVE of a 1 GB filter answers at once and its
// resident memory grows as items are added (RedisBloom does the same).
void* hook_allocate_zeroed(std::size_t bytes, std::size_t alignment) {
  if (served_directly(bytes, alignment)) return module_calloc(bytes);
  const std::size_t align = std::min(alignment, served_alignment);
  const std::size_t extra = align + sizeof(void*);
  if (bytes > static_cast<std::size_t>(-1) - extra) throw std::bad_alloc();
  void* raw = module_calloc(bytes + extra);
  auto start = reinterpret_cast<std::uintptr_t>(raw) + sizeof(void*);
  start = (start + align - 1) & ~(std::uintptr_t{align} - 1);
  void* aligned = reinterpret_cast<void*>(start);
  std::memcpy(static_cast<char*>(aligned) - sizeof(void*), &raw, sizeof(void*));
  return aligned;
}

void hook_deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  if (p == nullptr) return;
  if (served_directly(bytes, alignment)) {
    module_free(p);
    return;
  }
  void* raw = nullptr;
  std::memcpy(&raw, static_cast<char*>(p) - sizeof(void*), sizeof(void*));
  module_free(raw);
}

constexpr allocator_hook redis_storage{hook_allocate, hook_deallocate, hook_allocate_zeroed};

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

// The bytes an allocation of `bytes` occupies in jemalloc: its size class
// (hook_allocate serves arrays unpadded there). Layers grow to fill it.
std::uint64_t size_class(std::uint64_t bytes) noexcept {
  if (bytes > (std::uint64_t{1} << 50)) return bytes;
  return jemalloc_class(bytes);
}

// Layers grow to jemalloc's size classes (Redis's default allocator) on
// every server, whatever it was built with: a layer's size is a function of
// (capacity, rate) alone, so a master and its replicas, which both run the
// BF commands, size every layer alike and their values stay identical (DEBUG
// DIGEST-VALUE agrees). Where the allocator is not jemalloc's (libc malloc,
// or a sanitizer runtime preloaded), RedisModule_MallocSize shows it at
// load; the log says so, since the growth then buys bits without saving
// rounding there, and arrays that want cache-line alignment are padded.
void install_size_classes(api::Ctx* ctx) {
  layered_bloom_filter::set_size_class(size_class);
  for (const std::size_t bytes : {std::size_t{64}, std::size_t{100}, std::size_t{192},
                                  std::size_t{5000}, std::size_t{40000}, std::size_t{1300000}}) {
    void* p = api::TryAlloc(bytes);
    if (p == nullptr) return;
    const std::size_t usable = api::MallocSize(p);
    const bool aligned = jemalloc_class(bytes) % served_alignment != 0 ||
                         reinterpret_cast<std::uintptr_t>(p) % served_alignment == 0;
    api::Free(p);
    if (usable != jemalloc_class(bytes) || !aligned) {
      api::Log(ctx, "notice",
               "ringbloom: the server's allocator is not jemalloc's size classes; Bloom layers "
               "still fill jemalloc's classes, so that every server sizes them alike");
      return;
    }
  }
  jemalloc_aligns = true;
}

// --- settings: load-time arguments and CONFIG SET/GET -------------------------

/// One setting: its configuration name (RedisBloom's, without the
/// "ringbloom." that the server puts before a module's configs), the
/// load-time argument of earlier versions (accepted too), its range, and
/// where it lives. Doubles lie in the open range (low, high), integers in
/// the closed one [low, high].
struct setting {
  const char* name;
  const char* legacy;
  bool is_double;
  double low;
  double high;
  double* real;
  std::uint64_t* integer;
  const char* range;               ///< the range, in words, for the refusal
  api::String* current = nullptr;  ///< CONFIG GET's answer (held by us)
};

setting* settings_table(std::size_t& count) {
  module_settings& m = settings();
  static setting table[] = {
      {"bf-error-rate", "ERROR_RATE", true, 0, 1, &m.bf_error_rate, nullptr, "in the range (0, 1)"},
      {"bf-initial-size", "INITIAL_SIZE", false, 1, 1 << 30, nullptr, &m.bf_capacity,
       "in the range [1, 1073741824]"},
      {"bf-expansion-factor", nullptr, false, 1, 32768, nullptr, &m.bf_expansion,
       "in the range [1, 32768]"},
      {"cf-bucket-size", nullptr, false, 1, 255, nullptr, &m.cf_bucket_size,
       "in the range [1, 255]"},
      {"cf-initial-size", nullptr, false, 4, 1 << 30, nullptr, &m.cf_capacity,
       "in the range [4, 1073741824]"},
      {"cf-max-iterations", nullptr, false, 1, 65535, nullptr, &m.cf_max_iterations,
       "in the range [1, 65535]"},
      {"cf-expansion-factor", nullptr, false, 0, 32768, nullptr, &m.cf_expansion,
       "in the range [0, 32768]"},
      {"cf-max-expansions", "CF_MAX_EXPANSIONS", false, 1, 65536, nullptr, &m.cf_max_expansions,
       "in the range [1, 65536]"},
      {"max-filter-bytes", "MAX_FILTER_BYTES", false, 4096, 4.0e18, nullptr, &m.max_filter_bytes,
       "in the range [4096, 4e18]"},
  };
  count = std::size(table);
  return table;
}

/// Sets `s` from `text`; false (and nothing changed) when it does not parse
/// or lies outside the range.
bool assign(setting& s, std::string_view text) {
  const std::string t(text);
  char* end = nullptr;
  errno = 0;
  if (s.is_double) {
    const double d = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || errno != 0 || !(d > s.low && d < s.high)) return false;
    *s.real = d;
    return true;
  }
  const long long n = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || errno != 0 || static_cast<double>(n) < s.low ||
      static_cast<double>(n) > s.high) {
    return false;
  }
  *s.integer = static_cast<std::uint64_t>(n);
  return true;
}

std::string value_text(const setting& s) {
  return s.is_double ? fmt::format("{}", *s.real) : std::to_string(*s.integer);
}

std::string refusal(const setting& s) {
  return fmt::format("Value for `{}` must be {}", s.name, s.range);
}

api::String* config_get(const char* /*name*/, void* privdata) {
  return static_cast<setting*>(privdata)->current;
}

int config_set(const char* /*name*/, api::String* value, void* privdata, api::String** err) {
  auto& s = *static_cast<setting*>(privdata);
  std::size_t len = 0;
  const char* p = api::StringPtrLen(value, &len);
  if (!assign(s, {p, len})) {
    const std::string why = refusal(s);
    *err = api::CreateString(nullptr, why.data(), why.size());
    return api::err;
  }
  const std::string text = value_text(s);
  if (s.current != nullptr) api::FreeString(nullptr, s.current);
  s.current = api::CreateString(nullptr, text.data(), text.size());
  return api::ok;
}

/// Registers every setting as the config ringbloom.<name>, its default the
/// value the load-time arguments gave, then lets the server apply redis.conf.
/// Servers without module configuration keep the load-time values.
bool register_configs(api::Ctx* ctx) {
  if (!api::load_optional(ctx)) {
    api::Log(ctx, "notice",
             "ringbloom: this server has no module configuration; the settings are the "
             "load-time arguments (docs/redis.md)");
    return true;
  }
  std::size_t count = 0;
  setting* table = settings_table(count);
  for (std::size_t i = 0; i < count; ++i) {
    setting& s = table[i];
    const std::string text = value_text(s);
    s.current = api::CreateString(nullptr, text.data(), text.size());
    if (api::RegisterStringConfig(ctx, s.name, text.c_str(), api::config_default, config_get,
                                  config_set, nullptr, &s) != api::ok) {
      api::Log(ctx, "warning", "ringbloom: the server refused the config ringbloom.%s", s.name);
      return false;
    }
  }
  if (api::LoadConfigs(ctx) != api::ok) {
    api::Log(ctx, "warning", "ringbloom: the server could not apply ringbloom's configs");
    return false;
  }
  return true;
}

/// A PREFIX: 1 to 32 letters, digits, '_' or '-'.
bool valid_prefix(std::string_view p) {
  return !p.empty() && p.size() <= 32 && std::all_of(p.begin(), p.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-';
  });
}

bool parse_settings(api::Ctx* ctx, api::String** argv, int argc) {
  const call c{ctx, argv, argc};
  if (argc % 2 != 0) {
    api::Log(ctx, "warning",
             "ringbloom: module arguments come in pairs, NAME value; see docs/redis.md");
    return false;
  }
  std::size_t count = 0;
  setting* table = settings_table(count);
  for (int i = 0; i < argc; i += 2) {
    const std::string name(c.arg(i));
    const std::string value(c.arg(i + 1));
    if (c.is(i, "PREFIX")) {
      if (!valid_prefix(value)) {
        api::Log(ctx, "warning",
                 "ringbloom: bad PREFIX '%s': give 1 to 32 letters, digits, '_' or '-' "
                 "(PREFIX rb registers rb.bf.add ...)",
                 value.c_str());
        return false;
      }
      settings().prefix = value;
      continue;
    }
    setting* s = nullptr;
    for (std::size_t k = 0; k < count; ++k) {
      if (c.is(i, table[k].name) || (table[k].legacy != nullptr && c.is(i, table[k].legacy))) {
        s = &table[k];
      }
    }
    if (s == nullptr) {
      api::Log(ctx, "warning",
               "ringbloom: unknown module argument '%s': give PREFIX or a setting of "
               "docs/redis.md (bf-error-rate, bf-initial-size, ..., or ERROR_RATE, "
               "INITIAL_SIZE, CF_MAX_EXPANSIONS, MAX_FILTER_BYTES)",
               name.c_str());
      return false;
    }
    if (!assign(*s, value)) {
      api::Log(ctx, "warning", "ringbloom: bad module argument %s '%s': %s", name.c_str(),
               value.c_str(), refusal(*s).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

bool register_commands(api::Ctx* ctx, const command_spec* specs, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const command_spec& s = specs[i];
    const std::string name = command_name(s.name);
    if (api::CreateCommand(ctx, name.c_str(), s.handler,
                           s.write ? "write deny-oom" : "readonly fast", 1, 1, 1) != api::ok) {
      api::Log(ctx, "warning",
               "ringbloom: the server refused the command %s (another module, or the server "
               "itself, has it: load ringbloom with PREFIX name to register name.%s instead)",
               name.c_str(), s.name);
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
    api::Command* command = api::GetCommand(ctx, name.c_str());
    if (command == nullptr || api::SetCommandInfo(command, &info) != api::ok) {
      api::Log(ctx, "warning", "ringbloom: the server refused the key spec of %s", name.c_str());
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
    api::load_one(ctx, "RedisModule_TryCalloc", &api::TryCalloc);
    if (!rb::parse_settings(ctx, argv, argc)) return api::err;
    ringbloom::set_allocator_hook(&rb::redis_storage);
    rb::install_size_classes(ctx);
    api::SetModuleOptions(ctx, api::option_handle_io_errors | api::option_handle_repl_async_load);
    if (!rb::register_configs(ctx)) return api::err;
    if (!rb::register_bloom(ctx) || !rb::register_cf(ctx)) return api::err;
    if (!rb::register_cms(ctx) || !rb::register_topk(ctx)) return api::err;
    if (!rb::register_tdigest(ctx) || !rb::register_kll(ctx)) return api::err;
    return api::ok;
  } catch (...) {
    return api::err;
  }
}
