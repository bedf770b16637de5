#!/bin/sh
# Checks that every .svg under DIR is well-formed XML (xmllint, from libxml2-utils); exits non-zero otherwise.
set -u
dir=${1:?usage: check_svgs.sh DIR}
command -v xmllint >/dev/null 2>&1 || { echo "check_svgs.sh: xmllint not found (apt-get install libxml2-utils)" >&2; exit 2; }
found=0
failed=0
for f in $(find "$dir" -name '*.svg' | LC_ALL=C sort); do
    found=$((found + 1))
    xmllint --noout "$f" || { echo "not well-formed: $f" >&2; failed=$((failed + 1)); }
done
[ "$found" -gt 0 ] || { echo "check_svgs.sh: no .svg files under $dir" >&2; exit 1; }
echo "check_svgs.sh: $found files, $failed not well-formed"
[ "$failed" -eq 0 ]
