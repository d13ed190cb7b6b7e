#!/usr/bin/python3
"""Instructions per command against another module with RedisBloom's commands
(docs/performance.md, "Redis module: time per command against RedisBloom").

    redis/bench/peer_instructions.py OURS.so PEER.so [--calls N] [--depth D]
                                     [--rate P] [--only BF] [--keep DIR]

Each module runs in its own redis-server under valgrind's callgrind (127.0.0.1,
a temporary directory, stopped by PID), counting only inside Redis's module
command dispatcher (RedisModuleCommandDispatcher: the module's handler with
every module API call it makes, and the context Redis builds around it; not
the parsing of the request nor the socket writes, alike for both). For each
command, 200 warm-up calls, then the counters are zeroed and N calls (the same
seeded random items on both) are sent in pipelines of D; instructions / N is
the figure. Unlike time, it does not move with the machine's load; it does
move by about 5% between server starts (Redis seeds its key hashing at
random). The second figure counts only the instructions of the module's own
code (its handler and the library; not the module API calls it makes into the
server): callgrind's cost of each function, summed over the functions of the
module's file. --rate gives the error rate of the two reserved BF keys (default
0.01; at tight rates both modules use classic layers), --only restricts the
run to one family's commands. --keep DIR keeps each command's callgrind
dump as DIR/<ours|peer>.<command>.out, for `callgrind_annotate --inclusive=yes`
to split a call between the module's code and the server's. Needs valgrind (Debian: valgrind) and redis-server on PATH.
"""
import glob
import os
import random
import shutil
import subprocess
import tempfile
import time

from bench_server import Server
from peer_workload import COMMANDS, module_paths, option, setup, text_option

CALLS = option("--calls", 2000)
DEPTH = option("--depth", 16)
RATE = text_option("--rate", "0.01")
ONLY = text_option("--only", "")
KEEP = text_option("--keep", "")
paths = module_paths(__doc__)


def own_cost(dump, module):
    """The instructions a callgrind dump counts in functions of `module`'s
    file (their own cost, callees in other files excluded). In the dump,
    "ob=" and "fn=" lines name the file and function of the cost lines that
    follow ("(id) name" the first time, "(id)" after); a "calls=" line is
    followed by one line with the inclusive cost of that call, which belongs
    to the callee and is skipped."""
    module = os.path.realpath(module)
    names, current, total, skip = {}, None, 0, False
    with open(dump) as f:
        for line in f:
            if skip:
                skip = False
            elif line.startswith(("ob=", "cob=")):
                key, _, name = line.split("=", 1)[1].strip().partition(" ")
                if name:
                    names[key] = os.path.realpath(name)
                if line.startswith("ob="):
                    current = names.get(key, key)
            elif line.startswith("calls="):
                skip = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                fields = line.split()
                if len(fields) >= 2 and current == module:
                    total += int(fields[1])
    return total


def measure(module, side):
    """{command: (instructions per call, of which in the module's own code)}
    for one module; `side` ("ours" or "peer") names the dumps --keep keeps."""
    d = tempfile.mkdtemp(prefix="ringbloom-callgrind-")
    out = os.path.join(d, "callgrind.out")
    # valgrind starts slowly and stops slowly.
    server = Server(module, prefix=["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                    "--collect-atstart=no",
                                    "--toggle-collect=RedisModuleCommandDispatcher"],
                    start_timeout=60, stop_timeout=120)
    r = server.r
    try:
        setup(r, RATE)

        def dump_total(keep_as=None):
            subprocess.run(["callgrind_control", "-d", str(server.proc.pid)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            for _ in range(100):  # the dump is written asynchronously: at most 10 s
                files = glob.glob(out + ".*")
                if files:
                    time.sleep(0.2)
                    total = None
                    with open(files[0]) as f:
                        for line in f:
                            if line.startswith(("summary:", "totals:")):
                                total = int(line.split()[1])
                    own = own_cost(files[0], module)
                    if keep_as:
                        shutil.copy(files[0], keep_as)
                    for name in files:
                        os.remove(name)
                    if total is not None:
                        return total, own
                time.sleep(0.1)
            raise SystemExit("callgrind wrote no dump; is callgrind_control on PATH?")

        result = {}
        for name, make in COMMANDS:
            if not name.startswith(ONLY.lower()):
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
            keep_as = os.path.join(KEEP, f"{side}.{name}.out") if KEEP else None
            total, own = dump_total(keep_as)
            result[name] = (total / CALLS, own / CALLS)
        return result
    finally:
        server.stop()
        shutil.rmtree(d, ignore_errors=True)


if KEEP:
    os.makedirs(KEEP, exist_ok=True)
ours = measure(paths[0], "ours")
peer = measure(paths[1], "peer")
print(f"# {paths[0]} against {paths[1]}; {CALLS} calls, pipelines of {DEPTH}; BF rate {RATE}")
print("| command | instructions per call: ours | peer | ratio ours/peer "
      "| in the module's own code: ours | peer | ratio |")
print("|---|---|---|---|---|---|---|")
for name in ours:
    (a, a_own), (b, b_own) = ours[name], peer[name]
    print(f"| {name.upper()} | {a:,.0f} | {b:,.0f} | {a / b:.2f} "
          f"| {a_own:,.0f} | {b_own:,.0f} | {a_own / b_own:.2f} |")
