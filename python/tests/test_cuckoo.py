"""The cuckoo filter from Python: adds and removes, the golden file of
tests/filter/data (written by tests/filter/cuckoo_golden.py, an independent
generator), batches equal to one-at-a-time, pickling, bad input."""

import pathlib
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ringbloom

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "filter" / "data"

items_st = st.one_of(st.text(max_size=30), st.binary(max_size=30))


def test_cuckoo_filter_adds_removes_and_matches_the_golden_file():
    c = ringbloom.CuckooFilter(64, bucket_size=4, fingerprint_bits=12)
    assert c.add_many([b"anna", "bora", "cleo", "dana", "emil"]) == 5
    assert c.to_bytes() == (DATA / "cuckoo_64_b4_f12.rbc").read_bytes()
    assert ringbloom.CuckooFilter.load(DATA / "cuckoo_64_b4_f12.rbc") == c
    assert c.may_contain_many(["anna", "emil"]).all()
    assert c.remove("anna") and "anna" not in c and c.items == 4
    assert not c.add_if_absent("bora")
    assert pickle.loads(pickle.dumps(c)) == c


@given(items=st.lists(items_st, max_size=80, unique=True))
def test_cuckoo_no_false_negatives(items):
    c = ringbloom.CuckooFilter(200)
    stored = c.add_many(items)
    assert stored == len(items)
    assert c.may_contain_many(items).all()
    assert list(c.may_contain_many(items)) == [c.may_contain(i) for i in items]


def test_cuckoo_files_and_bad_input(tmp_path):
    with pytest.raises(ringbloom.DataError):
        ringbloom.CuckooFilter.from_bytes(b"\x89RBC" + b"\x00" * 60)
    with pytest.raises(OSError):
        ringbloom.CuckooFilter.load(tmp_path / "missing.rbc")
    path = tmp_path / "c.rbc"
    ringbloom.CuckooFilter(100).save(path)
    assert ringbloom.CuckooFilter.add_to_file(path, ["x", "y"]) == 2
    assert "x" in ringbloom.CuckooFilter.load(path)
    with pytest.raises(ValueError):
        ringbloom.CuckooFilter(100, bucket_size=256)


def test_a_filter_larger_than_memory_is_refused_with_a_sentence():
    # 10^12 items need 1 TiB of fingerprints: refused before allocating, with
    # the library's sentence (the CLI's check), never `std::bad_alloc`.
    with pytest.raises(MemoryError, match=r"a cuckoo filter of capacity 1000000000000 needs "
                                          r"1\.0 TiB of memory, more than the .*; give a smaller "
                                          r"capacity"):
        ringbloom.CuckooFilter(10**12)
