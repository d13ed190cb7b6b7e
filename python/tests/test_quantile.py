"""TDigest and KLL: numpy batches, the queries, refusals, merging, files
shared with the CLI, pickling, and batches running beside other threads."""
import math
import pickle
import threading

import numpy as np
import pytest

import ringbloom


def test_tdigest_small_inputs_are_exact():
    t = ringbloom.TDigest(500)
    t.add_many(np.arange(20, dtype=np.float64))
    assert (t.count, t.min, t.max, t.sum) == (20, 0.0, 19.0, 190.0)
    assert t.quantile(0) == 0 and t.quantile(1) == 19
    assert [t.rank(x) for x in (-1, 0, 10, 19, 20)] == [-1, 0, 10, 19, 20]
    assert [t.rev_rank(x) for x in (20, 0, 10)] == [-1, 19, 9]
    assert t.by_rank(0) == 0 and t.by_rank(20) == math.inf and t.by_rev_rank(20) == -math.inf
    assert t.trimmed_mean(0.1, 0.9) == pytest.approx(9.5)


def test_tdigest_accuracy_on_lognormal():
    xs = np.random.default_rng(42).lognormal(size=200_000)
    t = ringbloom.TDigest(100)
    t.add_many(xs)
    qs = np.array([0.001, 0.01, 0.99, 0.999])
    est = t.quantile(qs)
    truth_ranks = np.searchsorted(np.sort(xs), est) / len(xs)
    # Measured under 0.0003 at these tails (tests/quantile/tdigest_test.cpp has the figures).
    assert np.all(np.abs(truth_ranks - qs) < 0.001), truth_ranks


def test_kll_rank_error_and_determinism():
    xs = np.random.default_rng(7).normal(size=100_000)
    a = ringbloom.KLL(200, seed=5)
    b = ringbloom.KLL(200, seed=5)
    a.add_many(xs)
    for x in xs[:1000]:
        b.add(float(x))
    b.add_many(xs[1000:])
    assert a.to_bytes() == b.to_bytes()
    assert a.rank_error == pytest.approx(0.01329, abs=1e-5)
    s = np.sort(xs)
    for q in (0.01, 0.5, 0.99):
        r = np.searchsorted(s, a.quantile(q)) / len(xs)
        assert abs(r - q) <= a.rank_error
    masses = a.pmf([0.0])
    assert sum(masses) == pytest.approx(1) and masses[0] == pytest.approx(0.5, abs=a.rank_error)


def test_refusals():
    t = ringbloom.TDigest()
    with pytest.raises(ValueError, match="must be a finite number, not nan"):
        t.add(float("nan"))
    with pytest.raises(ValueError, match="finite number"):
        t.add_many(np.array([1.0, np.inf]))
    assert t.count == 0
    with pytest.raises(ValueError, match="between 1 and 100000"):
        ringbloom.TDigest(0)
    with pytest.raises(ValueError, match="between 8 and 65535"):
        ringbloom.KLL(4)
    with pytest.raises(ValueError, match="between 0 and 1"):
        t.quantile(1.5)
    with pytest.raises(ValueError, match="incompatible KLL sketches"):
        ringbloom.KLL(100).merge(ringbloom.KLL(200))
    with pytest.raises(ringbloom.DataError):
        ringbloom.KLL.from_bytes(ringbloom.TDigest().to_bytes())


def test_merge_and_merged():
    a, b = ringbloom.TDigest(100), ringbloom.TDigest(200)
    a.add_many(np.arange(1000.0))
    b.add_many(np.arange(1000.0, 2000.0))
    m = ringbloom.TDigest.merged([a, b], 300)
    assert (m.count, m.compression, m.min, m.max) == (2000, 300, 0, 1999)
    a.merge(b)
    assert a.count == 2000 and a.compression == 100
    a.merge(a)
    assert a.count == 4000


def test_files_are_the_clis(tmp_path, cli):
    path = tmp_path / "lat.rbq"
    t = ringbloom.TDigest(100)
    t.add_many(np.arange(1.0, 10001.0))
    t.save(path)
    out = cli("quantile", "query", path, "--quantile", "0.5").stdout
    assert out == f"quantile 0.5: {t.quantile(0.5):g}\n"
    assert cli("quantile", "add", path, "20000").returncode == 0
    assert ringbloom.TDigest.load(path).max == 20000
    with pytest.raises(ringbloom.DataError, match="holds a t-digest, not a KLL sketch"):
        ringbloom.KLL.load(path)


def test_pickle_round_trip_goes_on_alike():
    k = ringbloom.KLL(64, seed=1)
    k.add_many(np.linspace(0, 1, 5000))
    k2 = pickle.loads(pickle.dumps(k))
    more = np.linspace(1, 2, 5000)
    k.add_many(more)
    k2.add_many(more)
    assert k.to_bytes() == k2.to_bytes()
    t = ringbloom.TDigest(50)
    t.add_many(np.arange(3000.0))
    assert pickle.loads(pickle.dumps(t)).quantile(0.9) == t.quantile(0.9)


def test_batches_beside_queries_in_threads():
    t = ringbloom.KLL(200, seed=2)
    chunk = np.arange(100_000, dtype=np.float64)

    def writer():
        for _ in range(5):
            t.add_many(chunk)

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for th in threads:
        th.start()
    while any(th.is_alive() for th in threads):
        assert t.count % 100_000 == 0  # a batch is added whole, under the lock
    for th in threads:
        th.join()
    assert t.count == 1_000_000
