"""KLL.*: ringbloom's own commands over the library's KLL sketch, shaped as
TDIGEST.*: replies and errors, the guaranteed rank error on a fixed-seed
stream, the value's life through RDB, AOF (rewrite and replay), DUMP/RESTORE,
COPY, SCANDUMP/LOADCHUNK and replication (a replica and an AOF replay hold
the same sketch, coins included), MEMORY USAGE, RESP3 and ACL flags."""
import math
import random

import pytest
import redis

from conftest import wait_until


def err(c, *args):
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


def info(c, key):
    reply = c.execute_command("KLL.INFO", key)
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


def values(n, seed):
    rng = random.Random(seed)
    return [rng.lognormvariate(0, 1) for _ in range(n)]


def test_create_info_and_type(raw):
    assert raw.execute_command("KLL.CREATE", "s") == b"OK"
    i = info(raw, "s")
    assert i["K"] == 200 and i["Observations"] == 0 and i["Retained items"] == 0
    assert i["Levels"] == 1
    assert float(i["Rank error"]) == pytest.approx(0.0133, abs=0.0005)
    assert raw.type("s") == b"RBloomKLL"
    raw.execute_command("KLL.CREATE", "big", "K", 1000, "SEED", 7)
    assert info(raw, "big")["K"] == 1000
    assert float(info(raw, "big")["Rank error"]) < float(i["Rank error"])


def test_create_refusals(raw):
    raw.execute_command("KLL.CREATE", "s")
    assert err(raw, "KLL.CREATE", "s") == "KLL: key already exists"
    raw.set("str", "x")
    assert "WRONGTYPE" in err(raw, "KLL.CREATE", "str")
    for bad in ("7", "65536", "abc", "-1"):
        assert err(raw, "KLL.CREATE", "t", "K", bad).startswith("KLL: K must be an integer from 8")
    assert err(raw, "KLL.CREATE", "t", "SEED", "-1").startswith("KLL: SEED must be an integer")
    assert err(raw, "KLL.CREATE", "t", "SEED", "1x").startswith("KLL: SEED must be an integer")
    assert err(raw, "KLL.CREATE", "t", "COMPRESSION", "100").startswith("KLL: wrong keyword")
    assert "wrong number of arguments" in err(raw, "KLL.CREATE", "t", "K")
    assert raw.exists("t") == 0


def test_add_queries_and_errors(raw):
    raw.execute_command("KLL.CREATE", "s", "SEED", 1)
    assert err(raw, "KLL.ADD", "s", 1, "x") == "KLL: error parsing val parameter"
    assert err(raw, "KLL.ADD", "s", "nan") == "KLL: error parsing val parameter"
    assert err(raw, "KLL.ADD", "s", "inf") == "KLL: val parameter needs to be a finite number"
    assert info(raw, "s")["Observations"] == 0  # refused batches add nothing
    assert err(raw, "KLL.ADD", "nokey", 1) == "KLL: key does not exist"
    # Empty: nan, as TDIGEST.
    assert raw.execute_command("KLL.MIN", "s") == b"nan"
    assert raw.execute_command("KLL.QUANTILE", "s", 0.5) == [b"nan"]
    assert raw.execute_command("KLL.RANK", "s", 3) == [-2]
    raw.execute_command("KLL.ADD", "s", *range(1, 101))  # under k: kept exactly
    assert raw.execute_command("KLL.MIN", "s") == b"1"
    assert raw.execute_command("KLL.MAX", "s") == b"100"
    assert raw.execute_command("KLL.QUANTILE", "s", 0, 0.5, 1) == [b"1", b"51", b"100"]
    assert raw.execute_command("KLL.RANK", "s", 0, 10, 1000) == [-1, 9, 100]
    assert raw.execute_command("KLL.REVRANK", "s", 0, 91, 1000) == [100, 9, -1]
    assert raw.execute_command("KLL.BYRANK", "s", 0, 9, 100) == [b"1", b"10", b"inf"]
    assert raw.execute_command("KLL.BYREVRANK", "s", 0, 9, 100) == [b"100", b"91", b"-inf"]
    assert float(raw.execute_command("KLL.CDF", "s", 50)[0]) == pytest.approx(0.495)
    assert float(raw.execute_command("KLL.TRIMMED_MEAN", "s", 0.1, 0.9)) == pytest.approx(50.5)
    assert err(raw, "KLL.QUANTILE", "s", 2) == "KLL: quantile should be in [0,1]"
    assert err(raw, "KLL.QUANTILE", "s", "x") == "KLL: error parsing quantile"
    assert err(raw, "KLL.CDF", "s", "x") == "KLL: error parsing cdf"
    assert err(raw, "KLL.RANK", "s", "x") == "KLL: error parsing value"
    assert err(raw, "KLL.BYRANK", "s", -1) == "KLL: rank needs to be non negative"
    assert err(raw, "KLL.TRIMMED_MEAN", "s", 0.5, 0.1) == \
        "KLL: low_cut_percentile should be lower than high_cut_percentile"
    raw.set("str", "x")
    assert "WRONGTYPE" in err(raw, "KLL.QUANTILE", "str", 0.5)
    assert "WRONGTYPE" in err(raw, "TDIGEST.QUANTILE", "s", 0.5)


