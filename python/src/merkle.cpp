// python/src/merkle.cpp: MerkleTree (ringbloom::merkle_tree) over hash
// ranges, its top-down diff, tree files and rows files, and the range helpers
// (intersect_ranges; HashRing.owned_ranges is in placement.cpp).
//
// Keys and values are str (UTF-8) or bytes, as items everywhere. Ranges are
// lists of (first, last) tuples, inclusive, in the 64-bit key-hash space.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "items.hpp"
#include "locked.hpp"
#include "module.hpp"
#include "ringbloom/merkle/merkle_file.hpp"
#include "ringbloom/merkle/merkle_ranges.hpp"
#include "ringbloom/merkle/merkle_rows.hpp"
#include "ringbloom/merkle/merkle_tree.hpp"

namespace ringbloom::python {

namespace {

using tree = locked<merkle_tree>;

std::vector<hash_range> to_ranges(py::handle ranges) {
  std::vector<hash_range> out;
  if (ranges.is_none()) return out;
  for (py::handle r : py::iter(ranges)) {
    const auto pair = r.cast<py::tuple>();
    if (pair.size() != 2) throw py::value_error("a range is a (first, last) pair");
    out.push_back({to_count(pair[0], "range first"), to_count(pair[1], "range last")});
  }
  return out;
}

py::list from_ranges(const std::vector<hash_range>& ranges) {
  py::list out;
  for (const hash_range& r : ranges) out.append(py::make_tuple(r.first, r.last));
  return out;
}

merkle_options make_options(py::handle depth, std::string_view key_hash, py::handle ranges) {
  merkle_options o;
  o.depth = to_count32(depth, "depth");
  o.key_hash = parse_hash(key_hash);
  o.ranges = normalize_ranges(to_ranges(ranges));
  return o;
}

py::bytes tree_bytes(const tree& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    bytes = self.read([](const merkle_tree& t) { return serialize_tree(t); });
  }
  return py::bytes(bytes);
}

std::unique_ptr<tree> tree_from_bytes(py::bytes data) {
  const std::string_view bytes = data;
  return make_locked(deserialize_tree(bytes));
}

// Rows from a dict {key: value} or an iterable of (key, value) pairs, added
// with the GIL released; returns how many fell inside the tree's ranges.
std::size_t add_rows(tree& self, py::handle rows) {
  py::list keys;
  py::list values;
  if (PyDict_Check(rows.ptr())) {
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(rows)) {
      keys.append(k);
      values.append(v);
    }
  } else {
    for (py::handle row : py::iter(rows)) {
      const auto pair = row.cast<py::tuple>();
      if (pair.size() != 2) throw py::value_error("a row is a (key, value) pair");
      keys.append(pair[0]);
      values.append(pair[1]);
    }
  }
  const item_batch key_batch(keys);
  const item_batch value_batch(values);
  const py::gil_scoped_release no_gil;
  std::vector<std::string_view> value_views(value_batch.size());
  std::vector<char> scratch;  // objects batches need none
  value_batch.views(0, value_views, scratch);
  std::size_t added = 0;
  self.write([&](merkle_tree& t) {
    for_each_chunk(key_batch, [&](std::size_t first, std::span<const std::string_view> chunk) {
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        added += t.add(chunk[i], value_views[first + i]) ? 1 : 0;
      }
    });
  });
  return added;
}

void bind_diff(py::module_& m) {
  py::class_<merkle_diff>(m, "MerkleDiff", "Where two trees differ (MerkleTree.diff).")
      .def_readonly("leaves", &merkle_diff::leaves, "The differing leaves, ascending")
      .def_property_readonly(
          "ranges", [](const merkle_diff& d) { return from_ranges(d.ranges); },
          "Their key-hash ranges: where rows must be compared")
      .def_readonly("digests_exchanged", &merkle_diff::digests_exchanged)
      .def_readonly("rows_a", &merkle_diff::rows_a)
      .def_readonly("rows_b", &merkle_diff::rows_b)
      .def("__bool__", [](const merkle_diff& d) { return !d.empty(); })
      .def("__repr__", [](const merkle_diff& d) {
        return "MerkleDiff(leaves=<" + std::to_string(d.leaves.size()) +
               ">, digests_exchanged=" + std::to_string(d.digests_exchanged) + ")";
      });
}

}  // namespace

