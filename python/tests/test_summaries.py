"""summarize(), Summary.merge/to_json/from_json: the files of `servestat summarize`, merged in any order."""
import pickle
import random

import pytest

import servestat


def shards_of(log, tmp_path, count):
    """The log's requests dealt round-robin into `count` logs, each with the log's header."""
    header, *requests = open(log).read().splitlines()
    paths = []
    for k in range(count):
        path = tmp_path / f"shard-{k:02}.jsonl"
        path.write_text("\n".join([header] + requests[k::count]) + "\n")
        paths.append(path)
    return paths


def test_a_summary_is_the_file_summarize_writes(cli, logs, tmp_path):
    shards = shards_of(logs[0], tmp_path, 4)
    cli("summarize", "-o", tmp_path / "cli.ssum.json", *shards)
    assert servestat.summarize(shards).to_json() == (tmp_path / "cli.ssum.json").read_text()
    # and a run in memory summarises as its log does
    assert servestat.summarize(servestat.read(logs[0])).to_json() == servestat.summarize(logs[0]).to_json()


def test_merging_in_any_order_and_grouping_gives_the_same_summary(logs, tmp_path):
    parts = [servestat.summarize(p) for p in shards_of(logs[1], tmp_path, 20)]
    whole = servestat.summarize(logs[1]).stats(percentiles=[50, 90, 99])["runs"][0]["subsets"]
    rng = random.Random(5)
    for _ in range(5):
        order = parts[:]
        rng.shuffle(order)
        while len(order) > 1:  # random neighbours merged until one is left: a random order and grouping
            i = rng.randrange(len(order) - 1)
            order[i:i + 2] = [order[i].merge(order[i + 1])]
        merged = order[0].stats(percentiles=[50, 90, 99])["runs"][0]["subsets"]
        assert merged.keys() == whole.keys()
        for subset, body in whole.items():
            for metric, stats in body["metrics"].items():
                other = merged[subset]["metrics"][metric]
                for key in ["n", "min", "max", "p50", "p90", "p99"]:  # counts and sketch buckets: bit for bit
                    assert other[key] == stats[key], (subset, metric, key)
                for key in ["mean", "std"]:  # sums: the order of additions moves the last bits at most
                    if stats[key] is not None:
                        assert other[key] == pytest.approx(stats[key], rel=1e-15, abs=0), (subset, metric, key)


def test_sketched_percentiles_lie_within_alpha_of_the_exact_ones(logs):
    exact = servestat.read(logs[2]).stats(percentiles=[50, 90, 99])["runs"][0]["subsets"]["all"]["metrics"]
    summary = servestat.summarize(logs[2], sketch_alpha=0.01)
    sketched = summary.stats(percentiles=[50, 90, 99])["runs"][0]
    assert any("percentiles are read from sketches" in note for note in sketched["notes"])
    for metric in ["ttft", "e2e", "tpot"]:
        for p in ["p50", "p90", "p99"]:
            want, got = exact[metric][p], sketched["subsets"]["all"]["metrics"][metric][p]
            assert abs(got - want) <= 0.01 * abs(want), (metric, p)


def test_a_summary_travels_as_json_and_by_pickle(logs):
    summary = servestat.summarize(logs[0])
    again = servestat.Summary.from_json(summary.to_json())
    assert again.to_json() == summary.to_json() and again.requests == 200
    assert pickle.loads(pickle.dumps(summary)).to_json() == summary.to_json()


def test_summaries_of_different_options_do_not_merge_and_bad_json_names_itself(logs):
    with pytest.raises(servestat.UsageError, match="different options"):
        servestat.summarize(logs[0]).merge(servestat.summarize(logs[1], short_max=10))
    with pytest.raises(servestat.InputError, match="shard-7"):
        servestat.Summary.from_json('{"servestat": "summary", "version": 1}', name="shard-7")
