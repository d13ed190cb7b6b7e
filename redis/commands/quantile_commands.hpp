// redis/commands/quantile_commands.hpp: the commands TDIGEST.* (tdigest.cpp)
// and KLL.* (kll.cpp) share, written once over a traits struct per type, so
// that both families parse, answer and refuse alike and a user learns one.
//
// A Traits struct gives, beside what sketch_types.hpp's type methods need
// (type, type_handle, status_error, ...):
//   prefix                 the start of every error sentence ("ERR T-Digest: ")
//   for_query(v, scratch)  the sketch to answer from: v itself, or a prepared
//                          copy kept in scratch (the value is never changed by
//                          a read, so a master and its replicas stay equal)
//   add(v, xs)             adds the parsed values; may throw std::overflow_error
// The sketch type answers min, max, quantile, cdf, rank, rev_rank, by_rank,
// by_rev_rank and trimmed_mean as quantile_math.hpp's quantile_sketch.
//
// The error sentences are RedisBloom's TDIGEST.* ones (src/rm_tdigest.c)
// after the type's prefix.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "module/module_common.hpp"
#include "types/sketch_types.hpp"

namespace ringbloom::redis::quantile_commands {

inline int reply_double(const call& c, double v) { return api::ReplyWithDouble(c.ctx, v); }

/// A map for a RESP3 client, a flat array otherwise (call::pairs). Doubles
/// need nothing of the kind: ReplyWithDouble sends a RESP3 double or a RESP2
/// bulk string by itself.
inline int reply_pairs(const call& c, long pairs) { return c.pairs(pairs); }

template <class Traits>
int refuse(const call& c, const char* what) {
  return c.error(std::string(Traits::prefix) + what);
}

/// The key's complete sketch, or nullptr after replying the error.
template <class Traits>
typename Traits::type* existing(const call& c, open_key& key) {
  key_status status;
  auto* s = complete_value<Traits>(key, status);
  if (status != key_status::ok) {
    c.error(Traits::status_error(status));
    return nullptr;
  }
  if (s == nullptr) c.error(pending_error);
  return s;
}

/// Parses argument i as a double (not NaN), or replies prefix + `what`.
template <class Traits>
bool parse_double(const call& c, int i, double& out, const char* what) {
  if (c.to_double(i, out) && !std::isnan(out)) return true;
  refuse<Traits>(c, what);
  return false;
}

/// What <TYPE>.MERGE dest numkeys src... [options] reads before its options.
template <class Traits>
struct merge_inputs {
  typename Traits::type* to = nullptr;  ///< the destination's sketch; nullptr when empty
  int options = 0;                      ///< the index of the first option
  std::vector<std::unique_ptr<open_key>> keys;
  std::vector<typename Traits::type*> sources;  ///< in the order given
};

/// Reads the destination and numkeys (RedisBloom's refusals); false after
/// replying an error. `dest` (argument 1) must stay open while `in` is
/// used; the caller has checked that argc >= 4.
template <class Traits>
bool merge_head(const call& c, open_key& dest, merge_inputs<Traits>& in) {
  const key_status dest_status = dest.status(Traits::type_handle());
  if (dest_status == key_status::mismatch) {
    c.error(api::wrongtype_error);
    return false;
  }
  if (dest_status == key_status::ok) {
    auto* v = dest.value<value_of<Traits>>();
    if (!v->complete()) {
      c.error(pending_error);
      return false;
    }
    in.to = &*v->value;
  }
  long long numkeys = 0;
  if (!c.to_long(2, numkeys)) {
    refuse<Traits>(c, "error parsing numkeys");
    return false;
  }
  if (numkeys <= 0) {
    refuse<Traits>(c, "numkeys needs to be a positive integer");
    return false;
  }
  if (numkeys > c.argc - 3) {
    c.wrong_arity();
    return false;
  }
  in.options = 3 + static_cast<int>(numkeys);
  return true;
}

/// Opens the sources (a source may be the destination); false after
/// replying an error for one that does not exist or is of another type.
template <class Traits>
bool merge_sources(const call& c, merge_inputs<Traits>& in) {
  for (int i = 3; i < in.options; ++i) {
    if (c.arg(i) == c.arg(1)) {
      if (in.to == nullptr) {
        c.error(Traits::status_error(key_status::empty));
        return false;
      }
      in.sources.push_back(in.to);
      continue;
    }
    in.keys.push_back(std::make_unique<open_key>(c, i, api::key_read));
    auto* s = existing<Traits>(c, *in.keys.back());
    if (s == nullptr) return false;
    in.sources.push_back(s);
  }
  return true;
}

/// <TYPE>.RESET key
template <class Traits>
int reset(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    auto* s = existing<Traits>(c, key);
    if (s == nullptr) return 0;
    s->reset();
    c.replicate();
    return c.ok();
  });
}

/// <TYPE>.ADD key value [value ...]: all parsed before any is added.
template <class Traits>
int add(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read | api::key_write);
    auto* s = existing<Traits>(c, key);
    if (s == nullptr) return 0;
    std::vector<double> xs(static_cast<std::size_t>(argc - 2));
    for (int i = 2; i < argc; ++i) {
      double& x = xs[static_cast<std::size_t>(i - 2)];
      if (!parse_double<Traits>(c, i, x, "error parsing val parameter")) return 0;
      if (!std::isfinite(x)) return refuse<Traits>(c, "val parameter needs to be a finite number");
    }
    try {
      Traits::add(*s, xs);
    } catch (const std::overflow_error&) {
      return refuse<Traits>(c, "overflow detected");
    }
    c.replicate();
    return c.ok();
  });
}

