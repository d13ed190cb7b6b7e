// redis/module/module_api.cpp: fetching the server's functions by name (see
// module_api.hpp).
#include "module/module_api.hpp"

namespace ringbloom::redis::api {

#define RINGBLOOM_REDIS_NAME(name, result, params) "RedisModule_" #name,
const char* const function_names[] = {RINGBLOOM_REDIS_API(RINGBLOOM_REDIS_NAME)};
#undef RINGBLOOM_REDIS_NAME
const std::size_t function_count = sizeof(function_names) / sizeof(function_names[0]);

const char* load(Ctx* ctx) noexcept {
  // The context's first field is the server's lookup function.
  using get_api_fn = int (*)(const char* name, void* out);
  get_api_fn get_api = nullptr;
  void* first = *reinterpret_cast<void**>(ctx);
  static_assert(sizeof(first) == sizeof(get_api));
  __builtin_memcpy(&get_api, &first, sizeof(get_api));
  if (get_api == nullptr) return "RedisModule_GetApi";
#define RINGBLOOM_REDIS_FETCH(name, result, params) \
  if (get_api("RedisModule_" #name, static_cast<void*>(&name)) != ok) return "RedisModule_" #name;
  RINGBLOOM_REDIS_API(RINGBLOOM_REDIS_FETCH)
#undef RINGBLOOM_REDIS_FETCH
  return nullptr;
}

}  // namespace ringbloom::redis::api
