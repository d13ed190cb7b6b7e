// `ringbloom bloom ...`: Bloom filter files from the command line.
//
//   create FILE (--capacity N --fpr P | --bits M --hashes K) [--kind K] [--hash H] [--seed S]
//   create FILE --kind fuse8|fuse16|fuse8-4wise --from KEYS.txt|-   a static filter of the key set
//                                    (one key per line, streamed; about 48 bytes of memory
//                                    per key while building, checked before each doubling)
//   add    FILE [ITEM...]            items from the arguments or stdin, in checkpoints
//                                    (io/checkpoint.hpp: a private delta folded in
//                                    under the lock every second or 4M lines)
//   check  FILE [ITEM...] [--explain] item<TAB>maybe|no; exit 1 when any is absent
//                                    (stdin answered in batches of 1024 lines, or line by
//                                    line on a terminal)
//   info   FILE                      what the filter says about itself
//   merge  A B -o OUT [--intersect]  union (or intersection) of two compatible filters
//   remove FILE [ITEM...]            counting filters only
//   create FILE (--window S --capacity N | --window-items N) --fpr P
//                                    a windowed filter (windowed_file.hpp): it forgets
//   add|check FILE ... [--at T]      on a windowed file: at time T (default: the clock)
//   dedup  [FILE] (--window S --capacity N | --window-items N) [--fpr P] [--at-field K]
//                                    print the stdin lines not seen within the window
//
// The commands are a thin skin over ringbloom/filter/filter_file.hpp: every number
// printed comes from any_filter / filter_stats. docs/bloom.md ("Command line")
// describes the output formats. add and check go through the batch calls of
// any_filter (add_many / may_contain_many: one kind dispatch per batch); the
// kinds, their names and the --kind help come from the kind table
// (ringbloom/filter/filter_kinds.hpp).
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/filter/filter_kinds.hpp"
#include "ringbloom/filter/windowed_dedup.hpp"
#include "ringbloom/filter/windowed_file.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::cli {
namespace {

namespace fs = std::filesystem;
// Ordered, so that output reads in a sensible order ("key" before "present").
using json = nlohmann::ordered_json;

/// Lines of standard input `check` answers at a time when stdin is not a
/// terminal: enough for the batch lookup to overlap its memory misses, few
/// enough that answers follow the input closely. On a terminal each line is
/// answered as soon as it is typed.
constexpr std::size_t check_batch_size = 1024;

/// The most `remove` holds from standard input (it removes all or none, so it
/// reads everything first): 64 MiB, counting each item's bookkeeping.
constexpr std::uint64_t remove_stdin_limit = std::uint64_t{64} << 20;

// --- formatting helpers -----------------------------------------------------

/// What m counts for the kind ("bits", or "counters" for counting filters).
std::string_view cell_name(filter_kind kind) { return filter_kind_of(kind).cells; }

/// A double for JSON: nlohmann writes infinities as null; say so explicitly.
json number_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

/// One of a kind's own facts (filter_description) as JSON.
json detail_json(const filter_detail_value& value) {
  return std::visit(
      [](const auto& v) -> json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::vector<filter_layer_detail>>) {
          json layers = json::array();
          for (const filter_layer_detail& l : v) {
            layers.push_back(json{{"bits", l.bits},
                                  {"hashes", l.hashes},
                                  {"items", l.items},
                                  {"capacity", l.capacity}});
          }
          return layers;
        } else {
          return json(v);
        }
      },
      value);
}

constexpr std::string_view read_advice =
    "check the file name, or create the filter first with 'ringbloom bloom create'";

// --- windowed filters: options shared by create and dedup ---------------------------

/// --window SECONDS | --window-items N: what makes a filter windowed.
struct window_options {
  double seconds = 0;
  std::uint64_t items = 0;
  CLI::Option* seconds_opt = nullptr;
  CLI::Option* items_opt = nullptr;
  [[nodiscard]] bool given() const { return seconds_opt->count() + items_opt->count() > 0; }
};

/// --at given for a file that is not a windowed filter.
[[noreturn]] void refuse_at(const std::string& file) {
  throw usage_error(fmt::format(
      "--at is for windowed filters, and '{}' is not one (it keeps its items forever); drop --at",
      file));
}

void add_window_options(CLI::App& cmd, window_options& w) {
  w.seconds_opt = add_number_option(
      cmd, "--window", w.seconds, number_range<double>{0, 1e12, true, false},
      "A windowed filter that forgets items after this many seconds (with --capacity: the most "
      "items in one window)",
      "give the window in seconds, e.g. 3600 for an hour");
  w.items_opt =
      add_number_option(cmd, "--window-items", w.items, at_least<std::uint64_t>(1),
                        "A windowed filter that forgets items after this many later insertions",
                        "give the number of recent items to remember");
}

// --- create -------------------------------------------------------------------

struct create_options {
  std::string file;
  std::uint64_t capacity = 0;
  double fpr = 0;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::string kind{filter_kind_name(default_filter_kind)};
  std::string hash{hash_name(default_hash)};
  std::uint64_t seed = 0;
  std::string from;  // fuse kinds: the key file, or "-" for stdin
  bool force = false;
  bool json = false;
  CLI::Option* from_opt = nullptr;
  CLI::Option* capacity_opt = nullptr;
  CLI::Option* fpr_opt = nullptr;
  CLI::Option* bits_opt = nullptr;
  CLI::Option* hashes_opt = nullptr;
  CLI::Option* kind_opt = nullptr;
  CLI::Option* hash_opt = nullptr;
  window_options window;
};

void run_create_windowed(const create_options& o);

