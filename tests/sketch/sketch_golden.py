#!/usr/bin/env python3
"""Independent reference for the sketch formats.

Written from docs/format.md and Redis 7.0's src/hyperloglog.c, without the
library (standard library plus the xxhsum tool of xxHash): MurmurHash64A,
Redis's register rule and HLL strings (dense and sparse) and the sketch file
(magic \x89RBS); the cuckoo filter file has its own generator in the filter
family (tests/filter/cuckoo_golden.py). The C++ tests compare the library
against the values and files this script writes:

    python3 tests/sketch/sketch_golden.py --print            # reference values
    python3 tests/sketch/sketch_golden.py --write-files tests/sketch/data
"""
import argparse
import os
import struct
import subprocess
import sys

M64 = (1 << 64) - 1


def murmur64a(data: bytes, seed: int) -> int:
    m = 0xC6A4A7935BD1E995
    r = 47
    h = (seed ^ (len(data) * m)) & M64
    nblocks = len(data) // 8
    for i in range(nblocks):
        k = struct.unpack_from("<Q", data, 8 * i)[0]
        k = (k * m) & M64
        k ^= k >> r
        k = (k * m) & M64
        h ^= k
        h = (h * m) & M64
    tail = data[8 * nblocks:]
    if tail:
        for i in reversed(range(len(tail))):
            h ^= tail[i] << (8 * i)
        h = (h * m) & M64
    h ^= h >> r
    h = (h * m) & M64
    h ^= h >> r
    return h


def redis_registers(items):
    regs = [0] * 16384
    for it in items:
        h = murmur64a(it, 0xADC83B19)
        index = h & 16383
        rest = (h >> 14) | (1 << 50)
        run = 1
        while rest & 1 == 0:
            run += 1
            rest >>= 1
        regs[index] = max(regs[index], run)
    return regs


def redis_header(encoding):
    return b"HYLL" + bytes([encoding, 0, 0, 0]) + bytes(7) + b"\x80"


def redis_dense(regs):
    bits = 0
    for i, v in enumerate(regs):
        bits |= v << (6 * i)
    return redis_header(0) + bits.to_bytes(12288, "little")


def redis_sparse(regs):
    out = bytearray(redis_header(1))
    i = 0
    while i < len(regs):
        j = i
        while j < len(regs) and regs[j] == regs[i]:
            j += 1
        run, v = j - i, regs[i]
        if v == 0:
            while run:
                n = min(run, 16384)
                if n > 64:
                    out += bytes([0x40 | ((n - 1) >> 8), (n - 1) & 0xFF])
                else:
                    out.append(n - 1)
                run -= n
        else:
            assert v <= 32
            while run:
                n = min(run, 4)
                out.append(0x80 | ((v - 1) << 2) | (n - 1))
                run -= n
        i = j
    return bytes(out)


def xxh3_64(data: bytes) -> int:
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True,
                         check=True).stdout.decode()
    return int(out.split("=")[1].strip(), 16)


def xxh3_128(data: bytes):
    """(low, high) of XXH3-128; xxhsum prints high||low big-endian."""
    out = subprocess.run(["xxhsum", "-H2", "-"], input=data, capture_output=True,
                         check=True).stdout.decode()
    v = int(out.split()[0], 16)
    return v & M64, v >> 64


def align64(n):
    return (n + 63) // 64 * 64


def sealed(body: bytes, size: int) -> bytes:
    out = bytearray(body)
    out[32:40] = struct.pack("<Q", size)
    out += bytes(size - 8 - len(out))
    out += struct.pack("<Q", xxh3_64(bytes(out)))
    assert len(out) == size
    return bytes(out)


def sketch_file(kind, variant, a, seed, count, b, c, decay, payload):
    size = align64(64 + len(payload)) + 8
    header = b"\x89RBS\r\n\x1a\n" + struct.pack("<HBBIQQQIIdQ", 1, kind, variant, a, seed,
                                                  count, 0, b, c, decay, 0)
    assert len(header) == 64
    return sealed(header + payload, size)


def hll_redis_file(regs):
    return sketch_file(1, 1, 14, 0xADC83B19, 0, 0, 0, 0.0, bytes(regs))


def cms_file(width, depth, increments):
    counters = [0] * (width * depth)
    total = 0
    for item, n in increments:
        low, high = xxh3_128(item)
        g, step = low, high | 1
        for r in range(depth):
            col = ((g >> 32) * width) >> 32
            counters[r * width + col] = min(counters[r * width + col] + n, 2**32 - 1)
            g = (g + step) & M64
        total += n
    payload = b"".join(struct.pack("<I", v) for v in counters)
    return sketch_file(2, 0, width, 0, total, depth, 0, 0.0, payload)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--print", action="store_true")
    ap.add_argument("--write-files")
    a = ap.parse_args()
    if a.print:
        for s in [b"", b"a", b"hello world", b"0123456789abcdef"]:
            print(s, hex(murmur64a(s, 0xADC83B19)))
    if a.write_files:
        os.makedirs(a.write_files, exist_ok=True)
        regs = redis_registers([b"user:%d" % i for i in range(100)])
        with open(os.path.join(a.write_files, "redis_hll_100_sparse.bin"), "wb") as f:
            f.write(redis_sparse(regs))
        with open(os.path.join(a.write_files, "redis_hll_100_dense.bin"), "wb") as f:
            f.write(redis_dense(regs))
        with open(os.path.join(a.write_files, "hll_redis_100.rbs"), "wb") as f:
            f.write(hll_redis_file(regs))
        incs = [(b"apple", 3), (b"pear", 1), (b"plum", 7), (b"apple", 2)]
        with open(os.path.join(a.write_files, "cms_64x3.rbs"), "wb") as f:
            f.write(cms_file(64, 3, incs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
