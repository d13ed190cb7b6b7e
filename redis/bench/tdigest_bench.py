#!/usr/bin/python3
"""TDIGEST.* of ringbloom.so against another module that has them (RedisBloom,
built by you outside this repository), each in its own stock redis-server on
127.0.0.1, same machine, same run (docs/performance.md, "Quantiles"):

  - accuracy: the same streams of 10^6 values (uniform, normal, lognormal,
    Pareto 1.5, sorted, reverse-sorted), compression 100, each added in
    commands of 1,000 values; the rank error of TDIGEST.QUANTILE at
    q = 0.5, 0.9, 0.99, 0.999 against the sorted stream, over 3 seeds
    (mean, and min..max as the run-to-run spread);
  - speed: TDIGEST.ADD with 1 value and with 100 values per command: server
    time per value (INFO commandstats usec_per_call / values) and values/s
    seen by a pipelining client;
  - memory per sketch: MEMORY USAGE (the module's own report), and INFO
    used_memory and used_memory_rss growth per key, of 1,000 digests of
    compression 100 holding 10,000 values each (used_memory sees only what
    a module allocates through RedisModule_Alloc; RSS sees everything).

  redis/bench/tdigest_bench.py --peer /path/to/redisbloom.so [build/release/redis/ringbloom.so]
      [--values N] [--seeds S] [--quick]

Ratios within one run are what to compare; absolute times depend on the load.
"""
import argparse
import bisect
import os
import random
import time

from bench_server import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QS = (0.5, 0.9, 0.99, 0.999)
STREAMS = ("uniform", "normal", "lognormal", "pareto", "sorted", "reverse-sorted")


def stream(kind, n, seed):
    rng = random.Random(seed)
    if kind == "uniform":
        return [rng.random() * 1000 for _ in range(n)]
    if kind == "normal":
        return [rng.gauss(0, 1) for _ in range(n)]
    if kind == "lognormal":
        return [rng.lognormvariate(0, 1) for _ in range(n)]
    if kind == "pareto":
        return [rng.paretovariate(1.5) for _ in range(n)]
    if kind == "sorted":
        return [float(i) for i in range(n)]
    if kind == "reverse-sorted":
        return [float(n - 1 - i) for i in range(n)]
    raise ValueError(kind)


def rank_error(sorted_xs, value, q):
    n = len(sorted_xs)
    lo = bisect.bisect_left(sorted_xs, value) / n
    hi = bisect.bisect_right(sorted_xs, value) / n
    return lo - q if q < lo else (q - hi if q > hi else 0.0)


