#!/usr/bin/python3
"""Benchmarks of ringbloom.so in a stock redis-server (docs/performance.md,
"Redis module"). One run each, same server, loopback:

  - redis-benchmark -r 1000000 -P 16 and -P 1: BF.ADD / BF.EXISTS against
    SADD / SISMEMBER;
  - BF.MADD / BF.MEXISTS with 1,000 items per command (items/s);
  - CMS.INCRBY and TOPK.ADD with 100 items per command (items/s);
  - memory (INFO used_memory) of 1M and 10M items at 1% against a Redis SET
    of the same items;
  - bits per item against RedisBloom's sizing rule, with the measured rate.

  redis/bench/redis_bench.py [build/release/redis/ringbloom.so] [--quick] [--memory]

--memory runs only the last two (no redis-benchmark).
"""
import math
import os
import re
import subprocess
import sys

from bench_server import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
MODULE = args[0] if args else os.path.join(ROOT, "build", "release", "redis", "ringbloom.so")
QUICK = "--quick" in sys.argv
MEMORY_ONLY = "--memory" in sys.argv


def bench(s, pipeline, *command, n=None):
    """(requests per second, server microseconds per call): the better of two
    redis-benchmark runs (-r 1000000), and INFO commandstats' usec_per_call
    (the server's own time in the command, which other load disturbs less)."""
    best = 0.0
    s.r.config_resetstat()
    for _ in range(2):
        best = max(best, bench_once(s, pipeline, *command, n=n))
    stats = s.r.info("commandstats")[f"cmdstat_{command[0].lower()}"]
    return best, stats["usec_per_call"]


def bench_once(s, pipeline, *command, n=None):
    n = n or (200000 if pipeline > 1 else 50000)
    if QUICK:
        n //= 10
    out = subprocess.run(
        ["redis-benchmark", "-p", str(s.port), "-r", "1000000", "-n", str(n), "-P", str(pipeline),
         "-c", "50", "-q", *command], capture_output=True, text=True, timeout=900).stdout
    m = re.findall(r"([\d.]+) requests per second", out.replace(",", ""))
    if not m:
        raise SystemExit(f"redis-benchmark gave no number for {command}: {out}")
    return float(m[-1])


def fill(r, command, key, n, batch=1000):
    for start in range(0, n, batch * 50):
        p = r.pipeline(transaction=False)
        for b in range(start, min(n, start + batch * 50), batch):
            p.execute_command(command, key, *[f"item:{i}" for i in range(b, min(n, b + batch))])
        p.execute()


def used(r):
    """used_memory without the clients' buffers (the fill's query buffers)."""
    m = r.info("memory")
    return m["used_memory"] - m["mem_clients_normal"]


def jemalloc_class(size):
    """jemalloc's size class (16-byte quantum; four classes per doubling)."""
    if size <= 8:
        return 8
    if size <= 128:
        return (size + 15) // 16 * 16
    step = 1 << ((size - 1).bit_length() - 3)
    return (size + step - 1) // step * step


