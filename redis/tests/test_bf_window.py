"""Windowed Bloom filters behind BF.*: BF.RESERVE ... WINDOW seconds and
... WINDOWITEMS, BF.INSERT's window options, BF.ADDAT, BF.LOADWINDOW, and
the time that comes from the master (docs/redis.md, "Windowed filters").

The statistical checks use fixed item names (the filter's hash seed is 0)
and bound a measured rate by p plus three binomial standard deviations of
the sample; the wall-clock test also depends on where the generation
boundaries fall, which is why it bounds rather than pins."""
import math
import os
import pathlib
import struct
import time

import pytest
import redis

from conftest import wait_until

P = 0.01
# used_memory's noise from the server's own buffers: a client's query and reply
# buffers grow by tens of KB with its first large command and stay (measured: 48-73 KB).
SLACK = 128 * 1024


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


def rate_bound(p, n):
    """p plus three standard deviations of a rate measured over n probes."""
    return p + 3 * math.sqrt(p * (1 - p) / n)


def crc64(data, crc=0):
    """Redis's CRC-64 (Jones, reflected), which seals DUMP payloads."""
    poly = 0x95AC9329AC4BC9B5
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (poly if crc & 1 else 0)
    return crc


def info(c, key):
    reply = c.execute_command("BF.INFO", key)
    return {reply[i].decode() if isinstance(reply[i], bytes) else reply[i]: reply[i + 1]
            for i in range(0, len(reply), 2)}


def generation(window, t=None):
    """The generation number of time t (seconds): a third of the window."""
    return math.floor((time.time() if t is None else t) / (window / 3))


def same_generation_answers(clients, key, items, window, tries=5):
    """MEXISTS on every client within one generation (a boundary between the
    reads could change an answer); bounded retries."""
    for _ in range(tries):
        g = generation(window)
        answers = [c.execute_command("BF.MEXISTS", key, *items) for c in clients]
        if generation(window) == g:
            return answers
    raise AssertionError(f"no {tries} reads fell within one generation")


