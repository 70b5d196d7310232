#!/usr/bin/env python3
"""`ceiling hpc` on Piz Daint's machines: the directions HPL users know, the sampled message
sizes against every size, determinism, and refusals.

Directions (HPL's TUNING and its scalability analysis, netlib www/scalability.html: E grows
with N / P x Q):
- more memory per node, a larger matrix, raises E: the N^3 work grows faster than the N^2
  messages (on GPU nodes with the matrix in host memory the opposite: the larger matrix streams a
  larger share over PCIe);
- weak scaling (the matrix grows with the nodes, memory per node fixed) loses less E from 16
  to 256 nodes than strong scaling (the 16-node matrix kept);
- on GPU nodes with the matrix in host memory a larger NB raises E: C streams over PCIe once per
  NB columns of work (NB = 768 is the CUDA HPL README's advice);
- on CPU nodes a larger NB lowers E: the panel factorisation and the idle processes of the
  last steps grow with NB (the model's one DGEMM rate leaves out that real BLAS run small
  blocks slower).
usage: hpc_cli_test.py CEILING ROOT
"""
import json
import os
import subprocess
import tempfile
import sys

ceiling, root = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures += 1


def run(workload, platform, nodes, *extra):
    out = subprocess.run([ceiling, "hpc", "-w", f"{root}/workloads/{workload}.toml",
                          "-p", f"{root}/platforms/{platform}.toml", "-n", str(nodes), "--json", *extra],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ceiling hpc failed: {out.stderr}")
    return json.loads(out.stdout)


cpu, k20x, p100 = "piz-daint-xc30-cpu", "piz-daint-xc30-k20x", "piz-daint-xc50-p100"

for platform, where in ((cpu, "host"), (p100, "device")):
    big = run("hpl", platform, 64, "--set", f"hpl.matrix_memory={where}")["efficiency"]
    small = run("hpl", platform, 64, "--set", f"hpl.matrix_memory={where}", "--set", "hpl.memory_fraction=0.4")["efficiency"]
    check(big > small, f"{platform}, matrix in {where} memory: E with 80 % of it ({big:.4f}) > with 40 % ({small:.4f})")
# With the matrix in host memory, only what fits stays in device memory: a larger matrix streams
# a larger share over PCIe, which costs more than the larger N gains.
big = run("hpl", p100, 64)["efficiency"]
small = run("hpl", p100, 64, "--set", "hpl.memory_fraction=0.4")["efficiency"]
check(big < small, f"{p100}, matrix in host memory: E with 80 % of it ({big:.4f}) < with 40 % ({small:.4f})")

nb768 = run("hpl", k20x, 64)["efficiency"]
nb256 = run("hpl", k20x, 64, "--set", "hpl.block_size=256")["efficiency"]
check(nb768 > nb256, f"{k20x}, host-resident matrix: E with NB 768 ({nb768:.4f}) > NB 256 ({nb256:.4f})")
nb256 = run("hpl", cpu, 64)["efficiency"]
nb1024 = run("hpl", cpu, 64, "--set", "hpl.block_size=1024")["efficiency"]
check(nb256 > nb1024, f"{cpu}: E with NB 256 ({nb256:.4f}) > NB 1024 ({nb1024:.4f})")

# At N = 1 no non-parallel fraction is defined: the text says n/a, the JSON null, its key there.
one = run("hpcg", p100, 1)["non_parallel_fraction"]
check(all("one_minus_alpha_eff" in c and (c["one_minus_alpha_eff"] is None) == (c["n"] == 1) for c in one.values())
      and one["nodes"]["n"] == 1,
      f"hpcg on 1 {p100} node: one_minus_alpha_eff null where N = 1, a number where more (TOP500 cores) ({one})")

weak16 = run("hpl", cpu, 16)
weak256 = run("hpl", cpu, 256)["efficiency"]
strong256 = run("hpl", cpu, 256, "--set", f"hpl.matrix_order={weak16['matrix_order']}")["efficiency"]
weak_drop, strong_drop = weak256 / weak16["efficiency"], strong256 / weak16["efficiency"]
check(weak_drop > strong_drop,
      f"{cpu}, 16 -> 256 nodes: E kept weak {weak_drop:.4f} > strong {strong_drop:.4f}")

# Sampled message sizes, HPL's (HPCG's patterns have at most 8 sizes, all timed with 8 samples).
# On CM02 a pattern's time is affine in its bytes, so interpolating between 8 timed sizes is
# exact to rounding here: expectation 1e-12 of every size timed, with fewer timings.
# (tests/hpc/hpl_test.cpp holds the interpolation to 1 % on a curved timing, where it is not.)
for workload, platform, nodes in (("hpl", p100, 256), ("hpl", cpu, 256)):
    every = run(workload, platform, nodes)
    sampled = run(workload, platform, nodes, "--message-sizes", "8")
    error = abs(sampled["time_s"] / every["time_s"] - 1)
    check(error < 1e-12 and sampled["patterns_timed"] < every["patterns_timed"],
          f"{workload} on {nodes} {platform} nodes: 8 message sizes per pattern as every size "
          f"({error:.2e}; {sampled['patterns_timed']} against {every['patterns_timed']} timings)")

for workload, platform in (("hpl", p100), ("hpcg", k20x)):
    r = run(workload, platform, 32)
    e, n = r["efficiency"], r["nodes"]
    check(0 < e < 1, f"{workload} on {platform}: 0 < E = {e:.4f} < 1")
    b3 = r["non_parallel_fraction"]["nodes"]["one_minus_alpha_eff"]
    check(abs(b3 - (1 / e - 1) / (n - 1)) <= 1e-12 * b3, f"{workload}: 1 - alpha_eff is Vegh's (B3) of E and N")

args = ["hpc", "-w", f"{root}/workloads/hpl.toml", "-p", f"{root}/platforms/{k20x}.toml", "-n", "48"]
first, second = (subprocess.run([ceiling, *args], capture_output=True, text=True).stdout for _ in range(2))
check(first == second and first != "", "the same run prints the same text, bit for bit")


def refused(args, expect):
    out = subprocess.run([ceiling, *args], capture_output=True, text=True)
    check(out.returncode == 2 and expect in out.stderr, f"exit 2 with \"{expect}\" for {' '.join(args[1:])}: "
          f"got {out.returncode}, {out.stderr.strip()[:160]}")


hpl = f"{root}/workloads/hpl.toml"
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/generic-fat-tree.toml", "-n", "8"],
        "platforms/generic-fat-tree.toml:10:1: error: node.cpu.dgemm: missing key: HPL factors its panels on the CPU")
