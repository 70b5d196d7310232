#!/usr/bin/env python3
"""A catalogue of bad input: malformed and extreme values in the four file kinds (platform,
workload, experiment, software) and on the command line. Every case must exit with status 2
and a message that names where: for a value in a file, "FILE:LINE:COL: error: KEY: ..." with
the key's dotted path, LINE the value's and COL its own (an unknown key's: 1) where the error is
the value's (or, for TOML that does not parse, "FILE:LINE:COL: error: invalid TOML"); for a file that cannot be read, "FILE: error: ..."; for an option, its name. No case
may crash, hang (30 s) or run.
usage: bad_input_catalogue.py CEILING ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

ceiling, root = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
cases = []  # (name, argv, file or None, expected key or option text)


def edited(base, table, key, value):
    """The text of `base` with `key` in [table] set to `value` (None: removed; a new key is added),
    and the 1-based line of the key (None where removed)."""
    lines = open(base).read().splitlines()
    header = re.compile(r"^\s*\[\[?" + re.escape(table) + r"\]\]?\s*(#.*)?$")
    start = next(i for i, line in enumerate(lines) if header.match(line))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*\[", lines[i])), len(lines))
    for i in range(start + 1, end):
        if re.match(r"^\s*" + re.escape(key) + r"\s*=", lines[i]):
            if value is None:
                del lines[i]
                line = None
            else:
                lines[i] = f"{key} = {value}"
                line = i + 1
            break
    else:
        lines.insert(start + 1, f"{key} = {value}")
        line = start + 2
    return "\n".join(lines) + "\n", line


def file_case(kind, base, table, key, value, argv_of):
    path = f"{tmp}/{len(cases):03d}-{kind}.toml"
    text, line = edited(base, table, key, value)
    with open(path, "w") as f:
        f.write(text)
    # A copy elsewhere than its base: relative paths in it must still resolve.
    text = open(path).read().replace('"../', f'"{os.path.dirname(os.path.abspath(base))}/../')
    with open(path, "w") as f:
        f.write(text)
    what = f"{kind} {table}.{key} = {value}" if value is not None else f"{kind} without {table}.{key}"
    named = {"platforms": "platforms[0]", "workloads": "workloads[0]"}.get(table, f"{table}.{key}")
    if value is not None and re.fullmatch(r"-?\d{20,}", str(value)):
        named = "invalid TOML"  # an integer beyond 64 bits does not parse (toml++)
    # Where the error must point: the value's line, and its column (after "KEY = ") unless it is an
    # array or a table, whose element may be the place; a removed key's error is at its table.
    place = None
    if value is not None and named == f"{table}.{key}":
        place = (line, None if str(value)[:1] in "[{" else len(key) + 4)
    cases.append((what, argv_of(path), path, named, place))


platform = f"{root}/platforms/generic-fat-tree.toml"
workload = f"{root}/workloads/resnet50_v1.toml"
experiment = f"{root}/experiments/quickstart.toml"
software = f"{root}/platforms/software/horovod-mpi.toml"
show = lambda p: ["platform", "show", p]
wshow = lambda p: ["workload", "show", p]
eshow = lambda p: ["experiment", "show", p]
srun = lambda p: ["run", "-p", platform, "-w", workload, "-n", "2", "--software", p]

quantity = ['"-1 GB/s"', '"12.5"', '"12.5 furlongs"', "12.5", "true", '"1e400 GB/s"', '"nan GB/s"', '"inf GB/s"', "[1]"]
size = ['"-16 GiB"', '"0 GiB"', '"16"', '"16 parsecs"', '"1e400 B"', "16"]
duration = ['"-1 us"', '"1 fortnight"', '"1"', '"nan s"', "false"]
integer = ["0", "-1", '"4"', "2.5", "99999999999", "true"]
for key, values in [("nodes", integer + ["99999999999999999999"]), ("name", ["42", "true", "[]"]),
                    ("description", ["7"]), ("software", ['"no-such-stack"', "3"])]:
    for v in values:
        file_case("platform", platform, "platform", key, v, show)
for table, key, values in [
        ("node.cpu", "sockets", integer), ("node.cpu", "cores_per_socket", integer[:4]),
        ("node.cpu", "peak_fp64", ['"-1 TFLOP/s"', '"1 TB/s"', '"1"', '"1 TFLOP/s/s"']),
        ("node.cpu", "memory_bandwidth", quantity), ("node.cpu", "core_memory_bandwidth", ['"0 GB/s"', '"1 PB/s"']),
        ("node.cpu", "host_memory", size[:3]), ("node.cpu", "dgemm", ['"-1 GFLOP/s"', '"fast"']),
        ("node.gpu", "count", integer[:4]), ("node.gpu", "memory", size), ("node.gpu", "peak_fp16", ['"0 TFLOP/s"']),
        ("node.gpu", "multiprocessors", ["0", '"56"']), ("node.gpu", "compute_capability", ['"6.0"', "0", "25", "6.05", "5.99999999999"]),
        ("node.gpu", "calibration_device", ["7"]), ("node.gpu", "base_clock_peak_fp64", ['"1 EFLOP/s"']),
        ("node.pcie", "generation", ["0", "6", '"3"']), ("node.pcie", "lanes", ["0", "33"]),
        ("node.pcie", "latency", duration),
        ("node.nic", "bandwidth", quantity[:6]), ("node.nic", "latency", duration[:3] + ['"0.5 ns"']),
        ("node.nic", "gpu_direct", ['"yes"', "1"]), ("node.nic", "send_overhead", ['"-1 us"']),
        ("node.nic", "ports", ["0", "65", '"8"', "4.0"]),
        ("interconnect", "topology", ['"hypercube"', "3"]), ("interconnect", "routing", ['"random"', '"ecmp2"']),
        ("interconnect", "link_bandwidth", quantity[:4]), ("interconnect", "link_latency", duration[:3] + ['"1e-12 s"']),
        ("interconnect", "down", ["[]", "[0, 8]", '"8,8"', "[8]", "[8, -8]"]), ("interconnect", "up", ["[1]", "[1, 0]"]),
        ("interconnect", "links", ["[1, 1, 1]"])]:
    for v in values:
        file_case("platform", platform, table, key, v, show)
for table, key in [("platform", "nodes"), ("platform", "name"), ("node.cpu", "sockets"), ("node.cpu", "memory_bandwidth"),
                   ("node.nic", "bandwidth"), ("interconnect", "link_bandwidth"), ("interconnect", "topology"),
                   ("interconnect", "down"), ("node.gpu", "memory"), ("node.pcie", "latency")]:
    file_case("platform", platform, table, key, None, show)
for table, key in [("platform", "bandwith"), ("node.cpu", "frequency"), ("interconnect", "dimensions")]:
    file_case("platform", platform, table, key, "1", show)

for table, key, values in [
        ("workload", "batch_per_worker", integer[:5]), ("workload", "precision", ['"fp8"', "32"]),
        ("workload", "granularity", ['"atom"']), ("workload", "input_bytes", ["-1", '"a lot"']),
        ("workload", "name", ["1"]), ("workload", "optimizer_bytes_per_parameter", ['"-20 B"']),
        ("workload", "kind", ['"foo"', '"hpl"', "1"]),
        ("reference", "params", ["-1", '"25M"', "25557000"]), ("reference", "forward_flop", ["7916000000"]),
        ("calibration", "measured_throughput", ["0", "-1", '"fast"']), ("calibration", "batch", ["0", "1e3"]),
        ("calibration", "accumulation", ["0", "-1", "2.5", '"4"', "1000001"]),
        ("calibration", "compute_efficiency", ["0", "3"]), ("calibration", "memory_efficiency", ["1.5"]),
        # (the last: a file that is no platform, whose own error follows the key's)
        ("calibration", "platform", ['"nowhere.toml"', '"."', '"../workloads/resnet50_v1.toml"'])]:
    for v in values:
        file_case("workload", workload, table, key, v, wshow)
for table, key in [("workload", "batch_per_worker"), ("calibration", "measured_throughput"), ("reference", "params")]:
    file_case("workload", workload, table, key, None, wshow)
file_case("workload", workload, "workload", "epochs", "3", wshow)

for table, key, values in [
        ("experiment", "nodes", ["[]", "[0]", "[-4]", '"many"', "{ from = 4, to = 1, factor = 2 }",
                                 "{ from = 1, to = 64, factor = 1 }", "[4, 4]"]),
        ("experiment", "scaling", ['["sideways"]', "[]", '"weak"']), ("experiment", "global_batch", ["0", "-8"]),
        ("experiment", "iterations", ["0", '"3"']), ("experiment", "output", ["3", '""', '"out/"']),
        ("platforms", "file", ['"missing.toml"', "7"]), ("workloads", "file", ['"missing.toml"'])]:
    for v in values:
        file_case("experiment", experiment, table, key, v, eshow)
file_case("experiment", experiment, "experiment", "repeat", "2", eshow)
# An entry's set changes its own file: a workload key in a platform entry is refused at it.
file_case("experiment", experiment, "platforms", "set", '["workload.batch_per_worker=0"]', eshow)
file_case("experiment", experiment, "workloads", "set", '["interconnect.link_bandwidth=1 GB/s"]', eshow)
file_case("experiment", experiment, "workloads", "set", '["batch_per_worker"]', eshow)
file_case("experiment", experiment, "platforms", "set", '["nodee.nodes=4"]', eshow)

for table, key, values in [
        ("software", "library", ['"openmpi9"', "1"]), ("software", "collective", ['"tree9"']),
        ("software", "cycle", ['"-5 ms"', '"5"']), ("software", "fusion_threshold", ['"0 B"', '"-1 MiB"']),
        ("software", "reducer", ['"gpu9"']), ("software", "negotiation", ['"yes"']),
        ("software", "message_overheads", ["2"]), ("software", "sparse_gradients", ['"sometimes"']),
        ("software", "rebuild_buckets", ["true", '"yes"']), ("software", "library", ['"nccl-2.9"']),
        ("software", "exchange", ['"per-tensor"', "1"]), ("software", "pull", ['"later"', '"next-forward"']),
        ("software", "fusion", ['"by-magic"']), ("software", "overlap", ['"no"', "0"]),
        ("software", "channels", ["0", "33", '"4"', "4"]), ("software", "pipeline_chunk", ['"16 B"', '"0 B"'])]:
    for v in values:
        file_case("software", software, table, key, v, srun)
file_case("software", software, "software", "turbo", "true", srun)

# Files that are not files, or not TOML.
def whole(name, content=None, make=None):
    path = f"{tmp}/whole-{len(cases):03d}.toml"
    if content is not None:
        with open(path, "wb") as f:
            f.write(content)
    if make:
        make(path)
    cases.append((name, ["platform", "show", path], path, None))


whole("an empty platform file", b"")
whole("a binary platform file", bytes(range(256)) * 4)
whole("an unclosed table header", b"[platform\nname = 'x'\n")
whole("a duplicate key", open(platform, "rb").read().replace(b"nodes = 64", b"nodes = 64\nnodes = 32", 1))
whole("a directory as the platform", make=os.mkdir)
whole("a FIFO as the platform", make=os.mkfifo)
whole("a missing platform file")
whole("a platform file 4 MB of comments", b"# x\n" * 1_000_000)
# A key nested 60,000 deep overflowed toml++'s stack (it recurses per part): refused at its place.
cases.append(("a dotted key of 60,000 parts", ["platform", "show", f"{tmp}/deep.toml"], None,
              "deep.toml:1:513: error: a dotted key of more than 256 parts"))
with open(f"{tmp}/deep.toml", "w") as f:
    f.write("[" + ".".join(["a"] * 60000) + "]\n")
# (also after a multi-line string whose closing quotes come with one of its own: """v"""" is v")
for quote, kind in (('"', "basic"), ("'", "literal")):
    name = f"deep-after-{kind}.toml"
    cases.append((f"a dotted key of 300 parts after {quote * 4}", ["platform", "show", f"{tmp}/{name}"], None,
                  "a dotted key of more than 256 parts"))
    with open(f"{tmp}/{name}", "w") as f:
        f.write(f"x = {{a = {quote * 3}v{quote * 4}, " + ".".join(["b"] * 300) + " = 1}\n")
cases.append(("a --set key of 60,000 parts", ["run", "-p", platform, "-w", workload, "-n", "2", "--set",
              "platform." + ".".join(["a"] * 60000) + "=1"], None, "a dotted key of more than 256 parts"))
# Names that label the outputs: never empty.
file_case("platform", platform, "platform", "name", '""', show)
file_case("workload", workload, "workload", "name", '" "', wshow)
# Free text that outputs print (a model, a description, what a sample is): no control characters.
file_case("platform", platform, "node.gpu", "model", '"a\\u001b[31mred"', show)
file_case("platform", platform, "platform", "description", '"a\\nb"', show)
file_case("workload", workload, "workload", "sample", '""', wshow)
file_case("workload", workload, "workload", "dataset", '"a\\u0007b"', wshow)
# Figures without a source: none.
file_case("workload", workload, "workload", "source", '" "', wshow)
# Empty where a path or a unit is expected: named so, not "no such file" or "missing key".
file_case("workload", workload, "calibration", "borrow", '""', wshow)
file_case("experiment", experiment, "experiment", "cost_unit", '""', eshow)
file_case("experiment", experiment, "platforms", "file", '""', eshow)
file_case("workload", workload, "calibration", "platform", '""', wshow)
# An output that names a folder: refused at the experiment's output where it comes from there.
file_case("experiment", experiment, "experiment", "output", f'"{tmp}"', lambda p: ["sweep", p])
# A NUL in a string would cut it short (a path to another file, a message): refused where it is.
file_case("experiment", experiment, "platforms", "file", '"../platforms/generic-fat-tree.toml\\u0000junk"', eshow)
cases.append(("a NUL in a --set value", ["run", "-p", platform, "-w", workload, "-n", "2", "--set",
              'interconnect.link_bandwidth="25 GB/s\\u0000junk"'], None, "interconnect.link_bandwidth: holds a NUL"))
cases.append(("a --set integer beyond 64 bits", ["run", "-p", platform, "-w", workload, "-n", "2", "--set",
              "workload.batch_per_worker=99999999999999999999"], None, "workload.batch_per_worker: 99999999999999999999 is beyond a 64-bit integer"))
cases.append(("a --set number beyond a double", ["run", "-p", platform, "-w", workload, "-n", "2", "--set",
              "node.nic.bandwidth=-1e400"], None, "node.nic.bandwidth: -1e400 is beyond the range of a number"))
# A bare number below a double's range, which TOML reads as 0 without a word: refused where it is
# written (a latency or a spread may be 0, so that 0 would have run).
file_case("platform", platform, "node.gpu", "device_spread", "1e-400", show)
cases.append(("a --set number below a double's range", ["run", "-p", platform, "-w", workload, "-n", "2", "--set",
              "interconnect.link_latency_us=1e-400"], None, "interconnect.link_latency_us: 1e-400 is beyond the range of a number"))
cases.append(("a hexadecimal background load", ["run", "-p", platform, "-w", workload, "-n", "2",
              "--background-load", "fabric=0x0.8"], None, "--background-load"))
cases.append(("--version with more after it", ["--version", "extra"], None, "--version"))
# A platform's stack left empty is not the default stack.
file_case("platform", platform, "platform", "software", '""', show)
# A software file that cannot be looked at (a loop of symbolic links): an error, not an exception.
os.symlink(f"{tmp}/loop-b.toml", f"{tmp}/loop-a.toml")
os.symlink(f"{tmp}/loop-a.toml", f"{tmp}/loop-b.toml")
cases.append(("a software file in a loop of links", ["run", "-p", platform, "-w", workload, "-n", "2", "--software",
              f"{tmp}/loop-a.toml"], None, "loop-a.toml"))
cases.append(("a software name too long", ["run", "-p", platform, "-w", workload, "-n", "2", "--software", "a" * 300],
              None, "no such software file"))

# The command line.
run = ["run", "-p", platform, "-w", workload]
for args, option in [
        (["-n", "0"], "--nodes"), (["-n", "-1"], "--nodes"), (["-n", "abc"], "--nodes"), (["-n", "1e3"], "--nodes"),
        (["-n", "99999999999999999999"], "--nodes"), (["-n", "65"], "--nodes"),
        (["-n", "2", "--iterations", "0"], "iterations"), (["-n", "2", "--iterations", "x"], "--iterations"),
        (["-n", "2", "--batch", "0"], "--batch"), (["-n", "2", "--global-batch", "7"], "--global-batch"),
        (["-n", "2", "--precision", "fp8"], "--precision"), (["-n", "2", "--collective", "tree9"], "--collective"),
        (["-n", "2", "--staging", "sideways"], "--staging"), (["-n", "2", "--overlap", "maybe"], "--overlap"),
        (["-n", "2", "--fidelity", "ultra"], "--fidelity"), (["-n", "2", "--network-model", "XYZ"], "--network-model"),
        (["-n", "2", "--latency-factor", "-1"], "--latency-factor"), (["-n", "2", "--latency-factor", "nan"], "--latency-factor"),
        (["-n", "2", "--bandwidth-factor", "inf"], "--bandwidth-factor"), (["-n", "2", "--jitter", "-0.5"], "jitter"),
        (["-n", "2", "--jitter", "inf"], "jitter"), (["-n", "2", "--set", "x"], "--set"),
        (["-n", "2", "--set", "foo.bar=1"], "foo.bar"), (["-n", "2", "--set", "node.nic.bandwidth=fast"], "node.nic.bandwidth"),
        (["-n", "2", "--allocation", "nowhere"], "--allocation"), (["-n", "2", "--allocation", "list", "--node-list", "a,b"], "--node-list"),
        (["-n", "2", "--background-load", "fabric=2"], "background"), (["-n", "2", "--fusion-threshold", "-1 MiB"], "--fusion-threshold"),
        (["-n", "2", "--fusion-threshold", "0.5 B"], "--fusion-threshold: \"0.5 B\" is beyond what a machine"),
        (["-n", "2", "--set", "interconnect.down=[8,8,8]"], "--set:1:19: error: interconnect.down: impossible fat-tree shape"),
        (["-n", "2", "--fusion-threshold", "1e30 B"], "--fusion-threshold: \"1e30 B\" is beyond what a machine"),
        (["-n", "2", "--trace", tmp], "is a folder"), (["-n", "2", "--seeds", "a"], "--seeds"),
        (["-n", "2", "--seeds", "1,2", "--jobs", "0"], "--jobs"), (["-n", "2", "--transfer-driver", "pigeon"], "--transfer-driver"),
        (["-n", "2", "--frobnicate"], "--frobnicate"), (["-n", "2", "--max-memory", "-1 GiB"], "--max-memory"),
        (["-n", "2", "--servers", "0", "--collective", "parameter-server"], "servers"),
        (["-n", "2", "--servers", "2"], "--servers: counts parameter servers, but the collective is"),
        (["-n", "2", "--iterations", "many"], "--iterations: expected a number it can hold (a count such as --nodes"),
        (["-n", "2", "--set", "calibration.measured_throughput=100"], "a run does not fit the calibration again"),
        (["-n", "2", "--set", "software.placement=greedy"], "software.placement: places the variables on the parameter servers"),
        (["-n", "2", "--software", "horovod-mpi", "--set", "software.cycle=0 s"], "software.negotiation")]:
    cases.append((f"run {' '.join(args)}", run + args, None, option))
hpc = ["hpc", "-w", f"{root}/workloads/hpl.toml", "-p", f"{root}/platforms/piz-daint-xc30-cpu.toml"]
for args, option in [(["-n", "0"], "--nodes"), (["--message-sizes", "0"], "--message-sizes"),
                     (["--set", "hpl.block_size=0"], "hpl.block_size"), (["--set", "hpl.lookahead=2"], "hpl.lookahead"),
                     (["--set", "hpl.matrix_order=1"], "hpl.matrix_order"), (["--set", "hpl.block_size=8"], "hpl.block_size"),
                     (["-n", "16", "--set", "hpl.grid_rows=17"], "hpl.grid_rows"),
                     (["-n", "16", "--set", "hpl.matrix_order=100000"], "hpl.matrix_order: matrix_order 100000 is not a multiple"),
                     # a matrix of fewer blocks than the grid's rows: at the key that sized it
                     (["-n", "16", "--set", "hpl.memory_fraction=0.0000001"],
                      "--set:1:21: error: hpl.memory_fraction: matrix order 82 gives 0 blocks of 256"),
                     (["-n", "16", "--set", "hpl.block_size=1000000"],
                      "--set:1:16: error: hpl.block_size: matrix order 234468 gives 0 blocks of 1000000"),
                     (["--set", "hpcg.nx=8"], "an HPL workload (kind = \"hpl\") has no [hpcg] table")]:
    cases.append((f"hpc {' '.join(args)}", hpc + args, None, option))
hpcg = ["hpc", "-w", f"{root}/workloads/hpcg.toml", "-p", f"{root}/platforms/piz-daint-xc30-cpu.toml"]
for args, option in [(["--set", "hpcg.nx=8"], "hpcg.nx"), (["--set", "hpcg.nx=100"], "hpcg.nx")]:
    cases.append((f"hpcg {' '.join(args)}", hpcg + args, None, option))
for args, option in [(["platform", "bench", platform, "--size", "1e400 B", "-n", "2"], "--size"),
                     (["platform", "bench", platform, "--size", "1e20 B", "-n", "2"], "--size: \"1e20 B\" is beyond"),
                     (["platform", "bench", platform, "--size", "0.5 B", "-n", "2"], "--size: \"0.5 B\" is beyond"),
                     (["platform", "bench", platform, "--size", "-1 MiB"], "--size"),
                     (["platform", "export", platform, "--nodes", "4"], "--output"),
                     (["sweep", f"{tmp}/no-such-experiment.toml"], "no-such-experiment.toml"),
                     (["sweep", experiment, "-o", f"{tmp}/a-folder/"], "a-folder/ names a folder: the output (-o, or the experiment's output) names the result file"),
                     (["sweep", experiment, "-o", f"{tmp}/a-fifo"], "is not a regular file (a device, a FIFO or a socket)"),
                     (["sweep", experiment, "-o", ""], "--output: empty"),
                     (["export", f"{tmp}/no-such.h5"], "--csv: required"),
                     (["report", f"{tmp}/no-such.h5"], "no-such.h5"), (["plot", platform], "generic-fat-tree.toml"),
                     (["validate", "no-such-case"], "no-such-case"), (["workload", "calibrate"], "FILE")]:
    cases.append((" ".join(args[:2]) + " " + " ".join(args[2:])[:40], args, None, option))

os.mkfifo(f"{tmp}/a-fifo")  # an output that a rename would replace by a plain file
location = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$", re.M)  # (the first location: a nested error follows)
failures = 0
for name, argv, path, expected, *place in cases:
    place = place[0] if place else None  # (line, column) of a value edited in a file
    try:
        out = subprocess.run([ceiling, *argv], capture_output=True, text=True, timeout=30)
        code, err = out.returncode, out.stderr
    except subprocess.TimeoutExpired:
        code, err = None, "timed out"
    problems = []
    if code != 2:
        problems.append(f"exit {code}, wanted 2")
    if path and expected:  # a value in a file: located, with its key
        m = location.search(err)
        if not m or not m.group(1).endswith(os.path.basename(path)):
            problems.append("no FILE:LINE:COL")
        elif expected not in m.group(4).split(": ")[0]:  # (in the key's place, before the message)
            problems.append(f"key {expected} not named where the error names its key")
        elif place and int(m.group(2)) != place[0]:
            problems.append(f"line {m.group(2)}, wanted {place[0]}")
        elif place and place[1] and int(m.group(3)) != (1 if "unknown key" in m.group(4) else place[1]):
            problems.append(f"column {m.group(3)}, wanted {place[1]} (the value; an unknown key's 1)")
    elif path:  # the whole file: named
        if os.path.basename(path) not in err:
            problems.append("file not named")
    elif expected not in err:
        problems.append(f"\"{expected}\" not named")
    if "internal error" in err or "terminate" in err or "Sanitizer" in err:
        problems.append("crash")
    if problems:
        failures += 1
        print(f"FAIL  {name}: {'; '.join(problems)}: {err.strip().splitlines()[-1][:200] if err.strip() else ''}")
print(f"{len(cases)} cases, {failures} failure(s)")
sys.exit(1 if failures or len(cases) < 150 else 0)
