// `ringbloom merkle ...`: Merkle trees of rows files, for anti-entropy.
//
//   build ROWS.tsv -o TREE.rbm [--depth D] [--hash H]
//         [--ring FILE --node NAME [--peer NAME] [--replicas N]]
//                           rows key<TAB>value, streamed ('-' reads stdin);
//                           with --ring, only the ranges NAME (and PEER) hold
//   diff A.rbm B.rbm [--rows-a A.tsv --rows-b B.tsv]
//                           the differing ranges, the digests exchanged and,
//                           with the rows, the differing keys; exit 1 when
//                           the trees differ
//   info TREE.rbm           what a tree file holds
//
// A thin skin over ringbloom/merkle/: every number printed comes from
// merkle_tree, merkle_diff or row_collector. docs/merkle.md describes the
// output; docs/format.md the file.
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/merkle/merkle_file.hpp"
#include "ringbloom/merkle/merkle_ranges.hpp"
#include "ringbloom/merkle/merkle_rows.hpp"
#include "ringbloom/merkle/merkle_tree.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::cli {
namespace {

using json = nlohmann::ordered_json;

std::string hex64(std::uint64_t v) { return fmt::format("{:#018x}", v); }

json ranges_json(const std::vector<hash_range>& ranges) {
  json out = json::array();
  for (const hash_range& r : ranges)
    out.push_back({{"first", hex64(r.first)}, {"last", hex64(r.last)}});
  return out;
}

/// The most copies of a key --replicas may ask for (as `ring lookup`'s limit
/// on nodes).
constexpr std::size_t max_replicas = 100'000;

constexpr std::string_view tree_advice =
    "check the file names and that the directory is writable; trees are made by 'ringbloom "
    "merkle build'";

// --- build ------------------------------------------------------------------------

struct build_options {
  std::string rows;
  std::string out;
  unsigned depth = 16;
  std::string hash{hash_name(default_hash)};
  std::string ring_file;
  std::string node;
  std::string peer;
  std::size_t replicas = 1;
  bool force = false;
  bool json = false;
  CLI::Option* hash_opt = nullptr;
};

// The ranges and key hash of a tree limited to a ring (empty: the whole space).
void limit_to_ring(const build_options& o, merkle_options& options) {
  if (o.ring_file.empty()) {
    if (!o.node.empty() || !o.peer.empty()) {
      throw usage_error(
          "--node and --peer need --ring FILE; give a topology file (see 'ring init') or leave "
          "them out");
    }
    return;
  }
  if (o.node.empty()) {
    throw usage_error("--ring needs --node NAME; name the node whose ranges the tree covers");
  }
  const hash_ring ring = build_ring(load_topology(o.ring_file));
  if (o.hash_opt->count() > 0 && options.key_hash != ring.options().hash) {
    throw usage_error(
        fmt::format("--hash {} differs from the ring's hash {}; leave --hash out with --ring",
                    o.hash, hash_name(ring.options().hash)));
  }
  options.key_hash = ring.options().hash;
  options.ranges = owned_ranges(ring, o.node, o.replicas);
  if (!o.peer.empty()) {
    options.ranges = intersect_ranges(options.ranges, owned_ranges(ring, o.peer, o.replicas));
  }
}

void run_build(const build_options& o) {
  // The tree (2^(d+1) digests of 16 bytes, 2^d row counts) and its file.
  const std::uint64_t leaves = std::uint64_t{1} << o.depth;
  require_memory(2 * (leaves * 40), fmt::format("--depth {}", o.depth), "give a smaller --depth");
  if (o.rows != "-") (void)io::check_input(o.rows);
  merkle_options options;
  options.depth = o.depth;
  options.key_hash = parse_hash(o.hash);
  limit_to_ring(o, options);
  merkle_builder builder(options);
  const row_callback add = [&](std::string_view key, std::string_view value, std::uint64_t) {
    builder.add(key, value);
  };
  if (o.rows == "-") {
    io::line_reader in;
    scan_rows(in, "standard input", add);
  } else {
    scan_rows_file(o.rows, add);
  }
  const merkle_tree tree = builder.finish();
  refuse_output(o.out, o.force, {o.rows});
  save_tree(o.out, tree);
  if (o.json) {
    print_json(
        json{{"file", o.out},
             {"rows", tree.rows()},
             {"depth", tree.depth()},
             {"leaves", tree.leaf_count()},
             {"key_hash", hash_name(tree.options().key_hash)},
             {"root", digest_hex(tree.root())},
             {"ranges", tree.options().ranges.size()},
             {"fraction_covered",
              tree.options().ranges.empty() ? 1.0 : ranges_fraction(tree.options().ranges)}});
    return;
  }
  fmt::print("{}: {} rows, depth {} ({} leaves), root {}\n", o.out, tree.rows(), tree.depth(),
             tree.leaf_count(), digest_hex(tree.root()));
}

void add_build(CLI::App& merkle) {
  auto o = std::make_shared<build_options>();
  auto* cmd = merkle.add_subcommand("build", "Build a tree file from a rows file (key<TAB>value)");
  cmd->add_option("rows", o->rows, "The rows file, one key<TAB>value a line; '-' reads stdin")
      ->required();
  cmd->add_option("-o,--output", o->out, "The tree file to write")->required();
  cmd->add_flag("--force", o->force, "Replace the output if it exists");
  add_number_option(*cmd, "--depth", o->depth,
                    between<unsigned>(merkle_tree::min_depth, merkle_tree::max_depth),
                    "2^depth leaves (default 16)");
  o->hash_opt =
      cmd->add_option("--hash", o->hash, "The key hash: xxh3 (default), sha256, md5, poly31");
  cmd->add_option("--ring", o->ring_file, "A topology file: cover only the ranges --node holds");
  cmd->add_option("--node", o->node, "With --ring: the node whose ranges the tree covers");
  cmd->add_option("--peer", o->peer, "With --ring: also limit to the ranges this replica holds");
  add_number_option(*cmd, "--replicas", o->replicas, between<std::size_t>(1, max_replicas),
                    "With --ring: copies of each key (default 1)");
  cmd->add_flag("--json", o->json, "Print as JSON");
  set_example(*cmd, "ringbloom merkle build replica-a.tsv -o a.rbm --depth 16");
  cmd->callback([o] { with_advice(tree_advice, [&] { run_build(*o); }); });
}

// --- diff -------------------------------------------------------------------------

struct diff_options {
  std::string a;
  std::string b;
  std::string rows_a;
  std::string rows_b;
  bool json = false;
};

// The rows of one side in the differing leaves, checked against its tree.
std::unique_ptr<row_collector> collect(const merkle_tree& tree, const merkle_diff& d,
                                       const std::string& rows) {
  auto collector = std::make_unique<row_collector>(tree, d.leaves);
  try {
    scan_rows_file(rows, [&](std::string_view k, std::string_view v, std::uint64_t line) {
      collector->offer(k, v, line);
    });
    collector->check_against_tree();
  } catch (const data_error& e) {
    const std::string_view what = e.what();
    if (what.starts_with(rows)) throw;
    throw data_error(fmt::format("{}: {}", rows, what));
  }
  return collector;
}

void print_diff_text(const merkle_tree& a, const merkle_diff& d,
                     const std::vector<key_difference>* keys) {
  if (d.empty()) {
    fmt::print("trees are equal ({} digest exchanged)\n", d.digests_exchanged);
    return;
  }
  fmt::print(
      "trees differ in {} leaves ({} ranges); {} digests exchanged; rows to compare: {} + {}\n",
      d.leaves.size(), d.ranges.size(), d.digests_exchanged, d.rows_a, d.rows_b);
  for (const hash_range& r : d.ranges) {
    fmt::print("range\t{}\t{}\tleaves {}..{}\n", hex64(r.first), hex64(r.last), a.leaf_of(r.first),
               a.leaf_of(r.last));
  }
  if (keys == nullptr) return;
  for (const key_difference& k : *keys) {
    fmt::print("{}\t{}\n", k.key, key_change_name(k.change));
  }
}

json diff_json(const merkle_diff& d, const std::vector<key_difference>* keys) {
  json doc = {{"equal", d.empty()}, {"digests_exchanged", d.digests_exchanged},
              {"leaves", d.leaves}, {"ranges", ranges_json(d.ranges)},
              {"rows_a", d.rows_a}, {"rows_b", d.rows_b}};
  if (keys != nullptr) {
    json list = json::array();
    for (const key_difference& k : *keys) {
      json entry = {{"key", k.key}, {"change", key_change_name(k.change)}};
      entry["value_a"] = k.value_a ? json(*k.value_a) : json(nullptr);
      entry["value_b"] = k.value_b ? json(*k.value_b) : json(nullptr);
      list.push_back(std::move(entry));
    }
    doc["keys"] = std::move(list);
  }
  return doc;
}

void run_diff(const diff_options& o, context& ctx) {
  if (o.rows_a.empty() != o.rows_b.empty()) {
    throw usage_error("--rows-a and --rows-b go together; give both rows files or neither");
  }
  const merkle_tree a = load_tree(o.a);
  const merkle_tree b = load_tree(o.b);
  merkle_diff d;
  try {
    d = diff(a, b);
  } catch (const std::invalid_argument& e) {
    throw usage_error(fmt::format("{} and {}: {}", o.a, o.b, e.what()));
  }
  std::vector<key_difference> keys;
  const bool with_rows = !o.rows_a.empty();
  if (with_rows) {
    (void)io::check_input(o.rows_a);
    (void)io::check_input(o.rows_b);
  }
  if (with_rows && !d.empty()) {
    const auto rows_a = collect(a, d, o.rows_a);
    const auto rows_b = collect(b, d, o.rows_b);
    keys = compare_rows(*rows_a, *rows_b);
  }
  if (o.json) {
    print_json(diff_json(d, with_rows ? &keys : nullptr));
  } else {
    print_diff_text(a, d, with_rows ? &keys : nullptr);
  }
  if (!d.empty()) ctx.exit_status = exit_negative;
}

void add_diff(CLI::App& merkle, context& ctx) {
  auto o = std::make_shared<diff_options>();
  auto* cmd =
      merkle.add_subcommand("diff", "Compare two tree files top-down; exit 1 when they differ");
  cmd->add_option("a", o->a, "The first tree file")->required();
  cmd->add_option("b", o->b, "The second tree file")->required();
  cmd->add_option("--rows-a", o->rows_a, "The rows file A was built from: list differing keys");
  cmd->add_option("--rows-b", o->rows_b, "The rows file B was built from");
  cmd->add_flag("--json", o->json, "Print as JSON");
  set_example(*cmd, "ringbloom merkle diff a.rbm b.rbm --rows-a a.tsv --rows-b b.tsv");
  cmd->callback([o, &ctx] { with_advice(tree_advice, [&] { run_diff(*o, ctx); }); });
}

// --- info -------------------------------------------------------------------------

void run_info(const file_items& o) {
  const merkle_tree tree = load_tree(o.file);
  std::uint64_t min_rows = ~std::uint64_t{0};
  std::uint64_t max_rows = 0;
  for (std::uint64_t i = 0; i < tree.leaf_count(); ++i) {
    min_rows = std::min(min_rows, tree.leaf(i).rows);
    max_rows = std::max(max_rows, tree.leaf(i).rows);
  }
  const double mean = static_cast<double>(tree.rows()) / static_cast<double>(tree.leaf_count());
  const std::uint64_t bytes = serialize_tree(tree).size();
  const double covered =
      tree.options().ranges.empty() ? 1.0 : ranges_fraction(tree.options().ranges);
  if (o.json) {
    print_json(json{{"file", o.file},
                    {"format_version", merkle_format_version},
                    {"depth", tree.depth()},
                    {"leaves", tree.leaf_count()},
                    {"key_hash", hash_name(tree.options().key_hash)},
                    {"row_hash", row_hash_name(tree.options().row_hash)},
                    {"rows", tree.rows()},
                    {"root", digest_hex(tree.root())},
                    {"rows_per_leaf", {{"min", min_rows}, {"mean", mean}, {"max", max_rows}}},
                    {"ranges", ranges_json(tree.options().ranges)},
                    {"fraction_covered", covered},
                    {"file_bytes", bytes},
                    {"memory_bytes", tree.memory_bytes()}});
    return;
  }
  fmt::print("file            {}\n", o.file);
  fmt::print("format          ringbloom Merkle tree, version {}\n", merkle_format_version);
  fmt::print("depth           {} ({} leaves)\n", tree.depth(), tree.leaf_count());
  fmt::print("hashes          keys {}, rows {}\n", hash_name(tree.options().key_hash),
             row_hash_name(tree.options().row_hash));
  fmt::print("rows            {}\n", tree.rows());
  fmt::print("rows per leaf   min {}, mean {:.1f}, max {}\n", min_rows, mean, max_rows);
  fmt::print("root            {}\n", digest_hex(tree.root()));
  if (tree.options().ranges.empty()) {
    fmt::print("ranges          the whole hash space\n");
  } else {
    fmt::print("ranges          {} ({:.1f}% of the hash space)\n", tree.options().ranges.size(),
               100 * covered);
  }
  fmt::print("size            {} bytes on disk, {} in memory\n", bytes, tree.memory_bytes());
}

void add_info(CLI::App& merkle) {
  auto [cmd, o] = add_file_command(merkle, "info", "Show what a tree file holds",
                                   {.file = "The tree file", .items = "", .json = "Print as JSON"},
                                   "ringbloom merkle info a.rbm --json");
  cmd->callback([o = o] { with_advice(tree_advice, [&] { run_info(*o); }); });
}

}  // namespace

void add_merkle_commands(CLI::App& app, context& ctx) {
  auto* merkle = app.add_subcommand(
      "merkle", "Merkle trees of rows files: build, diff, info (anti-entropy between replicas)");
  merkle->require_subcommand(1);
  set_example(*merkle,
              "ringbloom merkle build a.tsv -o a.rbm --depth 16\n"
              "  ringbloom merkle build b.tsv -o b.rbm --depth 16\n"
              "  ringbloom merkle diff a.rbm b.rbm --rows-a a.tsv --rows-b b.tsv");
  add_build(*merkle);
  add_diff(*merkle, ctx);
  add_info(*merkle);
}

}  // namespace ringbloom::cli
