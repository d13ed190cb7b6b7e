#!/usr/bin/python3
"""Memory per value against another module with RedisBloom's commands
(docs/performance.md, "Redis module: memory against RedisBloom").

    redis/bench/peer_memory.py OURS.so PEER.so [--quick]

Each module runs in its own redis-server (same configuration, 127.0.0.1, a
temporary directory, stopped by PID). For each case, INFO used_memory is read
before and after creating COUNT keys the same way on both servers; the table
gives the bytes per key (the keys' own dictionary entries are in both) and
MEMORY USAGE of one of them. Each case first makes and deletes one key, so that
the client's buffers are grown before the first reading. Building the peer is left to the reader (it is
never built or kept in this repository).
"""
import os
import sys

from bench_server import Server

QUICK = "--quick" in sys.argv
paths = [a for a in sys.argv[1:] if not a.startswith("--")]
if len(paths) != 2:
    raise SystemExit(__doc__)


def used(r):
    return r.info("memory")["used_memory"]


def measure(r, count, make):
    """Bytes per key of `count` keys made by make(pipe, key), and MEMORY USAGE of one."""
    r.flushall()
    # One key made and deleted first, so that the client's buffers and the
    # allocator's state are the same before and after (else they land in
    # the first keys' bytes, thousands of bytes per key for the big rows).
    pipe = r.pipeline(transaction=False)
    make(pipe, "warm-up")
    pipe.delete("warm-up")
    pipe.execute()
    before = used(r)
    for start in range(0, count, 200):
        pipe = r.pipeline(transaction=False)
        for i in range(start, min(count, start + 200)):
            make(pipe, f"k{i}")
        pipe.execute()
    per_key = (used(r) - before) / count
    usage = r.memory_usage("k0", samples=0)
    r.flushall()
    return per_key, usage


def bf_auto(n):
    items = [f"item{i}" for i in range(n)]
    return lambda p, k: p.execute_command("BF.MADD", k, *items)


def bf_reserve(rate, capacity, fill):
    items = [f"item{i}" for i in range(fill)]

    def make(p, k):
        p.execute_command("BF.RESERVE", k, rate, capacity)
        for i in range(0, fill, 1000):
            p.execute_command("BF.MADD", k, *items[i:i + 1000])
    return make


def cmd(*args):
    return lambda p, k: p.execute_command(args[0], k, *args[1:])


small = 300 if QUICK else 3000
cases = [
    ("BF.ADD-created, 1 item", small, bf_auto(1)),
    ("BF.ADD-created, 10 items", small, bf_auto(10)),
    ("BF.ADD-created, 100 items", small, bf_auto(100)),
    ("BF.ADD-created, 1000 items (several layers)", small // 10, bf_auto(1000)),
]
for rate in ("0.1", "0.01", "0.001", "0.0001", "0.00001", "0.000001"):
    cases.append((f"BF.RESERVE {rate} 100000, full", 3 if QUICK else 10,
                  bf_reserve(rate, 100000, 100000)))
cases += [
    ("BF.RESERVE 0.01 1000, 10000 items (5 layers)", 30, bf_reserve("0.01", 1000, 10000)),
    ("CF.RESERVE 1000000", 3, cmd("CF.RESERVE", "1000000")),
    ("CF.RESERVE 1000", small // 10, cmd("CF.RESERVE", "1000")),
    ("CF.ADD-created (1024), 1 item", small // 10, cmd("CF.ADD", "x")),
    ("CMS.INITBYDIM 2000 5", small // 10, cmd("CMS.INITBYDIM", "2000", "5")),
    ("CMS.INITBYPROB 0.001 0.01", small // 10, cmd("CMS.INITBYPROB", "0.001", "0.01")),
    ("TOPK.RESERVE 10 (8 x 7)", small // 10, cmd("TOPK.RESERVE", "10")),
    ("TOPK.RESERVE 100 2000 7 0.9", small // 10, cmd("TOPK.RESERVE", "100", "2000", "7", "0.9")),
]

ours, peer = Server(paths[0]), Server(paths[1])
try:
    print(f"# {paths[0]} against {paths[1]}; redis-server "
          f"{ours.r.info('server')['redis_version']}; load {os.getloadavg()[0]:.1f}")
    print("| case | keys | bytes per key: ours | peer | ratio | MEMORY USAGE: ours | peer |")
    print("|---|---|---|---|---|---|---|")
    for name, count, make in cases:
        a, ua = measure(ours.r, count, make)
        b, ub = measure(peer.r, count, make)
        print(f"| {name} | {count} | {a:,.0f} | {b:,.0f} | {a / b:.2f} | {ua:,} | {ub:,} |",
              flush=True)
finally:
    ours.stop()
    peer.stop()
