// python/src/sketch.cpp: the sketches (HyperLogLog, CountMinSketch, TopK):
// items as str or bytes, batches over iterables and numpy arrays with the GIL
// released, sketch files (the CLI's format) and pickling through them.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "items.hpp"
#include "locked.hpp"
#include "module.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/sketch/count_min.hpp"
#include "ringbloom/sketch/hyperloglog.hpp"
#include "ringbloom/sketch/sketch_file.hpp"
#include "ringbloom/sketch/top_k.hpp"

namespace ringbloom::python {

namespace {

using hll_ptr = std::unique_ptr<locked<hyperloglog>>;
using cms_ptr = std::unique_ptr<locked<count_min_sketch>>;
using topk_ptr = std::unique_ptr<locked<top_k>>;

// The file-format bytes of a sketch (a copy goes into the variant).
template <class Sketch>
py::bytes sketch_bytes(const locked<Sketch>& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    bytes = self.read([](const Sketch& s) { return serialize_sketch(any_sketch{s}); });
  }
  return py::bytes(bytes);
}

// A sketch of type Sketch from file bytes; DataError naming the kind found
// when the bytes hold another sketch.
template <class Sketch>
std::unique_ptr<locked<Sketch>> sketch_from_bytes(std::string_view bytes, const char* expected) {
  any_sketch any = deserialize_sketch(bytes);
  if (Sketch* s = std::get_if<Sketch>(&any)) return make_locked(std::move(*s));
  throw data_error("these bytes hold a " + std::string(sketch_kind_name(kind_of(any))) +
                   " sketch, not a " + expected + "; load them with the matching class");
}

template <class Sketch>
void save(const locked<Sketch>& self, const std::filesystem::path& path) {
  const py::gil_scoped_release no_gil;
  self.read([&](const Sketch& s) { save_sketch(path, any_sketch{s}); });
}

template <class Sketch>
std::unique_ptr<locked<Sketch>> load(const std::filesystem::path& path) {
  return make_locked(load_sketch_as<Sketch>(path));
}

// Calls fn(views) for consecutive chunks of items, without the GIL, under the
// exclusive lock.
template <class Sketch, class Fn>
void write_batch(locked<Sketch>& self, py::handle items, Fn&& fn) {
  const item_batch batch(items);
  const py::gil_scoped_release no_gil;
  self.write([&](Sketch& s) {
    for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> chunk) {
      fn(s, first, chunk);
    });
  });
}

std::string hll_mode_name(hll_mode mode) { return mode == hll_mode::redis ? "redis" : "native"; }

