"""Every byte of a CF, CMS and TOPK value comes from RedisModule_Alloc (the
library's allocator hook, ringbloom/allocator_hook.hpp), so INFO's
used_memory sees it and maxmemory with deny-oom refuses new values once the
sketches have filled memory."""
import pytest
import redis

# Each creates a value of 4.2 to 6.4 MB of library storage.
CREATIONS = {
    "cms": (["CMS.INITBYDIM", "{key}", "250000", "5"], 250_000 * 5 * 4),
    "cf": (["CF.RESERVE", "{key}", "4000000"], (1 << 21) * 2),
    "topk": (["TOPK.RESERVE", "{key}", "100", "200000", "4", "0.9"], 200_000 * 4 * 8),
}


# The keyspace's own tables, created with the first key, stay after it goes.
SLACK = 256 * 1024


def create(c, kind, key):
    args, size = CREATIONS[kind]
    assert c.execute_command(*[a.format(key=key) for a in args]) in (b"OK", "OK", True)
    return size


def used(c):
    return c.info("memory")["used_memory"]


@pytest.mark.parametrize("kind", sorted(CREATIONS))
def test_used_memory_follows_a_large_value(raw, kind):
    baseline = used(raw)
    size = create(raw, kind, "big")
    grown = used(raw) - baseline
    # The value's storage, rounded up to the allocator's size class (jemalloc
    # spaces its large classes at most 25 % apart: 4 MiB + 7 bytes takes
    # 5 MiB), plus small bookkeeping; never below.
    assert size <= grown <= size * 1.25 + SLACK, (kind, size, grown)
    assert raw.memory_usage("big") >= size
    raw.delete("big")
    assert abs(used(raw) - baseline) < SLACK, kind
    create(raw, kind, "big2")
    raw.copy("big2", "big3")  # COPY duplicates the storage
    assert used(raw) - baseline >= 2 * size
    raw.flushall()
    assert abs(used(raw) - baseline) < SLACK, kind


@pytest.mark.parametrize("kind", sorted(CREATIONS))
def test_maxmemory_refuses_creations_once_sketches_fill_it(make_server, kind):
    """Redis's deny-oom refuses a write when used_memory is over maxmemory:
    with the sketches counted, the second large value is refused (without
    the hook they were invisible and every creation succeeded)."""
    s = make_server(config=["--maxmemory-policy", "noeviction"])
    c = s.client()
    baseline = used(c)
    c.config_set("maxmemory", baseline + 3_000_000)  # less than one value
    c.execute_command("CMS.INITBYDIM", "small", "10", "2")
    create(c, kind, "first")  # accepted: memory was under the limit before it
    assert used(c) > baseline + 3_000_000
    for other in sorted(CREATIONS):
        with pytest.raises(redis.ResponseError, match="^OOM"):
            create(c, other, f"second-{other}")
    with pytest.raises(redis.ResponseError, match="^OOM"):
        c.execute_command("CMS.INCRBY", "small", "a", "1")
    assert c.execute_command("CMS.QUERY", "small", "a") == [0]  # reads still work
    c.delete("first")
    create(c, kind, "again")  # room again once the first is gone
