"""The examples' figures against `ringbloom demo --json` (the same experiments
run by the C++ tour) and against the lessons' printed numbers."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import german_lesson  # noqa: E402
import lab11  # noqa: E402


@pytest.fixture(scope="module")
def demo():
    cli = os.environ.get("RINGBLOOM_CLI")
    if not cli:
        pytest.fail("RINGBLOOM_CLI must name the ringbloom CLI (CTest sets it)")
    out = subprocess.run([cli, "demo", "--json"], capture_output=True, text=True, timeout=300,
                         check=True)
    return json.loads(out.stdout)


def test_walkthrough(demo):
    bits, probes = german_lesson.walkthrough()
    walk = demo["bloom"]["walkthrough"]
    assert bits == walk["bits"] == "0001100000000001"
    for probe in walk["probes"]:
        assert probes[probe["item"]] == (probe["positions"], probe["may_contain"])
    # The lesson's printed lines.
    assert probes["anna"] == ([4, 15], True)
    assert probes["cem"] == ([5, 3], False)
    assert probes["user5"] == ([15, 3], True)


def test_rebalance(demo):
    rows = {(r["hash"], r["from_nodes"]): r for r in demo["rebalance"]["rows"]}
    for n, lesson in ((4, 0.796), (10, 0.908)):
        fraction = german_lesson.modulo_moved(n)
        assert fraction == rows[("sha256", n)]["modulo_fraction"]
        assert round(fraction, 3) == lesson
        ring_fraction, moved_to = german_lesson.ring_moved(n)
        assert ring_fraction == rows[("sha256", n)]["ring_fraction"]
        assert set(moved_to) == {f"n{n + 1}"}


def test_token_exercises(demo):
    by_name = {e["name"]: e for e in demo["exercises"]}
    assert german_lesson.step2_example() == ("ABCCA", "ABDCA", 1)
    assert german_lesson.exercise2() == ("XYZXXY", "XZZXXZ", 2)
    for name, ours in (("step2", german_lesson.step2_example()),
                       ("exercise2", german_lesson.exercise2())):
        e = by_name[name]
        assert ours == (e["before"], e["after"], e["moved"])


def test_exercise1(demo):
    for row in demo["bloom"]["exercise"]:
        fn, fp, formula = german_lesson.exercise1(hash=row["hash"])
        assert (fn, fp) == (row["false_negatives"], row["false_positives"])
        assert formula == pytest.approx(row["formula"], rel=1e-12)
        assert fn == 0


def test_vnode_shares(demo):
    tables = {(t["hash"], t["vnodes"]): t for t in demo["vnodes"]["shares"]}
    for vnodes, low, high in ((1, 0.07, 0.37), (100, 0.24, 0.26)):
        shares = german_lesson.vnode_shares(vnodes)
        table = tables[("sha256", vnodes)]
        assert shares == {n["node"]: n["key_share"] for n in table["nodes"]}
        # The lesson rounds to whole percent.
        assert round(min(shares.values()), 2) == low and round(max(shares.values()), 2) == high


def test_sketch_error_directions():
    below, above, cms_low = german_lesson.sketch_error_directions()
    assert below > 0 and above > 0  # both directions, as the lesson says
    assert cms_low == 0             # Count-Min never counts too low


def test_lab11():
    assert lab11.poly31_matches_lab11(["", "a", "key-1", "ключ", "naïve"])
    naive, ring = lab11.naive_vs_ring()
    assert 0.75 < naive < 0.85  # lab11: "about 80%"
    assert 0.15 < ring < 0.25   # lab11: "about 20% (1/5)"
    assert lab11.replica_spread(1) > 0.10 > 0.05 > lab11.replica_spread(100)
    rows = lab11.bloom_fill()
    assert all(missing == 0 for _, _, missing in rows)
    rates = [rate for _, rate, _ in rows]
    assert rates == sorted(rates) and rates[0] < rates[-1]


def test_scripts_run(capsys):
    german_lesson.main()
    lab11.main()
    out = capsys.readouterr().out
    assert "0001100000000001" in out and "79.6%" in out