void bind_hyperloglog(py::module_& m) {
  py::class_<locked<hyperloglog>>(m, "HyperLogLog", R"doc(
HyperLogLog: the number of distinct items in a few kilobytes, with a relative
standard error of about 1.04 / sqrt(2^precision) (0.81% at precision 14).
HyperLogLog.redis() follows Redis 7.0's PFADD register by register, and
to_redis_string() / from_redis_string() read and write Redis's HLL strings.

    h = ringbloom.HyperLogLog()
    h.add_many(f"user{i}" for i in range(100_000))
    h.count()          # about 100000
)doc")
      .def(py::init([](py::handle precision, py::handle seed) {
             return make_locked(
                 hyperloglog(to_count32(precision, "precision"), to_count(seed, "seed")));
           }),
           py::arg("precision") = hyperloglog::default_precision, py::arg("seed") = 0,
           "2^precision registers (4..18). ValueError outside.")
      .def_static(
          "redis", [] { return make_locked(hyperloglog::redis()); },
          "An empty sketch in Redis 7.0 mode (MurmurHash64A, precision 14).")
      .def(
          "add",
          [](locked<hyperloglog>& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            return self.write([&](hyperloglog& h) { return h.add(bytes); });
          },
          py::arg("item"), "Adds one item; True when a register grew (PFADD's reply).")
      .def(
          "add_many",
          [](locked<hyperloglog>& self, py::handle items) {
            std::size_t grown = 0;
            write_batch(self, items,
                        [&](hyperloglog& h, std::size_t, std::span<const std::string_view> c) {
                          grown += h.add_many(c);
                        });
            return grown;
          },
          py::arg("items"),
          "Adds every item (iterable, numpy S<w> or uint64 as 8 little-endian bytes) with the "
          "GIL released; returns how many grew a register.")
      .def(
          "add_hashes",
          [](locked<hyperloglog>& self,
             py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast> hashes) {
            const std::span<const std::uint64_t> values{hashes.data(),
                                                        static_cast<std::size_t>(hashes.size())};
            const py::gil_scoped_release no_gil;
            return self.write([&](hyperloglog& h) { return h.add_hashes(values); });
          },
          py::arg("hashes"), "Adds pre-hashed items: any well-mixed 64-bit hashes (uint64 array).")
      .def(
          "hash_of",
          [](const locked<hyperloglog>& self, py::handle item) {
            std::string scratch;
            return self.value.hash_of(item_view(item, scratch));
          },
          py::arg("item"), "The 64-bit hash this sketch uses for the item.")
      .def(
          "estimate",
          [](const locked<hyperloglog>& self) {
            return self.read([](const hyperloglog& h) { return h.estimate(); });
          },
          "The estimated number of distinct items (Ertl's improved estimator).")
      .def(
          "count",
          [](const locked<hyperloglog>& self) {
            return self.read([](const hyperloglog& h) { return h.count(); });
          },
          "estimate() rounded, as PFCOUNT.")
      .def("clear",
           [](locked<hyperloglog>& self) { self.write([](hyperloglog& h) { h.clear(); }); })
      .def(
          "registers",
          [](const locked<hyperloglog>& self) {
            return self.read([](const hyperloglog& h) {
              const std::span<const std::uint8_t> r = h.registers();
              py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(r.size()));
              std::copy(r.begin(), r.end(), out.mutable_data());
              return out;
            });
          },
          "A copy of the registers (numpy uint8).")
      .def_property_readonly("precision",
                             [](const locked<hyperloglog>& self) { return self.value.precision(); })
      .def_property_readonly("seed",
                             [](const locked<hyperloglog>& self) { return self.value.seed(); })
      .def_property_readonly(
          "mode", [](const locked<hyperloglog>& self) { return hll_mode_name(self.value.mode()); })
      .def_property_readonly(
          "memory_bytes", [](const locked<hyperloglog>& self) { return self.value.memory_bytes(); })
      .def_property_readonly(
          "standard_error",
          [](const locked<hyperloglog>& self) { return self.value.standard_error(); })
      .def(
          "__ior__",
          [](locked<hyperloglog>& self, const locked<hyperloglog>& other) -> locked<hyperloglog>& {
            if (&self == &other) return self;
            const hyperloglog copy = other.read([](const hyperloglog& h) { return h; });
            self.write([&](hyperloglog& h) { h.merge(copy); });
            return self;
          },
          py::is_operator(), py::return_value_policy::reference)
      .def(
          "__or__",
          [](const locked<hyperloglog>& a, const locked<hyperloglog>& b) {
            hyperloglog result = a.read([](const hyperloglog& h) { return h; });
            const hyperloglog other = b.read([](const hyperloglog& h) { return h; });
            result.merge(other);
            return make_locked(std::move(result));
          },
          py::is_operator(), "Union: each register the larger of the two.")
      .def(
          "__eq__",
          [](const locked<hyperloglog>& a, const locked<hyperloglog>& b) {
            const hyperloglog copy = b.read([](const hyperloglog& h) { return h; });
            return a.read([&](const hyperloglog& h) { return h == copy; });
          },
          py::is_operator())
      .def(
          "to_redis_string",
          [](const locked<hyperloglog>& self, std::optional<std::string> encoding) {
            const std::string bytes = self.read([&](const hyperloglog& h) {
              if (!encoding) return to_redis_string(h);
              if (*encoding == "dense") return to_redis_string(h, redis_hll_encoding::dense);
              if (*encoding == "sparse") return to_redis_string(h, redis_hll_encoding::sparse);
              throw std::invalid_argument(
                  "encoding must be \"dense\" or \"sparse\" (or None for "
                  "Redis's own choice); got \"" +
                  *encoding + "\"");
            });
            return py::bytes(bytes);
          },
          py::arg("encoding") = py::none(),
          "The sketch as a Redis HLL string (SET key <bytes> makes it a Redis HyperLogLog). "
          "Redis mode only.")
      .def_static(
          "from_redis_string",
          [](py::bytes data) {
            const std::string_view bytes = data;
            return make_locked(from_redis_string(bytes));
          },
          py::arg("data"), "A sketch from a Redis HLL string (GET of a PFADD key). DataError.")
      .def("save", &save<hyperloglog>, py::arg("path"), "Saves a sketch file atomically.")
      .def_static("load", &load<hyperloglog>, py::arg("path"), "Reads a sketch file.")
      .def("to_bytes", &sketch_bytes<hyperloglog>, "The sketch file's bytes.")
      .def_static(
          "from_bytes",
          [](py::bytes data) { return sketch_from_bytes<hyperloglog>(data, "HyperLogLog"); },
          py::arg("data"))
      .def("__repr__",
           [](const locked<hyperloglog>& self) {
             return self.read([](const hyperloglog& h) {
               return "HyperLogLog(precision=" + std::to_string(h.precision()) + ", mode='" +
                      hll_mode_name(h.mode()) + "', count=" + std::to_string(h.count()) + ")";
             });
           })
      .def(py::pickle([](const locked<hyperloglog>& self) { return sketch_bytes(self); },
                      [](const py::bytes& state) {
                        return sketch_from_bytes<hyperloglog>(state, "HyperLogLog");
                      }));
}

