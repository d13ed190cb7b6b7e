#!/usr/bin/python3
"""Ask a real system where each key goes: the peer half of scheme_peers_test.

    peer_driver.py SYSTEM SPEC_FILE KEYS_FILE

SYSTEM is nginx, haproxy, twemproxy, redis-cluster, groupcache, guava or
cassandra. SPEC_FILE (JSON) describes the
servers (see each run_* function). KEYS_FILE holds one key per line (raw
bytes, no tab, no CR/LF). The driver starts the system on 127.0.0.1 with free
ports in a temporary directory, sends every key through it, stops every
process it started by its PID and prints

    line 1: a JSON object: {"servers": [...], ...} -- the server names as the
            system reports them, in configuration order, the configuration
            the system ran with ("config") or, for Redis, the CLUSTER NODES
            text ("cluster_nodes"), CLUSTER SLOTS as redis-cli prints it
            ("cluster_slots": raw, tty, json) and CLUSTER KEYSLOT answers ("slots")
    then:   key<TAB>server, one line per key, in the order of KEYS_FILE

on standard output. Every wait is bounded; the whole run stops itself after
DEADLINE seconds. Exit 0 on success, 2 on bad arguments, 3 when the system
could not be started or answered something unexpected (the reason on stderr).
"""
import http.client
import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = 90  # seconds for the whole run


class PeerError(Exception):
    pass


def free_ports(count):
    """Distinct free TCP ports on 127.0.0.1 (bound at once, then released)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_cluster_ports(count):
    """Free ports P below 55536 whose cluster bus port P + 10000 is free too
    (Redis Cluster listens on both)."""
    ports = []
    for _ in range(200):
        if len(ports) == count:
            return ports
        candidate = free_ports(1)[0]
        if candidate > 55535 or candidate in ports:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", candidate + 10000))
        except OSError:
            continue
        ports.append(candidate)
    raise PeerError("found no free port pairs for the cluster")


def wait_port(port, proc, what, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise PeerError(f"{what} exited with status {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise PeerError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s")


class Processes:
    """Processes started by this run, stopped by PID in reverse order."""

    def __init__(self):
        self.procs = []

    def start(self, argv, log_path):
        log = open(log_path, "wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.procs.append(proc)
        return proc

    def stop_all(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)


def log_tail(path):
    try:
        with open(path, "rb") as f:
            return f.read()[-2000:].decode("utf-8", "replace")
    except OSError:
        return ""


def ask_http(port, keys, header="X-Key", by="header"):
    """GET with the key, one keep-alive connection; the body (or an X-Server
    header, when the answer has one) names the server. `by` says where the key
    goes: "header" (in `header`), "uri" (the request URI) or "source" (the
    client's source address, one connection per key: keys are 127.0.0.0/8
    addresses)."""
    conn = None if by == "source" else http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    answers = []
    for key in keys:
        c = conn
        if by == "source":
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                           source_address=(key.decode(), 0))
        c.putrequest("GET", key.decode("latin-1") if by == "uri" else "/", skip_accept_encoding=True)
        if by == "header":
            c.putheader(header, key)
        c.endheaders()
        resp = c.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise PeerError(f"HTTP {resp.status} for key {key!r}: {body[:200]!r}")
        answers.append(resp.getheader("X-Server") or body.decode("utf-8"))
        if by == "source":
            c.close()
    if conn is not None:
        conn.close()
    return answers


# --------------------------------------------------------------------- nginx
def nginx_colliding_texts(port_a, port_b):
    """Two server texts for 127.0.0.1:port_a and 127.0.0.1:port_b (leading zeros
    in the octets and the port, which nginx accepts) whose CRC-32 over
    host NUL port agree, so that nginx gives both the same chain of points."""
    import itertools
    import zlib

    def variants(port):
        for z in itertools.product(range(13), repeat=5):
            host = ".".join("0" * n + o for n, o in zip(z[:4], ("127", "0", "0", "1")))
            text = f"{host}:{'0' * z[4]}{port}"
            yield zlib.crc32(f"{host}\0{'0' * z[4]}{port}".encode()), text

    seen = dict(variants(port_a))
    for crc, text in variants(port_b):
        if crc in seen:
            return seen[crc], text
    raise PeerError("no colliding server texts found (try other ports)")


def run_nginx(spec, keys, tmp, procs):
    """spec: {"servers": [{"weight": W}, ...], "collide": [i, j]?}; server text
    "127.0.0.1:PORT", or for servers i and j of "collide" two texts whose points
    all coincide (see nginx_colliding_texts)."""
    servers = spec["servers"]
    ports = free_ports(len(servers) + 1)
    front, backs = ports[0], ports[1:]
    names = [f"127.0.0.1:{p}" for p in backs]
    if "collide" in spec:
        i, j = spec["collide"]
        names[i], names[j] = nginx_colliding_texts(backs[i], backs[j])
    lines = []
    for name, s in zip(names, servers):
        w = s.get("weight", 1)
        lines.append(f"    server {name}" + (f" weight={w}" if w != 1 else "") + ";")
    backends = "\n".join(
        f'  server {{ listen 127.0.0.1:{p}; location / {{ return 200 "{n}"; }} }}' for n, p in zip(names, backs))
    conf = f"""worker_processes 1;
