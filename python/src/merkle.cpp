// python/src/merkle.cpp: MerkleTree (ringbloom::merkle_tree) over hash
// ranges, its top-down diff, tree files and rows files, and the range helpers
// (intersect_ranges; HashRing.owned_ranges is in placement.cpp), and the row
// comparison that turns a diff into differing keys (MerkleTree.differing_keys,
// KeyDifference), as `ringbloom merkle diff --rows-a --rows-b`.
//
// Keys and values are str (UTF-8) or bytes, as items everywhere. Ranges are
// lists of (first, last) tuples, inclusive, in the 64-bit key-hash space.
#include <pybind11/operators.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "items.hpp"
#include "locked.hpp"
#include "module.hpp"
#include "ringbloom/error.hpp"
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

// Rows from a dict {key: value} or an iterable of (key, value) pairs (read
// once: a generator works), as a list of keys and a list of values.
struct row_lists {
  py::list keys;
  py::list values;
};

row_lists gather_rows(py::handle rows) {
  row_lists out;
  if (PyDict_Check(rows.ptr())) {
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(rows)) {
      out.keys.append(k);
      out.values.append(v);
    }
    return out;
  }
  for (py::handle row : py::iter(rows)) {
    const auto pair = row.cast<py::tuple>();
    if (pair.size() != 2) throw py::value_error("a row is a (key, value) pair");
    out.keys.append(pair[0]);
    out.values.append(pair[1]);
  }
  return out;
}

// The rows as two batches, gathered with the GIL, readable without it.
struct row_batch {
  explicit row_batch(const row_lists& lists) : keys(lists.keys), values(lists.values) {}
  explicit row_batch(py::handle rows) : row_batch(gather_rows(rows)) {}

  // The values' views, all at once (objects batches need no scratch).
  [[nodiscard]] std::vector<std::string_view> value_views() const {
    std::vector<std::string_view> views(values.size());
    std::vector<char> scratch;
    values.views(0, views, scratch);
    return views;
  }

  item_batch keys;
  item_batch values;
};

// Calls fn(key, value, row number from 1) for every row of the batch. Needs
// no GIL.
template <class Fn>
void for_each_row(const row_batch& rows, Fn&& fn) {
  const std::vector<std::string_view> values = rows.value_views();
  for_each_chunk(rows.keys, [&](std::size_t first, std::span<const std::string_view> chunk) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      fn(chunk[i], values[first + i], static_cast<std::uint64_t>(first + i + 1));
    }
  });
}

// Adds rows with the GIL released; returns how many fell inside the tree's
// ranges.
std::size_t add_rows(tree& self, py::handle rows) {
  const row_batch batch(rows);
  const py::gil_scoped_release no_gil;
  std::size_t added = 0;
  self.write([&](merkle_tree& t) {
    for_each_row(batch, [&](std::string_view k, std::string_view v, std::uint64_t) {
      added += t.add(k, v) ? 1 : 0;
    });
  });
  return added;
}

// --- the row comparison (`ringbloom merkle diff --rows-a --rows-b`) -------------

// One replica's rows: a rows file (str or os.PathLike: key<TAB>value lines),
// or rows in memory (a dict or (key, value) pairs), gathered with the GIL.
class row_source {
 public:
  explicit row_source(py::handle rows) {
    if (PyUnicode_Check(rows.ptr()) ||
        py::isinstance(rows, py::module_::import("os").attr("PathLike"))) {
      path_ = rows.cast<std::filesystem::path>();
    } else {
      rows_.emplace(rows);
    }
  }

  // Offers every row to `c`, then checks them against its tree; errors from
  // a file name it, as the CLI's do. Needs no GIL.
  void fill(row_collector& c) const {
    if (rows_) {
      for_each_row(*rows_, [&](std::string_view k, std::string_view v, std::uint64_t row) {
        c.offer(k, v, row);
      });
      c.check_against_tree();
      return;
    }
    const std::string name = path_.string();
    try {
      scan_rows_file(path_, [&](std::string_view k, std::string_view v, std::uint64_t line) {
        c.offer(k, v, line);
      });
      c.check_against_tree();
    } catch (const data_error& e) {
      const std::string_view what = e.what();
      if (what.starts_with(name)) throw;
      throw data_error(name + ": " + std::string(what));
    }
  }

 private:
  std::filesystem::path path_;
  std::optional<row_batch> rows_;
};

// The keys whose rows differ between replica a (tree `self`, rows `rows_a`)
// and replica b: the trees' diff, then the rows of the differing leaves
// only, each side checked against its tree, compared by key.
std::vector<key_difference> differing_keys(const tree& self, const tree& other, py::handle rows_a,
                                           py::handle rows_b) {
  const merkle_tree a = self.read([](const merkle_tree& t) { return t; });
  const merkle_tree b = other.read([](const merkle_tree& t) { return t; });
  const row_source source_a(rows_a);
  const row_source source_b(rows_b);
  const py::gil_scoped_release no_gil;
  const merkle_diff d = diff(a, b);
  if (d.empty()) return {};
  row_collector collected_a(a, d.leaves);
  row_collector collected_b(b, d.leaves);
  source_a.fill(collected_a);
  source_b.fill(collected_b);
  return compare_rows(collected_a, collected_b);
}

py::object optional_item(const std::optional<std::string>& value) {
  return value ? item_object(*value) : py::none();
}

void bind_key_difference(py::module_& m) {
  py::class_<key_difference>(m, "KeyDifference",
                             "One key whose rows differ between replicas a and b "
                             "(MerkleTree.differing_keys).")
      .def_property_readonly(
          "key", [](const key_difference& k) { return item_object(k.key); },
          "str when its bytes are UTF-8, else bytes")
      .def_property_readonly(
          "change", [](const key_difference& k) { return std::string(key_change_name(k.change)); },
          "'only-in-a', 'only-in-b' or 'changed'")
      .def_property_readonly(
          "value_a", [](const key_difference& k) { return optional_item(k.value_a); },
          "a's value, None when a lacks the key")
      .def_property_readonly(
          "value_b", [](const key_difference& k) { return optional_item(k.value_b); },
          "b's value, None when b lacks the key")
      .def(py::self == py::self)
      .def("__repr__", [](const key_difference& k) {
        return "KeyDifference(key=" + std::string(py::repr(item_object(k.key))) + ", change='" +
               std::string(key_change_name(k.change)) + "')";
      });
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
  bind_key_difference(m);
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
      .def("differing_keys", &differing_keys, py::arg("other"), py::arg("rows_a"),
           py::arg("rows_b"),
           "The keys whose rows differ, sorted by key, as `ringbloom merkle diff A B --rows-a "
           "--rows-b` lists them: this tree is replica a, `other` replica b; rows_a and rows_b "
           "are the rows each was built from, as a rows file path or a dict / (key, value) "
           "pairs. Only the rows in the differing leaves are kept. ringbloom.DataError if a "
           "side's rows do not add up to its tree or repeat a key there; ValueError if the "
           "trees differ in depth, key hash or ranges; GIL released.")
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
