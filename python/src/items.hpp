// python/src/items.hpp: how Python objects become the byte strings the
// library hashes, one at a time or in batches.
//
// The rule, the same everywhere in the module: a str is its UTF-8 bytes, a
// bytes (or bytearray, memoryview, any contiguous byte buffer) is itself. So
// "a" and b"a" are the same item, and a file written by the CLI from the line
// "anna" holds the item "anna" for Python too. Anything else (int, None, a
// list) raises TypeError naming the type.
//
// Batches take any iterable of such items, with two fast paths that never
// build Python objects per item:
//   - a 1-D numpy array of fixed-width bytes (dtype "S<w>"): item i is
//     bytes(array[i]), that is the w bytes without their trailing NULs, as
//     numpy itself reads them;
//   - a 1-D numpy array of uint64: the meaning depends on the structure (for
//     a filter, item i is the 8 little-endian bytes of array[i]; for a ring,
//     array[i] is a key hash as returned by key_hash). The caller decides.
//
// Lifetimes. A batch is gathered while the GIL is held and then worked on
// with the GIL released, so other Python threads run meanwhile. The views
// must stay valid while they do: item_batch keeps a strong reference to a
// tuple of the items (a list is copied into one, so that another thread
// emptying the list cannot free an item), and copies the contents of mutable
// buffers (bytearray, memoryview) into storage of its own.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringbloom::python {

namespace py = pybind11;

/// The bytes of one item: a view of a str's UTF-8 or a bytes object's
/// contents, valid while `obj` lives and is not mutated. For a mutable
/// buffer the bytes are copied into `scratch` and the view points there.
/// Throws py::type_error for anything that is not str or a byte buffer.
[[nodiscard]] std::string_view item_view(py::handle obj, std::string& scratch);

/// The kind of a batch argument.
enum class batch_kind {
  objects,   ///< any iterable of str / bytes
  fixed,     ///< a 1-D numpy array of dtype S<w>
  integers,  ///< a 1-D numpy array of uint64
};

/// A batch of items taken from one Python argument, readable without the GIL.
class item_batch {
 public:
  /// Gathers `items` (any iterable, or one of the numpy fast paths). Needs
  /// the GIL. Throws py::type_error for an item of the wrong type, and for a
  /// numpy array of another dtype or more than one dimension.
  explicit item_batch(py::handle items);

  [[nodiscard]] batch_kind kind() const noexcept { return kind_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// For objects and fixed: the views of items [first, first + out.size())
  /// written into out. For integers: the 8 little-endian bytes of each value,
  /// which `out` points into `bytes_scratch` (at least 8 * out.size() bytes).
  /// Needs no GIL.
  void views(std::size_t first, std::span<std::string_view> out,
             std::span<char> bytes_scratch) const noexcept;

  /// For integers: the values. Needs no GIL.
  [[nodiscard]] std::span<const std::uint64_t> integers() const noexcept {
    return {integers_, kind_ == batch_kind::integers ? size_ : 0};
  }

 private:
  batch_kind kind_ = batch_kind::objects;
  std::size_t size_ = 0;
  py::object keep_;  // the tuple or array the views point into
  std::vector<std::string_view> objects_;
  std::deque<std::string> copies_;  // contents of mutable buffers (stable addresses)
  const char* fixed_ = nullptr;     // S<w> data
  std::size_t width_ = 0;
  const std::uint64_t* integers_ = nullptr;
};

/// Items are processed in chunks of this many views at a time, so a batch
/// of 10 million items never holds 10 million views (160 MB) at once; the
/// library's own batch code pipelines within a chunk.
inline constexpr std::size_t batch_chunk = 4096;

/// Calls fn(first, views) for consecutive chunks of the batch. Needs no GIL.
template <class Fn>
void for_each_chunk(const item_batch& batch, Fn&& fn) {
  std::vector<std::string_view> views(batch_chunk);
  std::vector<char> scratch(8 * batch_chunk);
  for (std::size_t first = 0; first < batch.size(); first += batch_chunk) {
    const std::size_t n = std::min(batch_chunk, batch.size() - first);
    std::span<std::string_view> chunk{views.data(), n};
    batch.views(first, chunk, scratch);
    fn(first, std::span<const std::string_view>{chunk});
  }
}

/// A new 1-D numpy array of `n` bools (uninitialised).
[[nodiscard]] py::array_t<bool> new_bool_array(std::size_t n);

}  // namespace ringbloom::python
