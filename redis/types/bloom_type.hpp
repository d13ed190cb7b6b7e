// redis/types/bloom_type.hpp: the data type "RBloom-BF" of BF.*, whose value
// is a library layered_bloom_filter (ringbloom/filter/layered_bloom.hpp)
// allocated with make<> (module_common.hpp).
#pragma once

#include "module/module_common.hpp"

namespace ringbloom::redis {

/// Creates the type (encoding version 1) at load; null when the server
/// refused it.
api::Type* create_bloom_type(api::Ctx* ctx);

}  // namespace ringbloom::redis
