"""read() and stats(): the CLI's JSON byte for byte, and numpy's and pandas's numbers."""
import json
import math
import os
import threading

import numpy
import pandas
import pytest

import servestat
from conftest import SHARED, SOURCE

NUMPY_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
                 "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                 "normal_unbiased"]


def test_a_log_reads_as_one_run_with_the_clis_statistics_byte_for_byte(cli, logs):
    for log in logs:
        run = servestat.read(log)
        assert isinstance(run, servestat.Run)
        assert run.requests == 200 and run.format == "servestat"
        assert run.stats().text == cli("stats", "--json", "-j", "1", log)


def test_options_reach_the_statistics_as_the_clis_flags_do(cli, logs):
    got = servestat.read(logs[0]).stats(percentiles=[50, 99.9], method="hazen", ddof=0, slo={"ttft": 0.5, "e2e": 10},
                                        buckets={"tiny": (0, 16)}, short_max=32, long_min=1024)
    want = cli("stats", "--json", "--percentiles", "50,99.9", "--method", "hazen", "--ddof", "0", "--slo",
               "ttft=0.5,e2e=10", "--bucket", "tiny=0:16", "--short-max", "32", "--long-min", "1024", logs[0])
    assert got.text == want
    # The price and the power gauge reach the cost and the energy as --cost-per-hour, --gpus and --power-metric.
    priced = servestat.read(logs[0]).stats(cost_per_hour=3.6, gpus=2, power_metric="my_gpu_watts")
    assert priced.text == cli("stats", "--json", "--cost-per-hour", "3.6", "--gpus", "2", "--power-metric", "my_gpu_watts",
                              logs[0])
    run = json.loads(priced.text)["runs"][0]
    assert run["cost"]["deployment_per_hour"] == 7.2
    assert run["energy"]["why"].startswith("--power-metric my_gpu_watts: ")


def test_a_directory_reads_as_runs_whose_sweeps_are_found_as_the_cli_finds_them(cli):
    folder = os.path.join(SHARED, "llmperf-sglang-sweep-hongxuanzhang", "result_outputs")
    runs = servestat.read(folder)
    assert isinstance(runs, servestat.Runs) and len(runs) > 3
    assert runs.stats().text == cli("stats", "--json", folder)


def test_factor_and_role_correct_the_reading_as_the_clis_flags_do(cli):
    folder = os.path.join(SOURCE, "tests", "corpus", "lmbench-llm-d-k8s-8b-lmcache")
    runs = servestat.read(folder)
    got = runs.stats(factor={"rate": "_([0-9.]+)$"}, role={"rate": "ignore"})
    assert got.text == cli("stats", "--json", "--factor", "rate=_([0-9.]+)$", "--role", "rate=ignore", folder)
    design = json.loads(got.text)["design"]
    assert "--factor rate=_([0-9.]+)$" in design["user"] and "--role rate=ignore" in design["user"]
    with pytest.raises(servestat.UsageError, match="no factor 'nothing'"):
        runs.stats(role={"nothing": "load"})


def test_the_peers_logs_read_through_the_same_readers(cli):
    for path in ["guidellm-danielkorat/guidellm_results/20260302_1917", "aiperf-example/run1", "burstgpt-replay-vllm-liao4s/detail_log"]:
        folder = os.path.join(SHARED, path)
        assert servestat.read(folder).stats().text == cli("stats", "--json", folder), path


def successful_metrics(log):
    """ttft and e2e of the successful requests: the difference of the two times as Python parses them
    (correctly rounded; pandas.read_json's default parser is not, precise_float=False)."""
    ttft, e2e = [], []
    with open(log) as f:
        next(f)  # the run's header
        for r in map(json.loads, f):
            if r["status"] == "ok":
                ttft.append(r["t_first"] - r["t_sent"])
                e2e.append(r["t_end"] - r["t_sent"])
    return {"ttft": numpy.array(ttft), "e2e": numpy.array(e2e)}


