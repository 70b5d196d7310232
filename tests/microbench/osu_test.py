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
     ["--staging", "direct", "--set", "node.nic.gpu_direct=true", "--set", "interconnect.routing=static-minimal"],
     6.8, 0.65, 0.95),
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

# Bandwidths: a node-to-node transfer of 4 MiB (osu_bw's largest message, ReFrame's 4 MiB CPU
# buffers: 9,607 MB/s, tolerance -10 %) and a 1 GiB host->device copy (ReFrame memory_bandwidth:
# 11.881 GB/s, -10 %), from `ceiling platform bench` on the P100 nodes: size / simulated time.
# ReFrame's bandwidth tolerance is a lower bound; the upper bound asserted is the reference itself
# (these figures calibrate node.nic and node.pcie, the simulation cannot exceed them).
def bench(size):
    out = subprocess.run([ceiling, "platform", "bench", f"{root}/platforms/piz-daint-xc50-p100.toml", "--nodes", "2",
                          "--size", size, "--json"], check=True, capture_output=True, text=True).stdout
    return {b["name"]: b["simulated_s"] for b in json.loads(out)["benchmarks"]}

for name, size, bytes_, key, measured in [
        ("osu_bw 4 MiB, host buffers", "4 MiB", 4 * 2**20, "transfer rank 0 -> rank 1 (CPU to CPU)", 9.607e9),
        ("host->device copy, 1 GiB", "1 GiB", 2**30, "host -> device copy (rank 0, GPU 0)", 11.881e9)]:
    simulated = bytes_ / bench(size)[key]
    ok = 0.9 * measured <= simulated <= measured
    failures += not ok
    print(f"{name:48} {simulated / 1e9:7.3f} GB/s {measured / 1e9:7.3f} GB/s {simulated / measured:7.2f}"
          f"{'' if ok else '   FAIL: outside [0.9, 1] x measured'}")
sys.exit(1 if failures else 0)
