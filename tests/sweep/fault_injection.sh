#!/usr/bin/env bash
# Fault injection: a sweep cut at random moments, CYCLES times in a row (default 50), resumed
# each time. Each cycle starts the sweep (--resume once a store exists), waits a random 0-200 ms
# (from the start-up through the points and the store writes), then does one of:
#   SIGINT to the sweep, SIGTERM to the sweep, SIGKILL to the sweep (its workers then killed too,
#   as a batch system would), or SIGKILL to one of its workers (once one runs: up to a second
#   more) and, a random 0-100 ms later, SIGKILL to the sweep.
# Each kind must land at least once, and at most half the cycles finish before their fault.
# After every cycle the store, if there is one yet, must open and hold each point at most once,
# and the exit status must be the signal's (or 0 when the sweep had already finished). At the
# end a last --resume completes it, and its tables must equal an uninterrupted sweep's: every
# point exactly once, the same numbers. Random moments come from a fixed seed (printed), so a
# failure can be replayed. Usage: fault_injection.sh CEILING ROOT [CYCLES] [SEED]
set -u
ceiling=$(realpath "$1")
root=$(realpath "$2")
cycles=${3:-50}
RANDOM=${4:-20261202}
echo "fault injection: $cycles cycles, seed ${4:-20261202}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/support/expect.sh"
experiment="$root/tests/sweep/small.toml"
cd "$tmp"

# tables DIR FILE: the store's tables as CSV; fails when the store does not open.
tables() { "$ceiling" export "$2" --csv "$tmp/$1" >/dev/null 2>"$tmp/export.err"; }

expect 0 "wrote reference.h5: 64 points, 0 failed" -- "$ceiling" sweep "$experiment" -j 2 -o reference.h5
tables reference reference.h5

# Job control: a background job of a script otherwise starts with SIGINT ignored, and a SIGINT
# before the sweep installs its handler would be lost.
set -m
declare -A faults=()
for cycle in $(seq 1 "$cycles"); do
  resume=()
  [ -e cut.h5 ] && resume=(--resume)
  "$ceiling" sweep "$experiment" -j 2 "${resume[@]}" -o cut.h5 >"$tmp/cycle.out" 2>"$tmp/cycle.err" &
  pid=$!
  delay_ms=$((RANDOM % 200)) # drawn here, not in a subshell: a subshell reseeds RANDOM
  fault=$((RANDOM % 4))
  sleep "0.$(printf '%03d' "$delay_ms")"
  second_ms=$((RANDOM % 100))
  workers=$(pgrep -P "$pid" | tr '\n' ' ')
  case $fault in
    0) name=SIGINT; kill -INT "$pid" 2>/dev/null; wanted=130 ;;
    1) name=SIGTERM; kill -TERM "$pid" 2>/dev/null; wanted=143 ;;
    2) name="SIGKILL of the sweep"; kill -KILL "$pid" 2>/dev/null; wanted=137 ;;
    3) name="SIGKILL of a worker, then of the sweep"
       # (a sweep still starting has no worker yet: it gets up to a second to start one)
       for _ in $(seq 1 20); do
         [ -n "$workers" ] || ! kill -0 "$pid" 2>/dev/null && break
         sleep 0.05
         workers=$(pgrep -P "$pid" | tr '\n' ' ')
       done
       worker=${workers%% *}
       [ -z "$worker" ] && name="SIGKILL of the sweep, no worker running yet"
       [ -n "$worker" ] && kill -KILL "$worker" 2>/dev/null
       sleep "0.$(printf '%03d' "$second_ms")"
       kill -KILL "$pid" 2>/dev/null
       wanted=137 ;;
  esac
  wait "$pid" 2>/dev/null
  status=$?
  # Workers die with their sweep, even by kill -9 (PR_SET_PDEATHSIG): one still there 2 s after
  # fails the test; their groups are ended then, in case.
  if [ "$wanted" = 137 ]; then
    # (alive: a process that is not a zombie; a dead orphan stays one until PID 1 collects it)
    alive() { local state; state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -n "$state" ] && [ "$state" != Z ]; }
    for w in $workers; do
      for _ in $(seq 1 40); do alive "$w" || break; sleep 0.05; done
      if alive "$w"; then
        echo "FAIL: cycle $cycle ($name): point process $w outlived its sweep"
        failures=$((failures + 1))
      fi
    done
    for w in $workers; do kill -KILL -- "-$w" "$w" 2>/dev/null; done
  fi
  # A sweep that finished between the worker's death and its own exits 3 (a point failed).
  [ "$fault" = 3 ] && [ "$status" = 3 ] && status=0
  if [ "$status" = 0 ]; then
    faults["finished before the fault"]=$(( ${faults["finished before the fault"]:-0} + 1 ))
  else
    faults[$name]=$(( ${faults[$name]:-0} + 1 ))
    expect "$wanted" "" -- bash -c "exit $status"
  fi
  if [ -e cut.h5 ]; then
    if tables "cycle" cut.h5; then
      duplicates=$(tail -n +2 cycle/points.csv | cut -d, -f1 | sort | uniq -d | wc -l)
      expect 0 "" -- test "$duplicates" = 0
    else
      echo "FAIL: cycle $cycle ($name): the store does not open: $(cat "$tmp/export.err")"
      failures=$((failures + 1))
    fi
  fi
done
for f in "${!faults[@]}"; do echo "  $f: ${faults[$f]} cycles"; done
# The faults must land: each kind at least once (a worker killed among them), and most cycles
# cut short, not finished before their fault.
for f in SIGINT SIGTERM "SIGKILL of the sweep" "SIGKILL of a worker, then of the sweep"; do
  expect 0 "" -- test "${faults[$f]:-0}" -ge 1
done
expect 0 "" -- test "${faults["finished before the fault"]:-0}" -le $((cycles / 2))

# (the last cycle may have finished the sweep before its fault: then the store holds every point)
"$ceiling" sweep "$experiment" -j 2 --resume -o cut.h5 >"$tmp/last.out" 2>&1
expect 0 "" -- bash -c "exit $?"
expect 0 "" -- grep -qE "^(wrote cut.h5: 64 points, 0 failed|nothing to run: cut.h5 holds every point, 0 failed)" "$tmp/last.out"
tables final cut.h5
expect 0 "" -- test "$(tail -n +2 final/points.csv | cut -d, -f1 | sort -n | uniq | wc -l)" = 64
expect 0 "" -- test "$(tail -n +2 final/points.csv | wc -l)" = 64
for t in points curves fits; do
  expect 0 "" -- cmp "$tmp/reference/$t.csv" "$tmp/final/$t.csv"
done

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
