"""PREFIX (every command under another name, so that the module loads beside
a server that has BF.* already) and the settings as CONFIG SET/GET
ringbloom.<name>, with the load-time arguments as their defaults."""
import pytest
import redis

from conftest import wait_until


def test_prefix_registers_every_command_under_it_and_only_there(make_server):
    s = make_server(module_args=["PREFIX", "rb"])
    c = s.client()
    names = {n.decode() for n in c.execute_command("COMMAND LIST")}
    ours = sorted(n for n in names if n.startswith("rb."))
    for family in ("bf", "cf", "cms", "topk", "tdigest"):
        assert any(n.startswith(f"rb.{family}.") for n in ours), family
        assert not any(n.startswith(f"{family}.") for n in names), family
    assert "rb.bf.add" in ours and "rb.cf.loadchunk" in ours and "rb.topk.incrby" in ours
    with pytest.raises(redis.ResponseError, match="unknown command"):
        c.execute_command("BF.ADD", "k", "a")


def test_prefixed_commands_behave_as_the_plain_ones(make_server):
    s = make_server(module_args=["PREFIX", "rb"])
    c = s.client()
    # Commands that read their own name (M..., ...NX, COUNT, INCRBY, INITBYDIM).
    assert c.execute_command("rb.bf.add", "k", "a") == 1
    assert c.execute_command("rb.BF.MADD", "k", "a", "b") == [0, 1]
    assert c.execute_command("rb.bf.mexists", "k", "a", "zz") == [1, 0]
    assert c.execute_command("rb.cf.addnx", "f", "a") == 1
    assert c.execute_command("rb.cf.addnx", "f", "a") == 0
    assert c.execute_command("rb.cf.mexists", "f", "a", "zz") == [1, 0]
    assert c.execute_command("rb.cf.count", "f", "a") == 1
    assert c.execute_command("rb.cms.initbydim", "m", "100", "3") == b"OK"
    assert c.execute_command("rb.cms.incrby", "m", "x", "5") == [5]
    assert c.execute_command("rb.topk.reserve", "t", "2") == b"OK"
    c.execute_command("rb.topk.incrby", "t", "a", "7")
    assert c.execute_command("rb.topk.count", "t", "a") == [7]
    # A refusal names the command as it was typed.
    with pytest.raises(redis.ResponseError, match="RB.BF.RESERVE takes"):
        c.execute_command("rb.bf.reserve", "r", "0.01", "100", "BOGUS")


def test_prefixed_aof_rewrite_replays_under_the_prefix(make_server):
    s = make_server(module_args=["PREFIX", "rb"], config=["--appendonly", "yes"])
    c = s.client()
    c.execute_command("rb.bf.madd", "k", *[f"i{i}" for i in range(500)])
    c.execute_command("rb.cf.insert", "f", "ITEMS", "a", "b")
    c.execute_command("rb.cms.initbydim", "m", "100", "3")
    c.execute_command("rb.topk.reserve", "t", "3")
    before = {k: c.execute_command("DEBUG", "DIGEST-VALUE", k) for k in ("k", "f", "m", "t")}
    c.bgrewriteaof()
    wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0, 30, "the rewrite")
    s.restart()
    c = s.client()
    after = {k: c.execute_command("DEBUG", "DIGEST-VALUE", k) for k in ("k", "f", "m", "t")}
    assert after == before
    assert c.execute_command("rb.bf.exists", "k", "i499") == 1


@pytest.mark.parametrize("prefix", ["", "a.b", "x" * 33, "r b"])
def test_a_bad_prefix_stops_the_load_with_a_reason(make_server, prefix):
    s = make_server(module_args=["PREFIX", prefix], start=False)
    s.start(wait=False)
    s.proc.wait(timeout=15)
    assert s.proc.returncode != 0
    assert "bad PREFIX" in s.log_text()


def config(c, name):
    return c.config_get(f"ringbloom.{name}")[f"ringbloom.{name}"]


def test_settings_are_configs_with_redisbloom_names(make_server):
    s = make_server(module_args=["ERROR_RATE", "0.001", "bf-initial-size", "50"])
    c = s.client()
    assert config(c, "bf-error-rate") == "0.001"  # the load-time argument is the default
    assert config(c, "bf-initial-size") == "50"
    for name, default in (("bf-expansion-factor", "2"), ("cf-bucket-size", "2"),
                          ("cf-initial-size", "1024"), ("cf-max-iterations", "20"),
                          ("cf-expansion-factor", "1"), ("cf-max-expansions", "32"),
                          ("max-filter-bytes", "4294967296")):
        assert config(c, name) == default, name
    c.execute_command("BF.ADD", "a", "x")
    assert c.execute_command("BF.INFO", "a", "CAPACITY") == [50]

    c.config_set("ringbloom.bf-initial-size", "1000")
    c.config_set("ringbloom.bf-expansion-factor", "4")
    c.execute_command("BF.ADD", "b", "x")
    assert c.execute_command("BF.INFO", "b", "CAPACITY") == [1000]
    assert c.execute_command("BF.INFO", "b", "EXPANSION") == [4]

    c.config_set("ringbloom.cf-initial-size", "4096")
    c.config_set("ringbloom.cf-bucket-size", "4")
    c.config_set("ringbloom.cf-max-iterations", "7")
    c.execute_command("CF.ADD", "f", "x")
    info = c.execute_command("CF.INFO", "f")
    fields = dict(zip(info[::2], info[1::2]))
    assert fields[b"Bucket size"] == 4
    assert fields[b"Max iterations"] == 7
    assert fields[b"Number of buckets"] * 4 >= 4096


@pytest.mark.parametrize("name,value", [
    ("bf-error-rate", "1"), ("bf-error-rate", "0"), ("bf-error-rate", "abc"),
    ("bf-initial-size", "0"), ("cf-bucket-size", "256"), ("cf-max-iterations", "65536"),
    ("max-filter-bytes", "100")])
def test_config_set_refuses_out_of_range_values_and_keeps_the_old(server, name, value):
    c = server.client()
    old = config(c, name)
    with pytest.raises(redis.ResponseError, match=f"Value for `{name}` must be"):
        c.config_set(f"ringbloom.{name}", value)
    assert config(c, name) == old


def test_a_bad_load_time_setting_stops_the_load(make_server):
    s = make_server(module_args=["cf-max-iterations", "0"], start=False)
    s.start(wait=False)
    s.proc.wait(timeout=15)
    assert s.proc.returncode != 0
    assert "Value for `cf-max-iterations` must be in the range [1, 65535]" in s.log_text()


def test_configs_come_from_the_config_file(make_server):
    s = make_server(config=["--ringbloom.bf-initial-size", "777"])
    c = s.client()
    assert config(c, "bf-initial-size") == "777"
    c.execute_command("BF.ADD", "a", "x")
    assert c.execute_command("BF.INFO", "a", "CAPACITY") == [777]
