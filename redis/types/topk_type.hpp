// redis/types/topk_type.hpp: the data type "RBloomTPK" of TOPK.*: the
// library's Top-K behind the shared type methods of sketch_types.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "module/module_common.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "ringbloom/sketch/top_k.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {

struct topk_traits {
  using type = top_k;
  static constexpr const char* name = "TOPK";
  static constexpr const char* type_name = "RBloomTPK";
  static constexpr const char* loadchunk = "TOPK.LOADCHUNK";
  static api::Type* type_handle() { return types().topk; }
  static std::string image(const type& v) { return serialize_sketch(any_sketch(v)); }
  static type from_image(std::string_view b) { return sketch_from_image<type>(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "TopK: key does not exist";
  }
};

}  // namespace ringbloom::redis
