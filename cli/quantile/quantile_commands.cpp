// `ringbloom quantile ...`: t-digest and KLL files. Thin: parse, call the
// library (include/ringbloom/quantile/), print.
//
//   create FILE --kind tdigest|kll [--compression C | --k K] [--seed S]
//   add    FILE [X...]   numbers from the arguments or one per line on stdin,
//                        streamed in checkpoints (io/checkpoint.hpp, as `bloom add`)
//   query  FILE --quantile Q[,Q...] | --cdf X[,X...] | --rank X[,X...] | --trimmed-mean LO,HI
//   merge  A B [...] -o OUT [--compression C]
//   info   FILE
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/checkpoint.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "ringbloom/quantile/quantile_math.hpp"

namespace ringbloom::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::string_view read_advice =
    "check the file name, or create it with 'ringbloom quantile create'";

/// One value of a comma-separated option, or a line of input, as a finite double.
double parse_value(std::string_view text, std::string_view where) {
  double x = 0;
  if (!number_detail::parse_plain(text, x)) {
    throw usage_error(fmt::format("{}: '{}' is not a finite number; give numbers such as 12.5",
                                  where, printable(text)));
  }
  return x;
}

std::vector<double> parse_list(const std::string& text, std::string_view option) {
  std::vector<double> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(parse_value(std::string_view(text).substr(at, comma - at), option));
    at = comma + 1;
  }
  return out;
}

std::string kind_word(const any_quantile& q) {
  return std::holds_alternative<tdigest>(q) ? "tdigest" : "kll";
}

// --- create ---------------------------------------------------------------------

struct create_options {
  std::string file;
  std::string kind;
  double compression = tdigest::default_compression;
  std::uint32_t k = kll_sketch::default_k;
  std::uint64_t seed = 0;
  bool force = false;
  bool json = false;
};

void run_create(const create_options& o, const CLI::App& cmd) {
  const bool has_compression = cmd.count("--compression") > 0;
  const bool has_k = cmd.count("--k") > 0;
  std::optional<any_quantile> q;
  if (o.kind == "tdigest") {
    if (has_k || cmd.count("--seed") > 0) {
      throw usage_error("--k and --seed are for --kind kll; a t-digest takes --compression");
    }
    q.emplace(tdigest(o.compression));
  } else {
    if (has_compression) {
      throw usage_error("--compression is for --kind tdigest; a KLL sketch takes --k");
    }
    q.emplace(kll_sketch(o.k, o.seed));
  }
  refuse_output(o.file, o.force);
  with_advice("check that the directory exists and is writable",
              [&] { save_quantile(o.file, *q); });
  if (o.json) {
    json doc{{"file", o.file}, {"kind", o.kind}};
    if (o.kind == "tdigest") {
      doc["compression"] = o.compression;
    } else {
      doc["k"] = o.k;
      doc["seed"] = o.seed;
      doc["rank_error"] = kll_rank_error(o.k);
    }
    return print_json(doc);
  }
  if (o.kind == "tdigest") {
    fmt::print("created {}: t-digest, compression {}\n", o.file, o.compression);
  } else {
    fmt::print("created {}: KLL sketch, k {} (rank error {:.2f}% at 99% confidence)\n", o.file, o.k,
               100 * kll_rank_error(o.k));
  }
}

void add_create(CLI::App& area) {
  auto o = std::make_shared<create_options>();
  auto* cmd = area.add_subcommand("create", "Create an empty t-digest or KLL file");
  cmd->add_option("file", o->file, "The file to create")->required();
  cmd->add_option("--kind", o->kind,
                  "tdigest (accurate tails, as Redis TDIGEST) or kll "
                  "(guaranteed rank error)")
      ->required()
      ->check(CLI::IsMember({"tdigest", "kll"}));
  add_number_option(*cmd, "--compression", o->compression,
                    number_range<double>{1, tdigest::max_compression, false, false},
                    "t-digest compression (default 100)");
  add_number_option(*cmd, "--k", o->k, between<std::uint32_t>(kll_sketch::min_k, kll_sketch::max_k),
                    "KLL parameter k (default 200: 1.33% rank error)");
  add_number_option(*cmd, "--seed", o->seed, at_least<std::uint64_t>(0),
                    "KLL seed of the compaction bits (default 0)");
  cmd->add_flag("--force", o->force, "Replace FILE if it exists");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom quantile create latency.rbq --kind tdigest --compression 200");
  cmd->callback([o, cmd] { run_create(*o, *cmd); });
}

// --- add ------------------------------------------------------------------------

