#!/usr/bin/python3
"""Write a sample ceiling result store (HDF5, format_version 1) for developing and testing plots.

    /usr/bin/python3 tools/plot/make_sample_results.py OUT.h5 [--case full|empty|single]

The file follows the schema `ceiling sweep` writes (README, "Result store"): root attributes,
/inputs, /points and one /curves/curve_NNN group per curve. Its experiment is 2 platforms (Piz
Daint XC30 + K20X, XC50 + P100) x 1 workload (ResNet-50 v1) x weak/strong scaling, 2 seeds
per node count, from a closed-form timing model rather than a simulation:

  * K20X weak: communication and waiting grow linearly in N, so the curve is exactly
    Amdahl-shaped (speedup 1 / ((1 - a) + a / r)) up to the seed jitter;
  * P100 weak: it grows as log2 N, which Amdahl's law does not describe;
  * strong: a fixed global batch of 1,024 samples, compute shrinking as 1/N, a constant
    all-reduce plus a latency term growing with N;
  * one failed point (K20X weak, N = 1,024, seed 2: a time-out), so that curve's largest N
    averages one seed.

The curve datasets and attributes are computed from the points by a port of
sim/analysis/curve_analysis.cpp (per-n means, speedup against the smallest n, alpha_eff NaN
at the reference, the least-squares Amdahl fit), so they agree with the points as the C++
writer's would. --case empty writes no points (every curve empty); --case single keeps only
the smallest N of each curve. Standard library, numpy and h5py; the output depends only on
the arguments (fixed seeds, no dates).
"""

import argparse
import hashlib
import math
import random
import shlex
import sys

import h5py
import numpy as np

TOOL_VERSION = "0.1.0"
SIMGRID_VERSION = "3.32"
EXPERIMENT_PATH = "experiments/piz-daint-k20x-vs-p100.toml"
WORKLOAD_PATH = "workloads/resnet50_v1.toml"
BATCH_PER_RANK = 64    # weak scaling, samples per rank and iteration
GLOBAL_BATCH = 1024    # strong scaling, samples per iteration over all ranks
FLOP_PER_SAMPLE = 3 * 3.86e9  # ResNet-50 v1, forward + backward = 3 x forward
SEEDS = (1, 2)
JITTER = 0.004         # relative spread of iteration times between seeds

PLATFORMS = {
    # path, nominal fp32 peak per node (FLOP/s), s per sample, copy s per sample, gradient
    # staging copy (s), all-reduce bandwidth term (s), per-step latency (s)
    "piz-daint-xc30-k20x": dict(path="platforms/piz-daint-xc30-k20x.toml", peak=3.95e12,
                                compute_per_sample=0.0125, copy_per_sample=0.00045,
                                staging_s=0.048, allreduce_s=0.040, latency_s=9e-6),
    "piz-daint-xc50-p100": dict(path="platforms/piz-daint-xc50-p100.toml", peak=9.3e12,
                                compute_per_sample=0.0042, copy_per_sample=0.00035,
                                staging_s=0.027, allreduce_s=0.021, latency_s=4e-6),
}
CURVES = [(p, "resnet50_v1", "baseline", s) for p in PLATFORMS for s in ("weak", "strong")]
NODES = {"weak": [2**k for k in range(11)], "strong": [2**k for k in range(10)]}
FAILED = ("piz-daint-xc30-k20x", "weak", 1024, 2)
FAILED_ERROR = "point timed out after 3,600 s of wall-clock time (--timeout 3600)"

EXPERIMENT_TEXT = """\
# Where does ResNet-50 training stop scaling on Piz Daint's GPU generations?
[experiment]
title = "Piz Daint K20X vs P100: ResNet-50 data-parallel training"
question = "Where does ResNet-50 v1 training stop scaling on Piz Daint's XC30 + K20X and XC50 + P100 nodes, in weak scaling (64 samples per GPU) and strong scaling (a global batch of 1,024)?"
platforms = ["platforms/piz-daint-xc30-k20x.toml", "platforms/piz-daint-xc50-p100.toml"]
workloads = ["workloads/resnet50_v1.toml"]
scaling = ["weak", "strong"]
nodes = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
seeds = [1, 2]
batch = 64
global_batch = 1024
"""

