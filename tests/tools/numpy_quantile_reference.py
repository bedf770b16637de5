#!/usr/bin/python3
"""Writes numpy's np.percentile results for every `method` as JSON, the reference for tests/test_quantile.cpp.

Usage: /usr/bin/python3 tests/tools/numpy_quantile_reference.py OUT.json

Needs numpy 1.22-1.26: `method=` arrived in 1.22, and numpy 2.0.1 changed closest_observation's tie rule
(numpy#26656).
Every double (data, p, expected) is written as float.hex() text so the C++ side reads back the exact bits
with strtod, independent of any JSON number parser. Deterministic: all randomness is seeded.
"""

import json
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("numpy not found: run this with /usr/bin/python3 (Debian's python3-numpy 1.24)")

METHODS = [
    "linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
    "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
    "normal_unbiased",
]

FIXED_PERCENTILES = [0.0, 0.1, 1.0, 5.0, 25.0, 49.0, 50.0, 51.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0]
# Where n*q or (n-1)*q lands exactly on an integer or a half for small n: the tie rules of the
# discrete methods (nearest, inverted_cdf, closest_observation, averaged_inverted_cdf) show up here.
TIE_PERCENTILES = [12.5, 20.0, 37.5, 62.5, 75.0, 80.0, 87.5, 100.0 / 3.0, 200.0 / 3.0]


def check_numpy_version():
    major, minor = (int(part) for part in np.__version__.split(".")[:2])
    if major != 1 or minor < 22:
        sys.exit(f"numpy {np.__version__}: need numpy 1.22-1.26 (run with /usr/bin/python3 on Debian 12)")


def cases(rng):
    """(name, data) pairs: adversarial shapes first, then random samples."""
    yield "n1", [42.5]
    yield "n1_negative", [-3.25]
    yield "n2", [1.0, 2.0]
    yield "n2_equal", [7.0, 7.0]
    yield "n3", [3.0, -1.0, 2.0]
    yield "arange10", [float(i) for i in range(10)]
    yield "one_to_ten", [float(i) for i in range(1, 11)]
    yield "one_to_hundred", [float(i) for i in range(1, 101)]
    yield "ties", [float(v) for v in rng.integers(0, 5, size=57)]
    yield "ties_fractional", [v / 8.0 for v in rng.integers(-20, 20, size=200)]
    yield "all_equal", [0.1] * 33
    yield "all_zero", [0.0] * 5
    # Signed zeros: only _lerp's exact arithmetic (including its odd weight past the last element)
    # decides whether numpy returns -0.0 or +0.0. Never mix -0.0 with +0.0: their sorted order is unspecified.
    yield "negative_zeros", [-0.0] * 4
    yield "negative_zero_below_positives", [2.5, -0.0, 1.5, -0.0]
    yield "negatives_up_to_negative_zero", [-2.0, -0.0, -1.0]
    yield "near_1e9", [1e9 + i * 1.1920928955078125e-07 * int(k) for i, k in
                       enumerate(rng.integers(1, 4, size=101))]
    yield "near_1e9_uniform", list(1e9 + rng.uniform(0.0, 1e-3, size=64))
    yield "tiny_1e-9", list(rng.uniform(1e-9, 5e-9, size=77))
    yield "subnormal_mix", [5e-324, 1e-310, 2.5e-308, 1e-300, 0.0, 3e-320]
    yield "negative", list(-rng.lognormal(0.0, 1.0, size=41))
    yield "mixed_sign", list(rng.normal(0.0, 1e3, size=99))
    yield "huge_range", [1e-9, 1e-3, 1.0, 1e3, 1e9, 1e15, -1e15, 3.5]
    yield "ulp_neighbours", [1.0 + i * 2.0 ** -52 for i in range(17)]
    for n in (10, 100, 1000, 12345):
        yield f"lognormal_{n}", list(rng.lognormal(mean=-2.0, sigma=1.5, size=n))
    yield "pareto_999", list(rng.pareto(1.1, size=999) * 0.01)
    yield "uniform_7", list(rng.uniform(0.0, 1.0, size=7))
    yield "uniform_37", list(rng.uniform(0.0, 1.0, size=37))


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT.json")
    check_numpy_version()
    rng = np.random.default_rng(20240611)
    random_percentiles = list(rng.uniform(0.0, 100.0, size=20))
    percentiles = FIXED_PERCENTILES + TIE_PERCENTILES + [float(p) for p in random_percentiles]

    out_cases = []
    for name, data in cases(rng):
        values = np.array(data, dtype=np.float64)
        expected = {m: [float(np.percentile(values, p, method=m)).hex() for p in percentiles] for m in METHODS}
        out_cases.append({
            "name": name,
            "data": [float(v).hex() for v in values],
            "expected": expected,
        })

    document = {
        "generator": "tests/tools/numpy_quantile_reference.py",
        "numpy_version": np.__version__,
        "methods": METHODS,
        "percentiles": [float(p).hex() for p in percentiles],
        "cases": out_cases,
    }
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(document, f)
    print(f"{sys.argv[1]}: {len(out_cases)} cases x {len(percentiles)} percentiles x {len(METHODS)} methods "
          f"(numpy {np.__version__})")


if __name__ == "__main__":
    main()