struct add_options {
  std::string file;
  std::vector<std::string> values;
  double checkpoint_seconds = 1.0;
  std::uint64_t checkpoint_items = io::checkpoint_policy{}.max_items;
  bool json = false;
};

// Values wait in the stream as their 8 bytes; the fold adds them to the file's sketch.
std::string_view as_item(const double& x) { return {reinterpret_cast<const char*>(&x), sizeof x}; }

void fold(std::string& file, std::span<const std::string_view> items) {
  any_quantile q = deserialize_quantile(file);
  std::vector<double> xs(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    std::memcpy(&xs[i], items[i].data(), sizeof(double));
  std::visit([&](auto& s) { s.add_many(xs); }, q);
  file = serialize_quantile(q);
}

void run_add(const add_options& o) {
  const io::checkpoint_policy policy =
      checkpoint_policy_of(o.checkpoint_seconds, o.checkpoint_items);
  // The file is checked before any input is read (a missing or foreign file
  // is refused at once, not at the first checkpoint).
  (void)load_quantile(o.file);
  io::checkpointed_stream stream(o.file, fold, policy);
  if (!o.values.empty()) {
    std::vector<double> xs;
    for (std::size_t i = 0; i < o.values.size(); ++i) {
      xs.push_back(parse_value(o.values[i], fmt::format("argument {}", i + 1)));
    }
    for (const double& x : xs) stream.add(as_item(x));
    stream.checkpoint();  // one locked update: all the arguments or none
  } else {
    std::uint64_t line_number = 0;
    stream_stdin(stream, "values", [&](const std::string& line) {
      double x = 0;
      try {
        x = parse_value(line, fmt::format("line {}", ++line_number));
      } catch (const usage_error& e) {
        stream.checkpoint();  // the lines before it are added
        throw usage_error(fmt::format("{} (the {} values before it were added)", e.what(),
                                      stream.stats().durable_items));
      }
      stream.add(as_item(x));
    });
  }
  const std::uint64_t added = stream.stats().durable_items;
  const any_quantile q = load_quantile(o.file);
  const std::uint64_t count = std::visit([](const auto& s) { return s.count(); }, q);
  if (o.json) return print_json(json{{"file", o.file}, {"added", added}, {"count", count}});
  fmt::print("added {} to {} ({} in the sketch)\n", count_of(added, "value"), o.file, count);
}

void add_add(CLI::App& area) {
  auto o = std::make_shared<add_options>();
  auto* cmd = area.add_subcommand("add", "Add numbers (arguments, or one per line from stdin)");
  cmd->add_option("file", o->file, "The sketch file to update")->required();
  cmd->add_option("values", o->values, "Numbers to add; when none are given, read stdin")
      ->allow_extra_args();
  cmd->add_option("--checkpoint-seconds", o->checkpoint_seconds,
                  "Streamed lines are made durable at most this long after they arrive "
                  "(default 1)");
  cmd->add_option("--checkpoint-items", o->checkpoint_items,
                  "... or once this many lines wait (default 4194304)");
  cmd->add_flag("--json", o->json, "Print the counts as JSON");
  set_example(*cmd,
              "ringbloom quantile add latency.rbq 12.5 8 30.25\n"
              "  awk '{print $NF}' access.log | ringbloom quantile add latency.rbq");
  cmd->callback([o] { with_advice(read_advice, [&] { run_add(*o); }); });
}

// --- query ----------------------------------------------------------------------

struct query_options {
  std::string file;
  std::string quantiles;
  std::string cdf;
  std::string rank;
  std::string trimmed;
  bool json = false;
};

template <class S>
json answer(const S& s, const query_options& o, const CLI::App& cmd) {
  json doc{{"file", o.file}, {"count", s.count()}};
  if (cmd.count("--quantile") > 0) {
    const auto qs = parse_list(o.quantiles, "--quantile");
    for (const double q : qs) require_fraction(q, "--quantile");
    json list = json::array();
    for (const double q : qs) list.push_back({{"q", q}, {"value", s.quantile(q)}});
    doc["quantiles"] = list;
  }
  if (cmd.count("--cdf") > 0) {
    json list = json::array();
    for (const double x : parse_list(o.cdf, "--cdf")) list.push_back({{"x", x}, {"cdf", s.cdf(x)}});
    doc["cdf"] = list;
  }
  if (cmd.count("--rank") > 0) {
    json list = json::array();
    for (const double x : parse_list(o.rank, "--rank")) {
      list.push_back({{"x", x}, {"rank", s.rank(x)}, {"rev_rank", s.rev_rank(x)}});
    }
    doc["rank"] = list;
  }
  if (cmd.count("--trimmed-mean") > 0) {
    const auto cut = parse_list(o.trimmed, "--trimmed-mean");
    if (cut.size() != 2) {
      throw usage_error("--trimmed-mean takes two fractions, LO,HI; give for example 0.1,0.9");
    }
    try {
      doc["trimmed_mean"] = {
          {"low", cut[0]}, {"high", cut[1]}, {"mean", s.trimmed_mean(cut[0], cut[1])}};
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("--trimmed-mean: {}", e.what()));
    }
  }
  return doc;
}