def fill(r, key, encoded, per_command):
    pipe = r.pipeline(transaction=False)
    for i in range(0, len(encoded), per_command):
        pipe.execute_command("TDIGEST.ADD", key, *encoded[i:i + per_command])
        if (i // per_command) % 200 == 199:
            pipe.execute()
    pipe.execute()


def accuracy(servers, values, seeds):
    # errors[name][stream][q] -> list over seeds
    errors = {name: {s: {q: [] for q in QS} for s in STREAMS} for name in servers}
    for kind in STREAMS:
        for seed in range(1, seeds + 1):
            xs = stream(kind, values, seed)
            encoded = [repr(x).encode() for x in xs]
            xs.sort()
            for name, srv in servers.items():
                r = srv.r
                r.delete("acc")
                r.execute_command("TDIGEST.CREATE", "acc", "COMPRESSION", "100")
                fill(r, "acc", encoded, 1000)
                answers = r.execute_command("TDIGEST.QUANTILE", "acc", *QS)
                for q, a in zip(QS, answers):
                    errors[name][kind][q].append(abs(rank_error(xs, float(a), q)))
    return errors


def commandstats(r, command):
    stats = r.info("commandstats").get(f"cmdstat_{command}", {})
    return stats.get("calls", 0), stats.get("usec", 0)


def speed(srv, per_command, total):
    r = srv.r
    r.delete("speed")
    r.execute_command("TDIGEST.CREATE", "speed", "COMPRESSION", "100")
    rng = random.Random(9)
    encoded = [repr(rng.lognormvariate(0, 1)).encode() for _ in range(total)]
    r.config_resetstat()
    start = time.perf_counter()
    fill(r, "speed", encoded, per_command)
    wall = time.perf_counter() - start
    calls, usec = commandstats(r, "tdigest.add")
    return usec / (calls * per_command) * 1000, total / wall  # ns per value, values/s


def memory(srv, keys, values_per_key):
    r = srv.r
    r.flushall()
    time.sleep(0.5)
    start = r.info("memory")
    before, rss_before = start["used_memory"], start["used_memory_rss"]
    rng = random.Random(5)
    encoded = [repr(rng.lognormvariate(0, 1)).encode() for _ in range(values_per_key)]
    pipe = r.pipeline(transaction=False)
    for k in range(keys):
        pipe.execute_command("TDIGEST.CREATE", f"m{k}", "COMPRESSION", "100")
    pipe.execute()
    for k in range(keys):
        fill(r, f"m{k}", encoded, 1000)
    end = r.info("memory")
    usage = r.memory_usage("m0")
    return usage, (end["used_memory"] - before) / keys, (end["used_memory_rss"] - rss_before) / keys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", required=True, help="the other module (RedisBloom's redisbloom.so)")
    ap.add_argument("module", nargs="?",
                    default=os.path.join(ROOT, "build", "release", "redis", "ringbloom.so"))
    ap.add_argument("--values", type=int, default=1_000_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="10^5 values, 1 seed, fewer keys")
    a = ap.parse_args()
    if a.quick:
        a.values, a.seeds = 100_000, 1
    servers = {"ringbloom": Server(a.module), "RedisBloom": Server(a.peer)}
    try:
        print(f"# {os.uname().nodename}, load {os.getloadavg()[0]:.1f}, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        print(f"\n## Accuracy: |rank error| of TDIGEST.QUANTILE, compression 100, "
              f"{a.values} values, {a.seeds} seeds: mean (min..max)\n")
        errors = accuracy(servers, a.values, a.seeds)
        print("| stream | q | ringbloom | RedisBloom |\n|---|---|---|---|")
        for kind in STREAMS:
            for q in QS:
                cells = []
                for name in servers:
                    e = errors[name][kind][q]
                    cells.append(f"{sum(e) / len(e):.6f} ({min(e):.6f}..{max(e):.6f})")
                print(f"| {kind} | {q} | {cells[0]} | {cells[1]} |")
        total = 20_000 if a.quick else 200_000
        print(f"\n## TDIGEST.ADD speed ({total} values; server ns per value from "
              f"commandstats, client values/s pipelined)\n")
        print("| values per command | ringbloom ns/value | RedisBloom ns/value | ratio | "
              "ringbloom values/s | RedisBloom values/s |\n|---|---|---|---|---|---|")
        for per in (1, 100):
            res = {name: speed(srv, per, total) for name, srv in servers.items()}
            rb, peer = res["ringbloom"], res["RedisBloom"]
            print(f"| {per} | {rb[0]:.0f} | {peer[0]:.0f} | {peer[0] / rb[0]:.2f}x | "
                  f"{rb[1]:,.0f} | {peer[1]:,.0f} |")
        keys, per_key = (100, 10_000) if a.quick else (1000, 10_000)
        print(f"\n## Memory per digest (compression 100, {per_key} values, {keys} keys)\n")
        print("| module | MEMORY USAGE | used_memory growth per key | RSS growth per key |\n"
              "|---|---|---|---|")
        for name, srv in servers.items():
            usage, growth, rss = memory(srv, keys, per_key)
            print(f"| {name} | {usage} | {growth:.0f} | {rss:.0f} |")
    finally:
        for srv in servers.values():
            srv.stop()


if __name__ == "__main__":
    main()
