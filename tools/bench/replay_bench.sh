#!/usr/bin/env bash
# Replay benchmark: ResNet-50 data-parallel iterations on a Piz Daint-sized dragonfly and a
# fat-tree, for growing node counts; prints wall time per iteration and peak RSS per N.
#
# Wall time per iteration is measured without the machine build: each point runs twice, with 1
# and with 1 + K iterations (K = EXTRA_ITERATIONS, default 4), and the difference is divided by
# K; "first run" is the build plus one iteration. Peak RSS is that of the longer run (GNU time). Usage:
#   tools/bench/replay_bench.sh [BUILD_DIR] [aggregated node counts] [exact node counts]
#   tools/bench/replay_bench.sh build "64 256 1024 4096 16384" "64 256 1024"
set -euo pipefail
build=${1:-build}
aggregated=${2:-64 256 1024 4096 16384}
exact=${3:-64 256 1024}
extra=${EXTRA_ITERATIONS:-4}
ceiling="$build/tools/ceiling"
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$ceiling" ] || { echo "replay_bench: no $ceiling; build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "replay_bench: needs GNU time (apt-get install time)" >&2; exit 2; }

# wall_and_rss ITERATIONS ARGS...: prints "seconds kilobytes" of one run.
wall_and_rss() {
  local iterations=$1
  shift
  local out
  out=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$out" "$ceiling" run "$@" --iterations "$iterations" --json >/dev/null
  cat "$out"
  rm -f "$out"
}

printf "%-10s %-22s %-10s %7s %14s %14s %12s\n" topology platform fidelity nodes "first run (s)" "s/iteration" "peak RSS"
for fidelity in aggregated exact; do
  counts=$aggregated
  [ "$fidelity" = exact ] && counts=$exact
  for topology in dragonfly fat-tree; do
    for n in $counts; do
      # The dragonfly is Piz Daint itself up to its 5,320 nodes, a larger one beyond.
      platform=bench-fat-tree-16k
      [ "$topology" = dragonfly ] && platform=piz-daint-xc50-p100
      [ "$topology" = dragonfly ] && [ "$n" -gt 5320 ] && platform=bench-dragonfly-16k
      args=(-p "$root/platforms/$platform.toml" -w "$root/workloads/resnet50_v1.toml" -n "$n" --fidelity "$fidelity")
      read -r one _ < <(wall_and_rss 1 "${args[@]}")
      read -r more rss < <(wall_and_rss $((1 + extra)) "${args[@]}")
      per=$(awk -v a="$one" -v b="$more" -v k="$extra" 'BEGIN {printf "%.3f", (b - a) / k}')
      printf "%-10s %-22s %-10s %7d %14.2f %14s %8.0f MiB\n" "$topology" "$platform" "$fidelity" "$n" "$one" "$per" \
        "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
    done
  done
done
