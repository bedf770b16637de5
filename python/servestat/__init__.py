"""servestat for Python: statistics and reports for LLM-serving load tests.

    import servestat
    run = servestat.read("run.jsonl")          # any log servestat reads (docs/formats.md)
    stats = run.stats(percentiles=[50, 99])     # the document of `servestat stats --json`, as dicts
    stats.to_pandas()                           # one row per run, subset and metric

The numbers come from the same C++ headers as the command-line tool, so they are the CLI's to the last
bit. Errors in a log raise InputError (a ValueError) whose message and attributes name the file, line
and field; a bad argument raises UsageError (a ValueError); a missing file FileNotFoundError.
"""
import errno
import glob
import json
import os

from . import _servestat as _core
from ._servestat import InputError, UsageError

__all__ = ["read", "from_arrays", "Run", "Runs", "Stats", "compare", "knee", "report", "summarize", "Summary",
           "InputError", "UsageError"]

_DEFAULT_PERCENTILES = (50, 90, 95, 99)


class Stats(dict):
    """The JSON export of `servestat stats --json` (docs/json-export.md) as Python dicts."""

    def __init__(self, text):
        super().__init__(json.loads(text))
        self.text = text  # the document as the CLI prints it, byte for byte

    def to_pandas(self):
        """One row per run, subset and metric: n, mean, std, cov, min, the percentiles and max (seconds).
        Each interval ([low, high] in the JSON: mean_ci, p99_ci, ...) becomes two columns, mean_ci_low and
        mean_ci_high, None where the JSON has null (a percentile too few values bound)."""
        import pandas
        rows = []
        for run in self["runs"]:
            for subset, body in run.get("subsets", {}).items():
                for metric, values in body["metrics"].items():
                    row = {"run": run["label"], "subset": subset, "metric": metric}
                    for key, value in values.items():
                        if key.endswith("_ci"):
                            row[key + "_low"], row[key + "_high"] = value if value is not None else (None, None)
                        else:
                            row[key] = value
                    rows.append(row)
        return pandas.DataFrame(rows)


def _paths(path_or_paths):
    paths = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    paths = [os.fspath(p) for p in paths]
    for p in paths:
        if p != "-" and not glob.has_magic(p) and not os.path.exists(p):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), p)
    return paths


def _listed(text_or_list):
    if text_or_list is None:
        return ""
    if isinstance(text_or_list, str):
        return text_or_list
    if isinstance(text_or_list, dict):
        return ",".join(f"{k}={v}" for k, v in text_or_list.items())
    return ",".join(text_or_list)


def _buckets(buckets):
    if buckets is None:
        return []
    if isinstance(buckets, dict):
        return [f"{name}={lo}:{hi}" for name, (lo, hi) in buckets.items()]
    return list(buckets)


def _pairs(mapping):
    """{"request_rate": "_([0-9.]+)$"} as the CLI's NAME=VALUE arguments; a list of such strings as it is."""
    if mapping is None:
        return []
    if isinstance(mapping, dict):
        return [f"{name}={value}" for name, value in mapping.items()]
    return [mapping] if isinstance(mapping, str) else list(mapping)


def _options(percentiles=_DEFAULT_PERCENTILES, method="linear", ddof=1, slo=None, buckets=None, short_max=64,
             long_min=2048, sweep_by=None, threads=0, confidence=0.95, factor=None, role=None, cost_per_hour=None,
             gpus=None, power_metric=None):
    """The options every analysis takes, as the CLI's flags name them (docs/cli.md); confidence is the level
    of each percentile's interval (order statistics) and each mean's (Student's t). factor and role correct
    how the runs were read (docs/sweeps.md#how-runs-are-read): {"name": "regex"} and {"name": "load"}.
    cost_per_hour (with gpus) prices the tokens, power_metric names the power gauge (docs/metrics.md)."""
    return _core.AnalysisOptions(list(percentiles), method, ddof, short_max, long_min, _buckets(buckets),
                                 _listed(slo), sweep_by or "", threads, confidence, _pairs(factor), _pairs(role),
                                 cost_per_hour, gpus, power_metric or "")


