// python/src/placement.cpp: HashRing (ringbloom::hash_ring, the native and
// ketama schemes), its analyses (ownership, load, movement between two rings),
// topology files, and jump consistent hashing.
//
// Thread safety without locks. A HashRing holds a shared pointer to an
// immutable ring. Lookups read it; add and remove build a new ring and swap
// the pointer, both under the GIL. A batch lookup takes its own reference to
// the current ring before it releases the GIL, so a concurrent add cannot
// change or free the ring under it (it answers for the ring it started with).
//
// Speed of one lookup. node_for returns the node's name as a str object
// cached per node, so a lookup allocates nothing: the cost is pybind11's call
// and the ring's few nanoseconds (docs/performance.md).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "items.hpp"
#include "lookup.hpp"
#include "module.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/merkle/merkle_ranges.hpp"
#include "ringbloom/placement/jump.hpp"
#include "ringbloom/placement/ring.hpp"
#include "ringbloom/placement/topology.hpp"

namespace ringbloom::python {

namespace {

class py_ring {
 public:
  explicit py_ring(hash_ring ring) { set(std::move(ring)); }

  [[nodiscard]] const std::shared_ptr<const hash_ring>& ring() const noexcept { return ring_; }

  // The cached name of node `index`.
  [[nodiscard]] py::object name(std::uint32_t index) const {
    return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(names_.ptr(), index));
  }
  [[nodiscard]] const py::tuple& names() const noexcept { return names_; }

  // Applies `change` to a copy of the ring and publishes the copy; on an
  // exception the ring is unchanged.
  template <class Change>
  void modify(Change&& change) {
    hash_ring next = *ring_;
    std::forward<Change>(change)(next);
    set(std::move(next));
  }

 private:
  void set(hash_ring ring) {
    auto next = std::make_shared<const hash_ring>(std::move(ring));
    py::tuple names(next->node_count());
    for (std::size_t i = 0; i < next->node_count(); ++i) names[i] = py::str(next->nodes()[i].name);
    ring_ = std::move(next);
    names_ = std::move(names);
  }

  std::shared_ptr<const hash_ring> ring_;
  py::tuple names_;
};

using ring_ptr = std::unique_ptr<py_ring>;

ring_options make_options(py::handle vnodes, py::handle hash, std::string_view scheme) {
  const ring_scheme s = parse_scheme(scheme);
  ring_options options = s == ring_scheme::ketama ? ring_options::ketama() : ring_options{};
  if (!vnodes.is_none()) options.vnodes = to_count32(vnodes, "vnodes");
  if (!hash.is_none()) options.hash = parse_hash(py::cast<std::string>(hash));
  return options;
}

// Nodes from an iterable of names or a mapping name -> weight.
std::vector<ring_node> make_nodes(py::handle nodes) {
  std::vector<ring_node> result;
  if (PyUnicode_Check(nodes.ptr())) {
    throw py::type_error(
        "nodes must be an iterable of names (or a dict name -> weight), not "
        "one str; write [\"" +
        py::cast<std::string>(nodes) + "\"]");
  }
  if (PyDict_Check(nodes.ptr())) {
    for (auto [name, weight] : py::reinterpret_borrow<py::dict>(nodes)) {
      result.push_back({checked_name(name), to_count32(weight, "weight"), {}, 0});
    }
    return result;
  }
  for (py::handle name : py::iter(nodes)) {
    if (!PyUnicode_Check(name.ptr())) {
      throw py::type_error("a node name must be a str, not " +
                           std::string(py::str(py::type::handle_of(name).attr("__name__"))));
    }
    result.push_back({checked_name(name), 1, {}, 0});
  }
  return result;
}

ring_ptr make_ring(py::handle nodes, py::handle vnodes, py::handle hash, std::string_view scheme) {
  hash_ring ring(make_options(vnodes, hash, scheme));
  const std::vector<ring_node> list = make_nodes(nodes);
  ring.add_nodes(list);
  return std::make_unique<py_ring>(std::move(ring));
}

[[noreturn]] void throw_empty() {
  throw py::value_error("the ring has no nodes; add one with add(name) before looking up keys");
}

py::object node_for(const py_ring& self, py::handle key) {
  std::string scratch;
  const std::string_view bytes = item_view(key, scratch);
  const hash_ring& ring = *self.ring();
  if (ring.empty()) throw_empty();
  return self.name(ring.node_index_for_hash(ring.key_hash(bytes)));
}

py::array_t<std::uint32_t> node_index_many(const py_ring& self, py::handle keys) {
  const item_batch batch(keys);
  const std::shared_ptr<const hash_ring> ring = self.ring();
  if (ring->empty() && batch.size() > 0) throw_empty();
  py::array_t<std::uint32_t> result(static_cast<py::ssize_t>(batch.size()));
  std::uint32_t* out = result.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    node_indexes(*ring, batch, out);
  }
  return result;
}

