#!/bin/sh
# The live demo: the simulator with the notebook's bad and fair vLLM settings, the load driver
# against both, and the bundled example logs written from what it measured.
#   live_demo.sh SERVESTAT
# Writes examples/logs/ (Experiment 1: four workload mixes at c=16 on the bad server, no context
# budget, so long prompts overflow) and examples/live/{bad,fair}/ (Experiment 3: a concurrency sweep
# on mix_50_50 against each server with max_tokens 16, as the notebook's Experiment 3). `make demo-live`
# runs it, then renders reports/ from them. The simulators run TIME_SCALE times faster than the
# modelled L4 GPU, so every latency in these logs is the modelled one divided by TIME_SCALE (the
# shapes, knees and ratios are the model's).
set -eu
servestat=$1
cd "$(dirname "$0")/.."
TIME_SCALE=${TIME_SCALE:-20}
work=$(mktemp -d)
pids=""
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Starts a simulator on a free port (in this shell, so that cleanup knows its pid), reporting its
# per-request timings as vLLM does, so that the logs hold the server's queue, prefill and decode.
start_simulator() { # NAME PRESET
    "$servestat" simulate --port 0 --preset "$2" --time-scale "$TIME_SCALE" --seed 1 --enable-per-request-metrics \
        > "$work/$1.url" 2> "$work/$1.log" &
    pids="$pids $!"
}

# Prints the URL a simulator announced.
url_of() { # NAME
    for _ in $(seq 100); do
        url=$(sed -n 's/^servestat simulate listening on //p' "$work/$1.url")
        [ -n "$url" ] && { echo "$url"; return 0; }
        sleep 0.1
    done
    echo "the $1 simulator did not start:" >&2
    cat "$work/$1.log" >&2
    return 1
}

start_simulator bad l4-qwen2.5-3b-bad
start_simulator fair l4-qwen2.5-3b-fair
bad=$(url_of bad)
fair=$(url_of fair)

for mix in short_only mix_90_10 mix_70_30 mix_50_50; do
    "$servestat" workload --preset "$mix" -n 600 --seed 1 -o "$work/$mix.jsonl" 2> /dev/null
done

common="--seed 1 --heuristic-tokens -q --param time_scale=$TIME_SCALE"

# Experiment 3: both servers swept at once (one core each).
rm -rf examples/live
sweep="--workload $work/mix_50_50.jsonl --sweep concurrency=1,2,4,8,16,32,48,64 -n 600 --max-tokens 16 $common"
"$servestat" load --url "$bad" $sweep --label bad --param preset=l4-qwen2.5-3b-bad -o examples/live/bad &
bad_sweep=$!
"$servestat" load --url "$fair" $sweep --label fair --param preset=l4-qwen2.5-3b-fair -o examples/live/fair
wait "$bad_sweep"

# Experiment 1: fixed max_tokens 128 with no context budget, so prompts near 4096 tokens fail.
rm -f examples/logs/*.jsonl
for mix in short_only mix_90_10 mix_70_30 mix_50_50; do
    "$servestat" load --url "$bad" --workload "$work/$mix.jsonl" --concurrency 16 -n 200 --no-budget $common \
        --param preset=l4-qwen2.5-3b-bad -o "examples/logs/$mix-c16.jsonl"
done
