#!/usr/bin/env bash
# `ceiling sweep` end to end, in two parts that ctest runs side by side (the fourth argument,
# default both): `store`, every point stored, resume after kill -9 and Ctrl-C equal to an
# uninterrupted sweep, the MPI sweep equal to the local one, failing points recorded; `outputs`,
# plot, report and export on good and bad files, and bad experiments refused with their place.
set -u
ceiling=$(realpath "$1")
mpi_sweep=$(realpath "$2")
root=$(realpath "$3")
part=${4:-both}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/support/expect.sh"
small="$root/tests/sweep/small.toml"
cd "$tmp"

store() {
  # tables PREFIX FILE: the store's tables as CSV, for point-by-point comparison.
  tables() { "$ceiling" export "$2" --csv "$tmp/$1" >/dev/null; }
  # same A B: the CSV tables of two exports are identical.
  same() {
    for t in points curves fits; do
      expect 0 "" -- cmp "$tmp/$1/$t.csv" "$tmp/$2/$t.csv"
    done
  }
  # stored FILE: how many points FILE holds (from its CSV export).
  stored() { "$ceiling" export "$1" --csv "$tmp/count" >/dev/null 2>&1 && tail -n +2 "$tmp/count/points.csv" | wc -l || echo 0; }

  expect 0 "64 points (4 node counts x 2 seeds per curve)" -- "$ceiling" experiment show "$small"
  expect 0 "estimated cost" -- "$ceiling" experiment show "$small"
  expect 0 "wrote small.h5: 64 points, 0 failed" -- "$ceiling" sweep "$small" -j 2
  tables a small.h5
  expect 0 "0,fat-tree / ResNet-50 / ring / weak,fat-tree,ResNet-50,ring,weak,nodes,1," -- cat a/fits.csv
  expect 0 ",communication,12,kUSD" -- cat a/fits.csv
  expect 0 ",9.5,kUSD" -- cat a/fits.csv
  expect 2 "small.h5 exists: --resume runs the points it lacks" -- "$ceiling" sweep "$small"
  cp small.h5 "$tmp/finished.h5"
  expect 0 "0 to run, 64 already in small.h5" -- "$ceiling" sweep "$small" --resume
  # (a finished store is left as it is)
  expect 0 "nothing to run: small.h5 holds every point, 0 failed" -- "$ceiling" sweep "$small" --resume
  expect 0 "" -- cmp small.h5 "$tmp/finished.h5"
  # (the ring's weak curve keeps its efficiency, 0.980 at 8 nodes: 1 - alpha_eff falls with N)
  expect 0 "> 8 none seen  communication" -- "$ceiling" sweep "$small" --resume
  # A store made from other inputs is not resumed, and the refusal names the file that changed.
  sed -e "s#^title = \"#title = \"edited #" -e "s#\"\.\./\.\./#\"$root/#" "$small" > "$tmp/edited.toml"
  expect 2 "small.h5 was made from another experiment text or other input files (the experiment file $tmp/edited.toml is new;" -- \
    "$ceiling" sweep "$tmp/edited.toml" --resume -o small.h5
  expect 2 "the experiment file $small is no longer read" -- "$ceiling" sweep "$tmp/edited.toml" --resume -o small.h5
  # (and a file read at the same path whose text changed: a copy of the platform, edited after)
  mkdir -p "$tmp/changed"
  cp "$root/platforms/generic-fat-tree.toml" "$tmp/changed/fat-tree.toml"
  printf '[experiment]\ntitle = "t"\nquestion = "q"\noutput = "c.h5"\nnodes = [1]\nscaling = ["weak"]\niterations = 1\n%s\n' \
    '[[platforms]]
name = "p"
file = "fat-tree.toml"
[[workloads]]
name = "w"
file = "'"$root"'/workloads/resnet50_v1.toml"
[[variants]]
name = "v"' > "$tmp/changed/e.toml"
  expect 0 "wrote c.h5: 1 point, 0 failed" -- "$ceiling" sweep "$tmp/changed/e.toml"
  echo "# edited" >> "$tmp/changed/fat-tree.toml"
  expect 2 "(the platform file $tmp/changed/fat-tree.toml changed; digest" -- "$ceiling" sweep "$tmp/changed/e.toml" --resume
  # The same inputs give the same tables (the store differs only in the command line it records).
  expect 0 "wrote other.h5" -- "$ceiling" sweep "$small" -j 1 -o other.h5
  tables b other.h5
  same a b

  # kill -9 in the middle: the finished points are kept, the file is never corrupt, and --resume
  # ends with the same store as the uninterrupted sweep.
  "$ceiling" sweep "$small" -j 1 -o killed.h5 >/dev/null 2>"$tmp/killed.log" &
  pid=$!
  for _ in $(seq 1 600); do
    [ "$(grep -c 'seed' "$tmp/killed.log")" -ge 5 ] && break
    sleep 0.05
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  n=$(stored killed.h5)
  expect 0 "" -- test "$n" -ge 5 -a "$n" -lt 64
  expect 0 "to run, $n already in killed.h5" -- "$ceiling" sweep "$small" --resume -o killed.h5
  # (the store keeps the command that started it and the one that completed it, without -j,
  # which changes nothing in the results)
  expect 0 "sweep $small -o killed.h5 ceiling sweep $small --resume -o killed.h5\"" -- \
    bash -c "h5dump -a /command_line killed.h5 | tr -s ' \n' ' '"
  tables c killed.h5
  same a c

  # Ctrl-C (SIGINT to the sweep): exit 130, the finished points kept, --resume completes.
  "$ceiling" sweep "$small" -j 2 -o interrupted.h5 >"$tmp/int.out" 2>"$tmp/int.log" &
  pid=$!
  for _ in $(seq 1 600); do
    [ "$(grep -c 'seed' "$tmp/int.log")" -ge 3 ] && break
    sleep 0.05
  done
  kill -INT "$pid"
  wait "$pid"
  expect 130 "" -- bash -c "exit $?"
  expect 0 "run again with --resume to continue" -- cat "$tmp/int.out"
  expect 0 "ceiling sweep: interrupted by signal 2: " -- cat "$tmp/int.log"
  expect 1 "" -- grep -q "signal 2: interrupted" "$tmp/int.log"
  expect 0 "wrote interrupted.h5: 64 points, 0 failed" -- "$ceiling" sweep "$small" --resume -o interrupted.h5

  # Points that ended before the stop are stored, though the sweep had not read their results
  # yet: the sweep is held (SIGSTOP) while its first two points end, then stopped.
  env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" \
    "$ceiling" sweep "$small" -j 2 -o held.h5 >"$tmp/held.out" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 300); do # until its first two points run
    [ "$(ps --ppid "$pid" -o pid= | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  kill -STOP "$pid"
  for _ in $(seq 1 300); do # until both points have ended (zombies, their results in the pipes)
    [ "$(ps --ppid "$pid" -o stat= | grep -c Z)" -ge 2 ] && break
    sleep 0.1
  done
  kill -INT "$pid"
  kill -CONT "$pid"
  wait "$pid"
  expect 130 "" -- bash -c "exit $?"
  expect 0 "interrupted: 2 of 64 points are stored in held.h5" -- cat "$tmp/held.out"

  # `signal_when_asleep SIGNAL PID`: once two of PID's points sleep (slow_point.sh's `sleep`, a
  # grandchild of PID), signals PID and waits for it; its status is the process's.
  signal_when_asleep() {
    for _ in $(seq 1 300); do
      [ "$(for c in $(pgrep -P "$2"); do pgrep -x -P "$c" sleep; done | wc -l)" -ge 2 ] && break
      sleep 0.1
    done
    kill "-$1" "$2"
    wait "$2"
  }

  # --overwrite of a complete store, stopped before a point finished: the store is as it was.
  cp interrupted.h5 overwritten.h5
  env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" CEILING_SLOW_S=30 \
    "$ceiling" sweep "$small" -j 2 -o overwritten.h5 --overwrite >"$tmp/over.out" 2>/dev/null &
  signal_when_asleep INT "$!"
  expect 130 "" -- bash -c "exit $?"
  expect 0 "interrupted before a point finished: overwritten.h5 is as it was" -- cat "$tmp/over.out"
  expect 0 "" -- cmp interrupted.h5 overwritten.h5

  # A point run by another build than the sweep's (the program rebuilt meanwhile) refuses to run.
  expect 0 "this point's program is another build than the sweep's (ceiling " -- \
    "$ceiling" sweep-point --sweep-version=0.0.0+other -p "$root/platforms/generic-fat-tree.toml" \
    -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1

  # ... and a sweep's point run so is stored as failed with that reason (the sweep exits 3).
  printf '#!/usr/bin/env bash\nshift 2\nexec "$CEILING_REAL" sweep-point --sweep-version=0.0.0+other "$@"\n' > "$tmp/other_build.sh"
  chmod +x "$tmp/other_build.sh"
  env CEILING_POINT_PROGRAM="$tmp/other_build.sh" CEILING_REAL="$ceiling" "$ceiling" sweep "$small" -j 2 -o rebuilt.h5 \
    >/dev/null 2>&1
  expect 0 "" -- test $? = 3
  tables rebuilt rebuilt.h5
  expect 0 "this point's program is another build than the sweep's" -- cat "$tmp/rebuilt/points.csv"
  # --resume refuses a store that another build started.
  cp small.h5 built_elsewhere.h5
  /usr/bin/python3 -c "import h5py, numpy; h5py.File('built_elsewhere.h5', 'r+').attrs['tool_version'] = numpy.bytes_(b'0.0.0+other')"
  expect 2 "built_elsewhere.h5 was made by ceiling 0.0.0+other, this is " -- \
    "$ceiling" sweep "$small" --resume -o built_elsewhere.h5

  # A folder where the store's temporary file would go is refused and left alone.
  mkdir -p stale.h5.tmp
  expect 2 'cannot create "stale.h5.tmp": is a directory' -- "$ceiling" sweep "$small" -o stale.h5
  expect 0 "" -- test -d stale.h5.tmp

  # `run --seeds` stopped: the seeds that finished are printed, the others said stopped.
  env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" CEILING_SLOW_S=0 \
    CEILING_SLOWER_S=30 "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" \
    -n 2 --iterations 2 --seeds 1,2,3,4 --jobs 2 >"$tmp/seeds.out" 2>&1 &
  signal_when_asleep TERM "$!" # (seeds 3 and 4 sleep once 1 and 2 ended)
  expect 143 "" -- bash -c "exit $?"
  expect 0 "spread over 2 seeds" -- cat "$tmp/seeds.out"
  expect 0 "stopped by signal 15 before it finished" -- cat "$tmp/seeds.out"
  # One at a time, stopped while seed 3 sleeps: seed 4 never started, and is said so.
  env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" CEILING_SLOW_S=0 \
    CEILING_SLOWER_S=31 "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" \
    -n 2 --iterations 2 --seeds 1,2,3,4 --jobs 1 >"$tmp/seeds1.out" 2>&1 &
  pid=$!
  asleep="" # (the run's own point wrapper's sleep: seed 3's, or a seed before it between its steps)
  for _ in $(seq 1 300); do
    asleep=$(for c in $(pgrep -P "$pid"); do pgrep -x -P "$c" sleep; done | head -1)
    [ -n "$asleep" ] && break
    sleep 0.1
  done
  kill -TERM "$pid"
  wait "$pid"
  expect 143 "" -- bash -c "exit $?"
  [ -n "$asleep" ] && kill "$asleep" 2>/dev/null # (its wrapper's end leaves it behind)
  expect 0 "FAILED: stopped by signal 15 before it finished" -- cat "$tmp/seeds1.out"
  expect 0 "4                    FAILED: not started: signal 15 came first" -- cat "$tmp/seeds1.out"
  tables d interrupted.h5
  same a d

  # Over MPI ranks (rank 0 hands out points and writes the store): the same store.
  export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
  expect 0 "wrote mpi.h5: 64 points, 0 failed" -- \
    mpirun --allow-run-as-root --oversubscribe -n 3 "$mpi_sweep" "$small" -o mpi.h5
  tables e mpi.h5
  same a e
  expect 0 "wrote mpi1.h5: 64 points, 0 failed" -- \
    mpirun --allow-run-as-root -n 1 "$mpi_sweep" "$small" -o mpi1.h5
  tables f mpi1.h5
  same a f
  # Its output into a file is a line per point, no bar: Open MPI gives its ranks a pseudo-terminal.
  mpirun --allow-run-as-root -n 1 "$mpi_sweep" "$small" --overwrite -o mpi1.h5 >mpi1.log 2>&1
  expect 0 "[64/64, 0 failed" -- cat mpi1.log
  expect 0 "dominant part of 1 - alpha_eff" -- cat mpi1.log # (the table `ceiling sweep` ends with)
  expect 1 "" -- grep -q $'\x1b' mpi1.log
  expect 2 "--resume and --overwrite exclude each other" -- \
    mpirun --allow-run-as-root -n 1 "$mpi_sweep" "$small" --resume --overwrite -o mpi1.h5
  # Interrupted, rank 0 stops handing out points, keeps those that finished and removes its lock;
  # --resume completes the store. A signal to rank 0 ends the job with 128 + the signal; an
  # interrupted mpirun kills its ranks itself (its own exit status), the store intact.
  mpi_interrupted() { # mpi_interrupted FILE rank0|mpirun SIGNAL: runs the MPI sweep, signals one after 2 points
    env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" CEILING_SLOW_S=0.5 \
      mpirun --allow-run-as-root --oversubscribe -n 3 "$mpi_sweep" "$small" -o "$1" >"$tmp/$1.log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 600); do
      [ "$(grep -o 'seed' "$tmp/$1.log" | wc -l)" -ge 2 ] && break
      sleep 0.05
    done
    if [ "$2" = mpirun ]; then
      kill "-$3" "$pid"
    else # (every rank has the same command line; Open MPI tells each its rank)
      for p in $(pgrep -f "^$mpi_sweep $small -o $1"); do
        grep -qxz OMPI_COMM_WORLD_RANK=0 "/proc/$p/environ" 2>/dev/null && kill "-$3" "$p"
      done
    fi
    wait "$pid"
    echo $? >"$tmp/$1.status"
  }
  # resumed_as_whole FILE PREFIX: FILE holds some of the points, and --resume over MPI completes
  # it as the uninterrupted sweep's store.
  resumed_as_whole() {
    n=$(stored "$1")
    expect 0 "" -- test "$n" -ge 2 -a "$n" -lt 64
    expect 0 "wrote $1: 64 points, 0 failed" -- \
      mpirun --allow-run-as-root --oversubscribe -n 3 "$mpi_sweep" "$small" --resume -o "$1"
    tables "$2" "$1"
    same a "$2"
  }
  mpi_interrupted mpi_term.h5 rank0 TERM
  expect 0 "143" -- cat "$tmp/mpi_term.h5.status"
  expect 0 "interrupted: " -- cat "$tmp/mpi_term.h5.log"
  expect 1 "" -- test -e mpi_term.h5.lock
  resumed_as_whole mpi_term.h5 h
  mpi_interrupted mpi_int.h5 mpirun INT
  expect 1 "" -- test "$(cat "$tmp/mpi_int.h5.status")" = 0
  resumed_as_whole mpi_int.h5 i
  # --help over several ranks ends (its workers waited for work forever).
  expect 0 "usage: " -- timeout 60 mpirun --allow-run-as-root --oversubscribe -n 3 "$mpi_sweep" --help

  # A failing point is recorded with its error; the others go on; the exit status is 3.
  expect 3 "wrote failing.h5: 64 points, 16 failed" -- \
    env CEILING_POINT_PROGRAM="$root/tests/sweep/fail_nodes_4.sh" CEILING_REAL="$ceiling" \
    "$ceiling" sweep "$small" -o failing.h5
  tables g failing.h5
  expect 0 "failed,the point's process exited with status 7: simulated failure on 4 nodes" -- cat g/points.csv
  expect 0 "" -- test "$(grep -c ',failed,' g/points.csv)" -eq 16
  # A --resume cut short before the failed points ran again keeps their records (errors and all).
  cp failing.h5 cut-resume.h5
  env CEILING_POINT_PROGRAM="$root/tests/sweep/slow_point.sh" CEILING_REAL="$ceiling" CEILING_SLOW_S=30 \
    "$ceiling" sweep "$small" --resume -j 1 -o cut-resume.h5 >"$tmp/cut-resume.out" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do grep -q "to run" "$tmp/cut-resume.out" && break; sleep 0.05; done
  sleep 0.5
  kill -INT "$pid"
  wait "$pid"
  expect 130 "" -- bash -c "exit $?"
  expect 0 "16 to run, 48 already in cut-resume.h5" -- cat "$tmp/cut-resume.out"
  # (stopped before a point was stored, it is as it was, byte for byte: its command lines too)
  expect 0 "" -- cmp failing.h5 cut-resume.h5
  tables k cut-resume.h5
  expect 0 "" -- test "$(grep -c ',failed,the point.s process exited with status 7' k/points.csv)" -eq 16
  # --resume runs the failed points again (here with the real point program: they succeed).
  expect 0 "16 to run, 48 already in failing.h5" -- "$ceiling" sweep "$small" --resume -o failing.h5
  tables h failing.h5
  same a h

  # A different experiment text is refused by --resume.
  sed 's/iterations = 3/iterations = 2/' "$small" >"$tmp/edited.toml"
  sed -i "s|\.\./\.\./|$root/|" "$tmp/edited.toml"
  expect 2 "small.h5 was made from another experiment text or other input files" -- \
    "$ceiling" sweep "$tmp/edited.toml" --resume -o small.h5

  # The same experiment reached by another path (from another directory) is refused by --resume:
  # the points' commands would name their files in two ways.
  expect 2 "small.h5 was made from the experiment \"$small\" (as typed, from the directory the sweep ran in), this is \"sweep/small.toml\"" -- \
    bash -c "cd '$root/tests' && '$ceiling' sweep sweep/small.toml --resume -o '$tmp/small.h5'"

  # More jobs than file descriptors allow: the sweep goes on with the points already running.
  expect 0 "going on with" -- bash -c "ulimit -n 40; '$ceiling' sweep '$small' -j 30 -o fds.h5"
  expect 0 "wrote fds2.h5: 64 points, 0 failed" -- bash -c "ulimit -n 40; '$ceiling' sweep '$small' -j 30 -o fds2.h5"

  # Two sweeps on one output: the second is refused while the first runs.
  "$ceiling" sweep "$small" -j 1 -o locked.h5 >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do [ -e locked.h5.lock ] && break; sleep 0.05; done
  expect 2 "another sweep is writing locked.h5 (locked.h5.lock is locked)" -- \
    "$ceiling" sweep "$small" --resume -o locked.h5
  kill -INT "$pid"
  wait "$pid" 2>/dev/null
  expect 0 "" -- test ! -e locked.h5.lock
  # A file named as the lock that no sweep made is refused and kept; a lock a killed sweep left
  # (its text) is taken, and removed at the end.
  printf 'my notes\n' >notes.h5.lock
  expect 2 "notes.h5.lock exists and is not a sweep's lock (the sweep of notes.h5 takes that name while it runs)" -- \
    "$ceiling" sweep "$small" -o notes.h5
  expect 0 "my notes" -- cat notes.h5.lock
  expect 1 "" -- test -e notes.h5
  printf 'ceiling sweep lock\n' >left.h5.lock
  expect 0 "wrote left.h5: 64 points, 0 failed" -- "$ceiling" sweep "$small" -o left.h5
  expect 1 "" -- test -e left.h5.lock
  # --overwrite replaces a result store, not a file of another kind named by mistake.
  cp "$small" notes.toml
  expect 2 "notes.toml exists and is not a result store (an HDF5 file): --overwrite replaces only a result store" -- \
    "$ceiling" sweep "$small" --overwrite -o notes.toml
  expect 0 "" -- cmp -s "$small" notes.toml

  # An input file edited during the sweep: the point is not stored, the sweep stops (exit 2).
  mkdir -p edit
  sed "s|\"\.\./|\"$root/|g" "$root/workloads/resnet50_v1.toml" >edit/w.toml # its platforms by absolute paths
  sed "s|\.\./\.\./workloads/resnet50_v1.toml|$tmp/edit/w.toml|; s|\.\./\.\./|$root/|" "$small" >edit/e.toml
  expect 2 "edit/w.toml changed during the sweep" -- env CEILING_POINT_PROGRAM="$root/tests/sweep/edit_input.sh" \
    CEILING_REAL="$ceiling" CEILING_EDIT_FILE="$tmp/edit/w.toml" "$ceiling" sweep edit/e.toml -j 1 -o edit.h5

  # A worker that dies by a signal: its point is stored as failed with the reason, the sweep goes on
  # (exit 3: some point failed), the others are done.
  expect 3 "wrote died.h5: 64 points, 1 failed" -- env CEILING_POINT_PROGRAM="$root/tests/sweep/die_once.sh" \
    CEILING_REAL="$ceiling" CEILING_COUNT_FILE="$tmp/died.count" "$ceiling" sweep "$small" -j 1 -o died.h5
  "$ceiling" export died.h5 --csv died >/dev/null
  expect 0 "" -- grep -q "the point's process was ended by signal 9 (Killed)" died/points.csv

  # Workload files a calibration is borrowed from are inputs too (AlexNet borrows ResNet-50's).
  sed "s|\.\./\.\./workloads/resnet50_v1.toml|$root/workloads/alexnet.toml|; s|\.\./\.\./|$root/|; s|^nodes = .*|nodes = [1]|" \
    "$small" >borrow.toml
  expect 0 "wrote borrow.h5" -- "$ceiling" sweep borrow.toml -o borrow.h5
  expect 0 "workloads/resnet50_v1.toml" -- /usr/bin/python3 -c \
    "import h5py; print([p.decode() for p in h5py.File('borrow.h5')['inputs/path'][:]])"
  # The lender is a "calibration lender"; a workload the experiment runs is a "workload", even
  # where a workload listed before it borrows its calibration.
  expect 0 "calibration lender resnet50_v1.toml" -- /usr/bin/python3 -c "
import h5py, os
f = h5py.File('borrow.h5')
print(*[k.decode() + ' ' + os.path.basename(p.decode()) for k, p in zip(f['inputs/kind'][:], f['inputs/path'][:])])"
  awk -v w="$root/workloads/resnet50_v1.toml" '{ print } /^file = ".*alexnet.toml"$/ {
         print "\n[[workloads]]\nname = \"ResNet-50 itself\"\nfile = \"" w "\"" }' borrow.toml >both.toml
  expect 0 "wrote both.h5" -- "$ceiling" sweep both.toml -o both.h5
  expect 0 "workload resnet50_v1.toml" -- /usr/bin/python3 -c "