# ------------------------------------------------------------------------------------------
# Timing model
# ------------------------------------------------------------------------------------------


def breakdown(platform, scaling, nodes, seed):
    """The (compute, copy, communication, synchronisation) seconds of one point."""
    p = PLATFORMS[platform]
    batch = BATCH_PER_RANK if scaling == "weak" else GLOBAL_BATCH / nodes
    rng = random.Random(f"{platform}/{scaling}/{nodes}/{seed}")
    compute = p["compute_per_sample"] * batch
    copy = p["copy_per_sample"] * batch
    if platform == "piz-daint-xc30-k20x" and scaling == "weak":
        # Every part linear in N: T(r) = T(1) (a + (1 - a) r), Amdahl's law for weak
        # scaling (the gradients are staged through the host even on one node).
        copy += p["staging_s"]
        communication = 80 * p["latency_s"] * (nodes - 1)
        synchronisation = 20 * p["latency_s"] * (nodes - 1)
    else:
        if nodes > 1:
            copy += p["staging_s"]
        ring = 2 * (nodes - 1) / nodes
        if scaling == "weak":
            communication = ring * p["allreduce_s"] * (1 + 0.35 * math.log2(nodes))
        else:
            communication = ring * p["allreduce_s"] + 2 * (nodes - 1) * 8 * p["latency_s"]
        # Waiting for the slowest rank: grows with the spread over more ranks.
        synchronisation = 0.012 * compute * math.sqrt(math.log2(nodes)) if nodes > 1 else 0.0
    scale = 1 + JITTER * rng.uniform(-1, 1)
    return [x * scale for x in (compute, copy, communication, synchronisation)]


def point_command(platform, scaling, nodes, seed):
    args = ["-p", PLATFORMS[platform]["path"], "-w", WORKLOAD_PATH, "-n", str(nodes),
            "--seed", str(seed)]
    args += ["--batch", str(BATCH_PER_RANK)] if scaling == "weak" else [
        "--global-batch", str(GLOBAL_BATCH)]
    args += ["--set", "stack.note=sample file | not a simulation"]
    return "ceiling run " + " ".join(shlex.quote(a) for a in args), "\n".join(args)


def make_points(case):
    rows = []
    index = 0
    for curve, (platform, _, _, scaling) in enumerate(CURVES):
        for nodes in NODES[scaling]:
            for seed in SEEDS:
                command, run_arguments = point_command(platform, scaling, nodes, seed)
                row = dict(index=index, curve=curve, nodes=nodes, seed=seed, command=command,
                           run_arguments=run_arguments)
                index += 1
                if case == "empty" or (case == "single" and nodes != NODES[scaling][0]):
                    continue
                failed = (platform, scaling, nodes, seed) == FAILED
                batch = BATCH_PER_RANK if scaling == "weak" else GLOBAL_BATCH // nodes
                parts = [0.0] * 4 if failed else breakdown(platform, scaling, nodes, seed)
                t = sum(parts)
                samples = 0.0 if failed else float(batch * nodes)
                row.update(
                    status="failed" if failed else "ok",
                    error=FAILED_ERROR if failed else "",
                    ranks=0 if failed else nodes,
                    batch_per_rank=0 if failed else batch,
                    iteration_time_s=t,
                    warmup_time_s=0.0 if failed else 1.9 * t,
                    iteration_time_min_s=0.0 if failed else t * (1 - 0.3 * JITTER),
                    iteration_time_max_s=0.0 if failed else t * (1 + 0.3 * JITTER),
                    samples_per_iteration=samples,
                    flop_per_iteration=samples * FLOP_PER_SAMPLE,
                    peak_flop_per_s=0.0 if failed else nodes * PLATFORMS[platform]["peak"],
                    compute_s=parts[0], copy_s=parts[1], communication_s=parts[2],
                    synchronisation_s=parts[3],
                    bytes_pcie=0.0 if failed else 2 * 102.2e6 + batch * 602112.0,
                    bytes_nic=0.0 if failed else 2 * (nodes - 1) / nodes * 102.2e6 * nodes,
                    bytes_fabric=0.0 if failed else 2 * (nodes - 1) / nodes * 102.2e6 * nodes,
                    bytes_gpu_link=0.0,
                    bytes_host_memory=0.0 if failed else 3 * 102.2e6 * nodes)
                rows.append(row)
    return rows, index