/// Refuses a filter this process has no memory for, before allocating it.
/// Creating holds the filter and its file image at once: twice its size.
void check_filter_memory(const filter_spec& spec, const std::string& what,
                         std::string_view advice) {
  const std::uint64_t bytes = planned_memory_bytes(spec);
  require_memory(2 * bytes,
                 fmt::format("a {} filter of {} for {} (held twice while its file is written)",
                             filter_kind_name(spec.kind), io::format_bytes(bytes), what),
                 advice);
}

// --- create --kind fuse8|fuse16|fuse8-4wise --from KEYS -----------------------------

/// The key hashes of the lines of --from (read_fuse_key_hashes: the keys are
/// never held, and memory is checked before the hash array grows).
std::vector<std::uint64_t> read_key_hashes(const create_options& o, filter_kind kind) {
  line_reader in =
      o.from == "-"
          ? line_reader(0)
          : with_advice("check the --from file name (one key per line), or give - for stdin",
                        [&] { return line_reader::open(o.from, "--from " + o.from); });
  try {
    return read_fuse_key_hashes(in, kind, o.seed, "--from " + o.from);
  } catch (const io::memory_error& e) {
    throw usage_error(e.what());  // the keys the user gave (exit 2)
  }
}

void refuse_existing(const create_options& o) { refuse_output(o.file, o.force, {o.from}); }

void run_create_fuse(const create_options& o, filter_kind kind) {
  for (const CLI::Option* opt : {o.capacity_opt, o.fpr_opt, o.bits_opt, o.hashes_opt}) {
    if (opt->count() > 0) {
      throw usage_error(fmt::format(
          "{} does not apply to a {} filter, which is sized by its keys; drop {} and give the "
          "keys with --from",
          opt->get_name(), o.kind, opt->get_name()));
    }
  }
  if (o.from_opt->count() == 0) {
    throw usage_error(fmt::format(
        "a {} filter is static and built from its whole key set; give the keys with --from "
        "KEYS.txt (one per line, or --from - for standard input)",
        o.kind));
  }
  if (parse_hash(o.hash) != hash_kind::xxh3) {
    throw usage_error(fmt::format("a {} filter hashes with xxh3; drop --hash {}", o.kind, o.hash));
  }
  refuse_existing(o);  // before the keys are read
  const std::vector<std::uint64_t> hashes = read_key_hashes(o, kind);
  const any_filter filter = build_fuse_filter(kind, hashes, o.seed);
  save_filter(o.file, filter);

  const filter_stats stats = filter.stats();
  const std::uint64_t file_size = serialized_size(filter);
  const double bits_per_key = stats.items_added == 0 ? 0
                                                     : static_cast<double>(stats.bits) /
                                                           static_cast<double>(stats.items_added);
  if (o.json) {
    print_json(json{{"file", o.file},
                    {"kind", filter_kind_name(stats.kind)},
                    {"keys_read", hashes.size()},
                    {"items", stats.items_added},
                    {"bits", stats.bits},
                    {"bits_per_item", bits_per_key},
                    {"expected_fpr", stats.expected_fpr},
                    {"hash", hash_name(stats.hash)},
                    {"seed", stats.seed},
                    {"memory_bytes", stats.memory_bytes},
                    {"file_bytes", file_size}});
    return;
  }
  fmt::print(
      "created {}: {} filter of {} distinct keys ({} lines read), {:.2f} bits per key, expected "
      "false-positive rate {:.4g}%, hash xxh3 (seed {}), file {}\n",
      o.file, filter_kind_name(stats.kind), stats.items_added, hashes.size(), bits_per_key,
      100 * stats.expected_fpr, stats.seed, io::format_bytes(file_size));
}

void run_create(const create_options& o) {
  if (o.window.given()) return run_create_windowed(o);
  const filter_kind kind = parse_filter_kind(o.kind);
  if (is_static_kind(kind)) return run_create_fuse(o, kind);
  if (o.from_opt->count() > 0) {
    throw usage_error(
        fmt::format("--from builds a static filter from its keys; use it with --kind {}, or "
                    "create a {} filter empty and fill it with 'ringbloom bloom add {} < {}'",
                    filter_kind_names(&filter_kind_info::is_static), o.kind, o.file, o.from));
  }
  const bool by_capacity = o.capacity_opt->count() > 0 || o.fpr_opt->count() > 0;
  const bool by_size = o.bits_opt->count() > 0 || o.hashes_opt->count() > 0;
  if (by_capacity == by_size) {
    throw usage_error(
        by_capacity ? "--capacity/--fpr and --bits/--hashes were both given; size the filter "
                      "either by capacity and false-positive rate or by bits and hashes, not both"
                    : "the filter has no size; give --capacity N --fpr P (for example --capacity "
                      "1000000 --fpr 0.01) or --bits M --hashes K");
  }
  if (by_capacity && (o.capacity_opt->count() == 0 || o.fpr_opt->count() == 0)) {
    throw usage_error(fmt::format("{} was given without {}; give both --capacity and --fpr",
                                  o.capacity_opt->count() > 0 ? "--capacity" : "--fpr",
                                  o.capacity_opt->count() > 0 ? "--fpr" : "--capacity"));
  }
  if (by_size && (o.bits_opt->count() == 0 || o.hashes_opt->count() == 0)) {
    throw usage_error(fmt::format("{} was given without {}; give both --bits and --hashes",
                                  o.bits_opt->count() > 0 ? "--bits" : "--hashes",
                                  o.bits_opt->count() > 0 ? "--hashes" : "--bits"));
  }

  filter_spec spec;
  spec.kind = parse_filter_kind(o.kind);
  spec.hash = parse_hash(o.hash);
  spec.seed = o.seed;
  if (by_capacity) {
    spec.capacity = o.capacity;
    spec.fpr = o.fpr;
  } else {
    spec.bits = o.bits;
    spec.hashes = o.hashes;
  }
  // Size first, allocate only if the memory is there.
  check_filter_memory(spec,
                      by_capacity ? fmt::format("--capacity {} --fpr {}", o.capacity, o.fpr)
                                  : fmt::format("--bits {}", o.bits),
                      by_capacity ? "lower --capacity or raise --fpr" : "lower --bits");
  // Build first: a bad size is reported before the file system is looked at.
  const any_filter filter = make_filter(spec);

  refuse_existing(o);
  save_filter(o.file, filter);

  const filter_stats stats = filter.stats();
  const std::uint64_t file_size = serialized_size(filter);
  if (o.json) {
    json doc{{"file", o.file},
             {"kind", filter_kind_name(stats.kind)},
             {"bits", stats.bits},
             {"hashes", stats.hashes},
             {"hash", hash_name(stats.hash)},
             {"seed", stats.seed},
             {"layers", stats.layers},
             {"memory_bytes", stats.memory_bytes},
             {"file_bytes", file_size}};
    if (by_capacity) {
      doc["capacity"] = o.capacity;
      doc["fpr"] = o.fpr;
    }
    print_json(doc);
    return;
  }
  fmt::print("created {}: {} filter, m = {} {}, k = {}, hash {} (seed {}), memory {}\n", o.file,
             filter_kind_name(stats.kind), stats.bits, cell_name(stats.kind), stats.hashes,
             hash_name(stats.hash), stats.seed, io::format_bytes(stats.memory_bytes));
}

