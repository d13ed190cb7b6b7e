// `ringbloom ring import SYSTEM FILE ... -o T.json`: a system's own
// configuration (or status output) in, a topology file out.
//
//   ring import nginx FILE --upstream NAME -o T.json
//   ring import haproxy FILE --backend NAME -o T.json
//   ring import twemproxy FILE --pool NAME -o T.json      (nutcracker.yml)
//   ring import envoy FILE --cluster NAME -o T.json
//   ring import cassandra FILE [--rf N|--dc-rf DC=N,...] -o T.json  (nodetool ring)
//   ring import redis-cluster FILE -o T.json    (CLUSTER NODES or CLUSTER SLOTS output)
//
// import_config() turns the options into one call of the library's
// schemes::import_config_file, which reads, dispatches and checks (every
// rule lives in ringbloom/placement/schemes/config_import.hpp); `ring lookup
// --from` and `ring diff --from` call it too. Errors name FILE:LINE and exit
// 3; nothing is written then.
#include <fmt/core.h>

#include <memory>
#include <string>

#include "common.hpp"
#include "output.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "scheme_commands.hpp"

namespace ringbloom::cli {
namespace {

struct import_options {
  config_source source;
  std::string output;
  bool force = false;
  bool json = false;
};

void run_import(const import_options& o) {
  const std::unique_ptr<placement> p = import_config(o.source);
  const std::string topology = schemes::scheme_topology_json(*p);
  if (o.output.empty() || o.output == "-") {
    fmt::print("{}", topology);
  } else {
    refuse_output(o.output, o.force, {o.source.file});
    io::write_file_atomic(o.output, topology);
  }
  if (o.json) return;
  fmt::print(stderr, "ringbloom: {} {}: {} servers{}\n", o.source.system, o.source.file,
             p->node_count(),
             o.output.empty() || o.output == "-" ? "" : fmt::format(", written to {}", o.output));
}

}  // namespace

std::unique_ptr<placement> import_config(const config_source& o) {
  schemes::config_options options;
  if (o.system == "nginx") options.section = o.upstream;
  if (o.system == "haproxy") options.section = o.backend;
  if (o.system == "twemproxy") options.section = o.pool;
  if (o.system == "envoy") options.section = o.cluster;
  if (o.system == "cassandra") {
    options.replication = o.dc_rf.empty() ? schemes::cassandra_replication::simple(o.rf)
                                          : schemes::parse_datacenter_factors(o.dc_rf, "--dc-rf");
  }
  schemes::imported_config r = schemes::import_config_file(o.system, o.file, options);
  for (const std::string& note : r.notes) fmt::print(stderr, "ringbloom: note: {}\n", note);
  return std::move(r.scheme);
}

void add_config_options(CLI::App& cmd, config_source& o, CLI::Option* from) {
  std::vector<CLI::Option*> added = {
      cmd.add_option("--upstream", o.upstream, "nginx: the upstream block to read"),
      cmd.add_option("--backend", o.backend, "haproxy: the backend (or listen) section to read"),
      cmd.add_option("--pool", o.pool,
                     "twemproxy: the pool to read (optional when the file has one)"),
      cmd.add_option("--cluster", o.cluster, "envoy: the cluster to read (RING_HASH or MAGLEV)"),
      add_number_option(cmd, "--rf", o.rf, between<std::uint32_t>(1, 100'000),
                        "cassandra: SimpleStrategy replication factor (default 1)"),
      cmd.add_option("--dc-rf", o.dc_rf,
                     "cassandra: NetworkTopologyStrategy factors, DC=N,... (e.g. dc1=3,dc2=2)")};
  if (from == nullptr) return;
  for (CLI::Option* option : added) option->needs(from);
}

void add_ring_import(CLI::App& ring) {
  auto o = std::make_shared<import_options>();
  auto* cmd = ring.add_subcommand("import",
                                  "Read a system's configuration (nginx, haproxy, twemproxy, "
                                  "envoy, redis-cluster, cassandra) into a topology file");
  cmd->add_option("system", o->source.system,
                  "nginx, haproxy, twemproxy, envoy, redis-cluster or cassandra")
      ->required();
  cmd->add_option("file", o->source.file,
                  "nginx.conf, haproxy.cfg, nutcracker.yml, an Envoy YAML, or the output of "
                  "'redis-cli cluster nodes', 'redis-cli cluster slots' or 'nodetool ring'")
      ->required();
  add_config_options(*cmd, o->source, nullptr);
  cmd->add_option("-o,--output", o->output,
                  "The topology file to write (default: standard output)");
  cmd->add_flag("--force", o->force, "Replace the output if it exists");
  cmd->add_flag("--json", o->json, "Print only the topology JSON (no summary on stderr)");
  set_example(
      *cmd, "ringbloom ring import nginx /etc/nginx/nginx.conf --upstream backend -o backend.json");
  cmd->callback([o] { run_import(*o); });
}

}  // namespace ringbloom::cli
