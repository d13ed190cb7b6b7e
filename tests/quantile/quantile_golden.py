#!/usr/bin/env python3
"""Independent reference for the quantile file format (docs/format.md).

Written from docs/format.md and the algorithms as the headers describe them
(include/ringbloom/quantile/tdigest.hpp: the q(1-q) merge rule;
kll.hpp: level capacities, splitmix64 bits, compaction), without the
library (standard library plus the xxhsum tool of xxHash). The C++ test
tests/quantile/quantile_file_test.cpp builds the same sketches and compares
their bytes with the files this script writes:

    python3 tests/quantile/quantile_golden.py --write-files tests/quantile/data
"""
import argparse
import math
import os
import struct
import subprocess

M64 = (1 << 64) - 1


def xxh3_64(data: bytes) -> int:
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True,
                         check=True).stdout.decode()
    return int(out.split("=")[1].strip(), 16)


def align64(n):
    return (n + 63) // 64 * 64


def sealed(body: bytes) -> bytes:
    size = align64(len(body)) + 8
    out = bytearray(body)
    out[32:40] = struct.pack("<Q", size)
    out += bytes(size - 8 - len(out))
    out += struct.pack("<Q", xxh3_64(bytes(out)))
    return bytes(out)


def header(kind, k, a_bytes, b, count, count2):
    h = b"\x89RBQ\r\n\x1a\n" + struct.pack("<HBBI", 1, kind, 0, k) + a_bytes
    h += struct.pack("<QQQQQ", b, 0, count, count2, 0)
    assert len(h) == 64
    return h


def extremes(lo, hi, total):
    e = struct.pack("<ddd", lo, hi, total)
    return e + bytes(64 - len(e))


# --- t-digest ------------------------------------------------------------

def tdigest_compress(nodes, compression):
    """Sorted, then merged left to right while w * delta / (2 pi n ln n) <=
    q (1 - q) at both ends of the grown centroid."""
    nodes = sorted(nodes, key=lambda c: c[0])
    total = sum(w for _, w in nodes)
    norm = compression / (2 * math.pi * total * math.log(total)) if total > 1 else 0
    out = [list(nodes[0])]
    before = 0
    for mean, w in nodes[1:]:
        proposed = out[-1][1] + w
        q0 = before / total
        q2 = (before + proposed) / total
        if total > 1 and proposed * norm <= q0 * (1 - q0) and proposed * norm <= q2 * (1 - q2):
            out[-1][1] += w
            out[-1][0] += (mean - out[-1][0]) * w / out[-1][1]
        else:
            before += out[-1][1]
            out.append([mean, w])
    return [tuple(c) for c in out]


def tdigest_file(compression, values, compressed):
    nodes = [(v, 1) for v in values]
    merged = 0
    compressions = 0
    if compressed:
        nodes = tdigest_compress(nodes, compression)
        merged = len(nodes)
        compressions = 1
    body = header(1, 0, struct.pack("<d", compression), compressions, len(nodes), merged)
    body += extremes(min(values), max(values), float(sum(values)))
    for mean, w in nodes:
        body += struct.pack("<dQ", mean, w)
    return sealed(body)


# --- KLL -----------------------------------------------------------------

def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def level_capacity(k, levels, h):
    depth = levels - 1 - h
    if depth > 30:
        return 8
    return max(8, ((2 * k << depth) // 3 ** depth + 1) // 2)


class Kll:
    def __init__(self, k, seed):
        self.k, self.seed, self.rng = k, seed, seed
        self.levels = [[]]
        self.n = 0

    def total(self):
        return sum(level_capacity(self.k, len(self.levels), h) for h in range(len(self.levels)))

    def add(self, x):
        if len(self.levels[0]) >= level_capacity(self.k, len(self.levels), 0):
            while sum(map(len, self.levels)) >= self.total():
                h = 0
                while len(self.levels[h]) < level_capacity(self.k, len(self.levels), h):
                    h += 1
                if h + 1 == len(self.levels):
                    self.levels.append([])
                self.compact(h)
        self.levels[0].append(x)
        self.n += 1

    def compact(self, h):
        level = sorted(self.levels[h])
        keep = len(level) % 2
        self.rng, z = splitmix(self.rng)
        offset = keep + (z >> 63)
        up = level[offset::2]
        self.levels[h + 1] = sorted(self.levels[h + 1] + up)
        self.levels[h] = level[:keep]


def kll_file(k, seed, values):
    s = Kll(k, seed)
    for v in values:
        s.add(v)
    body = header(2, k, struct.pack("<Q", seed), s.rng, s.n, len(s.levels))
    body += extremes(min(values), max(values), 0.0)
    sizes = b"".join(struct.pack("<I", len(l)) for l in s.levels)
    body += sizes + bytes((8 - len(sizes) % 8) % 8)
    for level in s.levels:
        for v in level:
            body += struct.pack("<d", v)
    return sealed(body)


def golden_values_tdigest():
    return [(i * 7 % 20) * 1.5 for i in range(20)]


def golden_values_kll():
    return [float(i * 13 % 40) for i in range(40)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-files", metavar="DIR", required=True)
    args = ap.parse_args()
    files = {
        "tdigest_c100_buffered.rbq": tdigest_file(100.0, golden_values_tdigest(), False),
        "tdigest_c100_compressed.rbq": tdigest_file(100.0, golden_values_tdigest(), True),
        "kll_k8_seed5_40.rbq": kll_file(8, 5, golden_values_kll()),
    }
    os.makedirs(args.write_files, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(args.write_files, name), "wb") as f:
            f.write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
