#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets of tests/fuzz/ with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-sanitize/ (tools/sanitized_tree.sh: the sanitizer pass's
# tree, which tools/sanitize.sh builds whole, fuzz targets included; seeds, corpora, logs and
# crashes go to build-fuzz/; a build-sanitize/ left by an older gcc configuration is reconfigured
# for clang from scratch), and runs each for SECONDS (default 30) from a seed
# corpus of the bundled files (platforms, workloads, experiments, software stacks, overrides,
# a result file). A crash, hang (10 s), leak or sanitizer report stops its target and leaves
# the input in build-fuzz/crashes/; the script then exits 1. Per target it prints libFuzzer's
# executions and the coverage reached (edges). Targets run two at a time (FUZZ_JOBS). In the
# README's test command as a 10-second smoke run of each. Usage:
#   bash tools/fuzz.sh [SECONDS] [TARGET...]   targets: units platform workload experiment override results
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=${*:-units platform workload experiment override results}
source tools/sanitized_tree.sh
cmake --build build-sanitize -j2 --target $(for t in $targets; do printf '%s_fuzz ' "$t"; done)

seeds=build-fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds"/{units,platform,workload,experiment,override,results} build-fuzz/crashes
cp platforms/*.toml validation/platforms/*.toml "$seeds/platform/" 2>/dev/null || cp platforms/*.toml "$seeds/platform/"
cp workloads/*.toml "$seeds/workload/"
cp experiments/*.toml tools/bench/*.toml tests/sweep/*.toml "$seeds/experiment/"
grep -ho '"[0-9.e+-]* *[A-Za-z/]*"' platforms/*.toml | tr -d '"' | sort -u | split -l 1 - "$seeds/units/q"
printf '%s\n' 'interconnect.link_bandwidth="25 GB/s"' 'node.nic.bandwidth="2 x 12.5 GB/s"' 'platform.nodes=4096' \
  'interconnect.topology=torus' 'interconnect.dimensions=[16, 16, 16]' 'workload.batch_per_worker=32' \
  'node.gpu={count = 1}' 'calibration.compute_efficiency=0.5' | split -l 1 - "$seeds/override/o"
# A real result file, when the release build is there to make one (the quickstart, 5 s).
if [ -x build/tools/ceiling ] && [[ " $targets " == *" results "* ]]; then
  build/tools/ceiling sweep experiments/quickstart.toml -j 2 -o "$seeds/results/quickstart.h5" > /dev/null 2>&1 || true
fi
printf 'not an HDF5 file\n' > "$seeds/results/text"
cp tests/fuzz/regressions/results-*.h5 "$seeds/results/" # what the fuzzers found, replayed first

# Leaks inside libraries that are known and not ours: tests/fuzz/lsan.supp.
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
# Two targets at a time (the machine's two cores), each with its own log; results in order.
fuzz_one() {
  local t=$1 corpus=build-fuzz/corpus/$1
  mkdir -p "$corpus"
  if build-sanitize/tests/fuzz/${t}_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" "$corpus" "$seeds/$t" \
       > "build-fuzz/$t.log" 2>&1; then
    echo clean > "build-fuzz/$t.result"
  else
    echo "FOUND A PROBLEM (see build-fuzz/$t.log and build-fuzz/crashes/)" > "build-fuzz/$t.result"
  fi
}
running=0
for t in $targets; do
  if [ "$running" -ge "${FUZZ_JOBS:-2}" ]; then
    wait -n
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

status=0
for t in $targets; do
  log=build-fuzz/$t.log
  result=$(cat "build-fuzz/$t.result")
  [ "$result" = clean ] || status=1
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  printf '%-11s %s s: %s executions, %s edges covered, %s\n' "$t" "$seconds" "$runs" "$edges" "$result"
done
exit $status