py::list node_for_many(const py_ring& self, py::handle keys) {
  const py::array_t<std::uint32_t> indexes = node_index_many(self, keys);
  return names_of(self.names(), indexes.data(), static_cast<std::size_t>(indexes.size()));
}

py::array_t<std::uint64_t> key_hash_many(const py_ring& self, py::handle keys) {
  const item_batch batch(keys);
  if (batch.kind() == batch_kind::integers) {
    throw py::type_error(
        "key_hash_many takes keys (str, bytes or an S<w> array), not uint64 "
        "values, which are already hashes");
  }
  const std::shared_ptr<const hash_ring> ring = self.ring();
  py::array_t<std::uint64_t> result(static_cast<py::ssize_t>(batch.size()));
  std::uint64_t* out = result.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> chunk) {
      for (std::size_t i = 0; i < chunk.size(); ++i) out[first + i] = ring->key_hash(chunk[i]);
    });
  }
  return result;
}

py::dict shares_dict(const std::vector<node_share>& shares) {
  py::dict result;
  for (const node_share& s : shares) result[py::str(s.node)] = s.share;
  return result;
}

std::string topology_json(const py_ring& self) { return to_json(describe(*self.ring())); }

ring_ptr ring_from_json(std::string_view json, std::string_view source) {
  return std::make_unique<py_ring>(build_ring(parse_topology(json, source)));
}

std::string repr(const py_ring& self) {
  const hash_ring& r = *self.ring();
  std::string text = "HashRing([";
  for (std::size_t i = 0; i < r.node_count(); ++i) {
    if (i > 0) text += ", ";
    if (i == 8 && r.node_count() > 9) {
      text += "... " + std::to_string(r.node_count() - 8) + " more";
      break;
    }
    text += "'" + r.nodes()[i].name + "'";
  }
  return text + "], vnodes=" + std::to_string(r.options().vnodes) + ", hash='" +
         std::string(hash_name(r.options().hash)) + "', scheme='" +
         std::string(scheme_name(r.options().scheme)) + "')";
}

