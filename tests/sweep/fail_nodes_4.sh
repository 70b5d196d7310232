#!/usr/bin/env bash
# A point program for the tests: fails every point on 4 nodes, runs the others with ceiling.
# Called as: fail_nodes_4.sh sweep-point --sweep-version=VERSION RUN-OPTIONS... (CEILING_REAL is the ceiling program).
if [[ " $* " == *" --nodes 4 "* ]]; then
  echo "simulated failure on 4 nodes" >&2
  exit 7
fi
exec "$CEILING_REAL" "$@"
