#!/usr/bin/env bash
# The `ceiling` commands: help, output on every bundled platform and workload, deterministic
# runs, exit status 2 and a clear message for bad input.
set -u
ceiling=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/support/expect.sh"

expect 0 "platform show FILE" -- "$ceiling" --help
expect 0 "--nodes" -- "$ceiling" platform show --help
expect 0 "--output" -- "$ceiling" platform export --help
expect 0 "--size" -- "$ceiling" platform bench --help
# (the sweep's own point command: its help, whole, then exit 0)
expect 0 "print this help and exit" -- "$ceiling" sweep-point --help
# (and refuses, in its result, what only `ceiling run` prints: a trace would not be written)
expect 0 "error --trace: a sweep's point does not take it" -- "$ceiling" sweep-point -p "$root/platforms/generic-fat-tree.toml" \
  -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 2 --trace "$tmp/point-trace.json"
for f in "$root"/platforms/*.toml; do
  expect 0 "route latency" -- "$ceiling" platform show "$f"
  expect 0 "route latency none (one node" -- "$ceiling" platform show "$f" --nodes 1
  expect 0 '"bisection_bandwidth_bytes_per_s"' -- "$ceiling" platform show "$f" --json --nodes 2
done
# The benchmarks of a machine of one node are refused at its size, not at a --nodes not given.
expect 2 "--set:1:16: error: platform.nodes: the machine has 1 node; the benchmarks need at least 2" -- \
  "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --set platform.nodes=1
# A fat-tree's lists of another length than the others are refused at that list.
sed 's/^down = .*/down = [8]/' "$root/platforms/generic-fat-tree.toml" > "$tmp/ft_down.toml"
expect 2 "ft_down.toml:40:8: error: interconnect.down: impossible fat-tree shape: down, up and links must have one entry per level" -- \
  "$ceiling" platform show "$tmp/ft_down.toml"
# A CPU node's peaks and memory bandwidth for the node (its file gives them per socket: 2 x 166.4).
expect 0 "2 socket(s) x 8 cores; peak per node fp64 332.8 GFLOP/s" -- "$ceiling" platform show "$root/platforms/piz-daint-xc30-cpu.toml"
# The GPUs' device spread (platforms/README.md, "Device spread"), in text and JSON; none on a generic accelerator.
expect 0 "STREAM 499 GB/s each; device spread 0.92 %" -- "$ceiling" platform show "$root/platforms/piz-daint-xc50-p100.toml"
sed 's/^device_spread = 0.0092 /device_spread = 0.00123/' "$root/platforms/piz-daint-xc50-p100.toml" > "$tmp/daint_spread.toml"
expect 0 "device spread 0.123 %" -- "$ceiling" platform show "$tmp/daint_spread.toml"
expect 0 '"device_spread": 0.0091999999999999998' -- "$ceiling" platform show "$root/platforms/piz-daint-xc50-p100.toml" --json
expect 0 "device_spread 0 0.0092" -- /usr/bin/python3 -c "
import json, subprocess, sys
show = lambda f: json.loads(subprocess.run([sys.argv[1], 'platform', 'show', f, '--json'], capture_output=True, text=True, check=True).stdout)
print('device_spread', show(sys.argv[2])['gpu']['device_spread'], show(sys.argv[3])['gpu']['device_spread'])" \
  "$ceiling" "$root/platforms/generic-fat-tree.toml" "$root/platforms/piz-daint-xc50-p100.toml"
expect 0 "wrote" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 8 -o "$tmp/m.xml"
# "-" is no standard output here (that carries the line saying what was written): refused.
expect 2 'ceiling: error: -o: "-": writes a file, not standard output: give its path (./- for a file named so)' -- \
  bash -c 'cd "$1" && "$2" platform export "$3" --nodes 8 -o -' _ "$tmp" "$ceiling" "$root/platforms/generic-fat-tree.toml"
expect 1 "" -- test -e "$tmp/-"
# A name with "--" (which no XML comment may hold) still makes well-formed XML.
sed 's/^name = .*/name = "a--b <\&> q-"/' "$root/platforms/generic-fat-tree.toml" > "$tmp/dashes.toml"
expect 0 "wrote" -- "$ceiling" platform export "$tmp/dashes.toml" --nodes 4 -o "$tmp/dashes.xml"
expect 0 "well-formed" -- /usr/bin/python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print('well-formed')" "$tmp/dashes.xml"
# An output is written where the system would open it: through a folder that is not there, it
# is not (normalised, "missing/../pf.toml" named the input, which the output replaced); and the
# temporary file it is written to first is a new one (someone's own file of that name was
# replaced and removed).
cp "$root/platforms/generic-fat-tree.toml" "$tmp/pf.toml"
expect 2 "cannot create \"$tmp/missing/../pf.toml.tmp\": no such file or directory" -- \
  "$ceiling" platform export "$tmp/pf.toml" --nodes 4 -o "$tmp/missing/../pf.toml"
expect 0 "" -- cmp "$tmp/pf.toml" "$root/platforms/generic-fat-tree.toml"
cp "$root/platforms/generic-fat-tree.toml" "$tmp/keep.tmp"
expect 0 "wrote $tmp/keep" -- "$ceiling" platform export "$tmp/pf.toml" --nodes 4 -o "$tmp/keep"
expect 0 "" -- cmp "$tmp/keep.tmp" "$root/platforms/generic-fat-tree.toml"
expect 0 "<?xml" -- head -c 5 "$tmp/keep"
expect 1 "" -- test -e "$tmp/keep.tmp.1"
# An export replaces an earlier export (m.xml above), but no other file (a result store named by mistake).
printf 'HDF5 stand-in' >"$tmp/store_x.h5"
expect 2 "-o: $tmp/store_x.h5 exists and is not a platform that" -- \
  "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 4 -o "$tmp/store_x.h5"
expect 0 "HDF5 stand-in" -- cat "$tmp/store_x.h5"
expect 0 "wrote $tmp/m.xml" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 4 -o "$tmp/m.xml"
printf '  \n' >"$tmp/blank.xml" # (white space alone is no one's file)
expect 0 "wrote $tmp/blank.xml" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 4 -o "$tmp/blank.xml"
expect 0 "SimGrid's static minimal routes (the platform's adaptive routing is the replay's own, not exported)" -- \
  "$ceiling" platform export "$root/platforms/generic-dragonfly.toml" --nodes 4 -o "$tmp/d.xml"
expect 0 "ring all-reduce" -- "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --nodes 8

expect 2 'unknown command "frobnicate"' -- "$ceiling" frobnicate
expect 2 'unknown subcommand "shwo"' -- "$ceiling" platform shwo x.toml
expect 2 "missing platform FILE" -- "$ceiling" platform show
expect 2 "nope.toml: error: cannot open the file for reading" -- "$ceiling" platform show nope.toml
expect 2 "--nodes: the node count must be at least 1, got 0" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --nodes 0
expect 2 "nodes, fewer than the 100000 asked for" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --nodes 100000
expect 2 "--frob: unknown option; --help lists them" -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" --frob
expect 2 '--size: unknown unit "parsecs"' -- \
  "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --size "3 parsecs"
expect 2 "--nodes: at most 1024, got 1025: the step-by-step ring costs O(N^3)" -- \
  "$ceiling" platform bench "$root/platforms/piz-daint-xc50-p100.toml" --nodes 1025
expect 2 "more than the limit (1 B): use fewer nodes" -- "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" \
  -w "$root/workloads/resnet50_v1.toml" -n 2 --max-memory "1 B"
expect 2 "--nodes is required" -- "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" -o "$tmp/x.xml"
printf '[platform]\nname = "x"\nnodes = 4\nbandwith = 3\n' >"$tmp/bad.toml"
expect 2 "bad.toml:4:1: error: platform.bandwith: unknown key" -- "$ceiling" platform show "$tmp/bad.toml"

# Workloads: every bundled training one shows, with a platform prediction; the HPC ones point at `ceiling hpc`.
expect 2 "run it with \`ceiling hpc\`" -- "$ceiling" workload show "$root/workloads/hpl.toml"
for f in "$root"/workloads/*.toml; do
  case "$f" in */hpl.toml|*/hpcg.toml) continue ;; esac
  expect 0 "calibration" -- "$ceiling" workload show "$f" --platform "$root/platforms/piz-daint-xc50-p100.toml"
  expect 0 '"device_checks"' -- "$ceiling" workload show "$f" --json
done
# A precision a measured device has no peak for is placed at the workload's precision (the
# workload's copy beside the platforms its measurements name).
mkdir -p "$tmp/fp16/workloads"
ln -sfn "$root/platforms" "$tmp/fp16/platforms"
ln -sfn "$root/validation" "$tmp/fp16/validation"
sed 's/^precision = "fp32"/precision = "fp16"/' "$root/workloads/resnet50_v1.toml" >"$tmp/fp16/workloads/resnet50_v1.toml"
expect 2 "resnet50_v1.toml:22:13: error: workload.precision: fp16 needs a fp16 peak, which the device of device_calibration[1]'s measurement, the NVIDIA Tesla K80 (one GK210 die) of aws-p2-8xlarge, does not have" -- \
  "$ceiling" workload show "$tmp/fp16/workloads/resnet50_v1.toml"
# A device calibration's own half batch, in text and JSON (BERT-large SQuAD's in mixed precision; its fp32 one is the
# workload's).
expect 0 "in mixed under tensorflow, batch 3 (half batch 6.208): predicted 17.17" -- "$ceiling" workload show "$root/workloads/bert_large_squad.toml"
bert_checks() { # (its JSON on one line, so that a pattern holds a check's half batch and whose it is)
  local out
  out=$("$ceiling" workload show "$root/workloads/bert_large_squad.toml" --json) || return
  tr -d '\n' <<<"$out"
}
expect 0 '"half_batch": 6.2080000000000002,      "own_half_batch": true' -- bert_checks
expect 0 '"half_batch": 0.97399999999999998,      "own_half_batch": false' -- bert_checks
# A measurement that accumulated gradients says over how many steps its one optimizer update ran (text and JSON).
expect 0 "in mixed under pytorch, batch 4, one update per 8192 steps: predicted 36, measured 36" -- \
  "$ceiling" workload show "$root/validation/workloads/bert_large_pretrain_seq512.toml"
expect 0 '"accumulation": 2048' -- "$ceiling" workload show "$root/validation/workloads/bert_large_pretrain_seq512.toml" --json
# A device calibration says the framework it was measured under (JSON and text).
expect 0 '"calibration_framework": "mxnet"' -- "$ceiling" workload show "$root/workloads/resnet50_v1.5.toml" --json
expect 0 "A100 SXM4 40 GB in mixed under mxnet, batch 256: predicted 2180" -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.5.toml"
# The per-precision prediction says which calibration priced it (a stack naming no framework's).
expect 0 "(priced by NVIDIA A100 SXM4 40 GB in mixed under pytorch)" -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.5.toml" -p "$root/validation/platforms/dgxa100.toml"
expect 0 '"calibration": "the workload'"'"'s calibration, fitted on NVIDIA Tesla V100 SXM2 16 GB: uncalibrated on this GPU' -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.5.toml" -p "$root/validation/platforms/dgxa100.toml" --json
# ... and, as a run does, that the workload's GPU fit leaves CPU nodes uncalibrated.
expect 0 "(priced by the workload's calibration, fitted on a GPU: uncalibrated on these CPU nodes" -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.toml" -p "$root/platforms/piz-daint-xc30-cpu.toml"
# A batch beyond the device's memory: the JSON names the device and says why, as the text does.
expect 0 '"device": "NVIDIA Tesla K20X",' -- "$ceiling" workload show "$root/workloads/resnet50_v1.toml" \
  --platform "$root/platforms/piz-daint-xc30-k20x.toml" --batch 256 --json