class Run:
    """One run: its requests, kept in C++ (columns, not Python objects)."""

    def __init__(self, core):
        self._core = core

    label = property(lambda self: self._core.label)
    path = property(lambda self: self._core.path)
    format = property(lambda self: self._core.format)
    requests = property(lambda self: self._core.requests, doc="number of requests")
    skipped = property(lambda self: self._core.skipped, doc="bad lines skipped (skip_bad=True)")
    notes = property(lambda self: self._core.notes)

    def stats(self, **options):
        """Statistics per subset and metric; keyword arguments as _options (percentiles, method, slo, buckets, ...)."""
        return Runs([self], getattr(self, "_listings", None)).stats(**options)

    def __repr__(self):
        return f"<servestat.Run {self.label!r}: {self.requests} requests from {self.path} ({self.format})>"


def _listings_of(items):
    """What the directories read held besides these runs (files passed over), as read() found it."""
    return getattr(items, "_listings", None) or _core.Listings()


class Runs(list):
    """Several runs (a sweep, a directory): stats() finds the sweeps and grids among them as the CLI does."""

    def __init__(self, runs=(), listings=None):
        super().__init__(runs)
        self._listings = listings

    def stats(self, **options):
        return Stats(_core.stats_json([_as_core(r) for r in self], _options(**options), _listings_of(self)))

    def __repr__(self):
        return f"<servestat.Runs: {len(self)} runs>"


class Summary:
    """Mergeable statistics of a run's shards (`servestat summarize`, docs/json-export.md): exact counts,
    sums, min, max and moments, and percentiles from sketches within sketch_alpha of the exact value."""

    def __init__(self, core):
        self._core = core

    label = property(lambda self: self._core.label)
    requests = property(lambda self: self._core.requests)
    sketch_alpha = property(lambda self: self._core.sketch_alpha)

    def merge(self, other):
        """The summary of both shards (a new Summary); associative and commutative."""
        return Summary(self._core.merged(other._core))

    def to_json(self):
        """The text of a .ssum.json file, which `servestat stats/report/compare` read."""
        return self._core.to_json()

    @classmethod
    def from_json(cls, text, name="<summary>"):
        return cls(_core.summary_from_json(text, name))

    def stats(self, **options):
        """Statistics as stats() gives them, percentiles read from the sketches (a note says so)."""
        return Stats(_core.stats_json([self._core], _options(**options)))

    # Summaries travel between processes (Dask, multiprocessing) as their JSON text.
    def __getstate__(self):
        return self.to_json()

    def __setstate__(self, text):
        self._core = _core.summary_from_json(text, "<summary>")

    def __repr__(self):
        return f"<servestat.Summary {self.label!r}: {self.requests} requests, sketch alpha {self.sketch_alpha:g}>"


def _as_core(item):
    if isinstance(item, (Run, Summary)):
        return item._core
    raise TypeError(f"expected a servestat Run or Summary, got {type(item).__name__}")


def read(path_or_paths, input_format=None, map=None, ok_if=None, skip_bad=False, threads=0):
    """Reads logs, directories or glob patterns: a Run when they hold one run, else Runs.

    input_format forces a reader (docs/formats.md); map reads any CSV/JSON/JSONL by naming its fields,
    e.g. "ttft=TTFT:ms,e2e=latency:s" (with ok_if, which requests succeeded), as the CLI's --map."""
    core_runs, listings = _core.read(_paths(path_or_paths), input_format or "", map or "", ok_if or "", skip_bad, threads)
    runs = Runs((Run(r) for r in core_runs), listings)
    if len(runs) == 1:
        runs[0]._listings = listings
        return runs[0]
    return runs


