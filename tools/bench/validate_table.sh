#!/usr/bin/env bash
# The validation table as the README publishes it: every case of validation/ predicted by
# `ceiling validate`, one Markdown row per case (its points' errors in efficiency points; a
# single-point case, its throughput ratio alone), then
# the median and worst over all points after the references, and the wall time.
# Usage: tools/bench/validate_table.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
ceiling="$(cd "$build" && pwd)/tools/ceiling"
cd "$root"
start=$(date +%s.%N)
"$ceiling" validate --json > /tmp/ceiling-validate.$$.json
end=$(date +%s.%N)
/usr/bin/python3 - /tmp/ceiling-validate.$$.json "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("| case | workers | measured E | predicted E | error (points) | predicted / measured throughput |")
print("|---|---|---|---|---|---|")
for c in d["cases"]:
    ratio = lambda p: "%.2f" % (p["predicted_throughput"] / p["measured_throughput"]) if "measured_throughput" in p else "-"
    if len(c["points"]) == 1:  # a single point: no efficiency, the throughputs alone
        p = c["points"][0]
        print("| %s | %d | - | - | - | %s |" % (c["id"], p["workers"], ratio(p)))
        continue
    pts = c["points"][1:]
    cells = lambda f: " / ".join(f(p) for p in pts)
    print("| %s | %s | %s | %s | %s | %s |" % (
        c["id"], cells(lambda p: str(p["workers"])), cells(lambda p: "%.3f" % p["measured_efficiency"]),
        cells(lambda p: "%.3f" % p["predicted_efficiency"]), cells(lambda p: "%+.1f" % p["error_points"]),
        cells(ratio)))
print()
print("%d points: median |error| %.1f points, worst %+.1f; %.1f s wall" % (
    d["points"], d["median_abs_error_points"], d["worst_error_points"], float(sys.argv[3]) - float(sys.argv[2])))
PY
rm -f /tmp/ceiling-validate.$$.json
