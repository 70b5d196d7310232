#!/usr/bin/env bash
# The routes of a bundled machine against its golden text: route_dump's output for PLATFORM at
# NODES nodes must equal tests/platform/routes_golden/NAME-NODES.txt, byte for byte.
# usage: routes_test.sh ROUTE_DUMP ROOT PLATFORM.toml NODES [--update]
# --update rewrites the golden file instead (only when a route change is intended).
set -u
dump=$1
root=$2
platform=$3
nodes=$4
golden="$root/tests/platform/routes_golden/$(basename "$platform" .toml)-$nodes.txt"
if [ "${5:-}" = "--update" ]; then
  "$dump" "$platform" "$nodes" > "$golden" || exit 1
  echo "wrote $golden"
  exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$dump" "$platform" "$nodes" > "$tmp" || { echo "FAIL: route_dump exited $?"; exit 1; }
if ! diff -u "$golden" "$tmp" > "$tmp.diff"; then
  echo "FAIL: routes of $(basename "$platform") at $nodes nodes differ from $golden:"
  head -40 "$tmp.diff"
  rm -f "$tmp.diff"
  exit 1
fi
rm -f "$tmp.diff"
echo "routes of $(basename "$platform") at $nodes nodes: $(grep -c '^route ' "$tmp") routes identical"
