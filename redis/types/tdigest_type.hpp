// redis/types/tdigest_type.hpp: the TDIGEST data type of ringbloom.so, a library
// t-digest (ringbloom/quantile/tdigest.hpp) behind the shared type methods
// of sketch_types.hpp (RDB, AOF through TDIGEST.LOADCHUNK, DUMP/RESTORE,
// DEBUG DIGEST, MEMORY USAGE, COPY).
#pragma once

#include "module/module_common.hpp"

namespace ringbloom::redis {

/// Creates the type and registers TDIGEST.* (tdigest_commands.cpp); false
/// after logging when the server refused one.
bool register_tdigest(api::Ctx* ctx);

}  // namespace ringbloom::redis
