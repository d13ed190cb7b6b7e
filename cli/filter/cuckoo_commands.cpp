// `ringbloom cuckoo ...`: cuckoo filter files (include/ringbloom/filter/cuckoo.hpp).
// Thin: parse, call the library, print. Writes go through update_cuckoo_file,
// one locked load-change-save per batch of 65,536 stdin lines.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::string_view read_advice =
    "check the file name, or create the filter first with 'ringbloom cuckoo create'";

// Info as JSON for a filter or its read-only mapped view (the same fields).
template <class Filter>
json info_json(const std::string& file, const Filter& f) {
  const auto& o = f.settings();
  return json{{"file", file},
              {"capacity", f.capacity()},
              {"bucket_size", o.bucket_size},
              {"fingerprint_bits", o.fingerprint_bits},
              {"max_kicks", o.max_kicks},
              {"expansion", o.expansion},
              {"seed", o.seed},
              {"sub_filters", f.sub_filters().size()},
              {"items", f.items()},
              {"deletes", f.deletes()},
              {"load_factor", f.load_factor()},
              {"memory_bytes", f.memory_bytes()},
              {"expected_fpr",
               cuckoo_filter::expected_fpr(o.bucket_size, o.fingerprint_bits, f.load_factor())}};
}

void add_create(CLI::App& cuckoo) {
  struct opts {
    std::string file;
    std::uint64_t capacity = 0;
    cuckoo_filter::options o;
    bool force = false, json = false;
  };
  auto o = std::make_shared<opts>();
  auto* cmd = cuckoo.add_subcommand("create", "Create an empty cuckoo filter file");
  cmd->add_option("file", o->file, "The file to write")->required();
  add_number_option(*cmd, "--capacity", o->capacity, at_least<std::uint64_t>(1),
                    "Items the first sub-filter is made for")
      ->required();
  add_number_option(*cmd, "--bucket-size", o->o.bucket_size,
                    between<std::uint32_t>(1, cuckoo_filter::max_bucket_size),
                    "1 to 255: 2 (default, as RedisBloom), 4 for a higher load factor");
  add_number_option(*cmd, "--fingerprint-bits", o->o.fingerprint_bits,
                    between<std::uint32_t>(8, 16), "8 (default), 12 or 16");
  add_number_option(*cmd, "--max-kicks", o->o.max_kicks, between<std::uint32_t>(1, 65535),
                    "Evictions per insertion (default 20)");
  add_number_option(*cmd, "--expansion", o->o.expansion, between<std::uint32_t>(0, 32768),
                    "Growth factor of each new sub-filter when full, 0 = never grow (default 1)");
  add_number_option(*cmd, "--seed", o->o.seed, at_least<std::uint64_t>(0), "xxh3 seed (default 0)");
  cmd->add_flag("--force", o->force, "Replace FILE if it exists");
  cmd->add_flag("--json", o->json, "Print the summary as JSON");
  set_example(*cmd, "ringbloom cuckoo create sessions.cf --capacity 1000000 --bucket-size 4");
  cmd->callback([o] {
    // Before allocating: the first sub-filter and its serialized copy.
    require_memory(2 * cuckoo_filter::planned_memory_bytes(o->capacity, o->o),
                   fmt::format("--capacity {}", o->capacity),
                   "lower --capacity (the filter grows when it fills up)");
    const cuckoo_filter f(o->capacity, o->o);
    refuse_output(o->file, o->force);
    with_advice("check that the directory exists and is writable",
                [&] { save_cuckoo(o->file, f); });
    if (o->json) return print_json(info_json(o->file, f));
    fmt::print("created {}: cuckoo filter, {} buckets of {} x {}-bit fingerprints, {} bytes\n",
               o->file, f.sub_filters()[0].buckets, f.settings().bucket_size,
               f.settings().fingerprint_bits, f.memory_bytes());
  });
}

/// f.add(item); a growth step this process cannot hold (the library checks
/// it before allocating, io::memory_error) becomes a usage error naming the
/// file: the batch is then not written.
bool add_or_refuse(cuckoo_filter& f, const std::string& item, const std::string& file) {
  try {
    return f.add(item);
  } catch (const io::memory_error& e) {
    throw usage_error(fmt::format("{}: {} (nothing of this batch was written)", file, e.what()));
  }
}

