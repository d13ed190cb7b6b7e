// `ringbloom hll|cms|topk ...`: sketch files. Thin: parse, call the library
// (include/ringbloom/sketch/), print. Writes go through update_sketch_file
// (a locked load-change-save per batch of 65,536 stdin lines, as `bloom add`).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace ringbloom::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// The --force and --json flags of every `create`.
void add_create_flags(CLI::App& cmd, bool& force, bool& as_json) {
  cmd.add_flag("--force", force, "Replace FILE if it exists");
  cmd.add_flag("--json", as_json, "Print the summary as JSON");
}

/// The end of every `create`: refuses an existing FILE unless --force, saves
/// the new sketch atomically, then prints `summary` (--json) or the line `text`.
void save_new_sketch(const std::string& file, bool force, const any_sketch& sketch, bool as_json,
                     const json& summary, const std::string& text) {
  refuse_output(file, force);
  with_advice("check that the directory exists and is writable",
              [&] { save_sketch(file, sketch); });
  if (as_json) return print_json(summary);
  fmt::print("{}\n", text);
}

/// For `update_in_batches`: the stdin lines are the items as they are.
const std::vector<std::string>& lines_as_items(const std::vector<std::string>& lines) {
  return lines;
}

/// The shape of every update command (`hll add`, `cms incr`, `topk add`): the
/// items (arguments, or stdin lines in batches of 65,536) are turned into one
/// batch of changes by `parse`, outside FILE's lock (a bad line is refused
/// before FILE is touched), and applied by `apply`, each batch one locked
/// load-change-save of FILE, so concurrent updaters lose nothing. With no
/// items at all, FILE is still loaded, so that a missing or foreign file is
/// refused, and `apply` sees it with an empty batch (nothing is saved).
/// Returns the number of items.
template <class Sketch, class Parse, class Apply>
std::uint64_t update_in_batches(std::string_view family, const std::string& file,
                                const std::vector<std::string>& items, Parse parse, Apply apply) {
  std::uint64_t n = 0;
  with_advice(fmt::format("check the file name, or create it with 'ringbloom {} create'", family),
              [&] {
                n = in_batches(items, [&](const std::vector<std::string>& lines) {
                  decltype(auto) batch = parse(lines);
                  update_sketch_file(
                      file, [&](any_sketch& s) { apply(sketch_as<Sketch>(s, file), batch); });
                });
                if (n == 0) {
                  Sketch loaded = load_sketch_as<Sketch>(file);
                  apply(loaded, parse(std::vector<std::string>{}));
                }
              });
  return n;
}

/// The shape of every `info` command: FILE opened read-only (memory-mapped
/// where the layout allows), printed as `to_json(file, view)` with --json or
/// as the one line `describe(file, view)`.
template <class View, class ToJson, class Describe>
void add_info_command(CLI::App& family, const std::string& description,
                      const std::string& file_help, const std::string& example, ToJson to_json,
                      Describe describe) {
  auto [cmd, o] =
      add_file_command(family, "info", description,
                       {.file = file_help, .items = "", .json = "Print as JSON"}, example);
  cmd->callback([o = o, to_json, describe] {
    with_advice("check the file name", [&] {
      const auto view = open_sketch_mapped_as<View>(o->file);
      if (o->json) return print_json(to_json(o->file, view));
      fmt::print("{}\n", describe(o->file, view));
    });
  });
}

// ============================== hll ==============================

// Info as JSON for a sketch or its read-only mapped view (the same fields).
template <class Hll>
json hll_json(const std::string& file, const Hll& h) {
  return json{{"file", file},
              {"mode", h.mode() == hll_mode::redis ? "redis" : "native"},
              {"precision", h.precision()},
              {"registers", h.register_count()},
              {"seed", h.seed()},
              {"memory_bytes", h.memory_bytes()},
              {"standard_error", h.standard_error()},
              {"count", h.count()}};
}

