// redis/types/sketch_types.hpp: the data types of CF.*, CMS.*, TOPK.* and
// TDIGEST.*, one template over a small traits struct per kind
// (types/cuckoo_type.hpp, cms_type.hpp, topk_type.hpp) (its library type, its
// checksummed image, its LOADCHUNK command), and the shared SCANDUMP /
// LOADCHUNK handlers (protocol in staged_value.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "module/module_common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "types/staged_value.hpp"

namespace ringbloom::redis {

/// The sketch of kind T in a serialized image of any sketch; data_error
/// when the image holds another kind.
template <class T>
T sketch_from_image(std::string_view bytes) {
  any_sketch s = deserialize_sketch(bytes);
  if (auto* t = std::get_if<T>(&s)) return std::move(*t);
  throw data_error("the dump holds another kind of sketch");
}

/// RedisBloom's refusal `refusal` for a creation too large, then why: `what`
/// would pass MAX_FILTER_BYTES.
inline std::string limit_error(const char* refusal, const char* what) {
  return std::string(refusal) + ": the " + what + " would need more than MAX_FILTER_BYTES (" +
         std::to_string(settings().max_filter_bytes) +
         " bytes); make it smaller or load the module with a larger MAX_FILTER_BYTES";
}

template <class Traits>
using value_of = staged_value<typename Traits::type>;

/// The key's value when it holds a complete one of this kind. `status`
/// receives ok (then the result is non-null), empty, mismatch, or, for a
/// value still being restored, ok with a null result.
/// Inlined: as a call it cost about 24 instructions of every command.
template <class Traits>
[[gnu::always_inline]] inline typename Traits::type* complete_value(const open_key& key,
                                                                    key_status& status) {
  status = key.status(Traits::type_handle());
  if (status != key_status::ok) return nullptr;
  auto* v = key.value<value_of<Traits>>();
  return v->complete() ? &*v->value : nullptr;
}

inline constexpr const char* pending_error =
    "ERR the key is still being restored by LOADCHUNK; send its remaining chunks first";

template <class Traits>
struct type_methods {
  static void* rdb_load(api::IO* io, int encver) noexcept {
    if (encver != 1) return nullptr;
    try {
      auto* v = make<value_of<Traits>>();
      const std::uint64_t complete = api::LoadUnsigned(io);
      if (!complete) {
        v->restoring().expected_size = api::LoadUnsigned(io);
        v->restoring().expected_hash = api::LoadUnsigned(io);
      }
      std::size_t len = 0;
      char* buf = api::LoadStringBuffer(io, &len);
      if (api::IsIOError(io) || buf == nullptr) {
        if (buf != nullptr) api::Free(buf);
        destroy(v);
        return nullptr;
      }
      std::string bytes(buf, len);
      api::Free(buf);
      try {
        if (complete) {
          v->value.emplace(Traits::from_image(bytes));
        } else {
          v->restoring().pending = std::move(bytes);
        }
      } catch (const std::exception& e) {
        destroy(v);
        api::LogIOError(io, "warning", "ringbloom: refusing a damaged %s value: %s", Traits::name,
                        e.what());
        return nullptr;
      }
      return v;
    } catch (...) {
      return nullptr;
    }
  }

  static void rdb_save(api::IO* io, void* value) noexcept {
    try {
      const auto* v = static_cast<const value_of<Traits>*>(value);
      api::SaveUnsigned(io, v->complete() ? 1 : 0);
      if (v->complete()) {
        const std::string image = Traits::image(*v->value);
        api::SaveStringBuffer(io, image.data(), image.size());
      } else {
        const std::string_view pending = v->pending();
        api::SaveUnsigned(io, v->restore ? v->restore->expected_size : 0);
        api::SaveUnsigned(io, v->restore ? v->restore->expected_hash : 0);
        api::SaveStringBuffer(io, pending.data(), pending.size());
      }
    } catch (const std::exception& e) {
      api::LogIOError(io, "warning", "ringbloom: could not save a %s value: %s", Traits::name,
                      e.what());
    }
  }

  static void aof_rewrite(api::IO* io, api::String* key, void* value) noexcept {
    try {
      const auto* v = static_cast<const value_of<Traits>*>(value);
      if (!v->complete()) return;  // a half-restored value is not replayed
      const std::string image = Traits::image(*v->value);
      const std::string header = dump_header(image);
      const std::string loadchunk = command_name(Traits::loadchunk);
      api::EmitAOF(io, loadchunk.c_str(), "slb", key, 1LL, header.data(), header.size());
      for (std::size_t at = 0; at < image.size(); at += max_slice_bytes) {
        const std::size_t n = std::min(max_slice_bytes, image.size() - at);
        api::EmitAOF(io, loadchunk.c_str(), "slb", key, static_cast<long long>(1 + at + n),
                     image.data() + at, n);
      }
    } catch (const std::exception& e) {
      api::LogIOError(io, "warning", "ringbloom: could not rewrite a %s value: %s", Traits::name,
                      e.what());
    }
  }

