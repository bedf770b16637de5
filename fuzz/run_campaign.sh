#!/usr/bin/env bash
# A long run of one target: new inputs are kept in BUILD_DIR/corpus/TARGET, crashes in
# BUILD_DIR/fuzz-campaign/. Prints libFuzzer's final statistics (executions, exec/s) at the end.
# Usage: fuzz/run_campaign.sh TARGET SECONDS [BUILD_DIR] [extra libFuzzer flags...]
set -euo pipefail
name=${1:?usage: fuzz/run_campaign.sh TARGET SECONDS [BUILD_DIR] [libFuzzer flags...]}
name=${name#fuzz_}
seconds=${2:?usage: fuzz/run_campaign.sh TARGET SECONDS [BUILD_DIR] [libFuzzer flags...]}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${3:-$here/../build-fuzz}" && pwd)
shift $(( $# >= 3 ? 3 : $# ))
dict=$(awk -v n="$name" '$1 == n {print $3}' "$here/targets.txt")
[ -n "$dict" ] || { echo "no target '$name' in fuzz/targets.txt" >&2; exit 2; }
args=()
[ "$dict" != - ] && args+=("-dict=$here/$dict.dict")
mkdir -p "$build/fuzz-campaign" "$build/corpus/$name"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$build/fuzz/fuzz_$name" "${args[@]}" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 \
  -artifact_prefix="$build/fuzz-campaign/$name-" -print_final_stats=1 "$@" "$build/corpus/$name"