import h5py, os
f = h5py.File('both.h5')
print(*[k.decode() + ' ' + os.path.basename(p.decode()) for k, p in zip(f['inputs/kind'][:], f['inputs/path'][:])])"
}

outputs() {
  # Pictures and the report, of the small sweep's first platform and variant (a quarter of its
  # panels: matplotlib's time goes with the panels).
  sed "s|\.\./\.\./|$root/|" "$small" |
    awk '/^\[\[platforms\]\]/ { p++ } /^\[\[workloads\]\]/ { p = 0 } /^\[\[variants\]\]/ { v++ } !(p == 2 || v == 2)' >pictures.toml
  expect 0 "wrote pictures.h5: 16 points, 0 failed" -- "$ceiling" sweep pictures.toml -j 2 -o pictures.h5
  expect 0 "speedup.png" -- "$ceiling" plot pictures.h5 -o plots
  expect 0 "" -- test -s plots/speedup.svg
  # The same store draws the same bytes, SVG included (whose layout the solver varied).
  "$ceiling" plot pictures.h5 -o plots-again >/dev/null
  expect 0 "" -- diff -r plots plots-again
  # A file already named as a figure's temporary one is someone's: drawn beside, it stays.
  echo mine >plots-again/speedup.png.tmp
  expect 0 "speedup.png" -- "$ceiling" plot pictures.h5 -o plots-again
  expect 0 "mine" -- cat plots-again/speedup.png.tmp
  expect 0 "" -- cmp plots/speedup.png plots-again/speedup.png
  rm plots-again/speedup.png.tmp
  # A folder whose name starts with '-' is a folder, not an option; a store whose name is not
  # UTF-8 is reported on (its name shown as far as it is UTF-8).
  expect 0 "wrote -dash/speedup.png" -- "$ceiling" plot pictures.h5 -o -dash
  cp pictures.h5 $'not-utf8-\xff.h5'
  expect 0 "report.md" -- "$ceiling" report $'not-utf8-\xff.h5'
  expect 0 "**result file:** \`not-utf8-" -- grep -a "result file" $'not-utf8-\xff-report/report.md'
  expect 0 "report.html" -- "$ceiling" report pictures.h5 -o report
  touch a_file
  expect 2 "a_file: is a file, not a folder: -o names the folder the pictures go to" -- "$ceiling" report pictures.h5 -o a_file
  expect 0 "Ceiling" -- cat report/report.md
  expect 0 "N ref: the curve's smallest finished N" -- cat report/report.md

  # Interrupted, plot and report end with 128 + the signal, say so in a line (no Python
  # traceback) and leave no temporary file: the one being written is removed. The signal comes
  # once the first figure is written, while the others are drawn.
  for sig in INT:130 TERM:143; do
    status=${sig#*:} sig=${sig%:*}
    "$ceiling" report pictures.h5 -o "cut-$sig" >"cut-$sig.out" 2>"cut-$sig.err" &
    pid=$!
    for _ in $(seq 1 600); do
      grep -q "^wrote" "cut-$sig.out" 2>/dev/null && break
      sleep 0.05
    done
    kill -"$sig" "$pid"
    wait "$pid"
    expect "$status" "" -- bash -c "exit $?"
    expect 0 "ceiling: interrupted: the files written before stay" -- cat "cut-$sig.err"
    expect 1 "" -- grep -q Traceback "cut-$sig.err"
    expect 0 "" -- test -z "$(find "cut-$sig" -name '*.tmp')"
  done
  expect 0 "data:image/png;base64," -- cat report/report.html
  # A curve of one node count has nothing measured beyond its reference: no efficiency at a
  # largest N, no N reached or not.
  sed -e 's/^nodes = \[1, 2, 4, 8\]$/nodes = [4]/' -e 's/^scaling = .*$/scaling = ["weak"]/' -e '/^global_batch/d' \
    -e '/^seeds = /d' pictures.toml >one_n.toml
  expect 0 "wrote one_n.h5: 1 point, 0 failed" -- "$ceiling" sweep one_n.toml -o one_n.h5
  expect 0 "report.html" -- "$ceiling" report one_n.h5 -o one_n_report
  expect 0 "N at E = 0.5 (simulated) | — (one node count: nothing measured)" -- cat one_n_report/report.md
  expect 1 "" -- grep -q "not reached (largest N" one_n_report/report.md
  # Plotted into a folder of another store's figures, it removes those it does not have.
  cp -r plots one_n_plots
  expect 0 "removed one_n_plots/speedup.png: a figure of an earlier run, which this store does not have" -- \
    "$ceiling" plot one_n.h5 -o one_n_plots
  expect 0 "" -- test ! -e one_n_plots/speedup.svg
  expect 0 "" -- test -s one_n_plots/breakdown.png
  # Plotted into a folder of another store's report, it removes the report, which spoke of the
  # figures replaced; into its own store's report folder, it keeps the report, still true.
  cp -r report report_then_plot
  expect 0 "removed report_then_plot/report.md: a report of an earlier run, whose figures this run replaced" -- \
    "$ceiling" plot one_n.h5 -o report_then_plot
  expect 0 "" -- test ! -e report_then_plot/report.html
  expect 0 "" -- test -s report_then_plot/breakdown.png
  cp one_n_report/report.md one_n_report.md
  expect 0 "wrote one_n_report/breakdown.png" -- "$ceiling" plot one_n.h5 -o one_n_report
  expect 0 "" -- cmp one_n_report/report.md one_n_report.md
  expect 0 "" -- test -s one_n_report/report.html
  # A report.md that no `ceiling report` wrote is someone's: kept. So are CSV tables export did not write.
  mkdir -p own_notes && echo "my own notes" >own_notes/report.md
  expect 0 "wrote own_notes/breakdown.png" -- "$ceiling" plot one_n.h5 -o own_notes
  expect 0 "my own notes" -- cat own_notes/report.md
  expect 2 "own_notes/report.md: exists and is not a report \`ceiling report\` wrote" -- "$ceiling" report one_n.h5 -o own_notes
  expect 0 "my own notes" -- cat own_notes/report.md
  mkdir -p own_csv && echo "mine" >own_csv/points.csv
  expect 2 "--csv: own_csv/points.csv exists and is not a table \`export\` wrote" -- "$ceiling" export one_n.h5 --csv own_csv
  expect 0 "mine" -- cat own_csv/points.csv

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
  # A store damaged by EDIT (h5py on `f`, the file opened for writing) is refused by every reader
  # with MESSAGE.
  damaged() { # NAME EDIT MESSAGE
    cp pictures.h5 "$1.h5"
    expect 0 "" -- /usr/bin/python3 -c "import h5py; f = h5py.File('$1.h5', 'r+'); $2; f.close()"
    for command in plot report "export --csv x"; do
      expect 2 "$1.h5: error: $3" -- "$ceiling" $command "$1.h5"
    done
  }
  # A store whose points repeat a point of the expansion: its rows named.
  damaged repeated "i = f['points/index']; i[...] = i[0]" 'dataset "points/index": rows 0 and 1 both hold point'
  # Numbers no run gives, in a finished point or a curve: the row named.
  damaged nan "f['points/iteration_time_s'][0] = float('nan')" 'group "points": row 0: iteration_time_s of a finished point is nan'
  damaged negative "f['curves/curve_000/efficiency'][0] = -5" \
    'dataset "curves/curve_000/efficiency": row 0: expected a positive number, got -5'
  # A point that does not fit is stored with the ranks and the batch it would have run.
  printf '%s\n' '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 2]' 'scaling = ["strong"]' \
    'global_batch = 8192' 'iterations = 2' '[[platforms]]' 'name = "p"' "file = \"$root/platforms/generic-fat-tree.toml\"" \
    '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\"" >"$tmp/unfit.toml"
  expect 0 "wrote unfit.h5: 2 points, 0 failed, 2 do not fit in device memory" -- "$ceiling" sweep "$tmp/unfit.toml" -j 1 -o unfit.h5
  expect 0 "[2, 4] [4096, 2048]" -- /usr/bin/python3 -c \
    "import h5py; f = h5py.File('unfit.h5'); print(list(map(int, f['points/ranks'][:])), list(map(int, f['points/batch_per_rank'][:])))"
  # (the plotting script, were it run alone, refuses what it draws from: a finished point's time,
  # a curve's times, throughputs, speedups and efficiencies)
  expect 2 'nan.h5: /points/iteration_time_s: row 0: nan for a finished point, expected a positive time' -- \
    /usr/bin/python3 "$root/tools/plot/ceiling_plot.py" plot nan.h5
  expect 2 'negative.h5: /curves/curve_000/efficiency: expected positive numbers, got -5' -- \
    /usr/bin/python3 "$root/tools/plot/ceiling_plot.py" plot negative.h5
  # The store keeps paths as UTF-8, which report and plot read as such: a path that is not is refused.
  expect 2 "the experiment file's path is not UTF-8 text" -- "$ceiling" sweep $'not-utf8-\xff.toml'

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
  # (each option is placed where it is written, not at its variant's header)
  expect 2 'bad.toml:14:13: error: variants[0].options.colective: not an option of `ceiling run` (did you mean "collective"?)' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  sed -i 's/colective = "ring"/collective = "rign"/' "$tmp/bad.toml"
  # (a point that cannot run is placed at the option its error names)
  expect 2 'bad.toml:14:13: error: variants[0].options.collective: point 0 (p / w / v / weak, 1 node) cannot run: --collective: unknown algorithm "rign"' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # (and at --software where a key of the stack's file stands in the way)
  sed -i 's/collective = "rign"/software = "horovod-nccl"/; s|platforms/generic-fat-tree.toml|platforms/piz-daint-xc30-cpu.toml|' \
    "$tmp/bad.toml"
  expect 2 'bad.toml:14:13: error: variants[0].options.software: point 0 (p / w / v / weak, 1 node) cannot run: platforms/software/horovod-nccl.toml:7:11: error: software.library: NCCL runs on GPUs, but' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  sed -i 's/software = "horovod-nccl"/collective = "rign"/; s|platforms/piz-daint-xc30-cpu.toml|platforms/generic-fat-tree.toml|' \
    "$tmp/bad.toml"
  # (at the platform where it names the stack and the variant names none)
  printf '%s\n' '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 2]' 'scaling = ["weak"]' \
    '[[platforms]]' 'name = "p"' "file = \"$root/platforms/piz-daint-xc30-cpu.toml\"" 'set = ["platform.software=horovod-nccl"]' \
    '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\"" \
    '[[variants]]' 'name = "v"' 'options = { collective = "ring" }' >"$tmp/bad-stack.toml"
  expect 2 'bad-stack.toml:6:1: error: platforms[0]: point 0 (p / w / v / weak, 1 node) cannot run: platforms/software/horovod-nccl.toml:7:11: error: software.library: NCCL runs on GPUs' -- \
    "$ceiling" experiment show "$tmp/bad-stack.toml"
  # (and at the variant's option without which the point runs, where a key of the platform's file
  # stands in the way of the stack the option names: the platform runs other stacks)
  sed -i 's|platforms/piz-daint-xc30-cpu.toml|platforms/generic-fat-tree.toml|; /^set = /d; s/collective = "ring"/software = "horovod-nccl"/' \
    "$tmp/bad-stack.toml"
  expect 2 'bad-stack.toml:14:13: error: variants[0].options.software: point 0 (p / w / v / weak, 1 node) cannot run: '"$root"'/platforms/generic-fat-tree.toml:17:1: error: node.gpu.compute_capability' -- \
    "$ceiling" experiment show "$tmp/bad-stack.toml"
  sed -i 's/collective = "rign"/allow-oversubscribed-memory = true/' "$tmp/bad.toml"
  expect 2 'bad.toml:14:13: error: variants[0].options.allow-oversubscribed-memory: a switch of `ceiling run`' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # (at --precision where the platform lacks that precision's peak: Piz Daint's CPU nodes, fp16)
  sed -i 's/allow-oversubscribed-memory = true/precision = "fp16"/; s|platforms/generic-fat-tree.toml|platforms/piz-daint-xc30-cpu.toml|' \
    "$tmp/bad.toml"
  expect 2 'bad.toml:14:13: error: variants[0].options.precision: point 0 (p / w / v / weak, 1 node) cannot run: --precision: fp16 needs a fp16 peak' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  sed -i 's/precision = "fp16"/collective = "rign"/; s|platforms/piz-daint-xc30-cpu.toml|platforms/generic-fat-tree.toml|' "$tmp/bad.toml"
  # -o naming one of the inputs is refused before anything is written over.
  sed "s|\"../../|\"$root/|" "$small" >"$tmp/input.toml"
  expect 2 "input.toml is the sweep's experiment file: -o names the result file" -- \
    "$ceiling" sweep "$tmp/input.toml" --overwrite -o "$tmp/input.toml"
  expect 0 "[experiment]" -- cat "$tmp/input.toml"
  sed -i 's/collective = "rign"/nodes = 4/' "$tmp/bad.toml"
  expect 2 "bad.toml:14:13: error: variants[0].options.nodes: set by the experiment for each point" -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # Options a point never takes: several runs in one, or output a sweep does not read.
  sed -i 's/nodes = 4/seeds = "1,2"/' "$tmp/bad.toml"
  expect 2 "bad.toml:14:13: error: variants[0].options.seeds: runs several runs in one; an experiment's \`seeds\` gives a point per seed" -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  sed -i 's/seeds = "1,2"/trace = "t.json"/' "$tmp/bad.toml"
  expect 2 "bad.toml:14:13: error: variants[0].options.trace: prints what a sweep does not read" -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  sed -i 's/trace = "t.json"/nodes = 4/' "$tmp/bad.toml"
  # A misspelt required key is named where it is written, rather than said missing.
  bad '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 2]' 'scalng = ["weak"]' \
    '[[platforms]]' 'name = "p"' "file = \"$root/platforms/generic-fat-tree.toml\"" \
    '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\""
  expect 2 'bad.toml:5:1: error: experiment.scalng: unknown key (did you mean "scaling"?)' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # A cost unit without costs is refused at the unit.
  sed -i 's/^scalng = /scaling = /; s/^question = "q"$/question = "q"\ncost_unit = "kUSD"/' "$tmp/bad.toml"
  expect 2 "bad.toml:4:13: error: experiment.cost_unit: names the unit of the platforms' cost_per_node, but no platform gives one" -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # A node count beyond the machine is said at `nodes`, with the machine's size.
  bad '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 128]' 'scaling = ["weak"]' \
    '[[platforms]]' 'name = "p"' "file = \"$root/platforms/generic-fat-tree.toml\"" \
    '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\""
  expect 2 'bad.toml:4:9: error: experiment.nodes: 128 nodes, more than the 64 of platforms[0] "p" (its platform.nodes)' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  # A global batch that does not divide among a point's ranks is said at that global batch.
  bad '[experiment]' 'title = "t"' 'question = "q"' 'nodes = [1, 3]' 'scaling = ["strong"]' 'global_batch = 64' \
    '[[platforms]]' 'name = "p"' "file = \"$root/platforms/generic-fat-tree.toml\"" \
    '[[workloads]]' 'name = "w"' "file = \"$root/workloads/resnet50_v1.toml\""
  expect 2 'bad.toml:6:16: error: experiment.global_batch: point 1 (p / w / baseline / strong, 3 nodes) cannot run: --global-batch: 64 samples' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
  printf 'global_batch = 96\n' >>"$tmp/bad.toml"
  sed -i -e 's/^nodes = \[1, 3\]$/nodes = [1, 5]/' -e '/^global_batch = 64$/d' "$tmp/bad.toml" # (the workload's own alone)
  expect 2 'bad.toml:12:16: error: workloads[0].global_batch: point 1 (p / w / baseline / strong, 5 nodes) cannot run: --global-batch: 96 samples' -- \
    "$ceiling" experiment show "$tmp/bad.toml"
}

case $part in
  store) store ;;
  outputs) outputs ;;
  both) store; outputs ;;
  *) echo "sweep_test.sh: unknown part $part (store, outputs or both)" >&2; exit 2 ;;
esac
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
