// python/src/lookup.hpp: batch lookups shared by HashRing (placement.cpp)
// and Placement (strategies.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "items.hpp"

namespace ringbloom::python {

/// out[i] = the index of the node that owns item i of `batch` on `p` (a
/// hash_ring or any placement). A uint64 batch holds key hashes (key_hash
/// values), which skip hashing; other batches hold keys. Needs no GIL.
template <class Placement>
void node_indexes(const Placement& p, const item_batch& batch, std::uint32_t* out) {
  if (batch.kind() == batch_kind::integers) {
    const std::span<const std::uint64_t> hashes = batch.integers();
    for (std::size_t i = 0; i < hashes.size(); ++i) out[i] = p.node_index_for_hash(hashes[i]);
    return;
  }
  for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> keys) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      out[first + i] = p.node_index_for_hash(p.key_hash(keys[i]));
    }
  });
}

/// A list of the cached name objects `names[index[i]]`: one reference count
/// per item, no new str. Needs the GIL.
inline py::list names_of(const py::tuple& names, const std::uint32_t* index, std::size_t n) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) throw py::error_already_set();
  for (std::size_t i = 0; i < n; ++i) {
    PyObject* name = PyTuple_GET_ITEM(names.ptr(), static_cast<Py_ssize_t>(index[i]));
    Py_INCREF(name);
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), name);
  }
  return py::reinterpret_steal<py::list>(list);
}

}  // namespace ringbloom::python
