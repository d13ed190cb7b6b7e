// redis/module/module_api.hpp: the part of the Redis module API that ringbloom.so uses,
// declared by us.
//
// Debian ships no redismodule.h, and we do not copy it. A module talks to
// the server through function pointers that it looks up by name: the
// context handed to RedisModule_OnLoad starts with a pointer to the server's
// lookup function, `int GetApi(const char* name, void* out)`, which writes
// the address of the named function ("RedisModule_Alloc", ...) into *out and
// answers 0 (REDISMODULE_OK) when the server has it. load() fetches every
// function listed in RINGBLOOM_REDIS_API below and reports the first name
// the server does not know, so a server too old for us refuses the module
// with a clear log line instead of crashing later.
//
// The declarations follow the Redis 7.0 module API reference
// (redis.io/docs/reference/modules/modules-api-ref); the structs we fill
// (type methods version 3, command info version 1 with key specs) are laid
// out as that reference describes, and the static_asserts at the end pin
// their sizes and offsets on x86-64 and AArch64 (LP64). The pytest suite
// loads the module into the real redis-server, which proves every name
// resolves there (redis/tests/test_module_api.py).
//
// Everything here is C ABI; nothing may throw across it (module.cpp catches
// every exception at each entry point).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringbloom::redis::api {

// Opaque server objects: only pointers to them cross the boundary.
struct Ctx;
struct String;
struct Key;
struct Type;
struct IO;
struct Digest;
struct Command;
struct DefragCtx;

inline constexpr int ok = 0;
inline constexpr int err = 1;
inline constexpr int apiver_1 = 1;

// OpenKey modes.
inline constexpr int key_read = 1 << 0;
inline constexpr int key_write = 1 << 1;

// KeyType answers.
inline constexpr int keytype_empty = 0;
inline constexpr int keytype_module = 6;

/// ReplyWithArray's length when it is set later with ReplySetArrayLength.
inline constexpr long postponed_len = -1;

// SetModuleOptions flags.
inline constexpr int option_handle_io_errors = 1 << 0;
inline constexpr int option_handle_repl_async_load = 1 << 2;

/// The server's standard WRONGTYPE sentence.
inline constexpr const char* wrongtype_error =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

using CmdFunc = int (*)(Ctx* ctx, String** argv, int argc);

// Data type callbacks.
using TypeLoadFunc = void* (*)(IO* io, int encver);
using TypeSaveFunc = void (*)(IO* io, void* value);
using TypeRewriteFunc = void (*)(IO* io, String* key, void* value);
using TypeMemUsageFunc = std::size_t (*)(const void* value);
using TypeDigestFunc = void (*)(Digest* digest, void* value);
using TypeFreeFunc = void (*)(void* value);
using TypeAuxLoadFunc = int (*)(IO* io, int encver, int when);
using TypeAuxSaveFunc = void (*)(IO* io, int when);
using TypeFreeEffortFunc = std::size_t (*)(String* key, const void* value);
using TypeUnlinkFunc = void (*)(String* key, const void* value);
using TypeCopyFunc = void* (*)(String* fromkey, String* tokey, const void* value);
using TypeDefragFunc = int (*)(DefragCtx* ctx, String* key, void** value);

/// The type methods, version 3 (the fields up to `defrag`; version 4 adds
/// four more that we do not fill, so we declare 3 and the server reads no
/// further).
struct TypeMethods {
  std::uint64_t version = 3;
  TypeLoadFunc rdb_load = nullptr;
  TypeSaveFunc rdb_save = nullptr;
  TypeRewriteFunc aof_rewrite = nullptr;
  TypeMemUsageFunc mem_usage = nullptr;
  TypeDigestFunc digest = nullptr;
  TypeFreeFunc free = nullptr;
  TypeAuxLoadFunc aux_load = nullptr;  // version 2
  TypeAuxSaveFunc aux_save = nullptr;
  int aux_save_triggers = 0;
  TypeFreeEffortFunc free_effort = nullptr;  // version 3
  TypeUnlinkFunc unlink = nullptr;
  TypeCopyFunc copy = nullptr;
  TypeDefragFunc defrag = nullptr;
};

// Key-spec flags (SetCommandInfo).
inline constexpr std::uint64_t key_ro = 1ULL << 0;
inline constexpr std::uint64_t key_rw = 1ULL << 1;
inline constexpr std::uint64_t key_ow = 1ULL << 2;
inline constexpr std::uint64_t key_access = 1ULL << 4;
inline constexpr std::uint64_t key_update = 1ULL << 5;
inline constexpr std::uint64_t key_insert = 1ULL << 6;

// Where the search for keys begins, and how they are found from there.
inline constexpr int begin_search_invalid = 0;  // ends the key-spec array
inline constexpr int begin_search_index = 2;
inline constexpr int find_keys_range = 2;
inline constexpr int find_keys_keynum = 3;

