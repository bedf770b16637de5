#!/bin/sh
# Renders the demo from the bundled example logs: render_demo.sh SERVESTAT OUT_DIR
# `make demo` writes reports/; a test renders into a scratch folder and compares with reports/.
set -eu
servestat=$1
out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
rm -rf "$out/demo" "$out/compare-exp5" "$out/trend-weekly"
"$servestat" stats examples/logs > "$out/demo-stats.txt"
"$servestat" stats --json --slo ttft=0.5,e2e=10 examples/logs > "$out/demo-stats.json"
"$servestat" report --slo ttft=0.5,e2e=5 --title "Workload mix comparison at concurrency 16" -o "$out/demo" examples/logs > /dev/null
"$servestat" compare --title "Experiment 5: BAD_unfair vs FAIR_768 at c=32" -o "$out/compare-exp5" \
  examples/notebook-exp5/bad_unfair-c32.jsonl examples/notebook-exp5/fair_768-c32.jsonl > /dev/null
"$servestat" report --trend --title "Weekly trend: mix_50_50 at c=16" -o "$out/trend-weekly" examples/weekly > /dev/null
