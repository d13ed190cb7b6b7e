"""Filter files shared with the CLI and the C++ library: written by one, read
by the other, both ways; the golden files; corrupt and missing files."""

import json
import pathlib
import threading

import pytest

import ringbloom

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "filter" / "data"


def build_golden(name):
    """The filters of tests/filter/data, built as tests/filter/filter_file_test.cpp
    builds them (those files come from an independent writer, bloom_golden.py)."""
    if name == "german_classic_sha256.rbf":
        f = ringbloom.BloomFilter(16, 2, kind="classic", hash="sha256")
        f.add_many(["anna", "bora"])
    elif name == "german_exercise_classic_sha256.rbf":
        f = ringbloom.BloomFilter(8000, 7, kind="classic", hash="sha256")
        f.add_many(f"user{i}@example.com" for i in range(1000))
    elif name == "lab11_classic_poly31.rbf":
        f = ringbloom.BloomFilter(1000, 3, kind="classic", hash="poly31")
        f.add_many(f"key-{i}" for i in range(100))
    elif name == "classic_xxh3.rbf":
        f = ringbloom.BloomFilter(4096, 5, kind="classic")
        f.add_many(f"a{i}" for i in range(50))
    elif name == "blocked_xxh3.rbf":
        f = ringbloom.BloomFilter(2048, 8, kind="blocked")
        f.add_many(f"b{i}" for i in range(50))
    elif name == "counting_sha256.rbf":
        f = ringbloom.BloomFilter(64, 3, kind="counting", hash="sha256")
        f.add_many(["anna", "bora", "cem", "anna"])
        f.remove("bora")
    elif name == "counting_xxh3.rbf":
        f = ringbloom.BloomFilter(200, 4, kind="counting")
        f.add_many(["anna", "bora", "cem", "anna"])
        f.remove("bora")
    elif name == "scalable_xxh3.rbf":
        f = ringbloom.BloomFilter.for_capacity(10, 0.1, kind="scalable")
        f.add_many(f"k{i}" for i in range(40))
    else:
        assert name == "scalable_sha256.rbf"
        f = ringbloom.BloomFilter.for_capacity(10, 0.1, kind="scalable", hash="sha256")
        f.add_many(f"k{i}" for i in range(40))
    return f


GOLDEN = ["german_classic_sha256.rbf", "german_exercise_classic_sha256.rbf",
          "lab11_classic_poly31.rbf", "classic_xxh3.rbf", "blocked_xxh3.rbf",
          "counting_sha256.rbf", "scalable_sha256.rbf", "counting_xxh3.rbf", "scalable_xxh3.rbf"]


@pytest.mark.parametrize("name", GOLDEN)
def test_python_writes_the_golden_bytes(name, tmp_path):
    f = build_golden(name)
    golden = (DATA / name).read_bytes()
    assert f.to_bytes() == golden
    f.save(tmp_path / name)
    assert (tmp_path / name).read_bytes() == golden
    assert ringbloom.BloomFilter.load(DATA / name) == f
    assert ringbloom.BloomFilter.open_mapped(DATA / name) == f


def test_cli_writes_python_reads(cli, tmp_path):
    path = tmp_path / "users.rbf"
    out = cli("bloom", "create", path, "--capacity", "1000", "--fpr", "0.01", "--kind", "counting")
    assert out.returncode == 0, out.stderr
    out = cli("bloom", "add", path, input="anna\nbora\nü-name\n")
    assert out.returncode == 0, out.stderr
    f = ringbloom.BloomFilter.load(path)
    assert f.kind == "counting" and f.items_added == 3
    assert "anna" in f and b"bora" in f and "ü-name" in f and "cem" not in f
    info = json.loads(cli("bloom", "info", path, "--json").stdout)
    stats = f.stats()
    assert info["bits"] == stats.bits and info["hashes"] == stats.hashes


def test_python_writes_cli_reads(cli, tmp_path):
    path = tmp_path / "py.rbf"
    f = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked", hash="sha256")
    f.add_many(["anna", b"bora"])
    f.save(path)
    assert cli("bloom", "check", path, "anna", "bora").returncode == 0
    assert cli("bloom", "check", path, "cem").returncode == 1  # definitely absent
    # Python adds to the file under the same lock the CLI takes.
    assert ringbloom.BloomFilter.add_to_file(path, ["cem"]) == 1
    assert cli("bloom", "check", path, "cem").returncode == 0


def test_concurrent_adders_to_one_file_lose_nothing(tmp_path):
    path = tmp_path / "shared.rbf"
    ringbloom.BloomFilter.for_capacity(10000, 0.01).save(path)

    def adder(t):
        for batch in range(5):
            ringbloom.BloomFilter.add_to_file(path, [f"t{t}-{batch}-{i}" for i in range(20)])

    threads = [threading.Thread(target=adder, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    f = ringbloom.BloomFilter.load(path)
    assert f.items_added == 4 * 5 * 20
    assert f.may_contain_many([f"t{t}-{b}-{i}" for t in range(4) for b in range(5)
                               for i in range(20)]).all()


def test_mapped_filter_is_read_only_and_copies_out(tmp_path):
    path = tmp_path / "m.rbf"
    f = ringbloom.BloomFilter.for_capacity(100, 0.01)
    f.add("x")
    f.save(path)
    view = ringbloom.BloomFilter.open_mapped(path)
    assert view.read_only and "x" in view and view.may_contain_many(["x"]).all()
    with pytest.raises(ValueError, match="read-only"):
        view.add("y")
    with pytest.raises(ValueError, match="read-only"):
        view.add_many(["y"])
    writable = view.copy()
    writable.add("y")
    assert not writable.read_only and "y" in writable
    union = view | writable
    assert "y" in union and not union.read_only


def test_corrupt_truncated_and_foreign_files_raise_data_error(tmp_path):
    good = (DATA / "german_exercise_classic_sha256.rbf").read_bytes()
    flipped = bytearray(good)
    flipped[200] ^= 0x10
    cases = {"flipped": bytes(flipped), "truncated": good[:100], "empty": b"",
             "foreign": b"PK\x03\x04 not a filter at all"}
    for name, data in cases.items():
        with pytest.raises(ringbloom.DataError):
            ringbloom.BloomFilter.from_bytes(data)
        path = tmp_path / f"{name}.rbf"
        path.write_bytes(data)
        with pytest.raises(ringbloom.DataError) as error:
            ringbloom.BloomFilter.load(path)
        assert isinstance(error.value, ValueError)
        with pytest.raises(ringbloom.DataError):
            ringbloom.BloomFilter.open_mapped(path)


def test_io_failures_raise_os_error(tmp_path):
    with pytest.raises(OSError, match="nonexistent"):
        ringbloom.BloomFilter.load(tmp_path / "nonexistent.rbf")
    with pytest.raises(OSError):
        ringbloom.BloomFilter.for_capacity(10, 0.1).save(tmp_path / "no" / "such" / "dir.rbf")
    with pytest.raises(OSError):
        ringbloom.BloomFilter.add_to_file(tmp_path / "missing.rbf", ["a"])