expect 0 '"memory_shortfall": "a batch of 256 samples of resnet50_v1 per GPU needs at least' -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.toml" --platform "$root/platforms/piz-daint-xc30-k20x.toml" --batch 256 --json
expect 0 '"memory_shortfall": null' -- "$ceiling" workload show "$root/workloads/resnet50_v1.toml" --json
expect 2 "--batch: must be between 1 and 10000000, got 99999999999" -- \
  "$ceiling" workload show "$root/workloads/resnet50_v1.toml" --batch 99999999999
expect 0 "compute_efficiency = " -- "$ceiling" workload calibrate "$root/workloads/resnet50_v1.toml"
expect 2 "calibrate that workload instead" -- "$ceiling" workload calibrate "$root/workloads/cpn_r101_384x288.toml"
# A borrowed calibration with device calibrations of its own fits those.
expect 0 "on NVIDIA Tesla P100 SXM2 16 GB" -- "$ceiling" workload calibrate "$root/workloads/vgg16.toml"
# A compute efficiency above 1 (direct-convolution FLOPs where cuDNN ran Winograd) is said so.
expect 0 "compute efficiency 1.58, above 1: the workload counts direct-convolution FLOPs" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/vgg16.toml" -n 1 --iterations 1
expect 2 "--fusion-threshold: missing unit" -- "$ceiling" workload show "$root/workloads/vgg16.toml" --fusion-threshold 64

# Runs: a table, JSON, a trace; the same inputs and seed give the same bytes.
base=("$ceiling" run -p "$root/platforms/generic-dragonfly.toml" -w "$root/workloads/resnet50_v1.toml")
run=("${base[@]}" -n 8 --iterations 3)
expect 0 "mean" -- "${run[@]}"
expect 0 '"iteration_time_s"' -- "${run[@]}" --json --trace "$tmp/trace.json"
expect 0 '"traceEvents"' -- cat "$tmp/trace.json"
# The latencies of the ring steps an aggregated flow stands for are drawn after its bytes.
expect 0 '"name": "latency bucket 0"' -- cat "$tmp/trace.json"
# Each rank's time in each collective, joining to its end, on a process of its own.
expect 0 '"cat": "collective"' -- cat "$tmp/trace.json"
expect 0 '"name": "collective bucket 0"' -- cat "$tmp/trace.json"
expect 0 "nests: " -- python3 "$root/tests/cli/trace_nests.py" "$tmp/trace.json"
# workload calibrate --write puts each value where the file's TOML has its key (not on a line of a
# string that starts with its name), and a new workload's under its section's header.
/usr/bin/python3 - "$root" "$tmp/fit.toml" <<'PY'
import sys
root, out = sys.argv[1], sys.argv[2]
text = open(root + "/workloads/resnet50_v1.toml").read()
text = text.replace('"../platforms/', '"' + root + '/platforms/').replace('"../validation/', '"' + root + '/validation/')
lines = text.split("\n")
i = next(k for k, line in enumerate(lines) if line.startswith('source = "[R-102]'))
lines[i] = 'source = """x\ncompute_efficiency as fitted\n' + lines[i][len('source = "'):-1] + '"""'
open(out, "w").write("\n".join(lines).replace("compute_efficiency = 0.633734", "compute_efficiency = 0.5", 1))
PY
expect 0 "wrote $tmp/fit.toml" -- "$ceiling" workload calibrate "$tmp/fit.toml" --write
expect 0 "compute_efficiency = 0.633734            # written by" -- cat "$tmp/fit.toml"
expect 0 "compute_efficiency as fitted" -- cat "$tmp/fit.toml"
sed -i '/^compute_efficiency = /d' "$tmp/fit.toml"
expect 0 "wrote $tmp/fit.toml" -- "$ceiling" workload calibrate "$tmp/fit.toml" --write
expect 0 "compute_efficiency = 0.633734 # fitted by" -- grep -A1 '^\[calibration\]$' "$tmp/fit.toml"
# A [calibration] made by dotted keys has no header to write under: refused, the file left as it was.
/usr/bin/python3 - "$root" "$tmp/dotted.toml" <<'PY'
import sys
root, out = sys.argv[1], sys.argv[2]
lines = open(root + "/workloads/resnet50_v1.toml").read().replace('"../', '"' + root + '/').split("\n")
start = lines.index("[calibration]")
end = next(k for k in range(start + 1, len(lines)) if lines[k].startswith("["))
keys = ["calibration." + line for line in lines[start + 1:end] if "=" in line and not line.startswith("compute_efficiency")]
open(out, "w").write("\n".join(keys + lines[:start] + lines[end:]))
PY
cp "$tmp/dotted.toml" "$tmp/dotted_before.toml"
expect 2 "dotted.toml: a [calibration] or [[device_calibration]] without a header line of its own (an inline table, dotted keys) and without compute_efficiency" -- \
  "$ceiling" workload calibrate "$tmp/dotted.toml" --write
