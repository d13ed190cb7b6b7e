"""ringbloom.import_config: a system's own configuration as a Placement, read
by the same code as `ringbloom ring import`, and agreeing key for key with
`ringbloom ring lookup --from`."""

import pathlib

import pytest

import ringbloom

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "placement" / "data"
KEYS = [f"user:{i}" for i in range(2000)] + ["caf\u00e9", "{tag}.a"]

NGINX = """http {
  upstream backend {
    hash $request_uri consistent;
    server 10.0.0.1:8080 weight=2;
    server 10.0.0.2:8080;
    server unix:/run/app.sock;
  }
}
"""
HAPROXY = """defaults
  hash-type consistent djb2
backend web
  balance uri
  server s1 10.0.0.1:80
  server s2 10.0.0.2:80 weight 3 id 7
"""
NODETOOL = """Datacenter: dc1
==========
Address  Rack  Status State Load Owns Token
10.0.0.1 r1 Up Normal 1.1 MiB 33% -9223372036854775808
10.0.0.2 r2 Up Normal 1.1 MiB 33% -3074457345618258603
10.0.0.3 r1 Up Normal 1.1 MiB 33% 3074457345618258602
"""


def cli_lookup(cli, *args):
    r = cli("ring", "lookup", *args, input="\n".join(KEYS) + "\n")
    assert r.returncode == 0, r.stderr
    return [line.split("\t", 1)[1] for line in r.stdout.splitlines()]


@pytest.mark.parametrize("system,text,name,flags", [
    ("nginx", NGINX, "backend", ["--upstream", "backend"]),
    ("haproxy", HAPROXY, "web", ["--backend", "web"]),
    ("cassandra", NODETOOL, None, []),
])
def test_agrees_with_the_command_line(tmp_path, cli, system, text, name, flags):
    path = tmp_path / "config"
    path.write_text(text)
    p = ringbloom.import_config(system, path, name)
    assert p.kind == system
    assert p.node_for_many(KEYS) == cli_lookup(cli, "--from", system, str(path), *flags)


@pytest.mark.parametrize("golden", ["cluster_nodes.txt", "cluster_slots_raw.txt",
                                    "cluster_slots_tty.txt", "cluster_slots.json"])
def test_redis_cluster_nodes_and_every_slots_form(golden):
    p = ringbloom.import_config("redis-cluster", DATA / golden)
    assert p.kind == "redis-cluster"
    assert sorted(p.nodes) == ["127.0.0.1:47101", "127.0.0.1:47102", "127.0.0.1:47103"]
    assert p.node_for("123456789") == "127.0.0.1:47103"  # slot 12739


def test_cassandra_replication(tmp_path):
    path = tmp_path / "ring.txt"
    path.write_text(NODETOOL)
    simple = ringbloom.import_config("cassandra", path, rf=2)
    assert len(simple.nodes_for("user:42", 3)) == 2
    network = ringbloom.import_config("cassandra", path, dc_rf={"dc1": 3})
    assert len(network.nodes_for("user:42", 3)) == 3


def test_topology_round_trip(tmp_path):
    path = tmp_path / "nginx.conf"
    path.write_text(NGINX)
    p = ringbloom.import_config("nginx", path, "backend")
    again = ringbloom.Placement.from_topology(_saved(tmp_path, p))
    assert again.node_for_many(KEYS) == p.node_for_many(KEYS)


def _saved(tmp_path, p):
    out = tmp_path / "t.json"
    p.save_topology(out)
    return out


