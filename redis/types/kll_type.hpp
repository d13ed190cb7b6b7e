// redis/types/kll_type.hpp: the data type "RBloomKLL" of KLL.*: the library's
// KLL sketch (ringbloom/quantile/kll.hpp) behind the shared type methods of
// sketch_types.hpp (RDB, AOF through KLL.LOADCHUNK, DUMP/RESTORE, DEBUG
// DIGEST-VALUE, MEMORY USAGE, COPY). The image is the library's quantile
// file (quantile_file.hpp), which holds the sketch's seed and generator
// state: a value loaded from RDB, AOF or DUMP, or built on a replica from
// the same commands, goes on exactly as the original.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "module/module_common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis {

/// The type, once created by register_kll.
inline api::Type*& kll_type_slot() noexcept {
  static api::Type* type = nullptr;
  return type;
}

struct kll_traits {
  using type = kll_sketch;
  static constexpr const char* name = "KLL";
  static constexpr const char* type_name = "RBloomKLL";
  static constexpr const char* loadchunk = "KLL.LOADCHUNK";
  static constexpr const char* prefix = "ERR KLL: ";
  static api::Type* type_handle() { return kll_type_slot(); }
  static std::string image(const type& v) { return serialize_quantile(any_quantile(v)); }
  static type from_image(std::string_view b) {
    any_quantile q = deserialize_quantile(b);
    if (auto* s = std::get_if<kll_sketch>(&q)) return std::move(*s);
    throw data_error("the dump holds a t-digest, not a KLL sketch");
  }
  /// Beyond the struct: the levels and, after a query, the query view.
  static std::size_t memory(const type& v) { return v.allocated_bytes(); }
  static bool empty(const type& /*v*/) { return false; }
  static const char* status_error(key_status s) {
    return s == key_status::mismatch ? api::wrongtype_error : "ERR KLL: key does not exist";
  }
  /// Queries read the sketch itself: its query view is built once and kept
  /// until the next write (the sketch's values and state are unchanged).
  static const type& for_query(const type& v, std::unique_ptr<type>& /*scratch*/) { return v; }
  static void add(type& v, std::span<const double> xs) { v.add_many(xs); }
};

/// Creates the type and registers KLL.* (commands/kll.cpp); false after
/// logging when the server refused one.
bool register_kll(api::Ctx* ctx);

}  // namespace ringbloom::redis
