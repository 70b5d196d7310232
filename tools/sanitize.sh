#!/usr/bin/env bash
# The sanitizer pass: the tree built with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang; any report aborts the test that made it) in build-sanitize/ (tools/sanitized_tree.sh,
# shared with tools/fuzz.sh), then the test suite there but for its nine slowest tests (each
# over 45 s under the sanitizers: both parts of the sweep script, the sweep cut 50 times, the CLI script
# (its signal waits), the aggregated-against-exact comparison, the HPC, bisection, validation and
# h5py scripts), which run the same code as the others on larger inputs. Part of the README's test
# command. Usage:
#   bash tools/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/sanitized_tree.sh
cmake --build build-sanitize -j2
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp # HDF5's own leaks on damaged files
ctest --test-dir build-sanitize -j2 --output-on-failure \
  -E "sweep: store, resume|sweep: plot, report|sweep: cut 50 times|cli: commands, determinism|aggregated collectives stay within|hpc: HPL and HPCG|bisection exchange reaches|validate: every validation|io: result file read by"
