#!/usr/bin/env bash
# Runs every fuzz_<target> of BUILD_DIR over its corpus (fuzz/make_corpus.sh) for a bounded number
# of runs, JOBS at a time; fails when any target fails (a crash, a contract violation, a leak, a
# timeout). Logs and crash inputs go to BUILD_DIR/fuzz-smoke/.
# Usage: fuzz/run_smoke.sh BUILD_DIR [RUNS] [SECONDS] [JOBS]
set -euo pipefail
build=$(cd "${1:?usage: fuzz/run_smoke.sh BUILD_DIR [RUNS] [SECONDS] [JOBS]}" && pwd)
runs=${2:-3000}
seconds=${3:-1}
jobs=${4:-2}
# Per input: the smoke's targets are built at -O0 (4-10 times slower than the campaigns' -O1), where
# a 64 KiB seed of fuzz_detect takes 1.0 s alone; a hang still fails, after 10 s.
timeout=${FUZZ_SMOKE_TIMEOUT:-10}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/fuzz-smoke
rm -rf "$out"
mkdir -p "$out"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

smoke_one() { # name dict
  local name=$1 dict=$2 args=()
  [ "$dict" != - ] && args+=("-dict=$here/$dict.dict")
  mkdir -p "$out/new-$name"
  # New inputs go to a scratch folder first: the corpus (symlinks into the repository) stays as built.
  if "$build/fuzz/fuzz_$name" "${args[@]}" -runs="$runs" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
       -artifact_prefix="$out/$name-" -print_final_stats=1 "$out/new-$name" "$build/corpus/$name" \
       > "$out/$name.log" 2>&1; then
    printf '  %-24s ok   %s\n' "fuzz_$name" "$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$name.log" | grep -o '[0-9]*$') runs"
  else
    printf '  %-24s FAILED (log: %s)\n' "fuzz_$name" "$out/$name.log"
    grep -E 'CONTRACT VIOLATION|ERROR: |runtime error|Test unit written' "$out/$name.log" | head -5 | sed 's/^/      /'
    return 1
  fi
}
export -f smoke_one
export build here out runs seconds timeout

start=$(date +%s)
status=0
grep -E '^[a-z]' "$here/targets.txt" | awk '{print $1, $3}' |
  xargs -P "$jobs" -n 2 bash -c 'smoke_one "$0" "$1"' || status=1
echo "fuzz smoke: $(( $(date +%s) - start )) s, $( [ $status = 0 ] && echo passed || echo FAILED )"
exit $status