void add_create(CLI::App& bloom) {
  auto o = std::make_shared<create_options>();
  auto* cmd = bloom.add_subcommand("create", "Create an empty filter file");
  cmd->add_option("file", o->file, "The filter file to write")->required();
  o->capacity_opt = add_number_option(*cmd, "--capacity", o->capacity, at_least<std::uint64_t>(1),
                                      "Items the filter is made for (with --fpr)",
                                      "give the number of items the filter should hold");
  o->fpr_opt = add_number_option(*cmd, "--fpr", o->fpr, number_range<double>{0, 1, true, true},
                                 "Target false-positive rate at capacity (with --capacity)",
                                 "for a 1% rate give 0.01");
  o->bits_opt =
      add_number_option(*cmd, "--bits", o->bits, between<std::uint64_t>(1, max_filter_bits),
                        "Explicit size m in bits (counters for counting filters)",
                        "for a 1% rate use about 10 bits per item and 8 hashes");
  o->hashes_opt =
      add_number_option(*cmd, "--hashes", o->hashes, between<std::uint32_t>(1, max_filter_hashes),
                        "Explicit number k of hashes (with --bits)",
                        "for a 1% rate use about 10 bits per item and 8 hashes");
  o->kind_opt = cmd->add_option("--kind", o->kind, filter_kinds_help());
  o->from_opt = cmd->add_option(
      "--from", o->from,
      "fuse8/fuse16/fuse8-4wise: the keys, one per line (- for stdin); streamed, about 48 bytes "
      "of memory per key while building");
  o->hash_opt = cmd->add_option("--hash", o->hash, "xxh3 (default), sha256, poly31 or md5");
  add_window_options(*cmd, o->window);
  add_number_option(*cmd, "--seed", o->seed, at_least<std::uint64_t>(0),
                    "Hash seed (xxh3 only; default 0)");
  cmd->add_flag("--force", o->force, "Replace FILE if it exists");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd,
              "ringbloom bloom create seen.rbf --capacity 1000000 --fpr 0.01\n"
              "  ringbloom bloom create dense.rbf --kind densest --capacity 1000000 --fpr 0.01\n"
              "  ringbloom bloom create lesson.rbf --kind textbook --bits 16 --hashes 2 --hash "
              "sha256\n"
              "  ringbloom bloom create sstable-7.rbf --kind fuse8 --from keys.txt\n"
              "  ringbloom bloom create clicks.rbw --window 600 --capacity 100000 --fpr 0.01");
  cmd->callback([o] {
    with_advice("check that the directory exists and is writable", [&] { run_create(*o); });
  });
}

// --- add ------------------------------------------------------------------------

struct add_options {
  std::string file;
  std::vector<std::string> items;
  double checkpoint_seconds = 1.0;
  std::uint64_t checkpoint_items = io::checkpoint_policy{}.max_items;
  bool json = false;
  double at = 0;
  CLI::Option* at_opt = nullptr;
};

void run_add_windowed(const add_options& o);

io::checkpoint_policy add_policy(const add_options& o) {
  return checkpoint_policy_of(o.checkpoint_seconds, o.checkpoint_items,
                              " (an item is durable within about that long)");
}

void run_add(const add_options& o) {
  require_single_line(o.items);  // as every command that takes items
  if (peek_windowed_file(o.file)) return run_add_windowed(o);
  if (o.at_opt->count() > 0) refuse_at(o.file);
  // A static filter is refused (exit 2: the file is fine, the request is
  // not): by the checkpoint for items given as arguments, so that the file
  // is opened once; from its kind byte before standard input is read.
  if (o.items.empty()) {
    if (const auto kind = peek_filter_kind(o.file)) refuse_static_add(o.file, *kind);
  }
  std::uint64_t items_now = 0;
  auto stream = add_filter_stream(o.file, add_policy(o), &items_now);

  if (!o.items.empty()) {
    for (const auto& item : o.items) stream.add(item);
    stream.checkpoint();  // one locked update: all the arguments or none
  } else {
    stream_stdin(stream, "items", [&](const std::string& line) { stream.add(line); });
    if (stream.stats().durable_items == 0) {
      // Still prove the file is a valid filter (and report its count).
      items_now = open_filter_mapped(o.file).items_added();
    }
  }

  const std::uint64_t added = stream.stats().durable_items;
  if (o.json) {
    print_json(json{{"file", o.file}, {"added", added}, {"items", items_now}});
    return;
  }
  fmt::print("added {} to {} ({} in the filter)\n", count_of(added, "item"), o.file,
             count_of(items_now, "item"));
}