daemon off;
master_process off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  upstream u {{
    hash $http_x_key consistent;
{chr(10).join(lines)}
  }}
  server {{
    listen 127.0.0.1:{front};
    location / {{ proxy_pass http://u; proxy_http_version 1.1; proxy_set_header Connection ""; }}
  }}
{backends}
}}
"""
    path = os.path.join(tmp, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    proc = procs.start(["nginx", "-p", tmp, "-c", path], os.path.join(tmp, "nginx.out"))
    try:
        wait_port(front, proc, "nginx")
        for p in backs:
            wait_port(p, proc, "nginx")
    except PeerError as e:
        raise PeerError(f"{e}: {log_tail(os.path.join(tmp, 'error.log'))}")
    return {"servers": names, "config": conf}, ask_http(front, keys)


# ------------------------------------------------------------------- haproxy
def start_haproxy(conf, ports, tmp, procs):
    """Writes `conf` to TMP/haproxy.cfg, starts haproxy on it and waits until
    every one of `ports` answers; a failure names haproxy's last log lines."""
    path = os.path.join(tmp, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(conf)
    log = os.path.join(tmp, "haproxy.out")
    proc = procs.start(["haproxy", "-db", "-f", path], log)
    try:
        for p in ports:
            wait_port(p, proc, "haproxy")
    except PeerError as e:
        raise PeerError(f"{e}: {log_tail(log)}")


def run_haproxy_raw(spec, keys, tmp, procs):
    """spec: {"raw": TEXT, "ports": N, "by": "header"|"uri"|"source"}: TEXT is
    the test's own defaults and `backend b` sections, with {PORT0}..{PORTn-1}
    for the addresses of N answering ports; its backend adds the X-Server
    header (`http-response set-header X-Server %[srv_name]`), which names the
    server even when several share one address (server-template)."""
    ports = free_ports(spec["ports"] + 1)
    front, backs = ports[0], ports[1:]
    text = spec["raw"]
    for i, p in enumerate(backs):
        text = text.replace("{PORT%d}" % i, str(p))
    answering = "".join(f"frontend port{i}\n  bind 127.0.0.1:{p}\n"
                        f"  http-request return status 200 content-type text/plain string \"port{i}\"\n"
                        for i, p in enumerate(backs))
    conf = f"""global
  maxconn 512
defaults driver
  mode http
  timeout connect 2s
  timeout client 20s
  timeout server 20s
frontend front
  bind 127.0.0.1:{front}
  default_backend b
{answering}{text}
"""
    start_haproxy(conf, ports, tmp, procs)
    return {"servers": [], "config": text}, ask_http(front, keys, by=spec.get("by", "header"))


def run_haproxy(spec, keys, tmp, procs):
    """spec: {"hash": "sdbm avalanche" or "" for the default, "servers": [{"name", "weight", "id"?}]},
    or a raw configuration (see run_haproxy_raw)."""
    if "raw" in spec:
        return run_haproxy_raw(spec, keys, tmp, procs)
    servers = spec["servers"]
    ports = free_ports(len(servers) + 1)
    front, backs = ports[0], ports[1:]
    hash_type = ("hash-type consistent " + spec.get("hash", "")).strip()
    srv_lines, fronts = [], []
    for s, p in zip(servers, backs):
        line = f"  server {s['name']} 127.0.0.1:{p} weight {s.get('weight', 1)}"
        if "id" in s:
            line += f" id {s['id']}"
        srv_lines.append(line)
        fronts.append(f"frontend be_{s['name']}\n  bind 127.0.0.1:{p}\n"
                      f"  http-request return status 200 content-type text/plain string \"{s['name']}\"\n")
    conf = f"""global
  maxconn 512
defaults
  mode http
  timeout connect 2s
  timeout client 20s
  timeout server 20s
frontend front
  bind 127.0.0.1:{front}
  default_backend b
backend b
  balance hdr(X-Key)
  {hash_type}
{chr(10).join(srv_lines)}
{chr(10).join(fronts)}
"""
    start_haproxy(conf, ports, tmp, procs)
    return {"servers": [s["name"] for s in servers], "config": conf}, ask_http(front, keys)


# ----------------------------------------------------------------- twemproxy
class NamedMemcached(socketserver.ThreadingTCPServer):
    """A fake memcached that answers every `get KEY` with its own name."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, name):
        self.name = name.encode()
        super().__init__(("127.0.0.1", port), NamedMemcachedHandler)


class NamedMemcachedHandler(socketserver.StreamRequestHandler):
    def handle(self):
        name = self.server.name
        while True:
            line = self.rfile.readline()
            if not line:
                return
            parts = line.rstrip(b"\r\n").split(b" ")
            if parts[0] == b"get" and len(parts) >= 2:
                out = b"".join(b"VALUE %s 0 %d\r\n%s\r\n" % (k, len(name), name) for k in parts[1:])
                self.wfile.write(out + b"END\r\n")
            else:
                self.wfile.write(b"ERROR\r\n")
            self.wfile.flush()


def run_twemproxy(spec, keys, tmp, procs):
    """spec: {"hash": "fnv1a_64", "servers": [{"name"?: text, "weight": W}]}.

    A server without "name" is written as host:port:weight (nutcracker then
    hashes "127.0.0.1:PORT"); the fake backend answers with that name."""
    servers = spec["servers"]
    ports = free_ports(len(servers) + 2)
    front, stats, backs = ports[0], ports[1], ports[2:]
    names, lines, fakes = [], [], []
    for s, p in zip(servers, backs):
        name = s.get("name") or f"127.0.0.1:{p}"
        names.append(name)
        line = f"   - 127.0.0.1:{p}:{s.get('weight', 1)}"
        if s.get("name"):
            line += f" {s['name']}"
        lines.append(line)
        fake = NamedMemcached(p, name)
        threading.Thread(target=fake.serve_forever, daemon=True).start()
        fakes.append(fake)
    conf = f"""pool:
  listen: 127.0.0.1:{front}
  hash: {spec.get('hash', 'fnv1a_64')}
  distribution: ketama
  timeout: 5000
  auto_eject_hosts: false
  servers:
{chr(10).join(lines)}
"""
    path = os.path.join(tmp, "nutcracker.yml")
    with open(path, "w") as f:
        f.write(conf)
    log = os.path.join(tmp, "nutcracker.log")
    proc = procs.start(["nutcracker", "-c", path, "-o", log, "-s", str(stats), "-a", "127.0.0.1",
                        "-p", os.path.join(tmp, "nutcracker.pid")], os.path.join(tmp, "nutcracker.out"))
    try:
        try:
            wait_port(front, proc, "nutcracker")
        except PeerError as e:
            raise PeerError(f"{e}: {log_tail(log)} {log_tail(os.path.join(tmp, 'nutcracker.out'))}")
        answers = []
        with socket.create_connection(("127.0.0.1", front), timeout=10) as sock:
            f = sock.makefile("rb")
            batch = 200
            for i in range(0, len(keys), batch):
                chunk = keys[i:i + batch]
                sock.sendall(b"".join(b"get %s\r\n" % k for k in chunk))
                for k in chunk:
                    head = f.readline()
                    if not head.startswith(b"VALUE "):
                        raise PeerError(f"nutcracker answered {head!r} for key {k!r}")
                    value = f.readline().rstrip(b"\r\n")
                    end = f.readline()
                    if end != b"END\r\n":
                        raise PeerError(f"nutcracker answered {end!r} after the value of {k!r}")
                    answers.append(value.decode())
    finally:
        for fake in fakes:
            fake.shutdown()
            fake.server_close()
    return {"servers": names, "config": conf}, answers


# ------------------------------------------------------------- redis cluster
def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def read_reply(f):
    line = f.readline()
    if not line:
        raise PeerError("redis-server closed the connection")
    kind, rest = line[:1], line[1:].rstrip(b"\r\n")
    if kind in (b"+", b"-"):
        return (kind, rest)
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2]
    if kind == b"*":
        return [read_reply(f) for _ in range(int(rest))]
    raise PeerError(f"unexpected reply {line!r}")


def redis_call(port, *args):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(resp(*args))
        return read_reply(sock.makefile("rb"))


def run_redis_cluster(spec, keys, tmp, procs):
    """spec: {"masters": N}. Makes an N-master cluster with redis-cli --cluster create."""
    count = spec.get("masters", 3)
    ports = free_cluster_ports(count)
    for p in ports:
        d = os.path.join(tmp, str(p))
        os.mkdir(d)
        proc = procs.start(["redis-server", "--port", str(p), "--bind", "127.0.0.1", "--dir", d,
                            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                            "--save", "", "--appendonly", "no", "--daemonize", "no",
                            "--protected-mode", "no"], os.path.join(d, "redis.log"))
        try:
            wait_port(p, proc, "redis-server")
        except PeerError as e:
            raise PeerError(f"{e}: {log_tail(os.path.join(d, 'redis.log'))}")
    create = subprocess.run(["redis-cli", "--cluster", "create"] + [f"127.0.0.1:{p}" for p in ports]
                            + ["--cluster-yes"], capture_output=True, timeout=60)
    if create.returncode != 0:
        raise PeerError("redis-cli --cluster create failed: " + create.stdout.decode()[-1000:]
                        + create.stderr.decode()[-1000:])
    end = time.monotonic() + 30
    while True:
        states = [redis_call(p, "CLUSTER", "INFO") for p in ports]
        if all(b"cluster_state:ok" in s for s in states):
            break
        if time.monotonic() > end:
            raise PeerError("the cluster did not reach cluster_state:ok within 30 s")
        time.sleep(0.1)
    nodes_text = redis_call(ports[0], "CLUSTER", "NODES").decode()
    # CLUSTER SLOTS in the three forms redis-cli prints: raw (its default into a
    # file or pipe), the terminal rendering (--no-raw) and --json.
    cluster_slots = {}
    for form, flags in (("raw", []), ("tty", ["--no-raw"]), ("json", ["--json"])):
        out = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(ports[0])] + flags
                             + ["cluster", "slots"], capture_output=True, timeout=30)
        if out.returncode != 0:
            raise PeerError(f"redis-cli {' '.join(flags)} cluster slots failed: "
                            + out.stderr.decode()[-500:])
        cluster_slots[form] = out.stdout.decode()
    answers = []
    me = f"127.0.0.1:{ports[0]}"
    with socket.create_connection(("127.0.0.1", ports[0]), timeout=10) as sock:
        f = sock.makefile("rb")
        batch = 500
        for i in range(0, len(keys), batch):
            chunk = keys[i:i + batch]
            sock.sendall(b"".join(resp(b"GET", k) for k in chunk))
            for k in chunk:
                r = read_reply(f)
                if r is None:
                    answers.append(me)
                elif isinstance(r, tuple) and r[0] == b"-" and r[1].startswith(b"MOVED "):
                    answers.append(r[1].split(b" ")[2].decode())
                else:
                    raise PeerError(f"redis answered {r!r} to GET {k!r}")
        slots = []
        for i in range(0, len(keys), batch):
            chunk = keys[i:i + batch]
            sock.sendall(b"".join(resp(b"CLUSTER", b"KEYSLOT", k) for k in chunk))
            slots.extend(read_reply(f) for _ in chunk)
    return {"servers": [f"127.0.0.1:{p}" for p in ports], "cluster_nodes": nodes_text,
            "cluster_slots": cluster_slots, "slots": slots}, answers


# ---------------------------------------------------------------- groupcache
GROUPCACHE_PEER = r"""
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/golang/groupcache/consistenthash"
)