def test_time_window_with_a_replica_forgets_and_survives_restarts(make_server):
    """A master (AOF on) and a replica, a 3-second window, 10 seconds of
    writes: the replica's digests and answers equal the master's; items
    older than the window plus its slack answer 'no' at rate <= p; a restart
    of the master from its AOF (a rewritten base plus incremental BF.ADDAT
    commands) and of the replica from its RDB hold the same bits and
    answer alike."""
    window, per_window = 3, 3000
    master = make_server(subdir="m", config=["--appendonly", "yes", "--aof-use-rdb-preamble", "no",
                                             "--appendfsync", "always"])
    replica = make_server(subdir="r")
    m, rc = master.client(), replica.client()
    rc.replicaof("127.0.0.1", master.port)
    wait_until(lambda: rc.info("replication")["master_link_status"] == "up", 30, "replica link")
    assert m.execute_command("BF.RESERVE", "w", P, per_window, "WINDOW", window) == b"OK"
    assert m.execute_command("BF.RESERVE", "c", P, 300, "WINDOWITEMS") == b"OK"
    # Creation by BF.INSERT, a script and a transaction travel with their times too.
    assert m.execute_command("BF.INSERT", "ins", "CAPACITY", 500, "WINDOW", 3,
                             "ITEMS", "a", "b") == [1, 1]
    assert m.eval("return redis.call('BF.MADD', KEYS[1], ARGV[1], ARGV[2])", 1, "ins",
                  "lua:1", "lua:2") == [1, 1]
    with m.pipeline(transaction=True) as tx:
        tx.execute_command("BF.ADD", "ins", "multi:1")
        tx.execute_command("BF.ADD", "c", "multi:1")
        assert tx.execute() == [1, 1]

    # 100 batches of 70 items, one every 0.1 s: 2,100 items per window.
    added = []  # (time the batch was sent, its items)
    start = time.time()
    for b in range(100):
        delay = start + b * 0.1 - time.time()
        if delay > 0:
            time.sleep(delay)
        items = [f"item:{b}:{j}" for j in range(70)]
        sent = time.time()
        m.execute_command("BF.MADD", "w", *items)
        m.execute_command("BF.MADD", "c", *items[:10])
        added.append((sent, items))
        if b == 50:
            m.bgrewriteaof()  # the base: BF.LOADWINDOW; later writes: BF.ADDAT
    assert time.time() - start >= 9.9
    assert m.execute_command("WAIT", 1, 10000) == 1
    wait_until(lambda: m.info("persistence")["aof_rewrite_in_progress"] == 0 and
               m.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "BGREWRITEAOF")

    for key in ("w", "c", "ins"):
        assert digest(rc, key) == digest(m, key), key
    everything = [x for _, items in added for x in items]
    ours, theirs = same_generation_answers([m, rc], "w", everything, window)
    assert ours == theirs

    # The last second's items are in the window: all answer yes.
    now = time.time()
    recent = [x for sent, items in added if sent > now - 1 for x in items]
    assert len(recent) >= 350
    assert all(m.execute_command("BF.MEXISTS", "w", *recent))
    # Items older than W (1 + 1/3) = 4 s, plus a margin for the clocks: forgotten.
    old = [x for sent, items in added if sent < now - 4.5 for x in items]
    assert len(old) >= 3000
    yes_old = sum(m.execute_command("BF.MEXISTS", "w", *old))
    strangers = [f"stranger:{i}" for i in range(20000)]
    yes_strangers = sum(m.execute_command("BF.MEXISTS", "w", *strangers))
    assert yes_old / len(old) <= rate_bound(P, len(old)), yes_old
    assert yes_strangers / len(strangers) <= rate_bound(P, len(strangers)), yes_strangers
    # The count window holds the last 300 of its 1,000 items.
    counted = [x for _, items in added for x in items[:10]]
    assert all(m.execute_command("BF.MEXISTS", "c", *counted[-300:]))
    forgotten = counted[:-400 - 1]  # more than 4 generations of 100 insertions ago
    yes_forgotten = sum(m.execute_command("BF.MEXISTS", "c", *forgotten))
    assert yes_forgotten / len(forgotten) <= rate_bound(P, len(forgotten)), yes_forgotten

    # Restarts: the replica from an RDB, the master from its AOF.
    before = {k: digest(m, k) for k in ("w", "c", "ins")}
    assert rc.save()
    replica.restart()
    master.restart()
    m, rc = master.client(), replica.client()
    assert {k: digest(m, k) for k in ("w", "c", "ins")} == before
    assert {k: digest(rc, k) for k in ("w", "c", "ins")} == before
    ours, theirs = same_generation_answers([m, rc], "w", everything, window)
    assert ours == theirs
    base = [f for f in os.listdir(os.path.join(master.dir, "appendonlydir")) if ".base." in f]
    incr = [f for f in os.listdir(os.path.join(master.dir, "appendonlydir")) if ".incr." in f]
    text = b"".join(open(os.path.join(master.dir, "appendonlydir", f), "rb").read()
                    for f in base + incr)
    assert b"BF.LOADWINDOW" in text and b"BF.ADDAT" in text


def test_addat_times_are_deterministic_and_forget(r):
    """BF.ADDAT's times decide the bits: two keys fed the same (time, items)
    hold the same digest; items 5 s older than the latest time of a 3 s
    window answer 'no' at rate <= p, items of the last 3 s all answer yes.
    The times are an hour ahead of the clock, so reads use the filter's
    latest time, never the clock."""
    t0 = int(time.time() * 1000) + 3_600_000
    for key in ("a", "b"):
        r.execute_command("BF.RESERVE", key, P, 5000, "WINDOW", 3)
        for step in range(6):
            items = [f"s{step}:{i}" for i in range(1000)]
            assert len(r.execute_command("BF.ADDAT", key, t0 + step * 1000, *items)) == 1000
    assert digest(r, "a") == digest(r, "b")
    # The latest time is t0 + 5 s: steps 0 (5 s old) is past W (1 + 1/3) = 4 s.
    old = [f"s0:{i}" for i in range(1000)]
    recent = [f"s{s}:{i}" for s in (3, 4, 5) for i in range(1000)]
    assert all(r.execute_command("BF.MEXISTS", "a", *recent))
    yes_old = sum(r.execute_command("BF.MEXISTS", "a", *old))
    assert yes_old / 1000 <= rate_bound(P, 1000), yes_old
    assert r.execute_command("BF.EXISTS", "a", "s5:0") == 1
    # A time more than one window before the latest is refused, nothing changed.
    before = digest(r, "a")
    with pytest.raises(redis.ResponseError, match="more than one window"):
        r.execute_command("BF.ADDAT", "a", t0, "late")
    assert digest(r, "a") == before
    # BF.ADD after those future times uses the latest time, not the clock.
    assert r.execute_command("BF.ADD", "a", "now") == 1
    assert r.execute_command("BF.EXISTS", "a", "now") == 1
    assert r.execute_command("BF.EXISTS", "a", "s5:1") == 1


