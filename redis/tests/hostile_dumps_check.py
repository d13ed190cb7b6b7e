"""Hostile DUMP payloads: RESTORE of mutated dumps of every value type.

Not part of the default suite (its name does not start with test_, so the
module's pytest run skips it): it RESTOREs 100,000 payloads per type, which
takes minutes. CTest runs it as `redis_hostile_dumps` (label
`redis-hostile`) when the build is configured with
-DRINGBLOOM_REDIS_HOSTILE_TESTS=ON; or directly:

    RINGBLOOM_REDIS_MODULE=build/release/redis/ringbloom.so \\
        python3 -m pytest -q redis/tests/hostile_dumps_check.py
    # with the ASan build of the module (the sanitizer runtimes preloaded):
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \\
    RINGBLOOM_REDIS_MODULE=build/asan/redis/ringbloom.so \\
    RINGBLOOM_REDIS_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so) \\
        python3 -m pytest -q redis/tests/hostile_dumps_check.py

RINGBLOOM_HOSTILE_PAYLOADS sets the number per type (default 100,000).
allocator_may_return_null: a payload whose RDB type byte was damaged into
one of Redis's own types can make Redis's own loader ask for a huge buffer,
which jemalloc refuses with NULL (Redis then refuses the payload) and ASan's
allocator would answer by aborting the server.

For each type a valid value is dumped, and each payload is that dump with
one damage: bytes flipped, cut short, or a 1-, 2-, 4- or 8-byte field
scaled (doubled, multiplied by 256 or 2^32, set to 0, to all ones, or
moved by one). The server's CRC64 check is switched off (DEBUG
SET-SKIP-CHECKSUM-VALIDATION 1) so that every payload reaches the module's
rdb_load. What must hold: the server never crashes; a RESTORE that is
accepted gives the same value (DEBUG DIGEST-VALUE equal to the original's)
or, where the damage hit the RDB type byte, one of Redis's own types; every
accepted value then answers its type's commands; and after FLUSHALL used_memory is back at its baseline.
"""
import os
import random

import pytest

PAYLOADS = int(os.environ.get("RINGBLOOM_HOSTILE_PAYLOADS", "100000"))
BATCH = 500


def build_values(c):
    """One small value of each type, with content, and the commands that use it."""
    c.execute_command("BF.RESERVE", "bf", "0.01", "50", "EXPANSION", "2")
    c.execute_command("BF.MADD", "bf", *[f"b{i}" for i in range(120)])  # three layers
    c.execute_command("CF.RESERVE", "cf", "64", "EXPANSION", "2")
    c.execute_command("CF.INSERT", "cf", "ITEMS", *[f"c{i}" for i in range(150)])
    c.execute_command("CF.DEL", "cf", "c0")
    c.execute_command("CMS.INITBYDIM", "cms", "40", "3")
    c.execute_command("CMS.INCRBY", "cms", *[x for i in range(30) for x in (f"m{i}", str(i + 1))])
    c.execute_command("TOPK.RESERVE", "topk", "5", "20", "3", "0.9")
    c.execute_command("TOPK.ADD", "topk", *[f"t{i % 11}" for i in range(200)])
    c.execute_command("TDIGEST.CREATE", "td", "COMPRESSION", "50")
    c.execute_command("TDIGEST.ADD", "td", *[str(i * 0.5) for i in range(300)])
    c.execute_command("KLL.CREATE", "kll", "K", "16", "SEED", "3")
    c.execute_command("KLL.ADD", "kll", *[str(i * 0.25) for i in range(500)])  # several levels
    c.execute_command("BF.RESERVE", "bfw", "0.01", "100", "WINDOW", "60")  # a windowed filter
    c.execute_command("BF.MADD", "bfw", *[f"w{i}" for i in range(80)])


# Commands that read and write a restored value of each type: a damaged value
# that was accepted must answer them (an error reply is fine, a crash is not).
USES = {
    "bf": [("BF.INFO", "{k}"), ("BF.EXISTS", "{k}", "b1"), ("BF.ADD", "{k}", "new"),
           ("BF.SCANDUMP", "{k}", "0"), ("BF.CARD", "{k}")],
    "cf": [("CF.INFO", "{k}"), ("CF.EXISTS", "{k}", "c1"), ("CF.ADD", "{k}", "new"),
           ("CF.DEL", "{k}", "c2"), ("CF.COUNT", "{k}", "c3")],
    "cms": [("CMS.INFO", "{k}"), ("CMS.QUERY", "{k}", "m1"), ("CMS.INCRBY", "{k}", "m1", "5")],
    "topk": [("TOPK.INFO", "{k}"), ("TOPK.LIST", "{k}"), ("TOPK.ADD", "{k}", "t1", "zz"),
             ("TOPK.QUERY", "{k}", "t1")],
    "td": [("TDIGEST.INFO", "{k}"), ("TDIGEST.QUANTILE", "{k}", "0.5"),
           ("TDIGEST.ADD", "{k}", "7"), ("TDIGEST.CDF", "{k}", "10")],
    "kll": [("KLL.INFO", "{k}"), ("KLL.QUANTILE", "{k}", "0.5"), ("KLL.ADD", "{k}", "7", "8"),
            ("KLL.RANK", "{k}", "10"), ("KLL.TRIMMED_MEAN", "{k}", "0.1", "0.9")],
    "bfw": [("BF.INFO", "{k}"), ("BF.EXISTS", "{k}", "w1"), ("BF.MADD", "{k}", "new", "w2"),
            ("BF.CARD", "{k}"), ("BF.ADDAT", "{k}", "1700000000000", "old")],
}