  static std::size_t mem_usage(const void* value) noexcept {
    const auto* v = static_cast<const value_of<Traits>*>(value);
    return sizeof(*v) + (v->restore ? sizeof(restore_state) + v->restore->pending.capacity() : 0) +
           (v->complete() ? Traits::memory(*v->value) : 0);
  }

  static void digest(api::Digest* md, void* value) noexcept {
    try {
      const auto* v = static_cast<const value_of<Traits>*>(value);
      const std::string image =
          v->complete() ? Traits::image(*v->value) : std::string(v->pending());
      api::DigestAddStringBuffer(md, image.data(), image.size());
    } catch (...) {
    }
    api::DigestEndSequence(md);
  }

  static void free(void* value) noexcept { destroy(static_cast<value_of<Traits>*>(value)); }

  static std::size_t free_effort(api::String* /*key*/, const void* /*value*/) noexcept { return 1; }

  static void* copy(api::String* /*from*/, api::String* /*to*/, const void* value) noexcept {
    try {
      return make<value_of<Traits>>(*static_cast<const value_of<Traits>*>(value));
    } catch (...) {
      return nullptr;
    }
  }

  static api::Type* create(api::Ctx* ctx) {
    api::TypeMethods m;
    m.rdb_load = rdb_load;
    m.rdb_save = rdb_save;
    m.aof_rewrite = aof_rewrite;
    m.mem_usage = mem_usage;
    m.digest = digest;
    m.free = free;
    m.free_effort = free_effort;
    m.copy = copy;
    return api::CreateDataType(ctx, Traits::type_name, 1, &m);
  }
};

/// SCANDUMP key iterator. `messages` are the kind's error sentences.
template <class Traits>
int scandump(const call& c, const char* bad_position) {
  if (c.argc != 3) return c.wrong_arity();
  long long pos = 0;
  if (!c.to_long(2, pos) || pos < 0) return c.error(bad_position);
  open_key key(c, 1, api::key_read);
  key_status status;
  const auto* value = complete_value<Traits>(key, status);
  if (status != key_status::ok) return c.error(Traits::status_error(status));
  if (value == nullptr) return c.error(pending_error);
  c.array(2);
  if (Traits::empty(*value)) {  // as RedisBloom's CF.SCANDUMP of an empty filter
    c.integer(0);
    return c.null();
  }
  const std::string image = Traits::image(*value);
  if (pos == 0) {
    c.integer(1);
    return c.bulk(dump_header(image));
  }
  const auto at = static_cast<std::uint64_t>(pos - 1);
  if (at >= image.size()) {
    c.integer(0);
    return c.null();
  }
  const std::size_t n = std::min<std::uint64_t>(max_slice_bytes, image.size() - at);
  c.integer(pos + static_cast<long long>(n));
  return c.bulk(std::string_view(image).substr(at, n));
}

/// LOADCHUNK key iterator data. RedisBloom's sentences: `bad_header` for a
/// first chunk of the wrong length, `bad_create` for one of the right length
/// that is not a header (damaged), `bad_chunk` for any later chunk refused.
template <class Traits>
int loadchunk(const call& c, const char* bad_position, const char* bad_header,
              const char* bad_create, const char* bad_chunk) {
  if (c.argc != 4) return c.wrong_arity();
  long long pos = 0;
  if (!c.to_long(2, pos) || pos <= 0) return c.error(bad_position);
  open_key key(c, 1, api::key_read | api::key_write);
  const key_status status = key.status(Traits::type_handle());
  const std::string_view data = c.arg(3);
  if (pos == 1) {
    if (status != key_status::empty) return c.error(Traits::status_error(status));
    auto v = value_of<Traits>();
    if (data.size() != dump_header_bytes) return c.error(bad_header);
    try {
      parse_dump_header(data, v.restoring().expected_size, v.restoring().expected_hash);
    } catch (const data_error&) {
      return c.error(bad_create);
    }
    if (v.restoring().expected_size > settings().max_filter_bytes + 4096) {
      return c.error(bad_create);
    }
    key.set(Traits::type_handle(), make<value_of<Traits>>(std::move(v)));
    c.replicate();
    return c.ok();
  }
  if (status != key_status::ok) return c.error(Traits::status_error(status));
  auto* v = key.value<value_of<Traits>>();
  const chunk_result r = v->take_chunk(static_cast<std::uint64_t>(pos - 1), data,
                                       [](std::string_view b) { return Traits::from_image(b); });
  if (r == chunk_result::out_of_order) return c.error(bad_chunk);
  if (r == chunk_result::damaged) {
    key.remove();  // a damaged dump leaves nothing behind
    c.replicate();
    return c.error(bad_chunk);
  }
  c.replicate();
  return c.ok();
}

}  // namespace ringbloom::redis
