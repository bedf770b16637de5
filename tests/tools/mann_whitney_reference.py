#!/usr/bin/python3
"""Prints the Mann-Whitney U reference values pasted into tests/test_mann_whitney.cpp.

Usage: /usr/bin/python3 tests/tools/mann_whitney_reference.py [--check-scipy]

Implements scipy 1.10's mannwhitneyu(a, b, alternative='two-sided', method='asymptotic',
use_continuity=True) with numpy alone: average ranks of the pooled sample (argsort + tie groups, as
scipy's _rankdata does), U1 = R1 - n1(n1+1)/2, tie-corrected sigma, z = (max(U1, U2) - mu - 0.5)/sigma,
p = erfc(z/sqrt(2)) clipped to [0, 1]. The samples are the ones the C++ test builds, from the same
integer formulas and the same 64-bit LCG, so both sides see identical doubles.

--check-scipy additionally compares every case with scipy.stats.mannwhitneyu (scipy is optional; the
test never needs it).
"""

import math
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("numpy not found: run this with /usr/bin/python3 (Debian's python3-numpy)")

LCG_MULTIPLIER = 6364136223846793005
LCG_INCREMENT = 1442695040888963407
MASK64 = (1 << 64) - 1
SCIPY_OVERFLOWS = {"huge_tie_group"}


def lcg_values(seed, count):
    """Integers 0..999 from the high bits of a 64-bit LCG (Knuth's MMIX constants), as the test does."""
    x = seed
    out = []
    for _ in range(count):
        x = (x * LCG_MULTIPLIER + LCG_INCREMENT) & MASK64
        out.append(float((x >> 33) % 1000))
    return out


def cases():
    no_ties = ([19.0, 22.0, 16.0, 29.0, 24.0], [20.0, 11.0, 17.0, 12.0])
    ties = ([1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0], [2.0, 3.0, 3.0, 5.0, 7.0, 8.0, 8.0, 9.0, 9.0])
    unequal = ([3.5, 17.25, 40.0, 61.0, 62.25], [((i * 7919) % 250) / 4.0 for i in range(300)])
    shift = ([float((i * 37) % 101) for i in range(100)], [float((i * 53) % 97 + 60) for i in range(100)])
    stream = lcg_values(42, 40000)
    large = (stream[:20000], [v + 7.0 for v in stream[20000:]])
    yield "no_ties", no_ties
    yield "ties", ties
    yield "ties_swapped", (ties[1], ties[0])
    yield "unequal", unequal
    yield "unequal_swapped", (unequal[1], unequal[0])
    yield "shift", shift
    yield "identical", ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0])
    yield "all_equal", ([4.0, 4.0, 4.0], [4.0, 4.0])
    yield "large", large
    # t^3 - t of the 2.2e6-value group exceeds int64: scipy 1.10 overflows there (its p is wrong),
    # the formula in float64 does not.
    yield "huge_tie_group", ([0.0] * 1200000, [0.0] * 1000000 + [1.0])


def average_ranks(values):
    """1-based ranks with ties averaged, and the size of every tie group (scipy's _rankdata)."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    starts_group = np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    dense = np.empty(len(values), dtype=np.int64)
    dense[order] = np.cumsum(starts_group)
    bounds = np.r_[np.nonzero(starts_group)[0], len(values)]
    ranks = 0.5 * (bounds[dense] + bounds[dense - 1] + 1)
    return ranks, np.diff(bounds)


def mann_whitney(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n1, n2 = len(a), len(b)
    n = n1 + n2
    ranks, t = average_ranks(np.concatenate([a, b]))
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    tie_term = float((t.astype(np.float64) ** 3 - t).sum())
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    numerator = u - n1 * n2 / 2 - 0.5
    if sigma == 0:
        z = -math.inf  # what scipy gets (numerator is -0.5); the C++ code reports z = 0 instead
    else:
        z = numerator / sigma
    p = min(1.0, max(0.0, math.erfc(z / math.sqrt(2))))
    return float(u1), z, p


def main():
    check_scipy = "--check-scipy" in sys.argv[1:]
    print(f"# numpy {np.__version__}")
    worst = 0.0
    for name, (a, b) in cases():
        u, z, p = mann_whitney(a, b)
        print(f"{name}: n1={len(a)} n2={len(b)} u={u:.17g} z={z:.17g} p={p:.17g}")
        if check_scipy:
            import scipy
            from scipy import stats
            r = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
            du = abs(r.statistic - u) / max(abs(u), 1e-300)
            dp = abs(r.pvalue - p) / max(abs(p), 1e-300)
            note = " (expected: scipy's int64 tie term overflows)" if name in SCIPY_OVERFLOWS else ""
            if not note:
                worst = max(worst, du, dp)
            print(f"  scipy {scipy.__version__}: u={r.statistic:.17g} p={r.pvalue:.17g} "
                  f"rel.diff u={du:.3g} p={dp:.3g}{note}")
    if check_scipy:
        print(f"# worst relative difference from scipy, overflow cases aside: {worst:.3g}")


if __name__ == "__main__":
    main()
