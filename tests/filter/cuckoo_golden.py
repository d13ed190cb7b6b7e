#!/usr/bin/env python3
"""Independent reference for the cuckoo filter file (magic \\x89RBC).

Written from docs/format.md ("Cuckoo filter files") and include/ringbloom/
filter/cuckoo.hpp's placement rule, without the library (standard library
plus the xxhsum tool of xxHash). The C++ tests (tests/filter/cuckoo_file_test.cpp),
the Python tests and the fuzz seed compare the library against the file this
script writes:

    python3 tests/filter/cuckoo_golden.py --write-files tests/filter/data
"""
import argparse
import os
import struct
import subprocess
import sys


def xxh3_64(data: bytes) -> int:
    out = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True,
                         check=True).stdout.decode()
    return int(out.split("=")[1].strip(), 16)


def align64(n):
    return (n + 63) // 64 * 64


def sealed(body: bytes, size: int) -> bytes:
    """The body, its recorded size at 32..40, zero padding, and the XXH3-64 checksum."""
    out = bytearray(body)
    out[32:40] = struct.pack("<Q", size)
    out += bytes(size - 8 - len(out))
    out += struct.pack("<Q", xxh3_64(bytes(out)))
    assert len(out) == size
    return bytes(out)


def cuckoo_file(capacity, bucket, bits, items):
    buckets = 1
    while buckets < capacity // bucket:
        buckets *= 2
    slots = [0] * (buckets * bucket)
    for item in items:
        h = xxh3_64(item)
        fp = 1 + (h >> 32) % ((1 << bits) - 1)
        b1 = h & (buckets - 1)
        b2 = (b1 ^ (fp * 0x5BD1E995)) & (buckets - 1)
        for b in (b1, b2):
            free = [i for i in range(bucket) if slots[b * bucket + i] == 0]
            if free:
                slots[b * bucket + free[0]] = fp
                break
        else:
            raise SystemExit("golden cuckoo filter needs a kick; pick other items")
    packed = 0
    for i, v in enumerate(slots):
        packed |= v << (i * bits)
    payload = packed.to_bytes((len(slots) * bits + 7) // 8, "little")
    size = 64 + align64(len(payload)) + 8
    header = b"\x89RBC\r\n\x1a\n" + struct.pack("<HBBIQQQQQHHI", 1, bucket, bits, 1, 0,
                                                  len(items), 0, capacity, 0, 20, 1, 0)
    assert len(header) == 64
    return sealed(header + payload, size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-files", required=True)
    a = ap.parse_args()
    os.makedirs(a.write_files, exist_ok=True)
    with open(os.path.join(a.write_files, "cuckoo_64_b4_f12.rbc"), "wb") as f:
        f.write(cuckoo_file(64, 4, 12, [b"anna", b"bora", b"cleo", b"dana", b"emil"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
