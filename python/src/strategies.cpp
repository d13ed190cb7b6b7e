// python/src/strategies.cpp: Placement, any placement behind the library's
// one placement interface (placement.hpp): the strategies of strategies.hpp
// (ring, ketama, rendezvous, maglev, bounded, multiprobe, anchor, memento,
// jump) and the systems' schemes of schemes/ (nginx, haproxy, twemproxy,
// redis-cluster, cassandra, groupcache, guava) with their topology files; and
// compare_strategies, the side-by-side measurement of `ringbloom ring
// simulate --strategy`.
//
// Thread safety without locks, as HashRing: a Placement holds a shared
// pointer to an immutable placement; add, remove and set_weight clone it,
// change the clone and swap the pointer under the GIL, and a batch lookup
// keeps a reference to the placement it started with.
//
// Pickling replays history (a system scheme pickles as its topology JSON,
// which holds its whole state): some strategies (anchor, memento, jump) place
// keys by the order of removals, not by the final node list, so a Placement
// pickles as its kind, options, initial nodes and every change since, and
// unpickling applies the same changes to a new placement.
#include "ringbloom/placement/strategies.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "items.hpp"
#include "lookup.hpp"
#include "module.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/change.hpp"
#include "ringbloom/placement/node_list.hpp"
#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::python {

namespace {

// A strategy's node weight by the command line's rule (check_node_weight:
// 1 to 2^32 - 1, as --change add:NAME=W); a system scheme checks its own
// range (haproxy 0 to 256 ...) when it is built.
void check_weight(std::string_view kind, const std::string& name, double weight) {
  if (!schemes::is_system_scheme(kind)) {
    (void)check_node_weight(weight, "the weight of node '" + name + "'");
  }
}

class py_placement {
 public:
  py_placement(std::string kind, std::vector<placement_node> nodes, strategy_options options)
      : kind_(std::move(kind)), initial_(std::move(nodes)), options_(options) {
    for (const placement_node& n : initial_) check_weight(kind_, n.name, n.weight);
    set(schemes::is_system_scheme(kind_) ? schemes::make_scheme_placement(kind_, initial_)
                                         : make_strategy(kind_, initial_, options_));
  }

  // A system scheme's placement as a topology file describes it.
  explicit py_placement(std::unique_ptr<placement> p) : kind_(p->kind_name()) { set(std::move(p)); }

  [[nodiscard]] const std::shared_ptr<const placement>& get() const noexcept { return p_; }

  // The nodes with their weights, when the placement was made from a node
  // list (the initial nodes and every change since); empty for one read
  // from a topology or a configuration, whose weights it does not expose.
  [[nodiscard]] std::vector<placement_node> known_nodes() const {
    if (initial_.empty()) return {};
    return apply_steps(initial_, steps_);
  }
  [[nodiscard]] const py::tuple& names() const noexcept { return names_; }

  // Applies `step` to a clone and publishes it; unchanged on an exception.
  void apply(const placement_step& step) {
    std::unique_ptr<placement> next = p_->clone();
    apply_step(*next, step);
    set(std::move(next));
    steps_.push_back(step);
  }

  [[nodiscard]] py::tuple state() const {
    if (schemes::is_system_scheme(p_->kind_name())) {
      // A system scheme's state is its topology (stable bytes), whatever
      // changes led to it.
      return py::make_tuple("topology", schemes::scheme_topology_json(*p_));
    }
    py::list nodes;
    for (const placement_node& n : initial_) nodes.append(py::make_tuple(n.name, n.weight));
    py::list steps;
    for (const placement_step& s : steps_) {
      steps.append(py::make_tuple(static_cast<int>(s.what), s.name, s.weight));
    }
    const strategy_options& o = options_;
    py::tuple options =
        py::make_tuple(o.ring_vnodes, std::string(hash_name(o.ring_hash)), o.maglev_table, o.probes,
                       o.epsilon, o.anchor_capacity, o.skeleton_fanout);
    return py::make_tuple(kind_, nodes, options, steps);
  }

