#!/usr/bin/python3
"""Reconstructs, as canonical servestat logs, the two c=32 runs of Experiment 5 ("Fair sanity check")
of the vLLM tuning notebook (Qwen2.5-3B-Instruct, workload mix_50_50, 200 non-streaming requests,
max_tokens 16):

  BAD_unfair  --max-num-batched-tokens 8192 --long-prefill-token-threshold 1024 -> bad_unfair-c32.jsonl
  FAIR_768    --max-num-batched-tokens 768  --long-prefill-token-threshold 1024 -> fair_768-c32.jsonl

The notebook did not keep per-request rows: it printed only n, p50, p90, p99 (numpy linear) and mean
of latency_s (end-to-end latency of a non-streaming request, so there is no TTFT) for the whole run,
short prompts (<= 64 tokens) and long prompts (>= 2048 tokens). These files are therefore
reconstructions: 200 plausible latencies per run that reproduce every published statistic (24 numbers,
to 1e-9 relative, and the counts 200/108/92), laid out as a consistent closed-loop run of 32 workers.

How the latencies are made, per run and subset (108 short, 92 long):
  1. a smooth monotone quantile function (PCHIP through knots at p = 0, .1, .25, .5, .75, .9, .99, 1)
     whose p50/p90/p99 knots are the published values; it is sampled at seeded, jittered plotting
     positions so the spacing looks like a real sample rather than a grid;
  2. the five free knots of each subset (min, p10, p25, p75, max) are fitted (damped Gauss-Newton,
     pulled towards a hand-written prior shape) so that the merged 200 values also come close to the
     overall p50/p90/p99 and each subset to its mean;
  3. a minimum-norm correction then pins exactly the order statistics numpy's linear method reads
     (short ranks 53/54, 96/97, 105/106; long 45/46, 81/82, 90/91; merged 99/100, 179/180, 197/198)
     and the two subset means (the overall mean follows from them), re-deriving the merged order
     until it no longer changes.
Each request id (send order) then gets a latency by a seeded shuffle; a worker sends its next request
0.2-0.8 ms after its previous one ended (t_sched = when the worker became free). Prompt tokens: short
36-45 (the notebook's df.head shows 37-45), long 2048-4080 (prompt + 16 <= max_model_len 4096).
Before writing, the script reads its own JSON text back and checks all 24 numbers and the counts with
numpy (and FAIR's wall time, see RUNS); it exits non-zero if any check fails.

Regenerate with: /usr/bin/python3 examples/notebook-exp5/make_logs.py [OUTPUT_DIR]
(default OUTPUT_DIR: this script's folder). Needs only numpy.
"""
import json
import pathlib
import sys

import numpy as np

N_SHORT, N_LONG, CONCURRENCY = 108, 92, 32
SHORT_MAX, LONG_MIN = 64, 2048
MAX_MODEL_LEN, MAX_TOKENS = 4096, 16
QS = (0.50, 0.90, 0.99)
KNOT_P = (0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0)

# Copied from the notebook's compare_short_long() output: (n, p50, p90, p99, mean) per subset.
PUBLISHED = {
    "BAD_unfair": {
        "all": (200, 5.534205468999517, 10.461404818999926, 11.045583048669595, 6.076663721505029),
        "short": (108, 4.6954104774999905, 8.427761869799998, 10.15342957642024, 5.170086654425977),
        "long": (92, 7.038852010499795, 10.96015420079957, 11.058848744559482, 7.140906365467394),
    },
    "FAIR_768": {
        "all": (200, 6.04282219300012, 9.18175588419981, 11.05694531869025, 6.266493499729964),
        "short": (108, 5.629765399999542, 8.433177871999579, 10.081671103819572, 5.578912106185119),
        "long": (92, 7.1285672229996635, 9.995110139300506, 11.105451201459774, 7.073654266065215),
    },
}