void bind_merkle(py::module_& m) {
  bind_diff(m);
  m.def(
      "intersect_ranges",
      [](py::handle a, py::handle b) {
        return from_ranges(
            intersect_ranges(normalize_ranges(to_ranges(a)), normalize_ranges(to_ranges(b))));
      },
      py::arg("a"), py::arg("b"),
      "The key-hash ranges in both a and b (lists of inclusive (first, last) pairs).");

  py::class_<tree>(m, "MerkleTree", R"doc(
A Merkle tree over the 64-bit key-hash space: 2^depth leaves, each the sum of
its rows' digests, so rows can be added, removed and updated in O(depth) and
two replicas find their differing ranges by comparing a few digests.

    a = ringbloom.MerkleTree(depth=12)
    a.add_many({"k1": "v1", "k2": "v2"})
    b = ringbloom.MerkleTree(depth=12)
    b.add_many({"k1": "v1", "k2": "changed"})
    d = a.diff(b)          # d.ranges: where to compare rows
)doc")
      .def(py::init([](py::handle depth, std::string_view key_hash, py::handle ranges) {
             return make_locked(merkle_tree(make_options(depth, key_hash, ranges)));
           }),
           py::arg("depth") = 16, py::arg("key_hash") = "xxh3", py::arg("ranges") = py::none(),
           "ranges: the key-hash ranges the tree covers (e.g. HashRing.owned_ranges), None for "
           "the whole space; key_hash: for a ring's ranges, the ring's hash.")
      .def_static(
          "from_rows_file",
          [](const std::filesystem::path& path, py::handle depth, std::string_view key_hash,
             py::handle ranges) {
            const merkle_options o = make_options(depth, key_hash, ranges);
            const py::gil_scoped_release no_gil;
            return make_locked(build_tree_from_rows(path, o));
          },
          py::arg("path"), py::arg("depth") = 16, py::arg("key_hash") = "xxh3",
          py::arg("ranges") = py::none(),
          "The tree of a rows file (key<TAB>value per line, as `ringbloom merkle build`).")
      .def(
          "add",
          [](tree& self, py::handle key, py::handle value) {
            std::string ks, vs;
            const std::string_view k = item_view(key, ks);
            const std::string_view v = item_view(value, vs);
            return self.write([&](merkle_tree& t) { return t.add(k, v); });
          },
          py::arg("key"), py::arg("value"),
          "Adds a row; False when its key lies outside the tree's ranges.")
      .def("add_many", &add_rows, py::arg("rows"),
           "Adds rows from a dict or (key, value) pairs, GIL released; returns how many fell in "
           "the ranges.")
      .def(
          "remove",
          [](tree& self, py::handle key, py::handle value) {
            std::string ks, vs;
            const std::string_view k = item_view(key, ks);
            const std::string_view v = item_view(value, vs);
            return self.write([&](merkle_tree& t) { return t.remove(k, v); });
          },
          py::arg("key"), py::arg("value"), "Removes a row given with the value it had.")
      .def(
          "update",
          [](tree& self, py::handle key, py::handle old_value, py::handle new_value) {
            std::string ks, os, ns;
            const std::string_view k = item_view(key, ks);
            const std::string_view o = item_view(old_value, os);
            const std::string_view n = item_view(new_value, ns);
            return self.write([&](merkle_tree& t) { return t.update(k, o, n); });
          },
          py::arg("key"), py::arg("old_value"), py::arg("new_value"))
      .def(
          "diff",
          [](const tree& self, const tree& other) {
            const merkle_tree copy = other.read([](const merkle_tree& t) { return t; });
            return self.read([&](const merkle_tree& t) { return diff(t, copy); });
          },
          py::arg("other"),
          "MerkleDiff: the differing leaves and ranges, top-down. ValueError unless both trees "
          "have the same depth, key hash and ranges.")
      .def_property_readonly(
          "root",
          [](const tree& self) {
            return self.read([](const merkle_tree& t) { return digest_hex(t.root()); });
          },
          "The root digest as 32 hex digits (as `merkle info`).")
      .def_property_readonly(
          "rows",
          [](const tree& self) { return self.read([](const merkle_tree& t) { return t.rows(); }); })
      .def_property_readonly("depth", [](const tree& self) { return self.value.depth(); })
      .def_property_readonly("leaf_count", [](const tree& self) { return self.value.leaf_count(); })
      .def_property_readonly(
          "key_hash",
          [](const tree& self) { return std::string(hash_name(self.value.options().key_hash)); })
      .def_property_readonly(
          "ranges", [](const tree& self) { return from_ranges(self.value.options().ranges); })
      .def_property_readonly("memory_bytes",
                             [](const tree& self) { return self.value.memory_bytes(); })
      .def(
          "key_position",
          [](const tree& self, py::handle key) {
            std::string scratch;
            return self.value.key_position(item_view(key, scratch));
          },
          py::arg("key"))
      .def(
          "leaf_of",
          [](const tree& self, py::handle position) {
            return self.value.leaf_of(to_count(position, "position"));
          },
          py::arg("position"))
      .def(
          "leaf_range",
          [](const tree& self, py::handle leaf) {
            const std::uint64_t i = to_count(leaf, "leaf");
            if (i >= self.value.leaf_count()) {
              throw py::value_error("leaf must be below leaf_count (" +
                                    std::to_string(self.value.leaf_count()) + "); got " +
                                    std::to_string(i));
            }
            const hash_range r = self.value.leaf_range(i);
            return py::make_tuple(r.first, r.last);
          },
          py::arg("leaf"))
      .def(
          "coarsened",
          [](const tree& self, py::handle depth) {
            const unsigned d = to_count32(depth, "depth");
            return make_locked(self.read([&](const merkle_tree& t) { return t.coarsened(d); }));
          },
          py::arg("depth"), "The same rows in a tree of smaller depth.")
      .def(
          "__eq__",
          [](const tree& a, const tree& b) {
            const merkle_tree copy = b.read([](const merkle_tree& t) { return t; });
            return a.read([&](const merkle_tree& t) { return t == copy; });
          },
          py::is_operator())
      .def(
          "save",
          [](const tree& self, const std::filesystem::path& path) {
            const py::gil_scoped_release no_gil;
            self.read([&](const merkle_tree& t) { save_tree(path, t); });
          },
          py::arg("path"))
      .def_static(
          "load", [](const std::filesystem::path& path) { return make_locked(load_tree(path)); },
          py::arg("path"))
      .def("to_bytes", &tree_bytes)
      .def_static("from_bytes", &tree_from_bytes, py::arg("data"))
      .def("__repr__",
           [](const tree& self) {
             return self.read([](const merkle_tree& t) {
               return "MerkleTree(depth=" + std::to_string(t.depth()) +
                      ", rows=" + std::to_string(t.rows()) + ", root='" + digest_hex(t.root()) +
                      "')";
             });
           })
      .def(py::pickle([](const tree& self) { return tree_bytes(self); },
                      [](const py::bytes& state) { return tree_from_bytes(state); }));
}

}  // namespace ringbloom::python