def test_rank_error_within_the_bound_on_a_large_stream(raw):
    """10^5 log-normal values (seed 3), k = 200: every decile's true rank is
    within the stated 99% bound (1.33% of the count)."""
    xs = values(100_000, 3)
    raw.execute_command("KLL.CREATE", "s", "SEED", 11)
    for at in range(0, len(xs), 5000):
        raw.execute_command("KLL.ADD", "s", *xs[at:at + 5000])
    i = info(raw, "s")
    assert i["Observations"] == len(xs) and i["Retained items"] < 1000 and i["Levels"] > 5
    eps = float(i["Rank error"])
    ordered = sorted(xs)
    qs = [q / 10 for q in range(1, 10)]
    answers = [float(v) for v in raw.execute_command("KLL.QUANTILE", "s", *qs)]
    for q, v in zip(qs, answers):
        true_rank = sum(1 for x in ordered if x <= v) / len(xs)
        assert abs(true_rank - q) <= eps, (q, v, true_rank)


def test_the_same_seed_and_commands_make_the_same_sketch(raw):
    xs = values(20_000, 5)
    for key in ("a", "b"):
        raw.execute_command("KLL.CREATE", key, "K", 64, "SEED", 42)
        for at in range(0, len(xs), 1000):
            raw.execute_command("KLL.ADD", key, *xs[at:at + 1000])
    raw.execute_command("KLL.CREATE", "c", "K", 64, "SEED", 43)
    for at in range(0, len(xs), 1000):
        raw.execute_command("KLL.ADD", "c", *xs[at:at + 1000])
    assert digest(raw, "a") == digest(raw, "b")
    assert digest(raw, "a") != digest(raw, "c")  # other coins, another sketch


def test_merge(raw):
    raw.execute_command("KLL.CREATE", "a{m}", "SEED", 1)
    raw.execute_command("KLL.CREATE", "b{m}", "SEED", 2)
    raw.execute_command("KLL.ADD", "a{m}", *range(0, 50))
    raw.execute_command("KLL.ADD", "b{m}", *range(50, 100))
    assert raw.execute_command("KLL.MERGE", "d{m}", 2, "a{m}", "b{m}") == b"OK"
    assert info(raw, "d{m}")["Observations"] == 100
    assert raw.execute_command("KLL.QUANTILE", "d{m}", 0.5) == [b"50"]
    # Kept destination: adds to it; OVERRIDE: replaces it.
    raw.execute_command("KLL.MERGE", "d{m}", 1, "a{m}")
    assert info(raw, "d{m}")["Observations"] == 150
    raw.execute_command("KLL.MERGE", "d{m}", 1, "a{m}", "OVERRIDE")
    assert info(raw, "d{m}")["Observations"] == 50
    raw.execute_command("KLL.MERGE", "d{m}", 2, "d{m}", "d{m}")  # itself, twice
    assert info(raw, "d{m}")["Observations"] == 150
    raw.execute_command("KLL.CREATE", "k{m}", "K", 100)
    assert "different K" in err(raw, "KLL.MERGE", "d{m}", 2, "a{m}", "k{m}")
    assert "different K" in err(raw, "KLL.MERGE", "n{m}", 1, "a{m}", "K", 100)
    assert raw.exists("n{m}") == 0
    assert err(raw, "KLL.MERGE", "d{m}", 1, "nokey{m}") == "KLL: key does not exist"
    assert err(raw, "KLL.MERGE", "d{m}", "x", "a{m}") == "KLL: error parsing numkeys"
    assert err(raw, "KLL.MERGE", "d{m}", 0, "a{m}") == "KLL: numkeys needs to be a positive integer"
    assert err(raw, "KLL.MERGE", "d{m}", 1, "a{m}", "FOO") == "KLL: wrong keyword"
    assert "wrong number of arguments" in err(raw, "KLL.MERGE", "d{m}", 3, "a{m}")


def test_reset_keeps_k_and_seed(raw):
    raw.execute_command("KLL.CREATE", "s", "K", 50, "SEED", 9)
    raw.execute_command("KLL.CREATE", "fresh", "K", 50, "SEED", 9)
    before = digest(raw, "s")
    raw.execute_command("KLL.ADD", "s", *values(3000, 1))
    assert raw.execute_command("KLL.RESET", "s") == b"OK"
    assert info(raw, "s")["K"] == 50 and info(raw, "s")["Observations"] == 0
    assert digest(raw, "s") == before == digest(raw, "fresh")


