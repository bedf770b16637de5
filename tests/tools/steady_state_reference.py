#!/usr/bin/python3
"""Reference values of tests/test_steady_state.cpp, written independently of the C++ code: MSER-5 by
its definition (every candidate d evaluated directly, no running sums) and requests in flight by
brute force over all pairs. Run it and paste what it prints into the test:

    /usr/bin/python3 tests/tools/steady_state_reference.py
"""
import numpy as np


def mser(x, m=5):
    """MSER-m: the number of leading observations to drop (White 1997; batches of m, d <= k/2)."""
    k = len(x) // m
    if k < 2:
        return 0, []
    z = np.asarray(x[: k * m], dtype=np.float64).reshape(k, m).mean(axis=1)
    stats = [float(((z[d:] - z[d:].mean()) ** 2).sum() / (k - d) ** 2) for d in range(k // 2 + 1)]
    return int(np.argmin(stats)) * m, stats  # argmin takes the first of equal minima


def closed_loop(concurrency, n):
    """The test's synthetic closed loop: the first wave 1 ms apart, then each request sent the moment
    a slot frees (the lowest slot among equal times), lasting 1.0 + 0.1 * ((7 i) mod 5) s."""
    free = [j * 0.001 for j in range(concurrency)]
    sent, end = [], []
    for i in range(n):
        slot = min(range(concurrency), key=lambda j: (free[j], j))
        s = free[slot]
        e = s + (1.0 + 0.1 * ((i * 7) % 5))
        free[slot] = e
        sent.append(s)
        end.append(e)
    return np.array(sent), np.array(end)


def in_flight_series(sent, end):
    order = np.argsort(sent, kind="stable")
    out = []
    for i in order:
        others = np.arange(len(sent)) != i
        at_send = np.sum(others & (sent <= sent[i]) & (end > sent[i])) + 1
        at_end = np.sum(others & (sent <= end[i]) & (end > end[i])) + 1
        out.append(min(at_send, at_end))
    return np.array(out, dtype=np.float64), sent[order]


def trim_both_ends(x):
    n, a, b = len(x), 0, 0
    while True:
        a2 = a + mser(x[a : n - b])[0]
        b2 = b + mser(x[a2 : n - b][::-1])[0]
        if (a2, b2) == (a, b):
            return a, b
        a, b = a2, b2


def window(concurrency, n):
    sent, end = closed_loop(concurrency, n)
    x, sent_sorted = in_flight_series(sent, end)
    a, b = trim_both_ends(x)
    start, stop = sent_sorted[a], sent_sorted[n - 1 - b]
    inside = int(np.sum((sent >= start) & (sent <= stop)))
    return start, stop, int(np.sum(sent < start)), int(np.sum(sent > stop)), inside


if __name__ == "__main__":
    series = [9.0, 7.5, 8.0, 6.5, 7.0, 5.0, 6.0, 4.5, 5.5, 4.0, 3.0, 2.5, 3.5, 2.0, 3.0,
              2.5, 3.0, 2.0, 3.5, 3.0, 2.0, 3.0, 2.5, 3.5, 2.5, 3.0, 2.0, 2.5, 3.5, 3.0, 99.0, 99.0]
    d, stats = mser(series)
    print("hand series: d* =", d, "statistics by d:", [round(s, 6) for s in stats])
    print("linear trend 1..50: d* =", mser(list(range(1, 51)))[0])
    for c, n in ((8, 160), (1, 120)):
        start, stop, before, after, inside = window(c, n)
        print(f"closed loop c={c} n={n}: window {start!r} .. {stop!r}, {before} ramp-up, {after} drain, {inside} inside")
