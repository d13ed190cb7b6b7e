// python/src/quantile.cpp: the quantile sketches (TDigest, KLL): numbers one
// at a time or as float64 numpy arrays (GIL released), the queries of
// ringbloom/quantile/quantile_math.hpp's interface, quantile files (the CLI's
// format) and pickling through them.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "locked.hpp"
#include "module.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/quantile/kll.hpp"
#include "ringbloom/quantile/quantile_file.hpp"
#include "ringbloom/quantile/tdigest.hpp"

namespace ringbloom::python {

namespace {

using values_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <class Sketch>
py::bytes to_bytes(const locked<Sketch>& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    bytes = self.read([](const Sketch& s) { return serialize_quantile(any_quantile{s}); });
  }
  return py::bytes(bytes);
}

template <class Sketch>
std::unique_ptr<locked<Sketch>> from_bytes(std::string_view bytes) {
  any_quantile any = deserialize_quantile(bytes);
  if (Sketch* s = std::get_if<Sketch>(&any)) return make_locked(std::move(*s));
  throw data_error("these bytes hold a " + std::string(quantile_kind_name(kind_of(any))) +
                   "; load them with the matching class");
}

// Batch queries over a list or numpy array of floats: one lock, no GIL.
template <class Sketch, class Fn>
py::array_t<double> map_values(const locked<Sketch>& self, values_array xs, Fn&& fn) {
  const std::span<const double> in{xs.data(), static_cast<std::size_t>(xs.size())};
  py::array_t<double> out(static_cast<py::ssize_t>(in.size()));
  double* o = out.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    self.read([&](const Sketch& s) {
      for (std::size_t i = 0; i < in.size(); ++i) o[i] = fn(s, in[i]);
    });
  }
  return out;
}

// What both classes have: adds, queries, files, pickling.
template <class Sketch>
void bind_common(py::class_<locked<Sketch>>& c, const char* name) {
  using self_t = locked<Sketch>;
  c.def(
       "add", [](self_t& self, double x) { self.write([&](Sketch& s) { s.add(x); }); },
       py::arg("value"), "Adds one number. ValueError for NaN or an infinity.")
      .def(
          "add_many",
          [](self_t& self, values_array xs) {
            const std::span<const double> in{xs.data(), static_cast<std::size_t>(xs.size())};
            const py::gil_scoped_release no_gil;
            self.write([&](Sketch& s) { s.add_many(in); });
          },
          py::arg("values"),
          "Adds every number of a float64 array (or any sequence of numbers) with the GIL "
          "released; all are checked first (one NaN refuses the batch).")
      .def(
          "merge",
          [](self_t& self, const self_t& other) {
            if (&self == &other) {
              self.write([](Sketch& s) {
                const Sketch copy = s;
                s.merge(copy);
              });
              return;
            }
            const Sketch copy = other.read([](const Sketch& o) { return o; });
            self.write([&](Sketch& s) { s.merge(copy); });
          },
          py::arg("other"), "Adds other's contents to this sketch.")
      .def(
          "quantile",
          [](const self_t& self, py::object q) -> py::object {
            if (py::isinstance<py::float_>(q) || py::isinstance<py::int_>(q)) {
              const double v = q.cast<double>();
              return py::float_(self.read([&](const Sketch& s) { return s.quantile(v); }));
            }
            return map_values(self, q.cast<values_array>(),
                              [](const Sketch& s, double v) { return s.quantile(v); });
          },
          py::arg("q"), "The value at quantile q in [0, 1] (a float, or an array for an array).")
      .def(
          "cdf",
          [](const self_t& self, py::object x) -> py::object {
            if (py::isinstance<py::float_>(x) || py::isinstance<py::int_>(x)) {
              const double v = x.cast<double>();
              return py::float_(self.read([&](const Sketch& s) { return s.cdf(v); }));
            }
            return map_values(self, x.cast<values_array>(),
                              [](const Sketch& s, double v) { return s.cdf(v); });
          },
          py::arg("x"), "Fraction below x plus half at x (a float, or an array).")
      .def(
          "rank",
          [](const self_t& self, double x) {
            return self.read([&](const Sketch& s) { return s.rank(x); });
          },
          py::arg("x"), "As TDIGEST.RANK: -1 below min, count above max, -2 when empty.")
      .def(
          "rev_rank",
          [](const self_t& self, double x) {
            return self.read([&](const Sketch& s) { return s.rev_rank(x); });
          },
          py::arg("x"), "As TDIGEST.REVRANK.")
      .def(
          "by_rank",
          [](const self_t& self, py::handle r) {
            const std::uint64_t v = to_count(r, "rank");
            return self.read([&](const Sketch& s) { return s.by_rank(v); });
          },
          py::arg("r"), "The value of 0-based rank r (inf past the end; NaN when empty).")
      .def(
          "by_rev_rank",
          [](const self_t& self, py::handle r) {
            const std::uint64_t v = to_count(r, "rank");
            return self.read([&](const Sketch& s) { return s.by_rev_rank(v); });
          },
          py::arg("r"), "The value of 0-based rank r from the top.")
      .def(
          "trimmed_mean",
          [](const self_t& self, double lo, double hi) {
            return self.read([&](const Sketch& s) { return s.trimmed_mean(lo, hi); });
          },
          py::arg("low"), py::arg("high"), "The mean between quantiles low < high.")
      .def("reset", [](self_t& self) { self.write([](Sketch& s) { s.reset(); }); })
      .def_property_readonly(
          "count",
          [](const self_t& self) { return self.read([](const Sketch& s) { return s.count(); }); })
      .def_property_readonly(
          "min",
          [](const self_t& self) { return self.read([](const Sketch& s) { return s.min(); }); })
      .def_property_readonly(
          "max",
          [](const self_t& self) { return self.read([](const Sketch& s) { return s.max(); }); })
      .def_property_readonly("memory_bytes",
                             [](const self_t& self) {
                               return self.read([](const Sketch& s) { return s.memory_bytes(); });
                             })
      .def("__len__",
           [](const self_t& self) { return self.read([](const Sketch& s) { return s.count(); }); })
      .def(
          "save",
          [](const self_t& self, const std::filesystem::path& path) {
            const py::gil_scoped_release no_gil;
            self.read([&](const Sketch& s) { save_quantile(path, any_quantile{s}); });
          },
          py::arg("path"), "Saves a quantile file atomically (the CLI's format).")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            return make_locked(load_quantile_as<Sketch>(path));
          },
          py::arg("path"), "Reads a quantile file. DataError if damaged or of the other kind.")
      .def("to_bytes", &to_bytes<Sketch>, "The quantile file's bytes.")
      .def_static(
          "from_bytes", [](py::bytes data) { return from_bytes<Sketch>(std::string_view(data)); },
          py::arg("data"))
      .def(py::pickle(
          [](const self_t& self) { return to_bytes(self); },
          [](const py::bytes& state) { return from_bytes<Sketch>(std::string_view(state)); }));
  (void)name;
}

}  // namespace

