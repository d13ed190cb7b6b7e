#!/usr/bin/env python3
"""The Python bindings' speed, against C++ and against pure Python, in one run.

    cmake --build build/release --target ringbloom_python ringbloom_python_baseline
    PYTHONPATH=build/release/python /usr/bin/python3 python/bench/bench_python.py \
        --baseline build/release/python/ringbloom_python_baseline

Prints one table (and --json writes the numbers). Each timing is the best of
a few runs; the machine and the command are printed with it. The goals are
those of docs/performance.md, "Python bindings".
"""

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
import timeit
import tracemalloc

import numpy as np

import ringbloom


def best(fn, runs=3):
    """The best wall time of fn() over `runs` runs, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def s16_keys(n):
    """key-0 .. key-(n-1) as a numpy S16 array (the items the C++ baseline uses)."""
    return np.char.add(b"key-", np.arange(n).astype("S12")).astype("S16")


# The German lesson's Bloom filter (exercise 1), as the lesson writes it.
def positionen(item, k, m):
    return [int.from_bytes(hashlib.sha256(f"{i}:{item}".encode()).digest()[:8], "big") % m
            for i in range(k)]


class LessonBloom:
    def __init__(self, m, k):
        self.m, self.k = m, k
        self.bits = bytearray(m)

    def add(self, item):
        for p in positionen(item, self.k, self.m):
            self.bits[p] = 1

    def __contains__(self, item):
        return all(self.bits[p] for p in positionen(item, self.k, self.m))


def rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bench_batches(n, baseline):
    cpp = json.loads(subprocess.run([baseline, str(n)], capture_output=True, text=True,
                                    check=True).stdout)
    keys = s16_keys(n)
    f = ringbloom.BloomFilter.for_capacity(n, 0.01)
    add = best(lambda: f.add_many(keys), runs=1) / n * 1e9
    lookup = best(lambda: f.may_contain_many(keys)) / n * 1e9
    assert f.may_contain_many(keys).all()
    list_n = min(n, 2_000_000)
    strs = [k.decode() for k in keys[:list_n].tolist()]
    lookup_list = best(lambda: f.may_contain_many(strs)) / list_n * 1e9

    ring = ringbloom.HashRing([f"n{i}" for i in range(1, 11)])
    ring_index = best(lambda: ring.node_index_many(keys)) / n * 1e9
    ring_names = best(lambda: ring.node_for_many(keys)) / n * 1e9
    node_for = ring.node_for
    loop_keys = strs[:1_000_000]
    ring_loop = best(lambda: [node_for(k) for k in loop_keys]) / len(loop_keys) * 1e9
    one_call = min(timeit.repeat(lambda: node_for("key-12345"), number=200_000, repeat=5))
    one_call = one_call / 200_000 * 1e9
    return {
        "keys": n,
        "cpp": cpp,
        "bloom_add_many_s16_ns": add,
        "bloom_may_contain_many_s16_ns": lookup,
        "bloom_may_contain_many_list_str_ns": lookup_list,
        "list_keys": list_n,
        "ring_node_index_many_s16_ns": ring_index,
        "ring_node_for_many_s16_ns": ring_names,
        "ring_node_for_loop_ns": ring_loop,
        "ring_node_for_call_ns": one_call,
    }


def bench_threads(n):
    keys = s16_keys(n)
    f = ringbloom.BloomFilter.for_capacity(n, 0.01)
    f.add_many(keys)

    def threaded(count):
        chunks = np.array_split(keys, count)
        threads = [threading.Thread(target=f.may_contain_many, args=(c,)) for c in chunks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    one = best(lambda: threaded(1))
    two = best(lambda: threaded(2))
    four = best(lambda: threaded(4))
    return {"threads_1_s": one, "threads_2_s": two, "threads_4_s": four,
            "speedup_2": one / two, "speedup_4": one / four, "cpus": os.cpu_count()}


def bench_vs_python(n):
    items = [f"user{i}@example.com" for i in range(n)]
    others = [f"other{i}@example.org" for i in range(n)]
    bits, hashes = ringbloom.size_for(n, 0.01, kind="classic")
    out = {"items": n, "bits": bits, "hashes": hashes}

    # Times without tracemalloc (tracing slows every allocation); memory
    # measured apart, by building the same structure again under tracing.
    lesson = LessonBloom(bits, hashes)
    t = time.perf_counter()
    for x in items:
        lesson.add(x)
    out["lesson_add_ns"] = (time.perf_counter() - t) / n * 1e9
    t = time.perf_counter()
    hits = sum(x in lesson for x in others)
    out["lesson_lookup_ns"] = (time.perf_counter() - t) / n * 1e9
    out["lesson_fpr"] = hits / n
    del lesson
    tracemalloc.start()
    lesson = LessonBloom(bits, hashes)
    out["lesson_bytes"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del lesson

    t = time.perf_counter()
    exact = set(items)
    out["set_add_ns"] = (time.perf_counter() - t) / n * 1e9
    t = time.perf_counter()
    sum(x in exact for x in others)
    out["set_lookup_ns"] = (time.perf_counter() - t) / n * 1e9
    del exact
    tracemalloc.start()
    exact = set(items)
    # The set's own bytes; the str items it refers to are counted apart.
    out["set_bytes"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    out["items_bytes"] = sum(sys.getsizeof(x) for x in items)
    del exact

    for kind in ("classic", "blocked"):
        f = ringbloom.BloomFilter.for_capacity(n, 0.01, kind=kind)
        t = time.perf_counter()
        f.add_many(items)
        out[f"{kind}_add_many_ns"] = (time.perf_counter() - t) / n * 1e9
        t = time.perf_counter()
        answers = f.may_contain_many(others)
        out[f"{kind}_lookup_many_ns"] = (time.perf_counter() - t) / n * 1e9
        t = time.perf_counter()
        for x in items[:200_000]:
            f.add(x)
        out[f"{kind}_add_one_ns"] = (time.perf_counter() - t) / 200_000 * 1e9
        t = time.perf_counter()
        sum(x in f for x in others[:200_000])
        out[f"{kind}_lookup_one_ns"] = (time.perf_counter() - t) / 200_000 * 1e9
        out[f"{kind}_fpr"] = float(answers.mean())
        out[f"{kind}_bytes"] = f.stats().memory_bytes
    return out


def print_batches(b):
    c = b["cpp"]
    print(f"\n{b['keys']:,} keys, ns per key        Python   C++   ratio  goal")
    rows = [
        ("bloom add_many (S16)", b["bloom_add_many_s16_ns"], c["bloom_add_many_ns"], ""),
        ("bloom may_contain_many (S16)", b["bloom_may_contain_many_s16_ns"],
         c["bloom_may_contain_many_ns"], "<= 2x"),
        ("ring node_index_many (S16)", b["ring_node_index_many_s16_ns"], c["ring_batch_ns"],
         "<= 2x"),
        ("ring node_for_many (S16, names)", b["ring_node_for_many_s16_ns"], c["ring_batch_ns"],
         "<= 2x"),
    ]
    for name, py, cpp, goal in rows:
        print(f"{name:32} {py:7.1f} {cpp:6.1f} {py / cpp:6.2f}x  {goal}")
    print(f"{'bloom may_contain_many (list str)':32} {b['bloom_may_contain_many_list_str_ns']:7.1f}"
          f"   ({b['list_keys']:,} keys)      <= 150 ns")
    print(f"{'ring node_for, one call':32} {b['ring_node_for_call_ns']:7.1f}"
          f" {c['ring_node_for_ns']:6.1f}          <= 300 ns")
    print(f"{'ring node_for, Python for loop':32} {b['ring_node_for_loop_ns']:7.1f}")


def print_vs_python(v):
    print(f"\n{v['items']:,} items at 1%, ns per item      add   lookup   memory (bytes)  fpr")
    print(f"{'lesson Bloom (pure Python)':28} {v['lesson_add_ns']:7.0f} {v['lesson_lookup_ns']:8.0f}"
          f" {v['lesson_bytes']:14,} {v['lesson_fpr']:.4f}")
    print(f"{'Python set':28} {v['set_add_ns']:7.0f} {v['set_lookup_ns']:8.0f}"
          f" {v['set_bytes']:14,}  exact (+{v['items_bytes']:,} of str items)")
    for kind in ("classic", "blocked"):
        print(f"{'ringbloom ' + kind + ' (batch)':28} {v[kind + '_add_many_ns']:7.0f}"
              f" {v[kind + '_lookup_many_ns']:8.0f} {v[kind + '_bytes']:14,} {v[kind + '_fpr']:.4f}")
        print(f"{'ringbloom ' + kind + ' (one by one)':28} {v[kind + '_add_one_ns']:7.0f}"
              f" {v[kind + '_lookup_one_ns']:8.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="the ringbloom_python_baseline program")
    parser.add_argument("--keys", type=int, default=10_000_000)
    parser.add_argument("--vs-python-keys", type=int, default=1_000_000)
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--sections", default="batches,threads,python",
                        help="comma-separated: batches, threads, python")
    args = parser.parse_args()

    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, ringbloom "
          f"{ringbloom.__version__}, numpy {np.__version__}")
    print("# " + " ".join(sys.argv))
    sections = set(args.sections.split(","))
    result = {}
    if "batches" in sections:
        if not args.baseline:
            parser.error("--baseline is needed for the batches section")
        result["batches"] = bench_batches(args.keys, args.baseline)
        print_batches(result["batches"])
    if "threads" in sections:
        result["threads"] = t = bench_threads(args.keys // 2)
        print(f"\nmay_contain_many on 1/2/4 threads: {t['threads_1_s']:.3f} / "
              f"{t['threads_2_s']:.3f} / {t['threads_4_s']:.3f} s (speed-up "
              f"x{t['speedup_2']:.2f} / x{t['speedup_4']:.2f} on {t['cpus']} CPUs)")
    if "python" in sections:
        result["vs_python"] = bench_vs_python(args.vs_python_keys)
        print_vs_python(result["vs_python"])
    print(f"\nmax RSS {rss_bytes() / 2**20:.0f} MiB")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
