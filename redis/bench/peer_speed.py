#!/usr/bin/python3
"""Server time per command against another module with RedisBloom's commands
(docs/performance.md, "Redis module: time per command against RedisBloom").

    redis/bench/peer_speed.py OURS.so PEER.so [--calls N] [--rounds R] [--depth D]

Each module runs in its own redis-server (same configuration, 127.0.0.1, a
temporary directory, stopped by PID). In each round, and alternating between
the two servers command by command, N calls of each command are sent in
pipelines of D (default 16; 1 sends one call per round trip; the same random
items to both), and the server's own time
per call is read from INFO commandstats (usec_per_call: the command's work
inside the server, parsing and reply included, without the network and the
client, so it is far steadier than throughput on a loaded machine). The
table gives the median over the rounds and the ratio ours / peer (below 1:
ours is faster). Building the peer is left to the reader.
"""
import os
import random
import statistics

from bench_server import Server
from peer_workload import COMMANDS, module_paths, option, setup

CALLS = option("--calls", 20000)
ROUNDS = option("--rounds", 3)
DEPTH = option("--depth", 16)
paths = module_paths(__doc__)


def run(r, name, calls):
    r.config_resetstat()
    for start in range(0, len(calls), DEPTH):
        pipe = r.pipeline(transaction=False)
        for args in calls[start:start + DEPTH]:
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
          f"pipelines of {DEPTH}; load {os.getloadavg()[0]:.1f}")
    print("| command | usec per call: ours | peer | ratio ours/peer | rounds (ours / peer) |")
    print("|---|---|---|---|---|")
    for name, _ in COMMANDS:
        a, b = (statistics.median(x) for x in times[name])
        rounds = ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(*times[name]))
        print(f"| {name.upper()} | {a:.2f} | {b:.2f} | {a / b:.2f} | {rounds} |", flush=True)
finally:
    ours.stop()
    peer.stop()
