#!/usr/bin/env bash
# A result file read by tools outside the project: h5dump (hdf5-tools) dumps it whole, and
# h5py and pandas read it as README.md ("Result store") shows. Usage: h5_tools_test.sh CEILING
# SOURCE_DIR; the file is a real sweep's, of the test experiment.
set -eu
ceiling=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample=$tmp/sample.h5

"$ceiling" sweep "$root/tests/sweep/small.toml" -o "$sample" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; exit 1; }
[ -f "$sample" ] || { echo "FAIL: no sample written at $sample"; exit 1; }

h5dump -H "$sample" >"$tmp/header"
for expected in 'ATTRIBUTE "format"' 'GROUP "inputs"' 'GROUP "points"' 'GROUP "curve_001"' \
  'DATASET "iteration_time_s"' 'H5T_CSET_UTF8' 'H5T_IEEE_F64LE' 'H5T_STD_I64LE'; do
  grep -qF "$expected" "$tmp/header" || { echo "FAIL: h5dump -H shows no $expected"; exit 1; }
done
h5dump "$sample" >/dev/null || { echo "FAIL: h5dump cannot read the data"; exit 1; }

/usr/bin/python3 "$root/tests/io/read_with_h5py.py" "$sample"