def test_bf_commands_on_windowed_keys(r):
    assert r.execute_command("BF.RESERVE", "w", P, 1000, "WINDOW", 60) == b"OK"
    assert r.execute_command("BF.ADD", "w", "a") == 1
    assert r.execute_command("BF.ADD", "w", "a") == 0
    assert r.execute_command("BF.MADD", "w", "b", "c", "b") == [1, 1, 0]
    assert r.execute_command("BF.EXISTS", "w", "a") == 1
    assert r.execute_command("BF.MEXISTS", "w", "a", "nope") == [1, 0]
    assert r.execute_command("BF.CARD", "w") == 5  # additions held in the window
    i = info(r, "w")
    assert (i["Capacity"], i["Number of filters"], i["Number of items inserted"]) == (1000, 1, 5)
    assert i["Expansion rate"] is None and i["Window type"] == b"time"
    assert float(i["Window"]) == 60 and float(i["Error rate"]) == P
    assert i["Size"] % 192 == 0  # super-blocks of three cache lines
    assert r.execute_command("BF.INFO", "w", "WINDOW") == [b"60"]
    assert r.execute_command("BF.INFO", "w", "CAPACITY") == [1000]
    assert r.execute_command("BF.DEBUG", "w")[0] == b"size:5"
    # BF.INSERT: creation with a window, then on the existing key.
    assert r.execute_command("BF.INSERT", "i", "CAPACITY", 500, "ERROR", 0.001, "WINDOW", 10,
                             "ITEMS", "x", "y") == [1, 1]
    assert r.execute_command("BF.INSERT", "i", "ITEMS", "x", "z") == [0, 1]
    assert r.execute_command("BF.INFO", "i", "CAPACITY") == [500]
    assert r.execute_command("BF.INSERT", "n", "WINDOWITEMS", "ITEMS", "x") == [1]
    assert info(r, "n")["Window type"] == b"items"
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("BF.INSERT", "m", "NOCREATE", "WINDOW", 10, "ITEMS", "x")
    # COPY and DUMP/RESTORE keep the bits.
    assert r.copy("w", "w2")
    assert digest(r, "w2") == digest(r, "w")
    payload = r.dump("w")
    r.restore("w3", 0, payload)
    assert digest(r, "w3") == digest(r, "w")
    # A plain BF key is untouched by the routing.
    assert r.execute_command("BF.ADD", "plain", "a") == 1
    assert r.execute_command("BF.EXISTS", "plain", "a") == 1
    assert b"Window type" not in r.execute_command("BF.INFO", "plain")
    # Last (r.bf() installs its reply parsers on this client): redis-py reads
    # RedisBloom's fields of a windowed key and skips ours.
    parsed = r.bf().info("w")
    assert (parsed.capacity, parsed.filterNum, parsed.insertedNum) == (1000, 1, 5)


def test_count_window_forgets_after_its_items(r):
    """A window of the last 3,000 insertions: generations of 1,000; an item
    answers yes until 3,000 more have come, and is forgotten once more than
    4,000 have (docs: N (1 + 1/3) rounded up to generations)."""
    r.execute_command("BF.RESERVE", "c", P, 3000, "WINDOWITEMS")
    items = [f"k{i}" for i in range(12000)]
    for b in range(0, len(items), 1000):
        r.execute_command("BF.MADD", "c", *items[b:b + 1000])
    assert all(r.execute_command("BF.MEXISTS", "c", *items[-3000:]))
    old = items[:8000 - 1]
    yes = sum(r.execute_command("BF.MEXISTS", "c", *old))
    assert yes / len(old) <= rate_bound(P, len(old)), yes
    assert r.execute_command("BF.CARD", "c") <= 4000
    with pytest.raises(redis.ResponseError, match="needs a time window"):
        r.execute_command("BF.ADDAT", "c", 1, "x")