def test_refusals(tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("upstream u {\n hash $x consistent;\n server a:1 down;\n}\n")
    with pytest.raises(ringbloom.DataError, match=r"bad\.conf:3:"):
        ringbloom.import_config("nginx", bad, "u")
    # Without name=, the file's only upstream that hashes is read (and refused here).
    with pytest.raises(ringbloom.DataError, match=r"bad\.conf:3:"):
        ringbloom.import_config("nginx", bad)
    two = tmp_path / "two.conf"
    two.write_text("upstream a { hash $x consistent; server a:1; }\n"
                   "upstream b { hash $y consistent; server b:1; }\n")
    with pytest.raises(ValueError, match="needs name=; name the section to read, one of the 2 "
                                         "upstreams that hash consistently: 'a', 'b'"):
        ringbloom.import_config("nginx", two)
    with pytest.raises(ValueError, match="'memcached' is not a system"):
        ringbloom.import_config("memcached", bad)
    with pytest.raises(ValueError, match="every data centre replication factor 0"):
        ringbloom.import_config("cassandra", bad, dc_rf={"dc1": 0, "dc2": 0})
    with pytest.raises(ringbloom.DataError, match=r"<text>:2: holds the control byte 0x01"):
        ringbloom.import_config("nginx", b"a\n\x01", "u")
    with pytest.raises(OSError):
        ringbloom.import_config("haproxy", tmp_path / "missing.cfg", "web")
    slots = tmp_path / "slots.txt"
    slots.write_text("0\n5460\n127.0.0.1\n")
    with pytest.raises(ringbloom.DataError, match=r"slots\.txt:1: expected an entry"):
        ringbloom.import_config("redis-cluster", slots)


NUTCRACKER = """alpha:
  listen: 127.0.0.1:22121
  hash: fnv1a_64
  distribution: ketama
  servers:
   - 10.0.0.1:11211:1 cache-1:11211
   - 10.0.0.2:11211:2
   - 10.0.0.3:11212:1
"""
ENVOY = """static_resources:
  clusters:
  - name: web
    lb_policy: RING_HASH
    ring_hash_lb_config: {minimum_ring_size: 64}
    load_assignment:
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 10.0.0.1, port_value: 80}}}
        - endpoint: {address: {socket_address: {address: 10.0.0.2, port_value: 80}}}
          load_balancing_weight: 3
"""


@pytest.mark.parametrize("system,text,name,flags,kind", [
    ("twemproxy", NUTCRACKER, None, [], "twemproxy"),
    ("twemproxy", NUTCRACKER, "alpha", ["--pool", "alpha"], "twemproxy"),
    ("envoy", ENVOY, "web", ["--cluster", "web"], "envoy-ring-hash"),
])
def test_the_yaml_systems_agree_with_the_command_line(tmp_path, cli, system, text, name, flags,
                                                      kind):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    p = ringbloom.import_config(system, path, name)
    assert p.kind == kind
    assert p.node_for_many(KEYS) == cli_lookup(cli, "--from", system, str(path), *flags)
    assert ringbloom.import_config(system, text.encode(), name).node_for_many(KEYS) == \
        p.node_for_many(KEYS), "the text itself reads as the file does"


def test_yaml_refusals_and_notes(tmp_path):
    murmur = ENVOY.replace("{minimum_ring_size: 64}", "{hash_function: MURMUR_HASH_2}")
    with pytest.raises(ringbloom.DataError, match=r"<text>:5: hash_function MURMUR_HASH_2"):
        ringbloom.import_config("envoy", murmur.encode(), "web")
    two = (NUTCRACKER + NUTCRACKER.replace("alpha:", "beta:")).encode()
    with pytest.raises(ValueError, match="has 2 pools; name one"):
        ringbloom.import_config("twemproxy", two)
    ejecting = NUTCRACKER.replace("  hash:", "  auto_eject_hosts: true\n  hash:").encode()
    with pytest.warns(UserWarning, match="ejects failing servers"):
        p = ringbloom.import_config("twemproxy", ejecting)
    assert len(p.nodes) == 3


def test_replication_factors_follow_the_command_lines_rule():
    # --rf takes 1 to 100000 and --dc-rf 0 to 100000 per data centre: so do
    # rf= and dc_rf=, with a sentence, never pybind11's "Unable to cast".
    text = NODETOOL.encode()
    with pytest.raises(ValueError, match=r"dc_rf\['dc1'\] is -3; give a replication factor "
                                         r"from 0 to 100000"):
        ringbloom.import_config("cassandra", text, dc_rf={"dc1": -3})
    with pytest.raises(ValueError, match=r"dc_rf\['dc1'\] is 100001"):
        ringbloom.import_config("cassandra", text, dc_rf={"dc1": 100001})
    with pytest.raises(TypeError, match=r"dc_rf\['dc1'\] must be an int, not float"):
        ringbloom.import_config("cassandra", text, dc_rf={"dc1": 2.5})
    with pytest.raises(TypeError, match="dc_rf must be a dict"):
        ringbloom.import_config("cassandra", text, dc_rf=[("dc1", 3)])
    with pytest.raises(ValueError, match="rf is -3; give a replication factor from 1 to 100000"):
        ringbloom.import_config("cassandra", text, rf=-3)
    with pytest.raises(ValueError, match="rf is 0; give a replication factor from 1"):
        ringbloom.import_config("cassandra", text, rf=0)
    with pytest.raises(TypeError, match="rf must be an int, not str"):
        ringbloom.import_config("cassandra", text, rf="3")
    # The edges are taken.
    assert ringbloom.import_config("cassandra", text, dc_rf={"dc1": 1}) is not None
    assert ringbloom.import_config("cassandra", text, rf=1) is not None
