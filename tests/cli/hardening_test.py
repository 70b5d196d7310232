#!/usr/bin/env python3
"""Regression tests for the failures the hardening issue found: each input that crashed, hung,
rounded silently or was accepted without a word now runs, or is refused with exit 2 and a
message that says what to fix.
usage: hardening_test.py CEILING ROOT
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ceiling, root = sys.argv[1], sys.argv[2]
failures = 0
tmp = tempfile.mkdtemp()


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures += 1


def run(*args, timeout=300):
    start = time.monotonic()
    try:
        out = subprocess.run([ceiling, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s", timeout
    return out.returncode, out.stdout, out.stderr, time.monotonic() - start


def refused(args, expect, what, within_s=None):
    code, _, err, wall = run(*args, timeout=60)
    fast = within_s is None or wall < within_s
    check(code == 2 and expect in err and fast,
          f"{what}: exit 2 with \"{expect}\"" + (f" within {within_s} s" if within_s else "") +
          f" (got {code}, {wall:.1f} s: {err.strip()[:150]})")


def runs(args, what, timeout=300):
    code, out, err, wall = run(*args, timeout=timeout)
    check(code == 0, f"{what}: runs (exit {code}, {wall:.1f} s{': ' + err.strip()[:150] if code else ''})")
    return out


def platform(name):
    return f"{root}/platforms/{name}.toml"


def workload(name):
    return f"{root}/workloads/{name}.toml"


base = ["run", "-p", platform("generic-fat-tree"), "-w", workload("resnet50_v1"), "-n", "8"]
small = [*base, "--iterations", "2", "--json"]


def mean_time(*extra):
    out = runs([*small, *extra], " ".join(extra))
    return json.loads(out)["mean"]["iteration_time_s"] if out else float("nan")


# Network factors reach SimGrid as doubles: 0.0010000006 is not 0.001, 1.0000004 is not 1
# (std::to_string kept six decimals), and the least factor accepted runs.
check(mean_time("--bandwidth-factor", "0.0010000006") != mean_time("--bandwidth-factor", "0.001"),
      "--bandwidth-factor 0.0010000006 and 0.001 give different times")
check(mean_time("--bandwidth-factor", "1.0000004") != mean_time("--bandwidth-factor", "1"),
      "--bandwidth-factor 1.0000004 and 1 give different times")
check(mean_time("--latency-factor", "0.0010000004") != mean_time("--latency-factor", "0.001"),
      "--latency-factor 0.0010000004 is not rounded (to 0.001)")
refused([*small, "--jitter", "1e308"], "--jitter: must be a number from 0 to 10", "--jitter 1e308")
refused([*small, "--bandwidth-factor", "0"], "--bandwidth-factor: expected a factor from 0.001 to 1000", "--bandwidth-factor 0")
refused([*small, "--latency-factor", "1e300"], "--latency-factor: expected a factor from 0.001 to 1000, got 1e+300",
        "--latency-factor 1e300 (times of 300 digits, compute drowned)")

# Topology products that overflowed a signed 64-bit integer.
for topology, keys in (("torus", 'dimensions = [1000000, 1000000, 1000000, 1000000]'),
                       ("dragonfly", "groups = 1000000\nglobal_links = 1\nchassis_per_group = 1000000\nchassis_links = 1\n"
                                     "routers_per_chassis = 1000000\nrouter_links = 1\nnodes_per_router = 1000000"),
                       ("fat-tree", "down = [1000000, 1000000, 1000000, 1000000]\nup = [1, 1, 1, 1]\nlinks = [1, 1, 1, 1]")):
    path = f"{tmp}/{topology}.toml"
    with open(path, "w") as f:
        f.write('[platform]\nname = "x"\nnodes = 16\n[node.cpu]\nsockets = 1\ncores_per_socket = 1\n'
                'peak_fp64 = "1 GFLOP/s"\nmemory_bandwidth = "1 GB/s"\n[node.nic]\nbandwidth = "1 GB/s"\n'
                f'latency = "1 us"\n[interconnect]\ntopology = "{topology}"\nlink_bandwidth = "1 GB/s"\n'
                f'link_latency = "1 us"\n{keys}\n')
    refused(["platform", "show", path], "interconnect: the " + topology + " has more than 262144 node slots",
            f"a {topology} whose size product overflows", within_s=5)

# Inputs that were accepted, hung or crashed.
code, _, err, _ = run()
check(code == 2 and "error: no command given" in err, "no arguments: an error line and exit 2")
refused(["platform", "show", "/dev/zero"], "not a regular file", "/dev/zero as a platform", within_s=5)
fifo = f"{tmp}/fifo.toml"
os.mkfifo(fifo)
refused(["platform", "show", fifo], "not a regular file", "a FIFO as a platform", within_s=5)
refused(["run", "-p", platform("generic-fat-tree"), "-w", workload("resnet50_v1"), "-n", "2",
         "--set", 'node.nic.bandwidth="1e300 EB/s"'], "is out of range", "a bandwidth of 1e300 EB/s")
# A quantity no machine has (a slip of the unit) is refused at its key, not simulated into overflow.
refused(["run", "-p", platform("generic-fat-tree"), "-w", workload("resnet50_v1"), "-n", "2",
         "--set", 'interconnect.link_bandwidth="1e-300 B/s"'],
        'interconnect.link_bandwidth: "1e-300 B/s" is beyond what a machine or workload has', "a bandwidth of 1e-300 B/s")
refused(["run", "-p", platform("generic-fat-tree"), "-w", workload("resnet50_v1"), "-n", "2",
         "--set", 'interconnect.link_latency="1e30 s"'], "expected a magnitude from 1e-15 to 1e+06 s", "a latency of 1e30 s")
# An integer beyond 2^53 (no double holds it exactly) is that number, not "nan".
refused(["run", "-p", platform("generic-fat-tree"), "-w", workload("resnet50_v1"), "-n", "2",
         "--set", "interconnect.link_latency_ns=9007199254740993"],
        'interconnect.link_latency_ns: "9.0072e+15 ns" is beyond what a machine or workload has', "a latency of 2^53 + 1 ns")
huge = f"{tmp}/huge.toml"
with open(platform("generic-fat-tree")) as f:
    text = f.read()
with open(huge, "w") as f:
    f.write("\n".join("nodes = 99999999999999999999" if line.startswith("nodes =") else line
                      for line in text.splitlines()))
refused(["platform", "show", huge], "huge.toml:", "nodes = 99999999999999999999 (a file, line and column)")

for bad, expect in (("nowhere.toml", "(no such file)"), ("/tmp", "(a folder, a FIFO or a device)")):
    path = f"{tmp}/calibration.toml"
    with open(workload("resnet50_v1")) as f:
        lines = f.read().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[calibration]"))
    at = next(i for i in range(at, len(lines)) if lines[i].startswith("platform ="))
    lines[at] = f'platform = "{bad}"'
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    refused(["workload", "show", path], f"calibration.toml:{at + 1}:12: error: calibration.platform", 
            f"a calibration platform {bad} {expect}")

cpu = ["run", "-p", platform("piz-daint-xc30-cpu"), "-w", workload("resnet50_v1"), "-n", "4", "--iterations", "1"]
refused([*cpu, "--servers", "4"], "--servers: counts parameter servers", "--servers without a parameter server")
refused([*cpu, "--staging", "direct"], "--staging: stages messages between host and GPU memory", "--staging on CPU nodes")
refused([*cpu, "--software", "tf-replicated-nccl"],
        "platforms/software/tf-replicated-nccl.toml:15:14: error: software.needs_gpus: the stack's code runs on GPUs only, but",
        "a GPU-only stack without an NCCL library on CPU nodes")
refused([*cpu, "--software", "horovod-nccl"],
        "platforms/software/horovod-nccl.toml:7:11: error: software.library: NCCL runs on GPUs, but", "an NCCL stack on CPU nodes")
# A missing quantity beside another whose name starts with it, written with its unit in the key:
# the error names the missing key (it named memory_bandwidth_GB_per_s, at its line).
nomem = os.path.join(tempfile.mkdtemp(), "dgx1-no-memory.toml")
with open(platform("dgx1-v100")) as source, open(nomem, "w") as out:
    for line in source:
        if line.startswith("memory = "):
            continue
        out.write('memory_bandwidth_GB_per_s = 900\n' if line.startswith("memory_bandwidth = ") else line)
refused(["platform", "show", nomem], "error: node.gpu.memory: missing key", "a missing memory beside memory_bandwidth_GB_per_s")
p100 = ["run", "-p", platform("piz-daint-xc50-p100"), "-w", workload("resnet50_v1"), "-n", "2", "--iterations", "1"]
refused([*p100, "--background-load", "fabric=0.1", "--background-load", "fabric=0.2"],
        "--background-load: fabric given twice", "a background load kind given twice (the last was taken)")
refused(["run", "-p", platform("generic-single-switch"), "-w", workload("resnet50_v1"), "-n", "4", "--iterations", "1",
         "--background-load", "fabric=0.5"], "has none (a single switch): the load would change nothing",
        "a fabric background load on a single switch (taken, and it changed nothing)")
refused([*p100, "--allocation", "list", "--node-list", "0,1,"], "--node-list: expected comma-separated node numbers",
        "a node list ending in a comma")
refused(["platform", "bench", platform("generic-fat-tree"), "-n", "2", "--set", "workload.batch_per_worker=3"],
        "--set: \"workload.batch_per_worker=3\" changes a workload file, which `ceiling platform bench` does not read",
        "platform bench --set of a workload key (dropped unread)")
refused(["hpc", "-w", workload("hpl"), "-p", platform("piz-daint-xc30-cpu"), "-n", "4", "--set", "software.jitter=0"],
        "changes a software file, which `ceiling hpc` does not read", "hpc --set of a software key (dropped unread)")
for command in (["hpc", "-w", workload("hpl"), "-p", platform("piz-daint-xc50-p100"), "-n", "4"],
                ["platform", "bench", platform("generic-fat-tree"), "-n", "2"]):
    refused([*command, "--set", "platform.software=horovod-nccl"],
            "changes the platform's software stack, which `ceiling " + " ".join(command[:2] if command[0] == "platform" else command[:1]) +
            "` does not run", command[0] + " --set of platform.software (dropped unread)")
for option in (["--input-overlap", "off"], ["--copies", "simgrid"]):
    refused(["run", "-p", platform("piz-daint-xc30-cpu"), "-w", workload("resnet50_v1"), "-n", "2", *option],
            "have no GPU: leave " + option[0] + " out", option[0] + " on CPU nodes (taken, and it changed nothing)")
refused([*p100, "--staging", "direct"], "--staging: direct sends from GPU memory (GPUDirect RDMA), but the NICs of "
        "piz-daint-xc50-p100 cannot read it", "--staging direct without GPUDirect (it ran as if the NIC had it)")

# Resources: refused with the estimate, at once, instead of dying of bad_alloc.
refused([*base, "--iterations", "1000000000"], "--iterations: must be from 1 to 1000000", "--iterations 1e9", within_s=5)
refused(["run", "-p", platform("generic-single-switch"), "-w", workload("resnet50_v1"), "-n", "1000000000",
         "--set", "platform.nodes=1000000000"], "platform.nodes: must be between 1 and 262144, got 1000000000", "10^9 nodes", within_s=5)
refused([*base, "--iterations", "1000", "--max-memory", "1 MiB"], "--max-memory: the simulation would need at least", "--max-memory")

# The trace: its path checked before the simulation, the file written whole or not at all.
refused([*small, "--trace", "/nonexistent/dir/t.json"], "cannot create", "an unwritable --trace path", within_s=5)
trace = f"{tmp}/t.json"
runs([*small, "--trace", trace], "a run with --trace")
with open(trace) as f:
    check(isinstance(json.load(f), (dict, list)) and not os.path.exists(trace + ".tmp"),
          "the trace is whole JSON and no temporary is left")

# Crashes inside SimGrid: the parameter server from 1,024 Piz Daint nodes, the IB model.
runs(["run", "-p", platform("piz-daint-xc50-p100"), "-w", workload("din"), "-n", "1024", "--collective",
      "parameter-server", "--servers", "16", "--iterations", "2"], "DIN, parameter server (16), 1,024 P100 nodes")
for name in ("generic-fat-tree", "generic-dragonfly"):
    for n in ("8", "16"):
        for _ in range(2):
            runs(["run", "-p", platform(name), "-w", workload("resnet50_v1"), "-n", n, "--network-model", "IB",
                  "--set", "interconnect.routing=static-minimal", "--collective", "halving-doubling",
                  "--iterations", "2"], f"--network-model IB on {n} nodes of {name}")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
