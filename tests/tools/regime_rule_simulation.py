#!/usr/bin/python3
"""How often the group view's two-regime rule (include/servestat/stats/modality.hpp) fires, on
samples that have one regime and on samples that have two: the evidence behind its thresholds.

For each distribution and sample size, 400 seeded samples; a column per rule:
  split+D>=2          best two-cluster split, each side >= 2 values, Ashman's D >= 2 (the plain rule)
  +valley<=0.8 / 0.7  ... and the Gaussian KDE (Silverman bandwidth) between the clusters at most that
                      share of the smaller cluster's peak (servestat uses 0.8)
Not run by ctest (it takes a minute); numpy only. Usage: regime_rule_simulation.py
"""
import numpy as np


def silverman(x):
    s = x.std(ddof=1)
    iqr = np.percentile(x, 75) - np.percentile(x, 25)
    lo = min(s, iqr / 1.34)
    if not lo > 0:
        lo = s
    return 0.9 * lo * len(x) ** -0.2


def kde(x, h, grid):
    return np.exp(-0.5 * ((grid[:, None] - x[None, :]) / h) ** 2).sum(1) / (len(x) * h * np.sqrt(2 * np.pi))


def two_regimes(x, min_d=2.0, valley=None):
    x = np.sort(x)
    n = len(x)
    costs = [((x[:k] - x[:k].mean()) ** 2).sum() + ((x[k:] - x[k:].mean()) ** 2).sum() for k in range(1, n)]
    k = 1 + int(np.argmin(costs))
    if k < 2 or n - k < 2:
        return False
    a, b = x[:k], x[k:]
    spread = np.sqrt(a.var() + b.var())
    d = np.inf if spread == 0 else np.sqrt(2) * abs(a.mean() - b.mean()) / spread
    if d < min_d:
        return False
    if valley is None:
        return True
    h = silverman(x)
    peak = min(kde(x, h, np.linspace(a[0], a[-1], 64)).max(), kde(x, h, np.linspace(b[0], b[-1], 64)).max())
    return kde(x, h, np.linspace(a[-1], b[0], 64)).min() <= valley * peak


def main():
    rng = np.random.default_rng(1)
    samples = {
        "normal": lambda n: rng.normal(0, 1, n),
        "uniform": lambda n: rng.uniform(0, 1, n),
        "lognormal(0.5)": lambda n: rng.lognormal(0, 0.5, n),
        "two normals 3σ apart": lambda n: np.r_[rng.normal(0, 1, n // 2), rng.normal(3, 1, n - n // 2)],
        "two normals 5σ apart": lambda n: np.r_[rng.normal(0, 1, n // 2), rng.normal(5, 1, n - n // 2)],
        "3:1 normals 5σ apart": lambda n: np.r_[rng.normal(0, 1, 3 * n // 4), rng.normal(5, 1, n - 3 * n // 4)],
    }
    rules = [("split+D>=2", {}), ("+valley<=0.8", {"valley": 0.8}), ("+valley<=0.7", {"valley": 0.7})]
    print(f"{'sample':24} {'n':>3} " + " ".join(f"{name:>13}" for name, _ in rules))
    for name, draw in samples.items():
        for n in (5, 8, 20, 60):
            rates = [np.mean([two_regimes(draw(n), **kw) for _ in range(400)]) for _, kw in rules]
            print(f"{name:24} {n:>3} " + " ".join(f"{r:>13.2f}" for r in rates))


if __name__ == "__main__":
    main()