def test_memory_is_exact_and_steady(r):
    """MEMORY USAGE is the allocator's size of the value and of its bit
    array, and used_memory grows by that (jemalloc's classes; used_memory
    also moves by tens of KB with the server's own buffers, hence SLACK); 20 windows of writes later both are
    where they were: the filter forgets in place."""
    if r.info("memory")["mem_allocator"].startswith("libc"):
        pytest.skip("the exact figure needs the server's jemalloc")
    r.execute_command("BF.RESERVE", "warm", P, 10, "WINDOW", 3)  # the keyspace's own tables
    baseline = r.info("memory")["used_memory"]
    r.execute_command("BF.RESERVE", "w", P, 1_000_000, "WINDOW", 3)
    grown = r.info("memory")["used_memory"] - baseline
    usage = r.memory_usage("w")
    size = r.execute_command("BF.INFO", "w", "SIZE")[0]
    assert size <= usage <= size * 1.25 + 4096
    assert abs(grown - usage) <= SLACK, (usage, grown)
    t0 = int(time.time() * 1000) + 3_600_000
    for step in range(60):  # a generation per step: 20 windows
        for b in range(0, 2000, 250):  # small commands: small query buffers
            items = [f"{step}:{i}" for i in range(b, b + 250)]
            r.execute_command("BF.ADDAT", "w", t0 + step * 1000, *items)
    assert r.memory_usage("w") == usage
    assert abs(r.info("memory")["used_memory"] - baseline - grown) <= SLACK
    r.delete("w")
    assert abs(r.info("memory")["used_memory"] - baseline) <= SLACK


def test_damaged_payloads_are_refused(r):
    r.execute_command("BF.RESERVE", "w", P, 1000, "WINDOW", 60)
    r.execute_command("BF.MADD", "w", *[f"x{i}" for i in range(300)])
    payload = bytearray(r.dump("w"))
    # Flip a bit in the filter's words and reseal the payload's CRC-64, so
    # that only the library's own checksum can notice.
    body = payload[:-8]
    body[len(body) // 2] ^= 0x10
    damaged = bytes(body) + struct.pack("<Q", crc64(bytes(body)))
    with pytest.raises(redis.ResponseError, match="Bad data format"):
        r.restore("bad", 0, damaged)
    assert r.exists("bad") == 0
    image = bytes(payload[:-10])  # not the library image either: refused
    with pytest.raises(redis.ResponseError, match="received bad data"):
        r.execute_command("BF.LOADWINDOW", "bad", image)
    with pytest.raises(redis.ResponseError, match="received bad data"):
        r.execute_command("BF.LOADWINDOW", "bad", b"\x89RBW" + b"\x00" * 100)
    assert r.exists("bad") == 0


def test_version_1_images_load_as_the_same_filter(r):
    """Images of format version 1 (one 384-bit segment per generation, the
    first release's layout) load through BF.LOADWINDOW and through RESTORE
    (the RDB form) as the same filter as its version 2 image: the same
    DUMP and digest. The images are the library's golden files."""
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "filter" / "data"
    v1 = (data / "windowed_count_xxh3_v1.rbw").read_bytes()
    v2 = (data / "windowed_count_xxh3.rbw").read_bytes()
    assert v1 != v2 and len(v1) == len(v2)
    r.execute_command("BF.LOADWINDOW", "old", v1)
    r.execute_command("BF.LOADWINDOW", "new", v2)
    assert digest(r, "old") == digest(r, "new")
    assert info(r, "old") == info(r, "new")
    # The version 1 image in a DUMP payload (uncompressed, so the image is
    # its bytes), resealed with Redis's CRC-64.
    r.config_set("rdbcompression", "no")
    try:
        payload = r.dump("new")
    finally:
        r.config_set("rdbcompression", "yes")
    assert payload.count(v2) == 1
    body = payload[:-8].replace(v2, v1)
    r.restore("restored", 0, body + struct.pack("<Q", crc64(body)))
    assert digest(r, "restored") == digest(r, "new")
    assert r.dump("restored") == r.dump("new")
    members = [f"n{i}" for i in range(40, 130)]
    assert r.execute_command("BF.MEXISTS", "restored", *members) == [1] * len(members)


@pytest.mark.parametrize("args,message", [
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "0"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "-3"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "1e-300"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "inf"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "soon"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW"], "bad window"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "5", "WINDOWITEMS"], "exclude each other"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "5", "WINDOW", "6"], "exclude each other"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "5", "EXPANSION", "2"], "does not grow"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOWITEMS", "NONSCALING"], "does not grow"),
    (["BF.RESERVE", "k", "0.01", "100", "WINDOW", "5", "FOO"], "unknown argument: 'FOO'"),
    (["BF.RESERVE", "k", "2", "100", "WINDOW", "5"], "error rate"),
    (["BF.RESERVE", "k", "1e-13", "100", "WINDOW", "5"], "rates down to 1e-12"),
    (["BF.RESERVE", "k", "0.01", "0", "WINDOW", "5"], "capacity should be larger than 0"),
    (["BF.RESERVE", "k", "1e-6", "100000000000", "WINDOW", "5"], "Insufficient memory"),
    (["BF.INSERT", "k", "WINDOW", "x", "ITEMS", "a"], "bad window"),
    (["BF.INSERT", "k", "WINDOW", "5", "EXPANSION", "2", "ITEMS", "a"], "does not grow"),
    (["BF.INSERT", "k", "WINDOW", "5", "BOGUS", "ITEMS", "a"], "Unknown argument received"),
    (["BF.ADDAT", "w", "yesterday", "a"], "Unix milliseconds"),
    (["BF.ADDAT", "missing", "1000", "a"], "not found"),
    (["BF.SCANDUMP", "w", "0"], "does not apply to a windowed filter"),
    (["BF.LOADCHUNK", "w", "1", "x"], "does not apply to a windowed filter"),
    (["BF.RESERVE", "w", "0.01", "100", "WINDOW", "5"], "item exists"),
    (["BF.LOADWINDOW", "w", "x"], "item exists"),
    (["BF.INFO", "w", "NOPE"], "Invalid information value"),
])
def test_window_argument_refusals(r, args, message):
    r.execute_command("BF.RESERVE", "w", P, 100, "WINDOW", 60)
    r.execute_command("BF.ADD", "w", "a")
    before = digest(r, "w")
    with pytest.raises(redis.ResponseError, match=message):
        r.execute_command(*args)
    assert r.exists("k") == 0
    assert digest(r, "w") == before