void bind_results(py::module_& m) {
  py::class_<moved_range>(m, "MovedRange",
                          "Hash values [first, last] (inclusive) whose owner changes from "
                          "from_node to to_node.")
      .def_readonly("first", &moved_range::first)
      .def_readonly("last", &moved_range::last)
      .def_readonly("from_node", &moved_range::from)
      .def_readonly("to_node", &moved_range::to)
      .def("__repr__", [](const moved_range& r) {
        return "MovedRange(first=" + std::to_string(r.first) + ", last=" + std::to_string(r.last) +
               ", from_node='" + r.from + "', to_node='" + r.to + "')";
      });
  py::class_<movement_plan>(m, "MovementPlan",
                            "What changes between two rings over the same hash space "
                            "(HashRing.diff).")
      .def_readonly("ranges", &movement_plan::ranges)
      .def_readonly("moved_fraction", &movement_plan::moved_fraction,
                    "The fraction of the hash space that changes owner")
      .def("__repr__", [](const movement_plan& p) {
        return "MovementPlan(ranges=<" + std::to_string(p.ranges.size()) +
               ">, moved_fraction=" + std::string(py::repr(py::float_(p.moved_fraction))) + ")";
      });
  py::class_<load_report>(m, "LoadReport", "How a set of keys spreads over a ring's nodes.")
      .def_readonly("keys", &load_report::keys)
      .def_property_readonly("counts",
                             [](const load_report& r) {
                               py::dict counts;
                               for (std::size_t i = 0; i < r.counts.size(); ++i) {
                                 counts[py::str(r.shares[i].node)] = r.counts[i];
                               }
                               return counts;
                             })
      .def_property_readonly("shares", [](const load_report& r) { return shares_dict(r.shares); })
      .def_readonly("peak_to_average", &load_report::peak_to_average)
      .def_readonly("max_minus_min", &load_report::max_minus_min);
  py::class_<key_movement>(m, "KeyMovement", "How a set of keys moved between two rings.")
      .def_readonly("keys", &key_movement::keys)
      .def_readonly("moved", &key_movement::moved)
      .def_property_readonly("moved_fraction", &key_movement::moved_fraction)
      .def_readonly("moved_to", &key_movement::moved_to)
      .def_readonly("moved_from", &key_movement::moved_from);
}

}  // namespace

void bind_hash(py::module_& m) {
  m.def(
      "hash64",
      [](py::handle data, std::string_view hash, py::handle seed) {
        std::string scratch;
        return hash64(parse_hash(hash), item_view(data, scratch), to_count(seed, "seed"));
      },
      py::arg("data"), py::arg("hash") = "xxh3", py::arg("seed") = 0,
      "The library's named 64-bit hash of an item: xxh3 (default), sha256 (first 8 bytes, big "
      "endian), md5, poly31 (lab11's hash_str; seed is its salt).");
  m.def(
      "jump_hash",
      [](py::handle key, py::handle buckets) {
        return jump_hash(to_count(key, "key"), to_count32(buckets, "buckets"));
      },
      py::arg("key"), py::arg("buckets"),
      "Jump consistent hash (Lamping & Veach 2014): the bucket in [0, buckets) of a 64-bit "
      "key.");
  m.def(
      "jump_hash_many",
      [](py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast> keys,
         py::handle buckets) {
        const std::uint32_t n = to_count32(buckets, "buckets");
        if (n == 0) throw py::value_error("buckets must be at least 1; got 0");
        if (keys.ndim() != 1) throw py::type_error("keys must be a one-dimensional uint64 array");
        py::array_t<std::uint32_t> result(keys.shape(0));
        const std::uint64_t* in = keys.data();
        std::uint32_t* out = result.mutable_data();
        const auto count = static_cast<std::size_t>(keys.shape(0));
        {
          const py::gil_scoped_release no_gil;
          for (std::size_t i = 0; i < count; ++i) out[i] = jump_hash(in[i], n);
        }
        return result;
      },
      py::arg("keys"), py::arg("buckets"), "jump_hash over a uint64 array, GIL released.");
}