def from_arrays(data=None, *, ttft=None, e2e=None, prompt_tokens=None, output_tokens=None, t_sent=None, status=None,
                error=None, label="arrays"):
    """A Run from columns: numpy arrays (float64 arrays are read in place, others converted), sequences, or a
    pandas DataFrame `data` with columns of those names. Seconds for ttft, e2e and t_sent (any origin: 0
    becomes the earliest t_sent; without t_sent there is no clock, so no rates); NaN for a missing value.
    status: "ok", "error", "timeout", "transport" or "cancelled" per request, or booleans (True = ok)."""
    import numpy
    columns = {"ttft": ttft, "e2e": e2e, "prompt_tokens": prompt_tokens, "output_tokens": output_tokens,
               "t_sent": t_sent, "status": status, "error": error}
    if data is not None:
        for name in columns:
            if columns[name] is None and name in data:
                columns[name] = data[name]

    def floats(values):
        if values is None:
            return None
        if hasattr(values, "to_numpy"):  # pandas: nullable integers become NaN where missing
            values = values.to_numpy(dtype="float64", na_value=numpy.nan)
        return numpy.asarray(values, dtype="float64")

    def texts(values, name):
        if values is None:
            return None
        values = list(values.tolist() if hasattr(values, "tolist") else values)
        if name == "status" and values and all(isinstance(v, (bool, numpy.bool_)) for v in values):
            return ["ok" if v else "error" for v in values]
        return ["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in values]

    return Run(_core.from_arrays(floats(columns["ttft"]), floats(columns["e2e"]), floats(columns["t_sent"]),
                                 floats(columns["prompt_tokens"]), floats(columns["output_tokens"]),
                                 texts(columns["status"], "status"), texts(columns["error"], "error"), label))


def _runs(side):
    if isinstance(side, Run):
        return [side._core]
    if isinstance(side, (str, os.PathLike)):
        side = read(side)
        return [side._core] if isinstance(side, Run) else [r._core for r in side]
    return [_as_core(r) for r in side]


def compare(before, after, *, percentiles=(50, 90, 99), method="linear", noise="2%", alpha=0.05, confidence=0.95,
            resamples=2000, seed=None, metrics=None, out_dir=None, formats=("md", "html", "json"),
            title="Before / after comparison", slo=None, buckets=None, short_max=64, long_min=2048, sweep_by=None,
            threads=0, cost_per_hour=None, gpus=None, power_metric=None):
    """Before/after: per statistic the change, its bootstrap interval, the Mann-Whitney p and a verdict; the
    document of `servestat compare --json`. before/after: a Run, Runs or a path. With out_dir, also writes
    compare.md/.html/.json and plots there."""
    options = _options(percentiles, method, 1, slo, buckets, short_max, long_min, sweep_by, threads, confidence,
                       cost_per_hour=cost_per_hour, gpus=gpus, power_metric=power_metric)
    extra = _core.CompareOptions(str(noise), alpha, confidence, resamples,
                                 _core.default_seed if seed is None else seed, list(metrics or []),
                                 os.fspath(out_dir) if out_dir else "", list(formats), title)
    return json.loads(_core.compare_json(_runs(before), _runs(after), options, extra))


def knee(x, y, *, curve=None, direction=None, S=1.0, online=False, all_knees=False, interp="interp1d", degree=7):
    """Kneedle's knee of y over x with kneed 0.8's semantics (docs/knee.md): the dict of `servestat knee --json`."""
    return json.loads(_core.knee_json([float(v) for v in x], [float(v) for v in y], curve or "", direction or "",
                                      S, online, all_knees, interp, degree))


def report(runs, out_dir, *, formats=("md", "html", "json"), title="Load test report", **options):
    """Writes report.md, report.html, report.json and plots/ into out_dir, as `servestat report` does.
    runs: a Run, a Summary, or a list of them; a path reads it first."""
    if isinstance(runs, (str, os.PathLike)):
        runs = read(runs)
    items = [runs] if isinstance(runs, (Run, Summary)) else list(runs)
    _core.report([_as_core(r) for r in items], os.fspath(out_dir), list(formats), title, _options(**options),
                 _listings_of(runs))
    return [os.path.join(os.fspath(out_dir), f"report.{f}") for f in formats]


def summarize(inputs, *, sketch_alpha=None, slo=None, buckets=None, short_max=64, long_min=2048, input_format=None,
              map=None, ok_if=None, skip_bad=False):
    """The Summary of one run's shards: paths (logs or .ssum.json files) and Runs, merged in order."""
    items = [inputs] if isinstance(inputs, (str, os.PathLike, Run)) else list(inputs)
    items = [i._core if isinstance(i, Run) else _paths(i)[0] for i in items]
    options = _options(_DEFAULT_PERCENTILES, "linear", 1, slo, buckets, short_max, long_min)
    return Summary(_core.summarize(items, _core.default_sketch_alpha if sketch_alpha is None else sketch_alpha,
                                   options, input_format or "", map or "", ok_if or "", skip_bad))