def test_wrong_types(r):
    r.set("s", "x")
    r.execute_command("BF.ADD", "plain", "a")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("BF.ADDAT", "s", 1000, "a")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("BF.ADDAT", "plain", 1000, "a")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("BF.INSERT", "plain", "WINDOW", 5, "ITEMS", "a")
    r.execute_command("BF.RESERVE", "w", P, 100, "WINDOW", 60)
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("BF.RESERVE", "w", P, 100)  # the classic form sees another type
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("CF.ADD", "w", "a")


def test_random_window_commands_keep_the_server_up(make_server):
    """3,000 random BF commands on windowed keys (fixed seed): numbers of
    every kind, missing and repeated options, binary items, images cut and
    flipped. Every command is answered, the server stays up, and FLUSHALL
    gives the memory back (slowlog and latency tracking off, as in
    test_fuzz.py: FLUSHALL clears neither)."""
    import random
    s = make_server(config=["--slowlog-max-len", "0", "--latency-tracking", "no"])
    r = s.client()
    rng = random.Random(25)
    r.execute_command("BF.RESERVE", "w0", P, 100, "WINDOW", 5)
    r.execute_command("BF.MADD", "w0", *[f"x{i}" for i in range(50)])
    image = r.dump("w0")
    r.flushall()
    baseline = r.info("memory")["used_memory"]
    numbers = ["0", "-1", "1", "3", "0.5", "1e300", "-1e300", "inf", "-inf", "nan", "abc", "",
               "9223372036854775807", "-9223372036854775808", "18446744073709551616", "1e-13"]
    words = ["WINDOW", "WINDOWITEMS", "EXPANSION", "NONSCALING", "CAPACITY", "ERROR", "ITEMS",
             "NOCREATE"]

    def arg():
        roll = rng.random()
        if roll < 0.4:
            return rng.choice(numbers)
        if roll < 0.7:
            return rng.choice(words)
        if roll < 0.9:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
        return f"{int(time.time() * 1000) + rng.randrange(-10**7, 10**7)}"

    def command():
        key = f"w{rng.randrange(4)}"
        name = rng.choice(["BF.RESERVE", "BF.INSERT", "BF.ADD", "BF.MADD", "BF.EXISTS",
                           "BF.MEXISTS", "BF.INFO", "BF.CARD", "BF.DEBUG", "BF.ADDAT",
                           "BF.LOADWINDOW", "BF.SCANDUMP", "BF.LOADCHUNK"])
        if name == "BF.LOADWINDOW":
            cut = bytearray(image[:-10])
            if cut and rng.random() < 0.7:
                cut[rng.randrange(len(cut))] ^= 1 << rng.randrange(8)
            return [name, key, bytes(cut[:rng.randrange(len(cut) + 1)])]
        if name == "BF.RESERVE" and rng.random() < 0.5:
            return [name, key, rng.choice(["0.01", "0.1"]), rng.choice(["10", "1000"]),
                    *rng.choice([["WINDOW", arg()], ["WINDOWITEMS"], [arg(), arg()]])]
        return [name, key] + [arg() for _ in range(rng.randrange(5))]

    answers = errors = 0
    for _ in range(30):
        pipe = r.pipeline(transaction=False)
        for _ in range(100):
            pipe.execute_command(*command())
        for reply in pipe.execute(raise_on_error=False):
            assert not isinstance(reply, redis.ConnectionError)
            errors += isinstance(reply, redis.ResponseError)
            answers += not isinstance(reply, redis.ResponseError)
    assert answers + errors == 3000
    assert answers > 300 and errors > 300  # both paths exercised
    assert r.ping()
    r.flushall()
    assert r.info("memory")["used_memory"] - baseline < 256 * 1024