void add_add(CLI::App& bloom) {
  auto o = std::make_shared<add_options>();
  auto* cmd = bloom.add_subcommand("add", "Add items (arguments, or one per line from stdin)");
  cmd->add_option("file", o->file, "The filter file to update")->required();
  cmd->add_option("items", o->items, "Items to add; when none are given, read stdin");
  cmd->add_option("--checkpoint-seconds", o->checkpoint_seconds,
                  "Streamed lines are made durable at most this long after they arrive "
                  "(default 1)");
  cmd->add_option("--checkpoint-items", o->checkpoint_items,
                  "... or once this many lines wait (default 4194304)");
  cmd->add_flag("--json", o->json, "Print the count as JSON");
  o->at_opt = add_number_option(*cmd, "--at", o->at, number_range<double>{0, 1e12},
                                "Windowed filters: the items' time in Unix seconds (default: now)",
                                "give Unix seconds, e.g. 1700000000");
  set_example(*cmd,
              "ringbloom bloom add seen.rbf anna bora\n"
              "  tail -f access.log | cut -d' ' -f1 | ringbloom bloom add seen.rbf "
              "--checkpoint-seconds 5\n"
              "  ringbloom bloom add clicks.rbw user:42 --at 1700000000");
  cmd->callback([o] { with_advice(read_advice, [&] { run_add(*o); }); });
}

// --- check ----------------------------------------------------------------------

struct check_options {
  std::string file;
  std::vector<std::string> items;
  bool explain = false;
  bool json = false;
  double at = 0;
  CLI::Option* at_opt = nullptr;
};

/// out[i] = whether items[i] may be present, for a batch.
using batch_lookup = std::function<void(std::span<const std::string> items, std::span<bool> out)>;
void run_check_windowed(const check_options& o, context& ctx);

json explain_json(const std::vector<bit_probe>& probes, bool layered) {
  json positions = json::array();
  json values = json::array();
  json layers = json::array();
  for (const auto& p : probes) {
    positions.push_back(p.position);
    values.push_back(p.value);
    layers.push_back(p.layer);
  }
  json doc{{"positions", std::move(positions)}, {"values", std::move(values)}};
  if (layered) doc["layers"] = std::move(layers);
  return doc;
}