/// One key spec (command info version 1).
struct KeySpec {
  const char* notes = nullptr;
  std::uint64_t flags = 0;
  int begin_search_type = begin_search_invalid;
  union {
    struct {
      int pos;
    } index;
    struct {
      const char* keyword;
      int startfrom;
    } keyword;
  } bs{};
  int find_keys_type = 0;
  union {
    struct {
      int lastkey;
      int keystep;
      int limit;
    } range;
    struct {
      int keynumidx;
      int firstkey;
      int keystep;
    } keynum;
  } fk{};
};

struct HistoryEntry {
  const char* since;
  const char* changes;
};

/// An argument description; we pass none, but the server needs its size.
struct CommandArg {
  const char* name;
  int type;
  int key_spec_index;
  const char* token;
  const char* summary;
  const char* since;
  int flags;
  const char* deprecated_since;
  CommandArg* subargs;
};

struct CommandInfoVersion {
  int version;
  std::size_t sizeof_historyentry;
  std::size_t sizeof_keyspec;
  std::size_t sizeof_arg;
};

inline constexpr CommandInfoVersion command_info_version_1{1, sizeof(HistoryEntry), sizeof(KeySpec),
                                                           sizeof(CommandArg)};

struct CommandInfo {
  const CommandInfoVersion* version = &command_info_version_1;
  const char* summary = nullptr;
  const char* complexity = nullptr;
  const char* since = nullptr;
  HistoryEntry* history = nullptr;
  const char* tips = nullptr;
  int arity = 0;
  KeySpec* key_specs = nullptr;  // ends with a spec whose begin_search_type is 0
  CommandArg* args = nullptr;
};

// The functions, as (name without the "RedisModule_" prefix, result,
// parameters). load() fetches each by its full name.
#define RINGBLOOM_REDIS_API(X)                                                                \
  X(Alloc, void*, (std::size_t bytes))                                                        \
  X(TryAlloc, void*, (std::size_t bytes))                                                     \
  X(Calloc, void*, (std::size_t count, std::size_t bytes))                                    \
  X(Free, void, (void* ptr))                                                                  \
  X(MallocSize, std::size_t, (void* ptr))                                                     \
  X(SetModuleAttribs, void, (Ctx * ctx, const char* name, int ver, int apiver))               \
  X(IsModuleNameBusy, int, (const char* name))                                                \
  X(SetModuleOptions, void, (Ctx * ctx, int options))                                         \
  X(CreateCommand, int,                                                                       \
    (Ctx * ctx, const char* name, CmdFunc func, const char* flags, int firstkey, int lastkey, \
     int keystep))                                                                            \
  X(GetCommand, Command*, (Ctx * ctx, const char* name))                                      \
  X(SetCommandInfo, int, (Command * command, const CommandInfo* info))                        \
  X(CreateDataType, Type*, (Ctx * ctx, const char* name, int encver, TypeMethods* methods))   \
  X(ModuleTypeSetValue, int, (Key * key, Type * type, void* value))                           \
  X(ModuleTypeGetType, Type*, (Key * key))                                                    \
  X(ModuleTypeGetValue, void*, (Key * key))                                                   \
  X(OpenKey, Key*, (Ctx * ctx, String * name, int mode))                                      \
  X(CloseKey, void, (Key * key))                                                              \
  X(KeyType, int, (Key * key))                                                                \
  X(DeleteKey, int, (Key * key))                                                              \
  X(WrongArity, int, (Ctx * ctx))                                                             \
  X(ReplyWithLongLong, int, (Ctx * ctx, long long value))                                     \
  X(ReplyWithError, int, (Ctx * ctx, const char* error))                                      \
  X(ReplyWithSimpleString, int, (Ctx * ctx, const char* text))                                \
  X(ReplyWithArray, int, (Ctx * ctx, long length))                                            \
  X(ReplySetArrayLength, void, (Ctx * ctx, long length))                                      \
  X(ReplyWithStringBuffer, int, (Ctx * ctx, const char* buf, std::size_t len))                \
  X(ReplyWithNull, int, (Ctx * ctx))                                                          \
  X(ReplyWithDouble, int, (Ctx * ctx, double value))                                          \
  X(ReplyWithMap, int, (Ctx * ctx, long pairs))                                               \
  X(ReplyWithBool, int, (Ctx * ctx, int value))                                               \
  X(GetContextFlags, int, (Ctx * ctx))                                                        \
  X(StringPtrLen, const char*, (const String* str, std::size_t* len))                         \
  X(StringToLongLong, int, (const String* str, long long* value))                             \
  X(StringToDouble, int, (const String* str, double* value))                                  \
  X(ReplicateVerbatim, int, (Ctx * ctx))                                                      \
  X(SignalModifiedKey, int, (Ctx * ctx, String * keyname))                                    \
  X(Replicate, int, (Ctx * ctx, const char* command, const char* format, ...))                \
  X(Milliseconds, long long, ())                                                              \
  X(SaveUnsigned, void, (IO * io, std::uint64_t value))                                       \
  X(LoadUnsigned, std::uint64_t, (IO * io))                                                   \
  X(SaveStringBuffer, void, (IO * io, const char* buf, std::size_t len))                      \
  X(LoadStringBuffer, char*, (IO * io, std::size_t * len))                                    \
  X(IsIOError, int, (IO * io))                                                                \
  X(EmitAOF, void, (IO * io, const char* command, const char* format, ...))                   \
  X(DigestAddStringBuffer, void, (Digest * digest, const char* buf, std::size_t len))         \
  X(DigestEndSequence, void, (Digest * digest))                                               \
  X(Log, void, (Ctx * ctx, const char* level, const char* format, ...))                       \
  X(LogIOError, void, (IO * io, const char* level, const char* format, ...))

