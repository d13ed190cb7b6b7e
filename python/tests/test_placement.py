"""HashRing and jump hashing from Python: lookups one at a time and in
batches, membership changes, analyses, topology files, pickling, bad input."""

import json
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ringbloom

# Node names as topology files accept them (topology.hpp): no control
# characters, no comma.
name_st = st.text(st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=","),
                  min_size=1, max_size=12)
names_st = st.lists(name_st, min_size=1, max_size=8, unique=True)
keys_st = st.lists(st.one_of(st.text(max_size=20), st.binary(max_size=20)), max_size=50)

KEYS = [f"key-{i}" for i in range(20000)]


def test_lookups_one_at_a_time_and_in_batches_agree():
    ring = ringbloom.HashRing(["a", "b", "c"], vnodes=50)
    one = [ring.node_for(k) for k in KEYS]
    assert ring.node_for_many(KEYS) == one
    assert ring.node_for_many(np.array([k.encode() for k in KEYS], dtype="S12")) == one
    index = ring.node_index_many(KEYS)
    assert index.dtype == np.uint32
    assert [ring.nodes[i] for i in index] == one
    hashes = ring.key_hash_many(KEYS)
    assert hashes.dtype == np.uint64
    assert list(hashes[:5]) == [ring.key_hash(k) for k in KEYS[:5]]
    # A uint64 array is taken as key hashes.
    assert ring.node_for_many(hashes) == one
    assert ring.node_for_hash(int(hashes[7])) == one[7]


@given(names=names_st, keys=keys_st, data=st.data())
def test_placement_does_not_depend_on_insertion_order(names, keys, data):
    shuffled = data.draw(st.permutations(names))
    a = ringbloom.HashRing(names, vnodes=20)
    b = ringbloom.HashRing([], vnodes=20)
    for name in shuffled:
        b.add(name)
    assert a.node_for_many(keys) == b.node_for_many(keys)
    assert a.ownership() == b.ownership()


@given(key=st.text(max_size=30))
def test_str_key_and_its_utf8_bytes_are_the_same_key(key):
    ring = ringbloom.HashRing(["x", "y", "z"])
    assert ring.node_for(key) == ring.node_for(key.encode())
    assert ring.key_hash(key) == ring.key_hash(key.encode())
    assert ring.nodes_for(key, 3) == ring.nodes_for(key.encode(), 3)


@given(names=names_st, new=name_st)
def test_adding_a_node_moves_keys_only_onto_it(names, new):
    if new in names:
        return
    before = ringbloom.HashRing(names, vnodes=30)
    after = pickle.loads(pickle.dumps(before))
    after.add(new)
    keys = KEYS[:2000]
    moved = before.moved(after, keys)
    assert set(moved.moved_to) <= {new}
    old, now = before.node_for_many(keys), after.node_for_many(keys)
    assert sum(o != n for o, n in zip(old, now)) == moved.moved
    plan = before.diff(after)
    assert all(r.to_node == new and r.first <= r.last for r in plan.ranges)
    assert 0 <= plan.moved_fraction <= 1


def test_the_german_exercise_by_hand():
    # Exercise 2: X at 20, Y at 55, Z at 90; Y fails. Hash values given.
    ring = ringbloom.HashRing()
    for name, token in (("X", 20), ("Y", 55), ("Z", 90)):
        ring.add_at(name, [token])
    hashes = [3, 21, 56, 91, 99, 54]
    before = "".join(ring.node_for_hash(h) for h in hashes)
    ring.remove("Y")
    after = "".join(ring.node_for_hash(h) for h in hashes)
    assert (before, after) == ("XYZXXY", "XZZXXZ")
    assert sum(x != y for x, y in zip(before, after)) == 2


def test_membership_weights_and_replicas():
    ring = ringbloom.HashRing({"a": 1, "b": 3})
    assert len(ring) == 2 and "a" in ring and "c" not in ring and 5 not in ring
    assert ring.weights == {"a": 1, "b": 3}
    assert ring.points == 400
    share = ring.ownership()
    assert abs(sum(share.values()) - 1) < 1e-9 and share["b"] > share["a"]
    assert ring.nodes_for("k", 5) == ring.nodes_for("k", 2)  # only two nodes
    ring.remove("a")
    assert ring.nodes == ["b"] and ring.node_for("anything") == "b"
    report = ring.load(KEYS[:100])
    assert report.keys == 100 and report.counts == {"b": 100}


def test_ketama_scheme_defaults_to_its_own_options():
    ring = ringbloom.HashRing(["10.0.0.1:11211", "10.0.0.2:11211"], scheme="ketama")
    assert (ring.scheme, ring.hash, ring.vnodes) == ("ketama", "md5", 160)
    assert ring.space_max == 2**32 - 1
    assert set(ring.node_for_many(KEYS[:100])) == {"10.0.0.1:11211", "10.0.0.2:11211"}
    with pytest.raises(ValueError):
        ringbloom.HashRing(["a:1"], scheme="ketama", hash="xxh3")


def test_lookups_match_the_cli(cli):
    ring = ringbloom.HashRing({"a": 1, "b": 1, "c": 2}, hash="sha256")
    keys = ["user:42", "user:43", "ü-key", "key-0"]
    out = cli("ring", "lookup", "--nodes", "a,b,c=2", "--hash", "sha256", "--json", *keys)
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert [a["node"] for a in answers] == [ring.node_for(k) for k in keys]