void add_add(CLI::App& cuckoo) {
  auto [cmd, o] = add_file_command(
      cuckoo, "add", "Add items (arguments, or one per line from stdin)",
      {"The cuckoo filter file to update"}, "ringbloom cuckoo add sessions.cf s-17 s-18");
  cmd->callback([o = o] {
    std::uint64_t items = 0;
    with_advice(read_advice, [&] {
      const auto n = in_batches(o->items, [&](const std::vector<std::string>& batch) {
        update_cuckoo_file(o->file, [&](cuckoo_filter& f) {
          // The growth the batch causes at least, and the serialized copy. A
          // filter may also grow a little before its slots are all taken; that
          // rarer case is caught by main() as "ran out of memory", with nothing
          // written either way.
          require_memory(2 * f.memory_bytes_after(batch.size()),
                         fmt::format("adding {} items to {} (expansion {}) makes it grow, which",
                                     batch.size(), o->file, f.settings().expansion),
                         "add fewer items, or create the filter with a larger --capacity and a "
                         "smaller --expansion");
          for (const auto& item : batch) {
            if (!add_or_refuse(f, item, o->file)) {
              throw data_error(
                  fmt::format("the cuckoo filter {} is full at {} items and may not grow "
                              "(expansion 0), so this batch was not added",
                              o->file, f.items()),
                  "create it with a larger --capacity or an --expansion");
            }
          }
          items = f.items();
        });
      });
      if (n == 0) items = load_cuckoo(o->file).items();
      if (o->json) return print_json(json{{"file", o->file}, {"added", n}, {"items", items}});
      fmt::print("added {} to {} ({} in the filter)\n", count_of(n, "item"), o->file,
                 count_of(items, "item"));
    });
  });
}

void add_check(CLI::App& cuckoo, context& ctx) {
  auto [cmd, o] = add_file_command(
      cuckoo, "check", "Print item<TAB>maybe|no; exit 1 if any item is definitely absent",
      {.file = "The cuckoo filter file", .json = "Print one JSON object per item"},
      "ringbloom cuckoo check sessions.cf s-17 s-99");
  cmd->callback([o = o, &ctx] {
    with_advice(read_advice, [&] {
      const cuckoo_view f = open_cuckoo_mapped(o->file);  // lookups read the mapping in place
      for_each_item(o->items, [&](std::string_view item) {
        const bool maybe = f.may_contain(item);
        if (!maybe) ctx.exit_status = exit_negative;
        if (o->json) {
          fmt::print("{}\n", json_line(json{{"key", item}, {"present", maybe}}));
        } else {
          fmt::print("{}\t{}\n", item, maybe ? "maybe" : "no");
        }
      });
    });
  });
}

void add_remove(CLI::App& cuckoo, context& ctx) {
  auto [cmd, o] = add_file_command(
      cuckoo, "remove",
      "Remove items that were added (all of a batch or none); exit 1 if one is not there. "
      "Removing an item never added can remove another item whose fingerprint collides",
      {"The cuckoo filter file to update"}, "ringbloom cuckoo remove sessions.cf s-17");
  cmd->callback([o = o, &ctx] {
    std::uint64_t items = 0;
    std::string missing;
    with_advice(read_advice, [&] {
      struct not_there {};
      std::uint64_t removed = 0;
      try {
        removed = in_batches(o->items, [&](const std::vector<std::string>& batch) {
          update_cuckoo_file(o->file, [&](cuckoo_filter& f) {
            for (const auto& item : batch) {
              if (!f.remove(item)) {
                missing = item;
                throw not_there{};
              }
            }
            items = f.items();
          });
        });
      } catch (const not_there&) {
        ctx.exit_status = exit_negative;
        fmt::print(stderr,
                   "ringbloom: '{}' is not in {}, so its batch was left unchanged; remove only "
                   "items that were added\n",
                   missing, o->file);
        return;
      }
      if (o->json) {
        return print_json(json{{"file", o->file}, {"removed", removed}, {"items", items}});
      }
      fmt::print("removed {} from {} ({} in the filter)\n", count_of(removed, "item"), o->file,
                 count_of(items, "item"));
    });
  });
}

void add_info(CLI::App& cuckoo) {
  auto [cmd, o] =
      add_file_command(cuckoo, "info", "Show a cuckoo filter's parameters and load",
                       {.file = "The cuckoo filter file", .items = "", .json = "Print as JSON"},
                       "ringbloom cuckoo info sessions.cf");
  cmd->callback([o = o] {
    with_advice(read_advice, [&] {
      const cuckoo_view f = open_cuckoo_mapped(o->file);
      if (o->json) return print_json(info_json(o->file, f));
      const auto& s = f.settings();
      fmt::print(
          "{}: cuckoo filter, bucket size {}, {}-bit fingerprints, {}, {}, "
          "load {:.3f}, expected fpr {:.4g}, {} bytes\n",
          o->file, s.bucket_size, s.fingerprint_bits,
          count_of(f.sub_filters().size(), "sub-filter"), count_of(f.items(), "item"),
          f.load_factor(),
          cuckoo_filter::expected_fpr(s.bucket_size, s.fingerprint_bits, f.load_factor()),
          f.memory_bytes());
    });
  });
}

}  // namespace

void add_cuckoo_commands(CLI::App& app, context& ctx) {
  auto* cuckoo = app.add_subcommand(
      "cuckoo", "Cuckoo filter files (a filter that can delete): create, add, check, remove, info");
  cuckoo->require_subcommand(1);
  set_example(*cuckoo,
              "ringbloom cuckoo create sessions.cf --capacity 1000000\n"
              "  ringbloom cuckoo add sessions.cf s-17\n"
              "  ringbloom cuckoo check sessions.cf s-17 s-99");
  add_create(*cuckoo);
  add_add(*cuckoo);
  add_check(*cuckoo, ctx);
  add_remove(*cuckoo, ctx);
  add_info(*cuckoo);
}

}  // namespace ringbloom::cli
