// python/src/windowed.cpp: WindowedBloomFilter (ringbloom::windowed_bloom_filter),
// a Bloom filter that forgets: by time (for_time) or by count (for_count).
// Times are float seconds, numpy datetime64 (scalars or arrays) or datetime
// objects; None reads the clock here (the library never does). Batches
// release the GIL; files are the CLI's .rbw (windowed_file.hpp); pickling
// goes through the same bytes.
#include <pybind11/numpy.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "items.hpp"
#include "locked.hpp"
#include "module.hpp"
#include "ringbloom/filter/windowed_file.hpp"

namespace ringbloom::python {

namespace {

using windowed = locked<windowed_bloom_filter>;

/// Seconds from a Python time: None (the clock), int, float, a numpy
/// datetime64 scalar or a datetime (its timestamp()).
double to_seconds(py::handle t) {
  if (t.is_none()) return py::module_::import("time").attr("time")().cast<double>();
  if (py::isinstance<py::float_>(t) || py::isinstance<py::int_>(t)) return t.cast<double>();
  const py::module_ np = py::module_::import("numpy");
  if (py::isinstance(t, np.attr("datetime64"))) {
    if (np.attr("isnat")(t).cast<bool>()) {
      throw py::value_error("the time is NaT (not a time); pass the time of the event");
    }
    const auto ns = np.attr("datetime64")(t, "ns").attr("astype")("int64").cast<std::int64_t>();
    return static_cast<double>(ns) / 1e9;
  }
  if (py::hasattr(t, "timestamp")) return t.attr("timestamp")().cast<double>();
  if (py::isinstance(t, np.attr("number"))) return t.cast<double>();
  throw py::type_error(
      "a time must be seconds (float or int), a numpy datetime64 or a datetime, "
      "not " +
      std::string(py::str(py::type::handle_of(t).attr("__name__"))));
}

/// One time per item: a 1-D numpy array (float seconds or datetime64) of
/// length n, as float64 seconds.
py::array_t<double> to_seconds_array(py::handle times, std::size_t n) {
  const py::module_ np = py::module_::import("numpy");
  py::array a = np.attr("asarray")(times);
  if (a.dtype().kind() == 'M') {
    if (np.attr("isnat")(a).attr("any")().cast<bool>()) {
      throw py::value_error("the times hold NaT (not a time); pass the time of every event");
    }
    a = a.attr("astype")("datetime64[ns]").attr("astype")("int64").attr("astype")("float64");
    a = a.attr("__truediv__")(1e9);
  }
  auto seconds = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!seconds || seconds.ndim() != 1 || static_cast<std::size_t>(seconds.shape(0)) != n) {
    throw py::value_error("times must be one number or datetime64 per item (" + std::to_string(n) +
                          " items); pass a 1-D array as long as the items");
  }
  return seconds;
}

/// Whether `now` holds one time per item (a sequence or an array) rather
/// than one time.
bool per_item(py::handle now) {
  return !now.is_none() &&
         (py::isinstance<py::array>(now) || py::isinstance<py::list>(now) ||
          py::isinstance<py::tuple>(now)) &&
         py::array(py::module_::import("numpy").attr("asarray")(now)).ndim() == 1;
}

/// The time of a call: ignored (0) for a count window, which has none.
double time_of(const windowed& self, py::handle now) {
  return self.value.kind() == window_kind::time ? to_seconds(now) : 0;
}

py::bytes to_bytes(const windowed& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    bytes = self.read([](const windowed_bloom_filter& f) { return f.serialize(); });
  }
  return py::bytes(bytes);
}

std::unique_ptr<windowed> from_bytes(const py::bytes& data) {
  const std::string_view bytes = data;
  return make_locked(windowed_bloom_filter::deserialize(bytes));
}

/// fn(filter, item, time) for one item under the exclusive lock.
template <class Fn>
auto write_one(windowed& self, py::handle item, py::handle now, Fn&& fn) {
  std::string scratch;
  const std::string_view bytes = item_view(item, scratch);
  const double t = time_of(self, now);
  return self.write([&](windowed_bloom_filter& f) { return fn(f, f.hash_item(bytes), t); });
}

/// seen[i] = test_and_add(items[i], times[i]) for the batch (GIL released);
/// `times` is one per item or empty (count windows).
void test_and_add_all(windowed_bloom_filter& f, const item_batch& batch,
                      std::span<const double> times, bool* seen) {
  for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> c) {
    (void)f.test_and_add_many(c, times.empty() ? times : times.subspan(first, c.size()),
                              {seen + first, c.size()});
  });
}

/// The times of a batch: one per item (`each`, when `now` is a sequence) or
/// one for all (`one`; 0 for a count window, which has no time).
struct batch_time {
  std::vector<double> each;
  double one = 0;
};

batch_time times_of(py::handle now, std::size_t n, bool time_window) {
  batch_time t;
  if (!time_window) return t;
  if (per_item(now)) {
    const auto a = to_seconds_array(now, n);
    t.each.assign(a.data(), a.data() + n);
  } else {
    t.one = to_seconds(now);
  }
  return t;
}

