#!/usr/bin/env python3
"""Writes the golden Merkle tree file of tests/merkle/data from docs/format.md,
independently of the library: XXH3 comes from the xxhsum tool (Debian package
xxhash), everything else is spelled out here.

  python3 tests/merkle/merkle_golden.py --write-files tests/merkle/data

The tree: depth 2, key hash xxh3, rows ("user:1", "anna") and ("user:2", "bora").
"""
import struct
import subprocess
import sys
from pathlib import Path


def xxh3_64(data: bytes) -> int:
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True, check=True)
    return int(out.stdout.decode().split("=")[1].strip(), 16)


def xxh3_128(data: bytes) -> tuple[int, int]:
    out = subprocess.run(["xxhsum", "-H2", "-"], input=data, capture_output=True, check=True)
    value = int(out.stdout.decode().split()[0], 16)  # high half first
    return value & (2**64 - 1), value >> 64  # (low, high)


def row_digest(key: bytes, value: bytes) -> int:
    low, high = xxh3_128(struct.pack("<Q", len(key)) + key + value)
    return low | (high << 64)


def inner(left: int, right: int) -> int:
    data = struct.pack("<QQQQ", left & (2**64 - 1), left >> 64, right & (2**64 - 1), right >> 64)
    low, high = xxh3_128(data)
    return low | (high << 64)


def tree_file(depth: int, rows: list[tuple[bytes, bytes]]) -> bytes:
    leaves = [[0, 0] for _ in range(2**depth)]
    for key, value in rows:
        leaf = xxh3_64(key) >> (64 - depth)
        leaves[leaf][0] = (leaves[leaf][0] + row_digest(key, value)) % 2**128
        leaves[leaf][1] += 1
    level = [sum_ for sum_, _ in leaves]
    while len(level) > 1:
        level = [inner(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    root = level[0]
    size = 64 + 24 * len(leaves) + 8
    header = b"\x89RBM\r\n\x1a\n" + struct.pack("<HBBB3xQQI4xQQ8x", 1, 1, 1, depth, len(rows), size,
                                                 0, root & (2**64 - 1), root >> 64)
    body = header + b"".join(
        struct.pack("<QQQ", s & (2**64 - 1), s >> 64, n) for s, n in leaves)
    return body + struct.pack("<Q", xxh3_64(body))


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] != "--write-files":
        sys.exit("usage: merkle_golden.py --write-files DIR")
    data = tree_file(2, [(b"user:1", b"anna"), (b"user:2", b"bora")])
    Path(sys.argv[2], "two_rows_depth2.rbm").write_bytes(data)
    print(f"two_rows_depth2.rbm: {len(data)} bytes")


if __name__ == "__main__":
    main()
