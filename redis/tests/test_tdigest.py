"""TDIGEST.*: replies and errors (RedisBloom 2.4/2.6's sentences), the
value's life through RDB, AOF, DUMP/RESTORE, COPY and SCANDUMP/LOADCHUNK,
and that queries leave the value unchanged. redis-py 4.3's r.tdigest() is
used where its commands match RedisBloom 2.4+ (min, max); the others go
raw (its create, add and quantile send RedisBloom 2.2's syntax)."""
import math

import pytest
import redis

from conftest import wait_until


def err(c, *args):
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


def info(c, key):
    reply = c.execute_command("TDIGEST.INFO", key)
    return {reply[i].decode() if isinstance(reply[i], bytes) else reply[i]: reply[i + 1]
            for i in range(0, len(reply), 2)}


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


def test_create_and_info(raw):
    assert raw.execute_command("TDIGEST.CREATE", "t") == b"OK"
    i = info(raw, "t")
    assert i["Compression"] == 100 and i["Capacity"] == 610
    assert i["Observations"] == 0 and i["Merged nodes"] == 0 and i["Unmerged nodes"] == 0
    raw.execute_command("TDIGEST.CREATE", "t500", "COMPRESSION", "500")
    assert info(raw, "t500")["Capacity"] == 3010
    assert info(raw, "t500")["Memory usage"] > info(raw, "t")["Memory usage"]
    assert raw.type("t") == b"RBloom-TD"


def test_create_errors(raw):
    raw.execute_command("TDIGEST.CREATE", "t")
    assert err(raw, "TDIGEST.CREATE", "t") == "T-Digest: key already exists"
    assert err(raw, "TDIGEST.CREATE", "n", "COMPRESSION", "x") == \
        "T-Digest: error parsing compression parameter"
    assert err(raw, "TDIGEST.CREATE", "n", "COMPRESSION", "0") == \
        "T-Digest: compression parameter needs to be a positive integer"
    # RedisBloom's text, then the word
    assert err(raw, "TDIGEST.CREATE", "n", "SIZE", "10").startswith(
        "T-Digest: wrong keyword: 'SIZE'")
    assert "allocation failed" in err(raw, "TDIGEST.CREATE", "n", "COMPRESSION", "1000000")
    assert "wrong number of arguments" in err(raw, "TDIGEST.CREATE", "n", "COMPRESSION")
    raw.set("s", "v")
    for args in (["TDIGEST.CREATE", "s"], ["TDIGEST.ADD", "s", "1"], ["TDIGEST.INFO", "s"],
                 ["TDIGEST.QUANTILE", "s", "0.5"], ["TDIGEST.MERGE", "s", "1", "t"]):
        assert err(raw, *args).startswith("WRONGTYPE"), args
    for args in (["TDIGEST.ADD", "none", "1"], ["TDIGEST.RESET", "none"], ["TDIGEST.MIN", "none"],
                 ["TDIGEST.RANK", "none", "1"], ["TDIGEST.MERGE", "d", "1", "none"]):
        assert err(raw, *args) == "T-Digest: key does not exist", args


def test_buffer_and_compressions_follow_redisbloom(raw):
    # 10,000 values added one by one at compression 100: RedisBloom 2.6
    # reports these figures (its RESP3 flow test pins them); the same buffer
    # size, compression trigger and merge rule give the same ones.
    raw.execute_command("TDIGEST.CREATE", "t")
    p = raw.pipeline(transaction=False)
    for x in range(1, 10001):
        p.execute_command("TDIGEST.ADD", "t", x)
    p.execute()
    i = info(raw, "t")
    assert (i["Merged nodes"], i["Unmerged nodes"], i["Merged weight"], i["Unmerged weight"],
            i["Total compressions"]) == (51, 422, 9578, 422, 17)


