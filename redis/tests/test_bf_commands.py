"""BF.*: every reply and error of the table in docs/redis.md, through
redis-py's r.bf() where it has a helper and execute_command elsewhere.
The expected strings are RedisBloom 2.4/2.6's (src/rebloom.c)."""
import pytest
import redis


def err(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


def test_reserve_add_exists(r):
    bf = r.bf()
    assert bf.create("f", 0.01, 1000)
    assert bf.add("f", "a") == 1
    assert bf.add("f", "a") == 0
    assert bf.exists("f", "a") == 1
    assert bf.exists("f", "zz") == 0
    assert bf.madd("f", "a", "b", "c", "b") == [0, 1, 1, 0]
    assert bf.mexists("f", "a", "b", "c", "nope") == [1, 1, 1, 0]
    assert r.execute_command("BF.CARD", "f") == 3
    assert r.type("f") == b"RBloom-BF"


def test_reserve_errors(r):
    assert err(r, "BF.RESERVE", "f", "x", "100") == "bad error rate"
    assert err(r, "BF.RESERVE", "f", "0", "100") == "(0 < error rate range < 1) "
    assert err(r, "BF.RESERVE", "f", "1", "100") == "(0 < error rate range < 1) "
    assert err(r, "BF.RESERVE", "f", "nan", "100").startswith(("bad error rate", "(0 <"))
    assert err(r, "BF.RESERVE", "f", "0.01", "x") == "bad capacity"
    assert err(r, "BF.RESERVE", "f", "0.01", "0") == "(capacity should be larger than 0)"
    assert err(r, "BF.RESERVE", "f", "0.01", "-5") == "(capacity should be larger than 0)"
    assert err(r, "BF.RESERVE", "f", "0.01", "10", "EXPANSION") == "no expansion"
    assert err(r, "BF.RESERVE", "f", "0.01", "10", "EXPANSION", "x") == "bad expansion"
    assert err(r, "BF.RESERVE", "f", "0.01", "10", "EXPANSION", "0") == \
        "expansion should be greater or equal to 1"
    assert err(r, "BF.RESERVE", "f", "0.01", "10", "NONSCALING", "EXPANSION", "2") == \
        "Nonscaling filters cannot expand"
    assert "wrong number of arguments" in err(r, "BF.RESERVE", "f", "0.01")
    assert "wrong number of arguments" in err(r, "BF.RESERVE", "f", "0.01", "1", "a", "b", "c", "d")
    r.bf().create("f", 0.01, 10)
    assert err(r, "BF.RESERVE", "f", "0.01", "10") == "item exists"
    assert r.exists("f") == 1


def test_huge_reserve_is_refused_not_allocated(r):
    msg = err(r, "BF.RESERVE", "h", "0.000001", "100000000000")
    assert "MAX_FILTER_BYTES" in msg
    assert r.exists("h") == 0


def test_info_whole_and_fields(r, raw):
    bf = r.bf()
    bf.create("f", 0.01, 1000, expansion=4)
    bf.madd("f", *[f"i{i}" for i in range(10)])
    info = bf.info("f")
    assert info.capacity == 1000
    assert info.filterNum == 1
    assert info.insertedNum == 10
    assert info.expansionRate == 4
    assert info.size > 1000 * 9 // 8
    whole = raw.execute_command("BF.INFO", "f")
    assert whole[0::2] == [b"Capacity", b"Size", b"Number of filters",
                         b"Number of items inserted", b"Expansion rate"]
    assert raw.execute_command("BF.INFO", "f", "CAPACITY") == [1000]
    assert raw.execute_command("BF.INFO", "f", "items") == [10]
    assert raw.execute_command("BF.INFO", "f", "filters") == [1]
    assert raw.execute_command("BF.INFO", "f", "expansion") == [4]
    assert raw.execute_command("BF.INFO", "f", "size") == [info.size]
    assert err(raw, "BF.INFO", "f", "bogus").startswith("Invalid information value: 'bogus'")
    assert err(raw, "BF.INFO", "missing") == "not found"
    assert "wrong number of arguments" in err(raw, "BF.INFO")
    bf.create("n", 0.01, 10, noScale=True)
    assert raw.execute_command("BF.INFO", "n", "EXPANSION") == [None]
    assert raw.execute_command("BF.INFO", "n")[9] is None


def test_scaling_adds_layers_and_keeps_items(r):
    bf = r.bf()
    bf.create("f", 0.01, 100, expansion=2)
    items = [f"user:{i}" for i in range(1000)]
    added = sum(bf.madd("f", *items))
    info = bf.info("f")
    assert info.filterNum >= 4  # 100 + 200 + 400 + 800 >= 1000 distinct
    assert info.capacity == sum(100 * 2 ** i for i in range(info.filterNum))
    assert info.insertedNum == added == r.execute_command("BF.CARD", "f")
    assert all(bf.mexists("f", *items))


@pytest.mark.parametrize("expansion", [1, 2, 4])
def test_chain_of_tiny_layers_keeps_growing(raw, expansion):
    """A filter of capacity 4 takes 100 items, one layer after another, and
    holds every one (with EXPANSION 1 it once refused every add after about
    15 layers, its budget spent by the measured rates of its tiny layers)."""
    raw.execute_command("BF.RESERVE", "f", "0.01", "4", "EXPANSION", expansion)
    for i in range(100):
        assert raw.execute_command("BF.ADD", "f", str(i)) in (0, 1)
    assert raw.execute_command("BF.MEXISTS", "f", *map(str, range(100))) == [1] * 100
    assert raw.execute_command("BF.INFO", "f", "FILTERS")[0] > 1


def test_nonscaling_full(r):
    bf = r.bf()
    bf.create("n", 0.01, 10, noScale=True)
    answers = r.execute_command("BF.MADD", "n", *[f"x{i}" for i in range(30)])
    # The filter takes its 10 (fewer when a stranger looks present), then
    # the first refusal ends the reply.
    assert isinstance(answers[-1], redis.ResponseError)
    assert str(answers[-1]) == "non scaling filter is full"
    assert all(a in (0, 1) for a in answers[:-1])
    assert sum(answers[:-1]) == 10
    assert err(r, "BF.ADD", "n", "another") == "non scaling filter is full"



def layer_rate(raw, key):
    """The first layer's rate when full, from BF.DEBUG's ratio field."""
    line = raw.execute_command("BF.DEBUG", key)[1].decode()
    return float(line.rsplit("ratio:", 1)[1])


# (rate, capacity) where the rate itself needs a smaller allocator size class
# than the 4/5 of it a scaling filter's first layer is sized for.
SMALLER_CLASS = [("0.1", 1000), ("0.01", 1000), ("0.0001", 10000), ("0.00001", 1000)]


@pytest.mark.parametrize("rate,capacity", SMALLER_CLASS)
def test_nonscaling_filter_is_sized_at_the_rate_itself(raw, rate, capacity):
    """A NONSCALING filter never gets a second layer, so it keeps no part of
    its rate for later layers: its one layer is sized at p, where a scaling
    filter's first layer gets 4p/5. Where that difference crosses a size
    class, the NONSCALING filter takes less memory."""
    raw.execute_command("BF.RESERVE", "n", rate, capacity, "NONSCALING")
    raw.execute_command("BF.RESERVE", "s", rate, capacity)
    p = float(rate)
    assert layer_rate(raw, "n") <= p
    assert layer_rate(raw, "s") <= 0.8 * p
    assert layer_rate(raw, "s") < layer_rate(raw, "n")
    assert raw.memory_usage("n") < raw.memory_usage("s")
    assert raw.execute_command("BF.INFO", "n", "SIZE")[0] < \
        raw.execute_command("BF.INFO", "s", "SIZE")[0]

def test_add_autocreates_with_module_defaults(r):
    assert r.bf().add("auto", "x") == 1
    info = r.bf().info("auto")
    assert info.capacity == 100 and info.expansionRate == 2


def test_module_args_change_defaults(make_server):
    s = make_server(module_args=["INITIAL_SIZE", "5000", "ERROR_RATE", "0.001"])
    c = s.client()
    c.bf().add("auto", "x")
    assert c.bf().info("auto").capacity == 5000


def test_insert_options(r, raw):
    bf = r.bf()
    assert bf.insert("i", ["a", "b", "a"], capacity=50, error=0.001, expansion=3) == [1, 1, 0]
    info = bf.info("i")
    assert info.capacity == 50 and info.expansionRate == 3
    assert err(r, "BF.INSERT", "none", "NOCREATE", "ITEMS", "a") == "not found"
    assert r.exists("none") == 0
    assert bf.insert("ns", ["a"], noScale=True) == [1]
    assert raw.execute_command("BF.INFO", "ns", "EXPANSION") == [None]
    assert err(r, "BF.INSERT", "i", "ERROR", "x", "ITEMS", "a") == "Bad error rate"
    assert err(r, "BF.INSERT", "i", "CAPACITY", "x", "ITEMS", "a") == "Bad capacity"
    assert err(r, "BF.INSERT", "i", "EXPANSION", "x", "ITEMS", "a") == "Bad expansion"
    assert err(r, "BF.INSERT", "i", "BOGUS", "ITEMS", "a").startswith(
        "Unknown argument received: 'BOGUS'; BF.INSERT takes CAPACITY c")
    assert err(r, "BF.INSERT", "j", "ERROR", "2", "ITEMS", "a") == "Bad argument received"
    assert err(r, "BF.INSERT", "j", "CAPACITY", "0", "ITEMS", "a") == "Bad argument received"
    assert "wrong number of arguments" in err(r, "BF.INSERT", "i", "ITEMS")
    assert "wrong number of arguments" in err(r, "BF.INSERT", "i", "CAPACITY", "10", "ITEMS")
    assert "wrong number of arguments" in err(r, "BF.INSERT", "i", "CAPACITY")


def test_card_and_exists_of_missing(r):
    assert r.execute_command("BF.CARD", "missing") == 0
    assert r.bf().exists("missing", "a") == 0
    assert r.bf().mexists("missing", "a", "b") == [0, 0]


def test_wrongtype(r):
    r.set("s", "v")
    for args in (["BF.ADD", "s", "a"], ["BF.MADD", "s", "a"], ["BF.INSERT", "s", "ITEMS", "a"],
                 ["BF.RESERVE", "s", "0.01", "10"], ["BF.INFO", "s"], ["BF.CARD", "s"],
                 ["BF.SCANDUMP", "s", "0"], ["BF.LOADCHUNK", "s", "1", "x"]):
        assert err(r, *args).startswith("WRONGTYPE"), args
    # As RedisBloom: EXISTS answers 0 for a key of another type.
    assert r.execute_command("BF.EXISTS", "s", "a") == 0
    assert r.execute_command("BF.MEXISTS", "s", "a") == [0]
    r.bf().add("b", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.get("b")


@pytest.mark.parametrize("command,argc", [
    ("BF.ADD", 3), ("BF.EXISTS", 3), ("BF.CARD", 2), ("BF.SCANDUMP", 3), ("BF.LOADCHUNK", 4)])
def test_exact_arity(r, command, argc):
    for n in (argc - 1, argc + 1):
        args = [command] + ["k"] + ["1"] * (n - 2)
        assert "wrong number of arguments" in err(r, *args[:n])


def test_empty_and_binary_items(r):
    bf = r.bf()
    items = [b"", b"\x00", b"\xff\xfe\x00x", bytes(range(256))]
    assert bf.madd("b", *items) == [1, 1, 1, 1]
    assert bf.mexists("b", *items) == [1, 1, 1, 1]


def test_scandump_loadchunk_roundtrip(r):
    bf = r.bf()
    bf.create("src", 0.001, 3000)
    items = [f"k{i}" for i in range(5000)]
    bf.madd("src", *items)
    chunks = []
    it = 0
    while True:
        it, data = bf.scandump("src", it)
        if it == 0:
            break
        chunks.append((it, data))
    assert len(chunks) >= 2
    for it, data in chunks:
        assert bf.loadchunk("dst", it, data)
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "src") == \
        r.execute_command("DEBUG", "DIGEST-VALUE", "dst")
    assert all(bf.mexists("dst", *items))
    assert bf.info("dst").insertedNum == bf.info("src").insertedNum


def test_loadchunk_refuses_damage(r):
    bf = r.bf()
    bf.create("src", 0.01, 1000)
    bf.madd("src", "a", "b")
    _, header = bf.scandump("src", 0)
    it, chunk = bf.scandump("src", 1)
    damaged = bytearray(header)
    damaged[10] ^= 1
    assert "received bad data" in err(r, "BF.LOADCHUNK", "d", "1", bytes(damaged))
    assert r.exists("d") == 0
    assert "received bad data" in err(r, "BF.LOADCHUNK", "d", "1", header[:-3])
    assert "received bad data" in err(r, "BF.LOADCHUNK", "d", "1", b"")
    assert err(r, "BF.LOADCHUNK", "d", "5", chunk) == "not found"
    assert bf.loadchunk("d", 1, header)
    bad = bytearray(chunk)
    bad[40] ^= 0x10
    assert "received bad data" in err(r, "BF.LOADCHUNK", "d", str(it), bytes(bad))
    assert "received bad data" in err(r, "BF.LOADCHUNK", "d", str(it), header)
    assert err(r, "BF.LOADCHUNK", "d", "x", chunk) == "Second argument must be numeric"
    assert err(r, "BF.SCANDUMP", "src", "x") == "Second argument must be numeric"
    assert err(r, "BF.SCANDUMP", "missing", "0") == "not found"
    assert bf.loadchunk("d", it, chunk)
    assert bf.mexists("d", "a", "b") == [1, 1]


def test_copy_and_memory_usage(r):
    bf = r.bf()
    bf.create("f", 0.01, 10000)
    bf.madd("f", *[str(i) for i in range(100)])
    assert r.copy("f", "g")
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "f") == \
        r.execute_command("DEBUG", "DIGEST-VALUE", "g")
    bf.add("g", "only-in-g")
    assert bf.exists("f", "only-in-g") == 0
    usage = r.memory_usage("f")
    assert usage >= 10000 * 9 // 8
    assert usage == bf.info("f").size or abs(usage - bf.info("f").size) < 200


