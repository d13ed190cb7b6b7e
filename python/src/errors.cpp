// python/src/errors.cpp: the library's exceptions as Python exceptions, with
// the library's messages unchanged.
//
//   C++                         Python
//   std::invalid_argument       ValueError       (pybind11's own mapping)
//   other std::logic_error      ValueError       (a read-only mapped filter, a
//                                                 scalable filter out of layers)
//   ringbloom::data_error       ringbloom.DataError, a subclass of ValueError:
//                                                 a corrupt, truncated or foreign file
//   ringbloom::io_error         OSError          (the OS refused a read or write)
//   ringbloom::io::memory_error MemoryError      (refused before allocating: the
//                                                 library's sentence naming the size)
//   std::bad_alloc              MemoryError      (pybind11's own mapping)
#include <exception>
#include <stdexcept>

#include "module.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/memory.hpp"

namespace ringbloom::python {

void bind_errors(py::module_& m) {
  static PyObject* data_error_type =
      PyErr_NewExceptionWithDoc("ringbloom.DataError",
                                "Input data is malformed, corrupt, truncated or of a foreign "
                                "format (a filter file, a topology); nothing was answered from it.",
                                PyExc_ValueError, nullptr);
  if (data_error_type == nullptr) throw py::error_already_set();
  m.add_object("DataError", py::handle(data_error_type));

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ringbloom::data_error& e) {
      PyErr_SetString(data_error_type, e.what());
    } catch (const ringbloom::io_error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const ringbloom::io::memory_error& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const std::out_of_range&) {
      throw;  // pybind11 maps it to IndexError
    } catch (const std::logic_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace ringbloom::python
