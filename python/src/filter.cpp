// python/src/filter.cpp: BloomFilter, one Python type for every filter kind
// (ringbloom::any_filter), with files, memory-mapped views, batches over
// numpy arrays and pickling through the file format.
//
// Thread safety. Batch calls release the GIL, so two Python threads can be
// inside one filter at once. Each BloomFilter carries a reader-writer lock:
// lookups share it, additions, removals and set operations take it alone.
// A call first releases the GIL, then waits for the lock, so a thread waiting
// for the lock never holds the GIL (no deadlock with a thread that needs the
// GIL to finish). One-item calls keep the GIL (releasing it would cost more
// than the lookup) and take the lock the same way.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "items.hpp"
#include "module.hpp"
#include "ringbloom/filter/filter_file.hpp"

namespace ringbloom::python {

namespace {

// A filter and its lock (see the file comment).
struct py_filter {
  explicit py_filter(any_filter f) : filter(std::move(f)) {}
  any_filter filter;
  mutable std::shared_mutex mutex;
};

using filter_ptr = std::unique_ptr<py_filter>;

filter_ptr wrap(any_filter f) { return std::make_unique<py_filter>(std::move(f)); }

// The kind= default of every call that makes or sizes a filter: the library's.
std::string default_kind_name() { return std::string(filter_kind_name(default_filter_kind)); }

// A static filter (fuse8, fuse16) takes no change once built: ValueError
// (docs/python.md, Errors), with the Python way to rebuild it. Checked before
// anything is read from a batch or a file, so nothing is half-done. The kind
// of a BloomFilter never changes, so it is read without the lock.
void refuse_static(filter_kind kind, std::string_view operation) {
  if (!is_static_kind(kind)) return;
  const std::string name(filter_kind_name(kind));
  throw py::value_error("cannot " + std::string(operation) + " a " + name +
                        " filter: it is static, built once from its whole key set; rebuild it "
                        "from the whole key set with BloomFilter.build(keys, kind='" +
                        name +
                        "'), or use a blocked filter (BloomFilter.for_capacity) for a set "
                        "that changes");
}

// A filter that owns its words: a mapped (read-only) filter is copied out
// through the file format, others are copied directly.
any_filter owned_copy(const any_filter& f) {
  if (f.read_only()) return deserialize_filter(serialize_filter(f));
  return f;
}

void add_many(py_filter& self, py::handle items) {
  refuse_static(self.filter.kind(), "add to");
  const item_batch batch(items);
  const py::gil_scoped_release no_gil;
  const std::unique_lock lock(self.mutex);
  // any_filter's batch call: one kind dispatch per chunk, then the kind's
  // own batch path.
  for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
    self.filter.add_many(chunk);
  });
}

py::array_t<bool> may_contain_many(const py_filter& self, py::handle items) {
  const item_batch batch(items);
  py::array_t<bool> answers = new_bool_array(batch.size());
  bool* out = answers.mutable_data();
  {
    const py::gil_scoped_release no_gil;
    const std::shared_lock lock(self.mutex);
    for_each_chunk(batch, [&](std::size_t first, std::span<const std::string_view> chunk) {
      (void)self.filter.may_contain_many(chunk, std::span<bool>{out + first, chunk.size()});
    });
  }
  return answers;
}

std::size_t remove_many(py_filter& self, py::handle items) {
  refuse_static(self.filter.kind(), "remove from");
  const item_batch batch(items);
  const py::gil_scoped_release no_gil;
  const std::unique_lock lock(self.mutex);
  std::size_t removed = 0;
  for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
    for (const std::string_view item : chunk) {
      self.filter.remove(item);
      ++removed;
    }
  });
  return removed;
}

bool may_contain(const py_filter& self, py::handle item) {
  std::string scratch;
  const std::string_view bytes = item_view(item, scratch);
  const std::shared_lock lock(self.mutex);
  return self.filter.may_contain(bytes);
}

