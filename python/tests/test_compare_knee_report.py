"""compare(), knee() and report(): what the CLI's commands give, from runs held in Python."""
import csv
import json
import os

import pytest

import servestat


def test_compare_gives_the_document_of_compare_json(cli, logs):
    before, after = logs[0], logs[3]
    got = servestat.compare(servestat.read(before), servestat.read(after), resamples=500, seed=11)
    want = cli("compare", "--json", "--resamples", "500", "--seed", "11", before, after)
    assert got == json.loads(want)
    changes = {c["name"]: c for c in got["pairs"][0]["changes"]}
    p50 = changes["e2e.p50"]  # about 200 successful requests a side: p50 is tested (p99 rests on too few)
    assert p50["n_before"] > 150 and p50["n_after"] > 150 and p50["p_value"] is not None
    assert p50["ci"]["low"] <= p50["change"] <= p50["ci"]["high"]


def test_compare_writes_the_clis_report_files(cli, logs, tmp_path):
    servestat.compare(logs[0], logs[1], resamples=300, out_dir=tmp_path / "py", formats=["md", "json"])
    cli("compare", "--resamples", "300", "-o", tmp_path / "cli", "--format", "md,json", logs[0], logs[1])
    for name in ["compare.md", "compare.json"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_compare_refuses_bad_options_as_the_cli_does(logs):
    with pytest.raises(servestat.UsageError, match="--noise '150'"):
        servestat.compare(logs[0], logs[1], noise="150")


def test_knee_is_the_knee_command_on_the_same_curve(cli, tmp_path):
    x = [1, 2, 4, 8, 16, 32, 64, 128]
    y = [10.0, 19.5, 37.0, 66.0, 98.0, 112.0, 116.0, 117.5]
    path = tmp_path / "curve.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["x", "y"])
        writer.writerows(zip(x, y))
    got = servestat.knee(x, y, curve="concave", direction="increasing")
    assert got == json.loads(cli("knee", "--json", "--curve", "concave", "--direction", "increasing", path))
    # By hand: normalised, y - x is 0, .0805, .2275, .4658, .7005, .7047, .4900, 0; its maximum is at x = 32,
    # and the next value (.4900) falls below the threshold .7047 - mean(diff(x normalised)) = .5619.
    assert got["knee"] == 32 and got["knee_y"] == 112
    with pytest.raises(servestat.UsageError, match="x has 2 values and y 3"):
        servestat.knee([1, 2], [1, 2, 3])


def test_report_writes_what_the_report_command_writes(cli, logs, tmp_path):
    runs = servestat.read(os.path.dirname(logs[0]))
    written = servestat.report(runs, tmp_path / "py", title="Mixes")
    cli("report", "--title", "Mixes", "-o", tmp_path / "cli", os.path.dirname(logs[0]))
    assert [os.path.basename(p) for p in written] == ["report.md", "report.html", "report.json"]
    for name in ["report.md", "report.html", "report.json"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert sorted(os.listdir(tmp_path / "py" / "plots")) == sorted(os.listdir(tmp_path / "cli" / "plots"))
