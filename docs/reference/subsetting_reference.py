#!/usr/bin/env python3
"""Independent reference for docs/subsetting.md: SplitMix64, the inside-out Fisher-Yates shuffle,
and the random and deterministic algorithms, written from the specification alone.

Prints the test vectors that ballast-core's tests assert, so a client in another language can
check its own implementation against the same numbers:  python3 docs/reference/subsetting_reference.py
"""
M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def finalize_mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def output(seed, i):
    return finalize_mix((seed + (i + 1) * GAMMA) & M64)


def derive(salt, tag, number):
    return output(output(salt, tag), number)


def bounded(value, bound):
    return (value * bound) >> 64


def permutation(n, seed):
    a = [0] * n
    for i in range(n):
        j = bounded(output(seed, i), i + 1)
        if j != i:
            a[i] = a[j]
        a[j] = i
    return a


def random_subset(n, client, k, salt=0):
    return permutation(n, derive(salt, 1, client))[:k]


def deterministic_subset(n, client, k, salt=0):
    subset_count = n // k
    leftover = n - subset_count * k
    rnd, subset_id = divmod(client, subset_count)
    start = (rnd * leftover) % n
    included = [r for r in range(n) if (r - start) % n >= leftover]
    p = permutation(len(included), derive(salt, 2, rnd))
    return [included[p[subset_id * k + t]] for t in range(k)]


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


if __name__ == "__main__":
    print("output(0, 0..2):", [signed(output(0, i)) for i in range(3)])
    print("derive(0, 1, 7):", signed(derive(0, 1, 7)))
    print("bounded(output(0, 0), 1000):", bounded(output(0, 0), 1000))
    print("permutation(10, 42):", permutation(10, 42))
    print("random N=12 k=3 clients 0..3:", [random_subset(12, c, 3) for c in range(4)])
    print("deterministic N=12 k=3 clients 0..9:", [deterministic_subset(12, c, 3) for c in range(10)])
    print("deterministic N=14 k=3 clients 0..5:", [deterministic_subset(14, c, 3) for c in range(6)])
