#!/usr/bin/env bash
# Replay benchmark: ResNet-50 data-parallel iterations on a Piz Daint-sized dragonfly and a
# fat-tree, for growing node counts; prints wall time per iteration and peak RSS per N.
#
# Each point is one `ceiling run --timing` of 1 + K iterations (K = EXTRA_ITERATIONS, default 3):
# "build" is the wall time of building the machine, "s/iteration" the mean wall time of the K
# iterations after the warm-up, "peak RSS" the process's (GNU time), "SimGrid flows/it." the comms
# through SimGrid's network model per iteration, "closed-form/it." the collective flows that share
# no link and that the replay times itself, "shared/it." those that share links and that the
# replay shares out itself (PCIe copies that the replay shares out itself are in none), and
# "us/flow" the wall time per iteration divided by all flows.
# TRANSFER_DRIVER=maestro|couriers forces a transfer driver (default: auto); FLOWS=simgrid sends
# every flow through SimGrid (default: auto; the dragonfly then routes statically, as SimGrid
# does); ROUTING=static-minimal|adaptive|... sets the dragonfly's interconnect.routing (default:
# the platform's, adaptive; the exact rows route statically, as SimGrid's comms do with
# FLOWS=simgrid). A point that fails stops the benchmark with its error. Usage:
#   tools/bench/replay_bench.sh [BUILD_DIR] [aggregated node counts] [exact node counts]
#   tools/bench/replay_bench.sh build "64 256 1024 4096 16384" "64 256 1024"
set -euo pipefail
build=${1:-build}
aggregated=${2-64 256 1024 4096 16384}
exact=${3-64 256 1024}
extra=${EXTRA_ITERATIONS:-3}
driver=${TRANSFER_DRIVER:-auto}
flows=${FLOWS:-auto}
routing=${ROUTING:-}
ceiling="$build/tools/ceiling"
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tools/bench/timing.sh"
[ -x "$ceiling" ] || { echo "replay_bench: no $ceiling; build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "replay_bench: needs GNU time (apt-get install time)" >&2; exit 2; }

printf "%-10s %-40s %-10s %7s %10s %12s %10s %17s %15s %10s %8s\n" topology platform fidelity nodes "build (s)" \
  "s/iteration" "peak RSS" "SimGrid flows/it." "closed-form/it." "shared/it." "us/flow"
for fidelity in aggregated exact; do
  counts=$aggregated
  [ "$fidelity" = exact ] && counts=$exact
  for topology in dragonfly fat-tree; do
    for n in $counts; do
      # The dragonfly is Piz Daint itself up to its 5,320 nodes, a larger one beyond.
      platform=tools/bench/platforms/bench-fat-tree-16k
      [ "$topology" = dragonfly ] && platform=platforms/piz-daint-xc50-p100
      [ "$topology" = dragonfly ] && [ "$n" -gt 5320 ] && platform=tools/bench/platforms/bench-dragonfly-16k
      route=()
      # SimGrid routes a dragonfly statically only: the exact rows and FLOWS=simgrid take its routes.
      [ "$topology" = dragonfly ] && { [ "$fidelity" = exact ] || [ "$flows" = simgrid ]; } &&
        route=(--set interconnect.routing=static-minimal)
      [ "$topology" = dragonfly ] && [ "$fidelity" = aggregated ] && [ -n "$routing" ] && route=(--set "interconnect.routing=$routing")
      log=$(mktemp)
      /usr/bin/time -f "rss %M" -o "$log.rss" "$ceiling" run -p "$root/$platform.toml" \
        -w "$root/workloads/resnet50_v1.toml" -n "$n" --fidelity "$fidelity" \
        --iterations $((1 + extra)) --transfer-driver "$driver" --flows "$flows" "${route[@]}" --timing --json \
        >/dev/null 2>"$log" || {
        echo "replay_bench: the $topology $fidelity point at $n nodes failed:" >&2
        tail -5 "$log" >&2
        rm -f "$log" "$log.rss"
        exit 1
      }
      read -r build_s per transfers closed shared < <(timing_figures "$log")
      rss=$(awk '/^rss/ {printf "%.0f", $2 / 1024}' "$log.rss")
      printf "%-10s %-40s %-10s %7d %10.2f %12.4f %6s MiB %17d %15d %10d %8.2f\n" "$topology" "$platform" "$fidelity" \
        "$n" "$build_s" "$per" "$rss" "$transfers" "$closed" "$shared" \
        "$(awk -v p="$per" -v t="$((transfers + closed + shared))" 'BEGIN {print 1e6 * p / t}')"
      rm -f "$log" "$log.rss"
    done
  done
done
