#!/usr/bin/env bash
# Collectives benchmark: what every all-reduce algorithm costs the replay, and a whole sweep.
#
# Part 1. ResNet-50 iterations (64 MiB buckets, host staging) for every collective on a dragonfly
# (Piz Daint's XC50 P100 machine up to its 5,320 nodes, the 16,384-node bench dragonfly beyond;
# both routed adaptively, a dragonfly's default: UGAL over the replay's own fabric paths, whose
# many latencies make flows start and end at distinct instants) and on the
# 16,384-node bench fat-tree (d-mod-k routing, one latency for all). Each point is one
# `ceiling run --timing` of ITERATIONS iterations (default 5: the first is the warm-up) and
# prints: the wall time to build the machine and plan the flows, the mean wall time per
# iteration after the warm-up, the whole process's wall time (GNU time), its peak RSS, the
# flows per iteration through SimGrid, in closed form (alone on their route) and shared out by
# the replay (FlowSharing), and the wall time per flow. A point that runs longer than
# POINT_TIMEOUT seconds (default 600) prints "timeout".
#
# Part 2. The wall time of `ceiling sweep -j 2` over tools/bench/collectives_sweep.toml and
# collectives_sweep_ps.toml: ResNet-50 from 1 (the parameter server: 16) to 4,096 nodes by x2 on
# Piz Daint's three generations with every collective (weak scaling, 3 iterations per point).
#
# REPEAT=K (default 1) runs each point K times and prints the least build, s/iteration and
# process wall time of the K runs (and the largest peak RSS): a machine shared with others only
# slows a run, so the least of a few is the figure that moves least from one bench to the next.
#
# Usage: tools/bench/collectives_bench.sh [BUILD_DIR]
#   COLLECTIVES="ring halving-doubling" NODES="1024 4096" TOPOLOGIES="dragonfly fat-tree" SWEEP=0|1
#   REPEAT=3 (NODES= runs the sweeps alone, SWEEP=0 the points alone)
set -euo pipefail
build=${1:-build}
collectives=${COLLECTIVES:-ring hierarchical halving-doubling binary-tree double-binary-tree pipelined-tree pipelined-double-tree parameter-server}
counts=${NODES-1024 4096 16384}
topologies=${TOPOLOGIES:-dragonfly fat-tree}
iterations=${ITERATIONS:-5}
point_timeout=${POINT_TIMEOUT:-600}
sweep=${SWEEP:-1}
repeat=${REPEAT:-1}
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || { echo "collectives_bench: REPEAT=$repeat: expected a whole number of runs, 1 or more" >&2; exit 2; }
ceiling="$build/tools/ceiling"
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tools/bench/timing.sh"
[ -x "$ceiling" ] || { echo "collectives_bench: no $ceiling; build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "collectives_bench: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf "%-9s %-18s %6s %9s %12s %11s %9s %12s %12s %12s %8s\n" topology collective nodes "build (s)" \
  "s/iteration" "process (s)" "peak RSS" "SimGrid/it." "closed/it." "shared/it." "us/flow"
for topology in $topologies; do
  for collective in $collectives; do
    for n in $counts; do
      platform=tools/bench/platforms/bench-fat-tree-16k
      if [ "$topology" = dragonfly ]; then
        platform=platforms/piz-daint-xc50-p100
        [ "$n" -gt 5320 ] && platform=tools/bench/platforms/bench-dragonfly-16k
      fi
      log="$tmp/log"
      servers=()
      [ "$collective" = parameter-server ] && servers=(--servers 16)
      status=0
      best=() # build, s/iteration, wall: the least of the runs; rss: the largest
      for ((run = 0; run < repeat && status == 0; run++)); do
        /usr/bin/time -f "rss %M wall %e" -o "$tmp/time" timeout "$point_timeout" "$ceiling" run \
          -p "$root/$platform.toml" -w "$root/workloads/resnet50_v1.toml" -n "$n" \
          --collective "$collective" "${servers[@]}" --iterations "$iterations" --timing --json \
          >/dev/null 2>"$log" || status=$?
        [ "$status" -eq 0 ] || break
        read -r build_s per simgrid closed shared < <(timing_figures "$log")
        read -r rss wall < <(awk '/^rss/ {printf "%.0f %s\n", $2 / 1024, $4}' "$tmp/time")
        if [ "$run" -eq 0 ]; then
          best=("$build_s" "$per" "$wall" "$rss")
        else
          read -r -a best < <(awk -v b="${best[*]}" -v n="$build_s $per $wall $rss" 'BEGIN {
            split(b, x, " "); split(n, y, " ")
            for (i = 1; i <= 3; i++) if (y[i] + 0 < x[i] + 0) x[i] = y[i]
            if (y[4] + 0 > x[4] + 0) x[4] = y[4]
            print x[1], x[2], x[3], x[4] }')
        fi
      done
      if [ "$status" -ne 0 ]; then
        what=failed
        [ "$status" -eq 124 ] && what="timeout (> $point_timeout s)"
        printf "%-9s %-18s %6d %s\n" "$topology" "$collective" "$n" "$what"
        continue
      fi
      build_s=${best[0]} per=${best[1]} wall=${best[2]} rss=${best[3]}
      printf "%-9s %-18s %6d %9.2f %12.4f %11.2f %5s MiB %12d %12d %12d %8.2f\n" "$topology" "$collective" "$n" \
        "$build_s" "$per" "$wall" "$rss" "$simgrid" "$closed" "$shared" \
        "$(awk -v p="$per" -v t="$((simgrid + closed + shared))" 'BEGIN {print (t > 0 ? 1e6 * p / t : 0)}')"
    done
  done
done

if [ "$sweep" = 1 ]; then
  # The parameter server's 16 servers need 16 ranks: its sweep starts at 16 nodes.
  echo
  total=0
  for experiment in collectives_sweep collectives_sweep_ps; do
    file="$root/tools/bench/$experiment.toml"
    points=$("$ceiling" experiment show "$file" | awk '/ points / && !seen {print $3; seen = 1}')
    start=$(date +%s.%N)
    "$ceiling" sweep "$file" -j 2 -o "$tmp/$experiment.h5" >"$tmp/sweep.log" 2>&1 || {
      echo "collectives_bench: the sweep $experiment failed:" >&2
      tail -20 "$tmp/sweep.log" >&2
      exit 1
    }
    seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
    total=$(awk -v a="$total" -v b="$seconds" 'BEGIN {print a + b}')
    echo "sweep $experiment: $points points, $seconds s (-j 2)"
  done
  echo "sweeps in all: $total s"
fi