def test_queries_leave_the_value_unchanged_and_memory_is_counted(raw):
    raw.execute_command("KLL.CREATE", "s", "SEED", 4)
    raw.execute_command("KLL.ADD", "s", *values(5000, 2))
    before = digest(raw, "s")
    mem = raw.memory_usage("s")
    assert mem >= info(raw, "s")["Retained items"] * 8
    raw.execute_command("KLL.QUANTILE", "s", 0.5)
    raw.execute_command("KLL.CDF", "s", 1)
    raw.execute_command("KLL.TRIMMED_MEAN", "s", 0.1, 0.9)
    assert digest(raw, "s") == before
    # The query view (16 bytes a kept value) is counted while it exists.
    assert raw.memory_usage("s") >= mem + info(raw, "s")["Retained items"] * 16
    raw.execute_command("KLL.ADD", "s", 1)
    assert raw.memory_usage("s") < mem + info(raw, "s")["Retained items"] * 16


def test_used_memory_follows_the_values(raw):
    base = raw.info("memory")["used_memory"]
    for i in range(200):
        raw.execute_command("KLL.CREATE", f"s{i}", "SEED", i)
        raw.execute_command("KLL.ADD", f"s{i}", *range(300))
    grown = raw.info("memory")["used_memory"] - base
    per_key = sum(raw.memory_usage(f"s{i}") for i in range(200))
    # used_memory sees the values (module allocations), within the key and
    # allocator overheads MEMORY USAGE leaves out.
    assert 0.8 * per_key <= grown <= 1.5 * per_key
    raw.flushall()


