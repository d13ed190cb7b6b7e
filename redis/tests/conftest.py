"""Real redis-server processes for the ringbloom.so tests.

Every server binds 127.0.0.1 on a free port, runs in its own temporary
directory, is stopped by its PID, and every wait is bounded. The module is
taken from $RINGBLOOM_REDIS_MODULE (CTest sets it) or build/release; the
server from $RINGBLOOM_REDIS_SERVER or redis-server on PATH.
A missing redis-server or module is a test failure that says what to do.
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest
import redis

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODULE = os.environ.get(
    "RINGBLOOM_REDIS_MODULE", os.path.join(ROOT, "build", "release", "redis", "ringbloom.so"))
# Another server (Redis 7.2/8, Valkey 8: docs/redis.md, "Servers") through
# $RINGBLOOM_REDIS_SERVER; Debian's redis-server by default.
REDIS_SERVER = (os.environ.get("RINGBLOOM_REDIS_SERVER") or shutil.which("redis-server")
                or "/usr/bin/redis-server")
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
# Sanitizer builds of the module need their runtime loaded first.
PRELOAD = os.environ.get("RINGBLOOM_REDIS_PRELOAD", "")

START_TIMEOUT = 15.0
STOP_TIMEOUT = 15.0


def require_tools():
    if not os.path.exists(REDIS_SERVER):
        pytest.fail("redis-server is missing; run scripts/install-deps (package redis-server)")
    if not os.path.exists(MODULE):
        pytest.fail(f"{MODULE} is missing; build it: cmake --build build/release --target ringbloom_redis")


def port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(cluster=False):
    """A port free on 127.0.0.1 (and, for cluster nodes, its bus port +10000)."""
    for _ in range(200):
        port = random.randint(20000, 40000)
        if port_is_free(port) and (not cluster or port_is_free(port + 10000)):
            return port
    raise RuntimeError("no free port found on 127.0.0.1 after 200 tries")


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (redis.ConnectionError, redis.ResponseError, redis.BusyLoadingError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Server:
    """One redis-server with the module, in `directory` (kept across restarts)."""

    def __init__(self, directory, module_args=(), config=(), port=None, cluster=False):
        self.dir = directory
        self.module_args = list(module_args)
        self.config = list(config)
        self.cluster = cluster
        self.port = port or free_port(cluster)
        self.proc = None
        self.log = os.path.join(directory, f"redis-{self.port}.log")

    def command_line(self):
        cmd = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
               "--dir", self.dir, "--save", "", "--appendonly", "no",
               "--logfile", self.log, "--daemonize", "no", "--protected-mode", "no",
               "--enable-debug-command", "yes",
               "--loadmodule", MODULE, *self.module_args]
        cmd += self.config
        if self.cluster:
            cmd += ["--cluster-enabled", "yes", "--cluster-config-file",
                    f"nodes-{self.port}.conf", "--cluster-node-timeout", "3000"]
        return cmd

    def start(self, wait=True):
        env = dict(os.environ)
        if PRELOAD:
            env["LD_PRELOAD"] = PRELOAD
            env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
        self.proc = subprocess.Popen(self.command_line(), cwd=self.dir, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"redis-server exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                c = self.client()
                if c.ping():
                    wait_until(lambda: c.info("persistence")["loading"] == 0, timeout, "loading")
                    return
            except (redis.ConnectionError, redis.BusyLoadingError):
                pass
            time.sleep(0.05)
        raise AssertionError(f"redis-server on port {self.port} not ready after {timeout} s:\n{self.log_text()}")

    def client(self, **kwargs):
        kwargs.setdefault("socket_timeout", 60)
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return "(no log)"

    def stop(self):
        """Stops the server by PID: SIGTERM (it saves if configured), then SIGKILL."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT)

    def kill9(self):
        self.proc.kill()
        self.proc.wait(timeout=STOP_TIMEOUT)

    def restart(self):
        self.stop()
        self.start()


@pytest.fixture
def workdir():
    d = tempfile.mkdtemp(prefix="ringbloom-redis-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def make_server(workdir):
    """make_server(module_args=..., config=...) -> a started Server; all stopped at the end."""
    require_tools()
    servers = []

    def make(module_args=(), config=(), subdir=None, start=True, cluster=False):
        d = workdir if subdir is None else os.path.join(workdir, subdir)
        os.makedirs(d, exist_ok=True)
        s = Server(d, module_args, config, cluster=cluster)
        servers.append(s)
        if start:
            s.start()
        return s

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def server(make_server):
    return make_server()


@pytest.fixture
def raw(server):
    """A client without redis-py's module reply parsers (r.bf() installs them
    on its own client), for asserting the wire replies."""
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def r(server):
    c = server.client()
    yield c
    c.close()


class Resp3:
    """A blocking RESP3 connection: send a command, read one typed reply."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def close(self):
        self.sock.close()

    def send(self, *args):
        out = [f"*{len(args)}\r\n".encode()]
        for a in args:
            b = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        self.sock.sendall(b"".join(out))
        return self.read()

    def _line(self):
        for _ in range(10000):  # bounded: a reply line arrives or the socket times out
            at = self.buf.find(b"\r\n")
            if at >= 0:
                line, self.buf = self.buf[:at], self.buf[at + 2:]
                return line
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        raise AssertionError("no complete reply line")

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        """(type, value): type is the RESP3 prefix character."""
        line = self._line()
        kind, rest = chr(line[0]), line[1:]
        if kind in "+-":
            return kind, rest.decode()
        if kind == ":":
            return kind, int(rest)
        if kind == ",":
            return kind, float(rest)
        if kind == "_":
            return kind, None
        if kind == "#":
            return kind, rest == b"t"
        if kind in "$=":
            n = int(rest)
            return kind, None if n < 0 else self._exact(n)
        if kind in "*~>":
            return kind, [self.read() for _ in range(int(rest))]
        if kind in "%|":
            pairs = []
            for _ in range(int(rest)):
                pairs.append((self.read(), self.read()))
            return kind, pairs
        raise AssertionError(f"unknown RESP3 type {kind!r}")


@pytest.fixture
def resp3(server):
    """A raw RESP3-capable connection to the server (redis-py 4.3 speaks RESP2
    only); send HELLO 3 to switch it."""
    c = Resp3(server.port)
    yield c
    c.close()
