#!/usr/bin/env python3
"""The OSU micro-benchmarks measured on Piz Daint, simulated under the mpich stack (MPI alone, Cray MPICH).

Each case runs `ceiling run --software mpich` on an 8-byte all-reduce (tests/microbench/allreduce_8B.toml, overlap
off: an iteration is the collective) and prints simulated against measured. On two ranks the
all-reduce is one exchange, the one-way latency osu_latency reports (plus 2.5 ns of reduction).

Measured values: shared/data/hardware/piz-daint.md §2.4, CSCS ReFrame references
(cscs-checks/microbenchmarks/mpi/osu/osu_tests.py); ReFrame's tolerance is one-sided, an upper
bound (a run may be up to +tol slower than the reference; a faster one passes), and that is what
is asserted. The latencies calibrate the platforms (node.nic and node.pcie), so they must land
on the reference; the all-reduces are predictions and are only held to ReFrame's bound and to a
floor that guards against regressions (see the README, "Software stacks", for the gap).
"""
import json
import subprocess
import sys

ceiling, root = sys.argv[1], sys.argv[2]
workload = f"{root}/tests/microbench/allreduce_8B.toml"

# (name, platform, nodes, extra options, measured us, ReFrame's upper tolerance us, floor fraction)
cases = [
    ("osu_latency 8 B, host buffers", "piz-daint-xc30-cpu", 2, [], 1.30, 0.70, 0.95),
    ("osu_latency 8 B, device buffers (CUDA-aware)", "piz-daint-xc50-p100", 2,
     ["--staging", "direct", "--set", "node.nic.gpu_direct=true"], 6.8, 0.65, 0.95),
    ("osu_allreduce 8 B, 6 nodes", "piz-daint-xc30-cpu", 6, [], 9.30, 0.75, 0.35),
    ("osu_allreduce 8 B, 16 nodes", "piz-daint-xc30-cpu", 16, [], 13.62, 1.16, 0.35),
]

failures = 0
print(f"{'benchmark':48} {'simulated':>11} {'measured':>11} {'ratio':>7}")
for name, platform, nodes, extra, measured, tolerance, floor in cases:
    out = subprocess.run([ceiling, "run", "-p", f"{root}/platforms/{platform}.toml", "-w", workload,
                          "-n", str(nodes), "--software", "mpich", "--overlap", "off", "--iterations", "3",
                          "--json", *extra],
                         check=True, capture_output=True, text=True).stdout
    simulated = json.loads(out)["mean"]["iteration_time_s"] * 1e6
    ok = floor * measured <= simulated <= measured + tolerance
    failures += not ok
    print(f"{name:48} {simulated:8.2f} us {measured:8.2f} us {simulated / measured:7.2f}"
          f"{'' if ok else '   FAIL: outside [' + format(floor * measured, '.2f') + ', ' + format(measured + tolerance, '.2f') + '] us'}")
sys.exit(1 if failures else 0)