SCALES = (lambda v, m: v * 2 & m, lambda v, m: v * 256 & m, lambda v, m: v << 32 & m,
          lambda v, m: 0, lambda v, m: m, lambda v, m: v + 1 & m, lambda v, m: v - 1 & m)


def mutate(payload, rng):
    """The payload with one damage; never the payload itself."""
    n = len(payload)
    while True:
        kind = rng.randrange(3)
        b = bytearray(payload)
        if kind == 0:  # flip 1 to 4 bytes
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(n)] ^= rng.randint(1, 255)
        elif kind == 1:  # cut short
            b = b[:rng.randrange(n)]
        else:  # scale a little-endian field of 1, 2, 4 or 8 bytes
            width = rng.choice((1, 2, 4, 8))
            at = rng.randrange(max(1, n - width))
            mask = (1 << (8 * width)) - 1
            v = int.from_bytes(b[at:at + width], "little")
            v = rng.choice(SCALES)(v, mask)
            b[at:at + width] = v.to_bytes(width, "little")
        out = bytes(b)
        if out != payload:
            return out


def used(c):
    return c.info("memory")["used_memory"]


@pytest.mark.parametrize("kind", sorted(USES))
def test_mutated_dumps_are_refused_or_harmless(make_server, kind):
    s = make_server()
    c = s.client()
    c.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    build_values(c)
    original = c.dump(kind)
    digest = c.execute_command("DEBUG", "DIGEST-VALUE", kind)
    c.flushall()
    baseline = used(c)
    rng = random.Random(0xB100D + len(kind))  # fixed seed per type
    refused = accepted_same = accepted_redis = accepted_other = 0
    done = 0
    while done < PAYLOADS:
        count = min(BATCH, PAYLOADS - done)
        payloads = [mutate(original, rng) for _ in range(count)]
        pipe = c.pipeline(transaction=False)
        for i, p in enumerate(payloads):
            pipe.execute_command("RESTORE", f"x{i}", "0", p)
        answers = pipe.execute(raise_on_error=False)
        keys = [f"x{i}" for i, a in enumerate(answers) if not isinstance(a, Exception)]
        refused += count - len(keys)
        if keys:
            pipe = c.pipeline(transaction=False)
            for k in keys:
                pipe.execute_command("DEBUG", "DIGEST-VALUE", k)
                pipe.type(k)
            answers = pipe.execute(raise_on_error=False)
            for d, t in zip(answers[::2], answers[1::2]):
                if d == digest:
                    accepted_same += 1
                elif t in (b"string", b"list", b"set", b"zset", b"hash", b"stream"):
                    accepted_redis += 1  # the RDB type byte was hit: Redis's own value
                else:
                    accepted_other += 1
            pipe = c.pipeline(transaction=False)
            for k in keys:
                for use in USES[kind]:
                    pipe.execute_command(*[a.format(k=k) for a in use])
            pipe.execute(raise_on_error=False)  # errors are fine; the server must live
        c.flushall()
        assert c.ping()
        done += count
    c.flushall()
    assert c.ping()
    # Memory back at its baseline: nothing a refused payload allocated is kept.
    assert abs(used(c) - baseline) < 256 * 1024, (kind, used(c), baseline)
    print(f"{kind}: {PAYLOADS} payloads of {len(original)} bytes: {refused} refused, "
          f"{accepted_same} accepted as the same value, {accepted_redis} as a Redis value of "
          f"another type (the type byte damaged), {accepted_other} as another module value")
    # A damaged image is refused: the library's images end with a checksum,
    # so a module value is accepted only where Redis's own encoding absorbs
    # the change (the same value comes out).
    assert refused >= PAYLOADS * 0.95, (kind, refused, accepted_same, accepted_other)
    assert accepted_other == 0, (kind, accepted_other)