# HPCG on CPU nodes streams: it runs without a DGEMM rate, which HPL refuses at its key.
no_dgemm = os.path.join(tempfile.mkdtemp(), "cpu-no-dgemm.toml")
with open(f"{root}/platforms/{cpu}.toml") as source, open(no_dgemm, "w") as out:
    out.write("".join(line for line in source if not line.startswith("dgemm")))
out = subprocess.run([ceiling, "hpc", "-w", f"{root}/workloads/hpcg.toml", "-p", no_dgemm, "-n", "8"],
                     capture_output=True, text=True)
check(out.returncode == 0, f"HPCG on CPU nodes without a DGEMM rate runs: got {out.returncode}, {out.stderr.strip()[:160]}")
refused(["hpc", "-w", hpl, "-p", no_dgemm, "-n", "8"], "error: node.cpu.dgemm: missing key")
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{cpu}.toml", "-n", "8", "--set", "node.cpu.dgemm=1 PFLOP/s"],
        "node.cpu.dgemm: measured 1 PFLOP/s, above peak_fp64")
# The GPU keys of training runs, which hpc does not read, are refused, not dropped.
for key, value in (("node.gpu.device_spread", "0.1"), ("node.gpu.calibration_device", "other"),
                   ("node.gpu.compute_capability", "7.0")):
    refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{p100}.toml", "-n", "4", "--set", f"{key}={value}"],
            f"--set {key}: a key of training runs (platforms/README.md), which `ceiling hpc` does not read")
# A node memory too small for the grid at any block size is refused at the memory, not the block size.
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{p100}.toml", "-n", "4", "--set", "node.cpu.host_memory=1 KiB"],
        "node.cpu.host_memory: matrix order 20 gives 0 blocks of 768, fewer than the 2 process rows or columns of the 2 x 2 grid: "
        "even all of 1.024 kB a node, in blocks of the smallest size (16), would not give enough blocks")
# A base clock's peak from half the boost clock's to all of it (else E against it could pass 1).
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{p100}.toml", "-n", "4", "--set", "node.gpu.base_clock_peak_fp64=1 GFLOP/s"],
        "node.gpu.base_clock_peak_fp64: 1 GFLOP/s, below half of peak_fp64 (4.7 TFLOP/s)")
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{p100}.toml", "-n", "4", "--set", "node.gpu.base_clock_peak_fp64=5 TFLOP/s"],
        "node.gpu.base_clock_peak_fp64: 5 TFLOP/s, above peak_fp64 (4.7 TFLOP/s)")
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{cpu}.toml", "-n", "8", "--set", "hpl.broadcast=tree"],
        "expected one of")
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{cpu}.toml", "-n", "8", "--message-sizes", "1"],
        "--message-sizes")
refused(["hpc", "-w", hpl, "-p", f"{root}/platforms/{cpu}.toml", "-n", "8", "--set", "hpl.matrix_memory=device"],
        "needs GPU nodes")
refused(["run", "-w", hpl, "-p", f"{root}/platforms/{cpu}.toml", "-n", "8"], "hpl.toml:9:")
refused(["hpc", "-w", f"{root}/workloads/resnet50_v1.toml", "-p", f"{root}/platforms/{cpu}.toml"], "kind")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
