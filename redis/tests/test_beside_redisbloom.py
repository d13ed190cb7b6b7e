"""ringbloom.so loaded with PREFIX rb beside RedisBloom in one server: the
nearest check this project can make of Redis 8, which has RedisBloom's
commands built in. Both answer on their own keys, their values survive
DEBUG RELOAD and a restart from RDB, a key of one is WRONGTYPE to the other,
and no configuration name of ours is one of RedisBloom's.

Runs only when RINGBLOOM_PEER_REDISBLOOM names a RedisBloom module
(redisbloom.so, built outside this project; peers are never part of it):

    RINGBLOOM_PEER_REDISBLOOM=/path/to/redisbloom.so \\
    RINGBLOOM_REDIS_SERVER=/path/to/redis-server python3 -m pytest -q redis/tests/test_beside_redisbloom.py
"""
import os

import pytest
import redis

PEER = os.environ.get("RINGBLOOM_PEER_REDISBLOOM", "")

pytestmark = pytest.mark.skipif(
    not PEER, reason="RINGBLOOM_PEER_REDISBLOOM (a RedisBloom module to load beside ours) is unset")

# Per family: (create, add, ask) with {p} for the command prefix, the answer
# of ask after add, and the type name each module gives its values.
FAMILIES = {
    "bf": ([], ["{p}BF.ADD", "{k}", "apple"], ["{p}BF.EXISTS", "{k}", "apple"], 1,
           "RBloom-BF", "MBbloom--"),
    "cf": ([], ["{p}CF.ADD", "{k}", "apple"], ["{p}CF.EXISTS", "{k}", "apple"], 1,
           "RBloom-CF", "MBbloomCF"),
    "cms": (["{p}CMS.INITBYDIM", "{k}", "100", "4"], ["{p}CMS.INCRBY", "{k}", "apple", "5"],
            ["{p}CMS.QUERY", "{k}", "apple"], [5], None, "CMSk-TYPE"),
    "topk": (["{p}TOPK.RESERVE", "{k}", "3"], ["{p}TOPK.ADD", "{k}", "apple"],
             ["{p}TOPK.QUERY", "{k}", "apple"], [1], None, "TopK-TYPE"),
}


def run(c, words, prefix, key):
    return c.execute_command(*[w.format(p=prefix, k=key) for w in words])


@pytest.fixture
def both(make_server):
    """One server: ours with PREFIX rb, then RedisBloom."""
    return make_server(module_args=["PREFIX", "rb"], config=["--loadmodule", PEER])


def fill(c):
    for name, (create, add, _, _, _, _) in FAMILIES.items():
        for prefix, key in (("rb.", f"ours:{name}"), ("", f"theirs:{name}")):
            if create:
                run(c, create, prefix, key)
            run(c, add, prefix, key)


def check(c):
    for name, (_, _, ask, answer, our_type, their_type) in FAMILIES.items():
        assert run(c, ask, "rb.", f"ours:{name}") == answer, name
        assert run(c, ask, "", f"theirs:{name}") == answer, name
        ours, theirs = c.type(f"ours:{name}").decode(), c.type(f"theirs:{name}").decode()
        assert ours != theirs, name
        assert theirs == their_type, name
        if our_type:
            assert ours == our_type, name


def test_both_modules_answer_side_by_side(both):
    c = both.client()
    names = {m[b"name"] for m in c.module_list()}
    assert {b"ringbloom", b"bf"} <= names
    fill(c)
    check(c)
    # Unprefixed names are RedisBloom's, so a key of one is WRONGTYPE to the other.
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        c.execute_command("BF.ADD", "ours:bf", "pear")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        c.execute_command("rb.BF.ADD", "theirs:bf", "pear")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        c.execute_command("rb.CF.ADD", "theirs:cf", "pear")


def test_both_values_survive_reload_and_restart(both):
    c = both.client()
    fill(c)
    c.execute_command("DEBUG", "RELOAD")
    check(c)
    assert c.save()
    both.restart()
    c = both.client()
    check(c)
    assert c.dbsize() == 2 * len(FAMILIES)


def test_configuration_names_do_not_clash(both):
    c = both.client()
    ours = {k for k in c.config_get("ringbloom.*")}
    assert "ringbloom.bf-error-rate" in ours and "ringbloom.cf-max-expansions" in ours
    # Every configuration that names a BF or CF setting is ours, under our
    # module's name: nothing unprefixed that Redis 8's built-in bf-error-rate
    # and friends would meet.
    every = c.config_get("*")
    for name in every:
        if any(part in name for part in ("bf-", "cf-", "cms-", "topk-")):
            assert name.startswith("ringbloom."), name
    c.config_set("ringbloom.bf-error-rate", "0.001")
    assert c.config_get("ringbloom.bf-error-rate") == {"ringbloom.bf-error-rate": "0.001"}