std::string number(double x) {
  return std::isnan(x) ? "nan (the sketch is empty)" : fmt::format("{}", x);
}

void run_query(const query_options& o, const CLI::App& cmd) {
  if (cmd.count("--quantile") + cmd.count("--cdf") + cmd.count("--rank") +
          cmd.count("--trimmed-mean") ==
      0) {
    throw usage_error(
        "say what to ask: --quantile 0.5,0.99, --cdf X, --rank X or --trimmed-mean LO,HI");
  }
  any_quantile q;
  with_advice(read_advice, [&] { q = load_quantile(o.file); });
  json doc;
  try {
    doc = std::visit([&](const auto& s) { return answer(s, o, cmd); }, q);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  if (o.json) {
    doc["kind"] = kind_word(q);
    return print_json(doc);
  }
  if (doc.contains("quantiles")) {
    for (const auto& e : doc["quantiles"]) {
      fmt::print(
          "quantile {}: {}\n", e["q"].get<double>(),
          e["value"].is_null() ? "nan (the sketch is empty)" : number(e["value"].get<double>()));
    }
  }
  if (doc.contains("cdf")) {
    for (const auto& e : doc["cdf"]) {
      fmt::print("cdf {}: {}\n", e["x"].get<double>(),
                 e["cdf"].is_null() ? "nan (the sketch is empty)" : number(e["cdf"].get<double>()));
    }
  }
  if (doc.contains("rank")) {
    for (const auto& e : doc["rank"]) {
      fmt::print("rank {}: {} (reverse rank {})\n", e["x"].get<double>(),
                 e["rank"].get<std::int64_t>(), e["rev_rank"].get<std::int64_t>());
    }
  }
  if (doc.contains("trimmed_mean")) {
    const auto& t = doc["trimmed_mean"];
    fmt::print("trimmed mean {}..{}: {}\n", t["low"].get<double>(), t["high"].get<double>(),
               t["mean"].is_null() ? "nan (the sketch is empty)" : number(t["mean"].get<double>()));
  }
}

void add_query(CLI::App& area) {
  auto o = std::make_shared<query_options>();
  auto* cmd = area.add_subcommand("query", "Quantiles, cdf, ranks or a trimmed mean of a sketch");
  cmd->add_option("file", o->file, "The sketch file")->required();
  cmd->add_option("--quantile", o->quantiles, "Quantiles in [0, 1], comma-separated");
  cmd->add_option("--cdf", o->cdf, "Values whose cdf to print, comma-separated");
  cmd->add_option("--rank", o->rank, "Values whose rank and reverse rank to print");
  cmd->add_option("--trimmed-mean", o->trimmed, "LO,HI: the mean between two quantiles");
  cmd->add_flag("--json", o->json, "Print the answers as JSON");
  set_example(*cmd, "ringbloom quantile query latency.rbq --quantile 0.5,0.99,0.999");
  cmd->callback([o, cmd] { run_query(*o, *cmd); });
}

// --- merge ----------------------------------------------------------------------

struct merge_options {
  std::vector<std::string> inputs;
  std::string output;
  double compression = 0;
  bool force = false;
  bool json = false;
};

void run_merge(const merge_options& o, const CLI::App& cmd) {
  if (o.inputs.size() < 2)
    throw usage_error("merge takes at least two input files; name two or more before -o OUT");
  std::vector<any_quantile> ins;
  with_advice(read_advice, [&] {
    for (const auto& f : o.inputs) ins.push_back(load_quantile(f));
  });
  for (std::size_t i = 1; i < ins.size(); ++i) {
    if (ins[i].index() != ins[0].index()) {
      throw usage_error(fmt::format("'{}' holds a {} and '{}' a {}; merge files of one kind",
                                    o.inputs[0], quantile_kind_name(kind_of(ins[0])), o.inputs[i],
                                    quantile_kind_name(kind_of(ins[i]))));
    }
  }
  std::optional<any_quantile> out;
  if (std::holds_alternative<tdigest>(ins[0])) {
    std::vector<const tdigest*> ptrs;
    double c = 0;
    for (const auto& q : ins) {
      ptrs.push_back(&std::get<tdigest>(q));
      c = std::max(c, std::get<tdigest>(q).compression());
    }
    if (cmd.count("--compression") > 0) c = o.compression;
    out.emplace(tdigest::merged(ptrs, c));
  } else {
    if (cmd.count("--compression") > 0) {
      throw usage_error("--compression is for t-digests; KLL sketches merge at their k");
    }
    kll_sketch m = std::get<kll_sketch>(ins[0]);
    try {
      for (std::size_t i = 1; i < ins.size(); ++i) m.merge(std::get<kll_sketch>(ins[i]));
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    out.emplace(std::move(m));
  }
  refuse_output(o.output, o.force, o.inputs);
  with_advice("check that the directory exists and is writable",
              [&] { save_quantile(o.output, *out); });
  const std::uint64_t count = std::visit([](const auto& s) { return s.count(); }, *out);
  if (o.json) {
    return print_json(json{
        {"output", o.output}, {"kind", kind_word(*out)}, {"inputs", o.inputs}, {"count", count}});
  }
  fmt::print("merged {} files into {} ({} values)\n", o.inputs.size(), o.output, count);
}

void add_merge(CLI::App& area) {
  auto o = std::make_shared<merge_options>();
  auto* cmd = area.add_subcommand("merge", "Merge sketch files of one kind into a new file");
  cmd->add_option("inputs", o->inputs, "Two or more sketch files")->required();
  cmd->add_option("-o,--output", o->output, "The merged file")->required();
  add_number_option(*cmd, "--compression", o->compression,
                    number_range<double>{1, tdigest::max_compression, false, false},
                    "t-digests: the merged digest's compression (default: the largest input's)");
  cmd->add_flag("--force", o->force, "Replace the output if it exists");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom quantile merge web1.rbq web2.rbq -o all.rbq");
  cmd->callback([o, cmd] { run_merge(*o, *cmd); });
}

// --- info -----------------------------------------------------------------------

json info_json(const std::string& file, const any_quantile& q) {
  json doc{{"file", file}, {"kind", kind_word(q)}};
  if (const auto* t = std::get_if<tdigest>(&q)) {
    const auto s = t->statistics();
    doc.update({{"compression", t->compression()},
                {"capacity", t->capacity()},
                {"count", t->count()},
                {"min", t->min()},
                {"max", t->max()},
                {"sum", t->sum()},
                {"mean", t->mean()},
                {"merged_nodes", s.merged_nodes},
                {"unmerged_nodes", s.unmerged_nodes},
                {"memory_bytes", t->memory_bytes()}});
  } else {
    const auto& k = std::get<kll_sketch>(q);
    doc.update({{"k", k.k()},
                {"seed", k.seed()},
                {"count", k.count()},
                {"min", k.min()},
                {"max", k.max()},
                {"rank_error", k.rank_error()},
                {"pmf_rank_error", k.rank_error(true)},
                {"retained", k.retained()},
                {"levels", k.levels()},
                {"memory_bytes", k.memory_bytes()}});
  }
  return doc;
}

void add_info(CLI::App& area) {
  auto [cmd, o] =
      add_file_command(area, "info", "A sketch file's kind, parameters and counts",
                       {.file = "The sketch file", .items = "", .json = "Print as JSON"},
                       "ringbloom quantile info latency.rbq --json");
  cmd->callback([o = o] {
    any_quantile q;
    with_advice(read_advice, [&] { q = load_quantile(o->file); });
    const json doc = info_json(o->file, q);
    if (o->json) return print_json(doc);
    if (const auto* t = std::get_if<tdigest>(&q)) {
      fmt::print(
          "{}: t-digest, compression {}, {} values, min {}, max {}, {} centroids, {} bytes\n",
          o->file, t->compression(), t->count(), t->min(), t->max(), t->nodes().size(),
          t->memory_bytes());
    } else {
      const auto& k = std::get<kll_sketch>(q);
      fmt::print(
          "{}: KLL sketch, k {} (rank error {:.2f}%), {} values, min {}, max {}, {} kept in "
          "{} levels\n",
          o->file, k.k(), 100 * k.rank_error(), k.count(), k.min(), k.max(), k.retained(),
          k.levels());
    }
  });
}

}  // namespace

void add_quantile_commands(CLI::App& app, context& /*ctx*/) {
  auto* area = app.add_subcommand("quantile", "Quantile sketches: t-digest and KLL files");
  area->require_subcommand(1);
  add_create(*area);
  add_add(*area);
  add_query(*area);
  add_merge(*area);
  add_info(*area);
}

}  // namespace ringbloom::cli