def test_the_numbers_are_numpys_and_pythons(logs):
    for log in logs:
        want = successful_metrics(log)
        frame = pandas.read_json(log, lines=True).iloc[1:]
        for method in ["linear", "hazen", "inverted_cdf"]:
            got = servestat.read(log).stats(percentiles=[1, 50, 90, 99], method=method)["runs"][0]
            assert got["requests"] == len(frame) and got["ok"] == (frame["status"] == "ok").sum()
            for metric, values in want.items():
                stats = got["subsets"]["all"]["metrics"][metric]
                assert stats["n"] == len(values)
                assert stats["min"] == values.min() and stats["max"] == values.max()
                assert stats["mean"] == pytest.approx(math.fsum(values) / len(values), rel=1e-15)
                assert stats["std"] == pytest.approx(numpy.std(values, ddof=1), rel=1e-12)
                for p in [1, 50, 90, 99]:
                    reference = numpy.percentile(values, p, method=method)
                    assert stats[f"p{p}"] == pytest.approx(reference, rel=1e-9), (log, method, metric, p)


def test_to_pandas_is_one_row_per_run_subset_and_metric(logs):
    stats = servestat.read(logs[0]).stats()
    frame = stats.to_pandas()
    run = stats["runs"][0]
    assert len(frame) == sum(len(s["metrics"]) for s in run["subsets"].values())
    row = frame[(frame["subset"] == "short") & (frame["metric"] == "ttft")].iloc[0]
    assert row["p99"] == run["subsets"]["short"]["metrics"]["ttft"]["p99"]
    assert row["run"] == run["label"]


def interval_ranks(n, percent, confidence_percent):
    """0-based ranks of a percentile's interval from the binomial sums in exact integers (math.comb), or None."""
    total, cdf, lower, upper = 100 ** n, 0, None, None
    for k in range(n):
        cdf += math.comb(n, k) * percent ** k * (100 - percent) ** (n - k)
        if cdf * 200 <= (100 - confidence_percent) * total:
            lower = k + 1
        if cdf * 200 >= (100 + confidence_percent) * total:
            upper = k + 1
            break
    return None if lower is None or upper is None else (lower - 1, upper - 1)


def test_every_percentile_and_mean_carries_its_interval_at_the_confidence_asked():
    rng = numpy.random.default_rng(38)
    e2e = rng.lognormal(0, 0.7, 400)
    run = servestat.from_arrays(ttft=e2e / 4, e2e=e2e, prompt_tokens=rng.integers(1, 4000, 400))
    ordered = numpy.sort(e2e)
    for confidence in (0.95, 0.9):
        stats = run.stats(confidence=confidence)
        got = stats["runs"][0]["subsets"]["all"]["metrics"]["e2e"]
        assert stats["options"]["confidence"] == confidence
        for p in (50, 90, 95, 99):
            r = interval_ranks(400, p, round(confidence * 100))
            assert got[f"p{p}_ci"] == (None if r is None else [ordered[r[0]], ordered[r[1]]]), (confidence, p)
        frame = stats.to_pandas()
        row = frame[(frame["subset"] == "all") & (frame["metric"] == "e2e")].iloc[0]
        assert [row["mean_ci_low"], row["mean_ci_high"]] == got["mean_ci"]
    # t_{0.975, 399} lies between t_{0.975, 1000} = 1.962339 and t_{0.975, 120} = 1.979930 (published table).
    got = run.stats()["runs"][0]["subsets"]["all"]["metrics"]["e2e"]
    t = (got["mean_ci"][1] - got["mean"]) / (numpy.std(e2e, ddof=1) / math.sqrt(400))
    assert 1.962339 < t < 1.979930
    with pytest.raises(servestat.UsageError, match="--confidence"):
        run.stats(confidence=1.0)


def test_from_arrays_gives_numpys_percentiles_for_every_method():
    rng = numpy.random.default_rng(7)
    ttft = rng.lognormal(-2, 0.7, 5000)
    e2e = ttft + rng.gamma(2.0, 1.5, 5000)
    run = servestat.from_arrays(ttft=ttft, e2e=e2e, prompt_tokens=rng.integers(1, 4000, 5000))
    assert run.requests == 5000
    for method in NUMPY_METHODS:
        got = run.stats(percentiles=[0.1, 25, 50, 95, 99.99], method=method)["runs"][0]["subsets"]["all"]["metrics"]
        for name, values in [("ttft", ttft), ("e2e", e2e)]:
            for p in [0.1, 25, 50, 95, 99.99]:
                assert got[name][f"p{p:g}"] == pytest.approx(
                    numpy.percentile(values, p, method=method), rel=1e-9), (method, name, p)
            assert got[name]["min"] == values.min() and got[name]["max"] == values.max()
            assert got[name]["mean"] == pytest.approx(math.fsum(values) / len(values), rel=1e-15)


