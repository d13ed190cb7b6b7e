"""CF.*, CMS.* and TOPK.*: replies and errors (RedisBloom 2.4/2.6's
sentences), through redis-py's r.cf(), r.cms(), r.topk() and raw commands."""
import pytest
import redis


def err(c, *args):
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


# --- CF -----------------------------------------------------------------------

def test_cf_del_of_nothing_is_no_modification(r):
    """A CF.DEL that removes nothing leaves a WATCH on the key standing, as
    an SREM of a missing member does; one that removes a copy breaks it."""
    cf = r.cf()
    assert cf.create("c", 1000)
    assert cf.add("c", "a") == 1
    for item, removed in (("nope", 0), ("a", 1), ("a", 0)):
        with r.pipeline() as p:
            p.watch("c")
            assert p.execute_command("CF.DEL", "c", item) == removed
            p.multi()
            p.ping()
            if removed:
                with pytest.raises(redis.WatchError):
                    p.execute()
            else:
                assert p.execute() == [True]
    assert cf.info("c").deletedNum == 1


def test_cf_basics(r):
    cf = r.cf()
    assert cf.create("c", 1000)
    assert cf.add("c", "a") == 1
    assert cf.add("c", "a") == 1          # a second copy, as RedisBloom
    assert cf.addnx("c", "a") == 0
    assert cf.addnx("c", "b") == 1
    assert cf.insert("c", ["x", "y"]) == [1, 1]
    assert cf.insertnx("c", ["x", "z"]) == [0, 1]
    assert cf.exists("c", "a") == 1 and cf.exists("c", "nope") == 0
    assert r.execute_command("CF.MEXISTS", "c", "a", "nope") == [1, 0]
    assert cf.count("c", "a") == 2
    assert cf.delete("c", "a") == 1
    assert cf.count("c", "a") == 1
    info = cf.info("c")
    assert info.insertedNum == 5 and info.deletedNum == 1  # deletions count down, as RedisBloom
    assert info.bucketSize == 2 and info.expansionRate == 1 and info.maxIteration == 20
    assert info.filterNum == 1 and info.bucketNum == 512
    assert r.type("c") == b"RBloom-CF"


def test_cf_errors(r, raw):
    assert err(raw, "CF.RESERVE", "c", "x") == "Bad capacity"
    assert err(raw, "CF.RESERVE", "c", "3") == "Capacity must be at least (BucketSize * 2)"
    assert err(raw, "CF.RESERVE", "c", "100", "MAXITERATIONS", "x") == "Couldn't parse MAXITERATIONS"
    assert err(raw, "CF.RESERVE", "c", "100", "MAXITERATIONS", "0") == \
        "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive."
    assert err(raw, "CF.RESERVE", "c", "100", "BUCKETSIZE", "x") == "Couldn't parse BUCKETSIZE"
    assert err(raw, "CF.RESERVE", "c", "100", "BUCKETSIZE", "0") == \
        "BUCKETSIZE: value must be an integer between 1 and 255, inclusive."
    assert err(raw, "CF.RESERVE", "c", "100", "EXPANSION", "x") == "Couldn't parse EXPANSION"
    assert err(raw, "CF.RESERVE", "c", "100", "EXPANSION", "-1") == \
        "EXPANSION: value must be an integer between 0 and 32768, inclusive."
    assert "wrong number of arguments" in err(raw, "CF.RESERVE", "c")
    assert "wrong number of arguments" in err(raw, "CF.RESERVE", "c", "100", "BUCKETSIZE")
    raw.execute_command("CF.RESERVE", "c", "100")
    assert err(raw, "CF.RESERVE", "c", "100") == "item exists"
    assert err(raw, "CF.INSERT", "none", "NOCREATE", "ITEMS", "a") == "not found"
    assert err(raw, "CF.INSERT", "c", "BOGUS", "ITEMS", "a").startswith(
        "Unknown argument received: 'BOGUS'; CF.INSERT takes")
    assert err(raw, "CF.INSERT", "c", "CAPACITY", "x", "ITEMS", "a") == "Bad capacity"
    assert "wrong number of arguments" in err(raw, "CF.INSERT", "c", "ITEMS")
    assert err(raw, "CF.DEL", "none", "a") == "Not found"
    assert err(raw, "CF.INFO", "none") == "not found"
    assert raw.execute_command("CF.EXISTS", "none", "a") == 0
    assert raw.execute_command("CF.COUNT", "none", "a") == 0
    raw.set("s", "v")
    for args in (["CF.ADD", "s", "a"], ["CF.INSERT", "s", "ITEMS", "a"], ["CF.INFO", "s"],
                 ["CF.RESERVE", "s", "100"], ["CF.SCANDUMP", "s", "0"]):
        assert err(raw, *args).startswith("WRONGTYPE"), args
    assert raw.execute_command("CF.EXISTS", "s", "a") == 0


