"""One stock redis-server with one module, for the benchmark scripts beside this file.

Each server listens on 127.0.0.1 on a free port, keeps its files in a new
temporary directory (no RDB, no AOF), and is stopped by its PID: `stop()`
terminates it, kills it if it has not gone within `stop_timeout` seconds (30),
and removes the directory. Start-up waits at most `start_timeout` seconds (15)
for the first PING. `prefix` runs the server under another program (valgrind
for peer_instructions.py).
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, module, prefix=(), start_timeout=15, stop_timeout=30):
        module = os.path.abspath(module)  # the server changes to its --dir before loading it
        self.dir = tempfile.mkdtemp(prefix="ringbloom-bench-")
        self.port = free_port()
        self.stop_timeout = stop_timeout
        self.proc = subprocess.Popen(
            [*prefix, "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", self.dir, "--save", "", "--appendonly", "no", "--loadmodule", module,
             "--logfile", os.path.join(self.dir, "log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(port=self.port, socket_timeout=600)
        for _ in range(int(start_timeout / 0.05)):
            try:
                self.r.ping()
                return
            except redis.ConnectionError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        log_path = os.path.join(self.dir, "log")
        log = open(log_path, errors="replace").read()[-2000:] if os.path.exists(log_path) else ""
        self.stop()
        raise SystemExit(f"redis-server with {module} did not start:\n{log}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
