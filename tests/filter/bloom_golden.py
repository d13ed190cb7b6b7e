#!/usr/bin/env python3
"""Independent reference figures for tests/filter/bloom_test.cpp and blocked_bloom_test.cpp.

Run with python3 (standard library plus the xxhsum tool of xxHash). It
re-implements the position rules of include/ringbloom/filter/bloom.hpp and
blocked_bloom.hpp from their documentation, with hashlib, lab11's hash_str and
xxhsum -H2 (XXH3-128), so the C++ tests check the library against numbers it
did not compute itself.

`python3 tests/filter/bloom_golden.py --write-files tests/filter/data` writes the golden
filter files tests/filter/data/*.rbf from the byte layout of docs/format.md (this
script's own writer, not the library's), which tests/filter/filter_file_test.cpp
compares with the library's output byte for byte.
"""
import functools
import hashlib
import math
import os
import struct
import subprocess
import sys

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1


def sha256_64(s):
    return int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big")


def positionen(item, k, m):  # the German lesson's helper
    return [sha256_64(f"{i}:{item}") % m for i in range(k)]


def hash_str(key, salt=0):  # lab11, verbatim rule
    h = (salt * 0x9E3779B1 + 1) & MASK64
    for ch in key:
        h = (h * 31 + ord(ch)) & MASK64
    return h


def lab11_positions(item, k, m):
    return [hash_str(item, salt=i) % m for i in range(k)]


@functools.lru_cache(maxsize=None)
def xxh3_128(data):
    """(low, high) of XXH3-128 via xxhsum, whose canonical form is high||low big-endian."""
    out = subprocess.run(["xxhsum", "-H2", "-"], input=data.encode(), capture_output=True,
                         check=True).stdout.decode().split()[0]
    v = int(out, 16)
    return v & MASK64, v >> 64


def fastrange(x, n):
    return (x * n) >> 64


def km_positions(item, k, m):
    """Files of versions 1 and 2: plain double hashing, fastrange(h1 + i*h2, m)."""
    low, high = xxh3_128(item)
    step = high | 1
    return [fastrange((low + i * step) & MASK64, m) for i in range(k)]


