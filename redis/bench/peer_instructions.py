#!/usr/bin/python3
"""Instructions per command against another module with RedisBloom's commands
(docs/performance.md, "Redis module: time per command against RedisBloom").

    redis/bench/peer_instructions.py OURS.so PEER.so [--calls N] [--depth D]
                                     [--rate P] [--only BF]

Each module runs in its own redis-server under valgrind's callgrind (127.0.0.1,
a temporary directory, stopped by PID), counting only inside Redis's module
command dispatcher (RedisModuleCommandDispatcher: the module's handler with
every module API call it makes, and the context Redis builds around it; not
the parsing of the request nor the socket writes, alike for both). For each
command, 200 warm-up calls, then the counters are zeroed and N calls (the same
seeded random items on both) are sent in pipelines of D; instructions / N is
the figure. Unlike time, it does not move with the machine's load; it does
move by about 5% between server starts (Redis seeds its key hashing at
random). --rate gives the error rate of the two reserved BF keys (default
0.01; at tight rates both modules use classic layers), --only restricts the
run to one family's commands. Needs valgrind (Debian: valgrind) and redis-server on PATH.
"""
import glob
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis


def option(name, default):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


def text_option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


CALLS = option("--calls", 2000)
DEPTH = option("--depth", 16)
RATE = text_option("--rate", "0.01")
ONLY = text_option("--only", "")
paths = [a for i, a in enumerate(sys.argv[1:], 1)
         if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
if len(paths) != 2:
    raise SystemExit(__doc__)
paths = [os.path.abspath(p) for p in paths]  # the server changes to its --dir first


def item(rng):
    return f"item:{rng.randrange(1_000_000)}"


COMMANDS = [
    ("BF.ADD", lambda g: ("BF.ADD", "bf", item(g))),
    ("BF.EXISTS", lambda g: ("BF.EXISTS", "bf", item(g))),
    ("BF.MADD", lambda g: ("BF.MADD", "bf", *[item(g) for _ in range(10)])),
    ("BF.MEXISTS", lambda g: ("BF.MEXISTS", "bf", *[item(g) for _ in range(10)])),
    ("BF.INSERT", lambda g: ("BF.INSERT", "bfi", "ITEMS", *[item(g) for _ in range(10)])),
    ("CF.ADD", lambda g: ("CF.ADD", "cf", item(g))),
    ("CF.EXISTS", lambda g: ("CF.EXISTS", "cf", item(g))),
    ("CF.DEL", lambda g: ("CF.DEL", "cf", item(g))),
    ("CMS.INCRBY", lambda g: ("CMS.INCRBY", "cms", item(g), "1")),
    ("CMS.QUERY", lambda g: ("CMS.QUERY", "cms", item(g))),
    ("TOPK.ADD", lambda g: ("TOPK.ADD", "topk", item(g))),
    ("TOPK.QUERY", lambda g: ("TOPK.QUERY", "topk", item(g))),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(module):
    """{command: instructions per call} for one module."""
    d = tempfile.mkdtemp(prefix="ringbloom-callgrind-")
    out = os.path.join(d, "callgrind.out")
    port = free_port()
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
         "--toggle-collect=RedisModuleCommandDispatcher", "redis-server", "--port", str(port),
         "--bind", "127.0.0.1", "--dir", d, "--save", "", "--appendonly", "no",
         "--loadmodule", module], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = redis.Redis(port=port, socket_timeout=600)
        for _ in range(600):  # valgrind starts slowly: at most 60 s
            try:
                r.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None:
                    raise SystemExit(f"redis-server with {module} exited under valgrind")
                time.sleep(0.1)
        else:
            raise SystemExit(f"redis-server with {module} did not answer within 60 s")
        r.execute_command("BF.RESERVE", "bf", RATE, "1000000")
        r.execute_command("BF.RESERVE", "bfi", RATE, "1000000")
        r.execute_command("CF.RESERVE", "cf", "1000000")
        r.execute_command("CMS.INITBYDIM", "cms", "2000", "5")
        r.execute_command("TOPK.RESERVE", "topk", "50")

        def dump_total():
            subprocess.run(["callgrind_control", "-d", str(proc.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            total = None
            for _ in range(100):  # the dump is written asynchronously: at most 10 s
                files = glob.glob(out + ".*")
                if files:
                    time.sleep(0.2)
                    with open(files[0]) as f:
                        for line in f:
                            if line.startswith(("summary:", "totals:")):
                                total = int(line.split()[1])
                    for name in files:
                        os.remove(name)
                    if total is not None:
                        return total
                time.sleep(0.1)
            raise SystemExit("callgrind wrote no dump; is callgrind_control on PATH?")

        result = {}
        for name, make in COMMANDS:
            if not name.startswith(ONLY):
                continue
            rng = random.Random(len(name) * 7919)
            calls = [make(rng) for _ in range(CALLS + 200)]
            for args in calls[:200]:
                r.execute_command(*args)
            dump_total()
            for start in range(200, len(calls), DEPTH):
                pipe = r.pipeline(transaction=False)
                for args in calls[start:start + DEPTH]:
                    pipe.execute_command(*args)
                pipe.execute(raise_on_error=False)
            result[name] = dump_total() / CALLS
        return result
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        shutil.rmtree(d, ignore_errors=True)


ours = measure(paths[0])
peer = measure(paths[1])
print(f"# {paths[0]} against {paths[1]}; {CALLS} calls, pipelines of {DEPTH}; BF rate {RATE}")
print("| command | instructions per call: ours | peer | ratio ours/peer |")
print("|---|---|---|---|")
for name in ours:
    print(f"| {name} | {ours[name]:,.0f} | {peer[name]:,.0f} | {ours[name] / peer[name]:.2f} |")
