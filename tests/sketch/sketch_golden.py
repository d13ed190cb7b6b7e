#!/usr/bin/env python3
"""Independent reference for the sketch formats (issue 12).

Written from docs/format.md and Redis 7.0's src/hyperloglog.c, without the
library: MurmurHash64A, Redis's register rule and HLL strings (dense and
sparse). The C++ tests compare the library against the values and files
this script writes:

    python3 tests/sketch/sketch_golden.py --print            # reference values
    python3 tests/sketch/sketch_golden.py --write-files tests/sketch/data
"""
import argparse
import os
import struct
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
