#!/usr/bin/python3
"""Writes exact sums, means, standard deviations, minima and maxima as JSON: the reference for
tests/test_summary.cpp.

Usage: /usr/bin/python3 tests/tools/exact_moments_reference.py OUT.json

The sum is math.fsum (correctly rounded). The mean, and the standard deviation for ddof 0 and 1, are
computed in exact rational arithmetic (fractions.Fraction) and rounded once to the nearest double,
so they are the best answer a double can give; min and max are Python's min() and max(). Every
double is written as float.hex() text so the C++ side reads back the exact bits. Deterministic: all
randomness is seeded.
"""

import json
import math
import random
import sys
from fractions import Fraction


def nearest_sqrt(q):
    """The double nearest to sqrt(q) for a non-negative Fraction q, subnormal results included."""
    if q == 0:
        return 0.0
    # An integer square root of q scaled by 4^m, with m large enough for 64 more bits than a double
    # holds, is within a unit in the last place of sqrt(q); the neighbours decide the rounding.
    m = max(0, (q.denominator.bit_length() - q.numerator.bit_length()) // 2 + 128)
    root = Fraction(math.isqrt(q.numerator * 4 ** m // q.denominator), 2 ** m)
    guess = float(root)
    for c in (math.nextafter(guess, -math.inf), guess, math.nextafter(guess, math.inf)):
        low = (Fraction(c) + Fraction(math.nextafter(c, -math.inf))) / 2
        high = (Fraction(c) + Fraction(math.nextafter(c, math.inf))) / 2
        if low * low <= q <= high * high:
            return c
    raise AssertionError(f"no nearest square root found for {q}")


def exact_moments(values):
    exact = [Fraction(v) for v in values]
    n = len(exact)
    total = sum(exact, Fraction(0))
    mean = total / n
    squares = sum(((x - mean) ** 2 for x in exact), Fraction(0))
    out = {
        "sum": math.fsum(values).hex(),
        "mean": float(mean).hex(),
        "min": min(values).hex(),
        "max": max(values).hex(),
        "std_ddof0": nearest_sqrt(squares / n).hex(),
    }
    if n > 1:
        out["std_ddof1"] = nearest_sqrt(squares / (n - 1)).hex()
    return out


def cases(rng):
    """(name, values): adversarial shapes first, then samples shaped like latencies and clocks."""
    yield "n1", [42.5]
    yield "n2", [1.0, 2.0]
    yield "all_equal", [0.1] * 33
    yield "ulp_neighbours", [1.0 + i * 2.0 ** -52 for i in range(17)]
    yield "subnormal_mix", [5e-324, 1e-310, 2.5e-308, 1e-300, 0.0, 3e-320]
    yield "mixed_sign", [rng.gauss(0.0, 1e3) for _ in range(999)]
    # Cancellation: a running sum loses every small value added while the big ones dominate it.
    yield "cancelling_times", [1e12] + [rng.uniform(0.0, 1e-3) for _ in range(5000)] + [-1e12]
    yield "huge_range", [1e-9, 1e-3, 1.0, 1e3, 1e9, 1e12, -1e12, 3.5]
    # Epoch-clock times (seconds since 1970 with sub-ms spread): the mean's offset must not cost
    # the deviations their digits.
    yield "epoch_times", [1.7e9 + rng.uniform(0.0, 1e-3) for _ in range(2000)]
    yield "epoch_times_spread", [1.7e9 + rng.uniform(0.0, 3600.0) for _ in range(2000)]
    # Latency-shaped samples: ttft (lognormal, seconds), tpot (small), e2e with a heavy tail.
    yield "ttft_100k", [rng.lognormvariate(-2.0, 1.0) for _ in range(100_000)]
    yield "tpot_20k", [rng.uniform(0.002, 0.05) for _ in range(20_000)]
    yield "pareto_e2e_20k", [0.05 * rng.paretovariate(1.1) for _ in range(20_000)]
    # Ascending order makes a running sum's error grow steadily: the worst order for it.
    yield "ascending_50k", sorted(rng.uniform(0.0, 1.0) for _ in range(50_000))


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT.json")
    rng = random.Random(20261126)
    out_cases = [{"name": name, "data": [float(v).hex() for v in values], "expected": exact_moments(values)}
                 for name, values in cases(rng)]
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump({"generator": "tests/tools/exact_moments_reference.py", "cases": out_cases}, f)
    print(f"{sys.argv[1]}: {len(out_cases)} cases")


if __name__ == "__main__":
    main()
