"""The sketches from Python: estimates within their stated bounds, batches
equal to one-at-a-time, the golden files of tests/sketch/data (written by an
independent generator), pickling, bad input. The cuckoo filter's are in
test_cuckoo.py."""

import pathlib
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ringbloom

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "sketch" / "data"

items_st = st.one_of(st.text(max_size=30), st.binary(max_size=30))


def test_hyperloglog_counts_within_its_error():
    h = ringbloom.HyperLogLog()
    assert h.add_many(f"user{i}" for i in range(100_000)) > 0
    # 0.81% standard error at precision 14: 4 sigma is 3.3%.
    assert abs(h.count() - 100_000) < 0.033 * 100_000
    assert h.precision == 14 and h.memory_bytes == 2**14 and h.mode == "native"
    assert abs(h.standard_error - 1.04 / 128) < 1e-12


@given(a=st.lists(items_st, max_size=50), b=st.lists(items_st, max_size=50))
def test_hyperloglog_union_equals_adding_both(a, b):
    ha, hb, both = ringbloom.HyperLogLog(10), ringbloom.HyperLogLog(10), ringbloom.HyperLogLog(10)
    ha.add_many(a)
    hb.add_many(b)
    both.add_many(a + b)
    assert (ha | hb) == both
    ha |= hb
    assert ha == both


def test_hyperloglog_redis_strings_match_the_golden_files():
    h = ringbloom.HyperLogLog.redis()
    h.add_many(np.array([b"user:%d" % i for i in range(100)]))
    assert h.to_redis_string("dense") == (DATA / "redis_hll_100_dense.bin").read_bytes()
    assert h.to_redis_string("sparse") == (DATA / "redis_hll_100_sparse.bin").read_bytes()
    assert ringbloom.HyperLogLog.from_redis_string(h.to_redis_string()) == h
    assert h.to_bytes() == (DATA / "hll_redis_100.rbs").read_bytes()
    assert ringbloom.HyperLogLog.load(DATA / "hll_redis_100.rbs") == h


def test_hyperloglog_pre_hashed():
    h = ringbloom.HyperLogLog()
    g = ringbloom.HyperLogLog()
    h.add_many(["a", "b"])
    g.add_hashes(np.array([g.hash_of("a"), g.hash_of(b"b")], dtype=np.uint64))
    assert h == g


def test_count_min_never_counts_low():
    c = ringbloom.CountMinSketch.for_error(0.01, 0.01)
    truth = {}
    for i in range(5000):
        item = f"i{i % 300}"
        truth[item] = truth.get(item, 0) + 1
    c.increment_many(f"i{i % 300}" for i in range(5000))
    estimates = c.estimate_many(list(truth))
    assert all(int(e) >= truth[k] for k, e in zip(truth, estimates))
    assert all(int(e) - truth[k] <= c.error_bound for k, e in zip(truth, estimates))
    assert c.total == 5000 and c.counters().shape == (c.depth, c.width)
    assert c.increment("x", 4) >= 4 and c.estimate(b"x") >= 4


def test_count_min_golden_file_and_merge():
    c = ringbloom.CountMinSketch(64, 3)
    for item, n in ((b"apple", 3), ("pear", 1), ("plum", 7), ("apple", 2)):
        c.increment(item, n)
    assert c.to_bytes() == (DATA / "cms_64x3.rbs").read_bytes()
    d = pickle.loads(pickle.dumps(c))
    d.merge(c)
    assert d.estimate("apple") >= 10 and d.total == 26
    with pytest.raises(ValueError):
        d.merge(ringbloom.CountMinSketch(32, 3))


def test_top_k_finds_the_heavy_hitters():
    t = ringbloom.TopK(3)
    stream = ["a"] * 50 + ["b"] * 30 + ["c"] * 20 + [f"x{i}" for i in range(40)]
    t.add_many(stream)
    assert [item for item, _ in t.list()] == ["a", "b", "c"]
    assert "a" in t and t.query(b"b") and "x1" not in t
    assert t.count("a") >= 40
    assert t.add("a", 5) is None
    u = pickle.loads(pickle.dumps(t))
    assert u == t and u.list() == t.list()
    assert ringbloom.TopK(2).add(b"\xff") is None
    v = ringbloom.TopK(1)
    v.add(b"\xff", 3)
    assert v.list() == [(b"\xff", 3)]  # not UTF-8: comes back as bytes


def test_files_and_bad_input(tmp_path):
    h = ringbloom.HyperLogLog(12)
    h.add("a")
    h.save(tmp_path / "h.rbs")
    assert ringbloom.HyperLogLog.load(tmp_path / "h.rbs") == h
    with pytest.raises(ringbloom.DataError, match="not a"):
        ringbloom.CountMinSketch.load(tmp_path / "h.rbs")  # a HyperLogLog file
    with pytest.raises(ringbloom.DataError):
        ringbloom.TopK.from_bytes(b"junk")
    with pytest.raises(ValueError):
        ringbloom.HyperLogLog(3)
    with pytest.raises(ValueError, match="must not be negative"):
        ringbloom.CountMinSketch(-1, 3)
    with pytest.raises(ValueError):
        ringbloom.TopK(0)
    with pytest.raises(TypeError):
        ringbloom.HyperLogLog().add(1)
    with pytest.raises(ValueError):
        ringbloom.HyperLogLog() | ringbloom.HyperLogLog(10)


def test_a_sketch_larger_than_memory_is_refused_with_a_sentence():
    # CountMinSketch(2**30, 2) needs 8 GiB. Under a 2 GiB address-space limit
    # the library refuses it before allocating, with its sentence, as the CLI
    # does; never `MemoryError: std::bad_alloc`.
    import subprocess
    import sys
    script = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "import ringbloom\n"
        "try:\n"
        "    ringbloom.CountMinSketch(2**30, 2)\n"
        "except MemoryError as e:\n"
        "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("a Count-Min sketch of 1073741824 x 2 counters needs 8.0 GiB of "
                               "memory, more than the"), r.stdout
    assert "give a smaller width or depth" in r.stdout