# ------------------------------------------------------------------------------------------
# Port of sim/analysis/curve_analysis.cpp
# ------------------------------------------------------------------------------------------

NAN = float("nan")
INF = float("inf")
PARTS = ("compute_s", "copy_s", "communication_s", "synchronisation_s")


def analyse(points, scaling):
    usable = [p for p in points if math.isfinite(p["iteration_time_s"])
              and p["iteration_time_s"] > 0]
    usable.sort(key=lambda p: p["nodes"])  # stable, as std::stable_sort
    metrics = []
    for n in sorted({p["nodes"] for p in usable}):
        seeds = [p for p in usable if p["nodes"] == n]
        times = [p["iteration_time_s"] for p in seeds]
        m = dict(n=float(n), seeds=len(seeds), iteration_time_s=sum(times) / len(seeds),
                 iteration_time_min_s=min(times), iteration_time_max_s=max(times))
        for part in PARTS:
            m[part] = sum(p[part] for p in seeds) / len(seeds)
        samples = sum(p["samples_per_iteration"] for p in seeds) / len(seeds)
        flop = sum(p["flop_per_iteration"] for p in seeds) / len(seeds)
        peak = sum(p["peak_flop_per_s"] for p in seeds) / len(seeds)
        m["throughput_samples_per_s"] = samples / m["iteration_time_s"]
        m["payload_flop_per_s"] = flop / m["iteration_time_s"]
        m["payload_efficiency"] = NAN if peak == 0 else m["payload_flop_per_s"] / peak
        metrics.append(m)
    out = dict(points=metrics, n_reference=NAN)
    weak = scaling == "weak"
    if metrics:
        ref = dict(metrics[0])
        out["n_reference"] = ref["n"]
        for m in metrics:
            r = m["n"] / ref["n"]
            m["speedup"] = (m["throughput_samples_per_s"] / ref["throughput_samples_per_s"]
                            if weak else ref["iteration_time_s"] / m["iteration_time_s"])
            m["efficiency"] = m["speedup"] / r
            names = ("nonpar_communication", "nonpar_copy", "nonpar_synchronisation",
                     "nonpar_compute_imbalance")
            sources = ("communication_s", "copy_s", "synchronisation_s", "compute_s")
            if m["n"] == ref["n"]:
                m["alpha_eff"] = NAN
                for name in names:
                    m[name] = NAN
                continue
            m["alpha_eff"] = r / (r - 1) * (m["speedup"] - 1) / m["speedup"]
            k = 1.0 if weak else r
            scale = ref["iteration_time_s"] * (r - 1)
            for name, source in zip(names, sources):
                m[name] = (k * m[source] - ref[source]) / scale
    out["fit"] = fit_amdahl(metrics, out["n_reference"])
    out["n_half_efficiency_measured"] = measured_n_half(metrics)
    out["n_doubling_below_10pct_measured"] = measured_n_doubling(metrics)
    out["alpha_eff_at_largest_n"] = metrics[-1]["alpha_eff"] if metrics else NAN
    out["dominant_term"] = "none" if len(metrics) < 2 else dominant(metrics[-1])
    return out


