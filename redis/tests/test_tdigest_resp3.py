"""TDIGEST.* under RESP3 (HELLO 3), as RedisBloom 2.6 answers: doubles as
RESP3 doubles, TDIGEST.INFO as a map, ranks as integers; and the same
commands under RESP2 on the same server (doubles as bulk strings, INFO as a
flat array). redis-py 4.3 speaks RESP2 only, so these tests talk RESP3
through a small reader of their own over a socket to 127.0.0.1."""
import math
import socket

import pytest


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
def conn(server):
    c = Resp3(server.port)
    yield c
    c.close()


def test_resp3_doubles_maps_and_integers(conn):
    kind, hello = conn.send("HELLO", "3")
    assert kind == "%"
    assert ("+", "OK") == conn.send("TDIGEST.CREATE", "t", "COMPRESSION", "100")
    assert conn.send("TDIGEST.ADD", "t", *range(1, 11)) == ("+", "OK")

    assert conn.send("TDIGEST.MIN", "t") == (",", 1.0)
    assert conn.send("TDIGEST.MAX", "t") == (",", 10.0)
    kind, values = conn.send("TDIGEST.QUANTILE", "t", "0", "0.5", "1")
    assert kind == "*" and [v[0] for v in values] == [",", ",", ","]
    assert values[0][1] == 1.0 and values[2][1] == 10.0
    kind, values = conn.send("TDIGEST.CDF", "t", "0", "10", "11")
    assert [v for v in values] == [(",", 0.0), (",", 0.95), (",", 1.0)]
    kind, values = conn.send("TDIGEST.BYRANK", "t", "0", "100")
    assert values == [(",", 1.0), (",", math.inf)]
    kind, values = conn.send("TDIGEST.BYREVRANK", "t", "100")
    assert values == [(",", -math.inf)]
    kind, values = conn.send("TDIGEST.RANK", "t", "0", "5")
    assert kind == "*" and [v[0] for v in values] == [":", ":"] and values[0][1] == -1
    kind, mean = conn.send("TDIGEST.TRIMMED_MEAN", "t", "0.1", "0.9")
    assert kind == "," and mean == pytest.approx(5.5)

    kind, pairs = conn.send("TDIGEST.INFO", "t")
    assert kind == "%" and len(pairs) == 9
    fields = {k[1]: v for k, v in pairs}
    assert [k[0] for k, _ in pairs] == ["+"] * 9
    assert list(fields) == ["Compression", "Capacity", "Merged nodes", "Unmerged nodes",
                            "Merged weight", "Unmerged weight", "Observations",
                            "Total compressions", "Memory usage"]
    assert fields["Compression"] == (":", 100) and fields["Observations"] == (":", 10)

    # An empty digest answers NaN as a RESP3 double.
    conn.send("TDIGEST.CREATE", "empty")
    kind, value = conn.send("TDIGEST.MIN", "empty")
    assert kind == "," and math.isnan(value)
    kind, message = conn.send("TDIGEST.QUANTILE", "t", "2")
    assert kind == "-" and message == "ERR T-Digest: quantile should be in [0,1]"


def test_resp2_on_the_same_server_is_unchanged(conn):
    conn.send("TDIGEST.CREATE", "t")
    conn.send("TDIGEST.ADD", "t", "1", "2", "3")
    kind, values = conn.send("TDIGEST.QUANTILE", "t", "0", "1")
    assert kind == "*" and values == [("$", b"1"), ("$", b"3")]
    kind, flat = conn.send("TDIGEST.INFO", "t")
    assert kind == "*" and len(flat) == 18 and flat[0] == ("+", "Compression")
    assert conn.send("HELLO", "3")[0] == "%"
    assert conn.send("TDIGEST.INFO", "t")[0] == "%"
    assert conn.send("HELLO", "2")[0] == "*"
    assert conn.send("TDIGEST.INFO", "t")[0] == "*"
