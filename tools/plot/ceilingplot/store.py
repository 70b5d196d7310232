"""Reading and checking the HDF5 result store (format "ceiling-results", format_version 4)."""

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np

from .text import SHAPE_WORDS, fmt

SHAPES = tuple(SHAPE_WORDS)  # the curve shapes as the store spells them (analysis::CurveShape)


FORMAT = "ceiling-results"


FORMAT_VERSION = 4


class BadFile(Exception):
    """A results file (or output directory) that cannot be used; str() says what is wrong."""


ROOT_STRINGS = ("tool_version", "simgrid_version", "command_line", "experiment_path", "title",
                "question", "digest")


ROOT_INTS = ("points_total", "points_done")


POINT_INTS = ("index", "curve", "nodes", "seed", "ranks", "batch_per_rank")


POINT_STRINGS = ("status", "error", "provenance", "command")


POINT_FLOATS = ("iteration_time_s",)


CURVE_STRINGS = ("id", "platform", "workload", "variant", "scaling", "n_unit", "dominant_term", "shape")


CURVE_FLOATS = ("n_reference", "amdahl_alpha", "ceiling_speedup", "n_half_efficiency_fit",
                "n_doubling_below_10pct_fit", "fit_residual", "alpha_eff_drift",
                "n_half_efficiency_measured", "n_doubling_below_10pct_measured", "alpha_eff_at_largest_n")


CURVE_DATA = ("n", "seeds", "iteration_time_s", "iteration_time_min_s", "iteration_time_median_s",
              "iteration_time_max_s",
              "throughput_samples_per_s", "speedup", "efficiency", "alpha_eff", "compute_s",
              "copy_s", "communication_s", "synchronisation_s", "nonpar_communication",
              "nonpar_copy", "nonpar_synchronisation", "nonpar_compute_imbalance")


@dataclass
class Curve:
    """One /curves/curve_NNN group: its attributes and its per-N datasets (ascending N)."""
    index: int
    id: str
    platform: str
    workload: str
    variant: str
    scaling: str
    n_unit: str
    n_reference: float
    alpha: float
    ceiling: float
    n_half_fit: float
    n_doubling_fit: float
    residual: float
    amdahl_shaped: bool
    n_half_measured: float
    n_doubling_measured: float
    alpha_eff_at_largest_n: float
    dominant_term: str
    data: dict
    label: str = ""      # the parts of the id that vary between curves (set after loading)
    colour: str = "k"
    marker: str = "o"
    cost_per_node: float = math.nan   # in Results.attrs["cost_unit"]; NaN: no cost given
    # The curve's shape as the sweep classed it (one of SHAPES) and the slope of
    # log(1 - alpha_eff) against log n over the upper half of the sweep behind it (NaN: too few
    # points there).
    shape: str = "amdahl"
    alpha_eff_drift: float = math.nan

    @property
    def rows(self):
        return len(self.data["n"])

    @property
    def starred(self):
        """Whether the fit's numbers are starred, as the sweep's table stars them: a speedup over
        the reference (α > 0), a ceiling in sight, and not Amdahl-shaped."""
        return self.alpha > 0 and self.shape not in ("amdahl", "nonparallel_falls")

    def beyond_reference(self):
        """A mask of the rows beyond the reference N (where alpha_eff is defined)."""
        return self.data["n"] != self.n_reference


@dataclass
class Results:
    path: str
    attrs: dict
    inputs: list          # (kind, path) per input file
    points: dict          # dataset name -> numpy array (strings as str objects)
    curves: list = field(default_factory=list)


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    return str(value)


def _fixed_length(dtype):
    """Whether `dtype` is a fixed-length string. Variable-length strings point into HDF5's
    global heap, which HDF5 follows unchecked: a damaged one crashes it, so they are never read
    (the format stores none)."""
    info = h5py.check_string_dtype(dtype)
    return info is not None and info.length is not None


def _attr(obj, where, name, kind):
    if name not in obj.attrs:
        raise BadFile(f"{where}: missing attribute '{name}'")
    dtype = obj.attrs.get_id(name).dtype
    if h5py.check_string_dtype(dtype) is not None and not _fixed_length(dtype):
        raise BadFile(f"{where}: attribute '{name}' is a variable-length string (format_version 2 "
                      "or a damaged file): not read")
    value = obj.attrs[name]
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise BadFile(f"{where}: attribute '{name}' is not a scalar")
        value = value.reshape(())[()]
    if kind is str:
        if not isinstance(value, (str, bytes)):
            raise BadFile(f"{where}: attribute '{name}' is not a string")
        return _text(value)
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError
        return kind(value)
    except (TypeError, ValueError):
        raise BadFile(f"{where}: attribute '{name}' is not a number") from None