// The spec of a new filter from the Python keywords.
filter_spec make_spec(std::string_view kind, std::string_view hash, py::handle seed,
                      py::handle growth, double tightening) {
  filter_spec spec;
  spec.kind = parse_filter_kind(kind);
  spec.hash = parse_hash(hash);
  spec.seed = to_count(seed, "seed");
  spec.growth = to_count32(growth, "growth");
  spec.tightening = tightening;
  return spec;
}

filter_ptr for_capacity(py::handle capacity, double fpr, std::string_view kind,
                        std::string_view hash, py::handle seed, py::handle growth,
                        double tightening) {
  filter_spec spec = make_spec(kind, hash, seed, growth, tightening);
  spec.capacity = to_count(capacity, "capacity");
  if (spec.capacity == 0) throw py::value_error("capacity must be at least 1; got 0");
  spec.fpr = fpr;
  if (!(fpr > 0 && fpr < 1)) {
    throw py::value_error("fpr must lie strictly between 0 and 1 (e.g. 0.01 for 1%); got " +
                          std::string(py::str(py::float_(fpr))));
  }
  return wrap(make_filter(spec));
}

filter_ptr from_size(py::handle bits, py::handle hashes, std::string_view kind,
                     std::string_view hash, py::handle seed, py::handle growth, double tightening) {
  filter_spec spec = make_spec(kind, hash, seed, growth, tightening);
  spec.bits = to_count(bits, "bits");
  spec.hashes = to_count32(hashes, "hashes");
  if (spec.bits == 0) throw py::value_error("bits must be at least 1; got 0");
  if (spec.hashes == 0) throw py::value_error("hashes must be at least 1; got 0");
  return wrap(make_filter(spec));
}

// A static filter of the batch's items: their key hashes (duplicates count
// once), then the library's construction, with the GIL released.
filter_ptr build(py::handle items, std::string_view kind, py::handle seed) {
  const filter_kind k = parse_filter_kind(kind);
  if (!is_static_kind(k)) {
    throw py::value_error("BloomFilter.build builds the static kinds " +
                          filter_kind_names(&filter_kind_info::is_static) + ", not " +
                          std::string(kind) +
                          "; create that kind empty with BloomFilter.for_capacity, then add_many");
  }
  const std::uint64_t s = to_count(seed, "seed");
  const item_batch batch(items);
  const py::gil_scoped_release no_gil;
  std::vector<std::uint64_t> hashes;
  hashes.reserve(batch.size());
  for_each_chunk(batch, [&](std::size_t, std::span<const std::string_view> chunk) {
    for (const std::string_view item : chunk) hashes.push_back(fuse8_filter::key_hash(item, s));
  });
  return wrap(build_fuse_filter(k, hashes, s));
}

filter_ptr from_bytes(py::bytes data) {
  const std::string_view bytes = data;
  return wrap(deserialize_filter(bytes));
}

py::bytes to_bytes(const py_filter& self) {
  std::string bytes;
  {
    const py::gil_scoped_release no_gil;
    const std::shared_lock lock(self.mutex);
    bytes = serialize_filter(self.filter);
  }
  return py::bytes(bytes);
}

// In-place union or intersection, both filters locked (the other shared).
void combine(py_filter& self, const py_filter& other, bool intersect) {
  refuse_static(self.filter.kind(), intersect ? "intersect into" : "merge into");
  const py::gil_scoped_release no_gil;
  if (&self == &other) {
    const std::unique_lock lock(self.mutex);
    any_filter copy = self.filter;
    intersect ? self.filter.intersect(copy) : self.filter.merge(copy);
    return;
  }
  // A fixed lock order (by address) so that a |= b and b |= a in two threads
  // cannot deadlock.
  std::unique_lock<std::shared_mutex> mine(self.mutex, std::defer_lock);
  std::shared_lock<std::shared_mutex> theirs(other.mutex, std::defer_lock);
  if (&self < &other) {
    mine.lock();
    theirs.lock();
  } else {
    theirs.lock();
    mine.lock();
  }
  intersect ? self.filter.intersect(other.filter) : self.filter.merge(other.filter);
}

