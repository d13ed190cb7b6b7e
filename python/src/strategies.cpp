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
#include "ringbloom/placement/placement.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/scheme_topology.hpp"

namespace ringbloom::python {

namespace {

class py_placement {
 public:
  py_placement(std::string kind, std::vector<placement_node> nodes, strategy_options options)
      : kind_(std::move(kind)), initial_(std::move(nodes)), options_(options) {
    set(schemes::is_system_scheme(kind_) ? schemes::make_scheme_placement(kind_, initial_)
                                         : make_strategy(kind_, initial_, options_));
  }

  // A system scheme's placement as a topology file describes it.
  explicit py_placement(std::unique_ptr<placement> p) : kind_(p->kind_name()) { set(std::move(p)); }

  [[nodiscard]] const std::shared_ptr<const placement>& get() const noexcept { return p_; }
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
      result.push_back({py::cast<std::string>(name), py::cast<double>(weight)});
    }
    return result;
  }
  for (py::handle name : py::iter(nodes)) {
    if (!PyUnicode_Check(name.ptr())) {
      throw py::type_error("a node name must be a str, not " +
                           std::string(py::str(py::type::handle_of(name).attr("__name__"))));
    }
    result.push_back({py::cast<std::string>(name), 1.0});
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

// `ringbloom ring import`'s readers of a system's own file, for the systems
// whose reader is in the library (the YAML ones, twemproxy and envoy, are
// read by the CLI with yaml-cpp, which the library does not link).
std::unique_ptr<py_placement> import_config(std::string_view system,
                                            const std::filesystem::path& path, py::handle name,
                                            std::uint32_t rf, py::handle dc_rf) {
  const std::string file = path.string();
  const std::string section = name.is_none() ? std::string() : py::cast<std::string>(name);
  const auto need_name = [&](const char* what) {
    if (section.empty())
      throw py::value_error(std::string(system) + " needs name=, the " + what + " to read");
  };
  if (system == "twemproxy" || system == "envoy") {
    throw py::value_error(std::string(system) +
                          " configurations are YAML, which only the command line reads; run "
                          "`ringbloom ring import " +
                          std::string(system) +
                          " FILE -o t.json` and load it with Placement.from_topology");
  }
  if (system != "nginx" && system != "haproxy" && system != "redis-cluster" &&
      system != "cassandra") {
    throw py::value_error("'" + std::string(system) +
                          "' is not a system import_config reads; give nginx, haproxy, "
                          "redis-cluster or cassandra");
  }
  if (system == "nginx") need_name("upstream");
  if (system == "haproxy") need_name("backend");
  constexpr std::uint64_t max_config_bytes = std::uint64_t{16} << 20;
  const std::string text = io::read_file(path, max_config_bytes);
  if (system == "nginx") {
    return std::make_unique<py_placement>(schemes::import_nginx(text, file, section));
  }
  if (system == "haproxy") {
    return std::make_unique<py_placement>(schemes::import_haproxy(text, file, section));
  }
  if (system == "redis-cluster") {
    return std::make_unique<py_placement>(schemes::import_redis_cluster(text, file));
  }
  schemes::cassandra_replication replication = schemes::cassandra_replication::simple(rf);
  if (!dc_rf.is_none()) {
    replication = schemes::cassandra_replication::network(
        py::cast<std::map<std::string, std::uint32_t>>(dc_rf));
  }
  return std::make_unique<py_placement>(schemes::import_nodetool_ring(text, file, replication));
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
  m.def("import_config", &import_config, py::arg("system"), py::arg("path"),
        py::arg("name") = py::none(), py::kw_only(), py::arg("rf") = 1,
        py::arg("dc_rf") = py::none(),
        "A system's own configuration file as a Placement, read by the same code as "
        "`ringbloom ring import`: 'nginx' (name= the upstream), 'haproxy' (name= the backend), "
        "'redis-cluster' (CLUSTER NODES or CLUSTER SLOTS output), 'cassandra' (nodetool ring "
        "output; rf= SimpleStrategy factor or dc_rf= {dc: factor}). ringbloom.DataError names "
        "FILE:LINE; OSError; ValueError for an unknown system or a missing name.");
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
