// redis/module/module_common.hpp: what every command file of ringbloom.so shares:
// argument access, key lookup with the RedisBloom status words, replies of
// the library's answers, and the guard that keeps C++ exceptions inside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "module/module_api.hpp"

namespace ringbloom::redis {

/// Module-wide settings from the MODULE LOAD arguments and, where the server
/// has module configuration, CONFIG SET ringbloom.<name> (docs/redis.md).
struct module_settings {
  double bf_error_rate = 0.01;           ///< bf-error-rate: BF.ADD's auto-created filter
  std::uint64_t bf_capacity = 100;       ///< bf-initial-size
  std::uint64_t bf_expansion = 2;        ///< bf-expansion-factor
  std::uint64_t cf_capacity = 1024;      ///< cf-initial-size: CF.ADD's auto-created filter
  std::uint64_t cf_bucket_size = 2;      ///< cf-bucket-size: CF.RESERVE's default
  std::uint64_t cf_max_iterations = 20;  ///< cf-max-iterations: CF.RESERVE's default
  std::uint64_t cf_expansion = 1;        ///< cf-expansion-factor: CF.RESERVE's default
  std::uint64_t cf_max_expansions = 32;  ///< cf-max-expansions
  std::uint64_t max_filter_bytes = std::uint64_t{1} << 32;  ///< max-filter-bytes, per value
  /// PREFIX: commands are registered as "<prefix>.bf.add" ...; empty: "bf.add".
  std::string prefix;
};
namespace detail {
inline module_settings the_settings;  // read without a guard (not a function-local static)
}  // namespace detail
/// The settings. Inline: a function-local static cost a guard check and a
/// call on every read, about 36 instructions per CF.ADD (callgrind).
inline module_settings& settings() noexcept { return detail::the_settings; }

/// The module's data types, created in RedisModule_OnLoad.
struct module_types {
  api::Type* bloom = nullptr;
  api::Type* cuckoo = nullptr;
  api::Type* cms = nullptr;
  api::Type* topk = nullptr;
};
namespace detail {
inline module_types the_types;  // as the_settings: no guard, no call
}  // namespace detail
/// The types. Inline, as settings(): a call cost every command about 6
/// instructions.
inline module_types& types() noexcept { return detail::the_types; }

/// REDISMODULE_CTX_FLAGS_RESP3 (redismodule.h): the client said HELLO 3.
inline constexpr int ctx_flags_resp3 = 1 << 22;

/// One command call: its context and arguments.
struct call {
  api::Ctx* ctx;
  api::String** argv;
  int argc;

  [[nodiscard]] std::string_view arg(int i) const {
    std::size_t len = 0;
    const char* p = api::StringPtrLen(argv[i], &len);
    return {p, len};
  }
  /// The command's name as registered, without the load-time PREFIX
  /// ("bf.madd" for "rb.bf.madd"), in the case the client sent.
  [[nodiscard]] std::string_view command() const;
  /// Whether the command (without PREFIX) is `name`, ignoring ASCII case.
  [[nodiscard]] bool command_is(std::string_view name) const;
  /// Whether argument i is `word`, ignoring ASCII case.
  [[nodiscard]] bool is(int i, std::string_view word) const;
  [[nodiscard]] bool to_long(int i, long long& out) const {
    return api::StringToLongLong(argv[i], &out) == api::ok;
  }
  [[nodiscard]] bool to_double(int i, double& out) const {
    return api::StringToDouble(argv[i], &out) == api::ok;
  }
  /// Index of the first argument from `from` on that is `word`, or -1.
  [[nodiscard]] int find(std::string_view word, int from = 2) const;

  int error(const char* message) const { return api::ReplyWithError(ctx, message); }
  int error(const std::string& message) const { return api::ReplyWithError(ctx, message.c_str()); }
  int wrong_arity() const { return api::WrongArity(ctx); }
  int integer(long long v) const { return api::ReplyWithLongLong(ctx, v); }
  /// A RESP3 boolean, or the integer 1 or 0 under RESP2 (as RedisBloom 2.6
  /// answers BF.ADD, BF.EXISTS, CF.ADD, CF.EXISTS, CF.DEL, TOPK.QUERY).
  int boolean(bool v) const { return api::ReplyWithBool(ctx, v ? 1 : 0); }
  int simple(const char* s) const { return api::ReplyWithSimpleString(ctx, s); }
  int ok() const { return simple("OK"); }
  int array(long n) const { return api::ReplyWithArray(ctx, n); }
  /// A reply of `n` name/value pairs: a map for a RESP3 client (HELLO 3), a
  /// flat array of 2 n elements otherwise, as RedisBloom 2.6's INFO replies.
  int pairs(long n) const {
    if (resp3()) return api::ReplyWithMap(ctx, n);
    return array(2 * n);
  }
  /// The start of a reply of one named field (BF.INFO key CAPACITY): a map
  /// {name: value} for a RESP3 client, a one-element array otherwise; the
  /// caller then replies the value.
  int one_field(const char* name) const {
    if (!resp3()) return array(1);
    api::ReplyWithMap(ctx, 1);
    return simple(name);
  }
  [[nodiscard]] bool resp3() const { return (api::GetContextFlags(ctx) & ctx_flags_resp3) != 0; }
  int bulk(std::string_view s) const { return api::ReplyWithStringBuffer(ctx, s.data(), s.size()); }
  int null() const { return api::ReplyWithNull(ctx); }
  void replicate() const { api::ReplicateVerbatim(ctx); }
};

/// The refusal of an argument a command does not know, naming it: `refusal`
/// (RedisBloom's sentence where it has one), the argument as typed, and what
/// the command takes instead ("ERR unknown argument: 'FOO'; BF.RESERVE takes
/// EXPANSION e and NONSCALING").
std::string unknown_argument(const call& c, int at, std::string_view accepted,
                             std::string_view refusal = "ERR unknown argument");

/// What a key holds, in RedisBloom's words (statusStrerror).
enum class key_status : std::uint8_t { ok, empty, mismatch };

/// An open key, closed on scope exit.
class open_key {
 public:
  open_key(const call& c, int index, int mode) : key_(api::OpenKey(c.ctx, c.argv[index], mode)) {}
  ~open_key() {
    if (key_ != nullptr) api::CloseKey(key_);
  }
  open_key(const open_key&) = delete;
  open_key& operator=(const open_key&) = delete;

