#!/bin/sh
# Renders the demo from the bundled example logs: render_demo.sh SERVESTAT OUT_DIR
# `make demo` writes reports/; a test renders into a scratch folder and compares with reports/.
set -eu
servestat=$1
out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
rm -rf "$out/demo" "$out/compare-exp5" "$out/trend-weekly" "$out/sweep-live" "$out/compare-live"
"$servestat" stats examples/logs > "$out/demo-stats.txt"
"$servestat" stats --json --slo ttft=0.025,e2e=0.5 examples/logs > "$out/demo-stats.json"
# examples/logs and examples/live come from `make demo-live` (the driver against the simulator at 20x).
"$servestat" report --slo ttft=0.025,e2e=0.25 --title "Workload mixes at concurrency 16 (simulated L4 at 20x, no context budget)" \
  -o "$out/demo" examples/logs > /dev/null
"$servestat" report --slo e2e=0.5 --title "Concurrency sweep on mix_50_50: bad vs fair vLLM settings (simulated L4 at 20x)" \
  -o "$out/sweep-live" examples/live/bad examples/live/fair > /dev/null
"$servestat" compare --slo e2e=0.5 --title "Bad vs fair vLLM settings, mix_50_50 (simulated L4 at 20x)" -o "$out/compare-live" \
  examples/live/bad examples/live/fair > /dev/null
"$servestat" compare --title "Experiment 5: BAD_unfair vs FAIR_768 at c=32" -o "$out/compare-exp5" \
  examples/notebook-exp5/bad_unfair-c32.jsonl examples/notebook-exp5/fair_768-c32.jsonl > /dev/null
"$servestat" report --trend --title "Weekly trend: mix_50_50 at c=16" -o "$out/trend-weekly" examples/weekly > /dev/null
