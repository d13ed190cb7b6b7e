"""Replies under RESP3 (HELLO 3) and RESP2, on one connection, as RedisBloom
2.6 answers: BF.INFO, CF.INFO, CMS.INFO and TOPK.INFO are maps under RESP3
(BF.INFO with one field: a map of that one field) and flat arrays of names
and values under RESP2 (one field: a one-element array); the yes/no answers
of BF.ADD, BF.EXISTS, CF.ADD, CF.EXISTS, CF.DEL and TOPK.QUERY are booleans
under RESP3 and the integers 1 and 0 under RESP2, while counts stay integers.
redis-py 4.3 speaks RESP2 only, so RESP3 goes through conftest's small
reader (the resp3 fixture)."""
import pytest



def names(reply):
    kind, pairs = reply
    assert kind == "%", reply
    return {k[1]: v for k, v in pairs}


def flat(reply):
    kind, items = reply
    assert kind == "*", reply
    assert len(items) % 2 == 0
    return {items[i][1]: items[i + 1] for i in range(0, len(items), 2)}


def make_keys(resp3):
    assert resp3.send("BF.RESERVE", "bf", "0.01", "1000", "EXPANSION", "4") == ("+", "OK")
    resp3.send("BF.MADD", "bf", "a", "b", "c")
    assert resp3.send("BF.RESERVE", "fixed", "0.01", "10", "NONSCALING") == ("+", "OK")
    assert resp3.send("CF.RESERVE", "cf", "1000") == ("+", "OK")
    resp3.send("CF.ADD", "cf", "a")
    assert resp3.send("CMS.INITBYDIM", "cms", "100", "4") == ("+", "OK")
    resp3.send("CMS.INCRBY", "cms", "a", "5")
    assert resp3.send("TOPK.RESERVE", "topk", "3", "50", "4", "0.9") == ("+", "OK")


EXPECTED = {
    "bf": {"Capacity": (":", 1000), "Number of filters": (":", 1),
           "Number of items inserted": (":", 3), "Expansion rate": (":", 4)},
    "cf": {"Number of filters": (":", 1), "Number of items inserted": (":", 1),
           "Number of items deleted": (":", 0), "Bucket size": (":", 2),
           "Expansion rate": (":", 1), "Max iterations": (":", 20)},
    "cms": {"width": (":", 100), "depth": (":", 4), "count": (":", 5)},
    "topk": {"k": (":", 3), "width": (":", 50), "depth": (":", 4)},
}
ORDER = {
    "bf": ["Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"],
    "cf": ["Size", "Number of buckets", "Number of filters", "Number of items inserted",
           "Number of items deleted", "Bucket size", "Expansion rate", "Max iterations"],
    "cms": ["width", "depth", "count"],
    "topk": ["k", "width", "depth", "decay"],
}


def test_info_is_a_map_under_resp3_and_a_flat_array_under_resp2(resp3):
    assert resp3.send("HELLO", "3")[0] == "%"
    make_keys(resp3)
    maps = {}
    for key in ORDER:
        fields = names(resp3.send(f"{key.upper()}.INFO", key))
        assert list(fields) == ORDER[key], key
        for name, value in EXPECTED[key].items():
            assert fields[name] == value, (key, name)
        maps[key] = fields
    assert maps["topk"]["decay"] == (",", 0.9)  # a RESP3 double
    assert names(resp3.send("BF.INFO", "fixed"))["Expansion rate"] == ("_", None)

    assert resp3.send("HELLO", "2")[0] == "*"
    for key in ORDER:
        fields = flat(resp3.send(f"{key.upper()}.INFO", key))
        assert list(fields) == ORDER[key], key
        for name, value in EXPECTED[key].items():
            assert fields[name] == value, (key, name)
    assert flat(resp3.send("TOPK.INFO", "topk"))["decay"][0] == "$"  # a bulk string in RESP2
    assert flat(resp3.send("CF.INFO", "cf"))["Size"] == maps["cf"]["Size"]


@pytest.mark.parametrize("field,name", [("CAPACITY", "Capacity"), ("SIZE", "Size"),
                                        ("FILTERS", "Number of filters"),
                                        ("ITEMS", "Number of items inserted"),
                                        ("EXPANSION", "Expansion rate")])