def _dataset(group, where, name, kind):
    if name not in group or not isinstance(group[name], h5py.Dataset):
        raise BadFile(f"missing dataset {where}/{name}")
    ds = group[name]
    if ds.ndim != 1:
        raise BadFile(f"{where}/{name}: expected a 1-D dataset, got shape {ds.shape}")
    if kind is str:
        if h5py.check_string_dtype(ds.dtype) is None:
            raise BadFile(f"{where}/{name}: expected strings, got {ds.dtype}")
        if not _fixed_length(ds.dtype):
            raise BadFile(f"{where}/{name}: variable-length strings (format_version 2 or a "
                          "damaged file): not read")
        # (text the writer did not check, such as an error message quoting a path, read as far as
        # it is UTF-8, as _text() reads attributes)
        return np.array(list(ds.asstr(errors="replace")[()]) if ds.shape[0] else [], dtype=object)
    if ds.dtype.kind not in "iuf":
        raise BadFile(f"{where}/{name}: expected numbers, got {ds.dtype}")
    return np.asarray(ds[()], dtype=np.float64 if kind is float else np.int64)


def _same_length(columns, where):
    lengths = [len(v) for v in columns.values()]
    common = max(set(lengths), key=lengths.count)
    for name, n in zip(columns, lengths):
        if n != common:
            raise BadFile(f"{where}/{name}: {n} rows, the other datasets of {where} have "
                          f"{common}")


def _cost(g, where):
    """The optional cost_per_node attribute: NaN when absent or NaN, else a price >= 0."""
    if "cost_per_node" not in g.attrs:
        return math.nan
    cost = _attr(g, where, "cost_per_node", float)
    if not math.isnan(cost) and not (math.isfinite(cost) and cost >= 0):
        raise BadFile(f"{where}: attribute 'cost_per_node' is {fmt(cost)}, expected a price "
                      "of 0 or more (NaN: none)")
    return cost


def load(path):
    """Reads and checks a results file; raises BadFile saying what is wrong with it."""
    p = Path(path)
    if not p.exists():
        raise BadFile("no such file")
    if p.is_dir():
        raise BadFile("is a directory, not a results file")
    try:
        hdf5 = h5py.is_hdf5(str(p))
    except OSError as e:  # (unreadable: permissions, an I/O error)
        raise BadFile(f"cannot open: {e.strerror or e}") from None
    if not hdf5:
        raise BadFile("not an HDF5 file")
    try:
        f = h5py.File(str(p), "r")
    except OSError as e:
        if "lock" not in str(e).lower():
            raise BadFile(f"cannot open: {e}") from None
        try:  # a sweep still writing holds the HDF5 lock: read what is flushed
            f = h5py.File(str(p), "r", locking=False)
        except OSError as e2:
            raise BadFile(f"cannot open: {e2}") from None
    with f:
        try:
            return _read(f, path)
        except BadFile:
            raise
        except (OSError, KeyError, ValueError, TypeError) as e:
            raise BadFile(f"unreadable: {e}") from None