void bind_quantile(py::module_& m) {
  py::class_<locked<tdigest>> td(m, "TDigest", R"doc(
The merging t-digest, as Redis's TDIGEST.* (RedisBloom): very accurate at
the tails of ordinary data for a few KB, but with no bound on its error.
Prefer KLL when the error must be guaranteed.

    t = ringbloom.TDigest(compression=100)
    t.add_many(numpy.random.default_rng(1).lognormal(size=100_000))
    t.quantile(0.99)
)doc");
  td.def(py::init([](double compression) { return make_locked(tdigest(compression)); }),
         py::arg("compression") = tdigest::default_compression,
         "compression in [1, 100000]; 6 * compression + 10 nodes. ValueError outside.")
      .def_property_readonly("compression",
                             [](const locked<tdigest>& self) {
                               return self.read([](const tdigest& t) { return t.compression(); });
                             })
      .def_property_readonly("sum",
                             [](const locked<tdigest>& self) {
                               return self.read([](const tdigest& t) { return t.sum(); });
                             })
      .def_property_readonly("mean",
                             [](const locked<tdigest>& self) {
                               return self.read([](const tdigest& t) { return t.mean(); });
                             })
      .def_static(
          "merged",
          [](const std::vector<const locked<tdigest>*>& inputs, double compression) {
            std::vector<tdigest> copies;
            copies.reserve(inputs.size());
            for (const auto* in : inputs)
              copies.push_back(in->read([](const tdigest& t) { return t; }));
            std::vector<const tdigest*> ptrs;
            for (const auto& c : copies) ptrs.push_back(&c);
            return make_locked(tdigest::merged(ptrs, compression));
          },
          py::arg("inputs"), py::arg("compression"),
          "A new digest of this compression holding every input (TDIGEST.MERGE).")
      .def("__repr__", [](const locked<tdigest>& self) {
        return self.read([](const tdigest& t) {
          return "TDigest(compression=" + std::to_string(static_cast<long long>(t.compression())) +
                 ", count=" + std::to_string(t.count()) + ")";
        });
      });
  bind_common(td, "TDigest");

  py::class_<locked<kll_sketch>> kll(m, "KLL", R"doc(
The KLL sketch: rank error guaranteed for any stream (1.33% at k = 200,
99% confidence), mergeable, deterministic for a seed.

    s = ringbloom.KLL(k=200, seed=7)
    s.add_many(latencies)
    s.quantile(0.99), s.rank_error
)doc");
  kll.def(py::init([](py::handle k, py::handle seed) {
            return make_locked(kll_sketch(to_count32(k, "k"), to_count(seed, "seed")));
          }),
          py::arg("k") = kll_sketch::default_k, py::arg("seed") = 0,
          "k in [8, 65535]. ValueError outside.")
      .def_property_readonly("k",
                             [](const locked<kll_sketch>& self) {
                               return self.read([](const kll_sketch& s) { return s.k(); });
                             })
      .def_property_readonly("seed",
                             [](const locked<kll_sketch>& self) {
                               return self.read([](const kll_sketch& s) { return s.seed(); });
                             })
      .def_property_readonly("rank_error",
                             [](const locked<kll_sketch>& self) {
                               return self.read([](const kll_sketch& s) { return s.rank_error(); });
                             })
      .def_property_readonly("retained",
                             [](const locked<kll_sketch>& self) {
                               return self.read([](const kll_sketch& s) { return s.retained(); });
                             })
      .def(
          "pmf",
          [](const locked<kll_sketch>& self, std::vector<double> splits) {
            return self.read([&](const kll_sketch& s) { return s.pmf(splits); });
          },
          py::arg("splits"), "Masses of (-inf, s0], (s0, s1], ..., (s_last, inf).")
      .def("__repr__", [](const locked<kll_sketch>& self) {
        return self.read([](const kll_sketch& s) {
          return "KLL(k=" + std::to_string(s.k()) + ", count=" + std::to_string(s.count()) + ")";
        });
      });
  bind_common(kll, "KLL");
}

}  // namespace ringbloom::python