def test_used_memory_counts_filters(r):
    before = r.info("memory")["used_memory"]
    r.bf().create("big", 0.01, 1_000_000)  # about 1.3 MB of words
    after = r.info("memory")["used_memory"]
    assert after - before >= 1_200_000
    r.delete("big")
    wait = r.info("memory")["used_memory"]
    assert wait - before < 200_000


@pytest.mark.parametrize("name", ["item:{}", "item{}"])
def test_three_layer_chain_takes_no_more_than_redisbloom(raw, name):
    """BF.RESERVE 0.01 25000 filled with 100,000 items grows to three layers
    (25,000, 50,000, 100,000). RedisBloom's rule (p/2, p/4, p/8) gives them
    34,464, 77,944 and 173,920 bytes, in jemalloc's 40,960, 81,920 and
    196,608-byte classes, plus its 32-byte chain and 192-byte link table:
    319,744 bytes. Ours gives the second layer the kind that leaves the third
    enough of the rate for the 196,608-byte class; with a blocked second
    layer (the same memory, a higher rate) one item set took 344,152 bytes."""
    raw.execute_command("BF.RESERVE", "f", "0.01", "25000")
    for start in range(0, 100_000, 1000):
        raw.execute_command("BF.MADD", "f", *[name.format(i) for i in range(start, start + 1000)])
    assert raw.execute_command("BF.INFO", "f", "FILTERS")[0] == 3
    assert raw.execute_command("BF.INFO", "f", "SIZE")[0] <= 319_744
    ratios = [float(line.decode().rsplit("ratio:", 1)[1])
              for line in raw.execute_command("BF.DEBUG", "f")[1:]]
    assert sum(ratios) <= 0.01


