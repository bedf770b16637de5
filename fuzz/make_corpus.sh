#!/usr/bin/env bash
# Builds BUILD_DIR/corpus/<target>/ for every target of fuzz/targets.txt from the files its seed
# globs name (tests/data, examples/, ../shared/data, which may be missing) and fuzz/seeds/*.txt.
# Files up to 64 KiB are symlinked; larger ones are copied cut to their first 64 KiB at a line end.
# Usage: fuzz/make_corpus.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: fuzz/make_corpus.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(mkdir -p "$build" && cd "$build" && pwd)
limit=65536
shopt -s nullglob

add_file() { # corpus-dir file
  local dir=$1 file=$2 name
  name=$(printf "%s" "${file#"$(dirname "$root")"/}" | tr / _)
  local size
  size=$(stat -c %s "$file")
  if [ "$size" -le "$limit" ]; then
    ln -sf "$file" "$dir/$name"
  else
    # The first 64 KiB, cut after its last line end (a file with none keeps all 64 KiB).
    head -c "$limit" "$file" > "$dir/$name.tmp"
    local cut
    cut=$(LC_ALL=C awk 'BEGIN{RS="\n"; n=0} {n += length($0) + 1} END{print n}' "$dir/$name.tmp")
    if [ "$(tail -c 1 "$dir/$name.tmp" | od -An -c | tr -d ' ')" != '\n' ]; then
      local last
      last=$(LC_ALL=C awk '{ l = length($0) + 1 } END { print l }' "$dir/$name.tmp")
      cut=$((cut - last))
    fi
    if [ "$cut" -gt 0 ]; then head -c "$cut" "$dir/$name.tmp" > "$dir/$name"; else mv "$dir/$name.tmp" "$dir/$name"; fi
    rm -f "$dir/$name.tmp"
  fi
}

add_seeds() { # corpus-dir seeds-file: one seed a line, printf %b escapes
  local dir=$1 file=$2 n=0 line
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    printf '%b' "$line" > "$dir/seed-$(basename "$file" .txt)-$n"
  done < "$file"
}

total=0
while read -r name entry dict seeds; do
  case "$name" in ''|'#'*) continue ;; esac
  dir="$build/corpus/$name"
  mkdir -p "$dir"
  # Seeds are made anew; inputs a campaign added (other regular files) stay.
  find "$dir" -maxdepth 1 \( -type l -o -name 'seed-*' \) -delete
  set -f # split the seed list without globbing; each glob is expanded below
  patterns=($seeds)
  set +f
  for pattern in "${patterns[@]}"; do
    case "$pattern" in
      seeds:*) add_seeds "$dir" "$here/seeds/${pattern#seeds:}" ;;
      *)
        # A glob relative to the repository root; ../shared/data may be absent.
        for file in $root/$pattern; do
          [ -f "$file" ] || continue
          case "$file" in *README.md|*SOURCE.md|*.py) continue ;; esac
          file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
          add_file "$dir" "$file"
        done ;;
    esac
  done
  count=$(find "$dir" -mindepth 1 -maxdepth 1 | wc -l)
  total=$((total + count))
done < "$here/targets.txt"
echo "fuzz corpora: $total inputs in $build/corpus"
