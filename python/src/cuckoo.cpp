// python/src/cuckoo.cpp: CuckooFilter (ringbloom::cuckoo_filter), a filter
// that removes items and grows, with RedisBloom's CF defaults; batches with
// the GIL released, files (the CLI's .rbc format) and pickling.
#include "ringbloom/filter/cuckoo.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "items.hpp"
#include "locked.hpp"
#include "module.hpp"

namespace ringbloom::python {

namespace {

using cuckoo = locked<cuckoo_filter>;

py::bytes to_bytes(const cuckoo& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    bytes = self.read([](const cuckoo_filter& f) { return serialize_cuckoo(f); });
  }
  return py::bytes(bytes);
}

std::unique_ptr<cuckoo> from_bytes(py::bytes data) {
  const std::string_view bytes = data;
  return make_locked(deserialize_cuckoo(bytes));
}

// fn(filter, item) for one item, under the exclusive lock.
template <class Fn>
auto write_one(cuckoo& self, py::handle item, Fn&& fn) {
  std::string scratch;
  const std::string_view bytes = item_view(item, scratch);
  return self.write([&](cuckoo_filter& f) { return fn(f, bytes); });
}

template <class Fn>
auto read_one(const cuckoo& self, py::handle item, Fn&& fn) {
  std::string scratch;
  const std::string_view bytes = item_view(item, scratch);
  return self.read([&](const cuckoo_filter& f) { return fn(f, bytes); });
}

// Adds every item; returns how many were stored (add returns false only
// when the filter is full and may not grow).
std::size_t add_all(cuckoo_filter& f, const item_batch& batch) {
  std::size_t stored = 0;
  for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
    for (const std::string_view item : chunk) stored += f.add(item) ? 1 : 0;
  });
  return stored;
}

}  // namespace

