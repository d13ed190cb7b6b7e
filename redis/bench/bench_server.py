"""One stock redis-server with one module, for the benchmark scripts beside this file.

Each server listens on 127.0.0.1 on a free port, keeps its files in a new
temporary directory (no RDB, no AOF), and is stopped by its PID: `stop()`
terminates it, kills it if it has not gone within 30 s, and removes the
directory. Start-up waits at most 15 s for the first PING.
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
    def __init__(self, module):
        module = os.path.abspath(module)  # the server changes to its --dir before loading it
        self.dir = tempfile.mkdtemp(prefix="ringbloom-bench-")
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "no", "--loadmodule", module,
             "--logfile", os.path.join(self.dir, "log")], stdout=subprocess.DEVNULL)
        self.r = redis.Redis(port=self.port, socket_timeout=600)
        for _ in range(300):
            try:
                self.r.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        log = open(os.path.join(self.dir, "log"), errors="replace").read()[-2000:]
        self.stop()
        raise SystemExit(f"redis-server with {module} did not start:\n{log}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