  static std::unique_ptr<py_placement> from_state(const py::tuple& state) {
    if (state.size() == 2 && state[0].cast<std::string>() == "topology") {
      return std::make_unique<py_placement>(
          schemes::parse_scheme_topology(state[1].cast<std::string>(), "pickle"));
    }
    if (state.size() != 4) throw py::value_error("not a pickled ringbloom.Placement");
    std::vector<placement_node> nodes;
    for (py::handle n : state[1]) {
      const auto t = n.cast<py::tuple>();
      nodes.push_back({t[0].cast<std::string>(), t[1].cast<double>()});
    }
    const auto o = state[2].cast<py::tuple>();
    strategy_options options;
    options.ring_vnodes = o[0].cast<std::uint32_t>();
    options.ring_hash = parse_hash(o[1].cast<std::string>());
    options.maglev_table = o[2].cast<std::uint32_t>();
    options.probes = o[3].cast<std::uint32_t>();
    options.epsilon = o[4].cast<double>();
    options.anchor_capacity = o[5].cast<std::uint32_t>();
    // Pickles from before skeleton_fanout have six options: the default then.
    if (o.size() > 6) options.skeleton_fanout = o[6].cast<std::uint32_t>();
    auto p = std::make_unique<py_placement>(state[0].cast<std::string>(), nodes, options);
    for (py::handle s : state[3]) {
      const auto t = s.cast<py::tuple>();
      p->apply({static_cast<placement_step::kind>(t[0].cast<int>()), t[1].cast<std::string>(),
                t[2].cast<double>()});
    }
    return p;
  }

 private:
  void set(std::unique_ptr<placement> next) {
    std::shared_ptr<const placement> shared(std::move(next));
    py::tuple names(shared->node_count());
    for (std::size_t i = 0; i < shared->node_count(); ++i) {
      names[i] = py::str(shared->node_name(static_cast<std::uint32_t>(i)));
    }
    p_ = std::move(shared);
    names_ = std::move(names);
  }

  std::string kind_;
  std::vector<placement_node> initial_;
  strategy_options options_;
  std::vector<placement_step> steps_;
  std::shared_ptr<const placement> p_;
  py::tuple names_;
};

// Nodes from an iterable of names or a mapping name -> weight (a number).
std::vector<placement_node> to_nodes(py::handle nodes) {
  std::vector<placement_node> result;
  if (PyUnicode_Check(nodes.ptr())) {
    throw py::type_error(
        "nodes must be an iterable of names (or a dict name -> weight), not "
        "one str");
  }
  if (PyDict_Check(nodes.ptr())) {
    for (auto [name, weight] : py::reinterpret_borrow<py::dict>(nodes)) {
      result.push_back({checked_name(name), py::cast<double>(weight)});
    }
    return result;
  }
  for (py::handle name : py::iter(nodes)) {
    if (!PyUnicode_Check(name.ptr())) {
      throw py::type_error("a node name must be a str, not " +
                           std::string(py::str(py::type::handle_of(name).attr("__name__"))));
    }
    result.push_back({checked_name(name), 1.0});
  }
  return result;
}

strategy_options to_options(py::handle vnodes, std::string_view hash, py::handle maglev_table,
                            py::handle probes, double epsilon, py::handle anchor_capacity,
                            py::handle skeleton_fanout) {
  strategy_options o;
  o.ring_vnodes = to_count32(vnodes, "vnodes");
  o.ring_hash = parse_hash(hash);
  o.maglev_table = to_count32(maglev_table, "maglev_table");
  o.probes = to_count32(probes, "probes");
  o.epsilon = epsilon;
  o.anchor_capacity = to_count32(anchor_capacity, "anchor_capacity");
  o.skeleton_fanout = to_count32(skeleton_fanout, "skeleton_fanout");
  return o;
}

py::array_t<std::uint32_t> index_many(const py_placement& self, py::handle keys) {
  const item_batch batch(keys);
  const std::shared_ptr<const placement> p = self.get();
  py::array_t<std::uint32_t> result(static_cast<py::ssize_t>(batch.size()));
  std::uint32_t* out = result.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    node_indexes(*p, batch, out);
  }
  return result;
}

