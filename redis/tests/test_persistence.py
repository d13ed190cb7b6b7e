"""Persistence: RDB, AOF with and without the RDB preamble, BGREWRITEAOF, and
kill -9 under a write load with appendfsync always."""
import os
import subprocess
import threading

import pytest
import redis

from conftest import wait_until


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


SKETCH_KEYS = ("cf", "cms", "topk")


def fill(c, key="f", n=3000, capacity=500):
    c.bf().create(key, 0.01, capacity)  # several layers
    items = [f"{key}:{i}" for i in range(n)]
    for i in range(0, n, 500):
        c.bf().madd(key, *items[i:i + 500])
    if not c.exists("cf"):
        c.execute_command("CF.RESERVE", "cf", "1000", "EXPANSION", "2")
        c.execute_command("CF.INSERT", "cf", "ITEMS", *items[:1500])  # grows a sub-filter
        c.execute_command("CF.DEL", "cf", items[0])
        c.execute_command("CMS.INITBYDIM", "cms", "500", "4")
        c.execute_command("CMS.INCRBY", "cms", *[x for i in range(200) for x in (f"i{i}", str(i))])
        c.execute_command("TOPK.RESERVE", "topk", "10", "100", "4", "0.9")
        c.execute_command("TOPK.ADD", "topk", *[f"t{i % 37}" for i in range(1000)])
    return items


def test_rdb_save_and_restart(make_server):
    s = make_server()
    c = s.client()
    items = fill(c)
    before = {k: digest(c, k) for k in ("f",) + SKETCH_KEYS}
    info = c.bf().info("f")
    assert c.save()
    s.restart()
    c = s.client()
    assert {k: digest(c, k) for k in ("f",) + SKETCH_KEYS} == before
    assert all(c.bf().mexists("f", *items))
    after = c.bf().info("f")
    assert (after.capacity, after.filterNum, after.insertedNum) == \
        (info.capacity, info.filterNum, info.insertedNum)


def test_damaged_rdb_is_a_load_error(make_server):
    s = make_server(config=["--rdbcompression", "no", "--rdbchecksum", "no"])
    c = s.client()
    fill(c, n=200, capacity=1000)
    assert c.save()
    s.stop()
    path = os.path.join(s.dir, "dump.rdb")
    data = bytearray(open(path, "rb").read())
    # Flip a byte in the middle of the filter words (the largest part of the
    # file); the RDB's own CRC is switched off so that only our checksum can
    # notice.
    data[len(data) // 2] ^= 0x40
    open(path, "wb").write(bytes(data))
    s.start(wait=False)
    try:
        s.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("redis-server loaded a damaged filter instead of refusing it")
    # It exited (with status 0 on 7.0, whatever the reason) instead of serving.
    log = s.log_text()
    assert "ringbloom" in log and ("checksum" in log or "damaged" in log), log


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_and_restart(make_server, preamble):
    s = make_server(config=["--appendonly", "yes", "--aof-use-rdb-preamble", preamble,
                            "--appendfsync", "always"])
    c = s.client()
    items = fill(c, n=5000, capacity=1000)
    c.bf().create("big", 0.001, 2_000_000)  # 3.6 MB: still one chunk, but a large one
    c.bf().madd("big", *items[:100])
    before = {k: digest(c, k) for k in ("f", "big") + SKETCH_KEYS}
    c.bgrewriteaof()
    wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
               c.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "BGREWRITEAOF")
    c.bf().add("f", "after-rewrite")  # in the incremental AOF, replayed after the base
    before["f"] = digest(c, "f")
    s.restart()
    c = s.client()
    assert {k: digest(c, k) for k in ("f", "big") + SKETCH_KEYS} == before
    assert all(c.bf().mexists("f", *items, "after-rewrite"))
    if preamble == "no":
        base = [f for f in os.listdir(os.path.join(s.dir, "appendonlydir")) if ".base." in f]
        text = open(os.path.join(s.dir, "appendonlydir", base[0]), "rb").read()
        for command in (b"BF.LOADCHUNK", b"CF.LOADCHUNK", b"CMS.LOADCHUNK", b"TOPK.LOADCHUNK"):
            assert command in text


def test_kill9_under_write_load_loses_no_acknowledged_write(make_server):
    """Three writers (BF.ADD, CF.ADD, CMS.INCRBY) under appendfsync always;
    kill -9 mid-load; every acknowledged write is there after the restart."""
    s = make_server(config=["--appendonly", "yes", "--appendfsync", "always"])
    s.client().execute_command("CMS.INITBYDIM", "counts", "2000", "5")
    acked = {"bf": [], "cf": [], "cms": []}
    stop = threading.Event()

    def writer(kind):
        w = s.client(socket_timeout=5)
        i = 0
        while not stop.is_set():
            item = f"item:{i}"
            try:
                if kind == "bf":
                    w.execute_command("BF.ADD", "load", item)
                elif kind == "cf":
                    w.execute_command("CF.ADD", "cload", item)
                else:
                    w.execute_command("CMS.INCRBY", "counts", item, "3")
            except (redis.ConnectionError, redis.TimeoutError):
                return
            acked[kind].append(item)
            i += 1

    threads = [threading.Thread(target=writer, args=(k,)) for k in acked]
    for t in threads:
        t.start()
    wait_until(lambda: min(len(v) for v in acked.values()) >= 300, 60, "300 acknowledged writes each")
    s.kill9()
    stop.set()
    for t in threads:
        t.join(timeout=10)
        assert not t.is_alive()
    s.start()
    c = s.client()
    for i in range(0, len(acked["bf"]), 1000):
        assert all(c.execute_command("BF.MEXISTS", "load", *acked["bf"][i:i + 1000]))
    for i in range(0, len(acked["cf"]), 1000):
        assert all(c.execute_command("CF.MEXISTS", "cload", *acked["cf"][i:i + 1000]))
    for i in range(0, len(acked["cms"]), 1000):
        assert all(n >= 3 for n in c.execute_command("CMS.QUERY", "counts", *acked["cms"][i:i + 1000]))