filter_ptr combined(const py_filter& a, const py_filter& b, bool intersect) {
  filter_ptr result;
  {
    const py::gil_scoped_release no_gil;
    const std::shared_lock lock(a.mutex);
    result = wrap(owned_copy(a.filter));
  }
  combine(*result, b, intersect);
  return result;
}

std::string repr(const py_filter& self) {
  const std::shared_lock lock(self.mutex);
  const any_filter& f = self.filter;
  return "BloomFilter(kind='" + std::string(filter_kind_name(f.kind())) +
         "', bits=" + std::to_string(f.bits()) + ", hashes=" + std::to_string(f.hashes()) +
         ", hash='" + std::string(hash_name(f.hash())) + "', seed=" + std::to_string(f.seed()) +
         ", items_added=" + std::to_string(f.items_added()) +
         (f.read_only() ? ", read_only=True)" : ")");
}

void bind_stats(py::module_& m) {
  py::class_<filter_stats>(m, "FilterStats",
                           "What a filter says about itself (BloomFilter.stats()); the numbers "
                           "`ringbloom bloom info` prints.")
      .def_property_readonly(
          "kind", [](const filter_stats& s) { return std::string(filter_kind_name(s.kind)); })
      .def_property_readonly("hash",
                             [](const filter_stats& s) { return std::string(hash_name(s.hash)); })
      .def_readonly("seed", &filter_stats::seed)
      .def_readonly("bits", &filter_stats::bits, "m: bits (counters of a counting filter)")
      .def_readonly("hashes", &filter_stats::hashes, "k (the first layer's, scalable)")
      .def_readonly("layers", &filter_stats::layers)
      .def_readonly("items_added", &filter_stats::items_added)
      .def_readonly("bits_set", &filter_stats::bits_set)
      .def_readonly("fill_ratio", &filter_stats::fill_ratio)
      .def_readonly("expected_fpr", &filter_stats::expected_fpr,
                    "The false-positive rate computed from the bits as they are now")
      .def_readonly("estimated_items", &filter_stats::estimated_items,
                    "Swamidass-Baldi estimate of the distinct items added")
      .def_readonly("memory_bytes", &filter_stats::memory_bytes)
      .def("__repr__", [](const filter_stats& s) {
        return "FilterStats(kind='" + std::string(filter_kind_name(s.kind)) +
               "', bits=" + std::to_string(s.bits) + ", hashes=" + std::to_string(s.hashes) +
               ", layers=" + std::to_string(s.layers) +
               ", items_added=" + std::to_string(s.items_added) +
               ", fill_ratio=" + std::string(py::repr(py::float_(s.fill_ratio))) +
               ", expected_fpr=" + std::string(py::repr(py::float_(s.expected_fpr))) + ")";
      });
}

// size_for and fpr_for answer for the Bloom kinds; a fuse filter has no
// (bits, hashes) to choose.
void refuse_sizing(filter_kind kind) {
  const filter_kind_info& info = filter_kind_of(kind);
  if (!info.is_static) return;
  throw py::value_error(std::string("a ") + std::string(info.name) +
                        " filter is not sized by (bits, hashes): BloomFilter.build sizes it from "
                        "its key count and its rate is fixed (1/" +
                        std::to_string(std::uint64_t{1} << info.cell_bits) +
                        "); size_for and fpr_for answer for the kinds that are created empty");
}

