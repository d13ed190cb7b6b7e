// redis/types/cms_type.hpp: the data type "RBloomCMS" of CMS.*: the
// library's Count-Min sketch behind the shared type methods of
// sketch_types.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "module/module_common.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {

struct cms_traits {
  using type = count_min_sketch;
  static constexpr const char* name = "CMS";
  static constexpr const char* type_name = "RBloomCMS";
  static constexpr const char* loadchunk = "CMS.LOADCHUNK";
  static api::Type* type_handle() { return types().cms; }
  static std::string image(const type& v) { return serialize_sketch(any_sketch(v)); }
  static type from_image(std::string_view b) { return sketch_from_image<type>(b); }
  static std::size_t memory(const type& v) { return v.memory_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "CMS: key does not exist";
  }
};

}  // namespace ringbloom::redis
