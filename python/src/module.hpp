// python/src/module.hpp: the pieces of the `ringbloom._ringbloom` extension,
// one binding function per library family (python/src/<family>.cpp), and the
// argument helpers they share.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace ringbloom::python {

namespace py = pybind11;

/// Exceptions: ringbloom.DataError (a ValueError) for data_error, OSError for
/// io_error, ValueError for std::logic_error (bad arguments, a read-only
/// filter). errors.cpp.
void bind_errors(py::module_& m);
/// hash64, jump_hash (placement.cpp has the ring).
void bind_hash(py::module_& m);
/// HashRing, MovementPlan, LoadReport, KeyMovement, jump_hash_many.
void bind_placement(py::module_& m);
/// Placement (every strategy of placement/strategies.hpp), compare_strategies.
void bind_strategies(py::module_& m);
/// BloomFilter (every kind), FilterStats, the sizing helpers.
void bind_filter(py::module_& m);
/// CuckooFilter (cuckoo.cpp; the filter family's cuckoo filter).
void bind_cuckoo(py::module_& m);
/// WindowedBloomFilter (windowed.cpp: a filter that forgets, by time or count).
void bind_windowed(py::module_& m);
/// HyperLogLog, CountMinSketch, TopK (sketch.cpp).
void bind_sketch(py::module_& m);
/// TDigest, KLL (quantile.cpp).
void bind_quantile(py::module_& m);
/// MerkleTree, MerkleDiff, intersect_ranges (merkle.cpp).
void bind_merkle(py::module_& m);

/// A non-negative Python int as uint64, for sizes and counts: ValueError
/// naming `what` when negative, TypeError when not an int. (pybind11's own
/// conversion would give a TypeError for -1 that does not say which argument.)
[[nodiscard]] std::uint64_t to_count(py::handle value, const char* what);

/// to_count, also requiring value <= max.
[[nodiscard]] std::uint32_t to_count32(py::handle value, const char* what);

/// A node name given to a ring or a placement, checked when it is given by the
/// ring's rule (check_node_name: no line breaks, tabs, commas ...), so that a
/// name that could not be saved or printed one per line is refused at once
/// (ValueError); TypeError when it is not a str.
[[nodiscard]] std::string checked_name(py::handle name);

}  // namespace ringbloom::python
