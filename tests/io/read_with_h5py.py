#!/usr/bin/python3
"""Reads a ceiling result file with h5py and pandas only, as README.md ("Result store") says a
user can, and checks it against the schema (format_version 4). Usage: read_with_h5py.py FILE

Run by Debian's /usr/bin/python3 (h5py 3.7, pandas 1.5); exits non-zero on the first mismatch.
"""
import math
import sys

import h5py
import pandas as pd

ROOT_STRINGS = ["format", "tool_version", "simgrid_version", "command_line", "experiment_path",
                "title", "question", "digest"]
ROOT_INTS = ["format_version", "points_total", "points_done"]

POINT_INTS = ["index", "curve", "nodes", "seed", "ranks", "batch_per_rank"]
POINT_STRINGS = ["status", "error", "provenance", "command", "run_arguments"]
POINT_FLOATS = {
    "iteration_time_s": "s", "warmup_time_s": "s", "iteration_time_min_s": "s",
    "iteration_time_max_s": "s", "samples_per_iteration": "samples",
    "flop_per_iteration": "FLOP", "peak_flop_per_s": "FLOP/s", "compute_s": "s", "copy_s": "s",
    "communication_s": "s", "synchronisation_s": "s", "bytes_pcie": "bytes",
    "bytes_nic": "bytes", "bytes_fabric": "bytes", "bytes_gpu_link": "bytes",
    "bytes_host_memory": "bytes",
}

CURVE_STRINGS = ["id", "platform", "workload", "variant", "scaling", "n_unit", "dominant_term", "shape"]
CURVE_FLOATS = ["n_reference", "amdahl_alpha", "ceiling_speedup", "n_half_efficiency_fit",
                "n_doubling_below_10pct_fit", "fit_residual", "n_half_efficiency_measured",
                "n_doubling_below_10pct_measured", "alpha_eff_at_largest_n", "alpha_eff_drift"]
CURVE_COLUMNS = {
    "n": "nodes", "iteration_time_s": "s", "iteration_time_min_s": "s", "iteration_time_median_s": "s",
    "iteration_time_max_s": "s", "throughput_samples_per_s": "samples/s", "speedup": "1",
    "efficiency": "1", "alpha_eff": "1", "payload_flop_per_s": "FLOP/s",
    "payload_efficiency": "1", "compute_s": "s", "copy_s": "s", "communication_s": "s",
    "synchronisation_s": "s", "nonpar_communication": "1", "nonpar_copy": "1",
    "nonpar_synchronisation": "1", "nonpar_compute_imbalance": "1",
}


def check(condition, message):
    if not condition:
        sys.exit(f"read_with_h5py: {message}")


def check_string_attr(obj, name):
    check(name in obj.attrs, f"{obj.name}: missing attribute {name!r}")
    value = obj.attrs[name]
    check(isinstance(value, (str, bytes)), f"{obj.name}: attribute {name!r} is not a string")
    return value.decode("utf-8") if isinstance(value, bytes) else value


def check_column(group, name, kind, unit=None):
    where = f"{group.name}/{name}"
    check(name in group, f"missing dataset {where!r}")
    d = group[name]
    check(d.ndim == 1, f"{where}: not 1-D")
    if kind == "int":
        check(d.dtype == "<i8", f"{where}: {d.dtype}, expected int64")
    elif kind == "float":
        check(d.dtype == "<f8", f"{where}: {d.dtype}, expected float64")
        got = check_string_attr(d, "unit")
        check(got == unit, f"{where}: unit {got!r}, expected {unit!r}")
    else:
        check(h5py.check_string_dtype(d.dtype) is not None, f"{where}: not a string")
        check(h5py.check_string_dtype(d.dtype).encoding == "utf-8", f"{where}: not UTF-8")
        check(h5py.check_string_dtype(d.dtype).length is not None, f"{where}: not fixed-length")
    return d


def table(group):
    """The group's columns as a DataFrame, strings decoded; pandas raises on unequal lengths."""
    columns = {}
    for name in group:
        d = group[name]
        columns[name] = d.asstr()[:] if h5py.check_string_dtype(d.dtype) else d[:]
    return pd.DataFrame(columns)


