"""ringbloom: consistent hashing, filters and sketches, from the C++ library.

The same structures, the same placements and the same files as the C++
library and the ``ringbloom`` command line, at C++ speed for batches::

    import ringbloom
    ring = ringbloom.HashRing(["cache-a", "cache-b", "cache-c"])
    ring.node_for("user:42")

    f = ringbloom.BloomFilter.for_capacity(1_000_000, 0.01)
    f.add("user:42")
    "user:42" in f           # True: never a false negative

Items and keys are ``str`` (hashed as their UTF-8 bytes) or ``bytes``;
``"a"`` and ``b"a"`` are the same item. Batch calls (``add_many``,
``may_contain_many``, ``node_for_many`` ...) take any iterable, and take
numpy arrays of dtype ``S<w>`` or ``uint64`` without a Python object per
item, with the GIL released. Errors: ``ValueError`` for bad arguments,
``ringbloom.DataError`` (a ``ValueError``) for corrupt or foreign files,
``OSError`` for I/O. docs/python.md has the whole guide.
"""

from ringbloom._ringbloom import (
    BloomFilter,
    CountMinSketch,
    CuckooFilter,
    DataError,
    FilterStats,
    HashRing,
    HyperLogLog,
    KLL,
    KeyDifference,
    KeyMovement,
    LoadReport,
    MerkleDiff,
    MerkleTree,
    MovedRange,
    MovementPlan,
    Placement,
    TDigest,
    TopK,
    WindowedBloomFilter,
    __version__,
    compare_strategies,
    fpr_for,
    hash64,
    import_config,
    intersect_ranges,
    jump_hash,
    jump_hash_many,
    measure_change,
    parse_nodes,
    placement_kinds,
    size_for,
)

__all__ = [
    "BloomFilter",
    "CountMinSketch",
    "CuckooFilter",
    "DataError",
    "FilterStats",
    "HashRing",
    "HyperLogLog",
    "KLL",
    "KeyDifference",
    "KeyMovement",
    "LoadReport",
    "MerkleDiff",
    "MerkleTree",
    "MovedRange",
    "MovementPlan",
    "Placement",
    "TDigest",
    "TopK",
    "WindowedBloomFilter",
    "__version__",
    "compare_strategies",
    "fpr_for",
    "hash64",
    "import_config",
    "intersect_ranges",
    "jump_hash",
    "jump_hash_many",
    "measure_change",
    "parse_nodes",
    "placement_kinds",
    "size_for",
]