def mix13(x):
    """splitmix64's finaliser (Stafford's Mix13 constants), as bloom.hpp states it."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def mixed_positions(item, k, m):
    """Version 3 (every new classic, counting and scalable xxh3 filter):
    fastrange(mix13(h1 + i*h2), m)."""
    low, high = xxh3_128(item)
    step = high | 1
    return [fastrange(mix13((low + i * step) & MASK64), m) for i in range(k)]


CUBE_ROOT_CONSTANTS = [0x428a2f99, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
                       0x923f82a5, 0xab1c5ed5, 0xd807aa99, 0x12835b01, 0x243185bf, 0x550c7dc3,
                       0x72be5d75, 0x80deb1ff, 0x9bdc06a7, 0xc19bf175]


def check_constants():
    # fractional part of the cube root of the first 16 primes, first 32 bits, made odd
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53]
    for p, c in zip(primes, CUBE_ROOT_CONSTANTS):
        # integer cube root of p * 2^96 gives 32 fractional bits exactly
        x = p << 96
        r = int(round(x ** (1 / 3)))
        while r ** 3 > x:
            r -= 1
        while (r + 1) ** 3 <= x:
            r += 1
        assert ((r & MASK32) | 1) == c, (p, hex(r), hex(c))


def blocked_positions(item, k, m):
    low, high = xxh3_128(item)
    block = fastrange(low, m // 512)
    out = []
    for j in range(k):
        half = (high if j < 8 else high >> 32) & MASK32
        # anywhere in the block: the top 9 bits of the 32-bit product
        position = ((half * CUBE_ROOT_CONSTANTS[j]) & MASK32) >> 23
        out.append(block * 512 + position)
    return out


# --- filter files (docs/format.md, version 1), written from the documentation --

MAGIC = b"\x89RBF\r\n\x1a\n"
KIND = {"classic": 1, "blocked": 2, "counting": 3, "scalable": 4, "fuse8": 5, "fuse16": 6,
        "blocked64": 7, "blocked1024": 8, "fuse8-4wise": 9, "fast": 10}
HASH = {"xxh3": 1, "sha256": 2, "poly31": 3, "md5": 4}


def xxh3_64(data):
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True,
                         check=True).stdout.decode()
    return int(out.split("=")[1].strip(), 16)


def blocked64_positions(item, k, m):
    """blocked64_bloom.hpp: x = XXH3-64 (xxhsum -H3), block = fastrange(x), h2 = x * 2^64/phi."""
    x = xxh3_64(item.encode())
    block = fastrange(x, m // 512)
    h2 = (x * 0x9E3779B97F4A7C15) & MASK64
    out = []
    for j in range(k):
        half = (h2 if j < 8 else h2 >> 32) & MASK32
        out.append(block * 512 + (((half * CUBE_ROOT_CONSTANTS[j]) & MASK32) >> 23))
    return out


def blocked1024_positions(item, k, m):
    """blocked1024_bloom.hpp: blocked64's x and h2; 1024-bit blocks, positions (h*c_j) >> 22."""
    x = xxh3_64(item.encode())
    block = fastrange(x, m // 1024)
    h2 = (x * 0x9E3779B97F4A7C15) & MASK64
    out = []
    for j in range(k):
        half = (h2 if j < 8 else h2 >> 32) & MASK32
        # the top 10 bits of the 32-bit product: 0..1023
        out.append(block * 1024 + (((half * CUBE_ROOT_CONSTANTS[j]) & MASK32) >> 22))
    return out


def fast_positions(item, k, m):
    """fast_bloom.hpp: blocked64's x and h2; bit j in word j % 8 of the 512-bit block, at bit
    (h * c_j) >> 26 of the 32-bit product, h the low 32 bits of h2 (k = 8 or 16)."""
    x = xxh3_64(item.encode())
    block = fastrange(x, m // 512)
    h = (x * 0x9E3779B97F4A7C15) & MASK32
    return [block * 512 + 64 * (j % 8) + (((h * CUBE_ROOT_CONSTANTS[j]) & MASK32) >> 26)
            for j in range(k)]


BLOCKED64_ITEMS = [f"c{i}" for i in range(50)] + [
    "", "x", "xyz", "1234", "12345678", "123456789", "sixteen-byte-key",
    "a key longer than sixteen bytes, hashed out of line"]


def align64(n):
    return (n + 63) // 64 * 64


REGION = 4096  # versions 2 and 3: the payloads are checked in regions of this many bytes


def frame(version, kind, hash_name, seed, items, entries, payloads, fpr=0.0, tightening=0.0,
          growth=0):
    """A filter file of either version from its header fields, its 32-byte layer
    entries and its payloads (each padded to 64 here).
    Version 1: header, layer table, padding, payloads, XXH3-64 of everything before.
    Version 2: header (offset 60 = R, the region count), layer table, padding, R
    region checksums (XXH3-64 of each 4096 bytes of the payloads, the last region
    shorter), padding, payloads, and XXH3-64 of the bytes before the payloads.
    Version 3: the same bytes as version 2; only the classic positions of xxh3
    filters differ (mixed_positions), which the caller's bits carry."""
    payload = b"".join(p + bytes(align64(len(p)) - len(p)) for p in payloads)
    table_end = 64 + 32 * len(entries)
    regions = (len(payload) + REGION - 1) // REGION if version >= 2 else 0
    start = align64(align64(table_end) + 8 * regions) if version >= 2 else align64(table_end)
    size = start + len(payload) + 8
    out = bytearray(MAGIC + struct.pack("<HBBIQQQddII", version, KIND[kind], HASH[hash_name],
                                        len(entries), seed, items, size, fpr, tightening,
                                        growth, regions))
    assert len(out) == 64
    for e in entries:
        out += e
    out += bytes(align64(table_end) - table_end)
    if version >= 2:
        for r in range(regions):
            out += struct.pack("<Q", xxh3_64(payload[r * REGION:(r + 1) * REGION]))
        out += bytes(start - len(out))
        out += payload + struct.pack("<Q", xxh3_64(bytes(out[:start])))
    else:
        out += payload
        out += struct.pack("<Q", xxh3_64(bytes(out)))
    assert len(out) == size
    return bytes(out)


def file_bytes(kind, hash_name, seed, layers, fpr=0.0, tightening=0.0, growth=0, version=2):
    """layers: list of (m, k, items, capacity, words)."""
    entries = [struct.pack("<QIIQQ", m, k, 0, items, capacity)
               for m, k, items, capacity, _ in layers]
    payloads = [b"".join(struct.pack("<Q", w) for w in l[4]) for l in layers]
    return frame(version, kind, hash_name, seed, sum(l[2] for l in layers), entries, payloads,
                 fpr, tightening, growth)


# --- binary fuse filters (include/ringbloom/filter/fuse_filter.hpp, docs/format.md) ---
# Geometry and hashing follow the header's documentation; the construction here
# is a plain peeling with Python lists (its own order, so its fingerprints may
# differ from the library's: any array that satisfies every key is valid, and
# the C++ test checks the library reads this one and writes it back unchanged).

def fmix64(h):
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK64
    return h ^ (h >> 33)


# The paper's sizing per arity: segment length 2^floor(ln n / ln base + offset),
# slots per key max(floor, a + b ln(pivot) / ln n) (docs/format.md, "Fuse kinds").
FUSE_SIZING = {3: (3.33, 2.25, 1.125, 0.875, 0.25, 1e6),
               4: (2.91, -0.5, 1.075, 0.77, 0.305, 6e5)}


def fuse_geometry(n, arity=3):
    """(segment_length, segment_count_length, slots) of size_for(n)."""
    base, offset, floor_factor, a, b, pivot = FUSE_SIZING[arity]
    exponent = 2 if n == 0 else math.floor(math.log(n) / math.log(base) + offset)
    length = 1 << max(2, min(18, exponent))
    factor = 0.0 if n <= 1 else max(floor_factor, a + b * math.log(pivot) / math.log(n))
    capacity = math.floor(n * factor + 0.5)  # llround of a positive number
    segments = max(1, (capacity + length - 1) // length - (arity - 1))
    return length, segments * length, (segments + arity - 1) * length


def fuse_mix(key, build_seed, arity):
    """The mixed hash m of a key hash: fmix64(key + build seed) for arity 3;
    for arity 4, q = (key ^ build seed) * C1, then q ^ (q >> 32)."""
    if arity == 3:
        return fmix64((key + build_seed) & MASK64)
    q = ((key ^ build_seed) * 0xFF51AFD7ED558CCD) & MASK64
    return q ^ (q >> 32)


def fuse_spread(m, arity):
    """(h, extra): m and 0 for arity 3; for arity 4 the low and high 64 bits
    of the 128-bit product m * C2."""
    if arity == 3:
        return m, 0
    p = m * 0xC4CEB9FE1A85EC53
    return p & MASK64, p >> 64


def fuse_fingerprint(m, arity, bits):
    h, _ = fuse_spread(m, arity)
    return (h ^ (h >> 32)) & ((1 << bits) - 1)


def fuse_slots(m, length, count_length, arity=3):
    h, extra = fuse_spread(m, arity)
    h0 = (h * count_length) >> 64
    h1 = (h0 + length) ^ ((h >> 18) & (length - 1))
    h2 = (h0 + 2 * length) ^ (h & (length - 1))
    if arity == 3:
        return [h0, h1, h2]
    return [h0, h1, h2, (h0 + 3 * length) ^ (extra & (length - 1))]


def fuse_build(items, bits, seed=0, arity=3):
    """(build_seed, segment_length, fingerprints) for distinct items (seed 0: xxhsum's XXH3-64)."""
    assert seed == 0
    keys = [xxh3_64(item.encode()) for item in items]
    length, count_length, size = fuse_geometry(len(keys), arity)
    build_seed = fmix64((seed + 0x9E3779B97F4A7C15) & MASK64)
    while True:
        hs = [fuse_mix(k, build_seed, arity) for k in keys]
        at = [set() for _ in range(size)]
        for i, h in enumerate(hs):
            for slot in fuse_slots(h, length, count_length, arity):
                at[slot].add(i)
        stack, queue = [], [s for s in range(size) if len(at[s]) == 1]
        while queue:
            slot = queue.pop(0)
            if len(at[slot]) != 1:
                continue
            i = next(iter(at[slot]))
            stack.append((i, slot))
            for other in fuse_slots(hs[i], length, count_length, arity):
                at[other].discard(i)
                if len(at[other]) == 1:
                    queue.append(other)
        if len(stack) == len(keys):
            break
        build_seed = fmix64((build_seed + 0x9E3779B97F4A7C15) & MASK64)
    fp = [0] * size
    for i, slot in reversed(stack):
        h = hs[i]
        value = fuse_fingerprint(h, arity, bits)
        for other in fuse_slots(h, length, count_length, arity):
            if other != slot:
                value ^= fp[other]
        fp[slot] = value
    return build_seed, length, count_length, fp


def fuse_contains(item, build_seed, length, count_length, fp, bits, arity=3):
    h = fuse_mix(xxh3_64(item.encode()), build_seed, arity)
    x = 0
    for slot in fuse_slots(h, length, count_length, arity):
        x ^= fp[slot]
    return x == fuse_fingerprint(h, arity, bits)


def fuse_file_bytes(kind, items, bits, version=2, arity=3):
    """The header, one layer entry (m = slots, k = arity, reserved = segment
    length, items, capacity = build seed), the fingerprints little-endian, the
    checksums."""
    build_seed, length, count_length, fp = fuse_build(items, bits, arity=arity)
    payload = b"".join(struct.pack("<B" if bits == 8 else "<H", v) for v in fp)
    entry = struct.pack("<QIIQQ", len(fp), arity, length, len(items), build_seed)
    out = frame(version, kind, "xxh3", 0, len(items), [entry], [payload])
    return out, (build_seed, length, count_length, fp)


class Bits:
    def __init__(self, m, k, positions, counting=False, words_per=64):
        self.m, self.k, self.positions, self.counting = m, k, positions, counting
        self.cells = [0] * m
        self.items = 0

    def add(self, item):
        for p in self.positions(item, self.k, self.m):
            self.cells[p] = min(15, self.cells[p] + 1) if self.counting else 1
        self.items += 1

    def remove(self, item):
        for p in self.positions(item, self.k, self.m):
            if self.cells[p] != 15:
                self.cells[p] -= 1
        self.items -= 1

    def contains(self, item):
        return all(self.cells[p] for p in self.positions(item, self.k, self.m))

    def words(self):
        per = 16 if self.counting else 64
        width = 4 if self.counting else 1
        n = (self.m + per - 1) // per
        out = [0] * n
        for i, c in enumerate(self.cells):
            out[i // per] |= c << (width * (i % per))
        return out

    def layer(self, capacity=0):
        return (self.m, self.k, self.items, capacity, self.words())


def classic_size_for(n, p):
    best_m, best_k = math.inf, 1
    for k in range(1, 129):
        m = math.ceil(-k * n / math.log1p(-math.pow(p, 1.0 / k)))
        if m < best_m:
            best_m, best_k = m, k
    return best_m, best_k


# --- windowed filter files (windowed_bloom.hpp, docs/format.md "Windowed filter files") ---

WINDOWED_MAGIC = b"\x89RBW\r\n\x1a\n"


class Windowed:
    """Four generations of 384 positions in 1536-bit super-blocks, from the header's text."""

    def __init__(self, kind, window, capacity, fpr, blocks, k):
        self.kind, self.window, self.capacity, self.fpr = kind, window, capacity, fpr
        self.blocks, self.k = blocks, k
        self.g_items = -(-capacity // 3)  # ceil(N / 3)
        self.bits = set()  # (super-block, generation slot, position 0..383)
        self.segment_items = [0] * 4
        self.added, self.latest_gen, self.latest_time = 0, 0, 0.0

    def positions(self, item):
        x = xxh3_64(item.encode())
        block = fastrange(x, self.blocks)
        h2 = (x * 0x9E3779B97F4A7C15) & MASK64
        out = []
        for j in range(self.k):
            half = (h2 if j < 8 else h2 >> 32) & MASK32
            u = (half * CUBE_ROOT_CONSTANTS[j]) & MASK32
            out.append((block, (u * 384) >> 32))  # Lemire's map of 32 bits onto 0..383
        return out

    def advance(self, gen):
        if self.added == 0:
            self.latest_gen = gen
            return
        if gen <= self.latest_gen:
            return
        for e in range(self.latest_gen + 1, min(gen, self.latest_gen + 4) + 1):
            slot = e % 4
            self.segment_items[slot] = 0
            self.bits = {b for b in self.bits if b[1] != slot}
        self.latest_gen = gen

    def add(self, item, now=0.0):
        if self.kind == 1:
            gen = math.floor(now / (self.window / 3))
            self.advance(gen)
            if self.added == 0 or now > self.latest_time:
                self.latest_time = now
        else:
            gen = self.added // self.g_items
            self.advance(gen)
        slot = gen % 4
        for block, p in self.positions(item):
            self.bits.add((block, slot, p))
        self.segment_items[slot] += 1
        self.added += 1

    def words(self, version):
        """Version 2: position p of slot s is bit 4 (p % 16) + s of word p / 16 (nibbles).
        Version 1: slot s owns words 6s..6s+5, position p is bit p % 64 of word 6s + p / 64."""
        words = [0] * (24 * self.blocks)
        for block, slot, p in self.bits:
            if version == 2:
                words[24 * block + p // 16] |= 1 << (4 * (p % 16) + slot)
            else:
                words[24 * block + 6 * slot + p // 64] |= 1 << (p % 64)
        return words

    def file_bytes(self, seed=0, version=2):
        size = 128 + 192 * self.blocks + 8
        out = bytearray(WINDOWED_MAGIC)
        out += struct.pack("<HBBIQQQdQdqdQ", version, self.kind, 4, self.k, seed, self.blocks,
                           size, self.window, self.capacity, self.fpr, self.latest_gen,
                           self.latest_time, self.added)
        out += struct.pack("<4Q", *self.segment_items) + bytes(8)
        assert len(out) == 128
        out += b"".join(struct.pack("<Q", w) for w in self.words(version))
        out += struct.pack("<Q", xxh3_64(bytes(out)))
        assert len(out) == size
        return bytes(out)


def windowed_files():
    """The golden windowed files; tests/filter/windowed_file_test.cpp rebuilds them."""
    # Time: W = 30 s, N = 300, p = 0.01 (the library sizes it as 4 super-blocks, k = 5);
    # w0..w59 at 1000 + 0.9 i (generations 100..105, so two are cleared), then "late"
    # at 1030.5, out of order into generation 103.
    f = Windowed(1, 30.0, 300, 0.01, 4, 5)
    for i in range(60):
        f.add(f"w{i}", 1000 + 0.9 * i)
    f.add("late", 1030.5)
    # Count: the last 90 insertions, p = 1e-5 (3 super-blocks, k = 13: both halves of
    # h2); n0..n129 in generations of 30, so generation 4 clears generation 0's slot.
    c = Windowed(2, 90.0, 90, 1e-5, 3, 13)
    for i in range(130):
        c.add(f"n{i}")
    # The *_v1 files hold the same filters in format version 1 (segments), which the
    # library still reads.
    return {"windowed_time_xxh3.rbw": f.file_bytes(), "windowed_count_xxh3.rbw": c.file_bytes(),
            "windowed_time_xxh3_v1.rbw": f.file_bytes(version=1),
            "windowed_count_xxh3_v1.rbw": c.file_bytes(version=1)}


def write_files(directory):
    """Every filter file as the library writes it under its name (version 3 for
    classic, counting and scalable xxh3 filters, else version 2), and in older
    versions it still reads: version 1 under v1/, and for classic xxh3 the
    version-2 file of the old position rule under v2/."""
    files = {}

    def both(name, make):
        files[name] = make(2)
        files[os.path.join("v1", name)] = make(1)
    f = Bits(16, 2, positionen)
    f.add("anna")
    f.add("bora")
    both("german_classic_sha256.rbf", lambda v: file_bytes("classic", "sha256", 0, [f.layer()], version=v))

    f = Bits(8000, 7, positionen)
    for i in range(1000):
        f.add(f"user{i}@example.com")
    both("german_exercise_classic_sha256.rbf", lambda v: file_bytes("classic", "sha256", 0, [f.layer()], version=v))

    f = Bits(1000, 3, lab11_positions)
    for i in range(100):
        f.add(f"key-{i}")
    both("lab11_classic_poly31.rbf", lambda v: file_bytes("classic", "poly31", 0, [f.layer()], version=v))

    # Classic xxh3: version 3 (mixed positions) under its name; the same items
    # by the old rule in version 2 under v2/ and version 1 under v1/, read
    # with that rule and saved back as version 2.
    f = Bits(4096, 5, mixed_positions)
    for i in range(50):
        f.add(f"a{i}")
    files["classic_xxh3.rbf"] = file_bytes("classic", "xxh3", 0, [f.layer()], version=3)
    f = Bits(4096, 5, km_positions)
    for i in range(50):
        f.add(f"a{i}")
    files[os.path.join("v2", "classic_xxh3.rbf")] = file_bytes("classic", "xxh3", 0, [f.layer()])
    files[os.path.join("v1", "classic_xxh3.rbf")] = file_bytes("classic", "xxh3", 0, [f.layer()],
                                                               version=1)
    # Counting and scalable xxh3, version 3 only (mixed positions).
    f = Bits(200, 4, mixed_positions, counting=True)
    for item in ["anna", "bora", "cem", "anna"]:
        f.add(item)
    f.remove("bora")
    files["counting_xxh3.rbf"] = file_bytes("counting", "xxh3", 0, [f.layer()], version=3)

    f = Bits(2048, 8, blocked_positions)
    for i in range(50):
        f.add(f"b{i}")
    both("blocked_xxh3.rbf", lambda v: file_bytes("blocked", "xxh3", 0, [f.layer()], version=v))

    f = Bits(2048, 10, blocked64_positions)
    for item in BLOCKED64_ITEMS:
        f.add(item)
    both("blocked64_xxh3.rbf", lambda v: file_bytes("blocked64", "xxh3", 0, [f.layer()], version=v))

    # The same items in 3 blocks of 1024 bits, k = 16 (both halves of h2).
    f = Bits(3072, 16, blocked1024_positions)
    for item in BLOCKED64_ITEMS:
        f.add(item)
    both("blocked1024_xxh3.rbf", lambda v: file_bytes("blocked1024", "xxh3", 0, [f.layer()], version=v))

    # The same items in 4 blocks of the fast kind, k = 16 (two bits per word);
    # a new kind: only the current version.
    f = Bits(2048, 16, fast_positions)
    for item in BLOCKED64_ITEMS:
        f.add(item)
    files["fast_xxh3.rbf"] = file_bytes("fast", "xxh3", 0, [f.layer()], version=2)

    f = Bits(64, 3, positionen, counting=True)
    for item in ["anna", "bora", "cem", "anna"]:
        f.add(item)
    f.remove("bora")
    both("counting_sha256.rbf", lambda v: file_bytes("counting", "sha256", 0, [f.layer()], version=v))

    # scalable(initial capacity 10, fpr 0.1, growth 2, tightening 0.5), sha256, k0..k39
    p, r, growth = 0.1, 0.5, 2
    layers = []

    def scalable_layers(positions):
        layers = []

        def new_layer(i, capacity):
            m, k = classic_size_for(capacity, p * (1.0 - r) * math.pow(r, i))
            layers.append([Bits(m, k, positions), capacity])

        new_layer(0, 10)
        for i in range(40):
            item = f"k{i}"
            if any(l.contains(item) for l, _ in layers):
                continue
            if layers[-1][0].items >= layers[-1][1]:
                new_layer(len(layers), layers[-1][1] * growth)
            layers[-1][0].add(item)
        return [l.layer(c) for l, c in layers]

    layers = scalable_layers(positionen)
    both("scalable_sha256.rbf", lambda v: file_bytes("scalable", "sha256", 0, layers, p, r, growth,
                                                     version=v))
    files["scalable_xxh3.rbf"] = file_bytes("scalable", "xxh3", 0, scalable_layers(mixed_positions),
                                            p, r, growth, version=3)
    # Static fuse filters of f0..f99; the test probes g0..g999 (printed by main()).
    fuse_items = [f"f{i}" for i in range(100)]
    both("fuse8_xxh3.rbf", lambda v: fuse_file_bytes("fuse8", fuse_items, 8, v)[0])
    both("fuse16_xxh3.rbf", lambda v: fuse_file_bytes("fuse16", fuse_items, 16, v)[0])
    # Version 2 only (the kind is younger than version 2): the 4-wise kind.
    files["fuse8_4wise_xxh3.rbf"] = fuse_file_bytes("fuse8-4wise", fuse_items, 8, arity=4)[0]
    # Version 2 only: a blocked filter of 12,800 payload bytes, so four regions
    # (the last one 512 bytes long) and a region table of 32 bytes.
    f = Bits(512 * 200, 7, blocked64_positions)
    for i in range(2000):
        f.add(f"r{i}")
    files["blocked64_regions_xxh3.rbf"] = file_bytes("blocked64", "xxh3", 0, [f.layer()])
    files.update(windowed_files())
    os.makedirs(os.path.join(directory, "v1"), exist_ok=True)
    os.makedirs(os.path.join(directory, "v2"), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as out:
            out.write(data)
        print("wrote", name, len(data), "bytes")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write-files":
        write_files(sys.argv[2])
        return
    check_constants()
    fuse_items = [f"f{i}" for i in range(100)]
    for kind, bits, arity in (("fuse8", 8, 3), ("fuse16", 16, 3), ("fuse8-4wise", 8, 4)):
        _, parts = fuse_file_bytes(kind, fuse_items, bits, arity=arity)
        fp = sum(fuse_contains(f"g{i}", *parts, bits, arity) for i in range(1000))
        print(f"{kind} of f0..f99: build seed {parts[0]:#x}, segment length {parts[1]}, "
              f"{len(parts[3])} slots; strangers g0..g999 reported present: {fp}")
    print("German walkthrough m=16 k=2")
    bits = [0] * 16
    for item in ["anna", "bora"]:
        for p in positionen(item, 2, 16):
            bits[p] = 1
    print(" ", "".join(map(str, bits)))
    for item in ["anna", "bora", "cem", "user5"]:
        print(" ", item, positionen(item, 2, 16))

    print("German exercise: 1000 addresses user{i}@example.com, m=8000 k=7,"
          " 5000 strangers stranger{i}@example.org")
    m, k = 8000, 7
    bits = [0] * m
    for i in range(1000):
        for p in positionen(f"user{i}@example.com", k, m):
            bits[p] = 1
    fp = sum(all(bits[p] for p in positionen(f"stranger{i}@example.org", k, m))
             for i in range(5000))
    print("  bits set", sum(bits), "false positives", fp,
          "formula", (1 - math.exp(-k * 1000 / m)) ** k)

    print("lab11 positions m=1000 k=3 (poly31)")
    for item in ["apple", "banana", "cherry", "ключ"]:
        print(" ", item, lab11_positions(item, 3, 1000))
    m, k = 1000, 3
    bits = [0] * m
    for i in range(100):
        for p in lab11_positions(f"key-{i}", k, m):
            bits[p] = 1
    fp = sum(all(bits[p] for p in lab11_positions(f"other-{i}", k, m)) for i in range(1000))
    print("  100 keys key-{i}: bits set", sum(bits), "; 1000 strangers other-{i}: false positives",
          fp)

    print("classic xxh3 positions m=1000003 k=7 (XXH3-128 from xxhsum), mixed (version 3)")
    for item in ["anna", "user:42", ""]:
        print(" ", repr(item), mixed_positions(item, 7, 1000003))
    print("the same by plain double hashing (files of versions 1 and 2)")
    for item in ["anna", "user:42", ""]:
        print(" ", repr(item), km_positions(item, 7, 1000003))
    print("blocked1024 positions m=1024*1000 k=7 and k=16 (XXH3-64 from xxhsum)")
    for item in ["anna", "user:42"]:
        print(" ", repr(item), blocked1024_positions(item, 7, 1024 * 1000))
        print(" ", repr(item), blocked1024_positions(item, 16, 1024 * 1000))
    print("fast positions m=512*1000 k=8 and k=16 (XXH3-64 from xxhsum)")
    for item in ["anna", "user:42"]:
        print(" ", repr(item), fast_positions(item, 8, 512 * 1000))
        print(" ", repr(item), fast_positions(item, 16, 512 * 1000))
    print("blocked xxh3 positions m=512*1000 k=7 and k=12")
    for item in ["anna", "user:42"]:
        print(" ", repr(item), blocked_positions(item, 7, 512 * 1000))
        print(" ", repr(item), blocked_positions(item, 12, 512 * 1000))


if __name__ == "__main__":
    main()
