#!/bin/sh
# Compiler launcher for the header self-containment checks (tests/CMakeLists.txt): they compile
# with -fsyntax-only, which writes no object file, so the object is touched afterwards and make
# does not compile the header again on the next build. The precompiled header those checks share
# is compiled without -fsyntax-only, which would keep it from being written.
for arg; do
    if [ "$arg" = c++-header ]; then
        for a; do
            shift
            [ "$a" = -fsyntax-only ] || set -- "$@" "$a"
        done
        exec "$@"
    fi
done
"$@" || exit
while [ $# -gt 1 ]; do
    if [ "$1" = -o ]; then
        touch "$2"
        exit 0
    fi
    shift
done