void bind_sizing(py::module_& m) {
  m.def(
      "size_for",
      [](py::handle capacity, double fpr, std::string_view kind) {
        const std::uint64_t n = to_count(capacity, "capacity");
        const filter_kind k = parse_filter_kind(kind);
        refuse_sizing(k);
        const filter_size size = filter_size_for(k, n, fpr);
        return py::make_tuple(size.bits, size.hashes);
      },
      py::arg("capacity"), py::arg("fpr"), py::arg("kind") = default_kind_name(),
      "(bits, hashes) of the smallest filter of `kind` that holds `capacity` items at rate "
      "`fpr` (the classic sizing for classic, counting and a scalable filter's first layer).");
  m.def(
      "fpr_for",
      [](double items, py::handle bits, py::handle hashes, std::string_view kind) {
        const std::uint64_t m_bits = to_count(bits, "bits");
        const std::uint32_t k = to_count32(hashes, "hashes");
        if (m_bits == 0 || k == 0) throw py::value_error("bits and hashes must be at least 1");
        const filter_kind fk = parse_filter_kind(kind);
        refuse_sizing(fk);
        return filter_fpr_for(fk, items, m_bits, k);
      },
      py::arg("items"), py::arg("bits"), py::arg("hashes"), py::arg("kind") = default_kind_name(),
      "The false-positive rate of a filter of `kind` with `bits` bits and `hashes` hashes after "
      "`items` distinct items, by the library's formula.");
}

}  // namespace