func main() {
	var spec struct {
		Replicas int      `json:"replicas"`
		Peers    []string `json:"peers"`
	}
	data, _ := os.ReadFile(os.Args[1])
	if err := json.Unmarshal(data, &spec); err != nil {
		panic(err)
	}
	m := consistenthash.New(spec.Replicas, nil)
	m.Add(spec.Peers...)
	in, _ := os.Open(os.Args[2])
	out := bufio.NewWriter(os.Stdout)
	scan := bufio.NewScanner(in)
	for scan.Scan() {
		fmt.Fprintf(out, "%s\n", m.Get(scan.Text()))
	}
	out.Flush()
}
"""


def run_program(argv, tmp, what, env=None):
    done = subprocess.run(argv, capture_output=True, timeout=120, cwd=tmp, env=env)
    if done.returncode != 0:
        raise PeerError(f"{what} failed: {done.stderr.decode('utf-8', 'replace')[-1500:]}")
    return done.stdout.decode("utf-8").split("\n")[:-1]


def write_keys(tmp, keys):
    path = os.path.join(tmp, "keys.txt")
    with open(path, "wb") as f:
        f.write(b"".join(k + b"\n" for k in keys))
    return path


def run_groupcache(spec, keys, tmp, procs):
    """spec: {"replicas": R, "peers": [...]}: consistenthash.Map, peers added in order."""
    src = os.path.join(tmp, "peer.go")
    with open(src, "w") as f:
        f.write(GROUPCACHE_PEER)
    with open(os.path.join(tmp, "spec.json"), "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=os.path.join(tmp, "gocache"),
               HOME=tmp)
    answers = run_program(["go", "run", src, "spec.json", write_keys(tmp, keys)], tmp, "go run", env)
    return {"servers": spec["peers"]}, answers


# --------------------------------------------------------------------- guava
GUAVA_PEER = r"""
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