def redisbloom_layers(capacity, p, layers):
    """RedisBloom's sizing (deps/bloom/bloom.c, src/sb.c): layer i holds
    capacity * 2^i items at error p / 2^(i+1) (p for NONSCALING), with
    bits = entries * -ln(e) / ln(2)^2 rounded up to 64; its words come from
    RedisModule_Calloc, so each layer costs its jemalloc class."""
    sizes = []
    for i in range(layers):
        e = p / 2 ** (i + 1)
        n = capacity * 2 ** i
        bits = int(n * -math.log(e) / 0.480453013918201)
        sizes.append((bits + 63) // 64 * 64)
    return sizes


def redisbloom_bits(capacity, p, layers):
    return sum(redisbloom_layers(capacity, p, layers))


def redisbloom_allocated(capacity, p, layers):
    """RedisBloom's value as allocated: its chain (32 bytes), its link table
    (64 bytes per layer) and each layer's bit array, each in its jemalloc class."""
    return (jemalloc_class(32) + jemalloc_class(64 * layers) +
            sum(jemalloc_class(b // 8) for b in redisbloom_layers(capacity, p, layers)))


def our_allocated(r, key):
    """Our layers' bits (from the header, BF.SCANDUMP's first chunk: 32 bytes,
    then 32 per layer with bits at +8) and the value as allocated (BF.INFO
    Size: the object, its block, the layer table and the words, exactly; the
    words fill their size classes)."""
    _, header = r.execute_command("BF.SCANDUMP", key, 0)
    count = int.from_bytes(header[24:28], "little")
    words = sum(int.from_bytes(header[32 + 32 * i + 8:32 + 32 * i + 16], "little")
                for i in range(count))
    return words, r.execute_command("BF.INFO", key, "SIZE")[0]


def main():
    s = Server(MODULE)
    r = s.r
    try:
        print(f"redis-server {r.info()['redis_version']}, {os.cpu_count()} cores, module {MODULE}")
        print("machine shared with other builds: numbers are noisy\n")
        if not MEMORY_ONLY:
            print("throughput (redis-benchmark -c 50 -r 1000000)")
            r.execute_command("BF.RESERVE", "bf", "0.01", "2000000")
            for pipeline in (16, 1):
                for plain, ours in (("SADD", "BF.ADD"), ("SISMEMBER", "BF.EXISTS")):
                    a, ua = bench(s, pipeline, plain, "set", "__rand_int__")
                    b, ub = bench(s, pipeline, ours, "bf", "__rand_int__")
                    print(f"  -P {pipeline:<2} {plain:<9} {a:>9.0f}/s ({ua:.2f} us)  {ours:<9} {b:>9.0f}/s "
                          f"({ub:.2f} us)  throughput ratio {b / a:.2f}, server time ratio {ua / ub:.2f}")
            items = ["__rand_int__"] * 1000
            for plain, ours in (("SADD", "BF.MADD"), ("SMISMEMBER", "BF.MEXISTS")):
                a, ua = bench(s, 1, plain, "set", *items, n=2000)
                b, ub = bench(s, 1, ours, "bf", *items, n=2000)
                print(f"  1000 items/command: {plain:<10} {a * 1000 / 1e6:.2f} M items/s  {ours:<10} "
                      f"{b * 1000 / 1e6:.2f} M items/s end to end, {1000 / ub:.1f} M items/s in the server "
                      f"({ub:.0f} us per command)")
            r.execute_command("CMS.INITBYDIM", "cms", "10000", "5")
            r.execute_command("TOPK.RESERVE", "topk", "100", "2000", "5", "0.9")
            pairs = [x for _ in range(100) for x in ("__rand_int__", "1")]
            for name, cmd in (("CMS.INCRBY", ["CMS.INCRBY", "cms", *pairs]),
                              ("TOPK.ADD", ["TOPK.ADD", "topk", *["__rand_int__"] * 100])):
                a, ua = bench(s, 1, *cmd, n=5000)
                print(f"  100 items/command: {name:<10} {a * 100 / 1e6:.2f} M items/s end to end, "
                      f"{100 / ua:.1f} M items/s in the server")

        print("\nmemory (used_memory growth without client buffers) at p = 1%")
        for n in ((1_000_000,) if QUICK else (1_000_000, 10_000_000)):
            r.flushall()
            base = used(r)
            fill(r, "SADD", "set", n)
            set_bytes = used(r) - base
            r.flushall()
            base = used(r)
            r.execute_command("BF.RESERVE", "bf", "0.01", n)
            fill(r, "BF.MADD", "bf", n)
            bf_bytes = used(r) - base
            print(f"  {n:>10} items: SET {set_bytes / 1e6:8.1f} MB  BF {bf_bytes / 1e6:6.2f} MB  "
                  f"SET/BF {set_bytes / bf_bytes:5.1f}  ({bf_bytes * 8 / n:.2f} bits/item)")
        r.flushall()

        print("\nbits per item against RedisBloom's rule (filled to the reserved capacity);")
        print("words: bits of the filters' words; memory: the value as allocated, in bits per item")
        print("(ours: BF.INFO Size; RedisBloom's: chain, link table and bit arrays in their jemalloc classes)")
        print("  p       capacity  filled     layers  ours   RedisBloom  ours/RB  measured rate"
              "  memory ours  RB     ours/RB")
        strangers = 20000 if QUICK else 100000
        for p, capacity, filled in ((0.01, 100000, 100000), (0.001, 100000, 100000),
                                    (0.01, 50000, 100000), (0.01, 25000, 100000),
                                    (0.01, 10000, 100000), (0.01, 3000, 100000),
                                    (0.01, 100, 100000), (0.1, 100000, 100000),
                                    (0.0001, 100000, 100000), (0.000001, 100000, 100000),
                                    (0.01, 100, 100), (0.001, 100, 100)):
            r.flushall()
            r.execute_command("BF.RESERVE", "f", p, capacity)
            fill(r, "BF.MADD", "f", filled)
            ours, grown = our_allocated(r, "f")
            info = r.execute_command("BF.INFO", "f")
            layers = info[5]
            rb = redisbloom_bits(capacity, p, layers)
            hits = 0
            for b in range(0, strangers, 1000):
                hits += sum(r.execute_command("BF.MEXISTS", "f",
                                              *[f"stranger:{i}" for i in range(b, b + 1000)]))
            cap_total = info[1]
            rb_mem = redisbloom_allocated(capacity, p, layers)
            print(f"  {p:<6} {capacity:>9} {filled:>9} {layers:>6}  {ours / cap_total:6.2f} "
                  f"{rb / cap_total:10.2f}  {ours / rb:7.2f}  {hits / strangers:.4%}"
                  f"      {grown * 8 / cap_total:6.2f} {rb_mem * 8 / cap_total:6.2f}  {grown / rb_mem:5.2f}")
        r.flushall()
        r.execute_command("BF.RESERVE", "n", 0.01, 100000, "NONSCALING")
        ours, grown = our_allocated(r, "n")
        rb = (int(100000 * -math.log(0.01) / 0.480453013918201) + 63) // 64 * 64
        rb_mem = jemalloc_class(32) + jemalloc_class(64) + jemalloc_class(rb // 8)
        print(f"  NONSCALING p=0.01 capacity 100000: ours {ours / 100000:.2f}, RedisBloom "
              f"{rb / 100000:.2f} bits/item; memory {grown * 8 / 100000:.2f} against "
              f"{rb_mem * 8 / 100000:.2f}")
    finally:
        s.stop()


if __name__ == "__main__":
    main()