/// Answers the items (arguments, or stdin in batches) with `lookup`, or one
/// at a time with `filter` under --explain, and prints the answers.
void answer_items(const check_options& o, context& ctx, const batch_lookup& lookup,
                  const any_filter* filter) {
  const bool layered = filter != nullptr && filter_kind_of(filter->kind()).layered;
  bool any_absent = false;
  bool first = true;
  const auto answer = [&](std::string_view item, bool present) {
    any_absent = any_absent || !present;
    std::vector<bit_probe> probes;
    if (o.explain) probes = filter->explain(item);
    if (o.json) {
      json entry{{"key", item}, {"present", present}};
      if (o.explain) entry.update(explain_json(probes, layered));
      // One object per line inside one array: a valid document however long
      // the input, written as it is read.
      fmt::print("{}\n{}", first ? "" : ",", json_line(entry));
    } else if (o.explain) {
      fmt::print("{}\t{}\t{}\n", item, present ? "maybe" : "no", describe_probes(probes, layered));
    } else {
      fmt::print("{}\t{}\n", item, present ? "maybe" : "no");
    }
    first = false;
  };

  if (o.json) std::fputs("[", stdout);
  if (o.explain) {
    // --explain looks at every probe anyway: one item at a time.
    for_each_item(o.items, [&](std::string_view item) { answer(item, filter->may_contain(item)); });
  } else {
    // Batches through may_contain_many: hash a batch, prefetch, then probe.
    // A batch read from stdin ends early when the next line has not arrived
    // yet, and is answered and flushed at once: a co-process never stalls.
    const std::size_t batch_size = check_batch_size;
    const auto out = std::make_unique<bool[]>(batch_size);
    std::string text;  // the plain answers of a batch, written with one call
    const auto run = [&](std::span<const std::string> items) {
      lookup(items, {out.get(), items.size()});
      if (o.json) {
        for (std::size_t i = 0; i < items.size(); ++i) answer(items[i], out[i]);
        return;
      }
      text.clear();
      for (std::size_t i = 0; i < items.size(); ++i) {
        any_absent = any_absent || !out[i];
        text.append(items[i]).append(out[i] ? "\tmaybe\n" : "\tno\n");
      }
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
    if (!o.items.empty()) {
      require_single_line(o.items);
      const std::span<const std::string> all(o.items);
      for (std::size_t at = 0; at < all.size(); at += batch_size) {
        run(all.subspan(at, std::min(batch_size, all.size() - at)));
      }
    } else {
      line_reader in;
      std::vector<std::string> batch;
      batch.reserve(batch_size);
      while (read_batch(in, batch, batch_size, batch_fill::prompt)) {
        run(batch);
        std::fflush(stdout);
      }
    }
  }
  if (o.json) std::fputs("\n]\n", stdout);
  if (any_absent) ctx.exit_status = exit_negative;
}

void run_check(const check_options& o, context& ctx) {
  if (peek_windowed_file(o.file)) return run_check_windowed(o, ctx);
  if (o.at_opt->count() > 0) refuse_at(o.file);
  const any_filter filter = open_filter_mapped(o.file);
  answer_items(
      o, ctx,
      [&](std::span<const std::string> items, std::span<bool> out) {
        (void)filter.may_contain_many(items, out);
      },
      &filter);
}

void add_check(CLI::App& bloom, context& ctx) {
  auto o = std::make_shared<check_options>();
  auto* cmd = bloom.add_subcommand(
      "check", "Ask whether items may be present; exit 1 when any is definitely absent");
  cmd->add_option("file", o->file, "The filter file to query (opened read-only, mapped)")
      ->required();
  cmd->add_option("items", o->items, "Items to look up; when none are given, read stdin");
  cmd->add_flag("--explain", o->explain, "Show each item's k positions and which are zero");
  cmd->add_flag("--json", o->json,
                "Print a JSON list of {\"key\", \"present\"} (and \"positions\" with --explain)");
  o->at_opt = add_number_option(*cmd, "--at", o->at, number_range<double>{0, 1e12},
                                "Windowed filters: the time of the question in Unix seconds "
                                "(default: now)",
                                "give Unix seconds, e.g. 1700000000");
  set_example(*cmd,
              "ringbloom bloom check seen.rbf anna cem --explain\n"
              "  ringbloom bloom check clicks.rbw user:42 --at 1700000300");
  cmd->callback([o, &ctx] { with_advice(read_advice, [&] { run_check(*o, ctx); }); });
}

// --- info -----------------------------------------------------------------------

struct info_options {
  std::string file;
  bool json = false;
  double at = 0;
  CLI::Option* at_opt = nullptr;
};

void run_info_windowed(const info_options& o);

void run_info(const info_options& o) {
  if (peek_windowed_file(o.file)) return run_info_windowed(o);
  if (o.at_opt->count() > 0) refuse_at(o.file);
  const any_filter filter = open_filter_mapped(o.file);
  const filter_stats s = filter.stats();
  // A pipe has no size on disk: report the bytes the filter occupies.
  std::error_code size_error;
  std::uint64_t disk = fs::file_size(o.file, size_error);
  if (size_error) disk = serialized_size(filter);
  const filter_description details = filter.describe();

  if (o.json) {
    json doc{{"file", o.file},
             {"kind", filter_kind_name(s.kind)},
             {"bits", s.bits},
             {"hashes", s.hashes},
             {"hash", hash_name(s.hash)},
             {"seed", s.seed},
             {"items", s.items_added},
             {"bits_set", s.bits_set},
             {"fill_ratio", s.fill_ratio},
             {"expected_fpr", s.expected_fpr},
             {"estimated_items", number_or_null(s.estimated_items)},
             {"memory_bytes", s.memory_bytes},
             {"size_on_disk", disk},
             {"layers", s.layers}};
    for (const auto& field : details.fields)
      doc[std::string(field.name)] = detail_json(field.value);
    print_json(doc);
    return;
  }

  const std::string_view cells = cell_name(s.kind);
  const auto row = [](std::string_view label, const std::string& value) {
    fmt::print("{:<16}{}\n", label, value);
  };
  const auto detail_rows = [&](bool after_layers) {
    for (const auto& r : details.rows) {
      if (r.after_layers == after_layers) row(r.label, r.text);
    }
  };
  row("file", o.file);
  row("kind", std::string(filter_kind_name(s.kind)));
  row(fmt::format("{} (m)", cells), std::to_string(s.bits));
  row("hashes (k)", filter_kind_of(s.kind).layered ? fmt::format("{} (first layer)", s.hashes)
                                                   : std::to_string(s.hashes));
  row("hash", fmt::format("{} (seed {})", hash_name(s.hash), s.seed));
  row("items", std::to_string(s.items_added));
  row(fmt::format("{} set", cells),
      fmt::format("{} of {} (fill {:.2f}%)", s.bits_set, s.bits, 100 * s.fill_ratio));
  row("expected fpr", fmt::format("{:.4g} ({:.4g}%)", s.expected_fpr, 100 * s.expected_fpr));
  row("estimated items", std::isfinite(s.estimated_items)
                             ? fmt::format("{:.0f} distinct", s.estimated_items)
                             : std::string("unknown: every bit is set"));
  detail_rows(false);
  row("memory", io::format_bytes(s.memory_bytes));
  row("size on disk", fmt::format("{} bytes ({})", disk, io::format_bytes(disk)));
  row("layers", std::to_string(s.layers));
  detail_rows(true);
}

void add_info(CLI::App& bloom) {
  auto o = std::make_shared<info_options>();
  auto* cmd = bloom.add_subcommand("info", "Show a filter's parameters and statistics");
  cmd->add_option("file", o->file, "The filter file")->required();
  cmd->add_flag("--json", o->json, "Print as JSON");
  o->at_opt = add_number_option(*cmd, "--at", o->at, number_range<double>{0, 1e12},
                                "Windowed filters: the time to report at in Unix seconds "
                                "(default: now, or the filter's latest time if later)",
                                "give Unix seconds, e.g. 1700000000");
  set_example(*cmd, "ringbloom bloom info seen.rbf --json");
  cmd->callback([o] { with_advice(read_advice, [&] { run_info(*o); }); });
}

// --- merge ----------------------------------------------------------------------

struct merge_options {
  std::string a;
  std::string b;
  std::string out;
  bool intersect = false;
  bool force = false;
  bool json = false;
};

bool same_file(const std::string& x, const std::string& y) {
  std::error_code ec;
  return fs::equivalent(x, y, ec);  // false (not an error) when either is absent
}

void run_merge(const merge_options& o) {
  const auto combine = [&](any_filter& into, const any_filter& other) {
    if (o.intersect) {
      into.intersect(other);
    } else {
      into.merge(other);
    }
  };

  filter_stats result;
  // When OUT is one of the inputs, combine under that file's lock so that a
  // concurrent `add` to it is not lost; otherwise write OUT atomically.
  const bool into_a = same_file(o.out, o.a);
  if (into_a || same_file(o.out, o.b)) {
    const any_filter other = open_filter_mapped(into_a ? o.b : o.a);
    update_filter_file(o.out, [&](any_filter& filter) {
      combine(filter, other);
      result = filter.stats();
    });
  } else {
    refuse_output(o.out, o.force);
    any_filter merged = load_filter(o.a);
    const any_filter other = open_filter_mapped(o.b);
    combine(merged, other);
    save_filter(o.out, merged);
    result = merged.stats();
  }

  const std::string_view operation = o.intersect ? "intersection" : "union";
  if (o.json) {
    print_json(json{{"operation", operation},
                    {"inputs", json::array({o.a, o.b})},
                    {"output", o.out},
                    {"kind", filter_kind_name(result.kind)},
                    {"items", result.items_added},
                    {"bits_set", result.bits_set},
                    {"fill_ratio", result.fill_ratio},
                    {"expected_fpr", result.expected_fpr}});
    return;
  }
  fmt::print("wrote the {} of {} and {} to {}: {} items, fill {:.2f}%, expected fpr {:.4g}\n",
             operation, o.a, o.b, o.out, result.items_added, 100 * result.fill_ratio,
             result.expected_fpr);
}

void add_merge(CLI::App& bloom) {
  auto o = std::make_shared<merge_options>();
  auto* cmd = bloom.add_subcommand(
      "merge", "Write the union (or intersection) of two compatible filters to a file");
  cmd->add_option("a", o->a, "The first filter file")->required();
  cmd->add_option("b", o->b, "The second filter file (same kind, m, k, hash and seed)")->required();
  cmd->add_option("-o,--output", o->out, "The file to write (atomically; may be A or B)")
      ->required();
  cmd->add_flag("--intersect", o->intersect, "Intersect instead of uniting");
  cmd->add_flag("--force", o->force, "Replace OUT if it exists and is neither A nor B");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  set_example(*cmd, "ringbloom bloom merge monday.rbf tuesday.rbf -o week.rbf");
  cmd->callback([o] {
    with_advice("check the input file names and that the output directory is writable",
                [&] { run_merge(*o); });
  });
}

// --- remove ---------------------------------------------------------------------

struct remove_options {
  std::string file;
  std::vector<std::string> items;
  bool json = false;
};

void run_remove(const remove_options& o) {
  // All or nothing: the items are removed in one locked update, so when one
  // of them cannot be removed the file is left as it was. Items from stdin are
  // therefore held in memory (removal lists are short; use several runs for
  // very long ones).
  std::vector<std::string> items = o.items;
  if (items.empty()) {
    std::uint64_t held = 0;
    for_each_item({}, [&](std::string_view item) {
      held += item.size() + sizeof(std::string);
      if (held > remove_stdin_limit) {
        throw usage_error(fmt::format(
            "more than {} MiB of items on standard input for one remove, which holds them all "
            "to remove all or none; remove them in several runs",
            remove_stdin_limit >> 20));
      }
      items.emplace_back(item);
    });
  }
  std::uint64_t items_now = 0;
  update_filter_file(o.file, [&](any_filter& filter) {
    try {
      any_filter::require_removable(filter.kind());
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("nothing was removed from '{}': {}", o.file, e.what()));
    }
    for (const auto& item : items) {
      try {
        filter.remove(item);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format(
            "cannot remove '{}' from '{}', so nothing was removed: {}", item, o.file, e.what()));
      }
    }
    items_now = filter.items_added();
  });

  if (o.json) {
    print_json(json{{"file", o.file}, {"removed", items.size()}, {"items", items_now}});
    return;
  }
  fmt::print("removed {} from {} ({} in the filter)\n", count_of(items.size(), "item"), o.file,
             count_of(items_now, "item"));
}

