"""The windowed filter from Python: the golden files of tests/filter/data
(written by tests/filter/bloom_golden.py, an independent generator), times as
seconds, numpy datetime64 and datetime, batches equal to one-at-a-time, the
CLI's files, pickling, bad input."""

import datetime
import os
import pathlib
import pickle
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ringbloom

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "filter" / "data"
W = ringbloom.WindowedBloomFilter


def golden_time():
    f = W.for_time(30, 300, 0.01)
    for i in range(60):
        f.add(f"w{i}", 1000 + 0.9 * i)
    f.add("late", 1030.5)
    return f


def test_golden_files_are_written_and_read():
    f = golden_time()
    assert f.to_bytes() == (DATA / "windowed_time_xxh3.rbw").read_bytes()
    assert W.load(DATA / "windowed_time_xxh3.rbw") == f
    c = W.for_count(90, 1e-5)
    c.add_many([f"n{i}" for i in range(130)])
    assert c.to_bytes() == (DATA / "windowed_count_xxh3.rbw").read_bytes()
    assert c.window_kind == "count" and c.items_in_window() == 100


def test_time_window_remembers_then_forgets():
    f = W.for_time(60, 1000, 0.01)
    f.add("anna", 1000.0)
    assert f.may_contain("anna", 1060.0)
    assert not f.may_contain("anna", 1081.0)  # past 60 * 4/3 = 80 s
    assert not f.test_and_add("bora", 1090)
    assert f.test_and_add("bora", 1091)
    assert f.items_added == 3 and f.latest_time == 1091
    assert f.window == 60 and f.capacity == 1000 and f.target_fpr == 0.01
    assert f.overfull_generations(1091) == 0
    assert 0 <= f.expected_fpr(1091) < 0.01
    assert "window=60.0" in repr(f)


def test_times_as_datetime64_and_datetime_equal_seconds():
    base = np.datetime64("2024-03-01T12:00:00", "s")
    seconds = float(base.astype("datetime64[s]").astype(np.int64))
    a, b, c = W.for_time(600, 100), W.for_time(600, 100), W.for_time(600, 100)
    a.add("x", seconds + 1.5)
    b.add("x", base + np.timedelta64(1500, "ms"))
    c.add("x", datetime.datetime.fromtimestamp(seconds + 1.5, tz=datetime.timezone.utc))
    assert a == b == c
    stamps = base + np.arange(5) * np.timedelta64(1, "s")
    d, e = W.for_time(600, 100), W.for_time(600, 100)
    d.add_many(["p", "q", "r", "s", "t"], stamps)
    e.add_many(["p", "q", "r", "s", "t"], seconds + np.arange(5, dtype=np.float64))
    assert d == e and d.latest_time == seconds + 4


@settings(max_examples=40, deadline=None)
@given(keys=st.lists(st.integers(0, 60), max_size=300), step=st.floats(0.0, 3.0))
def test_batches_equal_one_at_a_time(keys, step):
    items = [f"k{k}" for k in keys]
    times = 5000 + step * np.arange(len(items), dtype=np.float64)
    single, batch = W.for_time(20, 50, 0.01), W.for_time(20, 50, 0.01)
    expect = [single.test_and_add(item, float(t)) for item, t in zip(items, times)]
    seen = batch.test_and_add_many(items, times)
    assert seen.dtype == np.bool_ and seen.tolist() == expect
    assert batch == single
    if items:
        at = float(times[-1])
        assert batch.may_contain_many(items, at).tolist() == [
            single.may_contain(i, at) for i in items]


def test_count_window_batches_and_numpy_items():
    f = W.for_count(1000, 0.01)
    keys = np.arange(3000, dtype=np.uint64)
    assert f.test_and_add_many(keys[:1000]).sum() <= 30  # new, but for the 1% rate
    assert f.may_contain_many(keys[:1000]).all()
    f.add_many(keys[1000:3000])
    # 2000 insertions later the first 1000 are forgotten, but for the rate.
    assert f.may_contain_many(keys[:1000]).sum() <= 30
    assert f.may_contain_many(keys[2000:]).all()


def test_pickle_and_bytes_round_trip():
    f = golden_time()
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.may_contain("late", 1040)
    assert W.from_bytes(f.to_bytes()) == f


def test_files_shared_with_the_cli(tmp_path):
    path = tmp_path / "clicks.rbw"
    W.for_time(60, 1000, 0.01).save(path)
    W.add_to_file(path, ["a", "b"], 1000.0)
    W.add_to_file(path, ["c", "d"], [1001.0, 1002.0])
    f = W.load(path)
    assert f.items_added == 4 and f.latest_time == 1002.0
    cli = os.environ.get("RINGBLOOM_CLI")
    if cli:
        out = subprocess.run([cli, "bloom", "check", str(path), "a", "d", "z", "--at", "1010"],
                             capture_output=True, text=True, check=False)
        assert out.returncode == 1 and out.stdout == "a\tmaybe\nd\tmaybe\nz\tno\n"
        subprocess.run([cli, "bloom", "add", str(path), "e", "--at", "1020"], check=True,
                       capture_output=True)
        assert W.load(path).may_contain("e", 1020)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="window"):
        W.for_time(0, 10)
    with pytest.raises(ValueError, match="capacity"):
        W.for_time(60, -1)
    with pytest.raises(ValueError, match="rate"):
        W.for_count(10, 1.5)
    f = W.for_time(60, 100)
    f.add("x", 1000)
    with pytest.raises(ValueError, match="more than one window"):
        f.add("y", 900)
    with pytest.raises(ValueError, match="NaT"):
        f.add("y", np.datetime64("NaT"))
    with pytest.raises(ValueError, match="finite"):
        f.add("y", float("nan"))
    with pytest.raises(TypeError, match="time"):
        f.add("y", "noon")
    with pytest.raises(ValueError, match="one number or datetime64 per item"):
        f.add_many(["a", "b"], [1000.0])
    with pytest.raises(ringbloom.DataError):
        W.from_bytes(b"\x89RBW\r\n\x1a\n" + bytes(200))
    bad = bytearray(golden_time().to_bytes())
    bad[300] ^= 1
    with pytest.raises(ringbloom.DataError, match="checksum"):
        W.from_bytes(bytes(bad))
