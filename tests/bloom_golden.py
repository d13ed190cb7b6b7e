#!/usr/bin/env python3
"""Independent reference figures for tests/bloom_test.cpp and blocked_bloom_test.cpp.

Run with python3 (standard library plus the xxhsum tool of xxHash). It
re-implements the position rules of include/ringbloom/bloom.hpp and
blocked_bloom.hpp from their documentation, with hashlib, lab11's hash_str and
xxhsum -H2 (XXH3-128), so the C++ tests check the library against numbers it
did not compute itself.
"""
import hashlib
import math
import subprocess

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


def xxh3_128(data):
    """(low, high) of XXH3-128 via xxhsum, whose canonical form is high||low big-endian."""
    out = subprocess.run(["xxhsum", "-H2", "-"], input=data.encode(), capture_output=True,
                         check=True).stdout.decode().split()[0]
    v = int(out, 16)
    return v & MASK64, v >> 64


def fastrange(x, n):
    return (x * n) >> 64


def km_positions(item, k, m):
    low, high = xxh3_128(item)
    step = high | 1
    return [fastrange((low + i * step) & MASK64, m) for i in range(k)]


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
        bit = ((half * CUBE_ROOT_CONSTANTS[j]) & MASK32) >> 26
        out.append(block * 512 + (j % 8) * 64 + bit)
    return out


def main():
    check_constants()
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

    print("classic xxh3 positions m=1000003 k=7 (XXH3-128 from xxhsum)")
    for item in ["anna", "user:42", ""]:
        print(" ", repr(item), km_positions(item, 7, 1000003))
    print("blocked xxh3 positions m=512*1000 k=7 and k=12")
    for item in ["anna", "user:42"]:
        print(" ", repr(item), blocked_positions(item, 7, 512 * 1000))
        print(" ", repr(item), blocked_positions(item, 12, 512 * 1000))


if __name__ == "__main__":
    main()