def test_measured_fpr_at_or_under_rate(r):
    """Fill to capacity (and past it, through layers), then ask strangers.
    20,000 strangers: at p = 1% the standard error is 0.07%, so a bound of
    p + 3 sigma is a 0.1% false alarm rate; fixed item names, so fixed answers."""
    bf = r.bf()
    for name, capacity, n in (("one", 20000, 20000), ("deep", 500, 20000)):
        bf.create(name, 0.01, capacity)
        for start in range(0, n, 1000):
            bf.madd(name, *[f"{name}:in:{i}" for i in range(start, start + 1000)])
        hits = 0
        for start in range(0, 20000, 1000):
            hits += sum(bf.mexists(name, *[f"{name}:out:{i}" for i in range(start, start + 1000)]))
        assert hits / 20000 <= 0.01 + 3 * (0.01 * 0.99 / 20000) ** 0.5, (name, hits)


@pytest.mark.parametrize("rate", [0.1, 0.01, 0.001, 0.0001, 0.00001])
def test_measured_fpr_at_or_under_rate_at_every_rate(r, rate):
    """A filter of 1,024 integers, full, at each rate, whichever kind its
    layer takes (classic at tight rates). Its one layer's exact rate when
    full (BF.DEBUG's ratio) is under p, and 400,000 integer strangers
    measure within 4 standard deviations (plus 4, for the small counts of
    tight rates) of that rate. Fixed items, so fixed answers."""
    r.execute_command("BF.RESERVE", "bf", rate, 1024)
    r.execute_command("BF.MADD", "bf", *range(1024))
    debug = r.execute_command("BF.DEBUG", "bf")
    assert len(debug) == 2
    ratio = float(debug[1].split(b"ratio:")[1])
    assert ratio <= rate
    hits = 0
    for start in range(1024, 1024 + 400_000, 10_000):
        hits += sum(r.execute_command("BF.MEXISTS", "bf", *range(start, start + 10_000)))
    expected = ratio * 400_000
    assert hits <= expected + 4 * expected ** 0.5 + 4, (rate, hits, expected)


def test_large_filter_dumps_in_chunks_of_at_most_16_mib(r, raw):
    """A 19 MB layer is dumped in two chunks, each within 16 MiB, and loads back."""
    r.bf().create("big", 0.01, 15_000_000)
    r.bf().madd("big", *[f"b{i}" for i in range(1000)])
    it, sizes = 0, []
    while True:
        it, data = raw.execute_command("BF.SCANDUMP", "big", it)
        if it == 0:
            break
        sizes.append(len(data))
        raw.execute_command("BF.LOADCHUNK", "copy", it, data)
    assert len(sizes) >= 3 and max(sizes) <= 16 << 20  # header + two word chunks
    assert raw.execute_command("DEBUG", "DIGEST-VALUE", "big") == \
        raw.execute_command("DEBUG", "DIGEST-VALUE", "copy")
