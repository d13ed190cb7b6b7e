#!/usr/bin/env python3
"""The German lesson's experiments ("Bloom Filter und der Hash-Ring"), on ringbloom.

The lesson builds its Bloom filter and its ring by hand in Python (SHA-256
positions, bisect on sorted points). Here every experiment runs on the C++
library through `import ringbloom`, with the lesson's hash (sha256), sizes and
keys, and prints the lesson's figures beside ours. `ringbloom demo` prints the
same numbers (examples/python/test_examples.py checks that they agree).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/german_lesson.py
"""

import ringbloom

KEYS = [f"key-{i}" for i in range(20000)]  # the lesson's key-0 .. key-19999


def walkthrough():
    """Step 1: m = 16, k = 2; anna and bora added; cem and user5 probed."""
    f = ringbloom.BloomFilter(16, 2, kind="classic", hash="sha256")
    f.add_many(["anna", "bora"])
    word = int(f.words()[0])
    bits = "".join(str((word >> p) & 1) for p in range(16))
    probes = {item: ([p for _, p, _ in f.explain(item)], item in f)
              for item in ("anna", "bora", "cem", "user5")}
    return bits, probes


def modulo_moved(n, keys=KEYS):
    """Step 2: the fraction of keys that change server under hash % N when N grows by one."""
    hashes = [ringbloom.hash64(k, "sha256") for k in keys]
    return sum(h % n != h % (n + 1) for h in hashes) / len(keys)


def ring_moved(n, vnodes=100, keys=KEYS):
    """Step 2 on the ring: n1..nN, then n(N+1) joins; the fraction of keys that
    move and where they go."""
    before = ringbloom.HashRing([f"n{i}" for i in range(1, n + 1)], vnodes=vnodes, hash="sha256")
    after = ringbloom.HashRing(before.nodes + [f"n{n + 1}"], vnodes=vnodes, hash="sha256")
    moved = before.moved(after, keys)
    return moved.moved_fraction, moved.moved_to


def token_ring(tokens, key_hashes, change):
    """Step 2's example and exercise 2: servers at explicit positions of the
    space 0..99, keys given by their hash values; `change` alters the ring."""
    ring = ringbloom.HashRing()
    for name, position in tokens.items():
        ring.add_at(name, [position])
    before = "".join(ring.node_for_hash(h) for h in key_hashes)
    change(ring)
    after = "".join(ring.node_for_hash(h) for h in key_hashes)
    return before, after, sum(a != b for a, b in zip(before, after))


def step2_example():
    return token_ring({"A": 10, "B": 45, "C": 80}, [5, 30, 47, 70, 90],
                      lambda ring: ring.add_at("D", [60]))


def exercise2():
    return token_ring({"X": 20, "Y": 55, "Z": 90}, [3, 21, 56, 91, 99, 54],
                      lambda ring: ring.remove("Y"))


def exercise1(items=1000, bits=8000, hashes=7, strangers=5000, hash="sha256"):
    """Exercise 1: 1000 addresses in m = 8000, k = 7; never a false negative,
    and a Bloom-typical rate of false positives among 5000 other addresses."""
    f = ringbloom.BloomFilter(bits, hashes, kind="classic", hash=hash)
    added = [f"user{i}@example.com" for i in range(items)]
    f.add_many(added)
    false_negatives = int((~f.may_contain_many(added)).sum())
    others = [f"other{i}@example.org" for i in range(strangers)]
    false_positives = int(f.may_contain_many(others).sum())
    formula = ringbloom.fpr_for(items, bits, hashes, kind="classic")
    return false_negatives, false_positives, formula


def vnode_shares(vnodes, nodes=4, keys=KEYS):
    """Exercise 3's balance: n1..n4, the share of the 20000 keys each gets."""
    ring = ringbloom.HashRing([f"n{i}" for i in range(1, nodes + 1)], vnodes=vnodes,
                              hash="sha256")
    return ring.load(keys).shares


def sketch_error_directions(trials=20, items=5000):
    """The lesson's side note, checked ("bitte prüfen"): HyperLogLog errs in
    both directions; Count-Min only ever counts too high. Returns the number
    of HyperLogLog estimates below and above the truth over `trials` seeds,
    and the number of Count-Min estimates below the truth (always 0)."""
    below = above = 0
    for seed in range(trials):
        h = ringbloom.HyperLogLog(precision=10, seed=seed)
        h.add_many(f"mail{i}@example.com" for i in range(items))
        below += h.estimate() < items
        above += h.estimate() > items
    c = ringbloom.CountMinSketch(width=50, depth=4)
    words = [f"w{i % 500}" for i in range(items)]
    c.increment_many(words)
    estimates = c.estimate_many([f"w{i}" for i in range(500)])
    cms_low = int((estimates < items // 500).sum())
    return below, above, cms_low


def main():
    bits, probes = walkthrough()
    print("Step 1: m=16, k=2")
    print(bits)
    for item, (positions, maybe) in probes.items():
        print(item, positions, "vielleicht enthalten" if maybe else "sicher nicht enthalten")

    print("\nStep 2: hash % N (lesson: 79.6% and 90.8%)")
    for n in (4, 10):
        print(f"{n} -> {n + 1} Knoten: {modulo_moved(n):.1%} der Schlüssel wandern")
    for n in (4, 10):
        fraction, moved_to = ring_moved(n)
        print(f"ring {n} -> {n + 1}: {fraction:.1%} wandern, alle nach {sorted(moved_to)}")

    print("\nStep 2 example (lesson: ABCCA / ABDCA):", step2_example())
    print("Exercise 2 (lesson: XYZXXY / XZZXXZ / 2):", exercise2())

    fn, fp, formula = exercise1()
    print(f"\nExercise 1: {fn} false negatives, {fp} of 5000 false positives "
          f"({fp / 5000:.2%}; formula {formula:.2%})")

    for vnodes in (1, 100):
        shares = vnode_shares(vnodes)
        print(f"Exercise 3, {vnodes} vnodes: shares {min(shares.values()):.0%} .. "
              f"{max(shares.values()):.0%} (lesson: {'7 .. 37' if vnodes == 1 else '24 .. 26'}%)")

    below, above, cms_low = sketch_error_directions()
    print(f"\nHyperLogLog over 20 seeds: {below} estimates too low, {above} too high; "
          f"Count-Min: {cms_low} of 500 counts too low (never)")


if __name__ == "__main__":
    main()