py::object node_for(const py_placement& self, py::handle key) {
  std::string scratch;
  const std::string_view bytes = item_view(key, scratch);
  const placement& p = *self.get();
  const std::uint32_t index = p.node_index_for_hash(p.key_hash(bytes));
  return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(self.names().ptr(), index));
}

py::list compare(py::handle nodes, std::string_view changes, py::handle kinds, py::handle keys,
                 py::handle vnodes, std::string_view hash, bool time_lookups,
                 py::handle maglev_table, py::handle probes, double epsilon,
                 py::handle anchor_capacity, py::handle skeleton_fanout) {
  const std::vector<placement_node> before = to_nodes(nodes);
  for (const placement_node& n : before) check_weight("", n.name, n.weight);
  const std::vector<placement_step> steps = parse_placement_changes(changes);
  std::vector<std::string> names;
  if (kinds.is_none()) {
    for (const std::string_view n : strategy_names()) names.emplace_back(n);
  } else {
    names = py::cast<std::vector<std::string>>(kinds);
  }
  std::vector<std::string> key_list =
      keys.is_none() ? numbered_keys(100'000) : py::cast<std::vector<std::string>>(keys);
  const strategy_options options =
      to_options(vnodes, hash, maglev_table, probes, epsilon, anchor_capacity, skeleton_fanout);
  check_comparison_size(before.size(), steps.size(), key_list.size(), options.ring_vnodes);
  strategy_comparison result;
  {
    const py::gil_scoped_release no_gil;
    result = compare_strategies(before, steps, names, key_list, options, time_lookups);
  }
  py::list rows;
  for (const strategy_result& r : result.strategies) {
    py::dict row;
    row["kind"] = r.name;
    row["supported"] = r.supported;
    row["unsupported_reason"] = r.unsupported_reason;
    row["keys"] = r.keys;
    row["moved"] = r.moved;
    row["moved_fraction"] = r.moved_fraction;
    row["ideal_fraction"] = r.ideal_fraction;
    row["changed_share"] = r.changed_share;
    row["peak_to_average"] = r.peak_avg;
    row["min_share"] = r.min_share;
    row["max_share"] = r.max_share;
    row["memory_bytes"] = r.memory_bytes;
    row["lookup_ns"] = r.lookup_ns;
    row["supports"] = r.supports;
    rows.append(row);
  }
  return rows;
}

// `ringbloom ring import`'s reader of a system's own file (or of its text,
// given as bytes): one call of the library's dispatcher, which holds every
// reader and every rule.
// A replication factor from Python, by the command line's rule (--rf,
// --dc-rf: an int from `least` to max_replication_factor).
std::uint32_t replication_factor(py::handle value, std::uint32_t least, const std::string& what) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
    throw py::type_error(what + " must be an int, not " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  const auto n = value.cast<long long>();
  if (n < least || n > schemes::max_replication_factor) {
    throw py::value_error(what + " is " + std::to_string(n) + "; give a replication factor from " +
                          std::to_string(least) + " to " +
                          std::to_string(schemes::max_replication_factor) +
                          (least == 0 ? " (0: no replica in that data centre)" : ""));
  }
  return static_cast<std::uint32_t>(n);
}

std::unique_ptr<py_placement> import_config(const std::string& system, py::handle path_or_text,
                                            py::handle name, py::handle rf, py::handle dc_rf) {
  schemes::config_options options;
  if (!name.is_none()) options.section = py::cast<std::string>(name);
  options.section_option = "name=";
  if (!dc_rf.is_none()) {
    if (!PyDict_Check(dc_rf.ptr())) {
      throw py::type_error("dc_rf must be a dict data centre -> factor, e.g. {\"dc1\": 3}");
    }
    std::map<std::string, std::uint32_t> factors;
    for (auto [dc, factor] : py::reinterpret_borrow<py::dict>(dc_rf)) {
      if (!PyUnicode_Check(dc.ptr())) throw py::type_error("dc_rf's keys must be str");
      const auto dc_name = py::cast<std::string>(dc);
      factors[dc_name] = replication_factor(factor, 0, "dc_rf['" + dc_name + "']");
    }
    options.replication = schemes::replication_from_factors(std::move(factors), "dc_rf");
  } else {
    options.replication = schemes::cassandra_replication::simple(replication_factor(rf, 1, "rf"));
  }
  schemes::imported_config r;
  if (PyBytes_Check(path_or_text.ptr())) {
    const auto text = py::cast<std::string>(path_or_text);
    py::gil_scoped_release unlocked;
    r = schemes::import_config(system, text, "<text>", options);
  } else {
    const std::string path = py::cast<std::filesystem::path>(path_or_text).string();
    py::gil_scoped_release unlocked;
    r = schemes::import_config_file(system, path, options);
  }
  if (!r.notes.empty()) {
    const py::module_ warnings = py::module_::import("warnings");
    for (const std::string& note : r.notes) warnings.attr("warn")(note);
  }
  return std::make_unique<py_placement>(std::move(r.scheme));
}

// measure_change (change.hpp) of two Placements: the figures of `ringbloom
// ring simulate`, the least possible from the weights when both were made
// from node lists (None otherwise).
py::dict measure(const py_placement& before, const py_placement& after, py::handle keys,
                 const std::string& key_format) {
  const std::vector<placement_node> before_nodes = before.known_nodes();
  const std::vector<placement_node> after_nodes = after.known_nodes();
  const std::shared_ptr<const placement> b = before.get();
  const std::shared_ptr<const placement> a = after.get();
  change_measure m;
  if (PyLong_Check(keys.ptr())) {
    const auto count = keys.cast<long long>();
    if (count < 0) throw py::value_error("keys must be a count >= 0 or an iterable of str");
    key_pattern pattern(key_format);
    py::gil_scoped_release unlocked;
    m = measure_change(*b, *a, std::move(pattern), static_cast<std::uint64_t>(count), before_nodes,
                       after_nodes);
  } else {
    const std::vector<std::string> list = keys.cast<std::vector<std::string>>();
    py::gil_scoped_release unlocked;
    m = measure_change(*b, *a, list, before_nodes, after_nodes);
  }
  py::dict d;
  d["keys"] = m.keys;
  d["moved"] = m.moved;
  d["moved_fraction"] = m.moved_fraction();
  d["moved_between_survivors"] = m.moved_between_survivors;
  d["ideal_fraction"] = before_nodes.empty() || after_nodes.empty() ? py::object(py::none())
                                                                    : py::float_(m.ideal_fraction);
  d["moved_to"] = m.moved_to;
  d["moved_from"] = m.moved_from;
  py::list flows;
  for (const auto& [pair, count] : m.flows)
    flows.append(py::make_tuple(pair.first, pair.second, count));
  d["flows"] = flows;
  d["load_before"] = m.load_before;
  d["load_after"] = m.load_after;
  d["peak_to_average_before"] = m.peak_to_average_before;
  d["peak_to_average_after"] = m.peak_to_average_after;
  d["slots_moved"] = m.slots_moved ? py::object(py::int_(*m.slots_moved)) : py::object(py::none());
  return d;
}

// `ring ... --nodes`' grammar (node_list.hpp) as a dict name -> weight.
py::dict parse_nodes(std::string_view text, std::size_t first) {
  py::dict d;
  for (const placement_node& n : parse_node_list(text, {.first = first,
                                                       .option = "nodes",
                                                       .min_weight = 1,
                                                       .max_weight = max_node_list_weight})) {
    d[py::str(n.name)] = n.weight;
  }
  return d;
}

}  // namespace