/// <TYPE>.MIN key / <TYPE>.MAX key: NaN when empty.
template <class Traits, bool Max>
int min_max(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 2) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const auto* s = existing<Traits>(c, key);
    if (s == nullptr) return 0;
    return reply_double(c, Max ? s->max() : s->min());
  });
}

/// A read command key arg [arg ...] that answers each argument: `parse`
/// (call, index, out) reads argument i or replies an error and returns
/// false; every argument is read before any answer; `answer` (call,
/// sketch, argument) replies one element of the array.
template <class Traits, class Arg, class Parse, class Answer>
int answer_each(api::Ctx* ctx, api::String** argv, int argc, Parse parse, Answer answer) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc < 3) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const auto* s = existing<Traits>(c, key);
    if (s == nullptr) return 0;
    std::vector<Arg> args(static_cast<std::size_t>(argc - 2));
    for (int i = 2; i < argc; ++i) {
      if (!parse(c, i, args[static_cast<std::size_t>(i - 2)])) return 0;
    }
    std::unique_ptr<typename Traits::type> scratch;
    const auto& t = Traits::for_query(*s, scratch);
    c.array(static_cast<long>(args.size()));
    for (const Arg& a : args) answer(c, t, a);
    return 0;
  });
}

/// <TYPE>.QUANTILE key q [q ...]
template <class Traits>
int quantile(api::Ctx* ctx, api::String** argv, int argc) {
  return answer_each<Traits, double>(
      ctx, argv, argc,
      [](const call& c, int i, double& q) {
        if (!parse_double<Traits>(c, i, q, "error parsing quantile")) return false;
        if (q >= 0 && q <= 1) return true;
        refuse<Traits>(c, "quantile should be in [0,1]");
        return false;
      },
      [](const call& c, const auto& t, double q) { reply_double(c, t.quantile(q)); });
}

/// <TYPE>.CDF key value [value ...]
template <class Traits>
int cdf(api::Ctx* ctx, api::String** argv, int argc) {
  return answer_each<Traits, double>(
      ctx, argv, argc,
      [](const call& c, int i, double& x) {
        return parse_double<Traits>(c, i, x, "error parsing cdf");
      },
      [](const call& c, const auto& t, double x) { reply_double(c, t.cdf(x)); });
}

/// <TYPE>.RANK / REVRANK key value [value ...]
template <class Traits, bool Reverse>
int rank(api::Ctx* ctx, api::String** argv, int argc) {
  return answer_each<Traits, double>(
      ctx, argv, argc,
      [](const call& c, int i, double& x) {
        return parse_double<Traits>(c, i, x, "error parsing value");
      },
      [](const call& c, const auto& t, double x) {
        c.integer(Reverse ? t.rev_rank(x) : t.rank(x));
      });
}

/// <TYPE>.BYRANK / BYREVRANK key rank [rank ...]
template <class Traits, bool Reverse>
int by_rank(api::Ctx* ctx, api::String** argv, int argc) {
  return answer_each<Traits, std::uint64_t>(
      ctx, argv, argc,
      [](const call& c, int i, std::uint64_t& r) {
        long long v = 0;
        if (!c.to_long(i, v)) {
          refuse<Traits>(c, "error parsing rank");
          return false;
        }
        if (v < 0) {
          refuse<Traits>(c, "rank needs to be non negative");
          return false;
        }
        r = static_cast<std::uint64_t>(v);
        return true;
      },
      [](const call& c, const auto& t, std::uint64_t r) {
        reply_double(c, Reverse ? t.by_rev_rank(r) : t.by_rank(r));
      });
}

/// <TYPE>.TRIMMED_MEAN key low_cut high_cut
template <class Traits>
int trimmed_mean(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const call c{ctx, argv, argc};
    if (argc != 4) return c.wrong_arity();
    open_key key(c, 1, api::key_read);
    const auto* s = existing<Traits>(c, key);
    if (s == nullptr) return 0;
    double lo = 0;
    double hi = 0;
    if (!c.to_double(2, lo)) return refuse<Traits>(c, "error parsing low_cut_percentile");
    if (!c.to_double(3, hi)) return refuse<Traits>(c, "error parsing high_cut_percentile");
    if (lo < 0 || lo > 1 || hi < 0 || hi > 1) {
      return refuse<Traits>(c, "low_cut_percentile and high_cut_percentile should be in [0,1]");
    }
    if (lo >= hi) {
      return refuse<Traits>(c, "low_cut_percentile should be lower than high_cut_percentile");
    }
    return reply_double(c, s->trimmed_mean(lo, hi));
  });
}

/// <TYPE>.SCANDUMP key iterator (protocol in types/staged_value.hpp).
template <class Traits>
int scandump(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const std::string bad = std::string(Traits::prefix) + "invalid iterator";
    return redis::scandump<Traits>(call{ctx, argv, argc}, bad.c_str());
  });
}

/// <TYPE>.LOADCHUNK key iterator data, what the AOF rewrite emits.
template <class Traits>
int loadchunk(api::Ctx* ctx, api::String** argv, int argc) {
  return guarded(ctx, [&] {
    const std::string p(Traits::prefix);
    const std::string bad_position = p + "invalid iterator";
    const std::string bad_header = p + "invalid dump header";
    const std::string bad_chunk = p + "invalid chunk, or chunks out of order";
    return redis::loadchunk<Traits>(call{ctx, argv, argc}, bad_position.c_str(), bad_header.c_str(),
                                    bad_header.c_str(), bad_chunk.c_str());
  });
}

}  // namespace ringbloom::redis::quantile_commands