void bind_count_min(py::module_& m) {
  py::class_<locked<count_min_sketch>>(m, "CountMinSketch", R"doc(
Count-Min sketch: per-item counts that are never too low, and too high by at
most epsilon x total with probability 1 - delta. conservative=True
increments only the smallest counters (tighter estimates, no merge of
weights below zero).

    c = ringbloom.CountMinSketch.for_error(0.001, 0.01)
    c.increment("page:/home", 3)
    c.estimate("page:/home")    # >= 3
)doc")
      .def(py::init([](py::handle width, py::handle depth, bool conservative, py::handle seed) {
             return make_locked(count_min_sketch(to_count32(width, "width"),
                                                 to_count32(depth, "depth"), conservative,
                                                 to_count(seed, "seed")));
           }),
           py::arg("width"), py::arg("depth"), py::arg("conservative") = false, py::arg("seed") = 0)
      .def_static(
          "for_error",
          [](double eps, double delta, bool conservative, py::handle seed) {
            return make_locked(
                count_min_sketch::for_error(eps, delta, conservative, to_count(seed, "seed")));
          },
          py::arg("epsilon"), py::arg("delta"), py::arg("conservative") = false,
          py::arg("seed") = 0, "width = ceil(e / epsilon), depth = ceil(ln(1 / delta)).")
      .def(
          "increment",
          [](locked<count_min_sketch>& self, py::handle item, py::handle n) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            const std::uint32_t by = to_count32(n, "n");
            return self.write([&](count_min_sketch& c) { return c.increment(bytes, by); });
          },
          py::arg("item"), py::arg("n") = 1, "Adds n to the item's count; returns its estimate.")
      .def(
          "increment_many",
          [](locked<count_min_sketch>& self, py::handle items) {
            write_batch(self, items,
                        [](count_min_sketch& c, std::size_t, std::span<const std::string_view> v) {
                          for (const std::string_view item : v) c.increment(item);
                        });
          },
          py::arg("items"), "Adds 1 for every occurrence of an item, GIL released.")
      .def(
          "estimate",
          [](const locked<count_min_sketch>& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            return self.read([&](const count_min_sketch& c) { return c.estimate(bytes); });
          },
          py::arg("item"), "The estimated count: never below the true count.")
      .def(
          "estimate_many",
          [](const locked<count_min_sketch>& self, py::handle items) {
            const item_batch batch(items);
            py::array_t<std::uint32_t> out(static_cast<py::ssize_t>(batch.size()));
            std::uint32_t* answers = out.mutable_data();
            {
              const py::gil_scoped_release no_gil;
              self.read([&](const count_min_sketch& c) {
                for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> v) {
                  for (std::size_t i = 0; i < v.size(); ++i) answers[first + i] = c.estimate(v[i]);
                });
              });
            }
            return out;
          },
          py::arg("items"), "estimate for every item, as a numpy uint32 array.")
      .def(
          "merge",
          [](locked<count_min_sketch>& self, const locked<count_min_sketch>& other) {
            const count_min_sketch copy = other.read([](const count_min_sketch& c) { return c; });
            self.write([&](count_min_sketch& c) { c.merge(copy); });
          },
          py::arg("other"), "Adds the other sketch's counts (same width, depth and seed).")
      .def(
          "counters",
          [](const locked<count_min_sketch>& self) {
            return self.read([](const count_min_sketch& c) {
              const std::span<const std::uint32_t> v = c.counters();
              py::array_t<std::uint32_t> out(
                  {static_cast<py::ssize_t>(c.depth()), static_cast<py::ssize_t>(c.width())});
              std::copy(v.begin(), v.end(), out.mutable_data());
              return out;
            });
          },
          "A copy of the counters, shape (depth, width).")
      .def_property_readonly("width",
                             [](const locked<count_min_sketch>& s) { return s.value.width(); })
      .def_property_readonly("depth",
                             [](const locked<count_min_sketch>& s) { return s.value.depth(); })
      .def_property_readonly(
          "conservative", [](const locked<count_min_sketch>& s) { return s.value.conservative(); })
      .def_property_readonly("seed",
                             [](const locked<count_min_sketch>& s) { return s.value.seed(); })
      .def_property_readonly("total",
                             [](const locked<count_min_sketch>& s) {
                               return s.read([](const count_min_sketch& c) { return c.total(); });
                             })
      .def_property_readonly("epsilon",
                             [](const locked<count_min_sketch>& s) { return s.value.epsilon(); })
      .def_property_readonly("delta",
                             [](const locked<count_min_sketch>& s) { return s.value.delta(); })
      .def_property_readonly(
          "error_bound",
          [](const locked<count_min_sketch>& s) {
            return s.read([](const count_min_sketch& c) { return c.error_bound(); });
          })
      .def_property_readonly(
          "memory_bytes", [](const locked<count_min_sketch>& s) { return s.value.memory_bytes(); })
      .def(
          "__eq__",
          [](const locked<count_min_sketch>& a, const locked<count_min_sketch>& b) {
            const count_min_sketch copy = b.read([](const count_min_sketch& c) { return c; });
            return a.read([&](const count_min_sketch& c) { return c == copy; });
          },
          py::is_operator())
      .def("save", &save<count_min_sketch>, py::arg("path"))
      .def_static("load", &load<count_min_sketch>, py::arg("path"))
      .def("to_bytes", &sketch_bytes<count_min_sketch>)
      .def_static(
          "from_bytes",
          [](py::bytes data) {
            return sketch_from_bytes<count_min_sketch>(data, "CountMinSketch");
          },
          py::arg("data"))
      .def("__repr__",
           [](const locked<count_min_sketch>& self) {
             return self.read([](const count_min_sketch& c) {
               return "CountMinSketch(width=" + std::to_string(c.width()) +
                      ", depth=" + std::to_string(c.depth()) +
                      ", conservative=" + (c.conservative() ? "True" : "False") +
                      ", total=" + std::to_string(c.total()) + ")";
             });
           })
      .def(py::pickle([](const locked<count_min_sketch>& self) { return sketch_bytes(self); },
                      [](const py::bytes& state) {
                        return sketch_from_bytes<count_min_sketch>(state, "CountMinSketch");
                      }));
}