def test_prefixed_windowed_writes_replicate_and_rewrite_under_the_prefix(make_server):
    """With PREFIX rb the windowed writes travel as rb.BF.ADDAT (and
    rb.BF.RESERVE, rb.BF.MADD), and the AOF rewrite emits rb.BF.LOADWINDOW:
    a replica and a restart from the AOF hold the same bits."""
    master = make_server(subdir="m", module_args=["PREFIX", "rb"],
                         config=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"])
    replica = make_server(subdir="r", module_args=["PREFIX", "rb"])
    m, rc = master.client(), replica.client()
    rc.replicaof("127.0.0.1", master.port)
    wait_until(lambda: rc.info("replication")["master_link_status"] == "up", 30, "replica link")
    m.execute_command("rb.bf.reserve", "w", P, 1000, "WINDOW", 60)
    m.execute_command("rb.bf.madd", "w", *[f"a{i}" for i in range(300)])
    m.execute_command("rb.bf.insert", "n", "CAPACITY", 100, "WINDOWITEMS", "ITEMS", "x", "y")
    m.execute_command("rb.bf.insert", "t", "WINDOW", 30, "ITEMS", "x", "y")
    m.bgrewriteaof()  # scheduled after the replica's sync, if that is still saving
    wait_until(lambda: m.info("persistence")["aof_rewrite_in_progress"] == 0 and
               m.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "the rewrite")
    m.execute_command("rb.bf.add", "w", "after")
    assert m.execute_command("WAIT", 1, 10000) == 1
    keys = ("w", "n", "t")
    before = {k: digest(m, k) for k in keys}
    assert {k: digest(rc, k) for k in keys} == before
    master.restart()
    m = master.client()
    assert {k: digest(m, k) for k in keys} == before
    assert m.execute_command("rb.bf.exists", "w", "after") == 1
    folder = os.path.join(master.dir, "appendonlydir")
    text = b"".join(open(os.path.join(folder, f), "rb").read() for f in os.listdir(folder)
                    if ".base." in f or ".incr." in f)
    assert b"rb.BF.LOADWINDOW" in text and b"rb.BF.ADDAT" in text


def test_windowed_keys_are_found_by_the_bf_commands_themselves(r):
    """The BF handlers open their key once and hand a windowed key to the
    windowed commands; every BF command on a windowed key answers as one,
    refuses what does not apply, and other types still get WRONGTYPE."""
    r.execute_command("BF.RESERVE", "w", "0.01", "1000", "WINDOW", "60")
    assert r.execute_command("bf.add", "w", "a") == 1  # any case
    assert r.execute_command("BF.MADD", "w", "a", "b") == [0, 1]
    assert r.execute_command("Bf.Exists", "w", "b") == 1
    assert r.execute_command("BF.MEXISTS", "w", "a", "zz") == [1, 0]
    assert r.execute_command("BF.CARD", "w") >= 2  # counted by the windowed filter
    assert r.execute_command("BF.INSERT", "w", "NOCREATE", "ITEMS", "c") == [1]
    for args in (["BF.SCANDUMP", "w", "0"], ["BF.LOADCHUNK", "w", "2", "x"]):
        with pytest.raises(redis.ResponseError, match="does not apply to a windowed filter"):
            r.execute_command(*args)
    with pytest.raises(redis.ResponseError, match="item exists|WRONGTYPE"):
        r.execute_command("BF.RESERVE", "w", "0.01", "10")
    r.set("s", "v")
    for args in (["BF.ADD", "s", "a"], ["BF.INFO", "s"], ["BF.CARD", "s"], ["BF.DEBUG", "s"],
                 ["BF.SCANDUMP", "s", "0"], ["BF.INSERT", "s", "ITEMS", "a"]):
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            r.execute_command(*args)
    assert r.execute_command("BF.EXISTS", "s", "a") == 0  # as RedisBloom: holds nothing