def fit_amdahl(points, n_ref):
    if len(points) < 2:
        return dict(alpha=NAN, ceiling_speedup=NAN, n_half_efficiency=NAN,
                    n_doubling_below_10pct=NAN, residual=NAN, amdahl_shaped=False)
    xy = xx = 0.0
    for p in points:
        if p["n"] == n_ref:
            continue
        x = 1 - n_ref / p["n"]
        y = 1 - 1 / p["speedup"]
        xy += x * y
        xx += x * x
    alpha = min(xy / xx, 1.0)
    fit = dict(alpha=alpha)
    if alpha == 1:
        fit.update(ceiling_speedup=INF, n_half_efficiency=INF, n_doubling_below_10pct=INF)
    else:
        fit.update(ceiling_speedup=1 / (1 - alpha),
                   n_half_efficiency=n_ref * (2 - alpha) / (1 - alpha),
                   n_doubling_below_10pct=n_ref * 4.5 * alpha / (1 - alpha))
    squares = 0.0
    for p in points:
        s_fit = 1 / ((1 - alpha) + alpha / (p["n"] / n_ref))
        squares += ((s_fit - p["speedup"]) / p["speedup"]) ** 2
    fit["residual"] = math.sqrt(squares / len(points))
    fit["amdahl_shaped"] = fit["residual"] < 0.05
    return fit


def measured_n_half(points):
    for lo, hi in zip(points, points[1:]):
        if not hi["efficiency"] <= 0.5:
            continue
        t = (lo["efficiency"] - 0.5) / (lo["efficiency"] - hi["efficiency"])
        return 2 ** (math.log2(lo["n"]) + t * (math.log2(hi["n"]) - math.log2(lo["n"])))
    return NAN


def measured_n_doubling(points):
    for p in points:
        for q in points:
            if q["n"] == 2 * p["n"] and q["speedup"] / p["speedup"] < 1.1:
                return p["n"]
    return NAN


def dominant(p):
    parts = [(p["nonpar_communication"], "communication"), (p["nonpar_copy"], "copy"),
             (p["nonpar_synchronisation"], "synchronisation"),
             (p["nonpar_compute_imbalance"], "compute imbalance")]
    best = parts[0]
    for part in parts:
        if part[0] > best[0]:
            best = part
    return best[1]


# ------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------

STR = h5py.string_dtype("utf-8")
POINT_INTS = ("index", "curve", "nodes", "seed", "ranks", "batch_per_rank")
POINT_STRINGS = ("status", "error", "command", "run_arguments")
POINT_FLOATS = {
    "iteration_time_s": "s", "warmup_time_s": "s", "iteration_time_min_s": "s",
    "iteration_time_max_s": "s", "samples_per_iteration": "samples",
    "flop_per_iteration": "FLOP", "peak_flop_per_s": "FLOP/s", "compute_s": "s",
    "copy_s": "s", "communication_s": "s", "synchronisation_s": "s", "bytes_pcie": "bytes",
    "bytes_nic": "bytes", "bytes_fabric": "bytes", "bytes_gpu_link": "bytes",
    "bytes_host_memory": "bytes"}
CURVE_FLOATS = {
    "n": "nodes", "iteration_time_s": "s", "iteration_time_min_s": "s",
    "iteration_time_max_s": "s", "throughput_samples_per_s": "samples/s", "speedup": "1",
    "efficiency": "1", "alpha_eff": "1", "payload_flop_per_s": "FLOP/s",
    "payload_efficiency": "1", "compute_s": "s", "copy_s": "s", "communication_s": "s",
    "synchronisation_s": "s", "nonpar_communication": "1", "nonpar_copy": "1",
    "nonpar_synchronisation": "1", "nonpar_compute_imbalance": "1"}


def floats(group, name, values, unit):
    group.create_dataset(name, data=np.asarray(values, dtype=np.float64)).attrs["unit"] = unit


