// redis/types/cuckoo_type.hpp: the data type "RBloom-CF" of CF.*: the
// library's cuckoo filter behind the shared type methods of sketch_types.hpp
// (its checksummed image, its LOADCHUNK command).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "module/module_common.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/memory.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {

struct cf_traits {
  using type = cuckoo_filter;
  static constexpr const char* name = "CF";
  static constexpr const char* type_name = "RBloom-CF";
  static constexpr const char* loadchunk = "CF.LOADCHUNK";
  static api::Type* type_handle() { return types().cuckoo; }
  static std::string image(const type& v) { return serialize_cuckoo(v); }
  static type from_image(std::string_view b) { return deserialize_cuckoo(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& v) { return v.items() == 0; }
  static const char* status_error(key_status s) { return redis::status_error(s); }
};

}  // namespace ringbloom::redis
