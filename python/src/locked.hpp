// python/src/locked.hpp: a library object and its reader-writer lock, the
// Python-side state of the sketches and the cuckoo filter.
//
// Batch calls release the GIL, so two Python threads can be inside one
// object at once; readers share the lock, writers take it alone. A call that
// waits for the lock has released the GIL first (batches) or holds it while
// every other holder of the lock runs without needing the GIL (one-item
// calls), so no wait can deadlock against the GIL. filter.cpp's BloomFilter
// follows the same rule with its own struct.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>

namespace ringbloom::python {

namespace py = pybind11;

template <class T>
struct locked {
  explicit locked(T v) : value(std::move(v)) {}
  T value;
  mutable std::shared_mutex mutex;

  /// fn(const T&) under the shared lock.
  template <class Fn>
  decltype(auto) read(Fn&& fn) const {
    const std::shared_lock lock(mutex);
    return std::forward<Fn>(fn)(value);
  }
  /// fn(T&) under the exclusive lock.
  template <class Fn>
  decltype(auto) write(Fn&& fn) {
    const std::unique_lock lock(mutex);
    return std::forward<Fn>(fn)(value);
  }
};

template <class T>
std::unique_ptr<locked<T>> make_locked(T value) {
  return std::make_unique<locked<T>>(std::move(value));
}

/// An item the library hands back (a Top-K leader): str when its bytes are
/// valid UTF-8, as they are for every item given as str, else bytes.
inline py::object item_object(std::string_view bytes) {
  PyObject* text =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "strict");
  if (text != nullptr) return py::reinterpret_steal<py::object>(text);
  PyErr_Clear();
  return py::bytes(bytes.data(), bytes.size());
}

}  // namespace ringbloom::python