  /// ok when the key holds a value of `type` (then value<T>() is it),
  /// empty when missing, mismatch for any other value.
  [[nodiscard]] key_status status(api::Type* type) const {
    if (key_ == nullptr) return key_status::empty;
    // ModuleTypeGetType answers null for an empty key or another kind of
    // value, so the usual case (a value of this type) takes one API call;
    // KeyType only tells empty from mismatch (about 15 instructions a call).
    if (type != nullptr && api::ModuleTypeGetType(key_) == type) return key_status::ok;
    if (api::KeyType(key_) == api::keytype_empty) return key_status::empty;
    return key_status::mismatch;
  }
  template <class T>
  [[nodiscard]] T* value() const {
    return static_cast<T*>(api::ModuleTypeGetValue(key_));
  }
  /// Closes the key early (before another handler opens it).
  void close() noexcept {
    if (key_ != nullptr) api::CloseKey(key_);
    key_ = nullptr;
  }
  /// Deletes the key and its value.
  void remove() { api::DeleteKey(key_); }
  /// Stores `value` (owned by the key from now on).
  void set(api::Type* type, void* value) { api::ModuleTypeSetValue(key_, type, value); }

 private:
  api::Key* key_;
};

/// RedisBloom's sentence for a status that is not ok: "ERR not found" for a
/// missing key, WRONGTYPE for another type, "ERR item exists" when a new
/// value was expected.
const char* status_error(key_status status) noexcept;

/// Values live in memory from RedisModule_Alloc, so that INFO memory and
/// maxmemory count them: make<T>(args) and destroy(p).
void* module_alloc(std::size_t bytes);
void module_free(void* p) noexcept;
template <class T, class... Args>
T* make(Args&&... args) {
  void* p = module_alloc(sizeof(T));
  try {
    return new (p) T(std::forward<Args>(args)...);
  } catch (...) {
    module_free(p);
    throw;
  }
}
template <class T>
void destroy(T* p) noexcept {
  if (p == nullptr) return;
  p->~T();
  module_free(p);
}

/// A std allocator over RedisModule_Alloc (operator new when no server is
/// there, as in unit tests).
template <class T>
struct module_allocator {
  using value_type = T;
  module_allocator() noexcept = default;
  template <class U>
  explicit module_allocator(const module_allocator<U>& /*other*/) noexcept {}
  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(module_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t /*n*/) noexcept { module_free(p); }
  friend bool operator==(const module_allocator&, const module_allocator&) noexcept { return true; }
};

/// Runs a command body; a C++ exception becomes an error reply, never
/// crosses into the server.
template <class Body>
int guarded(api::Ctx* ctx, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return api::ReplyWithError(ctx, "ERR out of memory: the value could not be allocated");
  } catch (const std::exception& e) {
    const std::string message = std::string("ERR ") + e.what();
    return api::ReplyWithError(ctx, message.c_str());
  } catch (...) {
    return api::ReplyWithError(ctx, "ERR internal error");
  }
}

/// A command's name, handler, flags and key spec, for registration.
struct command_spec {
  const char* name;
  api::CmdFunc handler;
  bool write;  ///< "write deny-oom" and an RW key spec; else "readonly fast", RO
  std::uint64_t key_flags;
  int arity;  ///< as Redis: N exact, -N at least N (command name included)
  const char* summary;
  /// For CMS.MERGE: the index of a numkeys argument followed by read-only
  /// source keys (0: none).
  int keynum_index = 0;
};

/// Registers BF.* (commands/bf.cpp) and the others; false after logging
/// when the server refused one.
bool register_bloom(api::Ctx* ctx);
/// Register CF.* (commands/cf.cpp), CMS.* (commands/cms.cpp) and TOPK.*
/// (commands/topk.cpp) with their data types.
bool register_cf(api::Ctx* ctx);
bool register_cms(api::Ctx* ctx);
bool register_topk(api::Ctx* ctx);
/// Registers each command under its name with the load-time PREFIX, if any.
bool register_commands(api::Ctx* ctx, const command_spec* specs, std::size_t count);
/// `name` ("BF.LOADCHUNK") as this server knows it: with the PREFIX, if any
/// ("rb.BF.LOADCHUNK"); what an AOF rewrite must emit.
std::string command_name(std::string_view name);

}  // namespace ringbloom::redis