def test_add_refuses_bad_values_and_adds_nothing(raw):
    raw.execute_command("TDIGEST.CREATE", "t")
    assert err(raw, "TDIGEST.ADD", "t", "1", "x") == "T-Digest: error parsing val parameter"
    assert err(raw, "TDIGEST.ADD", "t", "1", "nan") == "T-Digest: error parsing val parameter"
    assert err(raw, "TDIGEST.ADD", "t", "1", "inf") == \
        "T-Digest: val parameter needs to be a finite number"
    assert info(raw, "t")["Observations"] == 0
    assert raw.execute_command("TDIGEST.ADD", "t", *range(100)) == b"OK"
    i = info(raw, "t")
    assert i["Observations"] == 100 and i["Unmerged nodes"] == 100 and i["Unmerged weight"] == 100


def test_queries_on_small_inputs(r, raw):
    td = r.tdigest()
    raw.execute_command("TDIGEST.CREATE", "t", "COMPRESSION", 500)
    raw.execute_command("TDIGEST.ADD", "t", *range(20))
    assert float(td.min("t")) == 0 and float(td.max("t")) == 19
    assert [float(x) for x in raw.execute_command("TDIGEST.QUANTILE", "t", 0, 1)] == [0, 19]
    assert raw.execute_command("TDIGEST.RANK", "t", -1, 0, 10, 19, 20) == [-1, 0, 10, 19, 20]
    assert raw.execute_command("TDIGEST.REVRANK", "t", 20, 19, 10, 0, -5) == [-1, 0, 9, 19, 20]
    assert float(raw.execute_command("TDIGEST.TRIMMED_MEAN", "t", 0.1, 0.9)) == pytest.approx(9.5)
    raw.execute_command("TDIGEST.CREATE", "r", "COMPRESSION", 1000)
    raw.execute_command("TDIGEST.ADD", "r", 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5)
    assert raw.execute_command("TDIGEST.BYRANK", "r", 0, 1, 3, 14, 15) == \
        [b"1", b"2", b"3", b"5", b"inf"]
    assert raw.execute_command("TDIGEST.BYREVRANK", "r", 0, 5, 14, 15) == \
        [b"5", b"4", b"1", b"-inf"]
    assert raw.execute_command("TDIGEST.RANK", "r", 0, 1, 2, 3, 4, 5, 6) == [-1, 0, 2, 4, 8, 12, 15]


def test_empty_digest_answers(raw):
    raw.execute_command("TDIGEST.CREATE", "e")
    assert raw.execute_command("TDIGEST.MIN", "e") == b"nan"
    assert raw.execute_command("TDIGEST.QUANTILE", "e", 0.5) == [b"nan"]
    assert raw.execute_command("TDIGEST.CDF", "e", 1) == [b"nan"]
    assert raw.execute_command("TDIGEST.RANK", "e", 1) == [-2]
    assert raw.execute_command("TDIGEST.BYRANK", "e", 0) == [b"nan"]
    assert raw.execute_command("TDIGEST.TRIMMED_MEAN", "e", 0.1, 0.9) == b"nan"


def test_one_value_is_answered(raw):
    raw.execute_command("TDIGEST.CREATE", "one")
    raw.execute_command("TDIGEST.ADD", "one", 5)
    assert raw.execute_command("TDIGEST.QUANTILE", "one", 0, 0.5, 1) == [b"5", b"5", b"5"]
    assert raw.execute_command("TDIGEST.CDF", "one", 5) == [b"0.5"]


def test_query_errors(raw):
    raw.execute_command("TDIGEST.CREATE", "t")
    assert err(raw, "TDIGEST.QUANTILE", "t", "x") == "T-Digest: error parsing quantile"
    assert err(raw, "TDIGEST.QUANTILE", "t", "1.5") == "T-Digest: quantile should be in [0,1]"
    assert err(raw, "TDIGEST.CDF", "t", "x") == "T-Digest: error parsing cdf"
    assert err(raw, "TDIGEST.RANK", "t", "x") == "T-Digest: error parsing value"
    assert err(raw, "TDIGEST.BYRANK", "t", "0.5") == "T-Digest: error parsing rank"
    assert err(raw, "TDIGEST.BYRANK", "t", "-1") == "T-Digest: rank needs to be non negative"
    assert err(raw, "TDIGEST.TRIMMED_MEAN", "t", "x", "1") == \
        "T-Digest: error parsing low_cut_percentile"
    assert err(raw, "TDIGEST.TRIMMED_MEAN", "t", "0", "y") == \
        "T-Digest: error parsing high_cut_percentile"
    assert err(raw, "TDIGEST.TRIMMED_MEAN", "t", "0", "2") == \
        "T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]"
    assert err(raw, "TDIGEST.TRIMMED_MEAN", "t", "0.5", "0.5") == \
        "T-Digest: low_cut_percentile should be lower than high_cut_percentile"