def test_topology_files_round_trip_with_the_cli(cli, tmp_path):
    path = tmp_path / "cluster.json"
    out = cli("ring", "init", path, "--nodes", "a,b=2,c", "--hash", "sha256", "--vnodes", "40")
    assert out.returncode == 0, out.stderr
    ring = ringbloom.HashRing.from_topology(path)
    assert (ring.nodes, ring.weights["b"], ring.vnodes, ring.hash) == (["a", "b", "c"], 2, 40,
                                                                       "sha256")
    ring.add("d")
    ring.save_topology(path)
    out = cli("ring", "lookup", "--ring", path, "--json", *KEYS[:20])
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)["node"] for line in out.stdout.splitlines()] == ring.node_for_many(
        KEYS[:20])
    assert ringbloom.HashRing.from_topology_json(ring.topology_json()).nodes == ring.nodes


def test_pickle_keeps_placement():
    ring = ringbloom.HashRing(["a", "b"], vnodes=7, hash="poly31")
    ring.add_at("t", [1, 2**63])
    copy = pickle.loads(pickle.dumps(ring))
    assert copy.node_for_many(KEYS[:500]) == ring.node_for_many(KEYS[:500])
    assert repr(copy) == repr(ring)


def test_jump_hash():
    keys = np.arange(1000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    buckets = ringbloom.jump_hash_many(keys, 10)
    assert list(buckets) == [ringbloom.jump_hash(int(k), 10) for k in keys]
    assert ringbloom.jump_hash(0, 1) == 0
    # Growing 10 -> 11 moves keys only into the new bucket.
    grown = ringbloom.jump_hash_many(keys, 11)
    assert set(grown[grown != buckets]) <= {10}
    with pytest.raises(ValueError):
        ringbloom.jump_hash(1, 0)
    with pytest.raises(ValueError):
        ringbloom.jump_hash(-1, 3)


def test_bad_input():
    with pytest.raises(ValueError, match="no nodes"):
        ringbloom.HashRing().node_for("k")
    with pytest.raises(ValueError, match="no nodes"):
        ringbloom.HashRing().node_for_many(["k"])
    ring = ringbloom.HashRing(["a"])
    with pytest.raises(ValueError):
        ring.add("a")  # duplicate
    with pytest.raises(ValueError):
        ring.remove("zz")
    with pytest.raises(ValueError, match="weight must not be negative"):
        ring.add("b", -1)
    with pytest.raises(ValueError):
        ring.add("b", 0)
    with pytest.raises(ValueError, match="vnodes must not be negative"):
        ringbloom.HashRing(["a"], vnodes=-3)
    with pytest.raises(ValueError):
        ringbloom.HashRing(["a"], vnodes=0)
    with pytest.raises(ValueError, match="scheme"):
        ringbloom.HashRing(["a"], scheme="maglev-ish")
    with pytest.raises(TypeError, match="not one str"):
        ringbloom.HashRing("abc")
    with pytest.raises(TypeError, match="str or bytes"):
        ring.node_for(42)
    with pytest.raises(TypeError, match="node name must be a str"):
        ringbloom.HashRing([1, 2])
    with pytest.raises(ringbloom.DataError):
        ringbloom.HashRing.from_topology_json('{"format": "nope"}')
    with pytest.raises(OSError):
        ringbloom.HashRing.from_topology("/nonexistent/ringbloom/topology.json")
    assert ring.nodes == ["a"]  # every failed change left the ring as it was


@pytest.mark.parametrize("bad", ["a\nb", "a\tb", "a,b", "a\rb", ""])
def test_node_names_are_checked_when_given(bad):
    # The ring's rule (no line breaks, tabs, commas ...), as the CLI and the
    # topology files apply it: refused at once, not when the ring is saved.
    rule = "a name is 1 to"
    with pytest.raises(ValueError, match=rule):
        ringbloom.HashRing([bad])
    with pytest.raises(ValueError, match=rule):
        ringbloom.HashRing({bad: 2})
    ring = ringbloom.HashRing(["ok"])
    with pytest.raises(ValueError, match=rule):
        ring.add(bad)
    with pytest.raises(ValueError, match=rule):
        ring.add_at(bad, [5])
    assert ring.nodes == ["ok"]
    with pytest.raises(ValueError, match=rule):
        ringbloom.Placement("maglev", [bad, "ok"])
    with pytest.raises(ValueError, match=rule):
        ringbloom.Placement("rendezvous", {bad: 1.0})
    p = ringbloom.Placement("maglev", ["ok", "fine"])
    with pytest.raises(ValueError, match=rule):
        p.add(bad)
    with pytest.raises(TypeError, match="a node name must be a str, not int"):
        ringbloom.HashRing({5: 1})


@pytest.mark.parametrize("call", [
    lambda: ringbloom.HashRing(["a"]).node_for_many(np.array([1.5, 2.5])),
    lambda: ringbloom.HashRing(["a"]).node_index_many(np.array([1, 2], dtype=np.int64)),
    lambda: ringbloom.Placement("maglev", ["a", "b"]).node_for_many(np.array([1.5])),
    lambda: ringbloom.Placement("jump", ["a", "b"]).node_index_many(np.array([1.5])),
    lambda: ringbloom.BloomFilter.for_capacity(100, 0.01).add_many(np.array([1.5])),
    lambda: ringbloom.BloomFilter.for_capacity(100, 0.01).may_contain_many(np.array([1.5])),
    lambda: ringbloom.CuckooFilter(100).add_many(np.array([1.5])),
    lambda: ringbloom.HyperLogLog().add_many(np.array([1.5])),
])
def test_float_and_signed_arrays_are_a_type_error(call):
    # docs/python.md: other dtypes (int64, float) raise TypeError rather than guess.
    with pytest.raises(TypeError, match=r"astype\(np\.uint64\)"):
        call()
