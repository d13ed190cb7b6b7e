// python/src/module.cpp: the extension module ringbloom._ringbloom. The
// pure-Python package ringbloom/__init__.py re-exports what is bound here.
#include "module.hpp"

#include <string>

#include "ringbloom/placement/topology.hpp"
#include "ringbloom/version.hpp"

namespace ringbloom::python {

std::uint64_t to_count(py::handle value, const char* what) {
  if (!PyLong_Check(value.ptr())) {
    throw py::type_error(std::string(what) + " must be an int, not " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  int overflow = 0;
  const long long signed_value = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow < 0 || (overflow == 0 && signed_value < 0)) {
    throw py::value_error(std::string(what) + " must not be negative; got " +
                          std::string(py::str(value)));
  }
  const unsigned long long result = PyLong_AsUnsignedLongLong(value.ptr());
  if (PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    throw py::value_error(std::string(what) + " is too large (more than 2^64 - 1); got " +
                          std::string(py::str(value)));
  }
  return result;
}

std::uint32_t to_count32(py::handle value, const char* what) {
  const std::uint64_t result = to_count(value, what);
  if (result > 0xffffffffu) {
    throw py::value_error(std::string(what) + " is too large (more than 2^32 - 1); got " +
                          std::to_string(result));
  }
  return static_cast<std::uint32_t>(result);
}

std::string checked_name(py::handle name) {
  if (!PyUnicode_Check(name.ptr())) {
    throw py::type_error("a node name must be a str, not " +
                         std::string(py::str(py::type::handle_of(name).attr("__name__"))));
  }
  std::string text = py::cast<std::string>(name);
  check_node_name(text);
  return text;
}

}  // namespace ringbloom::python

PYBIND11_MODULE(_ringbloom, m) {
  namespace rp = ringbloom::python;
  m.doc() =
      "ringbloom's C++ library: consistent hashing, filters and sketches (see docs/python.md)";
  m.attr("__version__") = std::string(ringbloom::version_string);
  rp::bind_errors(m);
  rp::bind_hash(m);
  rp::bind_placement(m);
  rp::bind_strategies(m);
  rp::bind_filter(m);
  rp::bind_cuckoo(m);
  rp::bind_windowed(m);
  rp::bind_sketch(m);
  rp::bind_quantile(m);
  rp::bind_merkle(m);
}