def main(path):
    f = h5py.File(path, "r")
    for name in ROOT_STRINGS:
        check_string_attr(f, name)
    for name in ROOT_INTS:
        check(name in f.attrs, f"missing attribute {name!r}")
        check(f.attrs[name].dtype == "int64", f"attribute {name!r} is not int64")
    check(check_string_attr(f, "format") == "ceiling-results", "format is not ceiling-results")
    check(f.attrs["format_version"] == 4, "format_version is not 4")

    inputs = f["inputs"]
    for name in ["kind", "path", "text"]:
        check_column(inputs, name, "string")
    kinds = set(table(inputs)["kind"])
    check(kinds <= {"experiment", "platform", "workload", "software", "calibration platform", "calibration lender"},
          f"unexpected input kinds {kinds}")

    group = f["points"]
    for name in POINT_INTS:
        check_column(group, name, "int")
    for name in POINT_STRINGS:
        check_column(group, name, "string")
    for name, unit in POINT_FLOATS.items():
        check_column(group, name, "float", unit)
    points = table(group)
    check(list(points.columns[:3]) == ["index", "curve", "nodes"], "columns not in schema order")
    check(len(points) == f.attrs["points_done"], "points_done differs from the rows of /points")
    check(set(points["status"]) <= {"ok", "failed", "does-not-fit"}, "status other than ok/failed/does-not-fit")
    check((points["error"][points["status"] == "ok"] == "").all(), "an ok point has an error")
    check(points["provenance"][points["status"] == "ok"].str.startswith("compute: ").all(),
          "an ok point does not say what it stands on")
    check(points["command"].str.startswith("ceiling run").all(), "a command is not `ceiling run`")
    check(points["index"].is_monotonic_increasing, "points are not in index order")

    curves = f["curves"]
    check(len(curves) >= 1, "no curves")
    names = sorted(curves, key=lambda k: int(k[6:]) if k[6:].isdigit() else -1)
    check(names == [f"curve_{i:03d}" for i in range(len(names))], f"curve groups {names}")
    check(points["curve"].between(0, len(names) - 1).all(), "a point's curve is out of range")
    for name in names:
        curve = curves[name]
        for attr in CURVE_STRINGS:
            check_string_attr(curve, attr)
        for attr in CURVE_FLOATS:
            check(curve.attrs[attr].dtype == "float64", f"{curve.name}: {attr} is not float64")
        check(curve.attrs["amdahl_shaped"] in (0, 1), f"{curve.name}: amdahl_shaped not 0/1")
        check(check_string_attr(curve, "scaling") in ("weak", "strong"), f"{curve.name}: scaling")
        check(check_string_attr(curve, "shape") in ("amdahl", "too_few_node_counts", "slowdown", "nonparallel_falls",
                                                    "ceiling_falls", "poor_fit"), f"{curve.name}: shape")
        check((check_string_attr(curve, "shape") == "amdahl") == (curve.attrs["amdahl_shaped"] == 1),
              f"{curve.name}: shape and amdahl_shaped disagree")
        check(check_string_attr(curve, "n_unit") == "nodes", f"{curve.name}: n_unit")
        check_column(curve, "seeds", "int")
        for column, unit in CURVE_COLUMNS.items():
            check_column(curve, column, "float", unit)
        metrics = table(curve)
        check(metrics["n"].is_monotonic_increasing, f"{curve.name}: n not ascending")
        if len(metrics) > 0:
            check(math.isnan(metrics["alpha_eff"][0]), f"{curve.name}: alpha_eff at reference")
            check(metrics["n"][0] == curve.attrs["n_reference"], f"{curve.name}: n_reference")
    print(f"read_with_h5py: {path}: {len(points)} points, {len(names)} curves: ok")


if __name__ == "__main__":
    check(len(sys.argv) == 2, "usage: read_with_h5py.py FILE")
    main(sys.argv[1])