# Hand-written starting shapes: free knots (min, p10, p25, p75, max) for short then long.
PRIOR_KNOTS = {
    "BAD_unfair": (2.6, 3.0, 3.6, 6.3, 10.4, 2.7, 3.6, 4.9, 10.1, 11.15),
    "FAIR_768": (2.8, 3.5, 4.4, 6.9, 10.3, 2.9, 4.0, 5.3, 8.8, 11.17),
}

# seed: the latencies; shuffle_seed: prompts, who gets which latency, send jitter. The notebook's
# progress bar printed "200/200 [00:41<00:00]" for FAIR, but its latencies alone keep 32 workers busy
# for 39.2 s and most shuffles end at 42-47 s: 5398 is the seed in 0..5999 with the shortest run
# (41.58 s). BAD's wall time was not printed for this run; 38 gives a comparable 41.45 s.
RUNS = [
    {"label": "BAD_unfair", "file": "bad_unfair-c32.jsonl", "seed": 20260112, "shuffle_seed": 38,
     "started_at": "2026-01-12T00:41:17Z", "max_num_batched_tokens": 8192, "wall_s": None},
    {"label": "FAIR_768", "file": "fair_768-c32.jsonl", "seed": 20260113, "shuffle_seed": 5398,
     "started_at": "2026-01-12T00:47:52Z", "max_num_batched_tokens": 768, "wall_s": (41.0, 42.0)},
]


def pchip(xk, yk, x):
    """Monotone cubic (Fritsch-Carlson, scipy's PchipInterpolator end conditions): no overshoot, so
    a quantile function through increasing knots stays increasing."""
    xk, yk = np.asarray(xk, float), np.asarray(yk, float)
    h, d = np.diff(xk), np.diff(yk) / np.diff(xk)
    m = np.zeros(len(xk))
    for k in range(1, len(xk) - 1):
        if d[k - 1] * d[k] > 0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])

    def edge(h0, h1, d0, d1):
        e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        if np.sign(e) != np.sign(d0):
            return 0.0
        if np.sign(d0) != np.sign(d1) and abs(e) > 3 * abs(d0):
            return 3 * d0
        return e

    m[0], m[-1] = edge(h[0], h[1], d[0], d[1]), edge(h[-1], h[-2], d[-1], d[-2])
    i = np.clip(np.searchsorted(xk, x, side="right") - 1, 0, len(xk) - 2)
    t = (x - xk[i]) / h[i]
    return ((2 * t**3 - 3 * t**2 + 1) * yk[i] + (t**3 - 2 * t**2 + t) * h[i] * m[i]
            + (-2 * t**3 + 3 * t**2) * yk[i + 1] + (t**3 - t**2) * h[i] * m[i + 1])


def plotting_positions(rng, n):
    """i/(n-1) jittered by up to a third of a step: monotone, but irregular like a real sample."""
    p = (np.arange(n) + rng.uniform(-1 / 3, 1 / 3, n)) / (n - 1)
    p[0], p[-1] = 0.0, 1.0
    return p


def sample_subset(free, published, positions):
    v_min, v10, v25, v75, v_max = free
    _, p50, p90, p99, _ = published
    return pchip(KNOT_P, [v_min, v10, v25, p50, v75, p90, p99, v_max], positions)


def sample_run(theta, pub, pos):
    return (sample_subset(theta[:5], pub["short"], pos[0]),
            sample_subset(theta[5:], pub["long"], pos[1]))


def misfit(theta, pub, pos):
    short, long = sample_run(theta, pub, pos)
    overall = np.quantile(np.concatenate([short, long]), QS) - np.array(pub["all"][1:4])
    return np.concatenate([overall, [short.mean() - pub["short"][4], long.mean() - pub["long"][4]]])


