"""BloomFilter from Python: every kind, items as str or bytes, batches over
iterables and numpy arrays, set operations, pickling and bad input."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ringbloom

KINDS = ["blocked", "blocked64", "blocked1024", "fast", "classic", "counting", "scalable"]

items_st = st.one_of(st.text(max_size=40), st.binary(max_size=40))


def as_bytes(item):
    return item.encode() if isinstance(item, str) else item


@pytest.mark.parametrize("kind", KINDS)
def test_added_items_are_found_and_strangers_mostly_not(kind):
    f = ringbloom.BloomFilter.for_capacity(2000, 0.01, kind=kind)
    added = [f"user{i}@example.com" for i in range(2000)]
    for item in added:
        f.add(item)
    assert all(item in f for item in added)
    strangers = [f"other{i}@example.org" for i in range(20000)]
    false_positives = sum(f.may_contain(s) for s in strangers)
    # Made for 1% at capacity: 200 expected of 20,000; 400 is > 14 sigma away.
    assert false_positives < 400
    assert f.kind == kind
    # A scalable filter skips an item some layer may already hold (a false
    # positive at that moment), so it can record fewer.
    assert f.items_added == 2000 if kind != "scalable" else 1950 < f.items_added <= 2000


@pytest.mark.parametrize("kind", KINDS)
@given(items=st.lists(items_st, max_size=60), probes=st.lists(items_st, max_size=30))
def test_no_false_negatives_in_any_form(kind, items, probes):
    f = ringbloom.BloomFilter.for_capacity(100, 0.01, kind=kind)
    f.add_many(items)
    assert all(item in f for item in items)
    assert f.may_contain_many(items).all()
    # The batch answer is the one-item answer, item for item.
    assert list(f.may_contain_many(probes)) == [f.may_contain(p) for p in probes]


@given(item=st.text(max_size=50))
def test_str_and_its_utf8_bytes_are_the_same_item(item):
    f = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="classic", hash="sha256")
    g = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="classic", hash="sha256")
    f.add(item)
    g.add(item.encode())
    assert f == g
    assert f.explain(item) == f.explain(item.encode()) == f.explain(bytearray(item.encode()))
    assert ringbloom.hash64(item) == ringbloom.hash64(item.encode())


@pytest.mark.parametrize("kind", ["blocked", "blocked64", "blocked1024", "classic"])
@given(a=st.lists(items_st, max_size=40), b=st.lists(items_st, max_size=40))
def test_union_contains_both_and_intersection_the_common(kind, a, b):
    fa = ringbloom.BloomFilter(4096, 4, kind=kind)
    fb = ringbloom.BloomFilter(4096, 4, kind=kind)
    fa.add_many(a)
    fb.add_many(b)
    union = fa | fb
    assert all(x in union for x in a + b)
    both = fa & fb
    common = {as_bytes(x) for x in a} & {as_bytes(x) for x in b}
    assert all(x in both for x in common)
    # In place, same answer.
    fa |= fb
    assert fa == union


def test_incompatible_filters_refuse_to_combine():
    a = ringbloom.BloomFilter(1024, 4, kind="classic")
    b = ringbloom.BloomFilter(2048, 4, kind="classic")
    with pytest.raises(ValueError):
        a | b
    c = ringbloom.BloomFilter(1024, 4, kind="blocked")
    with pytest.raises(ValueError):
        a |= c
    assert a == ringbloom.BloomFilter(1024, 4, kind="classic")  # unchanged


def test_numpy_fixed_width_bytes_are_the_items_numpy_shows():
    f = ringbloom.BloomFilter.for_capacity(1000, 0.001)
    keys = np.array([b"alpha", b"beta", b"", b"a\x00b"], dtype="S8")
    f.add_many(keys)
    # numpy reads each element without its trailing NULs: b"alpha", not b"alpha\0\0\0".
    for k in keys:
        assert bytes(k) in f
    assert "alpha" in f and b"a\x00b" in f
    assert f.may_contain_many(keys).all()
    strangers = np.array([f"x{i}".encode() for i in range(1000)], dtype="S8")
    assert list(f.may_contain_many(strangers)) == [f.may_contain(bytes(s)) for s in strangers]


def test_uint64_items_are_their_8_little_endian_bytes():
    f = ringbloom.BloomFilter.for_capacity(1000, 0.001)
    values = np.arange(0, 2**63, 2**63 // 500, dtype=np.uint64)
    f.add_many(values)
    assert all(int(v).to_bytes(8, "little") in f for v in values)
    g = ringbloom.BloomFilter.for_capacity(1000, 0.001)
    g.add_many([int(v).to_bytes(8, "little") for v in values])
    assert f == g
    # Big-endian or strided arrays mean the same values.
    assert f.may_contain_many(values.astype(">u8")).all()
    assert f.may_contain_many(np.repeat(values, 2)[::2]).all()


def test_str_and_object_arrays_take_the_general_path():
    f = ringbloom.BloomFilter.for_capacity(100, 0.01)
    f.add_many(np.array(["ü", "b"]))
    assert "ü" in f and b"b" in f
    assert f.may_contain_many(np.array(["ü", b"b"], dtype=object)).all()


def test_batches_accept_generators_tuples_and_buffers():
    f = ringbloom.BloomFilter.for_capacity(100, 0.01)
    f.add_many(f"g{i}" for i in range(10))
    f.add_many((bytearray(b"ba"), memoryview(b"mv")))
    assert f.may_contain_many(iter(["g0", "g9", b"ba", "mv"])).all()
    assert f.may_contain_many([]).shape == (0,)


def test_counting_filter_removes():
    f = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="counting")
    f.add_many(["anna", "bora"])
    f.remove("anna")
    assert "anna" not in f and "bora" in f
    with pytest.raises(ValueError, match="not in the filter"):
        f.remove("anna")
    assert f.remove_many(["bora"]) == 1
    assert f.items_added == 0
    blocked = ringbloom.BloomFilter.for_capacity(100, 0.01)
    with pytest.raises(ValueError, match="counting"):
        blocked.remove("x")


def test_scalable_filter_grows_past_its_capacity():
    f = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="scalable")
    f.add_many(f"k{i}" for i in range(1000))
    assert f.stats().layers > 1
    assert f.may_contain_many([f"k{i}" for i in range(1000)]).all()


def test_stats_and_sizing_agree_with_the_library_math():
    bits, hashes = ringbloom.size_for(1_000_000, 0.01, kind="classic")
    assert hashes == 7 and 9.5e6 < bits < 9.7e6  # 9.59 bits per item (bloom.hpp)
    f = ringbloom.BloomFilter(bits, hashes, kind="classic")
    s = f.stats()
    assert (s.kind, s.bits, s.hashes, s.items_added, s.bits_set) == ("classic", bits, 7, 0, 0)
    f.add_many(f"i{i}" for i in range(1000))
    s = f.stats()
    assert abs(s.estimated_items - 1000) < 50
    assert s.memory_bytes == (bits + 63) // 64 * 8
    assert ringbloom.fpr_for(1_000_000, bits, hashes, kind="classic") <= 0.01


def test_explain_and_words_show_the_bits():
    # The German lesson's walkthrough: m = 16, k = 2, SHA-256 positions.
    f = ringbloom.BloomFilter(16, 2, kind="classic", hash="sha256")
    f.add_many(["anna", "bora"])
    word = int(f.words()[0])
    assert "".join(str((word >> p) & 1) for p in range(16)) == "0001100000000001"
    assert [p for _, p, _ in f.explain("anna")] == [4, 15]
    assert [v for _, _, v in f.explain("cem")] == [0, 1]
    assert "user5" in f  # the lesson's false positive


@pytest.mark.parametrize("kind", KINDS)
def test_pickle_and_bytes_round_trip(kind):
    # blocked64, blocked1024 and fast hash with XXH3-64 only
    hash_name = "xxh3" if kind in ("blocked64", "blocked1024", "fast") else "sha256"
    f = ringbloom.BloomFilter.for_capacity(500, 0.02, kind=kind, hash=hash_name)
    f.add_many(f"p{i}" for i in range(700))
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.stats().bits_set == f.stats().bits_set
    assert ringbloom.BloomFilter.from_bytes(f.to_bytes()) == f
    h = f.copy()
    h.add("new")
    assert h != f


def test_bad_parameters_raise_value_error():
    with pytest.raises(ValueError, match="capacity must not be negative"):
        ringbloom.BloomFilter.for_capacity(-5, 0.01)
    with pytest.raises(ValueError, match="capacity must be at least 1"):
        ringbloom.BloomFilter.for_capacity(0, 0.01)
    for fpr in (0, 1, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="fpr"):
            ringbloom.BloomFilter.for_capacity(100, fpr)
    with pytest.raises(ValueError, match="bits must not be negative"):
        ringbloom.BloomFilter(-1, 3)
    with pytest.raises(ValueError):
        ringbloom.BloomFilter(1024, 17, kind="blocked")  # at most 16
    with pytest.raises(ValueError, match="kind"):
        ringbloom.BloomFilter.for_capacity(100, 0.01, kind="cuckoo-ish")
    with pytest.raises(ValueError, match="hash"):
        ringbloom.BloomFilter.for_capacity(100, 0.01, hash="crc32")
    with pytest.raises(ValueError, match="seed"):
        ringbloom.BloomFilter.for_capacity(100, 0.01, kind="blocked", hash="sha256", seed=3)
    # The default kind (fast) takes xxh3 only, and says which kind takes another hash.
    with pytest.raises(ValueError, match="use the blocked kind for another hash"):
        ringbloom.BloomFilter.for_capacity(100, 0.01, hash="sha256")
    with pytest.raises(ValueError, match="too large"):
        ringbloom.BloomFilter.for_capacity(2**70, 0.01)


def test_wrong_types_raise_type_error():
    f = ringbloom.BloomFilter.for_capacity(100, 0.01)
    for bad in (3, None, 1.5, ["a"], object()):
        with pytest.raises(TypeError, match="str or bytes"):
            f.add(bad)
        with pytest.raises(TypeError):
            bad in f
    with pytest.raises(TypeError, match="iterable of items, not a single str"):
        f.add_many("abc")
    with pytest.raises(TypeError, match="str or bytes"):
        f.add_many(["a", 2])
    with pytest.raises(TypeError):
        f.add_many(5)
    with pytest.raises(TypeError, match="dtype"):
        f.add_many(np.array([1.5, 2.5]))
    with pytest.raises(TypeError, match="dtype"):
        f.add_many(np.array([1, 2], dtype=np.int64))
    with pytest.raises(TypeError, match="one-dimensional"):
        f.add_many(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(TypeError):
        ringbloom.BloomFilter.for_capacity("100", 0.01)
    assert f.items_added == 0  # nothing half-added
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8
        f.add("\udc80")


def test_blocked64_is_its_own_kind_with_the_blocked_sizing():
    assert ringbloom.size_for(1000, 0.01, kind="blocked64") == ringbloom.size_for(
        1000, 0.01, kind="blocked")
    assert ringbloom.fpr_for(100, 1024, 6, kind="blocked64") == ringbloom.fpr_for(
        100, 1024, 6, kind="blocked")
    f = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked64")
    g = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked")
    f.add("user:1")
    g.add("user:1")
    assert f.kind == "blocked64" and "user:1" in f
    assert list(f.words()) != list(g.words())  # a 64-bit hash places items elsewhere
    assert ringbloom.BloomFilter.from_bytes(f.to_bytes()) == f
    with pytest.raises(ValueError, match="blocked64"):
        ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked64", hash="sha256")


def test_blocked1024_is_denser_than_blocked_at_equal_rate():
    bits, hashes = ringbloom.size_for(1_000_000, 0.01, kind="blocked1024")
    assert bits % 1024 == 0 and hashes == 7
    assert bits < ringbloom.size_for(1_000_000, 0.01, kind="blocked")[0]
    assert ringbloom.fpr_for(100_000, 1_000_448, 7, kind="blocked1024") < ringbloom.fpr_for(
        100_000, 1_000_448, 7, kind="blocked")
    with pytest.raises(ValueError, match="multiple of 1024"):
        ringbloom.fpr_for(100, 1536, 6, kind="blocked1024")
    f = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked1024")
    g = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked64")
    assert f.kind == "blocked1024" and f.bits % 1024 == 0
    f.add("user:1")
    f.add_many(["user:2", b"user:3"])
    assert f.may_contain_many(["user:1", "user:2", "user:3"]).all()
    assert ringbloom.BloomFilter.from_bytes(f.to_bytes()) == f
    assert pickle.loads(pickle.dumps(f)) == f
    with pytest.raises(ValueError, match="incompatible"):
        f |= g  # another kind: the placements differ
    with pytest.raises(ValueError, match="blocked1024"):
        ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked1024", hash="sha256")
    with pytest.raises(ValueError, match="remove needs a counting filter"):
        f.remove("user:1")


STATIC = ["fuse8", "fuse16", "fuse8-4wise"]


@pytest.mark.parametrize("kind", STATIC)
def test_static_filter_is_built_from_its_keys_and_answers(kind):
    keys = [f"user:{i}" for i in range(2000)]
    f = ringbloom.BloomFilter.build(keys, kind=kind)
    assert f.kind == kind and f.read_only
    assert f.may_contain_many(keys).all()  # never a false negative
    # False positives among 200,000 strangers: expected 781 (fuse8 and
    # fuse8-4wise, 1/256) and 3.1 (fuse16, 1/65536); the bounds are twice and
    # three times that.
    strangers = np.array([f"other:{i}".encode() for i in range(200_000)])
    false_positives = int(f.may_contain_many(strangers).sum())
    assert false_positives <= (9 if kind == "fuse16" else 1562)
    g = ringbloom.BloomFilter.build(np.array([k.encode() for k in keys]), kind=kind)
    assert g.to_bytes() == f.to_bytes()  # a numpy S array holds the same keys
    with_duplicates = ringbloom.BloomFilter.build(keys + keys[:10], kind=kind)
    assert with_duplicates.may_contain_many(keys).all()  # a repeated key is no error
    assert pickle.loads(pickle.dumps(f)) == f


@pytest.mark.parametrize("kind", STATIC)
def test_python_builds_the_static_filter_the_cli_builds(kind, cli, tmp_path):
    keys = [f"k{i}" for i in range(500)]
    (tmp_path / "keys.txt").write_text("\n".join(keys) + "\n")
    made = cli("bloom", "create", tmp_path / "cli.rbf", "--kind", kind, "--from",
               tmp_path / "keys.txt")
    assert made.returncode == 0, made.stderr
    ours = ringbloom.BloomFilter.build(keys, kind=kind)
    assert ours.to_bytes() == (tmp_path / "cli.rbf").read_bytes()


def changes(f, other):
    return {
        "add": lambda: f.add("x"),
        "add_many": lambda: f.add_many(["x", "y"]),
        "add_many(uint64)": lambda: f.add_many(np.array([1, 2], dtype=np.uint64)),
        "remove": lambda: f.remove("k1"),
        "remove_many": lambda: f.remove_many(["k1"]),
        "|=": lambda: f.__ior__(other),
        "&=": lambda: f.__iand__(other),
        "|": lambda: f | other,
    }


@pytest.mark.parametrize("kind", STATIC)
def test_changing_a_static_filter_raises_value_error_saying_rebuild(kind, tmp_path):
    f = ringbloom.BloomFilter.build(["k1", "k2", "k3"], kind=kind)
    before = f.to_bytes()
    for name, change in changes(f, f.copy()).items():
        with pytest.raises(ValueError, match=f"static.*BloomFilter.build\\(keys, kind='{kind}'\\)"):
            change()
        assert f.to_bytes() == before, name  # nothing changed
    f.save(tmp_path / "f.rbf")
    with pytest.raises(ValueError, match="rebuild it from the whole key set"):
        ringbloom.BloomFilter.add_to_file(tmp_path / "f.rbf", ["x"])
    assert (tmp_path / "f.rbf").read_bytes() == before  # the file is untouched
    with pytest.raises(ValueError, match="created empty"):
        ringbloom.BloomFilter.for_capacity(100, 0.01, kind=kind)
    with pytest.raises(ValueError, match="not sized by"):
        ringbloom.size_for(100, 0.01, kind=kind)
    with pytest.raises(ValueError, match="not sized by"):
        ringbloom.fpr_for(100, 1024, 3, kind=kind)
    with pytest.raises(ValueError, match="fuse filter an array of fingerprints"):
        f.words()


def test_fast_sets_eight_or_sixteen_bits_per_item():
    bits, hashes = ringbloom.size_for(1_000_000, 0.01, kind="fast")
    assert hashes == 8 and bits % 512 == 0 and 10.0 < bits / 1e6 < 10.2
    assert ringbloom.size_for(1_000_000, 1e-5, kind="fast")[1] == 16
    # A higher rate than blocked64 in the same memory, lower than 1.27%.
    assert 0.0100 < ringbloom.fpr_for(100_000, 1_000_448, 8, kind="fast") < 0.0110
    with pytest.raises(ValueError, match="multiple of 8"):
        ringbloom.fpr_for(100, 1024, 6, kind="fast")
    with pytest.raises(ValueError, match="8 or 16"):
        ringbloom.BloomFilter(4096, 6, kind="fast")
    f = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="fast")
    f.add_many(["a", "b"])
    assert f.kind == "fast" and f.hashes == 8 and f.may_contain_many(["a", "b"]).all()


def test_build_refuses_the_bloom_kinds():
    for kind in KINDS:
        with pytest.raises(ValueError, match="static kinds fuse8, fuse16 or fuse8-4wise"):
            ringbloom.BloomFilter.build(["a"], kind=kind)


def test_blocked64_takes_additions_and_refuses_removal_with_value_error():
    f = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked64")
    f.add("a")
    f.add_many(["b", "c"])
    assert f.may_contain_many(["a", "b", "c"]).all()
    f |= ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="blocked64")
    for remove in (lambda: f.remove("a"), lambda: f.remove_many(["a"])):
        with pytest.raises(ValueError, match="remove needs a counting filter.*kind counting"):
            remove()
    assert "a" in f


def test_details_are_the_kinds_own_facts():
    assert ringbloom.BloomFilter.for_capacity(100, 0.01).details() == {}
    counting = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="counting")
    counting.add("x")
    assert counting.details() == {"saturated_counters": 0}
    scalable = ringbloom.BloomFilter.for_capacity(100, 0.01, kind="scalable")
    scalable.add_many([f"item-{i}" for i in range(300)])
    d = scalable.details()
    assert d["growth"] == 2 and d["target_fpr"] == 0.01
    assert [layer["capacity"] for layer in d["layer_details"]] == [100, 200]
    assert sum(layer["items"] for layer in d["layer_details"]) == scalable.items_added
    fuse = ringbloom.BloomFilter.build([f"k{i}" for i in range(1000)], kind="fuse8")
    d = fuse.details()
    assert d["static"] is True and d["slots"] * 8 == fuse.bits


def test_role_names_make_their_kinds_and_the_filter_says_its_kind():
    dense = ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="densest")
    assert dense.kind == "blocked1024"
    assert repr(dense).startswith("BloomFilter(kind='blocked1024'")
    assert ringbloom.size_for(1000, 0.01, kind="densest") == ringbloom.size_for(
        1000, 0.01, kind="blocked1024"
    )
    lesson = ringbloom.BloomFilter(16, 2, kind="textbook", hash="sha256")
    assert lesson.kind == "classic"
    assert ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="default").kind == "fast"
    with pytest.raises(ValueError, match=r"choose default \(fast\), densest \(blocked1024\)"):
        ringbloom.BloomFilter.for_capacity(1000, 0.01, kind="Densest")


def test_default_kind_is_fast():
    # The fastest blocked kind is what a caller gets without kind=.
    assert ringbloom.BloomFilter.for_capacity(1000, 0.01).kind == "fast"
    assert ringbloom.BloomFilter(4096, 8).kind == "fast"
    assert ringbloom.size_for(1000, 0.01) == ringbloom.size_for(1000, 0.01, kind="fast")
    assert ringbloom.fpr_for(1000, 10240, 8) == ringbloom.fpr_for(1000, 10240, 8, kind="fast")
    # Its k is 8 or 16: another k given without a kind is refused, and the
    # message says what to give.
    with pytest.raises(ValueError, match="8 or 16"):
        ringbloom.BloomFilter(4096, 6)