public class Peer {
    public static void main(String[] args) throws Exception {
        int buckets = Integer.parseInt(args[0]);
        StringBuilder out = new StringBuilder();
        for (String key : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            long input = Hashing.murmur3_128().hashString(key, StandardCharsets.UTF_8).padToLong();
            out.append(Hashing.consistentHash(input, buckets)).append('\n');
        }
        System.out.print(out);
    }
}
"""


def run_guava(spec, keys, tmp, procs):
    """spec: {"buckets": N}: Hashing.consistentHash(murmur3_128 padToLong, N)."""
    src = os.path.join(tmp, "Peer.java")
    with open(src, "w") as f:
        f.write(GUAVA_PEER)
    answers = run_program(["java", "-cp", "/usr/share/java/guava.jar", src, str(spec["buckets"]),
                           write_keys(tmp, keys)], tmp, "java")
    return {"servers": [str(b) for b in range(spec["buckets"])]}, answers


# ----------------------------------------------------------------- cassandra
def run_cassandra(spec, keys, tmp, procs):
    """spec: {"nodes": [{"name", "dc", "rack", "tokens": [...]}], "rf": R,
    "dc_rf": {dc: R}}. The DataStax driver's Murmur3 tokens, its ring search
    (TokenMap.get_replicas) and its SimpleStrategy / NetworkTopologyStrategy
    replica maps; no server. Answers "owner|simple replicas|nts replicas"."""
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    from bisect import bisect_left
    from cassandra.metadata import Murmur3Token, SimpleStrategy, NetworkTopologyStrategy
    from cassandra.pool import Host
    from cassandra.connection import DefaultEndPoint
    from cassandra.policies import SimpleConvictionPolicy

    owner, hosts = {}, {}
    for n in spec["nodes"]:
        host = Host(DefaultEndPoint(n["name"]), SimpleConvictionPolicy, datacenter=n["dc"], rack=n["rack"])
        hosts[n["name"]] = host
        for t in n["tokens"]:
            owner[Murmur3Token(t)] = host
    ring = sorted(owner)
    simple = SimpleStrategy({"replication_factor": str(spec["rf"])}).make_token_replica_map(owner, ring)
    nts = NetworkTopologyStrategy({dc: str(r) for dc, r in spec["dc_rf"].items()}).make_token_replica_map(owner, ring)
    answers, tokens = [], []
    for k in keys:
        token = Murmur3Token.from_key(k)
        tokens.append(token.value)
        point = bisect_left(ring, token)
        at = ring[0] if point == len(ring) else ring[point]
        answers.append("|".join([owner[at].endpoint.address,
                                 ",".join(h.endpoint.address for h in simple[at]),
                                 ",".join(h.endpoint.address for h in nts[at])]))
    return {"servers": [n["name"] for n in spec["nodes"]], "tokens": tokens}, answers


RUNNERS = {
    "nginx": run_nginx,
    "haproxy": run_haproxy,
    "twemproxy": run_twemproxy,
    "redis-cluster": run_redis_cluster,
    "groupcache": run_groupcache,
    "guava": run_guava,
    "cassandra": run_cassandra,
}


def main(argv):
    if len(argv) != 4 or argv[1] not in RUNNERS:
        print(f"usage: peer_driver.py {{{'|'.join(RUNNERS)}}} SPEC_FILE KEYS_FILE", file=sys.stderr)
        return 2
    system, keys_path = argv[1], argv[3]
    with open(argv[2]) as f:
        spec = json.load(f)
    with open(keys_path, "rb") as f:
        keys = [line.rstrip(b"\n") for line in f if line.rstrip(b"\n")]
    program = {"twemproxy": "nutcracker", "redis-cluster": "redis-server", "groupcache": "go", "guava": "java",
               "cassandra": "python3"}.get(system, system)
    if shutil.which(program) is None:
        print(f"peer_driver: {system} is not installed; run scripts/install-deps", file=sys.stderr)
        return 3
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(PeerError(f"over {DEADLINE} s")))
    signal.alarm(DEADLINE)
    procs = Processes()
    tmp = tempfile.mkdtemp(prefix=f"ringbloom-{system}-")
    try:
        header, answers = RUNNERS[system](spec, keys, tmp, procs)
    except (PeerError, OSError, subprocess.SubprocessError) as e:
        print(f"peer_driver: {system}: {e}", file=sys.stderr)
        return 3
    finally:
        signal.alarm(0)
        procs.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    out = sys.stdout.buffer
    out.write(json.dumps(header).encode() + b"\n")
    for k, a in zip(keys, answers):
        out.write(k + b"\t" + a.encode() + b"\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