def write(path, case):
    rows, total = make_points(case)
    inputs = [("experiment", EXPERIMENT_PATH, EXPERIMENT_TEXT)]
    inputs += [("platform", p["path"], f"# sample stand-in for {p['path']}\n")
               for p in PLATFORMS.values()]
    inputs.append(("workload", WORKLOAD_PATH, f"# sample stand-in for {WORKLOAD_PATH}\n"))
    digest = hashlib.sha256("".join(t for _, _, t in inputs).encode()).hexdigest()[:16]
    with h5py.File(path, "w") as f:
        a = f.attrs
        a["format"] = "ceiling-results"
        a["format_version"] = np.int64(1)
        a["tool_version"] = TOOL_VERSION
        a["simgrid_version"] = SIMGRID_VERSION
        a["command_line"] = f"ceiling sweep {EXPERIMENT_PATH} -o out/piz-daint-k20x-vs-p100.h5 -j 4"
        a["experiment_path"] = EXPERIMENT_PATH
        a["title"] = "Piz Daint K20X vs P100: ResNet-50 data-parallel training"
        a["question"] = EXPERIMENT_TEXT.split('question = "')[1].split('"')[0]
        a["digest"] = digest
        a["points_total"] = np.int64(total)
        a["points_done"] = np.int64(len(rows))

        g = f.create_group("inputs")
        for i, name in enumerate(("kind", "path", "text")):
            g.create_dataset(name, data=[x[i] for x in inputs], dtype=STR)

        g = f.create_group("points")
        for name in POINT_INTS:
            g.create_dataset(name, data=np.asarray([r[name] for r in rows], dtype=np.int64))
        for name in POINT_STRINGS:
            g.create_dataset(name, data=[r[name] for r in rows], dtype=STR)
        for name, unit in POINT_FLOATS.items():
            floats(g, name, [r[name] for r in rows], unit)

        curves = f.create_group("curves")
        for i, (platform, workload, variant, scaling) in enumerate(CURVES):
            ok = [r for r in rows if r["curve"] == i and r["status"] == "ok"]
            result = analyse(ok, scaling)
            fit = result["fit"]
            c = curves.create_group(f"curve_{i:03d}")
            c.attrs["id"] = f"{platform} / {workload} / {variant} / {scaling}"
            c.attrs["platform"] = platform
            c.attrs["workload"] = workload
            c.attrs["variant"] = variant
            c.attrs["scaling"] = scaling
            c.attrs["n_unit"] = "nodes"
            c.attrs["n_reference"] = np.float64(result["n_reference"])
            c.attrs["amdahl_alpha"] = np.float64(fit["alpha"])
            c.attrs["ceiling_speedup"] = np.float64(fit["ceiling_speedup"])
            c.attrs["n_half_efficiency_fit"] = np.float64(fit["n_half_efficiency"])
            c.attrs["n_doubling_below_10pct_fit"] = np.float64(fit["n_doubling_below_10pct"])
            c.attrs["fit_residual"] = np.float64(fit["residual"])
            c.attrs["amdahl_shaped"] = np.int64(fit["amdahl_shaped"])
            c.attrs["n_half_efficiency_measured"] = np.float64(
                result["n_half_efficiency_measured"])
            c.attrs["n_doubling_below_10pct_measured"] = np.float64(
                result["n_doubling_below_10pct_measured"])
            c.attrs["alpha_eff_at_largest_n"] = np.float64(result["alpha_eff_at_largest_n"])
            c.attrs["dominant_term"] = result["dominant_term"]
            for name, unit in CURVE_FLOATS.items():
                if name == "n":
                    floats(c, "n", [m["n"] for m in result["points"]], unit)
                    c.create_dataset("seeds", data=np.asarray(
                        [m["seeds"] for m in result["points"]], dtype=np.int64))
                else:
                    floats(c, name, [m[name] for m in result["points"]], unit)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the HDF5 file to write (overwritten)")
    parser.add_argument("--case", choices=("full", "empty", "single"), default="full",
                        help="full (default): every point; empty: no finished point; "
                             "single: only the smallest N of each curve")
    args = parser.parse_args()
    write(args.out, args.case)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
