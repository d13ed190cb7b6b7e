"""Threads: batch calls release the GIL, so several threads are inside one
filter or ring at once. Answers must stay right and nothing may crash while
other threads read, add, or change the ring."""

import threading

import numpy as np

import ringbloom

N = 200_000


def run_threads(target, count):
    errors = []

    def guarded(*args):
        try:
            target(*args)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread did not finish in 120 s"
    assert not errors, errors


def test_concurrent_batch_lookups_give_the_single_thread_answers():
    keys = np.char.add(b"key-", np.arange(N).astype("S10")).astype("S16")
    f = ringbloom.BloomFilter.for_capacity(N, 0.01)
    f.add_many(keys[: N // 2])
    expected = f.may_contain_many(keys)
    assert expected[: N // 2].all()

    def reader(_):
        for _ in range(5):
            assert np.array_equal(f.may_contain_many(keys), expected)

    run_threads(reader, 4)


def test_adders_and_readers_at_once_never_lose_an_item():
    f = ringbloom.BloomFilter.for_capacity(4 * N, 0.01, kind="classic")
    first = [f"first-{i}" for i in range(N)]
    f.add_many(first)

    def worker(i):
        if i % 2 == 0:
            f.add_many(np.array([f"w{i}-{j}".encode() for j in range(N // 4)]))
        else:
            for _ in range(3):
                assert f.may_contain_many(first).all()

    run_threads(worker, 4)
    assert f.items_added == N + 2 * (N // 4)
    assert f.may_contain_many([f"w{i}-{j}" for i in (0, 2) for j in range(N // 4)]).all()


def test_set_operations_between_threads_do_not_deadlock():
    a = ringbloom.BloomFilter(1 << 16, 8)
    b = ringbloom.BloomFilter(1 << 16, 8)
    a.add("a")
    b.add("b")

    def worker(i):
        for _ in range(200):
            if i % 2 == 0:
                a.__ior__(b)
            else:
                b.__ior__(a)

    run_threads(worker, 4)
    assert "a" in b and "b" in a


def test_ring_changes_under_batch_lookups():
    ring = ringbloom.HashRing([f"n{i}" for i in range(8)])
    keys = np.array([f"k{i}".encode() for i in range(N)])
    stop = threading.Event()

    def changer():
        i = 0
        while not stop.is_set() and i < 2000:
            ring.add(f"extra{i}")
            ring.remove(f"extra{i}")
            i += 1

    thread = threading.Thread(target=changer)
    thread.start()
    try:
        for _ in range(10):
            index = ring.node_index_many(keys)
            # Every answer names a node of the ring the batch started with:
            # the 8 nodes, or the one extra node present at that moment.
            assert index.max() <= 8
    finally:
        stop.set()
        thread.join(timeout=120)
    assert ring.nodes == [f"n{i}" for i in range(8)]