// Module configuration (CONFIG SET/GET ringbloom.<name>): Redis 7.0 and
// Valkey have these; load_optional() leaves a pointer null where the server
// lacks the function, and the module then takes load-time arguments only.
using ConfigGetStringFunc = String* (*)(const char* name, void* privdata);
using ConfigSetStringFunc = int (*)(const char* name, String* value, void* privdata, String** err);
using ConfigApplyFunc = int (*)(Ctx* ctx, void* privdata, String** err);
inline constexpr unsigned config_default = 0;

#define RINGBLOOM_REDIS_OPTIONAL_API(X)                                                        \
  X(RegisterStringConfig, int,                                                                 \
    (Ctx * ctx, const char* name, const char* default_value, unsigned flags,                   \
     ConfigGetStringFunc get, ConfigSetStringFunc set, ConfigApplyFunc apply, void* privdata)) \
  X(LoadConfigs, int, (Ctx * ctx))                                                             \
  X(CreateString, String*, (Ctx * ctx, const char* ptr, std::size_t len))                      \
  X(FreeString, void, (Ctx * ctx, String * str))

#define RINGBLOOM_REDIS_DECLARE(name, result, params) inline result(*name) params = nullptr;
RINGBLOOM_REDIS_API(RINGBLOOM_REDIS_DECLARE)
RINGBLOOM_REDIS_OPTIONAL_API(RINGBLOOM_REDIS_DECLARE)
#undef RINGBLOOM_REDIS_DECLARE

/// Fetches every function of RINGBLOOM_REDIS_API through the lookup function
/// at the start of `ctx`. Returns nullptr when all were found, else the name
/// of the first one the server does not have.
const char* load(Ctx* ctx) noexcept;

/// RedisModule_TryCalloc (Redis 7.4 and newer); null where the server lacks it.
inline void* (*TryCalloc)(std::size_t count, std::size_t bytes) = nullptr;

/// Fetches one function by its full name into `*out`, leaving it null when
/// the server lacks it; true when found.
bool load_function(Ctx* ctx, const char* name, void* out) noexcept;
template <class F>
bool load_one(Ctx* ctx, const char* name, F* out) noexcept {
  return load_function(ctx, name, reinterpret_cast<void*>(out));
}

/// Fetches the functions of RINGBLOOM_REDIS_OPTIONAL_API; true when the
/// server has all of them (else every one of them stays null).
bool load_optional(Ctx* ctx) noexcept;

/// The names load() fetches, "RedisModule_Alloc" ..., and how many.
extern const char* const function_names[];
extern const std::size_t function_count;

// The layouts the server reads (LP64; from the API reference).
static_assert(sizeof(void*) == 8, "the declarations assume an LP64 platform");
static_assert(offsetof(TypeMethods, aux_save_triggers) == 72);
static_assert(offsetof(TypeMethods, free_effort) == 80);
static_assert(offsetof(TypeMethods, copy) == 96);
static_assert(sizeof(TypeMethods) == 112);
static_assert(offsetof(KeySpec, begin_search_type) == 16);
static_assert(offsetof(KeySpec, bs) == 24);
static_assert(offsetof(KeySpec, find_keys_type) == 40);
static_assert(offsetof(KeySpec, fk) == 44);
static_assert(sizeof(KeySpec) == 56);
static_assert(sizeof(HistoryEntry) == 16);
static_assert(sizeof(CommandArg) == 64);
static_assert(sizeof(CommandInfoVersion) == 32);
static_assert(offsetof(CommandInfo, arity) == 48);
static_assert(sizeof(CommandInfo) == 72);

}  // namespace ringbloom::redis::api
