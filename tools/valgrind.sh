#!/usr/bin/env bash
# valgrind memcheck on one `ceiling run` and on the quickstart sweep (its point processes
# traced too), with the release build (jemalloc is recognised as the allocator). Prints
# valgrind's reports, if any; exits 9 when memcheck found an error or a definite leak. About
# 2.5 minutes on 2 cores. Usage:
#   bash tools/valgrind.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
ceiling="$build/tools/ceiling"
command -v valgrind > /dev/null || { echo "valgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
check=(valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite
       --soname-synonyms=somalloc=*jemalloc* -q)
"${check[@]}" "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" \
  -n 8 --iterations 2 > /dev/null
echo "valgrind.sh: ceiling run: clean"
"${check[@]}" --trace-children=yes "$ceiling" sweep "$root/experiments/quickstart.toml" -j 2 -o "$out/q.h5" > /dev/null
echo "valgrind.sh: ceiling sweep experiments/quickstart.toml: clean"