void add_remove(CLI::App& bloom) {
  auto o = std::make_shared<remove_options>();
  auto* cmd = bloom.add_subcommand("remove", "Remove items from a counting filter");
  cmd->add_option("file", o->file, "The counting filter file to update")->required();
  cmd->add_option("items", o->items,
                  "Items to remove (all or none); when none are given, read stdin");
  cmd->add_flag("--json", o->json, "Print the count as JSON");
  set_example(*cmd, "ringbloom bloom remove sessions.rbf session:7");
  cmd->callback([o] { with_advice(read_advice, [&] { run_remove(*o); }); });
}

// --- windowed filters (ringbloom/filter/windowed_file.hpp) ---------------------------

/// The clock in Unix seconds: the one place the command line reads the time
/// of a windowed filter's call (the library never reads a clock).
double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// A new windowed filter from --window S --capacity N or --window-items N at
/// rate `fpr`. Refuses both windows at once, a time window without its
/// capacity, and a filter this process has no memory for.
windowed_bloom_filter make_windowed(const window_options& w, const CLI::Option* capacity_opt,
                                    std::uint64_t capacity, double fpr, std::uint64_t seed) {
  if (w.seconds_opt->count() > 0 && w.items_opt->count() > 0) {
    throw usage_error(
        "--window and --window-items were both given; a windowed filter forgets either by time "
        "(--window SECONDS --capacity N) or by count (--window-items N), not both");
  }
  const bool by_time = w.seconds_opt->count() > 0;
  if (by_time && capacity_opt->count() == 0) {
    throw usage_error(
        "--window needs --capacity N, the most items that arrive within one window (the filter "
        "is sized for them); for example --window 3600 --capacity 1000000");
  }
  if (!by_time && capacity_opt->count() > 0) {
    throw usage_error(
        "--capacity does not apply with --window-items, whose N is also the capacity; drop "
        "--capacity");
  }
  const std::uint64_t n = by_time ? capacity : w.items;
  const std::uint64_t bytes = windowed_memory_bytes(n, fpr);
  require_memory(2 * bytes,
                 fmt::format("a windowed filter of {} for {} items per window at rate {}",
                             io::format_bytes(bytes), n, fpr),
                 "lower --capacity (or --window-items) or raise --fpr");
  return by_time ? windowed_bloom_filter::for_time(w.seconds, n, fpr, seed)
                 : windowed_bloom_filter::for_count(n, fpr, seed);
}

