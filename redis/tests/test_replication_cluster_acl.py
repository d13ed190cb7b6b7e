"""Replication (disk and diskless loading), a 3-master Redis Cluster, an ACL
read-only user, and maxmemory with deny-oom."""
import subprocess

import pytest
import redis
from redis.cluster import RedisCluster

from conftest import REDIS_CLI, wait_until


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)


@pytest.mark.parametrize("load", ["disabled", "swapdb"])
def test_replica_has_identical_digests(make_server, load):
    master = make_server(subdir="m")
    m = master.client()
    m.bf().create("f", 0.01, 300)
    m.bf().madd("f", *[f"before:{i}" for i in range(2000)])  # several layers
    replica = make_server(subdir="r", config=["--repl-diskless-load", load,
                                              "--repl-diskless-sync", "yes" if load != "disabled" else "no",
                                              "--repl-diskless-sync-delay", "0"])
    rc = replica.client()
    rc.replicaof("127.0.0.1", master.port)
    wait_until(lambda: rc.info("replication")["master_link_status"] == "up", 30, "replica link")
    # Writes after the sync travel as commands.
    m.bf().madd("f", *[f"after:{i}" for i in range(500)])
    m.bf().insert("g", ["x", "y"], capacity=10, error=0.001)
    m.copy("f", "f2")
    m.execute_command("CF.RESERVE", "cf", "500")
    m.execute_command("CF.INSERT", "cf", "ITEMS", *[f"c{i}" for i in range(700)])
    for i in range(100):  # a removal travels; a CF.DEL that removes nothing does not
        m.execute_command("CF.DEL", "cf", f"c{i}")
        m.execute_command("CF.DEL", "cf", f"absent:{i}")
    m.execute_command("CMS.INITBYPROB", "cms", "0.01", "0.01")
    m.execute_command("CMS.INCRBY", "cms", "a", "5", "b", "7")
    m.execute_command("TOPK.RESERVE", "topk", "5")
    m.execute_command("TOPK.ADD", "topk", *[f"t{i % 9}" for i in range(200)])
    m.execute_command("WAIT", 1, 10000)
    for key in ("f", "g", "f2", "cf", "cms", "topk"):
        assert digest(rc, key) == digest(m, key), key
    assert rc.bf().exists("f", "after:499") == 1
    with pytest.raises(redis.ReadOnlyError):
        rc.bf().add("f", "nope")


def test_cluster_routes_bf_commands(make_server):
    nodes = [make_server(subdir=f"n{i}", cluster=True) for i in range(3)]
    addrs = [f"127.0.0.1:{n.port}" for n in nodes]
    out = subprocess.run([REDIS_CLI, "--cluster", "create", *addrs, "--cluster-yes"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    c0 = nodes[0].client()
    wait_until(lambda: c0.cluster("info")["cluster_state"] == "ok", 30, "cluster_state ok")
    rc = RedisCluster(host="127.0.0.1", port=nodes[0].port, socket_timeout=30)
    keys = [f"filter:{i}" for i in range(30)]
    for k in keys:
        assert rc.bf().add(k, "item") == 1
        assert rc.bf().exists(k, "item") == 1
        assert rc.bf().madd(k, "a", "b") == [1, 1]
    # Each key lives on the node that owns its slot, and only there.
    clients = {n.port: n.client() for n in nodes}
    for k in keys:
        slot = rc.keyslot(k)
        owner = rc.nodes_manager.get_node_from_slot(slot).port
        for port, c in clients.items():
            assert c.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) >= (1 if port == owner else 0)
        assert clients[owner].exists(k) == 1
        others = [c for p, c in clients.items() if p != owner]
        for c in others:
            with pytest.raises(redis.ResponseError, match="MOVED"):
                c.execute_command("BF.EXISTS", k, "item")
    # COMMAND GETKEYS sees our key specs.
    assert c0.command_getkeys("BF.MADD", "k1", "a", "b") == ["k1"]
    rc.close()


def test_acl_read_only_user(r, server):
    r.bf().add("f", "a")
    r.acl_setuser("reader", enabled=True, passwords=["+pw"], commands=["+@all"],
                  keys=["%R~*"])
    u = server.client(username="reader", password="pw")
    assert u.bf().exists("f", "a") == 1
    assert u.bf().mexists("f", "a", "b") == [1, 0]
    assert u.execute_command("BF.CARD", "f") == 1
    for args in (["BF.ADD", "f", "b"], ["BF.MADD", "f", "b"], ["BF.RESERVE", "g", "0.1", "10"],
                 ["BF.INSERT", "f", "ITEMS", "b"]):
        with pytest.raises(redis.exceptions.NoPermissionError):
            u.execute_command(*args)
    assert r.bf().exists("f", "b") == 0


def test_maxmemory_denies_writes_keeps_reads(make_server):
    s = make_server(config=["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"])
    c = s.client()
    c.bf().create("f", 0.01, 1000)
    c.bf().add("f", "a")
    # Fill memory with filters until the server refuses.
    with pytest.raises(redis.ResponseError, match="^OOM"):
        for i in range(100):
            c.bf().create(f"big{i}", 0.01, 200_000)
    with pytest.raises(redis.ResponseError, match="^OOM"):
        c.bf().add("f", "b")
    assert c.bf().exists("f", "a") == 1
    assert c.bf().mexists("f", "a", "zz") == [1, 0]
    used = c.info("memory")["used_memory"]
    assert used > 2_000_000  # the filters were counted, not invisible
