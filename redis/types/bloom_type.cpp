// redis/types/bloom_type.cpp: the data type "RBloom-BF" of BF.*, a library
// layered_bloom_filter with Redis's type methods: RDB (a header and one
// string per layer), AOF (BF.LOADCHUNK commands), MEMORY USAGE, DEBUG
// DIGEST-VALUE, COPY and lazy freeing.
#include "types/bloom_type.hpp"

#include <exception>
#include <string>
#include <vector>

#include "ringbloom/filter/layered_bloom.hpp"

namespace ringbloom::redis {
namespace {

constexpr int encoding_version = 1;

void* bf_rdb_load(api::IO* io, int encver) noexcept {
  if (encver != encoding_version) {
    api::LogIOError(io, "warning", "ringbloom: BF value of unknown encoding version %d", encver);
    return nullptr;
  }
  try {
    const std::uint64_t count = api::LoadUnsigned(io);
    if (api::IsIOError(io) || count < 1 || count > layered_bloom_filter::max_layers) return nullptr;
    std::vector<std::string> parts;
    parts.reserve(count + 1);
    for (std::uint64_t i = 0; i <= count; ++i) {
      std::size_t len = 0;
      char* buf = api::LoadStringBuffer(io, &len);
      if (api::IsIOError(io) || buf == nullptr) {
        if (buf != nullptr) api::Free(buf);
        return nullptr;
      }
      parts.emplace_back(buf, len);
      api::Free(buf);
    }
    const std::string header = std::move(parts.front());
    parts.erase(parts.begin());
    return make<layered_bloom_filter>(
        layered_bloom_filter::from_blobs(header, parts, settings().max_filter_bytes));
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: refusing a damaged BF value: %s", e.what());
    return nullptr;
  }
}

void bf_rdb_save(api::IO* io, void* value) noexcept {
  // Nothing here throws short of memory exhaustion, which Redis does not survive either.
  try {
    const auto* chain = static_cast<const layered_bloom_filter*>(value);
    api::SaveUnsigned(io, chain->layer_count());
    const std::string header = chain->header();
    api::SaveStringBuffer(io, header.data(), header.size());
    for (std::size_t i = 0; i < chain->layer_count(); ++i) {
      const std::string blob = chain->layer_blob(i);
      api::SaveStringBuffer(io, blob.data(), blob.size());
    }
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: could not save a BF value: %s", e.what());
  }
}

void bf_aof_rewrite(api::IO* io, api::String* key, void* value) noexcept {
  try {
    const auto* chain = static_cast<const layered_bloom_filter*>(value);
    const std::string header = chain->header();
    const std::string loadchunk = command_name("BF.LOADCHUNK");
    api::EmitAOF(io, loadchunk.c_str(), "slb", key, 1LL, header.data(), header.size());
    std::uint64_t cursor = 1;
    for (;;) {
      const std::string chunk = chain->chunk(cursor);
      if (chunk.empty()) break;
      api::EmitAOF(io, loadchunk.c_str(), "slb", key, static_cast<long long>(cursor), chunk.data(),
                   chunk.size());
    }
  } catch (const std::exception& e) {
    api::LogIOError(io, "warning", "ringbloom: could not rewrite a BF value: %s", e.what());
  }
}

std::size_t bf_mem_usage(const void* value) noexcept {
  return static_cast<const layered_bloom_filter*>(value)->memory_bytes();
}

void bf_digest(api::Digest* digest, void* value) noexcept {
  try {
    const auto* chain = static_cast<const layered_bloom_filter*>(value);
    const std::string header = chain->header();
    api::DigestAddStringBuffer(digest, header.data(), header.size());
    for (std::size_t i = 0; i < chain->layer_count(); ++i) {
      const auto words = chain->layer(i).words;
      api::DigestAddStringBuffer(digest, reinterpret_cast<const char*>(words.data()),
                                 words.size() * 8);
    }
    api::DigestEndSequence(digest);
  } catch (...) {
    api::DigestEndSequence(digest);
  }
}

void bf_free(void* value) noexcept { destroy(static_cast<layered_bloom_filter*>(value)); }

std::size_t bf_free_effort(api::String* /*key*/, const void* value) noexcept {
  return static_cast<const layered_bloom_filter*>(value)->layer_count();
}

void* bf_copy(api::String* /*from*/, api::String* /*to*/, const void* value) noexcept {
  try {
    return make<layered_bloom_filter>(*static_cast<const layered_bloom_filter*>(value));
  } catch (...) {
    return nullptr;  // COPY then fails with an error, the source untouched
  }
}

}  // namespace

api::Type* create_bloom_type(api::Ctx* ctx) {
  api::TypeMethods methods;
  methods.rdb_load = bf_rdb_load;
  methods.rdb_save = bf_rdb_save;
  methods.aof_rewrite = bf_aof_rewrite;
  methods.mem_usage = bf_mem_usage;
  methods.digest = bf_digest;
  methods.free = bf_free;
  methods.free_effort = bf_free_effort;
  methods.copy = bf_copy;
  return api::CreateDataType(ctx, "RBloom-BF", encoding_version, &methods);
}

}  // namespace ringbloom::redis
