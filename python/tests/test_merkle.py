"""MerkleTree from Python: incremental updates, diffs that find exactly the
changed ranges, ring ranges, files shared with `ringbloom merkle`."""

import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ringbloom

ROWS = {f"key-{i}": f"value-{i}" for i in range(2000)}


def test_insertion_order_and_str_bytes_do_not_matter():
    a = ringbloom.MerkleTree(depth=10)
    b = ringbloom.MerkleTree(depth=10)
    assert a.add_many(ROWS) == 2000
    from_generator = ringbloom.MerkleTree(depth=10)
    assert from_generator.add_many((k, v) for k, v in ROWS.items()) == 2000
    assert from_generator == a
    for k, v in reversed(list(ROWS.items())):
        b.add(k.encode(), v)
    assert a == b and a.root == b.root and a.rows == 2000
    assert not a.diff(b)


@given(changed=st.sets(st.integers(0, 1999), min_size=1, max_size=20))
def test_diff_finds_exactly_the_leaves_of_the_changed_rows(changed):
    a = ringbloom.MerkleTree(depth=12)
    b = ringbloom.MerkleTree(depth=12)
    a.add_many(ROWS)
    b.add_many(ROWS)
    for i in changed:
        b.update(f"key-{i}", f"value-{i}", "changed")
    d = a.diff(b)
    expected = sorted({a.leaf_of(a.key_position(f"key-{i}")) for i in changed})
    assert d.leaves == expected
    for i in changed:
        pos = a.key_position(f"key-{i}")
        assert any(first <= pos <= last for first, last in d.ranges)
    assert d.digests_exchanged >= 1
    # Undoing the changes restores the tree exactly.
    for i in changed:
        b.update(f"key-{i}", "changed", f"value-{i}")
    assert a == b


def test_ring_ranges_limit_a_tree():
    ring = ringbloom.HashRing(["a", "b", "c"], vnodes=20)
    mine = ring.owned_ranges("a", replicas=2)
    shared = ringbloom.intersect_ranges(mine, ring.owned_ranges("b", replicas=2))
    assert shared and all(f <= l for f, l in shared)
    t = ringbloom.MerkleTree(depth=8, ranges=shared)
    added = t.add_many(ROWS)
    inside = sum(any(f <= ring.key_hash(k) <= l for f, l in shared) for k in ROWS)
    assert added == inside == t.rows
    other = ringbloom.MerkleTree(depth=8)
    with pytest.raises(ValueError):
        t.diff(other)  # different ranges


def test_files_round_trip_with_the_cli(cli, tmp_path):
    rows = tmp_path / "rows.tsv"
    rows.write_text("".join(f"{k}\t{v}\n" for k, v in ROWS.items()))
    out = cli("merkle", "build", rows, "-o", tmp_path / "cli.rbm", "--depth", "10")
    assert out.returncode == 0, out.stderr
    from_cli = ringbloom.MerkleTree.load(tmp_path / "cli.rbm")
    ours = ringbloom.MerkleTree(depth=10)
    ours.add_many(ROWS)
    assert from_cli == ours
    assert ringbloom.MerkleTree.from_rows_file(rows, depth=10) == ours
    ours.save(tmp_path / "py.rbm")
    info = json.loads(cli("merkle", "info", tmp_path / "py.rbm", "--json").stdout)
    assert info["rows"] == 2000 and ours.root in json.dumps(info)
    assert pickle.loads(pickle.dumps(ours)) == ours


def test_bad_input(tmp_path):
    with pytest.raises(ValueError):
        ringbloom.MerkleTree(depth=0)
    with pytest.raises(ValueError):
        ringbloom.MerkleTree(depth=-1)
    with pytest.raises(ValueError):
        ringbloom.MerkleTree(key_hash="nope")
    with pytest.raises(ringbloom.DataError):
        ringbloom.MerkleTree.from_bytes(b"not a tree")
    with pytest.raises(OSError):
        ringbloom.MerkleTree.load(tmp_path / "missing.rbm")
    bad = tmp_path / "bad.tsv"
    bad.write_text("no tab here\n")
    with pytest.raises(ringbloom.DataError, match="TAB"):
        ringbloom.MerkleTree.from_rows_file(bad)
    t = ringbloom.MerkleTree(depth=4)
    with pytest.raises(TypeError):
        t.add("k", 5)
    with pytest.raises(ValueError):
        t.add_many([("k",)])
    with pytest.raises(ValueError):
        t.remove("never", "added")  # its leaf has no rows
    assert t.rows == 0


