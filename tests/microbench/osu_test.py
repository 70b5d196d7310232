#!/usr/bin/env python3
"""The OSU micro-benchmarks measured on Piz Daint, simulated under the mpich stack (MPI alone, Cray MPICH).

Each case runs `ceiling run --software mpich` on an 8-byte all-reduce (tests/microbench/allreduce_8B.toml, overlap
off: an iteration is the collective) and prints simulated against measured. On two ranks the
all-reduce is one exchange, the one-way latency osu_latency reports (plus 2.5 ns of reduction).
What is simulated is what OSU reports: osu_allreduce times each rank's MPI_Allreduce (a barrier
between iterations, outside the timed region) and prints the average over ranks of each rank's
mean (OSU 5.x mpi/collective/osu_allreduce.c, the copy CSCS builds: reframe-hpc/reframe @04be679ee (2021-06-28)
cscs-checks/microbenchmarks/mpi/osu/src/osu_allreduce.c), here the mean of every rank's "collective"
slice in the run's trace (a rank's time in the collective, from joining it to the end of its
part). On 6 ranks MPICH's fold for the two ranks beyond 4 lets ranks finish at different times,
so that mean is below the iteration; on 2 and 16 ranks the ranks end together but for their
routes' latencies.

The host-buffer cases run on piz-daint-xc30-cpu, whose node.nic carries the daint:gpu (XC50)
figures these references are (the same Aries NIC and Cray MPICH: an assumption its file marks [I]);
the device-buffer case on piz-daint-xc50-p100, the nodes that measured it.

Measured values: shared/data/hardware/piz-daint.md §2.4, CSCS ReFrame references
(cscs-checks/microbenchmarks/mpi/osu/osu_tests.py @04be679ee (2021-06-28), daint:gpu), and the same file's
references for Dom (dom:gpu: the test system of Piz Daint's XC50 nodes, a quiet machine: 5.67 us
within +5 % on 6 nodes, osu_latency 1.138 us within +10 %). A reference is (value, lower, upper) with the
thresholds as fractions of the value (reframe/utility/sanity.py assert_reference, the same
commit); the latency and all-reduce references have no lower threshold, so a faster run passes,
and their upper threshold is what is asserted of a prediction. The latencies calibrate the platforms (node.nic and node.pcie;
on Dom the MPI overheads, by the platform's own rule: the MPI latency less the 0.8 us hardware
put, split evenly), so they must land on the reference (within 1 %); the all-reduces are predictions and are
only held to ReFrame's upper threshold and to a band of 15 % around today's ratio that guards
against regressions (see the README, "Software stacks", for the gap).
"""
import json
import os
import subprocess
import sys
import tempfile

ceiling, root = sys.argv[1], sys.argv[2]
workload = f"{root}/tests/microbench/allreduce_8B.toml"
dom = ["--set", "node.nic.send_overhead=0.169 us", "--set", "node.nic.receive_overhead=0.169 us"]

# (name, platform, nodes, extra options, measured us, ReFrame's upper threshold (a fraction), today's ratio).
# A calibration (ratio None) must land within 1 % of its reference; a prediction within ReFrame's
# upper threshold and within 15 % of today's ratio of simulated to measured either way, which
# guards against regressions of the model in both directions.
cases = [
    ("osu_latency 8 B, host buffers", "piz-daint-xc30-cpu", 2, [], 1.30, 0.70, None),
    ("osu_latency 8 B, device buffers (CUDA-aware)", "piz-daint-xc50-p100", 2,
     ["--staging", "direct", "--set", "node.nic.gpu_direct=true", "--set", "interconnect.routing=static-minimal"],
     6.8, 0.65, None),
    ("osu_allreduce 8 B, 6 nodes", "piz-daint-xc30-cpu", 6, [], 9.30, 0.75, 0.53),
    ("osu_allreduce 8 B, 16 nodes", "piz-daint-xc30-cpu", 16, [], 13.62, 1.16, 0.41),
    ("Dom: osu_latency 8 B, host buffers", "piz-daint-xc30-cpu", 2, dom, 1.138, 0.10, None),
    ("Dom: osu_allreduce 8 B, 6 nodes", "piz-daint-xc30-cpu", 6, dom, 5.67, 0.05, 0.76),
]

def osu_reported_us(platform, nodes, extra):
    """The mean over ranks and iterations of each rank's time in the all-reduce, in us."""
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.json")
        subprocess.run([ceiling, "run", "-p", f"{root}/platforms/{platform}.toml", "-w", workload,
                        "-n", str(nodes), "--software", "mpich", "--overlap", "off", "--iterations", "3",
                        "--trace", trace, *extra], check=True, capture_output=True, text=True)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
    slices = [e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "collective"]
    if len(slices) != nodes * 3:  # (one per rank and iteration)
        sys.exit(f"osu_test: {len(slices)} collective slices in the trace of {nodes} ranks and 3 iterations")
    return sum(slices) / len(slices)  # (the trace's times are in us)


failures = 0
print(f"{'benchmark':48} {'simulated':>11} {'measured':>11} {'ratio':>7}")
for name, platform, nodes, extra, measured, upper, ratio in cases:
    simulated = osu_reported_us(platform, nodes, extra)
    low, high = (0.99, 1.01) if ratio is None else (0.85 * ratio, min(1.15 * ratio, 1 + upper))
    ok = low * measured <= simulated <= high * measured
    failures += not ok
    print(f"{name:48} {simulated:8.2f} us {measured:8.2f} us {simulated / measured:7.2f}"
          f" {'calibrates' if ratio is None else 'predicts'}"
          f"{'' if ok else '   FAIL: outside [' + format(low * measured, '.2f') + ', ' + format(high * measured, '.2f') + '] us'}")

# Bandwidths: a node-to-node transfer of 4 MiB (osu_bw's largest message, ReFrame's 4 MiB CPU
# buffers: 9,607 MB/s, tolerance -10 %) and a 1 GiB host->device copy (ReFrame memory_bandwidth:
# 11.881 GB/s, -10 %), from `ceiling platform bench` on the P100 nodes: size / simulated time.
# ReFrame's bandwidth tolerance is a lower bound (-10 %); these figures calibrate node.nic and
# node.pcie, so they are held within 1 % of the reference, as the latencies are.
def bench(size):
    out = subprocess.run([ceiling, "platform", "bench", f"{root}/platforms/piz-daint-xc50-p100.toml", "--nodes", "2",
                          "--size", size, "--json"], check=True, capture_output=True, text=True).stdout
    return {b["name"]: b["simulated_s"] for b in json.loads(out)["benchmarks"]}

for name, size, bytes_, key, measured in [
        ("osu_bw 4 MiB, host buffers", "4 MiB", 4 * 2**20, "transfer rank 0 -> rank 1 (CPU to CPU)", 9.607e9),
        ("host->device copy, 1 GiB", "1 GiB", 2**30, "host -> device copy (rank 0, GPU 0)", 11.881e9)]:
    simulated = bytes_ / bench(size)[key]
    ok = 0.99 * measured <= simulated <= 1.01 * measured
    failures += not ok
    print(f"{name:48} {simulated / 1e9:7.3f} GB/s {measured / 1e9:7.3f} GB/s {simulated / measured:7.2f} calibrates"
          f"{'' if ok else '   FAIL: outside [0.99, 1.01] x measured'}")
sys.exit(1 if failures else 0)
