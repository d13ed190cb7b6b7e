"""TDIGEST.* under RESP3 (HELLO 3), as RedisBloom 2.6 answers: doubles as
RESP3 doubles, TDIGEST.INFO as a map, ranks as integers; and the same
commands under RESP2 on the same server (doubles as bulk strings, INFO as a
flat array). redis-py 4.3 speaks RESP2 only, so these tests talk RESP3
through conftest's small RESP3 reader over a socket to 127.0.0.1."""
import math

import pytest


def test_resp3_doubles_maps_and_integers(resp3):
    kind, hello = resp3.send("HELLO", "3")
    assert kind == "%"
    assert ("+", "OK") == resp3.send("TDIGEST.CREATE", "t", "COMPRESSION", "100")
    assert resp3.send("TDIGEST.ADD", "t", *range(1, 11)) == ("+", "OK")

    assert resp3.send("TDIGEST.MIN", "t") == (",", 1.0)
    assert resp3.send("TDIGEST.MAX", "t") == (",", 10.0)
    kind, values = resp3.send("TDIGEST.QUANTILE", "t", "0", "0.5", "1")
    assert kind == "*" and [v[0] for v in values] == [",", ",", ","]
    assert values[0][1] == 1.0 and values[2][1] == 10.0
    kind, values = resp3.send("TDIGEST.CDF", "t", "0", "10", "11")
    assert [v for v in values] == [(",", 0.0), (",", 0.95), (",", 1.0)]
    kind, values = resp3.send("TDIGEST.BYRANK", "t", "0", "100")
    assert values == [(",", 1.0), (",", math.inf)]
    kind, values = resp3.send("TDIGEST.BYREVRANK", "t", "100")
    assert values == [(",", -math.inf)]
    kind, values = resp3.send("TDIGEST.RANK", "t", "0", "5")
    assert kind == "*" and [v[0] for v in values] == [":", ":"] and values[0][1] == -1
    kind, mean = resp3.send("TDIGEST.TRIMMED_MEAN", "t", "0.1", "0.9")
    assert kind == "," and mean == pytest.approx(5.5)

    kind, pairs = resp3.send("TDIGEST.INFO", "t")
    assert kind == "%" and len(pairs) == 9
    fields = {k[1]: v for k, v in pairs}
    assert [k[0] for k, _ in pairs] == ["+"] * 9
    assert list(fields) == ["Compression", "Capacity", "Merged nodes", "Unmerged nodes",
                            "Merged weight", "Unmerged weight", "Observations",
                            "Total compressions", "Memory usage"]
    assert fields["Compression"] == (":", 100) and fields["Observations"] == (":", 10)

    # An empty digest answers NaN as a RESP3 double.
    resp3.send("TDIGEST.CREATE", "empty")
    kind, value = resp3.send("TDIGEST.MIN", "empty")
    assert kind == "," and math.isnan(value)
    kind, message = resp3.send("TDIGEST.QUANTILE", "t", "2")
    assert kind == "-" and message == "ERR T-Digest: quantile should be in [0,1]"


def test_resp2_on_the_same_server_is_unchanged(resp3):
    resp3.send("TDIGEST.CREATE", "t")
    resp3.send("TDIGEST.ADD", "t", "1", "2", "3")
    kind, values = resp3.send("TDIGEST.QUANTILE", "t", "0", "1")
    assert kind == "*" and values == [("$", b"1"), ("$", b"3")]
    kind, flat = resp3.send("TDIGEST.INFO", "t")
    assert kind == "*" and len(flat) == 18 and flat[0] == ("+", "Compression")
    assert resp3.send("HELLO", "3")[0] == "%"
    assert resp3.send("TDIGEST.INFO", "t")[0] == "%"
    assert resp3.send("HELLO", "2")[0] == "*"
    assert resp3.send("TDIGEST.INFO", "t")[0] == "*"