def write_rows(path, rows):
    path.write_text("".join(f"{k}\t{v}\n" for k, v in rows.items()))


def replica_b():
    """ROWS with 3 keys changed, 2 removed, 2 added, and a value with a TAB."""
    b = dict(ROWS)
    for i in (5, 700, 1999):
        b[f"key-{i}"] = f"new\tvalue-{i}"
    del b["key-17"], b["key-1234"]
    b["key-extra-1"] = "x"
    b["key-extra-2"] = "y"
    return b


def as_cli_json(keys):
    return [{"key": k.key, "change": k.change, "value_a": k.value_a, "value_b": k.value_b}
            for k in keys]


def test_differing_keys_match_the_cli_diff_rows(cli, tmp_path):
    b_rows = replica_b()
    write_rows(tmp_path / "a.tsv", ROWS)
    write_rows(tmp_path / "b.tsv", b_rows)
    for side in "ab":
        out = cli("merkle", "build", tmp_path / f"{side}.tsv", "-o", tmp_path / f"{side}.rbm",
                  "--depth", "8")
        assert out.returncode == 0, out.stderr
    out = cli("merkle", "diff", tmp_path / "a.rbm", tmp_path / "b.rbm", "--rows-a",
              tmp_path / "a.tsv", "--rows-b", tmp_path / "b.tsv", "--json")
    assert out.returncode == 1, out.stderr  # 1: the trees differ
    from_cli = json.loads(out.stdout)["keys"]
    assert len(from_cli) == 7

    a = ringbloom.MerkleTree.load(tmp_path / "a.rbm")
    b = ringbloom.MerkleTree.load(tmp_path / "b.rbm")
    from_files = a.differing_keys(b, tmp_path / "a.tsv", str(tmp_path / "b.tsv"))
    assert as_cli_json(from_files) == from_cli
    # Rows in memory (a dict, pairs, a generator) give the same keys as the files.
    assert a.differing_keys(b, ROWS, list(b_rows.items())) == from_files
    assert a.differing_keys(b, ((k, v) for k, v in ROWS.items()), b_rows) == from_files
    changes = {k.key: k.change for k in from_files}
    assert changes["key-5"] == "changed" and changes["key-17"] == "only-in-a"
    assert changes["key-extra-1"] == "only-in-b"
    assert next(k for k in from_files if k.key == "key-700").value_b == "new\tvalue-700"


def test_differing_keys_of_equal_trees_is_empty_without_reading_rows(tmp_path):
    a = ringbloom.MerkleTree(depth=6)
    a.add_many(ROWS)
    same = ringbloom.MerkleTree(depth=6)
    same.add_many(ROWS)
    assert a.differing_keys(same, tmp_path / "never.tsv", tmp_path / "read.tsv") == []


def test_differing_keys_refuse_rows_that_are_not_the_trees(tmp_path):
    a = ringbloom.MerkleTree(depth=6)
    a.add_many(ROWS)
    b_rows = replica_b()
    b = ringbloom.MerkleTree(depth=6)
    b.add_many(b_rows)
    stale = dict(b_rows)
    stale["key-5"] = "not what b was built from"
    with pytest.raises(ringbloom.DataError, match="leaf"):
        a.differing_keys(b, ROWS, stale)
    write_rows(tmp_path / "b.tsv", b_rows)
    with open(tmp_path / "b.tsv", "a") as f:
        f.write("key-5\tnew\tvalue-5\n")  # key-5 twice
    with pytest.raises(ringbloom.DataError, match=r"b\.tsv.*key-5.*twice"):
        a.differing_keys(b, ROWS, tmp_path / "b.tsv")
    with pytest.raises(OSError):
        a.differing_keys(b, ROWS, tmp_path / "missing.tsv")
    with pytest.raises(ValueError):
        a.differing_keys(ringbloom.MerkleTree(depth=7), ROWS, ROWS)  # another depth
    with pytest.raises(TypeError):
        a.differing_keys(b, ROWS, [("k", 5)])