py::list leaders(const top_k& t) {
  py::list out;
  for (const top_k::entry& e : t.list()) out.append(py::make_tuple(item_object(e.item), e.count));
  return out;
}

void bind_top_k(py::module_& m) {
  py::class_<locked<top_k>>(m, "TopK", R"doc(
Top-K heavy hitters (HeavyKeeper, as RedisBloom's TOPK): the k most frequent
items of a stream in fixed memory. Items come back as str when their bytes
are UTF-8 (every item given as str is), else as bytes.

    t = ringbloom.TopK(3)
    t.add_many(["a", "b", "a", "c", "a", "b"])
    t.list()            # [('a', 3), ('b', 2), ('c', 1)]
)doc")
      .def(py::init([](py::handle k, py::handle width, py::handle depth, double decay,
                       py::handle seed) {
             return make_locked(top_k(to_count32(k, "k"), to_count32(width, "width"),
                                      to_count32(depth, "depth"), decay, to_count(seed, "seed")));
           }),
           py::arg("k"), py::arg("width") = top_k::default_width,
           py::arg("depth") = top_k::default_depth, py::arg("decay") = top_k::default_decay,
           py::arg("seed") = 0)
      .def(
          "add",
          [](locked<top_k>& self, py::handle item, py::handle increment) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            const std::uint32_t by = to_count32(increment, "increment");
            const std::optional<std::string> expelled =
                self.write([&](top_k& t) { return t.add(bytes, by); });
            return expelled ? item_object(*expelled) : py::object(py::none());
          },
          py::arg("item"), py::arg("increment") = 1,
          "Adds occurrences of the item; returns the item it pushed out of the top k, or None.")
      .def(
          "add_many",
          [](locked<top_k>& self, py::handle items) {
            std::vector<std::string> expelled;
            write_batch(self, items,
                        [&](top_k& t, std::size_t, std::span<const std::string_view> chunk) {
                          for (const std::string_view item : chunk) {
                            if (auto out = t.add(item)) expelled.push_back(std::move(*out));
                          }
                        });
            py::list result;
            for (const std::string& item : expelled) result.append(item_object(item));
            return result;
          },
          py::arg("items"), "add for every item, GIL released; returns the items pushed out.")
      .def(
          "query",
          [](const locked<top_k>& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            return self.read([&](const top_k& t) { return t.query(bytes); });
          },
          py::arg("item"), "Whether the item is among the k leaders.")
      .def("__contains__",
           [](const locked<top_k>& self, py::handle item) {
             std::string scratch;
             const std::string_view bytes = item_view(item, scratch);
             return self.read([&](const top_k& t) { return t.query(bytes); });
           })
      .def(
          "count",
          [](const locked<top_k>& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            return self.read([&](const top_k& t) { return t.count(bytes); });
          },
          py::arg("item"), "The item's estimated count.")
      .def(
          "list",
          [](const locked<top_k>& self) {
            return self.read([](const top_k& t) { return leaders(t); });
          },
          "The leaders as (item, count), largest first (ties by item).")
      .def_property_readonly("k", [](const locked<top_k>& s) { return s.value.k(); })
      .def_property_readonly("width", [](const locked<top_k>& s) { return s.value.width(); })
      .def_property_readonly("depth", [](const locked<top_k>& s) { return s.value.depth(); })
      .def_property_readonly("decay", [](const locked<top_k>& s) { return s.value.decay(); })
      .def_property_readonly("seed", [](const locked<top_k>& s) { return s.value.seed(); })
      .def_property_readonly("memory_bytes",
                             [](const locked<top_k>& s) {
                               return s.read([](const top_k& t) { return t.memory_bytes(); });
                             })
      .def(
          "__eq__",
          [](const locked<top_k>& a, const locked<top_k>& b) {
            const top_k copy = b.read([](const top_k& t) { return t; });
            return a.read([&](const top_k& t) { return t == copy; });
          },
          py::is_operator())
      .def("save", &save<top_k>, py::arg("path"))
      .def_static("load", &load<top_k>, py::arg("path"))
      .def("to_bytes", &sketch_bytes<top_k>)
      .def_static(
          "from_bytes", [](py::bytes data) { return sketch_from_bytes<top_k>(data, "TopK"); },
          py::arg("data"))
      .def("__repr__",
           [](const locked<top_k>& self) {
             return self.read([](const top_k& t) {
               return "TopK(k=" + std::to_string(t.k()) + ", width=" + std::to_string(t.width()) +
                      ", depth=" + std::to_string(t.depth()) + ")";
             });
           })
      .def(py::pickle(
          [](const locked<top_k>& self) { return sketch_bytes(self); },
          [](const py::bytes& state) { return sketch_from_bytes<top_k>(state, "TopK"); }));
}

}  // namespace

void bind_sketch(py::module_& m) {
  bind_hyperloglog(m);
  bind_count_min(m);
  bind_top_k(m);
}

}  // namespace ringbloom::python
