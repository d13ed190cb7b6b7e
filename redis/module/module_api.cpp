// redis/module/module_api.cpp: fetching the server's functions by name (see
// module_api.hpp).
#include "module/module_api.hpp"

namespace ringbloom::redis::api {

#define RINGBLOOM_REDIS_NAME(name, result, params) "RedisModule_" #name,
const char* const function_names[] = {RINGBLOOM_REDIS_API(RINGBLOOM_REDIS_NAME)};
#undef RINGBLOOM_REDIS_NAME
const std::size_t function_count = sizeof(function_names) / sizeof(function_names[0]);

namespace {

using get_api_fn = int (*)(const char* name, void* out);

get_api_fn lookup_of(Ctx* ctx) noexcept {
  // The context's first field is the server's lookup function.
  get_api_fn get_api = nullptr;
  void* first = *reinterpret_cast<void**>(ctx);
  static_assert(sizeof(first) == sizeof(get_api));
  __builtin_memcpy(&get_api, &first, sizeof(get_api));
  return get_api;
}

}  // namespace

bool load_function(Ctx* ctx, const char* name, void* out) noexcept {
  const get_api_fn get_api = lookup_of(ctx);
  if (get_api != nullptr && get_api(name, out) == ok) return true;
  *static_cast<void**>(out) = nullptr;
  return false;
}

bool load_optional(Ctx* ctx) noexcept {
  const get_api_fn get_api = lookup_of(ctx);
  bool all = get_api != nullptr;
#define RINGBLOOM_REDIS_FETCH(name, result, params) \
  if (all && get_api("RedisModule_" #name, static_cast<void*>(&name)) != ok) all = false;
  RINGBLOOM_REDIS_OPTIONAL_API(RINGBLOOM_REDIS_FETCH)
#undef RINGBLOOM_REDIS_FETCH
  if (!all) {
#define RINGBLOOM_REDIS_CLEAR(name, result, params) name = nullptr;
    RINGBLOOM_REDIS_OPTIONAL_API(RINGBLOOM_REDIS_CLEAR)
#undef RINGBLOOM_REDIS_CLEAR
  }
  return all;
}

const char* load(Ctx* ctx) noexcept {
  const get_api_fn get_api = lookup_of(ctx);
  if (get_api == nullptr) return "RedisModule_GetApi";
#define RINGBLOOM_REDIS_FETCH(name, result, params) \
  if (get_api("RedisModule_" #name, static_cast<void*>(&name)) != ok) return "RedisModule_" #name;
  RINGBLOOM_REDIS_API(RINGBLOOM_REDIS_FETCH)
#undef RINGBLOOM_REDIS_FETCH
  return nullptr;
}

}  // namespace ringbloom::redis::api