void add_hll(CLI::App& app) {
  auto* hll = app.add_subcommand(
      "hll",
      "HyperLogLog distinct counts: create, add, count, merge, info, import-redis, "
      "export-redis");
  hll->require_subcommand(1);
  set_example(*hll,
              "ringbloom hll create visitors.hll\n"
              "  ringbloom hll add visitors.hll anna bora anna\n"
              "  ringbloom hll count visitors.hll");

  {
    struct opts {
      std::string file;
      unsigned precision = hyperloglog::default_precision;
      bool redis = false;
      std::uint64_t seed = 0;
      bool force = false;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = hll->add_subcommand("create", "Create an empty HyperLogLog file");
    cmd->add_option("file", o->file, "The file to write")->required();
    auto* p =
        add_number_option(*cmd, "--precision", o->precision,
                          between<unsigned>(hyperloglog::min_precision, hyperloglog::max_precision),
                          "p: 2^p registers, error about 1.04/sqrt(2^p) (default 14)");
    cmd->add_flag("--redis", o->redis,
                  "Redis 7.0 mode: Redis's hash and p = 14, so export-redis writes a string "
                  "Redis reads as PFADD would have made it");
    add_number_option(*cmd, "--seed", o->seed, at_least<std::uint64_t>(0),
                      "xxh3 seed (native mode; default 0)");
    add_create_flags(*cmd, o->force, o->json);
    set_example(*cmd, "ringbloom hll create visitors.hll --precision 14");
    cmd->callback([o, p] {
      if (o->redis && (p->count() > 0 && o->precision != hyperloglog::redis_precision)) {
        throw usage_error("--redis fixes the precision at 14 (Redis's); drop --precision");
      }
      const hyperloglog h = o->redis ? hyperloglog::redis() : hyperloglog(o->precision, o->seed);
      save_new_sketch(
          o->file, o->force, h, o->json, hll_json(o->file, h),
          fmt::format(
              "created {}: HyperLogLog, {} mode, p = {} ({} registers), standard error {:.2f}%",
              o->file, o->redis ? "Redis" : "native", h.precision(), h.register_count(),
              100 * h.standard_error()));
    });
  }
  {
    auto [cmd, o] =
        add_file_command(*hll, "add", "Add items (arguments, or one per line from stdin)",
                         {"The HyperLogLog file to update"},
                         "ringbloom hll add visitors.hll anna bora\n"
                         "  cut -f1 access.log | ringbloom hll add visitors.hll");
    cmd->callback([o = o] {
      std::uint64_t count = 0;
      const auto n = update_in_batches<hyperloglog>(
          "hll", o->file, o->items,
          [](const std::vector<std::string>& lines) {
            return std::vector<std::string_view>(lines.begin(), lines.end());
          },
          [&](hyperloglog& h, const std::vector<std::string_view>& views) {
            h.add_many(views);
            count = h.count();
          });
      if (o->json) return print_json(json{{"file", o->file}, {"added", n}, {"count", count}});
      fmt::print("added {} to {} (about {} distinct)\n", count_of(n, "item"), o->file, count);
    });
  }
  {
    struct opts {
      std::vector<std::string> files;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = hll->add_subcommand("count", "Estimate the distinct items of the union of files");
    cmd->add_option("files", o->files, "HyperLogLog files (same mode, precision, seed)")
        ->required();
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd, "ringbloom hll count monday.hll tuesday.hll");
    cmd->callback([o] {
      with_advice("check the file names", [&] {
        // Read-only: the files are mapped; one file is counted in place, a
        // union needs one copy of the registers to take the maxima into.
        const auto first = open_sketch_mapped_as<hll_view>(o->files[0]);
        const auto print = [&](const auto& h) {
          if (!o->json) return fmt::print("{}\n", h.count());
          print_json(json{{"files", o->files},
                          {"count", h.count()},
                          {"estimate", h.estimate()},
                          {"standard_error", h.standard_error()}});
        };
        if (o->files.size() == 1) return print(first);
        hyperloglog u = first.copy();
        for (std::size_t i = 1; i < o->files.size(); ++i) {
          u.merge(open_sketch_mapped_as<hll_view>(o->files[i]));
        }
        print(u);
      });
    });
  }
  {
    struct opts {
      std::string out;
      std::vector<std::string> inputs;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = hll->add_subcommand(
        "merge",
        "Write the union of HyperLogLog files to OUT (as PFMERGE: OUT is included "
        "when it exists)");
    cmd->add_option("out", o->out, "The file to write")->required();
    cmd->add_option("inputs", o->inputs, "Input files (same mode, precision, seed)")->required();
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd, "ringbloom hll merge week.hll monday.hll tuesday.hll");
    cmd->callback([o] {
      with_advice("check the input file names and that the output directory is writable", [&] {
        hyperloglog u = load_sketch_as<hyperloglog>(o->inputs[0]);
        for (std::size_t i = 1; i < o->inputs.size(); ++i) {
          u.merge(load_sketch_as<hyperloglog>(o->inputs[i]));
        }
        std::error_code ec;
        if (fs::exists(o->out, ec)) {
          // Under OUT's lock, so a concurrent add to OUT is not lost.
          update_sketch_file(o->out, [&](any_sketch& s) {
            auto& h = sketch_as<hyperloglog>(s, o->out);
            h.merge(u);
            u = h;
          });
        } else {
          save_sketch(o->out, u);
        }
        if (o->json) return print_json(hll_json(o->out, u));
        fmt::print("wrote the union of {} to {} (about {} distinct)\n",
                   count_of(o->inputs.size(), "file"), o->out, u.count());
      });
    });
  }
  add_info_command<hll_view>(
      *hll, "Show a HyperLogLog's parameters and estimate", "The HyperLogLog file",
      "ringbloom hll info visitors.hll --json", hll_json<hll_view>,
      [](const std::string& file, const hll_view& h) {
        return fmt::format(
            "{}: HyperLogLog, {} mode, p = {} ({} registers, {} bytes), seed {}, standard "
            "error {:.2f}%, about {} distinct",
            file, h.mode() == hll_mode::redis ? "Redis" : "native", h.precision(),
            h.register_count(), h.memory_bytes(), h.seed(), 100 * h.standard_error(), h.count());
      });
  {
    struct opts {
      std::string blob;
      std::string out;
      bool force = false;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = hll->add_subcommand(
        "import-redis", "Read a Redis HLL string (the bytes of GET key) into a HyperLogLog file");
    cmd->add_option("blob", o->blob, "A file holding the exact bytes Redis returns for GET")
        ->required();
    cmd->add_option("-o,--output", o->out, "The HyperLogLog file to write")->required();
    cmd->add_flag("--force", o->force, "Replace the output if it exists");
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd, "ringbloom hll import-redis visitors.blob -o visitors.hll");
    cmd->callback([o] {
      with_advice("check the file names", [&] {
        // A Redis HLL string is at most 12,304 bytes (dense); 1 MiB bounds a
        // mistaken file or pipe.
        const std::string bytes = io::read_file(o->blob, std::uint64_t{1} << 20);
        hyperloglog h = [&] {
          try {
            return from_redis_string(bytes);
          } catch (const data_error& e) {
            throw data_error(fmt::format("{}: {}", o->blob, e.sentence()), e.advice());
          }
        }();
        refuse_output(o->out, o->force, {o->blob});
        save_sketch(o->out, h);
        if (o->json) return print_json(hll_json(o->out, h));
        fmt::print("imported {} ({} Redis HLL, {} bytes) into {}: about {} distinct\n", o->blob,
                   redis_string_encoding(bytes) == redis_hll_encoding::dense ? "dense" : "sparse",
                   bytes.size(), o->out, h.count());
      });
    });
  }
  {
    struct opts {
      std::string file;
      std::string out;
      std::string encoding = "auto";
      bool force = false;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = hll->add_subcommand(
        "export-redis", "Write a Redis-mode HyperLogLog as the string Redis stores (for SET key)");
    cmd->add_option("file", o->file, "A HyperLogLog file created with --redis")->required();
    cmd->add_option("-o,--output", o->out, "The file to write the bytes to")->required();
    cmd->add_option("--encoding", o->encoding,
                    "auto (sparse when Redis would keep it sparse), dense or sparse");
    cmd->add_flag("--force", o->force, "Replace the output if it exists");
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd,
                "ringbloom hll export-redis visitors.hll -o visitors.blob\n"
                "  redis-cli -x SET visitors < visitors.blob && redis-cli PFCOUNT visitors");
    cmd->callback([o] {
      if (o->encoding != "auto" && o->encoding != "dense" && o->encoding != "sparse") {
        throw usage_error(
            fmt::format("--encoding {} is not offered; give auto, dense or sparse", o->encoding));
      }
      with_advice("check the file names and that the output directory is writable", [&] {
        const auto h = load_sketch_as<hyperloglog>(o->file);
        if (h.mode() != hll_mode::redis) {
          throw usage_error(fmt::format(
              "{} is a native HyperLogLog, whose registers Redis cannot read; create it with "
              "'ringbloom hll create FILE --redis'",
              o->file));
        }
        const std::string bytes =
            o->encoding == "auto"
                ? to_redis_string(h)
                : to_redis_string(h, o->encoding == "dense" ? redis_hll_encoding::dense
                                                            : redis_hll_encoding::sparse);
        refuse_output(o->out, o->force, {o->file});
        io::write_file_atomic(o->out, bytes);
        const bool dense = redis_string_encoding(bytes) == redis_hll_encoding::dense;
        if (o->json) {
          return print_json(json{{"file", o->file},
                                 {"output", o->out},
                                 {"encoding", dense ? "dense" : "sparse"},
                                 {"bytes", bytes.size()},
                                 {"count", h.count()}});
        }
        fmt::print("wrote {} ({} Redis HLL, {} bytes, about {} distinct)\n", o->out,
                   dense ? "dense" : "sparse", bytes.size(), h.count());
      });
    });
  }
}

// ============================== cms ==============================

template <class Cms>
json cms_json(const std::string& file, const Cms& c) {
  return json{{"file", file},
              {"width", c.width()},
              {"depth", c.depth()},
              {"conservative", c.conservative()},
              {"seed", c.seed()},
              {"total", c.total()},
              {"epsilon", c.epsilon()},
              {"delta", c.delta()},
              {"error_bound", c.error_bound()},
              {"memory_bytes", c.memory_bytes()}};
}

/// Refuses, before allocating, a Count-Min sketch of more than 2^31 counters
/// (the library's limit) or more than this machine can hold (the sketch and
/// its serialized copy); `what` names the options that asked for it.
void require_cms_size(std::uint32_t width, std::uint32_t depth, const std::string& what) {
  const std::uint64_t counters = std::uint64_t{width} * depth;
  if (counters > count_min_sketch::max_counters) {
    throw usage_error(
        fmt::format("{} asks for {} counters, more than the 2^31 a Count-Min sketch "
                    "may have; lower --width or --depth (or raise --error)",
                    what, counters));
  }
  require_memory(2 * 4 * counters, what, "lower --width or --depth (or raise --error)");
}

void add_cms(CLI::App& app) {
  auto* cms = app.add_subcommand(
      "cms", "Count-Min sketches (frequencies, never under): create, incr, query, merge, info");
  cms->require_subcommand(1);
  set_example(*cms,
              "ringbloom cms create hits.cms --error 0.001 --probability 0.01\n"
              "  ringbloom cms incr hits.cms /index /login /index\n"
              "  ringbloom cms query hits.cms /index");
  {
    struct opts {
      std::string file;
      std::uint32_t width = 0, depth = 0;
      double error = 0, probability = 0;
      bool conservative = false, redis_sizing = false, force = false, json = false;
      std::uint64_t seed = 0;
      CLI::Option *w = nullptr, *d = nullptr, *e = nullptr, *p = nullptr;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = cms->add_subcommand("create", "Create an empty Count-Min sketch file");
    cmd->add_option("file", o->file, "The file to write")->required();
    o->w = add_number_option(*cmd, "--width", o->width,
                             between<std::uint32_t>(1, count_min_sketch::max_width),
                             "Counters per row (with --depth)");
    o->d = add_number_option(*cmd, "--depth", o->depth,
                             between<std::uint32_t>(1, count_min_sketch::max_depth),
                             "Rows (with --width)");
    o->e = add_number_option(*cmd, "--error", o->error, number_range<double>{0, 1, true, true},
                             "eps: estimates within eps x N (with --probability)",
                             "for example --error 0.001");
    o->p = add_number_option(
        *cmd, "--probability", o->probability, number_range<double>{0, 1, true, true},
        "delta: the chance an estimate misses that bound", "for example --probability 0.01");
    cmd->add_flag("--conservative", o->conservative,
                  "Conservative update: fewer overestimates (counts only go up)");
    cmd->add_flag("--redis-sizing", o->redis_sizing,
                  "Size from --error/--probability as RedisBloom's CMS.INITBYPROB does "
                  "(width ceil(2/E), depth ceil(log10 P / log10 0.5))");
    add_number_option(*cmd, "--seed", o->seed, at_least<std::uint64_t>(0), "xxh3 seed (default 0)");
    add_create_flags(*cmd, o->force, o->json);
    set_example(*cmd, "ringbloom cms create hits.cms --error 0.001 --probability 0.01");
    cmd->callback([o] {
      const bool by_size = o->w->count() + o->d->count() > 0;
      const bool by_error = o->e->count() + o->p->count() > 0;
      if (by_size == by_error || (by_size && o->w->count() + o->d->count() != 2) ||
          (by_error && o->e->count() + o->p->count() != 2)) {
        throw usage_error(
            "--width goes with --depth, --error with --probability, and one pair only; give "
            "either --width W --depth D or --error E --probability P (for example "
            "--error 0.001 --probability 0.01)");
      }
      std::uint32_t width = o->width, depth = o->depth;
      if (by_error) {
        std::tie(width, depth) =
            o->redis_sizing ? count_min_sketch::redis_dimensions(o->error, o->probability)
                            : count_min_sketch::dimensions_for_error(o->error, o->probability);
      }
      require_cms_size(
          width, depth,
          by_size ? fmt::format("--width {} --depth {}", width, depth)
                  : fmt::format("--error {} --probability {} (a {} x {} sketch)",
                                o->e->as<std::string>(), o->p->as<std::string>(), width, depth));
      const count_min_sketch c(width, depth, o->conservative, o->seed);
      save_new_sketch(
          o->file, o->force, c, o->json, cms_json(o->file, c),
          fmt::format("created {}: Count-Min {} x {}{}, eps {:.3g}, delta {:.3g}, {} bytes",
                      o->file, c.width(), c.depth(), c.conservative() ? " (conservative)" : "",
                      c.epsilon(), c.delta(), c.memory_bytes()));
    });
  }
  {
    auto [cmd, o] = add_file_command(
        *cms, "incr", "Count items (arguments, or stdin lines 'item' or 'item<TAB>n')",
        {"The Count-Min file to update", "Items, each counted once; when none, read stdin"},
        "ringbloom cms incr hits.cms /index /login\n"
        "  printf '/index\\t40\\n' | ringbloom cms incr hits.cms");
    cmd->callback([o = o] {
      using increments = std::vector<std::pair<std::string_view, std::uint32_t>>;
      std::uint64_t total = 0;
      const auto n = update_in_batches<count_min_sketch>(
          "cms", o->file, o->items,
          [&](const std::vector<std::string>& batch) {
            increments incs;
            incs.reserve(batch.size());
            for (const auto& line : batch) {
              incs.push_back(o->items.empty()
                                 ? parse_increment_line(line)
                                 : std::pair<std::string_view, std::uint32_t>{line, 1});
            }
            return incs;
          },
          [&](count_min_sketch& c, const increments& incs) {
            for (const auto& [item, by] : incs) c.increment(item, by);
            total = c.total();
          });
      if (o->json) return print_json(json{{"file", o->file}, {"lines", n}, {"total", total}});
      fmt::print("counted {} into {} (total {})\n", count_of(n, "line"), o->file, total);
    });
  }
  {
    auto [cmd, o] =
        add_file_command(*cms, "query", "Print item<TAB>estimate (never below the truth)",
                         {.file = "The Count-Min file", .json = "Print one JSON object per item"},
                         "ringbloom cms query hits.cms /index /login");
    cmd->callback([o = o] {
      with_advice("check the file name", [&] {
        const auto c = open_sketch_mapped_as<count_min_view>(o->file);  // read in place
        for_each_item(o->items, [&](std::string_view item) {
          if (o->json) {
            fmt::print("{}\n", json_line(json{{"item", item}, {"count", c.estimate(item)}}));
          } else {
            fmt::print("{}\t{}\n", item, c.estimate(item));
          }
        });
      });
    });
  }
  {
    struct opts {
      std::string out;
      std::vector<std::string> inputs;
      std::vector<std::int64_t> weights;
      bool json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = cms->add_subcommand(
        "merge", "Write the (weighted) sum of Count-Min sketches to OUT (as CMS.MERGE)");
    cmd->add_option("out", o->out, "The file to write (replaced atomically)")->required();
    cmd->add_option("inputs", o->inputs, "Input files (same width, depth, seed)")->required();
    cmd->add_option_function<std::vector<std::string>>(
        "--weights",
        [o](const std::vector<std::string>& texts) {
          o->weights.clear();
          for (const auto& t : texts) {
            o->weights.push_back(
                parse_number<std::int64_t>(t, "--weights",
                                           between(std::numeric_limits<std::int64_t>::min(),
                                                   std::numeric_limits<std::int64_t>::max())));
          }
        },
        "One integer weight per input (default all 1)");
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd, "ringbloom cms merge all.cms eu.cms us.cms --weights 1 2");
    cmd->callback([o] {
      if (!o->weights.empty() && o->weights.size() != o->inputs.size()) {
        throw usage_error(fmt::format("{} weights for {} inputs; give one weight per input",
                                      o->weights.size(), o->inputs.size()));
      }
      with_advice("check the input file names and that the output directory is writable", [&] {
        std::vector<count_min_sketch> loaded;
        for (const auto& f : o->inputs) loaded.push_back(load_sketch_as<count_min_sketch>(f));
        std::vector<const count_min_sketch*> ptrs;
        for (const auto& c : loaded) ptrs.push_back(&c);
        const count_min_sketch m = count_min_sketch::merged(ptrs, o->weights);
        save_sketch(o->out, m);
        if (o->json) return print_json(cms_json(o->out, m));
        fmt::print("wrote the sum of {} sketch{} to {} (total {})\n", o->inputs.size(),
                   o->inputs.size() == 1 ? "" : "es", o->out, m.total());
      });
    });
  }
  add_info_command<count_min_view>(
      *cms, "Show a Count-Min sketch's parameters and bound", "The Count-Min file",
      "ringbloom cms info hits.cms", cms_json<count_min_view>,
      [](const std::string& file, const count_min_view& c) {
        return fmt::format(
            "{}: Count-Min {} x {}{}, total N = {}, estimates within +{:.1f} (eps x N) with "
            "probability {:.4g}, {} bytes",
            file, c.width(), c.depth(), c.conservative() ? " (conservative)" : "", c.total(),
            c.error_bound(), 1 - c.delta(), c.memory_bytes());
      });
}

// ============================== topk ==============================

json topk_json(const std::string& file, const top_k& t) {
  return json{
      {"file", file},       {"k", t.k()},       {"width", t.width()},       {"depth", t.depth()},
      {"decay", t.decay()}, {"seed", t.seed()}, {"listed", t.list().size()}};
}

/// Refuses, before allocating, a Top-K larger than the library allows or
/// than this machine can hold (buckets and heap, and the serialized copy).
void require_topk_size(std::uint32_t k, std::uint32_t width, std::uint32_t depth) {
  const std::uint64_t buckets = std::uint64_t{width} * depth;
  const std::string what = fmt::format("--width {} --depth {}", width, depth);
  if (buckets > top_k::max_buckets) {
    throw usage_error(fmt::format(
        "{} asks for {} buckets, more than the 2^28 a Top-K may have; lower --width or --depth",
        what, buckets));
  }
  require_memory(2 * (8 * buckets + 40 * std::uint64_t{k}), what + fmt::format(" --k {}", k),
                 "lower --width, --depth or --k");
}

/// Refuses a leader that would break the one-line-per-item output: items are
/// lines, so only a crafted file can hold one with a line break.
void require_printable_item(const std::string& file, const std::string& item) {
  if (item.find_first_of("\n\r") != std::string::npos) {
    throw data_error(fmt::format("{} lists the item '{}', which holds a line break no 'topk add' "
                                 "can produce",
                                 file, printable(item, 40)),
                     "recreate the file with 'ringbloom topk create'");
  }
}

void add_topk(CLI::App& app, context& ctx) {
  auto* topk = app.add_subcommand(
      "topk", "Top-K heavy hitters (HeavyKeeper): create, add, list, query, info");
  topk->require_subcommand(1);
  set_example(*topk,
              "ringbloom topk create urls.topk --k 10\n"
              "  cut -f7 access.log | ringbloom topk add urls.topk\n"
              "  ringbloom topk list urls.topk --with-counts");
  {
    struct opts {
      std::string file;
      std::uint32_t k = 0, width = top_k::default_width, depth = top_k::default_depth;
      double decay = top_k::default_decay;
      std::uint64_t seed = 0;
      bool force = false, json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = topk->add_subcommand("create", "Create an empty Top-K file");
    cmd->add_option("file", o->file, "The file to write")->required();
    add_number_option(*cmd, "--k", o->k, between<std::uint32_t>(1, top_k::max_k),
                      "How many leaders to keep")
        ->required();
    add_number_option(*cmd, "--width", o->width,
                      between<std::uint32_t>(1, static_cast<std::uint32_t>(top_k::max_buckets)),
                      "Buckets per row (default 8, as TOPK.RESERVE)");
    add_number_option(*cmd, "--depth", o->depth, between<std::uint32_t>(1, top_k::max_depth),
                      "Rows (default 7)");
    add_number_option(*cmd, "--decay", o->decay, number_range<double>{0, 1, true, false},
                      "Decay (default 0.9)", "for example --decay 0.9");
    add_number_option(*cmd, "--seed", o->seed, at_least<std::uint64_t>(0),
                      "Hash and decay-draw seed (default 0)");
    add_create_flags(*cmd, o->force, o->json);
    set_example(*cmd, "ringbloom topk create urls.topk --k 100 --width 2000 --depth 5");
    cmd->callback([o] {
      require_topk_size(o->k, o->width, o->depth);
      const top_k t(o->k, o->width, o->depth, o->decay, o->seed);
      save_new_sketch(o->file, o->force, t, o->json, topk_json(o->file, t),
                      fmt::format("created {}: Top-K, k = {}, {} x {} buckets, decay {}", o->file,
                                  t.k(), t.width(), t.depth(), t.decay()));
    });
  }
  {
    auto [cmd, o] = add_file_command(
        *topk, "add", "Add items (arguments, or one per line from stdin); prints items pushed out",
        {"The Top-K file to update"}, "ringbloom topk add urls.topk /index /login /index");
    cmd->callback([o = o] {
      // update_sketch_file calls `apply` once per batch, and a failed save
      // ends the command, so what a batch pushes out is final.
      std::vector<std::string> expelled;
      const auto add_batch = [&](top_k& t, const std::vector<std::string>& batch) {
        for (const auto& item : batch) {
          if (auto e = t.add(item)) expelled.push_back(std::move(*e));
        }
      };
      const auto n = update_in_batches<top_k>("topk", o->file, o->items, lines_as_items, add_batch);
      if (o->json) {
        return print_json(json{{"file", o->file}, {"added", n}, {"expelled", expelled}});
      }
      for (const auto& e : expelled) fmt::print("expelled\t{}\n", e);
    });
  }
  {
    struct opts {
      std::string file;
      bool with_counts = false, json = false;
    };
    auto o = std::make_shared<opts>();
    auto* cmd = topk->add_subcommand("list", "Print the leaders, largest count first");
    cmd->add_option("file", o->file, "The Top-K file")->required();
    cmd->add_flag("--with-counts", o->with_counts, "Print item<TAB>count");
    cmd->add_flag("--json", o->json, "Print as JSON");
    set_example(*cmd, "ringbloom topk list urls.topk --with-counts");
    cmd->callback([o] {
      with_advice("check the file name", [&] {
        const auto t = open_sketch_mapped_as<top_k>(o->file);  // decoded: variable-length heap
        const auto l = t.list();
        if (o->json) {
          json items = json::array();
          for (const auto& e : l) items.push_back(json{{"item", e.item}, {"count", e.count}});
          return print_json(json{{"file", o->file}, {"items", items}});
        }
        for (const auto& e : l) require_printable_item(o->file, e.item);
        for (const auto& e : l) {
          if (o->with_counts) {
            fmt::print("{}\t{}\n", e.item, e.count);
          } else {
            fmt::print("{}\n", e.item);
          }
        }
      });
    });
  }
  {
    auto [cmd, o] = add_file_command(
        *topk, "query", "Print item<TAB>yes|no: is it among the leaders? Exit 1 if any is not",
        {.file = "The Top-K file", .json = "Print one JSON object per item"},
        "ringbloom topk query urls.topk /index /favicon.ico");
    cmd->callback([o = o, &ctx] {
      with_advice("check the file name", [&] {
        const auto t = open_sketch_mapped_as<top_k>(o->file);  // decoded: variable-length heap
        for_each_item(o->items, [&](std::string_view item) {
          const bool in = t.query(item);
          if (!in) ctx.exit_status = exit_negative;
          if (o->json) {
            fmt::print("{}\n",
                       json_line(json{{"item", item}, {"in_top_k", in}, {"count", t.count(item)}}));
          } else {
            fmt::print("{}\t{}\n", item, in ? "yes" : "no");
          }
        });
      });
    });
  }
  add_info_command<top_k>(  // decoded, not mapped: its heap holds variable-length items
      *topk, "Show a Top-K's parameters", "The Top-K file", "ringbloom topk info urls.topk",
      topk_json, [](const std::string& file, const top_k& t) {
        return fmt::format(
            "{}: Top-K, k = {}, {} x {} buckets, decay {}, seed {}, {} leaders listed", file, t.k(),
            t.width(), t.depth(), t.decay(), t.seed(), t.list().size());
      });
}

}  // namespace

void add_sketch_commands(CLI::App& app, context& ctx) {
  add_hll(app);
  add_cms(app);
  add_topk(app, ctx);
}

}  // namespace ringbloom::cli