/// Adds the batch: one time for all (the library's add_many), or one per item.
void add_all(windowed_bloom_filter& f, const item_batch& batch, const batch_time& t) {
  for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> c) {
    if (t.each.empty()) {
      f.add_many(c, t.one);
      return;
    }
    for (std::size_t i = 0; i < c.size(); ++i) f.add_hash(f.hash_item(c[i]), t.each[first + i]);
  });
}

}  // namespace

void bind_windowed(py::module_& m) {
  py::class_<windowed>(m, "WindowedBloomFilter", R"doc(
A Bloom filter that forgets: "seen in the last hour?" (for_time) or "seen in
the last N items?" (for_count). An item added at time t answers True for
every query in [t, t + window]; an item not added since now - window * 4/3
answers False except at the false-positive rate. Times are float seconds
(Unix time or any clock you keep), numpy datetime64 or datetime; None reads
the clock. Count windows take no time.

    f = ringbloom.WindowedBloomFilter.for_time(3600, 1_000_000, 0.01)
    f.add("user:42", 1_700_000_000)
    f.may_contain("user:42", 1_700_003_600)          # True
    seen = f.test_and_add_many(events, timestamps)  # numpy bools: dedup
)doc")
      .def_static(
          "for_time",
          [](double window, py::handle capacity, double fpr, py::handle seed) {
            return make_locked(windowed_bloom_filter::for_time(
                window, to_count(capacity, "capacity"), fpr, to_count(seed, "seed")));
          },
          py::arg("window"), py::arg("capacity"), py::arg("fpr") = 0.01, py::arg("seed") = 0,
          "A window of `window` seconds sized for `capacity` items in any window. ValueError for "
          "a window that is not above 0, capacity 0, fpr outside [1e-12, 1).")
      .def_static(
          "for_count",
          [](py::handle items, double fpr, py::handle seed) {
            return make_locked(windowed_bloom_filter::for_count(to_count(items, "items"), fpr,
                                                                to_count(seed, "seed")));
          },
          py::arg("items"), py::arg("fpr") = 0.01, py::arg("seed") = 0,
          "A window of the last `items` insertions. ValueError as for_time.")
      .def(
          "add",
          [](windowed& self, py::handle item, py::handle now) {
            write_one(self, item, now, [](windowed_bloom_filter& f, std::uint64_t x, double t) {
              f.add_hash(x, t);
            });
          },
          py::arg("item"), py::arg("now") = py::none(),
          "Adds the item at time `now`. ValueError for a time more than one window before the "
          "latest the filter has seen.")
      .def(
          "test_and_add",
          [](windowed& self, py::handle item, py::handle now) {
            return write_one(self, item, now,
                             [](windowed_bloom_filter& f, std::uint64_t x, double t) {
                               const bool seen = f.may_contain_hash(x, t);
                               f.add_hash(x, t);
                               return seen;
                             });
          },
          py::arg("item"), py::arg("now") = py::none(),
          "may_contain, then add: False the first time an item is seen within the window.")
      .def(
          "may_contain",
          [](const windowed& self, py::handle item, py::handle now) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            const double t = time_of(self, now);
            return self.read([&](const windowed_bloom_filter& f) {
              return f.may_contain_hash(f.hash_item(bytes), t);
            });
          },
          py::arg("item"), py::arg("now") = py::none())
      .def("__contains__",
           [](const windowed& self, py::handle item) {
             std::string scratch;
             const std::string_view bytes = item_view(item, scratch);
             const double t = time_of(self, py::none());
             return self.read([&](const windowed_bloom_filter& f) {
               return f.may_contain_hash(f.hash_item(bytes), t);
             });
           })
      .def(
          "add_many",
          [](windowed& self, py::handle items, py::handle now) {
            const item_batch batch(items);
            const batch_time t =
                times_of(now, batch.size(), self.value.kind() == window_kind::time);
            const py::gil_scoped_release no_gil;
            self.write([&](windowed_bloom_filter& f) { add_all(f, batch, t); });
          },
          py::arg("items"), py::arg("now") = py::none(),
          "add for every item, GIL released; `now` is one time or one per item.")
      .def(
          "may_contain_many",
          [](const windowed& self, py::handle items, py::handle now) {
            const item_batch batch(items);
            const double t = time_of(self, now);
            py::array_t<bool> answers = new_bool_array(batch.size());
            bool* out = answers.mutable_data();
            {
              const py::gil_scoped_release no_gil;
              self.read([&](const windowed_bloom_filter& f) {
                for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> c) {
                  (void)f.may_contain_many(c, t, {out + first, c.size()});
                });
              });
            }
            return answers;
          },
          py::arg("items"), py::arg("now") = py::none(),
          "may_contain for every item at one time, as a numpy bool array, GIL released.")
      .def(
          "test_and_add_many",
          [](windowed& self, py::handle items, py::handle now) {
            const item_batch batch(items);
            const bool time_window = self.value.kind() == window_kind::time;
            batch_time t = times_of(now, batch.size(), time_window);
            if (time_window && t.each.empty()) t.each.assign(batch.size(), t.one);
            const std::vector<double>& times = t.each;
            py::array_t<bool> seen = new_bool_array(batch.size());
            bool* out = seen.mutable_data();
            {
              const py::gil_scoped_release no_gil;
              self.write([&](windowed_bloom_filter& f) { test_and_add_all(f, batch, times, out); });
            }
            return seen;
          },
          py::arg("items"), py::arg("now") = py::none(),
          "test_and_add for every item in order (a repeat within the batch is seen), as a numpy "
          "bool array, GIL released: the dedup loop. `now` is one time or one per item.")
      .def(
          "items_in_window",
          [](const windowed& self, py::handle now) {
            const double t = time_of(self, now);
            return self.read([&](const windowed_bloom_filter& f) { return f.items_in_window(t); });
          },
          py::arg("now") = py::none(), "Additions held by the live generations at `now`.")
      .def(
          "expected_fpr",
          [](const windowed& self, py::handle now) {
            const double t = time_of(self, now);
            return self.read([&](const windowed_bloom_filter& f) { return f.expected_fpr(t); });
          },
          py::arg("now") = py::none(), "The rate at `now`, from the bits as they are.")
      .def(
          "overfull_generations",
          [](const windowed& self, py::handle now) {
            const double t = time_of(self, now);
            return self.read(
                [&](const windowed_bloom_filter& f) { return f.overfull_generations(t); });
          },
          py::arg("now") = py::none(),
          "Live generations holding more than their share of items (a burst).")
      .def_property_readonly(
          "window_kind",
          [](const windowed& s) { return std::string(window_kind_name(s.value.kind())); })
      .def_property_readonly("window", [](const windowed& s) { return s.value.window(); })
      .def_property_readonly("capacity", [](const windowed& s) { return s.value.capacity(); })
      .def_property_readonly("target_fpr", [](const windowed& s) { return s.value.target_fpr(); })
      .def_property_readonly("seed", [](const windowed& s) { return s.value.seed(); })
      .def_property_readonly("hashes", [](const windowed& s) { return s.value.hashes(); })
      .def_property_readonly("bits", [](const windowed& s) { return s.value.bits(); })
      .def_property_readonly("memory_bytes",
                             [](const windowed& s) { return s.value.memory_bytes(); })
      .def_property_readonly("generation_items",
                             [](const windowed& s) { return s.value.generation_items(); })
      .def_property_readonly(
          "items_added",
          [](const windowed& s) {
            return s.read([](const windowed_bloom_filter& f) { return f.items_added(); });
          })
      .def_property_readonly(
          "latest_time",
          [](const windowed& s) {
            return s.read([](const windowed_bloom_filter& f) { return f.latest_time(); });
          })
      .def(
          "__eq__",
          [](const windowed& a, const windowed& b) {
            const windowed_bloom_filter copy =
                b.read([](const windowed_bloom_filter& f) { return f; });
            return a.read([&](const windowed_bloom_filter& f) { return f == copy; });
          },
          py::is_operator())
      .def(
          "save",
          [](const windowed& self, const std::filesystem::path& path) {
            const py::gil_scoped_release no_gil;
            self.read([&](const windowed_bloom_filter& f) { save_windowed(path, f); });
          },
          py::arg("path"), "Saves atomically (the CLI's .rbw file). OSError.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) { return make_locked(load_windowed(path)); },
          py::arg("path"), "Reads and verifies a windowed filter file. OSError, DataError.")
      .def_static(
          "add_to_file",
          [](const std::filesystem::path& path, py::handle items, py::handle now) {
            const item_batch batch(items);
            // The file's window kind is known once it is locked: a count
            // window ignores the time read here.
            const batch_time t = times_of(now, batch.size(), true);
            const py::gil_scoped_release no_gil;
            update_windowed_file(path, [&](windowed_bloom_filter& f) { add_all(f, batch, t); });
          },
          py::arg("path"), py::arg("items"), py::arg("now") = py::none(),
          "Adds items to a file under its lock and saves it atomically (all or none).")
      .def("to_bytes", &to_bytes)
      .def_static("from_bytes", &from_bytes, py::arg("data"))
      .def("__repr__",
           [](const windowed& self) {
             return self.read([](const windowed_bloom_filter& f) {
               return std::string("WindowedBloomFilter(") +
                      (f.kind() == window_kind::time
                           ? "window=" + py::str(py::float_(f.window())).cast<std::string>() +
                                 ", capacity=" + std::to_string(f.capacity())
                           : "items=" + std::to_string(f.capacity())) +
                      ", fpr=" + py::str(py::float_(f.target_fpr())).cast<std::string>() +
                      ", items_added=" + std::to_string(f.items_added()) + ")";
             });
           })
      .def(py::pickle([](const windowed& self) { return to_bytes(self); },
                      [](const py::bytes& state) { return from_bytes(state); }));
}

}  // namespace ringbloom::python