def test_accuracy_of_quantiles(raw):
    raw.execute_command("TDIGEST.CREATE", "u", "COMPRESSION", 500)
    raw.execute_command("TDIGEST.ADD", "u", *[i * 0.01 for i in range(1, 10000)])
    got = [float(x) for x in raw.execute_command("TDIGEST.QUANTILE", "u", 0.01, 0.5, 0.99)]
    assert got == pytest.approx([1.0, 50.0, 99.0], abs=0.01)
    assert float(raw.execute_command("TDIGEST.CDF", "u", 50)[0]) == pytest.approx(0.5, abs=0.001)


def test_merge_rules(raw):
    raw.execute_command("TDIGEST.CREATE", "a{m}", "COMPRESSION", 100)
    raw.execute_command("TDIGEST.CREATE", "b{m}", "COMPRESSION", 200)
    raw.execute_command("TDIGEST.ADD", "a{m}", *range(10))
    raw.execute_command("TDIGEST.ADD", "b{m}", *range(10, 30))
    # A new destination takes the largest compression of the sources.
    raw.execute_command("TDIGEST.MERGE", "d{m}", 2, "a{m}", "b{m}")
    assert info(raw, "d{m}")["Compression"] == 200 and info(raw, "d{m}")["Observations"] == 30
    # An existing one keeps its own and its contents, unless OVERRIDE.
    raw.execute_command("TDIGEST.CREATE", "k{m}", "COMPRESSION", 55)
    raw.execute_command("TDIGEST.ADD", "k{m}", 100)
    raw.execute_command("TDIGEST.MERGE", "k{m}", 1, "a{m}")
    assert info(raw, "k{m}")["Compression"] == 55 and info(raw, "k{m}")["Observations"] == 11
    raw.execute_command("TDIGEST.MERGE", "k{m}", 1, "a{m}", "OVERRIDE")
    assert info(raw, "k{m}")["Compression"] == 100 and info(raw, "k{m}")["Observations"] == 10
    raw.execute_command("TDIGEST.MERGE", "k{m}", 1, "a{m}", "COMPRESSION", 300)
    assert info(raw, "k{m}")["Compression"] == 300
    # Merging into itself doubles the weight.
    raw.execute_command("TDIGEST.MERGE", "a{m}", 1, "a{m}")
    assert info(raw, "a{m}")["Observations"] == 20
    assert err(raw, "TDIGEST.MERGE", "z{m}", 2, "z{m}", "a{m}") == "T-Digest: key does not exist"
    assert err(raw, "TDIGEST.MERGE", "d{m}", 0, "a{m}") == \
        "T-Digest: numkeys needs to be a positive integer"
    assert err(raw, "TDIGEST.MERGE", "d{m}", "x", "a{m}") == "T-Digest: error parsing numkeys"
    # RedisBloom's text, then the word
    assert err(raw, "TDIGEST.MERGE", "d{m}", 1, "a{m}", "EXTRA").startswith(
        "T-Digest: wrong keyword: 'EXTRA'")
    assert "allocation of destination digest failed" in \
        err(raw, "TDIGEST.MERGE", "d{m}", 1, "a{m}", "COMPRESSION", 10 ** 7)


def test_merge_overflow_is_an_error(raw):
    raw.execute_command("TDIGEST.CREATE", "x")
    raw.execute_command("TDIGEST.ADD", "x", *range(20))
    with pytest.raises(redis.ResponseError, match="overflow detected"):
        for _ in range(100):
            raw.execute_command("TDIGEST.MERGE", "x", 5, "x", "x", "x", "x", "x")
    assert info(raw, "x")["Observations"] < 2 ** 63