def fit_knots(prior, pub, pos, pull=1e-3, iterations=300):
    """Damped Gauss-Newton (Levenberg-Marquardt) on the free knots; `pull` keeps the shape near the
    prior, since 10 knots for 5 targets leave the fit underdetermined."""
    prior = np.asarray(prior, float)
    theta, damping = prior.copy(), 1e-2

    def cost(t):
        return np.sum(misfit(t, pub, pos) ** 2) + pull * np.sum((t - prior) ** 2)

    for _ in range(iterations):
        r = misfit(theta, pub, pos)
        jac = np.empty((len(r), len(theta)))
        for j in range(len(theta)):
            step = np.zeros_like(theta)
            step[j] = 1e-6
            jac[:, j] = (misfit(theta + step, pub, pos) - r) / 1e-6
        lhs = jac.T @ jac + (pull + damping) * np.eye(len(theta))
        candidate = theta - np.linalg.solve(lhs, jac.T @ r + pull * (theta - prior))
        if cost(candidate) < cost(theta):
            theta, damping = candidate, max(damping / 3, 1e-9)
        else:
            damping *= 4
    return theta


def quantile_row(indices, n_total, q):
    """Coefficients of numpy's linear quantile over the values at `indices` (sorted ascending)."""
    h = (len(indices) - 1) * q
    lo = int(np.floor(h))
    t = h - lo
    row = np.zeros(n_total)
    row[indices[lo]] += 1 - t
    if t > 0:
        row[indices[lo + 1]] += t
    return row


def pin_exactly(short, long, pub, rounds=50):
    """Minimum-norm change that makes the 9 percentiles and 2 subset means exact for the current
    merged order; repeated until the order (and so the ranks numpy reads) no longer changes."""
    values = np.concatenate([short, long])
    is_short = np.arange(len(values)) < len(short)
    for _ in range(rounds):
        rows, rhs = [], []
        for name, mask in (("all", np.ones_like(is_short)), ("short", is_short), ("long", ~is_short)):
            members = np.flatnonzero(mask)
            members = members[np.argsort(values[members], kind="stable")]
            for q, target in zip(QS, pub[name][1:4]):
                rows.append(quantile_row(members, len(values), q))
                rhs.append(target)
            if name != "all":  # the overall mean is implied by the two subset means
                rows.append(mask / mask.sum())
                rhs.append(pub[name][4])
        a, b = np.array(rows), np.array(rhs)
        values = values + np.linalg.lstsq(a, b - a @ values, rcond=None)[0]
        got, want = summary(values[is_short], values[~is_short], pub)
        if np.all(np.abs(got - want) <= 1e-14 * want):
            return values[is_short], values[~is_short]
    raise RuntimeError("percentile pinning did not converge")


def summary(short, long, pub):
    got, want = [], []
    for name, xs in (("all", np.concatenate([short, long])), ("short", short), ("long", long)):
        got += list(np.quantile(xs, QS)) + [np.mean(xs)]
        want += list(pub[name][1:5])
    return np.array(got), np.array(want)


def design_latencies(label, rng):
    pub = PUBLISHED[label]
    pos = (plotting_positions(rng, N_SHORT), plotting_positions(rng, N_LONG))
    theta = fit_knots(PRIOR_KNOTS[label], pub, pos)
    return pin_exactly(*sample_run(theta, pub, pos), pub)


def closed_loop(latencies, prompts, rng):
    """32 workers, each sending its next request 0.2-0.8 ms after its previous one ended."""
    free = np.zeros(CONCURRENCY)
    rows = []
    for lat, prompt in zip(latencies, prompts):
        w = int(np.argmin(free))
        t_sched = float(free[w])
        t_sent = t_sched + float(rng.uniform(0.0002, 0.0008))
        t_end = t_sent + float(lat)
        free[w] = t_end
        rows.append({"id": None, "t_sched": t_sched, "t_sent": t_sent, "t_end": t_end,
                     "prompt_tokens": int(prompt), "output_tokens": MAX_TOKENS,
                     "max_tokens": MAX_TOKENS, "status": "ok", "http_status": 200})
    # ids count sends; workers freed at the same moment (the first 32) send in jitter order
    for i, row in enumerate(sorted(rows, key=lambda r: r["t_sent"])):
        row["id"] = str(i)
    rows.sort(key=lambda r: r["t_end"])  # logs are written as requests complete
    return rows