def _read(f, path):
    # The version before any string: format_version 2 stored variable-length strings.
    if "format" not in f.attrs or "format_version" not in f.attrs:
        raise BadFile("not a ceiling result file (attribute 'format' or 'format_version' is "
                      f"missing, expected '{FORMAT}', {FORMAT_VERSION})")
    version = _attr(f, "/", "format_version", int)
    if version != FORMAT_VERSION:
        raise BadFile(f"format_version {version} is not supported (this script reads "
                      f"{FORMAT_VERSION}; rerun the sweep with this build)")
    name = _attr(f, "/", "format", str)
    if name != FORMAT:
        raise BadFile(f"not a ceiling result file (attribute 'format' is {name!r}, expected "
                      f"'{FORMAT}')")
    attrs = {name: _attr(f, "/", name, str) for name in ROOT_STRINGS}
    attrs.update({name: _attr(f, "/", name, int) for name in ROOT_INTS})
    # Optional (files without costs have neither): "" or absent = no costs.
    attrs["cost_unit"] = _attr(f, "/", "cost_unit", str) if "cost_unit" in f.attrs else ""

    inputs = []
    if "inputs" in f:
        kinds = _dataset(f["inputs"], "/inputs", "kind", str)
        paths = _dataset(f["inputs"], "/inputs", "path", str)
        _same_length({"kind": kinds, "path": paths}, "/inputs")
        inputs = list(zip(kinds, paths))
    else:
        raise BadFile("missing group /inputs")

    if "points" not in f:
        raise BadFile("missing group /points")
    points = {}
    for names, kind in ((POINT_INTS, int), (POINT_STRINGS, str), (POINT_FLOATS, float)):
        for name in names:
            points[name] = _dataset(f["points"], "/points", name, kind)
    _same_length(points, "/points")
    # What the plots and tables read of a point: its status, its nodes, a finished one's time.
    for row, (status, nodes, time) in enumerate(zip(points["status"], points["nodes"], points["iteration_time_s"])):
        if status not in ("ok", "failed", "does-not-fit"):
            raise BadFile(f"/points/status: row {row}: '{status}', expected 'ok', 'failed' or 'does-not-fit'")
        if nodes < 1:
            raise BadFile(f"/points/nodes: row {row}: {nodes}, expected 1 or more")
        if status == "ok" and not (math.isfinite(time) and time > 0):
            raise BadFile(f"/points/iteration_time_s: row {row}: {float(time):g} for a finished point, "
                          "expected a positive time")

    if "curves" not in f:
        raise BadFile("missing group /curves")
    # (by number: curve_1000 follows curve_999, which text order would not give)
    names = sorted((k for k in f["curves"] if re.fullmatch(r"curve_\d+", k)), key=lambda k: int(k[6:]))
    curves = []
    for i, name in enumerate(names):
        where = f"/curves/{name}"
        g = f["curves"][name]
        if int(name[6:]) != i:
            raise BadFile(f"{where}: expected /curves/curve_{i:03d} (curves number from 000 "
                          "without gaps)")
        s = {a: _attr(g, where, a, str) for a in CURVE_STRINGS}
        x = {a: _attr(g, where, a, float) for a in CURVE_FLOATS}
        data = {d: _dataset(g, where, d, int if d == "seeds" else float) for d in CURVE_DATA}
        _same_length(data, where)
        n = data["n"]
        if n.size and not (np.all(np.isfinite(n)) and np.all(n > 0)):
            raise BadFile(f"{where}/n: expected node counts above 0, got "
                          f"{fmt(float(n[~(np.isfinite(n) & (n > 0))][0]))}")
        if n.size and np.any(np.diff(n) <= 0):
            raise BadFile(f"{where}/n: expected ascending node counts")
        # (what the curves plot: times, throughputs, speedups and efficiencies are positive)
        for d in ("iteration_time_s", "throughput_samples_per_s", "speedup", "efficiency"):
            v = data[d]
            if v.size and not np.all(np.isfinite(v) & (v > 0)):
                raise BadFile(f"{where}/{d}: expected positive numbers, got "
                              f"{float(v[~(np.isfinite(v) & (v > 0))][0]):g}")
        if n.size and x["n_reference"] != n[0]:
            raise BadFile(f"{where}: attribute 'n_reference' is {fmt(x['n_reference'])}, "
                          f"expected the smallest n, {fmt(float(n[0]))}")
        if s["scaling"] not in ("weak", "strong"):
            raise BadFile(f"{where}: attribute 'scaling' is '{s['scaling']}', expected 'weak' "
                          "or 'strong'")
        shape = s["shape"]
        if shape not in SHAPES:
            raise BadFile(f"{where}: attribute 'shape' is '{shape}', expected one of "
                          + ", ".join(f"'{s}'" for s in SHAPES))
        shaped = _attr(g, where, "amdahl_shaped", int)
        if shaped not in (0, 1) or (shaped == 1) != (shape == "amdahl"):
            raise BadFile(f"{where}: attribute 'amdahl_shaped' is {shaped} but 'shape' is '{shape}' "
                          "(1 exactly where the shape is 'amdahl')")
        curves.append(Curve(
            index=i, id=s["id"], platform=s["platform"], workload=s["workload"],
            variant=s["variant"], scaling=s["scaling"], n_unit=s["n_unit"] or "nodes",
            n_reference=x["n_reference"], alpha=x["amdahl_alpha"],
            ceiling=x["ceiling_speedup"], n_half_fit=x["n_half_efficiency_fit"],
            n_doubling_fit=x["n_doubling_below_10pct_fit"], residual=x["fit_residual"],
            amdahl_shaped=shaped == 1,
            shape=shape, alpha_eff_drift=x["alpha_eff_drift"],
            n_half_measured=x["n_half_efficiency_measured"],
            n_doubling_measured=x["n_doubling_below_10pct_measured"],
            alpha_eff_at_largest_n=x["alpha_eff_at_largest_n"],
            dominant_term=s["dominant_term"], data=data, cost_per_node=_cost(g, where)))
    bad = [int(c) for c in points["curve"] if not 0 <= c < len(curves)]
    if bad:
        raise BadFile(f"/points/curve: a point refers to curve {bad[0]}, the file has "
                      f"{len(curves)} curve{'s' if len(curves) != 1 else ''}")
    return Results(path=path, attrs=attrs, inputs=inputs, points=points, curves=curves)
