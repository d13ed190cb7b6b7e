"""Persistence: RDB, AOF with and without the RDB preamble, BGREWRITEAOF, and
kill -9 under a write load with appendfsync always."""
import os
import subprocess
import threading
import time

import pytest
import redis

from conftest import wait_until


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


def fill(c, key="f", n=3000, capacity=500):
    c.bf().create(key, 0.01, capacity)  # several layers
    items = [f"{key}:{i}" for i in range(n)]
    for i in range(0, n, 500):
        c.bf().madd(key, *items[i:i + 500])
    return items


def test_rdb_save_and_restart(make_server):
    s = make_server()
    c = s.client()
    items = fill(c)
    before = digest(c, "f")
    info = c.bf().info("f")
    assert c.save()
    s.restart()
    c = s.client()
    assert digest(c, "f") == before
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
    before = {k: digest(c, k) for k in ("f", "big")}
    c.bgrewriteaof()
    wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
               c.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "BGREWRITEAOF")
    c.bf().add("f", "after-rewrite")  # in the incremental AOF, replayed after the base
    before["f"] = digest(c, "f")
    s.restart()
    c = s.client()
    assert {k: digest(c, k) for k in ("f", "big")} == before
    assert all(c.bf().mexists("f", *items, "after-rewrite"))
    if preamble == "no":
        base = [f for f in os.listdir(os.path.join(s.dir, "appendonlydir")) if ".base." in f]
        text = open(os.path.join(s.dir, "appendonlydir", base[0]), "rb").read()
        assert b"BF.LOADCHUNK" in text


def test_kill9_under_write_load_loses_no_acknowledged_add(make_server):
    s = make_server(config=["--appendonly", "yes", "--appendfsync", "always"])
    c = s.client()
    acked = []
    stop = threading.Event()

    def writer():
        w = s.client(socket_timeout=5)
        i = 0
        while not stop.is_set():
            try:
                w.bf().add("load", f"item:{i}")
            except (redis.ConnectionError, redis.TimeoutError):
                return
            acked.append(f"item:{i}")
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    wait_until(lambda: len(acked) >= 500, 30, "500 acknowledged BF.ADD")
    s.kill9()
    stop.set()
    t.join(timeout=10)
    assert not t.is_alive()
    s.start()
    c = s.client()
    assert len(acked) >= 500
    for i in range(0, len(acked), 1000):
        assert all(c.bf().mexists("load", *acked[i:i + 1000]))