def test_queries_leave_the_value_unchanged(raw):
    raw.execute_command("TDIGEST.CREATE", "t")
    raw.execute_command("TDIGEST.ADD", "t", *range(300))
    before = (digest(raw, "t"), info(raw, "t"))
    raw.execute_command("TDIGEST.QUANTILE", "t", 0.5)
    raw.execute_command("TDIGEST.CDF", "t", 7)
    raw.execute_command("TDIGEST.RANK", "t", 7)
    raw.execute_command("TDIGEST.TRIMMED_MEAN", "t", 0.1, 0.2)
    assert (digest(raw, "t"), info(raw, "t")) == before


def test_reset(raw):
    raw.execute_command("TDIGEST.CREATE", "t", "COMPRESSION", 300)
    raw.execute_command("TDIGEST.ADD", "t", 1, 2, 3)
    assert raw.execute_command("TDIGEST.RESET", "t") == b"OK"
    i = info(raw, "t")
    assert i["Observations"] == 0 and i["Compression"] == 300


def test_dump_restore_copy_and_memory(raw):
    raw.execute_command("TDIGEST.CREATE", "t{c}")
    raw.execute_command("TDIGEST.ADD", "t{c}", *range(1000))
    q = raw.execute_command("TDIGEST.QUANTILE", "t{c}", 0.1, 0.5, 0.9)
    payload = raw.dump("t{c}")
    raw.restore("u{c}", 0, payload)
    assert raw.execute_command("TDIGEST.QUANTILE", "u{c}", 0.1, 0.5, 0.9) == q
    assert raw.copy("t{c}", "v{c}")
    assert digest(raw, "v{c}") == digest(raw, "t{c}")
    raw.execute_command("TDIGEST.ADD", "v{c}", 5000)
    assert info(raw, "t{c}")["Observations"] == 1000  # the copy is independent
    assert raw.memory_usage("t{c}") >= info(raw, "t{c}")["Memory usage"]


def test_scandump_loadchunk_round_trip(raw):
    raw.execute_command("TDIGEST.CREATE", "t")
    raw.execute_command("TDIGEST.ADD", "t", *[i * 0.5 for i in range(2000)])
    chunks = []
    it = 0
    while True:
        it, data = raw.execute_command("TDIGEST.SCANDUMP", "t", it)
        if it == 0:
            break
        chunks.append((it, data))
    for it, data in chunks:
        raw.execute_command("TDIGEST.LOADCHUNK", "u", it, data)
    assert digest(raw, "u") == digest(raw, "t")
    assert raw.execute_command("TDIGEST.QUANTILE", "u", 0.99) == \
        raw.execute_command("TDIGEST.QUANTILE", "t", 0.99)


def test_rdb_restart_and_debug_reload(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("TDIGEST.CREATE", "t")
    c.execute_command("TDIGEST.ADD", "t", *[math.sin(i) for i in range(5000)])
    answers = c.execute_command("TDIGEST.QUANTILE", "t", 0.01, 0.5, 0.99)
    mem = c.memory_usage("t")
    c.execute_command("DEBUG", "RELOAD")
    assert c.execute_command("TDIGEST.QUANTILE", "t", 0.01, 0.5, 0.99) == answers
    assert c.save()
    s.restart()
    c = s.client()
    assert c.execute_command("TDIGEST.QUANTILE", "t", 0.01, 0.5, 0.99) == answers
    assert info(c, "t")["Unmerged nodes"] == 0  # saved compressed, as RedisBloom
    assert c.memory_usage("t") == mem


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_and_restart(make_server, preamble):
    s = make_server(config=["--appendonly", "yes", "--aof-use-rdb-preamble", preamble,
                            "--appendfsync", "always"])
    c = s.client()
    c.execute_command("TDIGEST.CREATE", "t", "COMPRESSION", 50)
    c.execute_command("TDIGEST.ADD", "t", *range(3000))
    c.bgrewriteaof()
    wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
               c.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "BGREWRITEAOF")
    c.execute_command("TDIGEST.ADD", "t", 5000)  # replayed after the base
    answers = c.execute_command("TDIGEST.QUANTILE", "t", 0.5, 1)
    s.restart()
    c = s.client()
    assert c.execute_command("TDIGEST.QUANTILE", "t", 0.5, 1) == answers
    assert info(c, "t")["Observations"] == 3001
