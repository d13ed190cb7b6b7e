// redis/types/windowed_type.hpp: Bloom filters that forget, behind the BF.*
// commands (commands/bf_window.cpp; docs/redis.md, "Windowed filters").
//
// A BF key created with a window (`BF.RESERVE key p n WINDOW seconds` or
// `... WINDOWITEMS`, or BF.INSERT with the same options) holds a library
// windowed_bloom_filter (ringbloom/filter/windowed_bloom.hpp) in its own data
// type, "RBloom-WF". The BF commands are registered once, by bf.cpp;
// BF.RESERVE and BF.INSERT go first through a router that sends the
// creations with a window here; bf.cpp's handlers send the calls on a
// windowed key here (window_call).
//
// Time comes from the master: a write on a time window reads the server's
// clock once (RedisModule_Milliseconds), never earlier than the latest time
// the filter holds, passes it to the library, and is replicated as
// `BF.ADDAT key milliseconds item...`, so that replicas and the AOF apply
// the same times and hold the same bits. The RDB value and the AOF rewrite
// (`BF.LOADWINDOW key image`) are the library's checksummed image, which
// the library's deserialize checks on load.
#pragma once

#include <cstddef>
#include <vector>

#include "module/module_common.hpp"

namespace ringbloom::redis {

/// `specs` with the handlers of bf.reserve and bf.insert replaced by a
/// router that sends creations with a window to this file's commands and
/// the rest to the original handler; the other specs are unchanged. Up to 16
/// specs; more throws std::length_error (a new BF command needs a larger
/// table in bf_window.cpp).
std::vector<command_spec> with_window_routes(const command_spec* specs, std::size_t count);

/// Whether `key` holds a windowed filter. bf.cpp's handlers ask when their
/// key holds another type, close it, and pass the call to window_call,
/// which answers it as a windowed filter's command (or refuses a command
/// that does not apply to one).
bool holds_window(const open_key& key);
int window_call(const call& c);

/// Creates the "RBloom-WF" type and registers BF.ADDAT and BF.LOADWINDOW;
/// false after logging when the server refused one.
bool register_window(api::Ctx* ctx);

}  // namespace ringbloom::redis
