#!/usr/bin/env bash
# A sweep's outputs end to end: plot and report of a small sweep, plot, report and export
# refusing bad result files, and experiment files refused with their location. (The sweep
# itself, resumed, over MPI and failing: sweep_test.sh.)
set -u
ceiling=$(realpath "$1")
root=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/support/expect.sh"
small="$root/tests/sweep/small.toml"
cd "$tmp"

# Pictures and the report, of the small sweep's first platform and variant (a quarter of its
# panels: matplotlib's time goes with the panels).
sed "s|\.\./\.\./|$root/|" "$small" |
  awk '/^\[\[platforms\]\]/ { p++ } /^\[\[workloads\]\]/ { p = 0 } /^\[\[variants\]\]/ { v++ } !(p == 2 || v == 2)' >pictures.toml
expect 0 "wrote pictures.h5: 16 points, 0 failed" -- "$ceiling" sweep pictures.toml -j 2 -o pictures.h5
expect 0 "speedup.png" -- "$ceiling" plot pictures.h5 -o plots
expect 0 "" -- test -s plots/speedup.svg
expect 0 "report.html" -- "$ceiling" report pictures.h5 -o report
expect 0 "Ceiling" -- cat report/report.md
expect 0 "data:image/png;base64," -- cat report/report.html

# Bad result files: a clear error and exit 2 from plot, report and export.
mkfifo fifo.h5
expect 2 "fifo.h5: error: cannot open: not a regular file (a FIFO or a device)" -- \
  timeout 10 "$ceiling" export fifo.h5 --csv x
head -c 3000 pictures.h5 >truncated.h5
echo "not a result file" >text.h5
for command in plot report "export --csv x"; do
  expect 2 "truncated.h5: error: truncated file" -- "$ceiling" $command truncated.h5
  expect 2 "text.h5: error: not an HDF5 file" -- "$ceiling" $command text.h5
  expect 2 "missing.h5: error: cannot open: no such file" -- "$ceiling" $command missing.h5
done

# Bad experiments: located messages, exit 2.
bad() { printf '%s\n' "$@" >"$tmp/bad.toml"; }
bad '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 2]' 'scaling = ["weak"]' 'iteration = 3' \
  '[[platforms]]' 'name = "p"' "file = \"$root/platforms/generic-fat-tree.toml\"" \
  '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\""
expect 2 'bad.toml:6:1: error: experiment.iteration: unknown key (did you mean "iterations"?)' -- \
  "$ceiling" experiment show "$tmp/bad.toml"
sed -i 's/^iteration = 3$/scaling2 = 1/; s/^scaling = \["weak"\]$/scaling = ["strong"]/' "$tmp/bad.toml"
sed -i '/^scaling2/d' "$tmp/bad.toml"
expect 2 "error: workloads[0]: strong scaling needs a global batch" -- "$ceiling" experiment show "$tmp/bad.toml"
sed -i 's/^scaling = \["strong"\]$/scaling = ["weak"]/' "$tmp/bad.toml"
printf '[[variants]]\nname = "v"\noptions = { colective = "ring" }\n' >>"$tmp/bad.toml"
expect 2 'error: variants[0].options.colective: not an option of `ceiling run`' -- \
  "$ceiling" experiment show "$tmp/bad.toml"
sed -i 's/colective = "ring"/collective = "rign"/' "$tmp/bad.toml"
expect 2 'cannot run: --collective: unknown algorithm "rign"' -- "$ceiling" experiment show "$tmp/bad.toml"
sed -i 's/collective = "rign"/nodes = 4/' "$tmp/bad.toml"
expect 2 "error: variants[0].options.nodes: set by the experiment for each point" -- \
  "$ceiling" experiment show "$tmp/bad.toml"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
