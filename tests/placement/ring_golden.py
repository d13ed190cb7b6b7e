#!/usr/bin/env python3
"""Independent reference figures for tests/placement/ring_test.cpp and ring_analysis_test.cpp.

Run with python3 (standard library only). It re-implements the ring rules of
include/ringbloom/placement/ring.hpp from the seed lessons' Python (bisect over sorted
(position, name) pairs, first point >= h) with hashlib, so the C++ tests check
the library against numbers it did not compute itself.
"""
import bisect
import hashlib

MASK64 = (1 << 64) - 1


def sha256_64(s):
    return int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big")


def hash_str(key, salt=0):  # lab11, verbatim rule
    h = (salt * 0x9E3779B1 + 1) & MASK64
    for ch in key:
        h = (h * 31 + ord(ch)) & MASK64
    return h


class Ring:
    def __init__(self, nodes, vnodes, point_hash, key_hash):
        self.points = sorted(
            (point_hash(f"{n}#{i}", i), n) for n in nodes for i in range(vnodes))
        self.pos = [p for p, _ in self.points]
        self.key_hash = key_hash

    def node(self, key):
        i = bisect.bisect_left(self.pos, self.key_hash(key))  # first point >= h
        return self.points[i % len(self.points)][1]


def sha_ring(nodes, vnodes):
    return Ring(nodes, vnodes, lambda s, i: sha256_64(s), sha256_64)


def poly_ring(nodes, vnodes):
    return Ring(nodes, vnodes, lambda s, i: hash_str(s, i), lambda k: hash_str(k, 0))


KEYS = [f"key-{i}" for i in range(20000)]
names = lambda n: [f"n{j}" for j in range(1, n + 1)]

for a, b in ((4, 5), (10, 11)):
    moved = sum(1 for k in KEYS if sha256_64(k) % a != sha256_64(k) % b)
    print(f"sha256 modulo {a}->{b}: moved {moved}")

for v in (1, 100):
    r = sha_ring(names(4), v)
    counts = {n: 0 for n in names(4)}
    for k in KEYS:
        counts[r.node(k)] += 1
    print(f"sha256 ring 4 nodes vnodes {v}: counts {counts}")

for a, b in ((4, 5), (10, 11)):
    before, after = sha_ring(names(a), 100), sha_ring(names(b), 100)
    moved = [k for k in KEYS if before.node(k) != after.node(k)]
    dest = {after.node(k) for k in moved}
    print(f"sha256 ring {a}->{b} vnodes 100: moved {len(moved)} to {sorted(dest)}")

for v in (1, 100):
    r = poly_ring(names(4), v)
    counts = {n: 0 for n in names(4)}
    for k in KEYS:
        counts[r.node(k)] += 1
    print(f"poly31 ring 4 nodes vnodes {v}: counts {counts}")
before, after = poly_ring(names(4), 100), poly_ring(names(5), 100)
print("poly31 ring 4->5 vnodes 100: moved",
      sum(1 for k in KEYS if before.node(k) != after.node(k)))

# Ownership of the 4-node sha256 ring with 1 vnode: exact arcs as fractions.
r = sha_ring(names(4), 1)
arcs = {n: 0 for n in names(4)}
for i, (p, n) in enumerate(r.points):
    prev = r.points[i - 1][0] if i > 0 else r.points[-1][0] - (1 << 64)
    arcs[n] += p - prev
print("sha256 ring 4 nodes vnodes 1 ownership:", {n: a / 2**64 for n, a in arcs.items()})
print("sha256 points n1#0..n4#0:", [sha256_64(f"n{j}#0") for j in range(1, 5)])
print("poly31 point n1#7 salt 7:", hash_str("n1#7", 7))


def jump(key, buckets):  # Lamping & Veach, section 3
    b, j = -1, 0
    while j < buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & MASK64
        j = int((b + 1) * ((1 << 31) / ((key >> 33) + 1)))
    return b


print("jump:", [(k, n, jump(k, n)) for k, n in
                ((0, 1), (1, 10), (0xDEADBEEF, 100), (MASK64, 1000), (123456789, 7))])


# Weighted native rings: a node of weight w has vnodes * w points, named
# "name#0" .. "name#(vnodes*w - 1)" (ring.hpp), so its expected share is
# w / sum(w).
class WeightedRing(Ring):
    def __init__(self, weights, vnodes, point_hash, key_hash):
        self.points = sorted(
            (point_hash(f"{n}#{i}", i), n) for n, w in weights for i in range(vnodes * w))
        self.pos = [p for p, _ in self.points]
        self.key_hash = key_hash


WEIGHTS = [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
for label, point_hash, key_hash in (
        ("sha256", lambda s, i: sha256_64(s), sha256_64),):
    r = WeightedRing(WEIGHTS, 40, point_hash, key_hash)
    counts = {n: 0 for n, _ in WEIGHTS}
    for k in KEYS:
        counts[r.node(k)] += 1
    print(f"{label} weighted ring a=1,b=2,c=3,d=4 vnodes 40: points {len(r.points)} counts {counts}")
    print(f"{label} weighted ring first keys:", [r.node(f"key-{i}") for i in range(12)])
    arcs = {n: 0 for n, _ in WEIGHTS}
    for i, (p, n) in enumerate(r.points):
        prev = r.points[i - 1][0] if i > 0 else r.points[-1][0] - (1 << 64)
        arcs[n] += p - prev
    print(f"{label} weighted ring ownership:", {n: round(a / 2**64, 12) for n, a in arcs.items()})