def test_bf_info_of_one_field(resp3, field, name):
    assert resp3.send("HELLO", "3")[0] == "%"
    make_keys(resp3)
    whole = names(resp3.send("BF.INFO", "bf"))
    assert resp3.send("BF.INFO", "bf", field) == ("%", [(("+", name), whole[name])])
    assert resp3.send("HELLO", "2")[0] == "*"
    assert resp3.send("BF.INFO", "bf", field) == ("*", [whole[name]])


def test_windowed_bf_info_follows_the_protocol(resp3):
    assert resp3.send("HELLO", "3")[0] == "%"
    assert resp3.send("BF.RESERVE", "w", "0.01", "1000", "WINDOW", "60") == ("+", "OK")
    resp3.send("BF.ADD", "w", "a")
    fields = names(resp3.send("BF.INFO", "w"))
    assert fields["Capacity"] == (":", 1000) and fields["Expansion rate"] == ("_", None)
    assert fields["Error rate"] == (",", 0.01)
    assert resp3.send("BF.INFO", "w", "ITEMS") == ("%", [(("+", "Number of items inserted"),
                                                          (":", 1))])
    assert resp3.send("HELLO", "2")[0] == "*"
    assert flat(resp3.send("BF.INFO", "w"))["Capacity"] == (":", 1000)
    assert resp3.send("BF.INFO", "w", "ITEMS") == ("*", [(":", 1)])


T, F = ("#", True), ("#", False)


def test_yes_no_answers_are_booleans_under_resp3_and_integers_under_resp2(resp3):
    assert resp3.send("HELLO", "3")[0] == "%"
    assert resp3.send("BF.ADD", "bf", "a") == T
    assert resp3.send("BF.ADD", "bf", "a") == F
    assert resp3.send("BF.MADD", "bf", "a", "b") == ("*", [F, T])
    assert resp3.send("BF.INSERT", "bf", "ITEMS", "c") == ("*", [T])
    assert resp3.send("BF.EXISTS", "bf", "a") == T
    assert resp3.send("BF.EXISTS", "missing", "a") == F
    assert resp3.send("BF.MEXISTS", "bf", "a", "zz") == ("*", [T, F])
    assert resp3.send("BF.CARD", "bf") == (":", 3)
    assert resp3.send("CF.ADD", "cf", "a") == T
    assert resp3.send("CF.ADDNX", "cf", "a") == F
    assert resp3.send("CF.INSERT", "cf", "ITEMS", "b") == ("*", [T])
    assert resp3.send("CF.INSERTNX", "cf", "ITEMS", "b", "c") == ("*", [(":", 0), (":", 1)])
    assert resp3.send("CF.EXISTS", "cf", "a") == T
    assert resp3.send("CF.MEXISTS", "cf", "a", "zz") == ("*", [T, F])
    assert resp3.send("CF.COUNT", "cf", "a") == (":", 1)
    assert resp3.send("CF.DEL", "cf", "a") == T
    assert resp3.send("CF.DEL", "cf", "a") == F
    assert resp3.send("TOPK.RESERVE", "topk", "2") == ("+", "OK")
    resp3.send("TOPK.ADD", "topk", "x", "x", "y")
    assert resp3.send("TOPK.QUERY", "topk", "x", "nope") == ("*", [T, F])
    assert resp3.send("TOPK.COUNT", "topk", "x")[1][0][0] == ":"
    assert resp3.send("BF.RESERVE", "w", "0.01", "100", "WINDOW", "60") == ("+", "OK")
    assert resp3.send("BF.ADD", "w", "a") == T
    assert resp3.send("BF.MEXISTS", "w", "a", "zz") == ("*", [T, F])

    assert resp3.send("HELLO", "2")[0] == "*"
    assert resp3.send("BF.ADD", "bf", "d") == (":", 1)
    assert resp3.send("BF.EXISTS", "bf", "zz") == (":", 0)
    assert resp3.send("CF.EXISTS", "cf", "b") == (":", 1)
    assert resp3.send("CF.DEL", "cf", "b") == (":", 1)
    assert resp3.send("TOPK.QUERY", "topk", "x") == ("*", [(":", 1)])
    assert resp3.send("BF.ADD", "w", "b") == (":", 1)