expect 0 "" -- cmp "$tmp/dotted.toml" "$tmp/dotted_before.toml"
# A trace never writes over a file the run reads, those the workload reads too: its calibration's
# and its device calibrations' platforms, the workload it borrows from (copies, lest a slip
# destroy the bundled ones).
mkdir -p "$tmp/tree/workloads" "$tmp/tree/validation"
cp -r "$root/platforms" "$tmp/tree/"
cp -r "$root/validation/platforms" "$tmp/tree/validation/"
cp "$root/workloads/resnet50_v1.toml" "$root/workloads/alexnet.toml" "$tmp/tree/workloads/"
for read in "calibration lender:workloads/resnet50_v1.toml" "calibration platform:platforms/dgx1-v100.toml" \
  "calibration platform:validation/platforms/aws-p2-8xlarge.toml"; do
  kind=${read%%:*} read=${read#*:}
  expect 2 "--trace: $tmp/tree/$read is the $kind file it reads, which it would write over" -- \
    "$ceiling" run -p "$tmp/tree/platforms/generic-fat-tree.toml" -w "$tmp/tree/workloads/alexnet.toml" -n 2 \
    --iterations 1 --trace "$tmp/tree/$read"
  expect 0 "" -- cmp "$tmp/tree/$read" "$root/$read"
done
# An error a --set causes at another key of the file says which overrides changed the file.
expect 2 "horovod-nccl.toml:9:14: error: software.collective: \"auto\" lets the library choose, but library = \"none\"" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --software horovod-nccl --set software.library=none
expect 2 "(the file as --set software.library=none leaves it)" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --software horovod-nccl --set software.library=none
# Parameter servers on level clocks whose classes' buffers the allocator put side by side (this
# run, its output into a file, on the tree's own build): every flow is listed again when the
# fans leave their clocks (a class iterated by address once looked empty, and the run crashed).
ps116=0
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/validation/workloads/inception_v3.toml" -n 128 \
  --software tf-parameter-server --batch 64 --servers 116 --staging host --iterations 3 >"$tmp/ps116.out" 2>&1 || ps116=$?
expect 0 "exit 0" -- echo "exit $ps116"
expect 0 "mean           0.479009" -- cat "$tmp/ps116.out"
# A platform's key that an overridden stack makes wrong names the stack's overrides.
expect 2 "the stack ideal runs NCCL, whose rules depend on the GPU's compute capability: expected one (such as 6.0 for a P100) (the stack as --set software.library=nccl leaves it)" -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set software.library=nccl
# A bundled stack's name means the bundled stack whatever the current directory holds: a file of
# that name there (a stack named "shadow") is read only as a path, and a folder of that name is
# no obstacle.
mkdir -p "$tmp/shadowing/file" "$tmp/shadowing/folder/ideal"
sed 's/^name = "ideal"/name = "shadow"/' "$root/platforms/software/ideal.toml" > "$tmp/shadowing/file/ideal"
in_dir() { (cd "$1" && shift && "$@"); }
for given in "" "--software ideal"; do
  # shellcheck disable=SC2086 # (the option, or none)
  expect 0 "2 ranks, software ideal, ring" -- in_dir "$tmp/shadowing/file" \
    "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 1 $given
  # shellcheck disable=SC2086
  expect 0 "2 ranks, software ideal, ring" -- in_dir "$tmp/shadowing/folder" \
    "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 1 $given
done
expect 0 "2 ranks, software shadow, ring" -- in_dir "$tmp/shadowing/file" \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 1 --software ./ideal
expect 2 "hpcg.toml:14:6: error: hpcg.nx: each multigrid level halves the grid: nx = 104 must be divisible by 2^(levels - 1) = 64 (the file as --set hpcg.levels=7 leaves it)" -- \
  "$ceiling" hpc -w "$root/workloads/hpcg.toml" -p "$root/platforms/piz-daint-xc50-p100.toml" -n 4 --set hpcg.levels=7
# A file of another kind is refused at the file, as without overrides: a --set cannot make a
# software stack a platform (the error blamed the override for the missing platform.name).
expect 2 "ideal.toml:1:1: error: platform: missing key: expected a table [platform]" -- \
  "$ceiling" run -p "$root/platforms/software/ideal.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set platform.nodes=4
expect 2 "generic-torus.toml:1:1: error: workload: missing key: expected a table [workload]" -- \
  "$ceiling" run -p "$root/platforms/generic-torus.toml" -w "$root/platforms/generic-torus.toml" -n 2 --set workload.batch_per_worker=4
# (and where the file's key of the kind, or a table an override goes through, is another value)
printf 'platform = 3\n' >"$tmp/p3.toml"
expect 2 "p3.toml:1:12: error: platform: expected a table ([platform]), got an integer" -- \
  "$ceiling" run -p "$tmp/p3.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set platform.nodes=4
printf 'interconnect = "x"\n[platform]\nname = "p"\nnodes = 2\n' >"$tmp/pi.toml"
expect 2 "pi.toml:1:16: error: interconnect: expected a table ([interconnect]), got a string" -- \
  "$ceiling" platform bench "$tmp/pi.toml" --set interconnect.topology=fat-tree
# A fat-tree's list of another length is refused at it though another list was overridden too.
expect 2 "--set:1:17: error: interconnect.up: impossible fat-tree shape" -- \
  "$ceiling" platform bench "$root/platforms/generic-fat-tree.toml" --set 'interconnect.down=[8,8]' --set 'interconnect.up=[1]'
# platform bench times the hardware alone: a software stack's costs are refused, not dropped.
for key in node.nic.send_overhead node.nic.receive_overhead node.pcie.copy_overhead; do
  expect 2 "ceiling: error: --set $key: a software stack's cost, which the benchmarks of the hardware alone do not pay" -- \
    "$ceiling" platform bench "$root/platforms/piz-daint-xc50-p100.toml" --nodes 4 --set "$key=\"1 ms\""
done
# A path in a file is resolved as the system resolves it: through a link to a folder, "../"
# climbs out of the folder linked to (a decoy beside the link, read before, is not read).
mkdir -p "$tmp/lx/platforms"
cp "$root/platforms/generic-torus.toml" "$tmp/lx/platforms/piz-daint-xc50-p100.toml"
ln -sfn "$root/experiments" "$tmp/lx/exp"
expect 0 "--platform $tmp/lx/exp/../platforms/piz-daint-xc50-p100.toml" -- "$ceiling" experiment show "$tmp/lx/exp/quickstart.toml"
# A trace replaces an earlier trace, but no other file (a result store named by mistake).
printf 'HDF5 stand-in' >"$tmp/store.h5"
expect 2 "--trace: $tmp/store.h5 exists and is not a trace" -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/alexnet.toml" -n 2 --iterations 1 --trace "$tmp/store.h5"
expect 0 "HDF5 stand-in" -- cat "$tmp/store.h5"
printf '{\n  "displayTimeUnit": "ms", "traceEvents": []}\n' >"$tmp/old_trace.json"
expect 0 "" -- "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/alexnet.toml" -n 2 --iterations 1 --trace "$tmp/old_trace.json"
expect 0 '"collective"' -- cat "$tmp/old_trace.json"
# A sparse gradient's all-gather as the stack's MPI library picks it: DIN's 1 kB item_bias
# table on 16 ranks under MPICH (16 kB in all, a power of two) by recursive doubling, its large
# tables by the ring.
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --software mpich \
  --iterations 1 --json >"$tmp/din.json"
expect 0 "recursive-doubling, ring" -- python3 -c "import json, sys
r = {x['name']: x['algorithm'] for x in json.load(open(sys.argv[1]))['reductions']}
print(r['sparse item_bias'] + ', ' + r['sparse item_emb'])" "$tmp/din.json"
# Over NCCL, Horovod gathers through MPI: horovod-nccl's all-gathers by MPICH's rules, or Open
# MPI's where the stack names it (16 kB in all, below its 50,000: Bruck).
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --software horovod-nccl \
  --iterations 1 --json >"$tmp/din_nccl.json"
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --software horovod-nccl \
  --set software.gather_library=openmpi --iterations 1 --json >"$tmp/din_ompi.json"
expect 0 "recursive-doubling, bruck" -- python3 -c "import json, sys
r = [{x['name']: x['algorithm'] for x in json.load(open(f))['reductions']}['sparse item_bias'] for f in sys.argv[1:]]
print(', '.join(r))" "$tmp/din_nccl.json" "$tmp/din_ompi.json"
# Parameter servers by count, or one per K workers (rounded up).
expect 0 "parameter servers: 16, placement greedy" -- "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" \
  -w "$root/workloads/din.toml" -n 61 --software tf-parameter-server --servers 1/4 --iterations 1
expect 2 'ceiling: error: --servers: expected a count of parameter servers (such as 4) or one per K workers (such as 1/4), got "2/4"' -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 8 --software tf-parameter-server --servers 2/4
expect 2 'ceiling: error: --servers: one per K workers needs K of 1 or more, got "1/0"' -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 8 --software tf-parameter-server --servers 1/0
# An iteration under a millisecond keeps its digits (six decimals would print 0.000026).
expect 0 "mean          2.593e-05" -- "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" \
  -w "$root/workloads/ncf.toml" -n 1 --batch 1 --iterations 2
# TensorFlow's parameter servers hold the tables: each push carries the touched rows and their
# ids, each next step's read the rows (DIN: a row per lookup, int32 ids, 64-wide fp32 item rows:
# 4 of every 260 bytes pushed are ids).
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --software tf-parameter-server \
  --servers 4 --iterations 1 >"$tmp/din_ps.txt"
expect 0 "sparse gradients: each worker pushes 13.45 MB per iteration to the tables' servers" -- cat "$tmp/din_ps.txt"
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --software tf-parameter-server \
  --servers 4 --iterations 1 --json >"$tmp/din_ps.json"
expect 0 "parameter-server, parameter-server, 0.015385" -- python3 -c "import json, sys
r = {x['name']: x for x in json.load(open(sys.argv[1]))['reductions']}
push, read = r['sparse item_emb'], r['pull item_emb']
print(push['algorithm'] + ', ' + read['algorithm'] + ', %.6f' % (1 - read['bytes'] / push['bytes']))" "$tmp/din_ps.json"
# Bytes are whole (6 ranks divide a ResNet-50 bucket into chunks of fractional bytes).
produce "$tmp/six.json" -- "${base[@]}" -n 6 --iterations 2 --json
expect 0 "whole bytes" -- python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
every = [d['warmup'], d['mean'], *d['iterations']]
assert all(float(b).is_integer() for it in every for b in it['bytes'].values()) and d['mean']['bytes']['nic'] > 0
print('whole bytes')" "$tmp/six.json"
# Each activity of a trace is named by its kind: parameter servers' pulls copy host->device,
# their pushes device->host, the optimizer computes (and no activity goes unnamed).
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 4 \
  --software tf-parameter-server --servers 2 --iterations 2 --trace "$tmp/ps_trace.json" >/dev/null
for name in '"name": "input copy"' '"name": "forward' '"name": "backward' '"name": "device->host' \
  '"name": "flow' '"name": "host->device' '"name": "optimizer"'; do
  expect 0 "$name" -- cat "$tmp/ps_trace.json"
done
expect 1 "" -- grep -q '"name": ""' "$tmp/ps_trace.json"
# Slices of one track nest (a rank's copies, flows and compute on tracks of their own).
expect 0 "nests: " -- python3 "$root/tests/cli/trace_nests.py" "$tmp/ps_trace.json"
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 16 \
  --software horovod-nccl --fusion-threshold "4 MiB" --iterations 2 --trace "$tmp/hvd_trace.json" >/dev/null
expect 0 "nests: " -- python3 "$root/tests/cli/trace_nests.py" "$tmp/hvd_trace.json"
produce "$tmp/a.json" -- "${run[@]}" --json --jitter 0.1 --seed 7
produce "$tmp/b.json" -- "${run[@]}" --json --jitter 0.1 --seed 7
produce "$tmp/c.json" -- "${run[@]}" --json --jitter 0.1 --seed 8
expect 0 "" -- cmp "$tmp/a.json" "$tmp/b.json"
expect 1 "differ" -- cmp "$tmp/a.json" "$tmp/c.json"
expect 2 'unknown algorithm "butterfly"' -- "${run[@]}" --collective butterfly
expect 2 "fewer than the 100 asked for" -- "${base[@]}" -n 100
expect 2 "ceiling: error: --precision: fp16 needs a fp16 peak, which the NVIDIA Tesla K20X of piz-daint-xc30-k20x does not have" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-k20x.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --precision fp16
# The workload's own precision is placed at its key, in the file or in the --set that gave it.
expect 2 "ssd300_resnet34.toml:57:13: error: workload.precision: fp16 needs a fp16 peak, which the 2 CPU socket(s) of piz-daint-xc30-cpu does not have: expected a precision the device has, or --precision" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/ssd300_resnet34.toml" -n 2
expect 2 "--set:1:20: error: workload.precision: fp16 needs a fp16 peak" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set workload.precision=fp16
expect 2 "--overlap: expected on or off" -- "${run[@]}" --overlap maybe
expect 2 "--jitter: must be a number from 0 to 10, got nan" -- "${run[@]}" --jitter nan
expect 2 "--iterations: must be from 1 to 1000000, got 0" -- "${base[@]}" -n 2 --iterations 0
expect 2 "--platform is required" -- "$ceiling" run -w "$root/workloads/resnet50_v1.toml" -n 2
expect 2 "--transfer-driver: expected auto, maestro or couriers" -- "${run[@]}" --transfer-driver fast
expect 2 "--copies: expected auto or simgrid" -- "${run[@]}" --copies none
expect 2 "--flows: expected auto or simgrid" -- "${run[@]}" --flows none
# The transfer driver changes the speed, never the results; --timing names the driver used.
produce "$tmp/couriers.json" -- "${run[@]}" --json --jitter 0.1 --seed 7 --transfer-driver couriers
expect 0 "" -- cmp "$tmp/a.json" "$tmp/couriers.json"
expect 0 "transfer driver couriers" -- "${run[@]}" --transfer-driver couriers --timing
expect 0 "transfer driver maestro" -- "${run[@]}" --timing
# PCIe copies under host staging: shared out by the replay, or each a SimGrid comm.
daint=("$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 8 --iterations 2 --software ideal)
# A platform cost the run's stack does not pay, overridden, changes nothing: the run says so (a
# sweep's platform entry gives its overrides to every variant's points). Paid, by the stack or by
# the same run's stack override, it says nothing; Horovod's negotiation pays the NIC's MPI
# overheads, though NCCL's messages do not, and a gather library only where sparse gradients are
# gathered (ResNet-50 has none).
expect 0 "ceiling: note: --set node.pcie.copy_overhead changes nothing in this run: the software stack ideal pays no copy call overhead (copy_overheads = false); a stack that pays it would (such as horovod-mpi, or --set software.copy_overheads=true)" -- \
  "${daint[@]}" --set 'node.pcie.copy_overhead="20 us"'
produce "$tmp/ideal.txt" -- "${daint[@]}"
produce "$tmp/ideal_copy_20us.txt" -- "${daint[@]}" --set 'node.pcie.copy_overhead="20 us"'
expect 0 "" -- cmp "$tmp/ideal.txt" "$tmp/ideal_copy_20us.txt"
for key in send_overhead receive_overhead; do
  expect 0 "ceiling: note: --set node.nic.$key changes nothing in this run: the software stack ideal pays no MPI overheads per message" -- \
    "${daint[@]}" --set "node.nic.$key=\"1 us\""
done
expect 0 "ceiling: note: --set node.nic.send_overhead changes nothing in this run: the software stack horovod-nccl pays no MPI overheads" -- \
  "${daint[@]:0:10}" --software horovod-nccl --set software.negotiation=false --set 'node.nic.send_overhead="1 us"'
"${daint[@]}" --set 'node.pcie.copy_overhead="20 us"' --set software.copy_overheads=true >/dev/null 2>"$tmp/paid.err"
expect 0 "exit 0" -- echo "exit $?"
expect 1 "" -- grep -q "ceiling: note" "$tmp/paid.err"
# (said once the run is sure to start: after a refusal of its options, none)
expect 2 "ceiling: error: --jobs goes with --seeds" -- "${daint[@]}" --set 'node.pcie.copy_overhead="20 us"' --jobs 2
expect 1 "" -- bash -c '"$@" 2>&1 | grep -q "ceiling: note"' _ "${daint[@]}" --set 'node.pcie.copy_overhead="20 us"' --jobs 2
# "-" is no standard output for a trace or a sweep's store either.
expect 2 'ceiling: error: --trace: "-": writes a file, not standard output: give its path (./- for a file named so)' -- \
  "${daint[@]}" --trace -
paying=("${daint[@]:0:10}") # (the same run, its stack named below)
produce "$tmp/mpi_copy.txt" -- "${paying[@]}" --software horovod-mpi
produce "$tmp/mpi_copy_20us.txt" -- "${paying[@]}" --software horovod-mpi --set 'node.pcie.copy_overhead="20 us"'
expect 1 "" -- cmp -s "$tmp/mpi_copy.txt" "$tmp/mpi_copy_20us.txt"
produce "$tmp/nccl_nic.txt" -- "${paying[@]}" --software horovod-nccl
produce "$tmp/nccl_nic_1us.txt" -- "${paying[@]}" --software horovod-nccl --set 'node.nic.send_overhead="1 us"'
expect 1 "" -- cmp -s "$tmp/nccl_nic.txt" "$tmp/nccl_nic_1us.txt"
# SimGrid's comms take SimGrid's routes only: the comparisons with them route statically.
daint_static=("${daint[@]}" --set interconnect.routing=static-minimal)
# Ring flows that share no link: timed in closed form, or each a SimGrid comm; the same results.
expect 0 "0 transfers, 32 flows in closed form, 0 flows shared by the replay, 88 link copies" -- "${daint[@]}" --timing
expect 0 "sharing: 0 events, 0 solves" -- "${daint[@]}" --timing
expect 0 "32 transfers, 0 flows in closed form, 0 flows shared by the replay, 88 link copies" -- "${daint_static[@]}" --timing --flows simgrid
expect 0 "120 transfers, 0 flows in closed form, 0 flows shared by the replay, 0 link copies" -- "${daint_static[@]}" --timing --copies simgrid
# Adaptive routing (the dragonfly's default) is the replay's own: SimGrid cannot carry it.
expect 2 'piz-daint-xc50-p100.toml:100:11: error: interconnect.routing: "adaptive" is computed by the replay'"'"'s own flow sharing, which needs network model CM02 without cross-traffic or TCP window, and no flow or copy inside SimGrid; this run has flows through SimGrid' -- "${daint[@]}" --flows simgrid
expect 2 "interconnect.routing: a torus routes statically only (dimension order)" -- "$ceiling" run -p "$root/platforms/generic-torus.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set interconnect.routing=adaptive
expect 2 'unknown routing "ugal": expected one of static-minimal, adaptive, ecmp' -- "${daint[@]}" --set interconnect.routing=ugal
# Halving-doubling's flows cross links in several phases: the replay shares them out.
# horovod-mpi's library (MPICH) picks it for ResNet-50's buckets, and says so; the platform's
# default is the ideal stack's ring. Fused by cycle, the buckets form at run time, and the JSON
# lists the last iteration's (here without the stack's jitter and the GPUs' device spread, which change what a cycle finds ready).
expect 0 "2 x halving-doubling (102.2 MB per rank): over 2048 bytes: Rabenseifner" -- "${daint[@]/ideal/horovod-mpi}"
expect 0 "collectives per iteration: formed every 5 ms cycle from the gradients ready on every rank" -- "${daint[@]/ideal/horovod-mpi}" --set software.fusion=by-cycle
expect 0 '"name": "fc + 1 more"' -- "${daint[@]/ideal/horovod-mpi}" --set software.fusion=by-cycle --jitter 0 --set node.gpu.device_spread=0 --json
# An override of what an option of the same run sets is refused, not ignored.
expect 2 "ceiling: error: --set workload.batch_per_worker: --batch sets it for this run, so the override would change nothing" -- \
  "${daint[@]}" --batch 16 --set workload.batch_per_worker=8
expect 2 "ceiling: error: --set software.jitter: --jitter sets it for this run" -- "${daint[@]}" --jitter 0 --set software.jitter=0.01
expect 2 "ceiling: error: --set platform.software: --software sets it for this run" -- "${daint[@]}" --set platform.software=\"horovod-nccl\"
# The pipelined trees' chunk where no pipelined tree runs: said to change nothing; where one runs, nothing said.
expect 0 "ceiling: note: --set software.pipeline_chunk changes nothing in this run: no collective ran a pipelined tree" -- \
  bash -c '"$@" 2>&1 >/dev/null' _ "${daint[@]}" --set 'software.pipeline_chunk="64 KiB"'
expect 1 "" -- bash -c '"$@" 2>&1 >/dev/null | grep -q pipeline_chunk' _ "${daint[@]}" --collective pipelined-tree --set 'software.pipeline_chunk="64 KiB"'
# (workload.precision beside --precision is no such override: it also says what precision the
# calibration was measured in, which changes the run.)
line="compute: calibrated on its stand-in (node.gpu.calibration_device: NVIDIA Tesla P100 SXM2 16 GB) under tensorflow"
expect 0 "$line" -- bash -c '"${@:2}" | grep -x "$1"' _ "$line" "${daint[@]}" --precision fp16 --set workload.precision=\"fp16\"
expect 0 "$line, measured in fp32: fp16 is uncalibrated" -- "${daint[@]}" --precision fp16
# hpc and platform bench print once their simulation is done: stopped before, they say so and exit
# 128 + the signal (HPL on the whole XC30 takes some 3 s here, its loading 0.1 s; the benchmarks on
# 1,024 nodes minutes).
expect 130 "ceiling hpc: interrupted before the simulation finished: nothing to print (signal 2)" -- \
  timeout --preserve-status -s INT 1.5 "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc30-cpu.toml"
expect 143 "ceiling platform bench: interrupted before the benchmarks finished: nothing to print (signal 15)" -- \
  timeout --preserve-status -s TERM 3 "$ceiling" platform bench "$root/platforms/piz-daint-xc30-cpu.toml" -n 1024
# Output that cannot be written (a full disk, a closed standard output) is an error, not a success.
expect 1 "ceiling: error: standard output: a write failed" -- bash -c '"$0" "$@" > /dev/full' "${daint[@]}" --json
expect 1 "ceiling: error: standard output: a write failed" -- bash -c '"$0" "$@" >&-' "${daint[@]}"
# (and a file the command opens does not take the closed stream's place: the export stays XML)
expect 1 "ceiling: error: standard output: a write failed" -- \
  bash -c '"$0" "$@" >&-' "$ceiling" platform export "$root/platforms/generic-fat-tree.toml" --nodes 4 -o "$tmp/closed.xml"
expect 0 "well-formed" -- /usr/bin/python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print('well-formed')" "$tmp/closed.xml"
# The openmpi policy: Open MPI's tuned rules, recursive doubling below 10,000 bytes, above them the
# ring (segmented above ranks x 1 MiB); under ideal, which names no library, auto is refused.
expect 0 "1 x recursive-doubling (8 B per rank): below 10,000 bytes: recursive doubling" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/tests/microbench/allreduce_8B.toml" -n 16 --software openmpi --overlap off --iterations 2
expect 0 "2 x ring (102.2 MB per rank): over ranks x 1 MiB: segmented ring (1 MiB segments), timed as the ring" -- "${daint[@]/ideal/openmpi}"
expect 2 "--collective auto: the software stack ideal has no library to choose" -- "${daint[@]}" --collective auto
# Tables sent dense are named, with their whole gradient, in the text and the JSON.
din=("$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 16 --iterations 2 --software horovod-nccl)
expect 0 "sparse gradients: exchanged dense, whole with the dense gradients: item_emb (16.13 MB), cate_emb (205.1 kB), item_bias (252 kB); the stack sends every table dense" -- \
  "${din[@]}" --set software.sparse_gradients=dense
expect 0 "dense [('item_emb', 16128256), ('cate_emb', 205056), ('item_bias', 252004)] allgather []" -- /usr/bin/python3 -c "
import json, subprocess, sys
tables = lambda rule: [(t['name'], t['bytes']) for t in json.loads(subprocess.run(
    sys.argv[1:] + ['--set', 'software.sparse_gradients=' + rule, '--json'], capture_output=True, text=True, check=True).stdout)['dense_tables']]
print('dense', tables('dense'), 'allgather', tables('allgather'))" "${din[@]}"
# What a stack needs of its platform is refused at the platform's table that lacks it.
expect 2 "generic-fat-tree.toml:17:1: error: node.gpu.compute_capability: the stack horovod-nccl runs NCCL" -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 4 --software horovod-nccl
expect 2 "generic-fat-tree.toml:10:1: error: node.cpu.core_memory_bandwidth: the stack horovod-mpi reduces on a host core" -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 4 --software horovod-mpi
# The MLPerf ResNet-50 stack computes under MXNet, at the workload's MXNet fit.
expect 0 "compute: calibrated on this device (NVIDIA Tesla V100 SXM2 16 GB) in mixed under mxnet" -- \
  "$ceiling" run -p "$root/platforms/dgx1-v100.toml" -w "$root/workloads/resnet50_v1.5.toml" -n 1 --iterations 1 \
  --precision fp16 --software "$root/validation/software/mxnet-horovod-mlperf.toml"
# A combination that --collective makes is the option's error; one of the stack on its platform,
# the stack file's, at its key, whatever --collective says.
expect 2 "ceiling: error: --collective parameter-server: the software stack horovod-mpi's software.fusion: \"by-cycle\" fuses" -- \
  "${daint[@]/ideal/horovod-mpi}" --set software.fusion=by-cycle --collective parameter-server
expect 2 "horovod-nccl.toml:7:11: error: software.library: NCCL runs on GPUs, but piz-daint-xc30-cpu has CPU nodes" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 8 \
  --software horovod-nccl --set software.fusion=by-cycle --collective parameter-server
# The P100 PCIe is priced by ResNet-50's device calibration (the SXM2's): [calibration] changes nothing there.
expect 2 "by the workload's [[device_calibration]] for the NVIDIA Tesla P100 SXM2 16 GB, which [calibration] does not change" -- "${daint[@]}" --set calibration.compute_efficiency=0.1
# BERT-large SQuAD's mixed-precision device calibration has its own half batch: [calibration]'s changes nothing there,
# and is refused; in fp32, priced by [calibration], it runs.
bert=("$ceiling" run -p "$root/platforms/dgx1-v100.toml" -w "$root/workloads/bert_large_squad.toml" -n 1 --iterations 1)
expect 2 "--set calibration.half_batch: this run prices the NVIDIA Tesla V100 SXM2 16 GB by the workload's [[device_calibration]]" -- \
  "${bert[@]}" --precision mixed --set calibration.half_batch=100
expect 0 "compute: the workload's calibration" -- "${bert[@]}" --set calibration.half_batch=100
# Horovod fuses all-gathers of one dtype: DIN's two history tables' rows (a row per lookup, 2 x 25,856 x 64 x 4 bytes)
# in one response, past the first table's ids, and their ids (2 x 25,856 int32) in the next.
din_fused() { # (its JSON on one line, so that a pattern holds a name and its bytes)
  local out
  out=$("$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 4 --iterations 2 \
    --software horovod-nccl --set software.fusion=by-cycle --jitter 0 --set node.gpu.device_spread=0 --json) || return
  tr -d '\n' <<<"$out"
}
expect 0 '"name": "sparse cate_emb + 1 more",      "bytes": 13238272,' -- din_fused
expect 0 '"name": "sparse cate_emb ids + 1 more",      "bytes": 206848,' -- din_fused
# A framework stack's jitter (platforms/software/README.md, "Jitter"), said before the iterations.
expect 0 "jitter: each rank computes 1 + |N(0, 0.0095)| times that, drawn per iteration (seed 1)" -- "${daint[@]/ideal/horovod-mpi}"
expect 2 "error: software.jitter: must be at least 0 and at most 10, got 11" -- "${daint[@]}" --set software.jitter=11
# The GPUs' device spread (platforms/README.md, "Device spread"), said with the slowest GPU's pace; the JSON
# gives its value; a spread beyond 10 % is refused at its key.
expect 0 "device spread: this model's GPUs differ by 0.92 % in compute time (coefficient of variation); the slowest of these 8 computes 1.32 % above its calibrated time (seed 1 deals the paces)" -- "${daint[@]}"
expect 0 "differ by 0.123 % in compute time (coefficient of variation); the slowest of these 8 computes 0.176 % above" -- "${daint[@]}" --set node.gpu.device_spread=0.00123
expect 0 "device spread: this model's GPUs differ by 0.92 % in compute time (coefficient of variation); one GPU computes at its calibration" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 1
expect 0 '"device_spread": 0.0091999999999999998,' -- "${daint[@]}" --json
expect 0 '"device_spread": 0,' -- "${daint[@]}" --set node.gpu.device_spread=0 --json
expect 2 "error: node.gpu.device_spread: must be at least 0 and at most 0.1, got 0.2" -- "${daint[@]}" --set node.gpu.device_spread=0.2
expect 0 "software ideal, ring" -- "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1
expect 0 "software horovod-mpi, auto" -- "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1 --software horovod-mpi
expect 2 "--collective auto: the software stack ideal has no library to choose" -- "${daint[@]}" --collective auto
expect 2 "no such software file, and no bundled stack of that name: expected a file or one of caffe2-gloo, horovod-mpi, horovod-nccl, ideal, mpich" -- "${daint[@]/ideal/horovd-mpi}"
expect 2 "horovod-nccl.toml: error: no such software file; the bundled stack is named horovod-nccl, without .toml" -- "${daint[@]/ideal/horovod-nccl.toml}"
expect 2 "software.reducer: expected one of none, host-core, device" -- "${daint[@]}" --set software.reducer=gpu
expect 0 "0 transfers, 0 flows in closed form, 160 flows shared by the replay, 88 link copies" -- "${daint[@]}" --timing --collective halving-doubling
# The same numbers whichever way the flows go, within 1e-12 (SimGrid's full update sums in
# another order than the replay's closed forms).
same_numbers() {
  /usr/bin/python3 - "$@" <<'PY'
import json, math, sys
def walk(a, b, where):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            walk(a[k], b[k], where + "." + k)
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a} != {b}"
walk(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), "")
print("same numbers")
PY
}
# The same mean iteration, to 1e-12.
same_mean() {
  /usr/bin/python3 - "$@" <<'PY'
import json, math, sys
a, b = (json.load(open(p))["mean"] for p in sys.argv[1:3])
for k in a:
    if isinstance(a[k], dict):
        for j in a[k]:
            assert math.isclose(a[k][j], b[k][j], rel_tol=1e-12, abs_tol=1e-15), f"{k}.{j}: {a[k][j]} != {b[k][j]}"
    else:
        assert math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-15), f"{k}: {a[k]} != {b[k]}"
print("same mean")
PY
}
produce "$tmp/closed.json" -- "${daint_static[@]}" --json --jitter 0.1
produce "$tmp/simgrid.json" -- "${daint_static[@]}" --json --jitter 0.1 --flows simgrid
expect 0 "same numbers" -- same_numbers "$tmp/closed.json" "$tmp/simgrid.json"
produce "$tmp/shared.json" -- "${daint_static[@]}" --json --jitter 0.1 --collective halving-doubling
produce "$tmp/simgrid.json" -- "${daint_static[@]}" --json --jitter 0.1 --collective halving-doubling --flows simgrid
expect 0 "same numbers" -- same_numbers "$tmp/shared.json" "$tmp/simgrid.json"
# A route longer than the replay's flow sharing carries (64 links: a ring of 126 routers, its farthest pair 63 hops
# apart, plus the nodes' links): SimGrid carries the whole collective, not that flow alone beside the replay's
# (whose links the two would then share unseen, 1.7e-4 apart); with background load, the replay's own, it is refused.
ring_torus=("$ceiling" run -p "$root/platforms/generic-torus.toml" -w "$root/workloads/resnet50_v1.toml" -n 126
            --set "interconnect.dimensions=[126]" --set platform.nodes=126 --collective halving-doubling --iterations 2)
produce "$tmp/long.json" -- "${ring_torus[@]}" --json
produce "$tmp/long_simgrid.json" -- "${ring_torus[@]}" --json --flows simgrid
expect 0 "same numbers" -- same_numbers "$tmp/long.json" "$tmp/long_simgrid.json"
expect 2 "ceiling: error: a route has more than 64 links, which the replay's flow sharing cannot carry, and SimGrid, which can, has no background load" -- \
  "${ring_torus[@]}" --background-load fabric=0.5

# Allocation: where the job's nodes sit, and how many domains they span.
one=("$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" --iterations 1)
expect 0 "allocation: contiguous, 8 nodes on 1 of 14 groups" -- "${one[@]}" -n 8
expect 0 "allocation: spread, 4 nodes on 4 of 14 groups (slots 0 384 768 1152)" -- "${one[@]}" -n 4 --allocation spread
expect 0 "allocation: list, 2 nodes on 2 of 14 groups (slots 5 5000)" -- "${one[@]}" -n 2 --node-list 5000,5
expect 0 "allocation: list, 2 nodes on 2 of 14 groups (slots 5 5000)" -- "${one[@]}" -n 2 --node-list " 5000, 5 "
expect 2 'ceiling: error: --seed: expected a whole number from 0 to 9223372036854775807, got "-1"' -- "${one[@]}" -n 2 --seed -1
# (a seed as an experiment's TOML integers, the result store and the JSON hold it)
expect 2 'ceiling: error: --seed: expected a whole number from 0 to 9223372036854775807, got "9223372036854775808"' -- "${one[@]}" -n 2 --seed 9223372036854775808
expect 2 "ceiling: error: --node-list: the list has 1 node, the run 2" -- "${one[@]}" -n 2 --node-list 5
expect 2 "ceiling: error: --node-list: node 5 is twice in the list" -- "${one[@]}" -n 2 --node-list 5,5
expect 2 "node 5320 of the list is not one of the machine's nodes 0 to 5319" -- "${one[@]}" -n 2 --node-list 5,5320
expect 2 '--node-list: expected comma-separated node numbers from 0, got "x"' -- "${one[@]}" -n 2 --node-list 5,x
expect 2 "--allocation: expected one of contiguous, random, spread, list" -- "${one[@]}" -n 2 --allocation packed
produce "$tmp/r3.json" -- "${one[@]}" -n 16 --allocation random --seed 3 --json
produce "$tmp/r3b.json" -- "${one[@]}" -n 16 --allocation random --seed 3 --json
produce "$tmp/r4.json" -- "${one[@]}" -n 16 --allocation random --seed 4 --json
expect 0 "" -- cmp "$tmp/r3.json" "$tmp/r3b.json"
expect 1 "" -- cmp -s "$tmp/r3.json" "$tmp/r4.json"
# Device memory: a batch whose lower-bound estimate exceeds the GPU's memory is refused with the
# numbers, or runs with a warning when allowed; a sweep records such points as not fitting.
expect 2 "ceiling: error: --global-batch: a batch of 1024 samples of resnet50_v1 per GPU needs at least 67.72 GB of device memory (weights 102.2 MB, gradients 102.2 MB, optimizer state 102.2 MB, activations 66.79 GB, inputs 616.6 MB), more than the 17.18 GB of the NVIDIA Tesla P100 PCIe 16 GB: use a smaller batch per rank" -- \
  "${one[@]}" -n 1 --global-batch 1024
expect 0 "device memory: at least 67.72 GB of 17.18 GB per GPU" -- "${one[@]}" -n 1 --global-batch 1024 --allow-oversubscribed-memory
# (at the key that gives the batch where no option does)
expect 2 "--set:1:27: error: workload.batch_per_worker: a batch of 1024 samples of resnet50_v1 per GPU needs at least 67.72 GB" -- \
  "${one[@]}" -n 1 --set workload.batch_per_worker=1024
expect 0 "device memory: at least 4.52 GB of 17.18 GB per GPU" -- "${one[@]}" -n 1
# All-gathered, DIN's embedding gradients from 4,096 ranks (27.54 GB of its largest table) fill no
# P100; exchanged dense where cheaper they are not gathered.
expect 2 "gathered embedding gradients 27.54 GB), more than the 17.18 GB of the NVIDIA Tesla P100 PCIe 16 GB (exchanged dense" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 4096
expect 0 "device memory: at least 217.8 MB of 17.18 GB per GPU (weights 16.93 MB, gradients 16.93 MB, optimizer state 0 B, activations 183.9 MB, inputs 106.5 kB; a lower bound)" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/din.toml" -n 4096 --iterations 1 --set software.sparse_gradients=cheaper
expect 0 "note: 10 points do not fit in device memory; they are recorded as such (status does-not-fit), not run" -- "$ceiling" experiment show "$root/experiments/quickstart.toml"
# `quickstart_refused NAME SED MESSAGE`: the quickstart experiment edited by SED (its paths made
# absolute), $tmp/NAME.toml, is refused by `experiment show` with MESSAGE.
# `quickstart_edited NAME SED-ARGS...`: the quickstart experiment, its paths made absolute and
# edited by sed, as $tmp/NAME.toml; `quickstart_refused NAME SCRIPT MESSAGE`: one that is refused.
quickstart_edited() {
  local name=$1
  shift
  sed -e 's#"\.\./#"'"$root"'/#' "$@" "$root/experiments/quickstart.toml" > "$tmp/$name.toml"
}
quickstart_refused() {
  quickstart_edited "$1" -e "$2"
  expect 2 "$3" -- "$ceiling" experiment show "$tmp/$1.toml"
}
# A variant's overrides written into its options table are pointed to the variant's own list.
quickstart_refused set_in_options 's#^options = { software = "ideal" }$#options = { software = "ideal", set = ["platform.nodes=8"] }#' \
  "error: variants[0].options.set: the overrides go in the variant's own list"
# A platform's key that only a variant's option makes wrong is refused at that option: the adaptive
# routing that PCIe copies inside SimGrid cannot take, at the variant's `copies`.
quickstart_refused copies_in_options 's#^options = { software = "ideal" }$#options = { software = "ideal", copies = "simgrid" }#' \
  "error: variants[0].options.copies: point 0 (Piz Daint P100 / ResNet-50 / hardware alone / weak, 1 node) cannot run: $root/platforms/piz-daint-xc50-p100.toml:"
# A variant's override that its stack refuses is refused at its element of the variant's `set`.
quickstart_refused jiter_in_set 's#^options = { software = "ideal" }$#&\nset = ["software.jiter=0.01"]#' \
  "error: variants[0].set[0]: point 0 (Piz Daint P100 / ResNet-50 / hardware alone / weak, 1 node) cannot run: --set:1:16: error: software.jiter: unknown key (did you mean \"jitter\"?)"
# A name may not hold the " / " that joins a curve's names into its id (two curves, one id).
quickstart_refused slash_name 's#^name = "hardware alone"$#name = "hardware / alone"#' \
  "slash_name.toml:29:8: error: variants[0].name: \"hardware / alone\" holds \" / \""
quickstart_refused slash_end 's#^name = "hardware alone"$#name = "hardware /"#' \
  "slash_end.toml:29:8: error: variants[0].name: \"hardware /\" holds \" / \" (or half of it at an end)"
# An option of no name is none of `ceiling run`'s (boost would find it in every one).
quickstart_refused empty_option 's#^options = { software = "ideal" }$#options = { "" = 1 }#' \
  "empty_option.toml:30:13: error: variants[0].options.: not an option of \`ceiling run\`"
# An override of what the experiment's own keys set (strong scaling's global batch) is refused at
# the `set` that gives it: the variant's, or the workload entry's.
quickstart_refused batch_in_set 's#^options = { software = "ideal" }$#options = { software = "ideal" }\nset = ["workload.batch_per_worker=8"]#' \
  "batch_in_set.toml:31:8: error: variants[0].set[0]: point 26 (Piz Daint P100 / ResNet-50 / hardware alone / strong, 1 node) cannot run: --set workload.batch_per_worker: --global-batch sets it"
quickstart_refused batch_in_workload_set 's#^file = ".*/workloads/resnet50_v1.toml"$#&\nset = ["workload.batch_per_worker = 8"]#' \
  "batch_in_workload_set.toml:22:8: error: workloads[0].set[0]: point 26 (Piz Daint P100 / ResNet-50 / hardware alone / strong, 1 node) cannot run: --set workload.batch_per_worker: --global-batch sets it"
# A platform key that the variant's overridden stack makes wrong is refused at the variant's set
# (it was at the platform), its overrides named.
quickstart_refused stack_made 's#^file = ".*piz-daint-xc50-p100.toml"$#file = "'"$root"'/platforms/generic-fat-tree.toml"#; s#^nodes = { from = 1, to = 4096, factor = 2 }$#nodes = [1, 2]#; s#^options = { software = "ideal" }$#options = { software = "ideal" }\nset = ["software.library=nccl"]#' \
  "stack_made.toml:31:7: error: variants[0].set: point 0 (Piz Daint P100 / ResNet-50 / hardware alone / weak, 1 node) cannot run: $root/platforms/generic-fat-tree.toml:17:1: error: node.gpu.compute_capability: the stack ideal runs NCCL"
# An override written with spaces in its key is found all the same.
quickstart_refused spaced_key 's#^options = { software = "ideal" }$#options = { software = "ideal" }\nset = [" workload . batch_per_worker = 8"]#' \
  "spaced_key.toml:31:8: error: variants[0].set[0]: point 26"
# An override of a platform cost that no stack pays at the points it reaches changes nothing:
# refused at its `set`, a variant's or a platform entry's; in a platform entry's, it describes the
# machine and is taken where another variant's stack pays it (the quickstart's second variant runs
# horovod-nccl, whose negotiation pays the NIC's, but neither pays the copy call's).
quickstart_refused unpaid_cost 's#^options = { software = "ideal" }$#options = { software = "ideal" }\nset = ["node.pcie.copy_overhead = \\"20 us\\""]#' \
  "unpaid_cost.toml:31:7: error: variants[0].set: node.pcie.copy_overhead changes nothing: the stacks pay it at none of the points it reaches, e.g. point 0 (Piz Daint P100 / ResNet-50 / hardware alone / weak, 1 node): the software stack ideal pays no copy call overhead (copy_overheads = false); give it to the variants whose stacks pay it, or in a platform entry's set, which every variant's points take"
quickstart_refused unpaid_platform_cost 's#^file = ".*piz-daint-xc50-p100.toml"$#&\nset = ["node.pcie.copy_overhead = \\"20 us\\""]#' \
  "unpaid_platform_cost.toml:18:7: error: platforms[0].set: node.pcie.copy_overhead changes nothing: the stacks pay it at none of the points it reaches, e.g. point 0 (Piz Daint P100 / ResNet-50 / hardware alone / weak, 1 node)"
quickstart_edited paid_cost -e 's#^file = ".*piz-daint-xc50-p100.toml"$#&\nset = ["node.nic.send_overhead = \\"2 us\\""]#'
expect 0 "question: Where does data-parallel ResNet-50" -- "$ceiling" experiment show "$tmp/paid_cost.toml"
# A variant's override that some of its points pay (DIN's sparse gradients, gathered by Horovod's
# MPI beside NCCL) is taken, though ResNet-50's points, which gather nothing, do not pay it.
nic_in_variant='s#^options = { software = "horovod-nccl" }$#&\nset = ["software.negotiation=false", "node.nic.send_overhead = \\"5 us\\""]#'
quickstart_edited paid_somewhere -e "$nic_in_variant" \
  -e 's#^file = ".*/workloads/resnet50_v1.toml"$#&\n\n[[workloads]]\nname = "DIN"\nfile = "'"$root"'/workloads/din.toml"#'
expect 0 "question: Where does data-parallel ResNet-50" -- "$ceiling" experiment show "$tmp/paid_somewhere.toml"
quickstart_refused paid_nowhere "$nic_in_variant" \
  "paid_nowhere.toml:35:7: error: variants[1].set: node.nic.send_overhead changes nothing: the stacks pay it at none of the points it reaches"
# The store is a file: "-" is refused, not written as a file of that name.
expect 2 'the output (-o, or the experiment'"'"'s output) is a result file, not standard output' -- \
  bash -c 'cd "$1" && "$2" sweep "$3" -o -' _ "$tmp" "$ceiling" "$tmp/paid_somewhere.toml"
expect 1 "" -- test -e "$tmp/-"
# An experiment given as a platform or a workload: no table [platform], not a misspelt one ([[platforms]]).
expect 2 "quickstart.toml:1:1: error: platform: missing key: expected a table [platform]" -- "$ceiling" platform show "$root/experiments/quickstart.toml"
expect 2 "quickstart.toml:1:1: error: workload: missing key: expected a table [workload]" -- "$ceiling" workload show "$root/experiments/quickstart.toml"
# A platform entry that does not load with its own overrides is refused at the override, though the
# variants have overrides too (it was refused at the first variant, "with platforms[3]").
sed -e 's#"\.\./#"'"$root"'/#' -e 's#interconnect.dimensions=\[16, 16, 16\]#interconnect.dimensions=[16, 16, 8]#' \
  "$root/experiments/interconnects.toml" > "$tmp/torus_too_small.toml"
expect 2 "torus_too_small.toml:34:8: error: platforms[3].set[0]: platform.nodes: the torus described in [interconnect] has 2048 node slots, fewer than nodes = 4096" -- \
  "$ceiling" experiment show "$tmp/torus_too_small.toml"
# Every bundled experiment checks and expands, each point with its rough wall time (a process
# of a node: about 0.2 s, tools::PointCost).
for f in "$root"/experiments/*.toml; do
  expect 0 " points (" -- "$ceiling" experiment show "$f"
done
expect 0 "1 node   seed 1  ~0.2 s" -- "$ceiling" experiment show "$root/experiments/piz-daint-generations.toml"
# An experiment of ResNet-50 on Piz Daint's P100 nodes, 1 iteration a point: NAME (its file and
# store in $tmp), its node counts, its scaling, and more [experiment] lines.
p100_experiment() {
  cat >"$tmp/$1.toml" <<EOF
[experiment]
title = "$1"
question = "What does the sweep say of $1?"
output = "$tmp/$1.h5"
nodes = $2
scaling = ["$3"]
iterations = 1
$4
[[platforms]]
name = "P100"
file = "$root/platforms/piz-daint-xc50-p100.toml"
[[workloads]]
name = "ResNet-50"
file = "$root/workloads/resnet50_v1.toml"
EOF
}
# Points whose batch does not fit are recorded as such, not run.
p100_experiment too_big "[1, 2, 128]" strong "global_batch = 1024"
expect 0 "wrote $tmp/too_big.h5: 3 points, 0 failed, 2 do not fit in device memory" -- "$ceiling" sweep "$tmp/too_big.toml"
expect 0 "0 to run, 3 already in" -- "$ceiling" sweep "$tmp/too_big.toml" --resume
expect 0 "nothing to run: $tmp/too_big.h5 holds every point, 0 failed, 2 do not fit in device memory" -- "$ceiling" sweep "$tmp/too_big.toml" --resume
# A curve of two node counts has a ceiling, starred, and the table says why under it.
p100_experiment two_n "[1, 2]" weak ""
expect 0 "* not Amdahl-shaped, read its ceiling with care: fewer than 3 node counts: P100 / ResNet-50 / baseline / weak" -- \
  "$ceiling" sweep "$tmp/two_n.toml"
# --version names the build as its stores record it (tool_version: the release and the sources' id).
produce "$tmp/version.txt" -- "$ceiling" --version
expect 0 "same version" -- /usr/bin/python3 -c "
import h5py
v = h5py.File('$tmp/too_big.h5', 'r').attrs['tool_version']
v = v.decode() if isinstance(v, bytes) else str(v)
line = open('$tmp/version.txt').read().strip()
print('same version' if line == 'ceiling ' + v and '+' in v else repr((line, v)))"
expect 0 "compute: the workload's calibration, fitted on a GPU: uncalibrated on these CPU nodes" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 1 --iterations 1
# --seeds: a run per seed in a process of its own, then the spread; jitter makes seeds differ.
seeds=("$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 8 --iterations 2 --jitter 0.1)
# Expectation: the spread printed is the least, the median and the largest of the two seeds' own
# runs' mean iteration times (as printed: 6 figures, the ratio 5).
produce "$tmp/seeds.txt" -- "${seeds[@]}" --seeds 5,6 --jobs 2
produce "$tmp/seed5.json" -- "${seeds[@]}" --seed 5 --json
produce "$tmp/seed6.json" -- "${seeds[@]}" --seed 6 --json
expect 0 "spread as the runs" -- /usr/bin/python3 -c "
import json, re, statistics
t = [json.load(open(f))['mean']['iteration_time_s'] for f in ('$tmp/seed5.json', '$tmp/seed6.json')]
m = re.search(r'spread over 2 seeds: iteration time min (\S+) s, median (\S+) s, max (\S+) s \(max / min (\S+)\)', open('$tmp/seeds.txt').read())
assert m, open('$tmp/seeds.txt').read()
got = [float(x) for x in m.groups()]
want = [min(t), statistics.median(t), max(t), max(t) / min(t)]
assert t[0] != t[1] and all(abs(g / w - 1) < 1e-4 for g, w in zip(got, want)), (got, want)
print('spread as the runs')"
produce "$tmp/seeds.json" -- "${seeds[@]}" --seeds 5,6 --json
expect 0 "same" -- /usr/bin/python3 -c "
import json, sys
one = json.load(open('$tmp/seed6.json'))['mean']['iteration_time_s']
runs = json.load(open('$tmp/seeds.json'))['runs']
assert [r['seed'] for r in runs] == [5, 6] and runs[1]['iteration_time_s'] == one, (runs, one)
print('same')"
expect 2 "--seeds: seed 5 is given twice" -- "${seeds[@]}" --seeds 5,5
expect 2 "give --seed or --seeds, not both" -- "${seeds[@]}" --seeds 5 --seed 3
expect 2 "--trace goes with a single run, not with --seeds" -- "${seeds[@]}" --seeds 5 --trace "$tmp/t.json"
expect 2 '--seeds: expected comma-separated seeds ("1,2,3"), each from 0 to 9223372036854775807, got "x"' -- "${seeds[@]}" --seeds 5,x
expect 2 '--seeds: expected comma-separated seeds ("1,2,3"), each from 0 to 9223372036854775807, got " -5"' -- "${seeds[@]}" --seeds "5, -5"
expect 2 "got a trailing comma" -- "${seeds[@]}" --seeds 5,6,
expect 2 "--jobs goes with --seeds" -- "${seeds[@]}" --jobs 2
expect 0 "spread over 2 seeds" -- "${seeds[@]}" --seeds=5,6 --jobs=2
# Options are written in full: an abbreviation is refused, not guessed.
expect 2 "--jo: unknown option" -- "${seeds[@]}" --seeds=5,6 --jo 2
expect 2 "--iter: unknown option (did you mean \"--iterations\"?); --help lists them" -- "${base[@]}" -n 2 --iter 1
# Published R_peak from the GPUs' base clock (TOP500: 25.326 PF and 7.787 PF), the routing.
expect 0 "R_peak        25.33 PFLOP/s fp64, all 5320 nodes at the GPUs' base clock" -- "$ceiling" platform show "$root/platforms/piz-daint-xc50-p100.toml" -n 2
expect 0 "R_peak        7.789 PFLOP/s fp64, all 5272 nodes" -- "$ceiling" platform show "$root/platforms/piz-daint-xc30-k20x.toml" -n 2
expect 0 "router 1, routing adaptive" -- "$ceiling" platform show "$root/platforms/piz-daint-xc30-k20x.toml" -n 2

# Background load: on a torus every link is between routers, so a load of 0.6 on the fabric is
# exactly links of 0.4 x the bandwidth (the node's own links are the NIC's and PCIe's).
torus=("$ceiling" run -p "$root/platforms/generic-torus.toml" -w "$root/workloads/resnet50_v1.toml" -n 16 --iterations 2
       --staging host --collective halving-doubling --json)
produce "$tmp/loaded.json" -- "${torus[@]}" --background-load fabric=0.6
produce "$tmp/narrow.json" -- "${torus[@]}" --set "interconnect.link_bandwidth=10 GB/s"
expect 0 "same mean" -- same_mean "$tmp/loaded.json" "$tmp/narrow.json"
expect 2 '--background-load: fabric expects a share from 0 to 0.95, got "1.2"' -- "${torus[@]}" --background-load fabric=1.2
expect 2 '--background-load: expected fabric=SHARE or global=SHARE, got "links=0.5"' -- "${torus[@]}" --background-load links=0.5
expect 2 "--background-load: a load on global links needs a dragonfly of two or more groups (its links between groups); generic-torus is a torus: use fabric=SHARE" -- "${torus[@]}" --background-load global=0.5
# On a single switch no load applies, and the message does not suggest the fabric's.
expect 2 "generic-single-switch is a single-switch, which has no links between switches for any load" -- \
  "$ceiling" run -p "$root/platforms/generic-single-switch.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --background-load global=0.5
expect 2 "--background-load: a load is applied by the replay's own flow sharing, which needs network model CM02 without cross-traffic or TCP window, and no flow or copy inside SimGrid; this run has flows through SimGrid" -- \
  "${torus[@]}" --background-load fabric=0.5 --fidelity exact --flows simgrid

# --batch sets the samples per rank; --global-batch divides a total among the ranks (2 GPUs per
# node here: 4 nodes are 8 ranks) and refuses what does not divide; --set overrides a file's key.
ft=("$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" -n 4 --iterations 2 --json)
expect 0 '"batch_per_rank": 16,' -- "${ft[@]}" --batch 16
expect 0 '"samples_per_iteration": 128,' -- "${ft[@]}" --batch 16
expect 0 '"batch_per_rank": 32,' -- "${ft[@]}" --global-batch 256
expect 0 '"samples_per_iteration": 256,' -- "${ft[@]}" --global-batch 256
expect 2 "--global-batch: 100 samples do not divide evenly among the 8 ranks of 4 nodes: give a positive multiple of 8" -- \
  "${ft[@]}" --global-batch 100
expect 2 "--global-batch: 4 samples do not divide evenly among the 8 ranks" -- "${ft[@]}" --global-batch 4
expect 2 "--batch and --global-batch exclude each other" -- "${ft[@]}" --batch 8 --global-batch 64
expect 2 "--global-batch: must be positive, got 0" -- "${ft[@]}" --global-batch 0
# A shape made smaller than the file's nodes by an override is refused at that override.
expect 2 "--set:1:25: error: interconnect.dimensions: the torus described in [interconnect] has 8 node slots, fewer than nodes = 64, the file's: add --set platform.nodes=... (at most 8)" -- \
  "$ceiling" run -p "$root/platforms/generic-torus.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --set "interconnect.dimensions=[2, 2, 2]"
# A workload named as a bundled one is named gets the file's path (from the project's folder).
expect 2 '--workload: vgg17: no such file; a workload is given by its file'"'"'s path (did you mean "workloads/vgg16.toml"?)' -- \
  bash -c 'cd "$1" && "$2" run -p platforms/generic-fat-tree.toml -w vgg17 -n 2' _ "$root" "$ceiling"
# Values with a case or a letter wrong get the closest name; an empty value is refused as such.
expect 2 '(did you mean "ring"?)' -- "${ft[@]}" --collective Ring
expect 2 '(did you mean "fp32"?)' -- "${ft[@]}" --precision FP32
expect 2 '(did you mean "horovod-nccl"?)' -- "${ft[@]}" --software horovod_nccl
expect 2 "--software: empty: expected a value" -- "${ft[@]}" --software ""
# A factor is echoed as typed; a stray word is named, with what the command takes.
expect 2 "--latency-factor: expected a factor from 0.001 to 1000, got 2000" -- "${ft[@]}" --latency-factor 2000
expect 2 'unexpected argument "extra": this command takes no file, only options' -- "${ft[@]}" extra
expect 2 'unexpected argument "x.toml": this command takes one file, "'"$root"'/platforms/generic-fat-tree.toml" already' -- \
  "$ceiling" platform show "$root/platforms/generic-fat-tree.toml" x.toml
expect 2 "--batch: must be between 1 and 10000000, got 0" -- "${ft[@]}" --batch 0
expect 2 "--nodes: the node count must be at least 1, got 0" -- "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" \
  -w "$root/workloads/resnet50_v1.toml" --global-batch 64 -n 0
expect 2 "option '--nodes' cannot be specified more than once" -- "${ft[@]}" -n 8
expect 2 'is out of range' -- "${ft[@]}" --set "interconnect.link_latency=1e300 x 1e300 us"
expect 2 'is out of range' -- "${ft[@]}" --set "interconnect.link_latency=1e308 min"
expect 2 '--set:1:29: error: interconnect.link_bandwidth: must be positive, got "-1 GB/s"' -- \
  "${ft[@]}" --set "interconnect.link_bandwidth=-1 GB/s"
expect 2 '--set:1:19: error: interconnect.down: expected a non-empty array of integers, got an integer' -- \
  "${ft[@]}" --set "interconnect.down=1"
produce "$tmp/slow.json" -- "${ft[@]}" --set "interconnect.link_bandwidth=1 GB/s"
produce "$tmp/fast.json" -- "${ft[@]}"
expect 1 "" -- cmp -s "$tmp/slow.json" "$tmp/fast.json"

# An interrupted run prints the iterations it finished, then exits with 128 + the signal.
# 100,000 exact-fidelity iterations through SimGrid take minutes: the signal always comes first.
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 16 \
  --fidelity exact --flows simgrid --set interconnect.routing=static-minimal --iterations 100000 >"$tmp/int.txt" 2>"$tmp/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
expect 130 "" -- bash -c "exit $?"
expect 0 "of 100000 iterations finished" -- cat "$tmp/int.txt"
expect 0 "mean " -- cat "$tmp/int.txt"
expect 0 "stopping after the current iteration" -- cat "$tmp/int.err"

# Interrupted, hpc ends by the signal too (SimGrid's own handler, once the engine started, exited
# with status 1). HPL on 2,048 nodes with NB = 16 takes most of a minute: the signal comes first.
# (Job control: a script's background job otherwise starts with SIGINT ignored.)
set -m
"$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc50-p100.toml" -n 2048 \
  --set hpl.block_size=16 >/dev/null 2>&1 &
pid=$!
set +m
sleep 1
kill -INT "$pid"
wait "$pid"
expect 130 "" -- bash -c "exit $?"

# The results come before the trace, whose writing takes a while here (every message of 128
# nodes, three iterations): a signal then removes its unfinished file, the run ends with 143; a
# trace finished before the signal is whole. Never a partial trace, never a temporary left.
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 128 \
  --fidelity exact --iterations 3 --trace "$tmp/cut.json" >"$tmp/cut.txt" 2>"$tmp/cut.err" &
pid=$!
for _ in $(seq 1 3000); do
  grep -q "^breakdown columns" "$tmp/cut.txt" 2>/dev/null && break
  sleep 0.01
done
kill -TERM "$pid"
wait "$pid"
status=$?
expect 0 "bytes per iteration (mean, summed over the machine's links of each class)" -- cat "$tmp/cut.txt"
expect 1 "" -- test -e "$tmp/cut.json.tmp"
if [ -e "$tmp/cut.json" ]; then # (finished before the signal, or renamed as it came)
  expect 0 "nests: " -- python3 "$root/tests/cli/trace_nests.py" "$tmp/cut.json"
  expect 0 "" -- test "$status" = 0 -o "$status" = 143
else
  expect 143 "" -- bash -c "exit $status"
  expect 0 "its unfinished file is removed" -- cat "$tmp/cut.err"
fi
echo "trace cut by SIGTERM: exit $status"

# The text output streams: a run killed outright (SIGKILL, nothing handled) has printed its
# header and the rows of the iterations it finished.
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 16 \
  --fidelity exact --flows simgrid --set interconnect.routing=static-minimal --iterations 100000 >"$tmp/killed.txt" 2>&1 &
pid=$!
sleep 1.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
expect 0 "iteration      time (s)" -- cat "$tmp/killed.txt"
expect 0 "0 (warm-up)" -- cat "$tmp/killed.txt"
expect 0 "" -- test "$(grep -cE '^[0-9]+ ' "$tmp/killed.txt")" -ge 2

# A signal stops any run within a second: an exact-fidelity iteration on 512 nodes, every message
# through SimGrid, takes over 2 minutes on the 2-core machine (256 nodes: 2 s) after a build of
# 0.7 s (more under load), so the
# warm-up under way 2.5 s in is dropped 0.5 s after the signal and no iteration is complete
# (issue: SIGTERM could not stop a 2,048-node exact run for many seconds). Both transfer
# drivers; JSON says so too, and the trace holds nothing of the dropped iteration.
for driver in maestro couriers; do
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 512 \
    --fidelity exact --flows simgrid --set interconnect.routing=static-minimal --iterations 3 --transfer-driver "$driver" \
    --json --trace "$tmp/drop-$driver.trace.json" >"$tmp/drop.json" 2>"$tmp/drop.err" &
  pid=$!
  sleep 2.5
  start=$(date +%s%N)
  kill -TERM "$pid"
  wait "$pid"
  status=$?
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "exact run on 512 nodes ($driver) stopped ${elapsed_ms} ms after SIGTERM"
  expect 143 "" -- bash -c "exit $status"
  expect 0 "" -- test "$elapsed_ms" -lt 3000
  expect 0 '"stopped_by_signal": 15' -- cat "$tmp/drop.json"
  expect 0 '"dropped_iteration": true' -- cat "$tmp/drop.json"
  expect 0 '"mean": null' -- cat "$tmp/drop.json"
  expect 0 "dropping it if it takes over 0.5 s more" -- cat "$tmp/drop.err"
  expect 0 "0 slices" -- python3 -c "import json, sys; t = json.load(open(sys.argv[1])); \
print(sum(e.get('ph') == 'X' for e in t['traceEvents']), 'slices')" "$tmp/drop-$driver.trace.json"
done
# A second signal stops the run at once, without the 0.5 s of grace nor its output (the first
# alone ends with the JSON of what finished, as above).
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 512 \
  --fidelity exact --flows simgrid --set interconnect.routing=static-minimal --iterations 3 \
  --json >"$tmp/twice.json" 2>"$tmp/twice.err" &
pid=$!
sleep 2.5
kill -INT "$pid"
for _ in $(seq 1 100); do # until the run says it stops (its handler took the first signal)
  grep -q "interrupted: stopping" "$tmp/twice.err" && break
  sleep 0.01
done
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect 130 "" -- bash -c "exit $status"
expect 0 "" -- test "$elapsed_ms" -lt 300
expect 1 "" -- grep -q stopped_by_signal "$tmp/twice.json"
expect 0 "interrupted: stopping after the current iteration" -- cat "$tmp/twice.err"

# Seeds stopped before any finished: every run says so, and the spread is there, null (its key
# was left out, which a script reading it then failed on).
"$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 512 \
  --fidelity exact --flows simgrid --set interconnect.routing=static-minimal --iterations 3 --seeds 5,6 --jobs 2 \
  --json >"$tmp/unfinished.json" 2>"$tmp/unfinished.err" &
pid=$!
sleep 2.5
kill -TERM "$pid"
wait "$pid"
status=$?
expect 143 "" -- bash -c "exit $status"
expect 0 "0 of 2 seeds finished" -- cat "$tmp/unfinished.err"
expect 0 "no seed finished" -- /usr/bin/python3 -c "
import json
d = json.load(open('$tmp/unfinished.json'))
assert d['stopped_by_signal'] == 15 and not any(r['ok'] for r in d['runs']), d
assert d['iteration_time_s'] == {'min': None, 'median': None, 'max': None}, d
print('no seed finished')"

# What each output says of itself: a validation case by its id; a CPU-only machine has no GPU
# base clock; a borrowed calibration is the lender's measurement; batches over the device's
# memory say so; the run's header names what it ran with.
expect 0 "1 case, 3 points after the references" -- bash -c "cd '$root' && '$ceiling' validate TF_DGX1_P100_RESNET50"
expect 2 "NOPE: no such case: neither a file nor validation/NOPE.toml" -- bash -c "cd '$root' && '$ceiling' validate NOPE"
expect 0 "E = delivered/peak" -- "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc30-cpu.toml" -n 16
expect 2 "--set:1:15: error: workload.kind: the file describes HPL ([hpl]), which an override cannot make HPCG" -- \
  "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc30-cpu.toml" -n 4 --set workload.kind=hpcg
produce "$tmp/hpl_cpu.txt" -- "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc30-cpu.toml" -n 16
expect 1 "" -- grep -q 'base clock' "$tmp/hpl_cpu.txt"
expect 0 '"model_peak_efficiency"' -- "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc50-p100.toml" -n 16 --json
expect 0 '"flop": ' -- "$ceiling" hpc -w "$root/workloads/hpl.toml" -p "$root/platforms/piz-daint-xc50-p100.toml" -n 16 --json
expect 0 "lender's data din's measurement" -- "$ceiling" workload show "$root/workloads/wide_deep_census.toml"
# A validation entry whose batch exceeds its GPU's memory says so (ResNet-50 v1.5's FP32 V100 entry at 256).
mkdir -p "$tmp/w"
ln -sf "$root/platforms" "$tmp/platforms"
ln -sf "$root/validation" "$tmp/validation"
ln -sf "$root/workloads/resnet50_v1.toml" "$tmp/w/resnet50_v1.toml"
sed 's/^batch = 112$/batch = 256/' "$root/workloads/resnet50_v1.5.toml" >"$tmp/w/resnet50_v1.5.toml"
expect 0 "17.7 GB of device memory" -- "$ceiling" workload show "$tmp/w/resnet50_v1.5.toml"
produce "$tmp/v15.txt" -- "$ceiling" workload show "$root/workloads/resnet50_v1.5.toml"
expect 1 "" -- grep -q "of device memory" "$tmp/v15.txt"
expect 0 "does not fit: not run" -- "$ceiling" experiment show "$root/experiments/quickstart.toml"
produce "$tmp/cpu_run.txt" -- "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1
expect 1 "" -- bash -c "head -1 '$tmp/cpu_run.txt' | grep -q staging"
# A workload's device calibration names its platform's device, and a borrow an existing file;
# calibrate --write puts each fitted value in its own section wherever the sections stand.
sed 's#= "\.\./#= "'"$root"'/#' "$root/workloads/resnet50_v1.toml" > "$tmp/w.toml"
sed 's/^device = "NVIDIA Tesla K80 (one GK210 die)"$/device = "NVIDIA Tesla Z99"/' "$tmp/w.toml" > "$tmp/w_device.toml"
expect 2 'device_calibration[1].device: "NVIDIA Tesla Z99" is not the device of' -- "$ceiling" workload show "$tmp/w_device.toml"
sed 's/^\[calibration\]$/[calibration]\nborrow = "nope.toml"/' "$tmp/w.toml" > "$tmp/w_borrow.toml"
expect 2 'w_borrow.toml:139:10: error: calibration.borrow: "'"$tmp"'/nope.toml" is not a workload file' -- "$ceiling" workload show "$tmp/w_borrow.toml"
# A measurement no efficiency reproduces is refused at its place in the file.
sed '140s/^measured_throughput = .*/measured_throughput = 1e9/' "$tmp/w.toml" > "$tmp/w_unfit.toml"
expect 2 'w_unfit.toml:140:23: error: calibration.measured_throughput: cannot calibrate on NVIDIA Tesla V100 SXM2 16 GB: even at 200 % of peak' -- \
  "$ceiling" workload calibrate "$tmp/w_unfit.toml"
# A fitted efficiency edited since its fit is refused by a run, at its key; an override is a what-if.
sed '143s/^compute_efficiency = 0.633734 /compute_efficiency = 0.0002 /' "$tmp/w.toml" > "$tmp/w_stale.toml"
expect 2 'w_stale.toml:143:22: error: calibration.compute_efficiency: 0.0002 predicts 0.1216 image/s on NVIDIA Tesla V100 SXM2 16 GB at batch 64, and the measurement it was fitted to is 338.6 (-99.96 %): stale' -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$tmp/w_stale.toml" -n 1 --iterations 1
produce "$tmp/whatif.json" -- "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" \
  -n 1 --iterations 1 --json --set calibration.compute_efficiency=0.3
produce "$tmp/fitted.json" -- "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$root/workloads/resnet50_v1.toml" \
  -n 1 --iterations 1 --json
# (the what-if computes at the lower efficiency: its compute takes longer than the fitted one's)
expect 0 "" -- python3 -c "import json, sys; t = [json.load(open(f))['mean']['breakdown_s']['compute'] for f in sys.argv[1:]]; sys.exit(not t[0] > 1.5 * t[1])" \
  "$tmp/whatif.json" "$tmp/fitted.json"
expect 2 "w_stale.toml:143:22: error: calibration.compute_efficiency: 0.0002 predicts" -- \
  "$ceiling" run -p "$root/platforms/generic-fat-tree.toml" -w "$tmp/w_stale.toml" -n 1 --iterations 1 --set workload.name=x
# A lender that does not load is refused at the borrowing key, the lender's own error after.
sed 's|^borrow = .*$|borrow = "'"$root"'/workloads/hpl.toml"|' "$root/tests/microbench/allreduce_8B.toml" > "$tmp/w_borrow_hpl.toml"
expect 2 'w_borrow_hpl.toml:31:10: error: calibration.borrow: does not load: '"$root"'/workloads/hpl.toml:' -- \
  "$ceiling" workload show "$tmp/w_borrow_hpl.toml"
awk '/^\[calibration\]$/ {moving = 1} /^\[/ && !/^\[calibration\]$/ {moving = 0}
     moving {held = held $0 "\n"; next} {print} END {printf "%s", held}' "$tmp/w.toml" > "$tmp/w_order.toml"
sed -i 's/^compute_efficiency = .*$/compute_efficiency = 0.5/' "$tmp/w_order.toml"
expect 0 "wrote" -- "$ceiling" workload calibrate "$tmp/w_order.toml" --write
produce "$tmp/w_order.txt" -- "$ceiling" workload show "$tmp/w_order.toml"
expect 0 "calibrated on" -- grep '^calibrated on' "$tmp/w_order.txt"
expect 1 "" -- bash -c "grep '^calibrated on' '$tmp/w_order.txt' | grep -v '(.0.00 %)'"
# platform show prints every rate it read, the measured ones too, and the topology's shape in JSON.
expect 0 "compute capability 6.0, 56 SMs; measured DGEMM 3.35 TFLOP/s, STREAM 499 GB/s each" -- "$ceiling" platform show "$root/platforms/piz-daint-xc50-p100.toml"
expect 0 '"dimensions": [' -- "$ceiling" platform show "$root/platforms/generic-torus.toml" --json
expect 0 '"staging": null' -- "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1 --json
# (on CPU nodes the node's host memory where the file gives it, else null)
expect 0 '"device_memory_bytes": 34359738368' -- "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1 --json
expect 0 '"device_memory_bytes": null' -- "$ceiling" run -p "$root/platforms/generic-single-switch.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1 --json
expect 2 "a batch of 10000000 samples of alexnet per node needs at least 40.53 TB of host memory" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc30-cpu.toml" -w "$root/workloads/alexnet.toml" -n 2 --batch 10000000
expect 0 "network model: CM02, latency factor 2" -- \
  "$ceiling" run -p "$root/platforms/piz-daint-xc50-p100.toml" -w "$root/workloads/resnet50_v1.toml" -n 2 --iterations 1 --latency-factor 2

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