void bind_filter(py::module_& m) {
  bind_stats(m);
  bind_sizing(m);
  py::class_<py_filter>(m, "BloomFilter", R"doc(
A Bloom filter of any kind: "fast" (the default: the fastest adds and
lookups, one bit per 64-bit word of a 512-bit block, one cache line a lookup,
k = 8 or 16), "blocked64" (k bits anywhere in a 512-bit block: a lower rate
in the same memory, any k up to 16), "blocked1024" (the densest: 1024-bit
blocks, fewer bits for the same rate, two cache lines a lookup), "blocked"
(blocked64's layout placed by a 128-bit hash, for a hash other than xxh3),
"classic", "counting" or "scalable", all created empty; kind= also takes the
roles "default" (fast), "densest" (blocked1024) and "textbook" (classic), and
the filter then says the kind's own name; or a static "fuse8" / "fuse16" /
"fuse8-4wise" filter built once from its whole key set (BloomFilter.build),
which takes no change after. Answers "definitely not" (False) or "maybe"
(True); never a false negative. Items are str (hashed as UTF-8) or bytes: "a"
and b"a" are the same item. Files are those of the CLI and the C++ library.

    f = ringbloom.BloomFilter.for_capacity(1_000_000, 0.01)
    f.add("user:42")
    assert "user:42" in f
    answers = f.may_contain_many(np.array([b"user:42", b"user:43"]))
)doc")
      .def(py::init(&from_size), py::arg("bits"), py::arg("hashes"),
           py::arg("kind") = default_kind_name(), py::arg("hash") = "xxh3", py::arg("seed") = 0,
           py::arg("growth") = 2, py::arg("tightening") = 0.5,
           "An empty filter of exactly `bits` bits (counters for counting; rounded up to 512 for "
           "blocked) and `hashes` hashes. ValueError for a size out of range.")
      .def_static("for_capacity", &for_capacity, py::arg("capacity"), py::arg("fpr"),
                  py::arg("kind") = default_kind_name(), py::arg("hash") = "xxh3",
                  py::arg("seed") = 0, py::arg("growth") = 2, py::arg("tightening") = 0.5,
                  "An empty filter that, holding `capacity` distinct items, answers 'maybe' for "
                  "others with probability about `fpr`. A scalable filter grows past capacity "
                  "by `growth` with each layer's rate tightened by `tightening`.")
      .def_static(
          "load", [](const std::filesystem::path& path) { return wrap(load_filter(path)); },
          py::arg("path"), "Reads and verifies a filter file. OSError, ringbloom.DataError.")
      .def_static(
          "open_mapped",
          [](const std::filesystem::path& path) { return wrap(open_filter_mapped(path)); },
          py::arg("path"),
          "Opens a filter file read-only through mmap (lookups read the page cache; the "
          "checksum is verified once). Changing it raises ValueError; copy() gives a writable "
          "copy.")
      .def_static("build", &build, py::arg("keys"), py::arg("kind") = "fuse8", py::arg("seed") = 0,
                  "A static filter (kind fuse8, fuse16 or fuse8-4wise) of every key of `keys` (an "
                  "iterable or numpy array, as add_many takes), as `ringbloom bloom create --kind "
                  "fuse8 --from` builds it: about 9 (fuse8), 18 (fuse16) or 8.6 (fuse8-4wise) bits "
                  "per key for a large key set, rate 1/256, 1/65536 or 1/256. It takes no change "
                  "after: rebuild it from the whole key set.")
      .def_static("from_bytes", &from_bytes, py::arg("data"),
                  "A filter from a file's bytes (to_bytes()). ringbloom.DataError if corrupt.")
      .def_static(
          "add_to_file",
          [](const std::filesystem::path& path, py::handle items) {
            const item_batch batch(items);
            const py::gil_scoped_release no_gil;
            update_filter_file(path, [&](any_filter& f) {
              refuse_static(f.kind(), "add to");
              for_each_chunk(
                  batch, [&](std::size_t, std::span<const std::string_view> c) { f.add_many(c); });
            });
            return batch.size();
          },
          py::arg("path"), py::arg("items"),
          "Adds items to a filter file under an exclusive lock and saves it atomically, as "
          "`ringbloom bloom add` does: concurrent adders (threads or processes) lose nothing. "
          "Returns the number of items given.")
      .def(
          "save",
          [](const py_filter& self, const std::filesystem::path& path) {
            const py::gil_scoped_release no_gil;
            const std::shared_lock lock(self.mutex);
            save_filter(path, self.filter);
          },
          py::arg("path"), "Saves atomically (temporary file, fsync, rename). OSError.")
      .def("to_bytes", &to_bytes, "The file format's bytes.")
      .def(
          "copy",
          [](const py_filter& self) {
            const std::shared_lock lock(self.mutex);
            return wrap(owned_copy(self.filter));
          },
          "A writable copy (also of a mapped filter).")
      .def(
          "add",
          [](py_filter& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            refuse_static(self.filter.kind(), "add to");
            const std::unique_lock lock(self.mutex);
            self.filter.add(bytes);
          },
          py::arg("item"), "Adds one item (str or bytes).")
      .def("may_contain", &may_contain, py::arg("item"),
           "False: the item was definitely never added. True: it may have been.")
      .def("__contains__", &may_contain, py::arg("item"))
      .def("add_many", &add_many, py::arg("items"),
           "Adds every item of an iterable, or of a numpy array of dtype S<w> or uint64 (see "
           "docs/python.md), with the GIL released.")
      .def("may_contain_many", &may_contain_many, py::arg("items"),
           "may_contain for every item, as a numpy bool array, with the GIL released.")
      .def(
          "remove",
          [](py_filter& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            refuse_static(self.filter.kind(), "remove from");
            const std::unique_lock lock(self.mutex);
            self.filter.remove(bytes);
          },
          py::arg("item"),
          "Counting filters only: removes one item. ValueError if it was never added, or for "
          "another kind.")
      .def("remove_many", &remove_many, py::arg("items"),
           "remove for every item, in order; stops at the first that fails (ValueError), the "
           "earlier ones removed.")
      .def(
          "explain",
          [](const py_filter& self, py::handle item) {
            std::string scratch;
            const std::string_view bytes = item_view(item, scratch);
            const std::shared_lock lock(self.mutex);
            py::list probes;
            for (const bit_probe& p : self.filter.explain(bytes)) {
              probes.append(py::make_tuple(p.layer, p.position, p.value));
            }
            return probes;
          },
          py::arg("item"),
          "The item's k probes as (layer, position, value) tuples: value is the bit, or the "
          "counter of a counting filter.")
      .def(
          "words",
          [](const py_filter& self) {
            const std::shared_lock lock(self.mutex);
            const std::span<const std::uint64_t> words = self.filter.words();
            py::array_t<std::uint64_t> result(static_cast<py::ssize_t>(words.size()));
            std::copy(words.begin(), words.end(), result.mutable_data());
            return result;
          },
          "A copy of the bit array as uint64 words: bit p is bit p % 64 of word p // 64 "
          "(classic, blocked, blocked64, blocked1024, fast); counter p is bits 4 (p % 16) .. +3 of "
          "word "
          "p // 16 "
          "(counting).")
      .def(
          "stats",
          [](const py_filter& self) {
            const py::gil_scoped_release no_gil;
            const std::shared_lock lock(self.mutex);
            return self.filter.stats();
          },
          "FilterStats: fill, expected rate, estimated items, memory.")
      .def(
          "details",
          [](const py_filter& self) {
            filter_description d;
            {
              const std::shared_lock lock(self.mutex);
              d = self.filter.describe();
            }
            py::dict out;
            for (const auto& field : d.fields) {
              out[py::str(std::string(field.name))] = std::visit(
                  [](const auto& v) -> py::object {
                    using V = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<V, std::vector<filter_layer_detail>>) {
                      py::list layers;
                      for (const filter_layer_detail& l : v) {
                        layers.append(
                            py::dict(py::arg("bits") = l.bits, py::arg("hashes") = l.hashes,
                                     py::arg("items") = l.items, py::arg("capacity") = l.capacity));
                      }
                      return layers;
                    } else {
                      return py::cast(v);
                    }
                  },
                  field.value);
            }
            return out;
          },
          "The facts of the filter's kind beyond stats(), as `ringbloom bloom info --json` "
          "adds them: saturated_counters (counting); static, slots, bits_per_item (fuse8, "
          "fuse16, fuse8-4wise); target_fpr, growth, tightening, layer_details (scalable); {} for "
          "the others.")
      .def_property_readonly(
          "kind",
          [](const py_filter& self) { return std::string(filter_kind_name(self.filter.kind())); })
      .def_property_readonly(
          "hash", [](const py_filter& self) { return std::string(hash_name(self.filter.hash())); })
      .def_property_readonly("seed", [](const py_filter& self) { return self.filter.seed(); })
      .def_property_readonly("bits", [](const py_filter& self) { return self.filter.bits(); })
      .def_property_readonly("hashes", [](const py_filter& self) { return self.filter.hashes(); })
      .def_property_readonly("items_added",
                             [](const py_filter& self) {
                               const std::shared_lock lock(self.mutex);
                               return self.filter.items_added();
                             })
      .def_property_readonly("read_only",
                             [](const py_filter& self) { return self.filter.read_only(); })
      .def(
          "__ior__",
          [](py_filter& self, const py_filter& other) -> py_filter& {
            combine(self, other, false);
            return self;
          },
          py::is_operator(), py::return_value_policy::reference)
      .def(
          "__iand__",
          [](py_filter& self, const py_filter& other) -> py_filter& {
            combine(self, other, true);
            return self;
          },
          py::is_operator(), py::return_value_policy::reference)
      .def(
          "__or__", [](const py_filter& a, const py_filter& b) { return combined(a, b, false); },
          py::is_operator())
      .def(
          "__and__", [](const py_filter& a, const py_filter& b) { return combined(a, b, true); },
          py::is_operator())
      .def(
          "__eq__",
          [](const py_filter& a, const py_filter& b) {
            if (&a == &b) return true;
            const py::gil_scoped_release no_gil;
            const std::shared_lock la(a.mutex);
            const std::shared_lock lb(b.mutex);
            return a.filter == b.filter;
          },
          py::is_operator())
      .def("__repr__", &repr)
      .def(py::pickle([](const py_filter& self) { return to_bytes(self); },
                      [](const py::bytes& state) { return from_bytes(state); }));
}

}  // namespace ringbloom::python
