// python/src/items.cpp: str / bytes items and batches (see items.hpp).
#include "items.hpp"

#include <cstring>
#include <string>

namespace ringbloom::python {

namespace {

[[noreturn]] void throw_item_type(py::handle obj) {
  throw py::type_error("an item must be str or bytes (or another byte buffer), not " +
                       std::string(py::str(py::type::handle_of(obj).attr("__name__"))) +
                       "; convert it first, e.g. str(x) or x.to_bytes(8, 'little')");
}

// The bytes of a buffer object (bytearray, memoryview, array.array, ...).
std::string buffer_bytes(py::handle obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
  std::string bytes(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
  PyBuffer_Release(&view);
  return bytes;
}

}  // namespace

std::string_view item_view(py::handle obj, std::string& scratch) {
  PyObject* o = obj.ptr();
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);  // cached in the str object
    if (data == nullptr) throw py::error_already_set();    // a lone surrogate
    return {data, static_cast<std::size_t>(size)};
  }
  if (PyBytes_Check(o)) {
    return {PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o))};
  }
  if (PyObject_CheckBuffer(o) != 0) {
    scratch = buffer_bytes(obj);
    return scratch;
  }
  throw_item_type(obj);
}

item_batch::item_batch(py::handle items) {
  if (PyUnicode_Check(items.ptr()) || PyBytes_Check(items.ptr())) {
    throw py::type_error(
        "a batch call takes an iterable of items, not a single str or bytes; call the "
        "one-item method (add, may_contain, node_for) or wrap the item in a list");
  }
  if (py::isinstance<py::array>(items)) {
    auto array = py::reinterpret_borrow<py::array>(items);
    const char dtype_kind = array.dtype().kind();
    const bool fixed_bytes = dtype_kind == 'S';
    const bool uint64 = dtype_kind == 'u' && array.itemsize() == 8;
    if (fixed_bytes || uint64) {
      if (array.ndim() != 1) {
        throw py::type_error("a numpy array of items must be one-dimensional; got " +
                             std::to_string(array.ndim()) + " dimensions; use array.ravel()");
      }
      if (fixed_bytes) {
        auto contiguous = py::array::ensure(array, py::array::c_style);
        if (!contiguous) throw py::error_already_set();
        kind_ = batch_kind::fixed;
        width_ = static_cast<std::size_t>(contiguous.itemsize());
        fixed_ = static_cast<const char*>(contiguous.data());
        size_ = static_cast<std::size_t>(contiguous.shape(0));
        keep_ = std::move(contiguous);
      } else {
        // Native byte order and contiguous; a copy only when it is not.
        auto native =
            py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(array);
        if (!native) throw py::error_already_set();
        kind_ = batch_kind::integers;
        integers_ = native.data();
        size_ = static_cast<std::size_t>(native.shape(0));
        keep_ = std::move(native);
      }
      return;
    }
    if (dtype_kind != 'U' && dtype_kind != 'O') {
      throw py::type_error(
          "a numpy array of items must have dtype S<width> (bytes), uint64, "
          "str or object; got " +
          std::string(py::str(array.dtype())) +
          "; convert it with array.astype(np.uint64) or array.astype('S')");
    }
    // str and object arrays: item by item, as any iterable.
  }
  PyObject* tuple = PySequence_Tuple(items.ptr());  // a list is copied: see items.hpp
  if (tuple == nullptr) throw py::error_already_set();
  auto owned = py::reinterpret_steal<py::tuple>(tuple);
  size_ = owned.size();
  objects_.resize(size_);
  std::string scratch;
  for (std::size_t i = 0; i < size_; ++i) {
    PyObject* o = PyTuple_GET_ITEM(tuple, static_cast<Py_ssize_t>(i));
    if (PyUnicode_Check(o) || PyBytes_Check(o)) {
      objects_[i] = item_view(o, scratch);
    } else if (PyObject_CheckBuffer(o) != 0) {
      copies_.push_back(buffer_bytes(o));  // a deque: earlier copies never move
      objects_[i] = copies_.back();
    } else {
      throw_item_type(o);
    }
  }
  keep_ = std::move(owned);
}

void item_batch::views(std::size_t first, std::span<std::string_view> out,
                       std::span<char> bytes_scratch) const noexcept {
  switch (kind_) {
    case batch_kind::objects:
      std::copy_n(objects_.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
      return;
    case batch_kind::fixed:
      for (std::size_t i = 0; i < out.size(); ++i) {
        const char* item = fixed_ + (first + i) * width_;
        std::size_t length = width_;
        while (length > 0 && item[length - 1] == '\0') --length;  // numpy's bytes(array[i])
        out[i] = {item, length};
      }
      return;
    case batch_kind::integers:
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint64_t value = integers_[first + i];
        char* bytes = bytes_scratch.data() + 8 * i;
        for (int b = 0; b < 8; ++b) bytes[b] = static_cast<char>((value >> (8 * b)) & 0xff);
        out[i] = {bytes, 8};
      }
      return;
  }
}

py::array_t<bool> new_bool_array(std::size_t n) {
  return py::array_t<bool>(static_cast<py::ssize_t>(n));
}

}  // namespace ringbloom::python