def header(run):
    params = {"concurrency": CONCURRENCY, "total_requests": N_SHORT + N_LONG,
              "max_num_batched_tokens": run["max_num_batched_tokens"],
              "long_prefill_token_threshold": 1024, "max_model_len": MAX_MODEL_LEN,
              "enforce_eager": True, "dtype": "half", "gpu_memory_utilization": 0.70,
              "stream": False}
    return {"servestat": "log", "version": 1,
            "run": {"label": run["label"], "started_at": run["started_at"],
                    "model": "Qwen/Qwen2.5-3B-Instruct", "workload": "mix_50_50",
                    "params": params, "tool": "notebook reconstruction"}}


def build_log(run):
    short, long = design_latencies(run["label"], np.random.default_rng(run["seed"]))
    rng = np.random.default_rng(run["shuffle_seed"])
    latencies = np.concatenate([short, long])
    prompts = np.concatenate([rng.integers(36, 46, N_SHORT),  # the notebook's shorts: 37-45 tokens
                              rng.integers(LONG_MIN, MAX_MODEL_LEN - MAX_TOKENS + 1, N_LONG)])
    order = rng.permutation(len(latencies))
    rows = closed_loop(latencies[order], prompts[order], rng)
    lines = [json.dumps(header(run), separators=(",", ":"))]
    lines += [json.dumps(r, separators=(",", ":")) for r in rows]  # floats as repr: exact
    return "\n".join(lines) + "\n"


def check(text, run):
    """Reads the log text back and compares it with the notebook; returns a list of problems."""
    label = run["label"]
    pub = PUBLISHED[label]
    reqs = [json.loads(line) for line in text.splitlines()[1:]]
    ok = [r for r in reqs if r["status"] == "ok"]
    e2e = np.array([r["t_end"] - r["t_sent"] for r in ok])
    tokens = np.array([r["prompt_tokens"] for r in ok])
    problems = []
    subsets = (("all", np.ones(len(ok), bool)), ("short", tokens <= SHORT_MAX),
               ("long", tokens >= LONG_MIN))
    for name, mask in subsets:
        xs = e2e[mask]
        if len(xs) != pub[name][0]:
            problems.append(f"{label} {name}: n {len(xs)} != {pub[name][0]}")
            continue
        got = list(np.quantile(xs, QS)) + [np.mean(xs)]
        for stat, g, w in zip(("p50", "p90", "p99", "mean"), got, pub[name][1:5]):
            if abs(g - w) > 1e-9 * abs(w):
                problems.append(f"{label} {name} {stat}: {g!r} != {w!r}")
    in_flight = max(sum(1 for o in reqs if o["t_sent"] <= r["t_sent"] < o["t_end"]) for r in reqs)
    if in_flight > CONCURRENCY:
        problems.append(f"{label}: {in_flight} requests in flight > {CONCURRENCY}")
    if not (2.4 < e2e.min() and e2e.max() < 11.25):
        problems.append(f"{label}: latencies span {e2e.min()}..{e2e.max()}")
    duration = max(r["t_end"] for r in reqs) - min(r["t_sent"] for r in reqs)
    if run["wall_s"] and not run["wall_s"][0] <= duration < run["wall_s"][1]:
        problems.append(f"{label}: lasts {duration} s, the notebook's progress bar says {run['wall_s']}")
    return problems


def main():
    out_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent
    texts, problems = {}, []
    for run in RUNS:
        texts[run["file"]] = build_log(run)
        problems += check(texts[run["file"]], run)
    if problems:
        sys.exit("not written:\n  " + "\n  ".join(problems))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (out_dir / name).write_text(text)
        print(f"wrote {out_dir / name}: 24 statistics match the notebook to 1e-9 relative")


if __name__ == "__main__":
    main()