/// --at given for a count window, which counts insertions and has no time.
void refuse_count_at(const windowed_bloom_filter& f, const CLI::Option* at_opt,
                     const std::string& file) {
  if (at_opt->count() == 0 || f.kind() == window_kind::time) return;
  throw usage_error(fmt::format(
      "'{}' has a count window (the last {} insertions), which takes no time; drop --at", file,
      f.capacity()));
}

/// {"file", "kind": "windowed"} and the library's fields of `d`.
json windowed_json(const std::string& file, const filter_description& d) {
  json doc{{"file", file}, {"kind", "windowed"}};
  for (const auto& field : d.fields) doc[std::string(field.name)] = detail_json(field.value);
  return doc;
}

void run_create_windowed(const create_options& o) {
  for (const CLI::Option* opt : {o.bits_opt, o.hashes_opt, o.from_opt, o.kind_opt}) {
    if (opt->count() > 0) {
      throw usage_error(fmt::format(
          "{} does not apply to a windowed filter (--window or --window-items), which has its "
          "own layout; drop {}",
          opt->get_name(), opt->get_name()));
    }
  }
  if (o.hash_opt->count() > 0 && parse_hash(o.hash) != hash_kind::xxh3) {
    throw usage_error(fmt::format("a windowed filter hashes with xxh3; drop --hash {}", o.hash));
  }
  if (o.fpr_opt->count() == 0) {
    throw usage_error(
        "a windowed filter needs its false-positive rate; give --fpr P, for example --fpr 0.01");
  }
  const windowed_bloom_filter f =
      make_windowed(o.window, o.capacity_opt, o.capacity, o.fpr, o.seed);
  refuse_existing(o);
  save_windowed(o.file, f);
  if (o.json) {
    json doc = windowed_json(o.file, windowed_settings(f));
    doc["file_bytes"] = std::filesystem::file_size(o.file);
    print_json(doc);
    return;
  }
  fmt::print(
      "created {}: windowed filter, window {}, {} items per window at rate {:g}, k = {}, "
      "memory {}\n",
      o.file, describe_window(f), f.capacity(), f.target_fpr(), f.hashes(),
      io::format_bytes(f.memory_bytes()));
}

void run_add_windowed(const add_options& o) {
  if (o.at_opt->count() > 0) refuse_count_at(load_windowed(o.file), o.at_opt, o.file);
  const auto now = [&] { return o.at_opt->count() > 0 ? o.at : unix_now(); };
  windowed_add_stream stream(o.file, add_policy(o));
  if (!o.items.empty()) {
    const double at = now();
    for (const auto& item : o.items) stream.add(item, at);
    stream.checkpoint();  // one locked update: all the arguments or none
  } else {
    stream_stdin(stream, "items", [&](const std::string& line) { stream.add(line, now()); });
  }
  const std::uint64_t added = stream.stats().durable_items;
  if (o.json) {
    print_json(json{{"file", o.file},
                    {"added", added},
                    {"items", stream.items_added()},
                    {"items_in_window", stream.items_in_window()}});
    return;
  }
  fmt::print("added {} to {} ({} in the window, {} added in all)\n", count_of(added, "item"),
             o.file, stream.items_in_window(), stream.items_added());
}

void run_check_windowed(const check_options& o, context& ctx) {
  if (o.explain) {
    throw usage_error(
        fmt::format("--explain shows the bits of one filter, and '{}' is a windowed filter of four "
                    "generations; drop --explain",
                    o.file));
  }
  const windowed_bloom_filter f = load_windowed(o.file);
  refuse_count_at(f, o.at_opt, o.file);
  std::vector<std::string_view> views;
  answer_items(
      o, ctx,
      [&](std::span<const std::string> items, std::span<bool> out) {
        views.assign(items.begin(), items.end());
        (void)f.may_contain_many(views, o.at_opt->count() > 0 ? o.at : unix_now(), out);
      },
      nullptr);
}

void run_info_windowed(const info_options& o) {
  const windowed_bloom_filter f = load_windowed(o.file);
  refuse_count_at(f, o.at_opt, o.file);
  // Before the filter's latest time the clock would read a window the file
  // has already moved past: report at the later of the two.
  const double at = o.at_opt->count() > 0 ? o.at : std::max(unix_now(), f.latest_time());
  const filter_description d = describe_windowed(f, at);
  std::error_code ec;
  const std::uint64_t disk = fs::file_size(o.file, ec);
  if (o.json) {
    json doc = windowed_json(o.file, d);
    doc["size_on_disk"] = disk;
    return print_json(doc);
  }
  fmt::print("{:<16}{}\n", "file", o.file);
  for (const auto& r : d.rows) fmt::print("{:<16}{}\n", r.label, r.text);
  fmt::print("{:<16}{}, {} bytes on disk\n", "memory", io::format_bytes(f.memory_bytes()), disk);
}

// --- dedup ----------------------------------------------------------------------

struct dedup_options {
  std::string file;
  window_options window;
  std::uint64_t capacity = 0;
  double fpr = 0.01;
  std::size_t at_field = 0;
  double checkpoint_seconds = 5;
  CLI::Option* capacity_opt = nullptr;
  CLI::Option* fpr_opt = nullptr;
  CLI::Option* at_field_opt = nullptr;
};

