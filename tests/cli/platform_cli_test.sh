#!/usr/bin/env bash
# The `ceiling platform` commands: help, output on every bundled platform, exit status 2 and a
# clear message for bad input.
set -u
ceiling=$1
root=$2
failures=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS PATTERN -- COMMAND...: runs COMMAND, checks its exit status and that its
# output (stdout and stderr) contains PATTERN (a fixed string).
expect() {
  local status=$1 pattern=$2
  shift 3
  local out
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" -ne "$status" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: $* (exit $got, wanted $status and \"$pattern\")"
    echo "$out" | head -5 | sed 's/^/    /'
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

expect 0 "platform show FILE" -- "$ceiling" --help
expect 0 "--nodes" -- "$ceiling" platform show --help
expect 0 "--output" -- "$ceiling" platform export --help
expect 0 "--size" -- "$ceiling" platform bench --help
for f in "$root"/platforms/*.toml; do
  expect 0 "route latency" -- "$ceiling" platform show "$f"
  expect 0 '"bisection_bandwidth_bytes_per_s"' -- "$ceiling" platform show "$f" --json --nodes 2
done
expect 0 "wrote" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 8 -o "$tmp/m.xml"
expect 0 "ring all-reduce" -- "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --nodes 8

expect 2 'unknown command "frobnicate"' -- "$ceiling" frobnicate
expect 2 'unknown subcommand "shwo"' -- "$ceiling" platform shwo x.toml
expect 2 "missing platform FILE" -- "$ceiling" platform show
expect 2 "nope.toml: error: cannot open the file for reading" -- "$ceiling" platform show nope.toml
expect 2 "--nodes: the node count must be at least 1, got 0" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --nodes 0
expect 2 "nodes, cannot run on 100000" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --nodes 100000
expect 2 "unrecognised option '--frob'" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --frob
expect 2 '--size: unknown unit "parsecs"' -- \
  "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --size "3 parsecs"
expect 2 "--nodes is required" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" -o "$tmp/x.xml"
printf '[platform]\nname = "x"\nnodes = 4\nbandwith = 3\n' >"$tmp/bad.toml"
expect 2 "bad.toml:4:1: error: platform.bandwith: unknown key" -- "$ceiling" platform show "$tmp/bad.toml"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