def test_from_arrays_takes_a_dataframe_with_statuses_and_a_clock():
    frame = pandas.DataFrame({"t_sent": [1.7e9 + 0.5, 1.7e9, 1.7e9 + 1.0, 1.7e9 + 1.5],
                              "ttft": [0.25, 0.5, float("nan"), 0.125],
                              "e2e": [1.0, 2.0, float("nan"), 0.5],
                              "output_tokens": pandas.array([10, 20, None, 5], dtype="Int64"),
                              "status": ["ok", "ok", "error", "ok"]})
    run = servestat.from_arrays(frame)
    stats = run.stats(percentiles=[50])["runs"][0]
    assert stats["requests"] == 4 and stats["ok"] == 3 and stats["failed"] == 1
    assert stats["subsets"]["all"]["metrics"]["ttft"]["p50"] == 0.25
    # 0 is the earliest send (1.7e9); the last request ends at 1.5 + 0.5 = 2.0 s.
    assert stats["duration"] == 2.0
    assert servestat.from_arrays(ttft=[0.1], e2e=[0.2], status=[False]).stats()["runs"][0]["failed"] == 1


def test_from_arrays_refuses_what_it_cannot_use_naming_the_array_and_row():
    with pytest.raises(servestat.UsageError, match="ttft has 2 values and e2e 3"):
        servestat.from_arrays(ttft=[0.1, 0.2], e2e=[1, 2, 3])
    with pytest.raises(ValueError, match="needs e2e"):
        servestat.from_arrays(ttft=[0.1])
    with pytest.raises(servestat.UsageError, match="e2e is empty"):
        servestat.from_arrays(e2e=[])
    with pytest.raises(servestat.UsageError, match="ttft has 2 dimensions"):
        servestat.from_arrays(e2e=[1.0, 2.0], ttft=numpy.ones((2, 1)))
    with pytest.raises(servestat.InputError, match=r"row 1 \(counted from 0\): 3 s is larger than e2e") as caught:
        servestat.from_arrays(ttft=[0.1, 3.0], e2e=[1.0, 2.0])
    assert caught.value.field == "ttft"
    with pytest.raises(servestat.InputError, match="'fine' is not a status"):
        servestat.from_arrays(e2e=[1.0], status=["fine"])
    with pytest.raises(servestat.InputError, match="not a token count"):
        servestat.from_arrays(e2e=[1.0], prompt_tokens=[2.5])


def test_bad_input_raises_with_file_line_and_field(tmp_path, logs):
    with pytest.raises(FileNotFoundError):
        servestat.read(tmp_path / "missing.jsonl")
    with pytest.raises(servestat.UsageError, match="unknown input format 'nope'"):
        servestat.read(logs[0], input_format="nope")
    lines = open(logs[0]).read().splitlines()
    lines[5] = lines[5].replace('"t_end":', '"t_end":"soon","x":')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(servestat.InputError) as caught:
        servestat.read(bad)
    assert caught.value.file == str(bad) and caught.value.line == 6 and caught.value.field == "t_end"
    assert f"{bad}:6:" in str(caught.value)
    run = servestat.read(bad, skip_bad=True)
    assert run.requests == 199 and run.skipped == 1


def test_the_gil_is_released_while_a_log_is_read_and_analysed(tmp_path, logs):
    lines = open(logs[0]).read().splitlines()
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join([lines[0]] + lines[1:] * 300) + "\n")  # 60,000 requests, 128 chunk gaps each
    ticks, done = [0], threading.Event()

    def tick():
        while not done.is_set():
            ticks[0] += 1
    other = threading.Thread(target=tick)
    other.start()
    try:
        # Around the C++ calls alone: holding the GIL, they would leave the other thread at most the
        # one switch interval (5 ms, some 10^4 ticks) it may hold when a call begins.
        before = ticks[0]
        runs, listings = servestat._core.read([str(big)], "", "", "", False, 1)
        servestat._core.stats_json(runs, servestat._options(threads=1), listings)
        during = ticks[0] - before
    finally:
        done.set()
        other.join()
    assert during > 200_000, during
