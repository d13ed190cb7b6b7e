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
client, so it is far steadier than throughput on a loaded machine). On a
shared machine that mean still jumps whenever the server is preempted in the
middle of a command (one time slice of a few milliseconds lands in a
sub-microsecond mean), so the script also reads the CPU time the server's
main thread was given over the N calls (/proc/PID/task/PID/schedstat, in
nanoseconds, which does not count the time it waited for a core): that
covers the whole request (reading and parsing it, the command, writing the
reply), so its ratios lie nearer 1, but it barely moves with the load. The
table gives the median over the rounds, the ratio of the medians ours / peer
(below 1: ours is faster), the range of the rounds' own ratios (each
round's two servers ran the same calls one after the other, so a round's
ratio is the fairest single reading and their spread is the noise), and in
how many rounds ours was the faster (a sign test: 10 of 11 would happen by
chance with probability 0.006 if the two were equal). Building
the peer is left to the reader.
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


def cpu_ns(server):
    """Nanoseconds the server's main thread has run on a core (schedstat's
    first field)."""
    with open(f"/proc/{server.proc.pid}/task/{server.proc.pid}/schedstat") as f:
        return int(f.read().split()[0])


def run(server, name, calls):
    """(usec per call from INFO commandstats, CPU nanoseconds per call of the
    server's main thread) for `calls`."""
    r = server.r
    r.config_resetstat()
    pipes = []
    for start in range(0, len(calls), DEPTH):
        pipe = r.pipeline(transaction=False)
        for args in calls[start:start + DEPTH]:
            pipe.execute_command(*args)
        pipes.append(pipe)
    before = cpu_ns(server)
    for pipe in pipes:
        pipe.execute(raise_on_error=False)
    cpu = (cpu_ns(server) - before) / len(calls)
    return r.info("commandstats")[f"cmdstat_{name}"]["usec_per_call"], cpu


ours, peer = Server(paths[0]), Server(paths[1])
try:
    setup(ours.r)
    setup(peer.r)
    times = {name: ([], []) for name, _ in COMMANDS}
    cpu = {name: ([], []) for name, _ in COMMANDS}
    for rnd in range(ROUNDS):
        for name, make in COMMANDS:
            rng = random.Random(rnd * 1000 + len(name))
            calls = [make(rng) for _ in range(CALLS)]
            pair = [(ours, 0), (peer, 1)] if rnd % 2 == 0 else [(peer, 1), (ours, 0)]
            for server, side in pair:
                usec, ns = run(server, name, calls)
                times[name][side].append(usec)
                cpu[name][side].append(ns)
    print(f"# {paths[0]} against {paths[1]}; redis-server "
          f"{ours.r.info('server')['redis_version']}; {CALLS} calls x {ROUNDS} rounds, "
          f"pipelines of {DEPTH}; load {os.getloadavg()[0]:.1f}")
    print("| command | usec per call: ours | peer | ratio ours/peer | rounds' ratios "
          "| rounds ours faster | CPU ns per call: ours | peer | ratio | rounds' ratios "
          "| rounds, usec (ours / peer) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, _ in COMMANDS:
        a, b = (statistics.median(x) for x in times[name])
        ratios = [x / y for x, y in zip(*times[name])]
        c, d = (statistics.median(x) for x in cpu[name])
        cpu_ratios = [x / y for x, y in zip(*cpu[name])]
        rounds = ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(*times[name]))
        print(f"| {name.upper()} | {a:.2f} | {b:.2f} | {a / b:.2f} "
              f"| {min(ratios):.2f}-{max(ratios):.2f} "
              f"| {sum(x < 1 for x in ratios)} of {len(ratios)} | {c:.0f} | {d:.0f} | {c / d:.2f} "
              f"| {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f} | {rounds} |", flush=True)
finally:
    ours.stop()
    peer.stop()