void bind_strategies(py::module_& m) {
  m.def(
      "placement_kinds",
      [] {
        std::vector<std::string> names;
        for (const std::string_view n : strategy_names()) names.emplace_back(n);
        for (const std::string_view n : schemes::system_scheme_names()) names.emplace_back(n);
        return names;
      },
      "The kinds Placement accepts: the strategies, then the systems' schemes (nginx, "
      "haproxy, twemproxy, redis-cluster, cassandra, groupcache, guava).");
  m.def("import_config", &import_config, py::arg("system"), py::arg("path_or_text"),
        py::arg("name") = py::none(), py::kw_only(), py::arg("rf") = 1,
        py::arg("dc_rf") = py::none(),
        "A system's own configuration as a Placement, read by the same library code as "
        "`ringbloom ring import`: a path, or the text itself as bytes. 'nginx' (name= the "
        "upstream), 'haproxy' (name= the backend), 'twemproxy' (nutcracker.yml; name= the pool, "
        "optional with one pool), 'envoy' (name= the cluster, optional: the first), "
        "'redis-cluster' (CLUSTER NODES or CLUSTER SLOTS output), 'cassandra' (nodetool ring "
        "output; rf= SimpleStrategy factor or dc_rf= {dc: factor}). ringbloom.DataError names "
        "FILE:LINE; OSError; ValueError for an unknown system or a missing name. Settings "
        "modelled as when all is well (twemproxy's auto_eject_hosts) are warnings.");
  m.def("measure_change", &measure, py::arg("before"), py::arg("after"), py::arg("keys") = 20000,
        py::kw_only(), py::arg("key_format") = "key-{}",
        "How keys move from Placement `before` to `after`, as `ringbloom ring simulate` "
        "measures it: keys (a count of key_format keys, or an iterable of str), moved, "
        "moved_fraction, moved_between_survivors, ideal_fraction (the least possible by the "
        "nodes' weights; None unless both were made from node lists), moved_to, moved_from, "
        "flows [(from, to, keys)], load_before, load_after, peak_to_average_before/_after, "
        "slots_moved (Redis Cluster on both sides, else None).");
  m.def("parse_nodes", &parse_nodes, py::arg("text"), py::kw_only(), py::arg("first") = 1,
        "The command line's node list, 'a=1,b=3' or a count '4' (n<first>..), as a dict "
        "name -> weight for Placement and compare_strategies. ValueError for a bad list.");
  m.def("compare_strategies", &compare, py::arg("nodes"), py::arg("changes"),
        py::arg("kinds") = py::none(), py::arg("keys") = py::none(), py::arg("vnodes") = 160,
        py::arg("hash") = "xxh3", py::arg("time_lookups") = false, py::kw_only(),
        py::arg("maglev_table") = 65537, py::arg("probes") = 21, py::arg("epsilon") = 0.25,
        py::arg("anchor_capacity") = 0, py::arg("skeleton_fanout") = 32,
        "Places the same keys with each strategy before and after `changes` "
        "(\"add:x,remove:y,reweight:z=2\") and returns one dict per strategy: moved_fraction "
        "against ideal_fraction, balance, memory (and lookup_ns when time_lookups). keys "
        "default to key-0 .. key-99999. The keyword options are Placement's. As `ringbloom "
        "ring simulate --strategy` (with --strategy-option).");

  py::class_<py_placement>(m, "Placement", R"doc(
Any placement through the library's one interface: the strategies "ring",
"ketama", "rendezvous", "maglev", "bounded", "multiprobe", "anchor", "memento",
"jump", "jumpback", "skeleton", and the systems' schemes "nginx", "haproxy", "twemproxy",
"redis-cluster", "cassandra", "groupcache", "guava", which place keys exactly
as those systems do (placement_kinds()). Keys are str (UTF-8) or bytes.

    p = ringbloom.Placement("maglev", ["a", "b", "c"])
    p.node_for("user:42")
    p.remove("b")                 # only b's keys move
    p.supports                    # ['add', 'remove_any', 'reweight']
)doc")
      .def(py::init([](std::string_view kind, py::handle nodes, py::handle vnodes,
                       std::string_view hash, py::handle maglev_table, py::handle probes,
                       double epsilon, py::handle anchor_capacity, py::handle skeleton_fanout) {
             return std::make_unique<py_placement>(
                 std::string(kind), to_nodes(nodes),
                 to_options(vnodes, hash, maglev_table, probes, epsilon, anchor_capacity,
                            skeleton_fanout));
           }),
           py::arg("kind"), py::arg("nodes"), py::kw_only(), py::arg("vnodes") = 160,
           py::arg("hash") = "xxh3", py::arg("maglev_table") = 65537, py::arg("probes") = 21,
           py::arg("epsilon") = 0.25, py::arg("anchor_capacity") = 0,
           py::arg("skeleton_fanout") = 32,
           "nodes: names, or a dict name -> weight. The options are those of strategies.hpp "
           "(vnodes and hash for ring and bounded, the maglev table size, multiprobe's probes, "
           "bounded's epsilon, anchor's capacity, skeleton's fan-out).")
      .def_static(
          "from_topology",
          [](const std::filesystem::path& path) {
            return std::make_unique<py_placement>(schemes::load_scheme_topology(path));
          },
          py::arg("path"),
          "A system scheme's placement from its topology file (`ringbloom ring import`). "
          "OSError, ringbloom.DataError.")
      .def(
          "topology_json",
          [](const py_placement& self) { return schemes::scheme_topology_json(*self.get()); },
          "A system scheme's topology as JSON text (ValueError for the strategies, which have "
          "no topology file).")
      .def(
          "save_topology",
          [](const py_placement& self, const std::filesystem::path& path) {
            schemes::save_scheme_topology(path, *self.get());
          },
          py::arg("path"))
      .def_property_readonly(
          "kind", [](const py_placement& self) { return std::string(self.get()->kind_name()); })
      .def("node_for", &node_for, py::arg("key"), "The owner's name.")
      .def(
          "nodes_for",
          [](const py_placement& self, py::handle key, py::handle n) {
            std::string scratch;
            const std::string_view bytes = item_view(key, scratch);
            return self.get()->nodes_for(bytes, to_count(n, "n"));
          },
          py::arg("key"), py::arg("n"),
          "Up to n distinct nodes, owner first (strategies whose supports has 'replicas').")
      .def(
          "key_hash",
          [](const py_placement& self, py::handle key) {
            std::string scratch;
            return self.get()->key_hash(item_view(key, scratch));
          },
          py::arg("key"))
      .def(
          "node_for_hash",
          [](const py_placement& self, py::handle h) {
            const std::uint32_t index = self.get()->node_index_for_hash(to_count(h, "hash value"));
            return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(self.names().ptr(), index));
          },
          py::arg("h"))
      .def("node_index_many", &index_many, py::arg("keys"),
           "Owners' indexes into `nodes` (numpy uint32), GIL released; a uint64 array is key "
           "hashes.")
      .def(
          "node_for_many",
          [](const py_placement& self, py::handle keys) {
            const py::array_t<std::uint32_t> index = index_many(self, keys);
            return names_of(self.names(), index.data(), static_cast<std::size_t>(index.size()));
          },
          py::arg("keys"), "Owners' names.")
      .def(
          "add",
          [](py_placement& self, const std::string& name, double weight) {
            check_node_name(name);
            check_weight(self.get()->kind_name(), name, weight);
            self.apply({placement_step::kind::add, name, weight});
          },
          py::arg("name"), py::arg("weight") = 1.0)
      .def(
          "remove",
          [](py_placement& self, const std::string& name) {
            self.apply({placement_step::kind::remove, name, 1.0});
          },
          py::arg("name"))
      .def(
          "set_weight",
          [](py_placement& self, const std::string& name, double weight) {
            check_weight(self.get()->kind_name(), name, weight);
            self.apply({placement_step::kind::reweight, name, weight});
          },
          py::arg("name"), py::arg("weight"))
      .def_property_readonly(
          "supports", [](const py_placement& self) { return change_names(self.get()->supports()); },
          "The changes this strategy supports: add, remove_any, remove_last, reweight, replicas.")
      .def_property_readonly("nodes",
                             [](const py_placement& self) { return py::list(self.names()); })
      .def("__len__", [](const py_placement& self) { return self.get()->node_count(); })
      .def("__contains__",
           [](const py_placement& self, py::handle name) {
             return PyUnicode_Check(name.ptr()) &&
                    PySequence_Contains(self.names().ptr(), name.ptr()) == 1;
           })
      .def_property_readonly("memory_bytes",
                             [](const py_placement& self) { return self.get()->memory_bytes(); })
      .def("__repr__",
           [](const py_placement& self) {
             return "Placement('" + std::string(self.get()->kind_name()) + "', " +
                    std::to_string(self.get()->node_count()) + " nodes)";
           })
      .def(py::pickle([](const py_placement& self) { return self.state(); },
                      [](const py::tuple& state) { return py_placement::from_state(state); }));
}

}  // namespace ringbloom::python