void bind_cuckoo(py::module_& m) {
  py::class_<cuckoo>(m, "CuckooFilter", R"doc(
Cuckoo filter: membership with removal, as RedisBloom's CF (bucket size 2,
8-bit fingerprints, 20 kicks, growth by sub-filters by default). Answers
"definitely not" or "probably"; removing an item never added may remove
another item's fingerprint, so remove only what was added.

    c = ringbloom.CuckooFilter(100_000)
    c.add("session:1")
    "session:1" in c      # True
    c.remove("session:1")
)doc")
      .def(py::init([](py::handle capacity, py::handle bucket_size, py::handle fingerprint_bits,
                       py::handle max_kicks, py::handle expansion, py::handle seed) {
             cuckoo_filter::options o;
             o.bucket_size = to_count32(bucket_size, "bucket_size");
             o.fingerprint_bits = to_count32(fingerprint_bits, "fingerprint_bits");
             o.max_kicks = to_count32(max_kicks, "max_kicks");
             o.expansion = to_count32(expansion, "expansion");
             o.seed = to_count(seed, "seed");
             return make_locked(cuckoo_filter(to_count(capacity, "capacity"), o));
           }),
           py::arg("capacity"), py::arg("bucket_size") = 2, py::arg("fingerprint_bits") = 8,
           py::arg("max_kicks") = 20, py::arg("expansion") = 1, py::arg("seed") = 0,
           "ValueError for an option out of range (bucket_size 1 to 255; fingerprint_bits 8, 12 "
           "or 16).")
      .def(
          "add",
          [](cuckoo& self, py::handle item) {
            return write_one(self, item,
                             [](cuckoo_filter& f, std::string_view i) { return f.add(i); });
          },
          py::arg("item"), "Stores the item; False only when full and not allowed to grow.")
      .def(
          "add_if_absent",
          [](cuckoo& self, py::handle item) {
            return write_one(self, item, [](cuckoo_filter& f, std::string_view i) {
              return f.add_if_absent(i);
            });
          },
          py::arg("item"), "Adds unless the item may already be present (CF.ADDNX).")
      .def(
          "remove",
          [](cuckoo& self, py::handle item) {
            return write_one(self, item,
                             [](cuckoo_filter& f, std::string_view i) { return f.remove(i); });
          },
          py::arg("item"), "Removes one copy; False when none was found.")
      .def(
          "may_contain",
          [](const cuckoo& self, py::handle item) {
            return read_one(self, item, [](const cuckoo_filter& f, std::string_view i) {
              return f.may_contain(i);
            });
          },
          py::arg("item"))
      .def("__contains__",
           [](const cuckoo& self, py::handle item) {
             return read_one(self, item, [](const cuckoo_filter& f, std::string_view i) {
               return f.may_contain(i);
             });
           })
      .def(
          "count",
          [](const cuckoo& self, py::handle item) {
            return read_one(self, item,
                            [](const cuckoo_filter& f, std::string_view i) { return f.count(i); });
          },
          py::arg("item"), "Copies of the item's fingerprint (CF.COUNT).")
      .def(
          "add_many",
          [](cuckoo& self, py::handle items) {
            const item_batch batch(items);
            const py::gil_scoped_release no_gil;
            return self.write([&](cuckoo_filter& f) { return add_all(f, batch); });
          },
          py::arg("items"), "add for every item, GIL released; returns how many were stored.")
      .def(
          "may_contain_many",
          [](const cuckoo& self, py::handle items) {
            const item_batch batch(items);
            py::array_t<bool> answers = new_bool_array(batch.size());
            bool* out = answers.mutable_data();
            {
              const py::gil_scoped_release no_gil;
              self.read([&](const cuckoo_filter& f) {
                for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> c) {
                  f.may_contain_many(c, std::span<bool>{out + first, c.size()});
                });
              });
            }
            return answers;
          },
          py::arg("items"), "may_contain for every item, as a numpy bool array, GIL released.")
      .def_property_readonly(
          "items",
          [](const cuckoo& s) { return s.read([](const cuckoo_filter& f) { return f.items(); }); })
      .def_property_readonly("deletes",
                             [](const cuckoo& s) {
                               return s.read([](const cuckoo_filter& f) { return f.deletes(); });
                             })
      .def_property_readonly("capacity", [](const cuckoo& s) { return s.value.capacity(); })
      .def_property_readonly("bucket_size",
                             [](const cuckoo& s) { return s.value.settings().bucket_size; })
      .def_property_readonly("fingerprint_bits",
                             [](const cuckoo& s) { return s.value.settings().fingerprint_bits; })
      .def_property_readonly(
          "sub_filters",
          [](const cuckoo& s) {
            return s.read([](const cuckoo_filter& f) { return f.sub_filters().size(); });
          })
      .def_property_readonly(
          "load_factor",
          [](const cuckoo& s) {
            return s.read([](const cuckoo_filter& f) { return f.load_factor(); });
          })
      .def_property_readonly(
          "memory_bytes",
          [](const cuckoo& s) {
            return s.read([](const cuckoo_filter& f) { return f.memory_bytes(); });
          })
      .def_static("expected_fpr", &cuckoo_filter::expected_fpr, py::arg("bucket_size"),
                  py::arg("fingerprint_bits"), py::arg("load_factor"),
                  "The false-positive rate the formula predicts at a load factor.")
      .def(
          "__eq__",
          [](const cuckoo& a, const cuckoo& b) {
            const cuckoo_filter copy = b.read([](const cuckoo_filter& f) { return f; });
            return a.read([&](const cuckoo_filter& f) { return f == copy; });
          },
          py::is_operator())
      .def(
          "save",
          [](const cuckoo& self, const std::filesystem::path& path) {
            const py::gil_scoped_release no_gil;
            self.read([&](const cuckoo_filter& f) { save_cuckoo(path, f); });
          },
          py::arg("path"), "Saves atomically. OSError.")
      .def_static(
          "load", [](const std::filesystem::path& path) { return make_locked(load_cuckoo(path)); },
          py::arg("path"), "Reads and verifies a cuckoo filter file. OSError, DataError.")
      .def_static(
          "add_to_file",
          [](const std::filesystem::path& path, py::handle items) {
            const item_batch batch(items);
            const py::gil_scoped_release no_gil;
            std::size_t stored = 0;
            update_cuckoo_file(path, [&](cuckoo_filter& f) { stored = add_all(f, batch); });
            return stored;
          },
          py::arg("path"), py::arg("items"),
          "Adds items to a file under its lock and saves it atomically; returns how many were "
          "stored.")
      .def("to_bytes", &to_bytes)
      .def_static("from_bytes", &from_bytes, py::arg("data"))
      .def("__repr__",
           [](const cuckoo& self) {
             return self.read([](const cuckoo_filter& f) {
               return "CuckooFilter(capacity=" + std::to_string(f.capacity()) +
                      ", bucket_size=" + std::to_string(f.settings().bucket_size) +
                      ", fingerprint_bits=" + std::to_string(f.settings().fingerprint_bits) +
                      ", items=" + std::to_string(f.items()) + ")";
             });
           })
      .def(py::pickle([](const cuckoo& self) { return to_bytes(self); },
                      [](const py::bytes& state) { return from_bytes(state); }));
}

}  // namespace ringbloom::python