/// Lines dedup reads and answers at a time (one batch call of the library).
constexpr std::size_t dedup_batch_size = 1024;

/// FILE's filter when it exists (the window options, when given, must
/// describe it), else a new one from the options.
windowed_bloom_filter dedup_filter(const dedup_options& o, bool& exists) {
  std::error_code ec;
  exists = !o.file.empty() && fs::exists(fs::symlink_status(o.file, ec));
  if (!exists) {
    if (!o.window.given()) {
      throw usage_error(
          "dedup needs a window; give --window SECONDS --capacity N (forget by time) or "
          "--window-items N (forget by count)");
    }
    return make_windowed(o.window, o.capacity_opt, o.capacity, o.fpr, 0);
  }
  windowed_bloom_filter f = load_windowed(o.file);
  const bool time = f.kind() == window_kind::time;
  const bool differs =
      (o.window.seconds_opt->count() > 0 && !(time && f.window() == o.window.seconds)) ||
      (o.window.items_opt->count() > 0 && !(!time && f.capacity() == o.window.items)) ||
      (o.capacity_opt->count() > 0 && f.capacity() != o.capacity) ||
      (o.fpr_opt->count() > 0 && f.target_fpr() != o.fpr);
  if (differs) {
    throw usage_error(fmt::format(
        "'{}' holds a windowed filter of window {}, {} items per window at rate {:g}, not the one "
        "the options describe; drop the window options to go on with the file, or give another "
        "FILE",
        o.file, describe_window(f), f.capacity(), f.target_fpr()));
  }
  return f;
}

void run_dedup(const dedup_options& o) {
  bool exists = false;
  windowed_bloom_filter f = dedup_filter(o, exists);
  windowed_dedup dedup(f, o.at_field);
  if (!o.file.empty() && !exists) save_windowed(o.file, f);  // a bad path fails before stdin
  const auto interval = std::chrono::duration<double>(o.checkpoint_seconds);
  auto saved = std::chrono::steady_clock::now();
  line_reader in;
  std::vector<std::string> lines(dedup_batch_size);
  std::string out;
  for (;;) {
    // A batch ends early when the next line has not arrived: a co-process
    // gets each answer before it sends more.
    std::size_t n = 0;
    while (n < dedup_batch_size && (n == 0 || in.ready()) && in.next(lines[n])) ++n;
    if (n == 0) break;
    out.clear();
    try {
      dedup.feed({lines.data(), n}, unix_now(), out);
    } catch (const data_error&) {  // a bad time field: keep the lines before it
      std::fwrite(out.data(), 1, out.size(), stdout);
      if (!o.file.empty()) save_windowed(o.file, f);
      throw;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (!in.ready()) std::fflush(stdout);
    if (!o.file.empty() && std::chrono::steady_clock::now() - saved >= interval) {
      save_windowed(o.file, f);
      saved = std::chrono::steady_clock::now();
    }
  }
  if (!o.file.empty()) save_windowed(o.file, f);
}

void add_dedup(CLI::App& bloom) {
  auto o = std::make_shared<dedup_options>();
  auto* cmd = bloom.add_subcommand(
      "dedup", "Print the stdin lines not seen within a window (a windowed filter's answer)");
  cmd->add_option("file", o->file,
                  "A windowed filter file that keeps the state across runs (created when "
                  "missing; written at the end and every --checkpoint-seconds)");
  add_window_options(*cmd, o->window);
  o->capacity_opt = add_number_option(*cmd, "--capacity", o->capacity, at_least<std::uint64_t>(1),
                                      "With --window: the most lines in one window",
                                      "give the number of lines one window holds");
  o->fpr_opt = add_number_option(*cmd, "--fpr", o->fpr, number_range<double>{0, 1, true, true},
                                 "Rate of new lines wrongly dropped as seen (default 0.01)",
                                 "for a 1% rate give 0.01");
  o->at_field_opt = add_number_option(
      *cmd, "--at-field", o->at_field, between<std::size_t>(1, 1024),
      "Take each line's time (Unix seconds) from this tab-separated field, for replaying logs; "
      "the rest of the line is what is compared (default: the clock, the whole line)",
      "give the 1-based number of the field that holds the time");
  add_number_option(*cmd, "--checkpoint-seconds", o->checkpoint_seconds,
                    number_range<double>{0, 86400, true, false},
                    "With FILE: write the state at least this often (default 5)");
  set_example(*cmd,
              "tail -f events.log | ringbloom bloom dedup --window 3600 --capacity 1000000\n"
              "  ringbloom bloom dedup seen.rbw --window-items 10000000 < urls.txt > new.txt\n"
              "  ringbloom bloom dedup --window 600 --capacity 100000 --at-field 1 < log.tsv");
  cmd->callback([o] {
    with_advice("check the state file's name and that its directory is writable",
                [&] { run_dedup(*o); });
  });
}

}  // namespace

void add_bloom_commands(CLI::App& app, context& ctx) {
  auto* bloom = app.add_subcommand(
      "bloom", "Bloom filter files: create, add, check, info, merge, remove, dedup");
  bloom->require_subcommand(1);
  set_example(*bloom,
              "ringbloom bloom create seen.rbf --capacity 1000000 --fpr 0.01\n"
              "  ringbloom bloom add seen.rbf anna bora\n"
              "  ringbloom bloom check seen.rbf anna cem");
  add_create(*bloom);
  add_add(*bloom);
  add_check(*bloom, ctx);
  add_info(*bloom);
  add_merge(*bloom);
  add_remove(*bloom);
  add_dedup(*bloom);
}

}  // namespace ringbloom::cli
