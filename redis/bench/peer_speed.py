#!/usr/bin/python3
"""Server time per command against another module with RedisBloom's commands
(docs/performance.md, "Redis module: time per command against RedisBloom").

    redis/bench/peer_speed.py OURS.so PEER.so [--calls N] [--rounds R]

Each module runs in its own redis-server (same configuration, 127.0.0.1, a
temporary directory, stopped by PID). In each round, and alternating between
the two servers command by command, N calls of each command are sent in
pipelines of 16 (the same random items to both), and the server's own time
per call is read from INFO commandstats (usec_per_call: the command's work
inside the server, parsing and reply included, without the network and the
client, so it is far steadier than throughput on a loaded machine). The
table gives the median over the rounds and the ratio ours / peer (below 1:
ours is faster). Building the peer is left to the reader.
"""
import os
import random
import statistics
import sys

from bench_server import Server


def option(name, default):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


CALLS = option("--calls", 20000)
ROUNDS = option("--rounds", 3)
paths = [a for i, a in enumerate(sys.argv[1:], 1)
         if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
if len(paths) != 2:
    raise SystemExit(__doc__)


def setup(r):
    r.flushall()
    r.execute_command("BF.RESERVE", "bf", "0.01", "1000000")
    r.execute_command("BF.RESERVE", "bfi", "0.01", "1000000")
    r.execute_command("CF.RESERVE", "cf", "1000000")
    r.execute_command("CMS.INITBYDIM", "cms", "2000", "5")
    r.execute_command("TOPK.RESERVE", "topk", "50")


def item(rng):
    return f"item:{rng.randrange(1_000_000)}"


# name in commandstats, and the arguments of one call from a random source.
COMMANDS = [
    ("bf.add", lambda g: ("BF.ADD", "bf", item(g))),
    ("bf.exists", lambda g: ("BF.EXISTS", "bf", item(g))),
    ("bf.madd", lambda g: ("BF.MADD", "bf", *[item(g) for _ in range(10)])),
    ("bf.mexists", lambda g: ("BF.MEXISTS", "bf", *[item(g) for _ in range(10)])),
    ("bf.insert", lambda g: ("BF.INSERT", "bfi", "ITEMS", *[item(g) for _ in range(10)])),
    ("cf.add", lambda g: ("CF.ADD", "cf", item(g))),
    ("cf.exists", lambda g: ("CF.EXISTS", "cf", item(g))),
    ("cf.del", lambda g: ("CF.DEL", "cf", item(g))),
    ("cms.incrby", lambda g: ("CMS.INCRBY", "cms", item(g), "1")),
    ("cms.query", lambda g: ("CMS.QUERY", "cms", item(g))),
    ("topk.add", lambda g: ("TOPK.ADD", "topk", item(g))),
    ("topk.query", lambda g: ("TOPK.QUERY", "topk", item(g))),
]


def run(r, name, calls):
    r.config_resetstat()
    for start in range(0, len(calls), 16):
        pipe = r.pipeline(transaction=False)
        for args in calls[start:start + 16]:
            pipe.execute_command(*args)
        pipe.execute(raise_on_error=False)
    return r.info("commandstats")[f"cmdstat_{name}"]["usec_per_call"]


ours, peer = Server(paths[0]), Server(paths[1])
try:
    setup(ours.r)
    setup(peer.r)
    times = {name: ([], []) for name, _ in COMMANDS}
    for rnd in range(ROUNDS):
        for name, make in COMMANDS:
            rng = random.Random(rnd * 1000 + len(name))
            calls = [make(rng) for _ in range(CALLS)]
            pair = [(ours, 0), (peer, 1)] if rnd % 2 == 0 else [(peer, 1), (ours, 0)]
            for server, side in pair:
                times[name][side].append(run(server.r, name, calls))
    print(f"# {paths[0]} against {paths[1]}; redis-server "
          f"{ours.r.info('server')['redis_version']}; {CALLS} calls x {ROUNDS} rounds, "
          f"pipelines of 16; load {os.getloadavg()[0]:.1f}")
    print("| command | usec per call: ours | peer | ratio ours/peer | rounds (ours / peer) |")
    print("|---|---|---|---|---|")
    for name, _ in COMMANDS:
        a, b = (statistics.median(x) for x in times[name])
        rounds = ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(*times[name]))
        print(f"| {name.upper()} | {a:.2f} | {b:.2f} | {a / b:.2f} | {rounds} |", flush=True)
finally:
    ours.stop()
    peer.stop()