void bind_placement(py::module_& m) {
  bind_results(m);
  py::class_<py_ring>(m, "HashRing", R"doc(
A consistent hash ring with virtual nodes (the library's hash_ring).

scheme "ring": node "name" of weight w gets vnodes * w points at hash("name#i");
scheme "ketama": libmemcached's weighted ketama (MD5, 160 points per server).
A key belongs to the node of the first point at or after its hash. Keys are str
(UTF-8) or bytes; "a" and b"a" are the same key.

    ring = ringbloom.HashRing(["cache-a", "cache-b", "cache-c"])
    ring.node_for("user:42")          # 'cache-b'
    ring.nodes_for("user:42", 2)      # owner, then the next distinct node
    ring.add("cache-d")               # moves about 1/4 of the keys, all to cache-d
)doc")
      .def(py::init(&make_ring), py::arg("nodes") = py::tuple(), py::arg("vnodes") = py::none(),
           py::arg("hash") = py::none(), py::arg("scheme") = "ring",
           "nodes: names, or a dict name -> integer weight. vnodes and hash default to the "
           "scheme's (ring: 100 and 'xxh3'; ketama: 160 and 'md5', the only ones it accepts).")
      .def_static(
          "from_topology",
          [](const std::filesystem::path& path) {
            return std::make_unique<py_ring>(build_ring(load_topology(path)));
          },
          py::arg("path"),
          "The ring of a topology file (`ringbloom ring init`). OSError, ringbloom.DataError.")
      .def_static("from_topology_json", &ring_from_json, py::arg("json"),
                  py::arg("source") = "topology",
                  "The ring of topology JSON text. ringbloom.DataError.")
      .def(
          "save_topology",
          [](const py_ring& self, const std::filesystem::path& path) {
            save_topology(path, describe(*self.ring()));
          },
          py::arg("path"), "Writes the ring's topology file atomically.")
      .def("topology_json", &topology_json, "The ring's topology as JSON text (stable bytes).")
      .def("node_for", &node_for, py::arg("key"), "The node that owns `key`.")
      .def(
          "nodes_for",
          [](const py_ring& self, py::handle key, py::handle n) {
            std::string scratch;
            const std::string_view bytes = item_view(key, scratch);
            return self.ring()->nodes_for(bytes, to_count(n, "n"));
          },
          py::arg("key"), py::arg("n"),
          "The first n distinct nodes clockwise from the key: the owner, then its replicas.")
      .def(
          "node_for_hash",
          [](const py_ring& self, py::handle h) {
            const hash_ring& ring = *self.ring();
            if (ring.empty()) throw_empty();
            return self.name(ring.node_index_for_hash(to_count(h, "hash value")));
          },
          py::arg("h"), "The node that owns hash value h (a key_hash value).")
      .def(
          "key_hash",
          [](const py_ring& self, py::handle key) {
            std::string scratch;
            return self.ring()->key_hash(item_view(key, scratch));
          },
          py::arg("key"), "The key's position in the ring's hash space.")
      .def("node_for_many", &node_for_many, py::arg("keys"),
           "node_for of every key, as a list of names. keys: any iterable, a numpy S<w> array, "
           "or a numpy uint64 array of key_hash values.")
      .def("node_index_many", &node_index_many, py::arg("keys"),
           "The index in `nodes` of every key's owner, as a numpy uint32 array (the fastest "
           "batch form; GIL released).")
      .def("key_hash_many", &key_hash_many, py::arg("keys"),
           "key_hash of every key, as a numpy uint64 array.")
      .def(
          "add",
          [](py_ring& self, std::string_view name, py::handle weight) {
            check_node_name(name);
            const std::uint32_t w = to_count32(weight, "weight");
            self.modify([&](hash_ring& r) { r.add_node(name, w); });
          },
          py::arg("name"), py::arg("weight") = 1,
          "Adds a node with vnodes * weight points. ValueError for a duplicate name or weight 0.")
      .def(
          "add_at",
          [](py_ring& self, std::string_view name, const std::vector<std::uint64_t>& tokens) {
            check_node_name(name);
            self.modify([&](hash_ring& r) { r.add_node_at(name, tokens); });
          },
          py::arg("name"), py::arg("tokens"),
          "Adds a node at explicit positions (native scheme), as Cassandra's initial_token.")
      .def(
          "remove",
          [](py_ring& self, std::string_view name) {
            self.modify([&](hash_ring& r) { r.remove_node(name); });
          },
          py::arg("name"), "Removes a node and its points. ValueError if no node has that name.")
      .def(
          "__contains__",
          [](const py_ring& self, py::handle name) {
            return PyUnicode_Check(name.ptr()) &&
                   self.ring()->contains(py::cast<std::string_view>(name));
          },
          py::arg("name"), "Whether a node of that name is on the ring.")
      .def("__len__", [](const py_ring& self) { return self.ring()->node_count(); })
      .def_property_readonly(
          "nodes", [](const py_ring& self) { return py::list(self.names()); },
          "The node names, in the order they were added.")
      .def_property_readonly(
          "weights",
          [](const py_ring& self) {
            py::dict weights;
            for (const ring_node& n : self.ring()->nodes()) weights[py::str(n.name)] = n.weight;
            return weights;
          },
          "name -> weight (for a node placed by add_at, its number of tokens).")
      .def_property_readonly("vnodes",
                             [](const py_ring& self) { return self.ring()->options().vnodes; })
      .def_property_readonly(
          "hash",
          [](const py_ring& self) { return std::string(hash_name(self.ring()->options().hash)); })
      .def_property_readonly("scheme",
                             [](const py_ring& self) {
                               return std::string(scheme_name(self.ring()->options().scheme));
                             })
      .def_property_readonly("points",
                             [](const py_ring& self) { return self.ring()->point_count(); })
      .def_property_readonly("memory_bytes",
                             [](const py_ring& self) { return self.ring()->memory_bytes(); })
      .def_property_readonly("space_max",
                             [](const py_ring& self) { return self.ring()->space_max(); })
      .def(
          "ownership", [](const py_ring& self) { return shares_dict(ownership(*self.ring())); },
          "name -> the fraction of the hash space the node owns (sums to 1).")
      .def(
          "load",
          [](const py_ring& self, py::handle keys) {
            const std::shared_ptr<const hash_ring> ring = self.ring();
            if (ring->empty()) throw_empty();
            const item_batch batch(keys);
            const py::gil_scoped_release no_gil;
            load_tally tally(*ring);
            if (batch.kind() == batch_kind::integers) {
              for (const std::uint64_t h : batch.integers()) tally.add_hash(h);
            } else {
              for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
                for (const std::string_view key : chunk) tally.add(key);
              });
            }
            return tally.report();
          },
          py::arg("keys"), "LoadReport: keys per node and the balance.")
      .def(
          "diff",
          [](const py_ring& self, const py_ring& other) {
            return plan_movement(*self.ring(), *other.ring());
          },
          py::arg("other"),
          "MovementPlan: the hash ranges that change owner from this ring to `other`.")
      .def(
          "moved",
          [](const py_ring& self, const py_ring& other, py::handle keys) {
            const std::shared_ptr<const hash_ring> before = self.ring();
            const std::shared_ptr<const hash_ring> after = other.ring();
            if (before->empty() || after->empty()) throw_empty();
            const item_batch batch(keys);
            if (batch.kind() == batch_kind::integers) {
              throw py::type_error(
                  "moved takes keys (str, bytes or an S<w> array), not uint64 "
                  "hash values: two rings may hash keys differently");
            }
            const py::gil_scoped_release no_gil;
            movement_tally<hash_ring, hash_ring> tally(*before, *after);
            for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
              for (const std::string_view key : chunk) tally.add(key);
            });
            return tally.result();
          },
          py::arg("other"), py::arg("keys"),
          "KeyMovement: how many of `keys` change node from this ring to `other`, and where.")
      .def(
          "owned_ranges",
          [](const py_ring& self, std::string_view node, py::handle replicas) {
            py::list out;
            for (const hash_range& r :
                 owned_ranges(*self.ring(), node, to_count(replicas, "replicas"))) {
              out.append(py::make_tuple(r.first, r.last));
            }
            return out;
          },
          py::arg("node"), py::arg("replicas") = 1,
          "The key-hash ranges (inclusive (first, last) pairs) whose keys `node` stores with "
          "`replicas` copies per key: what its MerkleTree should cover.")
      .def("__repr__", &repr)
      .def(py::pickle([](const py_ring& self) { return topology_json(self); },
                      [](const std::string& json) { return ring_from_json(json, "pickle"); }));
}

}  // namespace ringbloom::python
