#!/usr/bin/python3
"""Summarise a directory of log shards on a Dask cluster, then merge the summaries in a tree.

    PYTHONPATH=build/python /usr/bin/python3 examples/dask/summarize_shards.py SHARDS_DIR -o merged.ssum.json
    servestat report merged.ssum.json -o report/

Each shard is one worker task (servestat.summarize: exact counts, sums, min, max and moments, and a
quantile sketch per metric and subset); the summaries are merged pairwise in a tree, each merge a task
of its own, so no worker ever holds more than two summaries and the depth is log2(shards). Merging is
associative and commutative, so the tree's shape does not change the result. Summaries travel between
processes as their JSON text (a few hundred KB), never the requests.

Without --scheduler a LocalCluster is started on this machine; with --scheduler tcp://HOST:8786 the
shards must be readable at the same paths on every worker (a shared file system). docs/scale.md says
when a cluster pays off.
"""
import argparse
import glob
import os
import sys

from distributed import Client, LocalCluster

import servestat


def summarize_shard(path, sketch_alpha):
    return servestat.summarize(path, sketch_alpha=sketch_alpha)


def merge_pair(a, b):
    return a.merge(b)


def tree_reduce(client, futures):
    """Pairs of futures merged level by level; an odd one out waits for the next level."""
    while len(futures) > 1:
        merged = [client.submit(merge_pair, futures[i], futures[i + 1], pure=False)
                  for i in range(0, len(futures) - 1, 2)]
        futures = merged + futures[len(futures) - len(futures) % 2:]
    return futures[0]


def summarize_on_dask(client, shards, sketch_alpha=None):
    futures = client.map(summarize_shard, shards, sketch_alpha=sketch_alpha, pure=False)
    return tree_reduce(client, futures).result()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shards", help="directory of log shards, or a glob pattern")
    parser.add_argument("-o", "--out", required=True, help="merged summary to write (*.ssum.json)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    parser.add_argument("--sketch-alpha", type=float, help="relative error of the percentiles' sketches")
    args = parser.parse_args(argv)

    pattern = os.path.join(args.shards, "*") if os.path.isdir(args.shards) else args.shards
    shards = sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
    if not shards:
        sys.exit(f"no shards at {args.shards}")
    cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                                       processes=True, dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        merged = summarize_on_dask(client, [os.path.abspath(s) for s in shards], args.sketch_alpha)
    if cluster:
        cluster.close()
    with open(args.out, "w") as f:
        f.write(merged.to_json())
    print(f"{args.out}: summary of {merged.requests} requests from {len(shards)} shards")


if __name__ == "__main__":
    main()