def test_cf_full_without_expansion(r, raw):
    raw.execute_command("CF.RESERVE", "full", "4", "EXPANSION", "0")
    answers = raw.execute_command("CF.INSERT", "full", "ITEMS", *[f"i{i}" for i in range(40)])
    assert answers.count(-1) > 0 and set(answers) <= {1, -1}
    assert err(raw, "CF.ADD", "full", "another-one") == "Filter is full"


def test_cf_max_expansions(make_server):
    s = make_server(module_args=["CF_MAX_EXPANSIONS", "2"])
    c = s.client()
    c.execute_command("CF.RESERVE", "g", "4", "EXPANSION", "1")
    with pytest.raises(redis.ResponseError, match="Maximum expansions reached"):
        for i in range(200):
            c.execute_command("CF.ADD", "g", f"i{i}")


def test_cf_scandump_loadchunk(r, raw):
    cf = r.cf()
    cf.create("src", 5000)
    items = [f"k{i}" for i in range(3000)]
    cf.insert("src", items)
    it, chunks = 0, []
    while True:
        it, data = cf.scandump("src", it)
        if it == 0:
            break
        chunks.append((it, data))
    for it, data in chunks:
        assert cf.loadchunk("dst", it, data)
    assert raw.execute_command("DEBUG", "DIGEST-VALUE", "src") == \
        raw.execute_command("DEBUG", "DIGEST-VALUE", "dst")
    assert all(raw.execute_command("CF.MEXISTS", "dst", *items))
    raw.execute_command("CF.RESERVE", "empty", "100")
    assert raw.execute_command("CF.SCANDUMP", "empty", "0") == [0, None]
    # Damage: a header that is not one, and a slice out of order.
    assert err(raw, "CF.LOADCHUNK", "bad", "1", b"junk") == "Invalid header"
    assert err(raw, "CF.LOADCHUNK", "bad", "0", b"junk") == "Invalid position"
    assert raw.execute_command("CF.LOADCHUNK", "bad", "1", chunks[0][1]) == b"OK"
    assert err(raw, "CF.LOADCHUNK", "bad", "999", b"x" * 10) == "Couldn't load chunk!"
    # A flipped byte in the image is found by the checksum at the end; the key is dropped.
    it, data = chunks[1]
    flipped = bytearray(data)
    flipped[len(flipped) // 2] ^= 1
    assert err(raw, "CF.LOADCHUNK", "bad", str(it), bytes(flipped)) == "Couldn't load chunk!"
    assert raw.exists("bad") == 0


# --- CMS ----------------------------------------------------------------------

def test_cms(r, raw):
    cms = r.cms()
    assert cms.initbydim("d", 2000, 5)
    assert cms.initbyprob("p", 0.001, 0.01)
    assert raw.execute_command("CMS.INFO", "p") == [b"width", 2000, b"depth", 7, b"count", 0]
    assert cms.incrby("d", ["a", "b", "a"], [3, 1, 2]) == [3, 1, 5]
    assert cms.query("d", "a", "b", "zz") == [5, 1, 0]
    info = cms.info("d")
    assert (info.width, info.depth, info.count) == (2000, 5, 6)
    assert cms.initbydim("e", 2000, 5)
    cms.incrby("e", ["a"], [10])
    assert cms.initbydim("m", 2000, 5)
    assert cms.merge("m", 2, ["d", "e"], [1, 3])
    assert cms.query("m", "a", "b") == [5 + 30, 1]
    assert cms.merge("m", 2, ["d", "e"])
    assert cms.query("m", "a") == [15]


def test_cms_errors(r, raw):
    assert err(raw, "CMS.INITBYDIM", "d", "0", "5") == "CMS: invalid width"
    assert err(raw, "CMS.INITBYDIM", "d", "10", "x") == "CMS: invalid depth"
    assert err(raw, "CMS.INITBYPROB", "d", "1", "0.1") == "CMS: invalid overestimation value"
    assert err(raw, "CMS.INITBYPROB", "d", "0.1", "0") == "CMS: invalid prob value"
    assert "wrong number of arguments" in err(raw, "CMS.INITBYDIM", "d", "10")
    raw.execute_command("CMS.INITBYDIM", "d", "100", "3")
    assert err(raw, "CMS.INITBYDIM", "d", "100", "3") == "CMS: key already exists"
    assert err(raw, "CMS.INCRBY", "none", "a", "1") == "CMS: key does not exist"
    assert err(raw, "CMS.INCRBY", "d", "a", "x") == "CMS: Cannot parse number"
    assert err(raw, "CMS.INCRBY", "d", "a", "-1") == "CMS: Number cannot be negative"
    assert "wrong number of arguments" in err(raw, "CMS.INCRBY", "d", "a")
    assert err(raw, "CMS.QUERY", "none", "a") == "CMS: key does not exist"
    raw.execute_command("CMS.INITBYDIM", "o", "50", "3")
    assert err(raw, "CMS.MERGE", "d", "x", "o") == "CMS: invalid numkeys"
    assert err(raw, "CMS.MERGE", "d", "2", "o") == "CMS: invalid numkeys"
    # RedisBloom's text, then the word
    assert err(raw, "CMS.MERGE", "d", "1", "o", "x").startswith(
        "CMS: wrong number of keys: 'x'")
    assert err(raw, "CMS.MERGE", "d", "1", "o", "WEIGHTS").startswith(
        "CMS: wrong number of keys/weights: 1 source keys and 0 weights")
    assert err(raw, "CMS.MERGE", "d", "1", "o") == "CMS: width/depth is not equal"
    assert err(raw, "CMS.MERGE", "d", "1", "none") == "CMS: key does not exist"
    assert err(raw, "CMS.MERGE", "none", "1", "d") == "CMS: key does not exist"
    assert err(raw, "CMS.MERGE", "d", "1", "d", "WEIGHTS", "x") == "CMS: invalid weight value"
    raw.set("s", "v")
    assert err(raw, "CMS.QUERY", "s", "a").startswith("WRONGTYPE")
    assert err(raw, "CMS.INCRBY", "s", "a", "1").startswith("WRONGTYPE")
    raw.execute_command("CMS.INITBYDIM", "sat", "10", "2")
    assert raw.execute_command("CMS.INCRBY", "sat", "a", str(2**32 - 2)) == [2**32 - 2]
    answer = raw.execute_command("CMS.INCRBY", "sat", "a", "5")
    assert isinstance(answer[0], redis.ResponseError) and str(answer[0]) == "CMS: INCRBY overflow"
    assert "MAX_FILTER_BYTES" in err(raw, "CMS.INITBYDIM", "huge", str(2**30), "64")


def test_cms_merge_is_routed_by_its_keys(server, raw):
    assert raw.command_getkeys("CMS.MERGE", "dst", "2", "a", "b", "WEIGHTS", "1", "2") == \
        ["dst", "a", "b"]


# --- TOPK ---------------------------------------------------------------------

def test_topk(r, raw):
    topk = r.topk()
    assert topk.reserve("t", 3, 50, 4, 0.9)
    assert topk.add("t", "a", "b", "c") == [None, None, None]
    expelled = topk.add("t", "d", "d", "d")
    pushed_out = [e for e in expelled if e is not None]
    assert len(pushed_out) == 1 and pushed_out[0] in ("a", "b", "c")
    assert topk.incrby("t", ["a"], [10])[0] in (None, "b", "c")
    assert topk.incrby("t", ["e"], [0]) == [None]
    assert topk.query("t", "a", "d", "zzz") == [1, 1, 0]
    assert topk.count("t", "d") == [3]
    assert topk.count("t", "a")[0] >= 10
    assert raw.execute_command("TOPK.LIST", "t")[:2] == [b"a", b"d"]
    with_count = raw.execute_command("TOPK.LIST", "t", "WITHCOUNT")
    assert with_count[0] == b"a" and with_count[1] >= 10 and len(with_count) == 6
    assert raw.execute_command("TOPK.LIST", "t", "with") == raw.execute_command("TOPK.LIST", "t", "WITHCOUNT")
    topk_info = raw.execute_command("TOPK.INFO", "t")
    assert topk_info[:7] == [b"k", 3, b"width", 50, b"depth", 4, b"decay"]
    # The server prints the double: 17 digits on Redis 7.0 ("0.90000000000000002"),
    # the shortest form on Valkey 8 and Redis 7.2 ("0.9").
    assert float(topk_info[7]) == 0.9
    info = topk.info("t")
    assert (info.k, info.width, info.depth) == (3, 50, 4)
    assert raw.execute_command("TOPK.RESERVE", "default", 5)
    assert raw.execute_command("TOPK.INFO", "default")[1::2][:3] == [5, 8, 7]


def test_topk_errors(r, raw):
    assert err(raw, "TOPK.RESERVE", "t", "0") == "TopK: invalid k"
    assert err(raw, "TOPK.RESERVE", "t", "3", "0", "4", "0.9") == "TopK: invalid width"
    assert err(raw, "TOPK.RESERVE", "t", "3", "8", "x", "0.9") == "TopK: invalid depth"
    assert err(raw, "TOPK.RESERVE", "t", "3", "8", "4", "1.5") == \
        "TopK: invalid decay value. must be '<= 1' & '> 0'"
    assert "wrong number of arguments" in err(raw, "TOPK.RESERVE", "t", "3", "8")
    raw.execute_command("TOPK.RESERVE", "t", "3")
    assert err(raw, "TOPK.RESERVE", "t", "3") == "TopK: key already exists"
    assert err(raw, "TOPK.ADD", "none", "a") == "TopK: key does not exist"
    # RedisBloom's text, then the word
    assert err(raw, "TOPK.LIST", "t", "BOGUS").startswith(
        "WITHCOUNT keyword expected: 'BOGUS'")
    answer = raw.execute_command("TOPK.INCRBY", "t", "a", "1", "b", "100001")
    assert answer[0] is None and isinstance(answer[1], redis.ResponseError)
    assert str(answer[1]).startswith("TopK: increment must be an integer greater or equal to 0")
    raw.set("s", "v")
    assert err(raw, "TOPK.ADD", "s", "a").startswith("WRONGTYPE")


# --- all kinds ----------------------------------------------------------------

def test_copy_digest_and_memory_usage(r, raw):
    raw.execute_command("CF.RESERVE", "c", "10000")
    raw.execute_command("CF.INSERT", "c", "ITEMS", *[str(i) for i in range(100)])
    raw.execute_command("CMS.INITBYDIM", "m", "1000", "5")
    raw.execute_command("CMS.INCRBY", "m", "a", "3")
    raw.execute_command("TOPK.RESERVE", "t", "5")
    raw.execute_command("TOPK.ADD", "t", "a", "b", "a")
    for key in ("c", "m", "t"):
        assert raw.copy(key, key + "2")
        assert raw.execute_command("DEBUG", "DIGEST-VALUE", key) == \
            raw.execute_command("DEBUG", "DIGEST-VALUE", key + "2")
        assert raw.memory_usage(key) > 0
    assert raw.memory_usage("m") >= 1000 * 5 * 4
    raw.execute_command("CMS.INCRBY", "m2", "a", "1")
    assert raw.execute_command("CMS.QUERY", "m", "a") == [3]
def test_cf_reserve_option_without_value(raw):
    for word in ("MAXITERATIONS", "BUCKETSIZE", "EXPANSION"):
        assert "wrong number of arguments" in err(raw, "CF.RESERVE", "c", "100", word)
        # An odd word before a last option without value: the word is refused, by name.
        assert err(raw, "CF.RESERVE", "c", "100", "x", word).startswith("unknown argument: 'x'")
    assert raw.ping()


def test_topk_expels_as_redisbloom_on_ties(raw):
    """With equal counts the heap breaks ties as RedisBloom's does, so the
    items TOPK.ADD reports expelled are the same: after A, B and C fill a
    heap of 3 (all at count 1), D takes the slot of the first one, A; a
    later item at count 1 expels the oldest remaining tie again."""
    raw.execute_command("TOPK.RESERVE", "t", 3, 50, 4, 0.9)
    assert raw.execute_command("TOPK.ADD", "t", "A", "B", "C") == [None, None, None]
    assert raw.execute_command("TOPK.ADD", "t", "D") == [b"A"]
    assert raw.execute_command("TOPK.ADD", "t", "E") == [b"C"]
    assert sorted(raw.execute_command("TOPK.LIST", "t")) == [b"B", b"D", b"E"]
    # A second add of an expelled item (count 2 now) pushes out a count-1 item.
    assert raw.execute_command("TOPK.ADD", "t", "A") == [b"D"]
    assert raw.execute_command("TOPK.QUERY", "t", "A", "B", "C", "D", "E") == [1, 1, 0, 0, 1]
    assert raw.execute_command("TOPK.COUNT", "t", "A", "B", "C") == [2, 1, 1]


def test_topk_list_orders_ties_as_redisbloom(raw):
    """TOPK.LIST gives leaders of equal count in RedisBloom's order (its heap
    array, sorted stably by count), not by name: clients that compare lists
    see the same answer."""
    raw.execute_command("TOPK.RESERVE", "t", 2, 50, 5, 0.9)
    raw.execute_command("TOPK.ADD", "t", "x", "y", "z", "w", "x", "y", "z")
    raw.execute_command("TOPK.ADD", "t", "x", "z", "w", "x", "z")
    raw.execute_command("TOPK.ADD", "t", "x", "y", "z", "x", "z")
    assert raw.execute_command("TOPK.LIST", "t", "WITHCOUNT") == [b"x", 6, b"z", 6]
    raw.execute_command("TOPK.RESERVE", "u", 4, 50, 5, 0.9)
    assert raw.execute_command("TOPK.ADD", "u", "d", "c", "b", "a", "e") == [None] * 4 + [b"c"]
    assert raw.execute_command("TOPK.LIST", "u") == [b"a", b"e", b"b", b"d"]  # all at count 1
