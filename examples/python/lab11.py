#!/usr/bin/env python3
"""lab11 (consistent hashing and the Bloom filter), on ringbloom.

lab11 writes its own salted polynomial hash (hash_str), a ring with replicas
and a Bloom filter with k salted hashes. ringbloom has lab11's hash as
"poly31", so the same experiments run on the C++ library; this script prints
lab11's claims beside what the library measures.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/lab11.py
"""

import ringbloom

MASK64 = (1 << 64) - 1


def hash_str(key: str, salt: int = 0) -> int:
    """lab11's hash, verbatim in meaning, to check ringbloom's "poly31" against."""
    h = (salt * 0x9E3779B1 + 1) & MASK64
    for ch in key:
        h = (h * 31 + ord(ch)) & MASK64
    return h


def poly31_matches_lab11(keys):
    return all(ringbloom.hash64(k, "poly31", seed=salt) == hash_str(k, salt)
               for k in keys for salt in (0, 1, 7))


def naive_vs_ring(nodes=4, keys=10000, hash="xxh3", replicas=100):
    """hash % N against the ring when N -> N+1, on key-0 .. key-9999."""
    names = [f"n{i}" for i in range(1, nodes + 1)]
    key_list = [f"key-{i}" for i in range(keys)]
    hashes = [ringbloom.hash64(k, hash) for k in key_list]
    naive = sum(h % nodes != h % (nodes + 1) for h in hashes) / keys
    before = ringbloom.HashRing(names, vnodes=replicas, hash=hash)
    after = ringbloom.HashRing(names + [f"n{nodes + 1}"], vnodes=replicas, hash=hash)
    return naive, before.moved(after, key_list).moved_fraction


def replica_spread(replicas, nodes=4, keys=10000, hash="xxh3"):
    """max - min of the nodes' key shares: lab11's 'tens of percent with
    replicas=1, single percent with replicas=100'."""
    ring = ringbloom.HashRing([f"n{i}" for i in range(1, nodes + 1)], vnodes=replicas, hash=hash)
    return ring.load([f"key-{i}" for i in range(keys)]).max_minus_min


def bloom_fill(size=1000, k=3, steps=(50, 100, 200, 400)):
    """lab11's filter (positions hash_str(item, salt=i) % size): the expected
    false-positive rate grows as it fills, never a false negative."""
    f = ringbloom.BloomFilter(size, k, kind="classic", hash="poly31")
    rows, added = [], 0
    for n in steps:
        f.add_many(f"key-{i}" for i in range(added, n))
        added = n
        missing = int((~f.may_contain_many([f"key-{i}" for i in range(n)])).sum())
        rows.append((n, f.stats().expected_fpr, missing))
    return rows


def main():
    print("poly31 == lab11 hash_str:", poly31_matches_lab11(["", "a", "key-1", "ключ"]))
    naive, ring = naive_vs_ring()
    print(f"4 -> 5 nodes, 10000 keys: hash % N moves {naive:.1%} (lab11: ~80%), "
          f"the ring {ring:.1%} (lab11: ~20%)")
    for replicas in (1, 100):
        print(f"replicas={replicas}: shares spread (max - min) {replica_spread(replicas):.1%}")
    for n, rate, missing in bloom_fill():
        print(f"{n} items in 1000 bits, k=3: expected rate {rate:.2%}, false negatives {missing}")


if __name__ == "__main__":
    main()