def test_dump_restore_copy_and_scandump(raw):
    raw.execute_command("KLL.CREATE", "t{c}", "SEED", 5)
    raw.execute_command("KLL.ADD", "t{c}", *values(4000, 7))
    q = raw.execute_command("KLL.QUANTILE", "t{c}", 0.1, 0.5, 0.9)
    raw.restore("u{c}", 0, raw.dump("t{c}"))
    assert digest(raw, "u{c}") == digest(raw, "t{c}")
    assert raw.execute_command("KLL.QUANTILE", "u{c}", 0.1, 0.5, 0.9) == q
    assert raw.copy("t{c}", "v{c}")
    assert digest(raw, "v{c}") == digest(raw, "t{c}")
    more = values(3000, 8)
    for key in ("t{c}", "u{c}", "v{c}"):  # restored and copied go on as the original
        raw.execute_command("KLL.ADD", key, *more)
    assert digest(raw, "u{c}") == digest(raw, "t{c}") == digest(raw, "v{c}")
    raw.execute_command("KLL.ADD", "v{c}", 1)
    assert info(raw, "t{c}")["Observations"] == 7000  # the copy is independent
    chunks = []
    it = 0
    while True:
        it, data = raw.execute_command("KLL.SCANDUMP", "t{c}", it)
        if it == 0:
            break
        chunks.append((it, data))
    for it, data in chunks:
        raw.execute_command("KLL.LOADCHUNK", "w{c}", it, data)
    assert digest(raw, "w{c}") == digest(raw, "t{c}")
    bad = bytearray(chunks[-1][1])
    bad[len(bad) // 2] ^= 1
    raw.execute_command("KLL.LOADCHUNK", "x{c}", chunks[0][0], chunks[0][1])
    assert err(raw, "KLL.LOADCHUNK", "x{c}", chunks[-1][0], bytes(bad)) == \
        "KLL: invalid chunk, or chunks out of order"
    assert raw.exists("x{c}") == 0
    # A t-digest's dump is not a KLL's.
    raw.execute_command("TDIGEST.CREATE", "td{c}")
    it, header = raw.execute_command("TDIGEST.SCANDUMP", "td{c}", 0)
    raw.execute_command("KLL.LOADCHUNK", "y{c}", it, header)
    it, data = raw.execute_command("TDIGEST.SCANDUMP", "td{c}", it)
    assert err(raw, "KLL.LOADCHUNK", "y{c}", it, data) == \
        "KLL: invalid chunk, or chunks out of order"


def test_rdb_restart_and_debug_reload(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("KLL.CREATE", "s", "SEED", 6)
    c.execute_command("KLL.ADD", "s", *[math.sin(i) for i in range(5000)])
    answers = c.execute_command("KLL.QUANTILE", "s", 0.01, 0.5, 0.99)
    d = digest(c, "s")
    c.execute_command("DEBUG", "RELOAD")
    assert digest(c, "s") == d
    assert c.save()
    s.restart()
    c = s.client()
    assert digest(c, "s") == d
    assert c.execute_command("KLL.QUANTILE", "s", 0.01, 0.5, 0.99) == answers


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_and_replay_keep_the_sketch(make_server, preamble):
    """A seed drawn by the master is written to the AOF: a replay of the
    log builds the same sketch, coins included."""
    s = make_server(config=["--appendonly", "yes", "--aof-use-rdb-preamble", preamble,
                            "--appendfsync", "always"])
    c = s.client()
    c.execute_command("KLL.CREATE", "s", "K", 32)  # no SEED: the master draws one
    c.execute_command("KLL.CREATE", "r", "K", 32)
    c.execute_command("KLL.ADD", "s", *values(3000, 1))
    c.execute_command("KLL.ADD", "r", *values(3000, 1))
    c.bgrewriteaof()
    wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
               c.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "BGREWRITEAOF")
    c.execute_command("KLL.CREATE", "after", "K", 32)  # replayed from the log, not the base
    for key in ("s", "after"):
        c.execute_command("KLL.ADD", key, *values(3000, 2))
    before = {k: digest(c, k) for k in ("s", "r", "after")}
    assert before["s"] != before["r"]  # two draws, two seeds
    s.restart()
    c = s.client()
    assert {k: digest(c, k) for k in ("s", "r", "after")} == before


def test_replica_holds_the_same_sketches(make_server):
    master = make_server(subdir="m")
    m = master.client()
    m.execute_command("KLL.CREATE", "before", "K", 16)
    m.execute_command("KLL.ADD", "before", *values(2000, 1))
    replica = make_server(subdir="r")
    rc = replica.client()
    rc.replicaof("127.0.0.1", master.port)
    wait_until(lambda: rc.info("replication")["master_link_status"] == "up", 30, "replica link")
    # Writes after the sync travel as commands; the drawn seed with them.
    m.execute_command("KLL.CREATE", "after", "K", 16)
    for at in range(0, 6000, 500):
        m.execute_command("KLL.ADD", "after", *values(6000, 3)[at:at + 500])
        m.execute_command("KLL.ADD", "before", *values(500, at))
        m.execute_command("KLL.QUANTILE", "after", 0.5)  # reads on the master only
    m.execute_command("KLL.MERGE", "merged", 2, "before", "after")
    m.execute_command("KLL.ADD", "merged", *values(1000, 9))
    m.copy("merged", "copied")
    m.execute_command("WAIT", 1, 10000)
    for key in ("before", "after", "merged", "copied"):
        assert digest(rc, key) == digest(m, key), key
    assert rc.execute_command("KLL.QUANTILE", "merged", 0.9) == \
        m.execute_command("KLL.QUANTILE", "merged", 0.9)
    with pytest.raises(redis.ReadOnlyError):
        rc.execute_command("KLL.ADD", "after", 1)


def test_resp3_info_is_a_map_and_doubles_are_doubles(resp3):
    assert resp3.send("HELLO", "3")[0] == "%"
    assert resp3.send("KLL.CREATE", "s") == ("+", "OK")
    resp3.send("KLL.ADD", "s", 1, 2, 3)
    kind, pairs = resp3.send("KLL.INFO", "s")
    assert kind == "%" and len(pairs) == 6
    fields = {k[1]: v for k, v in pairs}
    assert list(fields) == ["K", "Observations", "Retained items", "Levels", "Rank error",
                            "Memory usage"]
    assert fields["K"] == (":", 200) and fields["Rank error"][0] == ","
    assert resp3.send("KLL.QUANTILE", "s", 0.5) == ("*", [(",", 2.0)])
    assert resp3.send("KLL.BYRANK", "s", 3) == ("*", [(",", math.inf)])
    # The same keys as GETKEYS reports them: numkeys sources, read only.
    kind, keys = resp3.send("COMMAND", "GETKEYS", "KLL.MERGE", "d", 2, "a", "b", "OVERRIDE")
    assert [k[1] for k in keys] == [b"d", b"a", b"b"]


def test_acl_read_only_user(r, server):
    r.execute_command("KLL.CREATE", "s")
    r.execute_command("KLL.ADD", "s", 1, 2, 3)
    r.acl_setuser("reader", enabled=True, passwords=["+pw"], commands=["+@all"],
                  keys=["%R~*"])
    u = server.client(username="reader", password="pw")
    assert u.execute_command("KLL.QUANTILE", "s", 0.5) == [b"2"]
    assert u.execute_command("KLL.MAX", "s") == b"3"
    for args in (["KLL.ADD", "s", 4], ["KLL.CREATE", "t"], ["KLL.RESET", "s"],
                 ["KLL.MERGE", "s", 1, "s"]):
        with pytest.raises(redis.exceptions.NoPermissionError):
            u.execute_command(*args)
    assert r.execute_command("KLL.INFO", "s")[3] == 3
