#!/usr/bin/env bash
# HPC benchmark: HPL-like and HPCG-like runs of the whole machine on Piz Daint's three
# generations (`ceiling hpc`, every node of each platform file). Per run it prints the
# simulation's wall time (the machine's build apart), the whole process's wall time and peak RSS
# (GNU time), the message patterns timed on the machine, and the prediction: E = delivered /
# peak and the run's simulated time. HPL runs twice: timing every distinct message size (the
# full simulation) and 16 sizes per pattern (--message-sizes 16, the others interpolated).
# Target (issue: HPL on Piz Daint's generations): a whole-machine prediction in under a minute
# on 2 cores. Usage:
#   tools/bench/hpc_bench.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
ceiling="$build/tools/ceiling"
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$ceiling" ] || { echo "hpc_bench: no $ceiling; build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "hpc_bench: needs GNU time (apt-get install time)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

printf "| platform | workload | message sizes | nodes | simulation (s) | whole process (s) | peak RSS | patterns timed | E | simulated time (s) |\n"
printf "|---|---|---|---|---|---|---|---|---|---|\n"
for platform in piz-daint-xc30-cpu piz-daint-xc30-k20x piz-daint-xc50-p100; do
  for run in "hpl every" "hpl 16" "hpcg every"; do
    set -- $run
    /usr/bin/time -f "%e %M" -o "$log" "$ceiling" hpc -w "$root/workloads/$1.toml" \
      -p "$root/platforms/$platform.toml" --message-sizes "$2" --timing --json > "$log.json"
    read -r wall rss < "$log"
    python3 - "$log.json" "$platform" "$1" "$2" "$wall" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
platform, workload, sizes, wall, rss = sys.argv[2:7]
print(f"| {platform} | {workload} | {sizes} | {d['nodes']:,} | {d['wall_simulate_s']:.2f} | {float(wall):.2f} "
      f"| {int(rss) // 1024} MiB | {d['patterns_timed']} | {d['efficiency']:.4f} | {d['time_s']:.6g} |")
PY
    rm -f "$log.json"
  done
done
