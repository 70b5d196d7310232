#!/usr/bin/python3
"""Figures and a report from a ceiling result store (the HDF5 file `ceiling sweep` writes).

    /usr/bin/python3 tools/plot/ceiling_plot.py plot RESULTS.h5 [-o DIR]
    /usr/bin/python3 tools/plot/ceiling_plot.py report RESULTS.h5 [-o DIR]

`plot` writes each figure as DIR/NAME.png and DIR/NAME.svg; `report` writes the same figures
plus DIR/report.md and DIR/report.html (self-contained: the PNGs are embedded as data URIs).
DIR defaults to the results file's path without its .h5 extension plus "-plots" (plot) or
"-report" (report), beside the file. Every file written is printed as "wrote PATH", one per
line; what cannot be drawn (no finished point, a curve with one node count) is skipped with a
"skipped ..." or "note: ..." line. Exit status 0 on success; 2 with
"ceiling: error: PATH: what is wrong" on stderr for a bad results file or output directory;
1 for an internal error.

The script reads only the store (format "ceiling-results", format_version 1; schema in the
README, "Result store") and draws what the C++ analysis computed (sim/analysis): speedup,
efficiency, alpha_eff and its parts, the Amdahl fit. Formulas are Végh's
(../shared/data/hardware/piz-daint.md §1): Amdahl's speedup (A1) S = 1 / ((1 - a) + a / r)
with r = N / N_ref, the efficiency (A2) E = 1 / (r (1 - a) + a), the ceiling (D3) 1 / (1 - a).

Figures (NAME):
  speedup              speedup vs N, ideal line, Amdahl fit per curve (its ceiling in the legend)
  efficiency           efficiency vs N, fitted E, the E = 0.5 line
  nonparallel_fraction 1 - alpha_eff vs N (log y), the fit's 1 - alpha
  breakdown            iteration time split into compute, copy, communication, synchronisation
  breakdown_share      the same as shares of the iteration time (readable at large N)
  nonparallel_parts    the parts of 1 - alpha_eff per N (shares, with the total above each bar)
  efficiency_surface   Végh's E(N, 1 - alpha) as a filled contour, each curve's points on it
  throughput           weak: samples/s vs N; strong: time per global batch vs N (2+ curves)
  ceiling              the fitted ceiling per curve next to the best measured speedup (2+ curves)
Weak and strong curves go in separate panels: their speedups measure different things.

Runs with Debian 12's /usr/bin/python3 and its python3-numpy, python3-h5py, python3-matplotlib
(Agg backend). The same results file gives byte-identical PNG and SVG files.
"""

import argparse
import base64
import html
import math
import os
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "ceiling-results"
FORMAT_VERSION = 1
MAX_PANELS = 12  # per-curve subplots (breakdown, parts) beyond which curves are left out
DPI = 120

try:
    import numpy as np
    import h5py
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import colors as mcolors
    from matplotlib import ticker
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"ceiling: error: {e}: this script needs numpy, h5py and matplotlib; run it with "
          "Debian's /usr/bin/python3 (apt-get install python3-h5py python3-matplotlib)",
          file=sys.stderr)
    sys.exit(1)


def say(text):
    """One line on stdout; a reader that went away (`| head`) does not stop the work."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")


class BadFile(Exception):
    """A results file (or output directory) that cannot be used; str() says what is wrong."""


# ============================================================================================
# Reading the store
# ============================================================================================

ROOT_STRINGS = ("tool_version", "simgrid_version", "command_line", "experiment_path", "title",
                "question", "digest")
ROOT_INTS = ("points_total", "points_done")
POINT_INTS = ("index", "curve", "nodes", "seed", "ranks", "batch_per_rank")
POINT_STRINGS = ("status", "error", "command")
POINT_FLOATS = ("iteration_time_s",)
CURVE_STRINGS = ("id", "platform", "workload", "variant", "scaling", "n_unit", "dominant_term")
CURVE_FLOATS = ("n_reference", "amdahl_alpha", "ceiling_speedup", "n_half_efficiency_fit",
                "n_doubling_below_10pct_fit", "fit_residual", "n_half_efficiency_measured",
                "n_doubling_below_10pct_measured", "alpha_eff_at_largest_n")
CURVE_DATA = ("n", "seeds", "iteration_time_s", "iteration_time_min_s", "iteration_time_max_s",
              "throughput_samples_per_s", "speedup", "efficiency", "alpha_eff", "compute_s",
              "copy_s", "communication_s", "synchronisation_s", "nonpar_communication",
              "nonpar_copy", "nonpar_synchronisation", "nonpar_compute_imbalance")

# The four parts of an iteration, and of 1 - alpha_eff, in stacking order, with their colours.
TERMS = ("compute", "copy", "communication", "synchronisation")
TERM_COLOURS = {"compute": "#4e79a7", "compute imbalance": "#4e79a7", "copy": "#f28e2b",
                "communication": "#59a14f", "synchronisation": "#e15759"}
BREAKDOWN = (("compute_s", "compute"), ("copy_s", "copy"),
             ("communication_s", "communication"), ("synchronisation_s", "synchronisation"))
NONPAR = (("nonpar_compute_imbalance", "compute imbalance"), ("nonpar_copy", "copy"),
          ("nonpar_communication", "communication"),
          ("nonpar_synchronisation", "synchronisation"))


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

    @property
    def rows(self):
        return len(self.data["n"])

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


def _attr(obj, where, name, kind):
    if name not in obj.attrs:
        raise BadFile(f"{where}: missing attribute '{name}'")
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
        return np.array(list(ds.asstr()[()]) if ds.shape[0] else [], dtype=object)
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


def load(path):
    """Reads and checks a results file; raises BadFile saying what is wrong with it."""
    p = Path(path)
    if not p.exists():
        raise BadFile("no such file")
    if p.is_dir():
        raise BadFile("is a directory, not a results file")
    if not h5py.is_hdf5(str(p)):
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
    fmt = _attr(f, "/", "format", str) if "format" in f.attrs else None
    if fmt != FORMAT:
        raise BadFile(f"not a ceiling result file (attribute 'format' is "
                      f"{'missing' if fmt is None else repr(fmt)}, expected '{FORMAT}')")
    version = _attr(f, "/", "format_version", int)
    if version != FORMAT_VERSION:
        raise BadFile(f"format_version {version} is not supported (this script reads "
                      f"{FORMAT_VERSION})")
    attrs = {name: _attr(f, "/", name, str) for name in ROOT_STRINGS}
    attrs.update({name: _attr(f, "/", name, int) for name in ROOT_INTS})

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

    if "curves" not in f:
        raise BadFile("missing group /curves")
    names = sorted(k for k in f["curves"] if re.fullmatch(r"curve_\d+", k))
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
        if n.size and x["n_reference"] != n[0]:
            raise BadFile(f"{where}: attribute 'n_reference' is {fmt(x['n_reference'])}, "
                          f"expected the smallest n, {fmt(float(n[0]))}")
        if s["scaling"] not in ("weak", "strong"):
            raise BadFile(f"{where}: attribute 'scaling' is '{s['scaling']}', expected 'weak' "
                          "or 'strong'")
        curves.append(Curve(
            index=i, id=s["id"], platform=s["platform"], workload=s["workload"],
            variant=s["variant"], scaling=s["scaling"], n_unit=s["n_unit"] or "nodes",
            n_reference=x["n_reference"], alpha=x["amdahl_alpha"],
            ceiling=x["ceiling_speedup"], n_half_fit=x["n_half_efficiency_fit"],
            n_doubling_fit=x["n_doubling_below_10pct_fit"], residual=x["fit_residual"],
            amdahl_shaped=bool(_attr(g, where, "amdahl_shaped", int)),
            n_half_measured=x["n_half_efficiency_measured"],
            n_doubling_measured=x["n_doubling_below_10pct_measured"],
            alpha_eff_at_largest_n=x["alpha_eff_at_largest_n"],
            dominant_term=s["dominant_term"], data=data))
    bad = [int(c) for c in points["curve"] if not 0 <= c < len(curves)]
    if bad:
        raise BadFile(f"/points/curve: a point refers to curve {bad[0]}, the file has "
                      f"{len(curves)} curve{'s' if len(curves) != 1 else ''}")
    results = Results(path=path, attrs=attrs, inputs=inputs, points=points, curves=curves)
    _label_curves(results.curves)
    return results


def _label_curves(curves):
    """Short labels (the parts of the id that vary), a colour and a marker per curve."""
    varying = [k for k in ("platform", "workload", "variant")
               if len({getattr(c, k) for c in curves}) > 1]
    # The weak and strong curves of one platform x workload x variant share colour and marker,
    # so that a machine looks the same in every panel.
    keys = list(dict.fromkeys((c.platform, c.workload, c.variant) for c in curves))
    palette = plt.get_cmap("tab10" if len(keys) <= 10 else "tab20").colors
    markers = "osD^vPX<>hp*"
    for c in curves:
        parts = [getattr(c, k) for k in varying] or [c.platform]
        c.label = mpl_text(" / ".join(parts))
        i = keys.index((c.platform, c.workload, c.variant))
        c.colour = mcolors.to_hex(palette[i % len(palette)])
        c.marker = markers[i % len(markers)]


def common_parts(curves):
    """What all curves share (workload, variant, platform), for legend titles; "" if nothing."""
    out = []
    for k in ("platform", "workload", "variant"):
        values = {getattr(c, k) for c in curves}
        if len(values) == 1 and len(curves) > 1 or (len(curves) == 1 and k != "platform"):
            out.append(f"{k} {mpl_text(values.pop())}")
    return ", ".join(out)


# ============================================================================================
# Numbers as text
# ============================================================================================


def fmt(x, digits=3):
    """x to `digits` significant digits: 0.253, 1.79, 404, 12,300, 6.83e-5; NaN as "—"."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    if magnitude < -3 or magnitude >= 9:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}"
    rounded = round(x, digits - 1 - magnitude)
    if magnitude >= digits - 1:
        return f"{int(rounded):,}"
    return f"{rounded:.{max(0, digits - 1 - magnitude)}f}".rstrip("0").rstrip(".")


def fmt_n(n):
    """A node count: exact with thousands separators when whole (1,024), else fmt()."""
    if n is None or not math.isfinite(n):
        return fmt(n)
    return f"{int(round(n)):,}" if abs(n - round(n)) < 1e-9 else fmt(n)


def fmt_alpha(a):
    """alpha_eff close to 1 with enough digits for 1 - alpha to keep 3: 0.99850."""
    if a is None or not math.isfinite(a):
        return fmt(a)
    d = 1 - a
    if d == 0:
        return "1"
    decimals = min(12, max(3, -math.floor(math.log10(abs(d))) + 2))
    return f"{a:.{decimals}f}"


def plain_tick(v, _pos=None):
    """Tick label without exponent notation for ratios and counts: 0.5, 2, 1,000."""
    if v <= 0 or not math.isfinite(v):
        return ""
    return fmt(v, 2) if v < 1 else f"{v:,.0f}" if v >= 1 and abs(v - round(v)) < 1e-9 \
        else fmt(v, 2)


def mpl_text(text):
    """Text from the file as matplotlib shows it literally: a $ would start mathtext."""
    return str(text).replace("$", r"\$")


def wrap(text, width):
    return "\n".join(textwrap.wrap(text, width)) or text


# ============================================================================================
# Figures
# ============================================================================================


def _style():
    matplotlib.rcParams.update({
        "svg.hashsalt": "ceiling",       # deterministic SVG ids
        "svg.fonttype": "path",
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linewidth": 0.6,
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
    })


class Output:
    """Where figures go, and the record of what was written and what was left out."""

    def __init__(self, directory, results):
        self.dir = Path(directory)
        self.results = results
        self.figures = []   # (name, png path)
        self.notes = []     # what was skipped, as printed

    def note(self, text):
        self.notes.append(text)
        say(text)

    def save(self, fig, name):
        for ext in ("png", "svg"):
            path = self.dir / f"{name}.{ext}"
            # No date in the files: the same results give the same bytes.
            fig.savefig(path, format=ext, metadata={"Date": None} if ext == "svg" else None)
            say(f"wrote {path}")
        plt.close(fig)
        self.figures.append((name, self.dir / f"{name}.png"))


def _question(results):
    a = results.attrs
    return mpl_text(a["question"] or a["title"] or a["experiment_path"] or
                    Path(results.path).name)


def _figure(results, nrows, ncols, panel_w, panel_h, extra_h=0.0):
    """A constrained-layout figure of nrows x ncols panels titled with the question."""
    width = panel_w * ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, panel_h * nrows + extra_h),
                             squeeze=False, layout="constrained")
    fig.suptitle(wrap(_question(results), max(40, int(width * 10))), fontsize=11,
                 fontweight="bold")
    return fig, axes


def _figure_legend(fig, handles, title=None, ncol=4, height_in=0.55, note=None):
    """A legend under all panels, in a band the layout keeps free (matplotlib 3.6 has no
    loc="outside ..."), and an optional note under it."""
    height = height_in + (0.25 if note else 0)
    frac = height / fig.get_figheight()
    fig.get_layout_engine().set(rect=(0, frac, 1, 1 - frac))
    above_note = 0.25 / fig.get_figheight() if note else 0.0
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, above_note),
               ncol=ncol, frameon=False, title=title, title_fontsize=8)
    if note:
        fig.text(0.5, 0.04 / fig.get_figheight(), note, ha="center", va="bottom", fontsize=8,
                 color="0.3")


def _line_figure(out, panels, proxies):
    """One panel per scaling mode, tall enough for a legend of one line per curve."""
    entries = max(len(cs) for _, cs in panels) + proxies + 1
    return _figure(out.results, 1, len(panels), 6.0, 4.6 + 0.2 * entries)


def _panels(curves, minimum_rows):
    """(scaling, curves) per scaling mode that has curves with at least minimum_rows rows."""
    out = []
    for scaling in ("weak", "strong"):
        cs = [c for c in curves if c.scaling == scaling and c.rows >= minimum_rows]
        if cs:
            out.append((scaling, cs))
    return out


def _n_axis(ax, lo, hi, label):
    """A log2 axis from lo to hi with power-of-two ticks labelled as integers (1,024)."""
    lo, hi = float(lo), float(hi)
    ax.set_xscale("log", base=2)
    ax.set_xlim(lo / 2 ** 0.35, hi * 2 ** 0.35)
    k0, k1 = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    step = max(1, math.ceil((k1 - k0 + 1) / 11))
    ticks = [2.0 ** k for k in range(k0, k1 + 1, step)]
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlabel(label)


def _n_label(curves, relative=False):
    units = {c.n_unit for c in curves}
    unit = mpl_text(units.pop()) if len(units) == 1 else "processing units"
    if relative:
        return f"N / N_ref ({unit} over each curve's smallest N, log scale)"
    return f"N ({unit}, log scale)"


def _log_y_plain(ax):
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    lo, hi = ax.get_ylim()
    if hi / lo < 30:  # under 1.5 decades: label 2 and 5 too, or the axis has one label
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def _legend_below(ax, handles, title=None, ncol=1):
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol,
              frameon=False, title=title, title_fontsize=8, alignment="left")


def _scaling_title(scaling, what):
    if scaling == "weak":
        return f"{what}, weak scaling\n(work per node fixed: speedup = throughput ratio)"
    return f"{what}, strong scaling\n(global batch fixed: speedup = time-to-solution ratio)"


def _amdahl_speedup(r, alpha):
    return 1.0 / ((1.0 - alpha) + alpha / r)


def _ceiling_text(c):
    if math.isnan(c.ceiling):
        return "no fit"
    if math.isinf(c.ceiling):
        return "no ceiling (linear)"
    return f"ceiling {fmt(c.ceiling)}×" + ("" if c.amdahl_shaped else " (not Amdahl-shaped)")


def _line_proxies(with_fit=True, ideal="ideal"):
    out = [Line2D([], [], color="0.2", marker="o", ms=4, label="simulated")]
    if with_fit:
        out.append(Line2D([], [], color="0.2", ls="--", label="Amdahl fit"))
    if ideal:
        out.append(Line2D([], [], color="0.5", ls=":", lw=1.5, label=ideal))
    return out


def fig_speedup(out, curves):
    panels = _panels(curves, 2)
    if not panels:
        return out.note("skipped speedup: no curve has two finished node counts")
    fig, axes = _line_figure(out, panels, 3)
    for ax, (scaling, cs) in zip(axes[0], panels):
        n_lo = min(c.data["n"].min() for c in cs)
        n_hi = max(c.data["n"].max() for c in cs)
        handles = []
        for ref in sorted({c.n_reference for c in cs}):
            n = np.geomspace(ref, n_hi, 50)
            ax.plot(n, n / ref, ls=":", color="0.5", lw=1.5, zorder=1)
        for c in cs:
            n, s = c.data["n"], c.data["speedup"]
            h, = ax.plot(n, s, marker=c.marker, ms=4.5, color=c.colour, lw=1.4,
                         label=f"{c.label} — {_ceiling_text(c)}", zorder=3)
            handles.append(h)
            if math.isfinite(c.alpha):
                grid = np.geomspace(c.n_reference, n.max(), 200)
                ax.plot(grid, _amdahl_speedup(grid / c.n_reference, c.alpha), ls="--",
                        color=c.colour, lw=1.1, alpha=0.85, zorder=2)
        _n_axis(ax, n_lo, n_hi, _n_label(cs))
        ax.set_ylabel("speedup S over the smallest N (ratio, log scale)")
        _log_y_plain(ax)
        ax.set_title(_scaling_title(scaling, "Speedup"))
        _legend_below(ax, handles + _line_proxies(ideal="ideal S = N / N_ref"),
                      title=common_parts(cs) or None)
    out.save(fig, "speedup")


def fig_efficiency(out, curves):
    drawable = [c for c in curves if c.rows >= 2]
    panels = _panels(drawable, 2)
    if not panels:
        return out.note("skipped efficiency: no curve has two finished node counts")
    fig, axes = _line_figure(out, panels, 4)
    for ax, (scaling, cs) in zip(axes[0], panels):
        n_lo = min(c.data["n"].min() for c in cs)
        n_hi = max(c.data["n"].max() for c in cs)
        handles = []
        top = 1.0
        for c in cs:
            n, e = c.data["n"], c.data["efficiency"]
            finite = e[np.isfinite(e)]
            top = max(top, finite.max() if finite.size else 1.0)
            measured = (fmt_n(c.n_half_measured) if math.isfinite(c.n_half_measured)
                        else "not reached")
            label = (f"{c.label} — E = 0.5 at N ≈ {fmt_n(c.n_half_fit)} (fit), {measured} "
                     "(simulated)")
            h, = ax.plot(n, e, marker=c.marker, ms=4.5, color=c.colour, lw=1.4, label=label,
                         zorder=3)
            handles.append(h)
            if math.isfinite(c.alpha):
                grid = np.geomspace(c.n_reference, n.max(), 200)
                r = grid / c.n_reference
                ax.plot(grid, _amdahl_speedup(r, c.alpha) / r, ls="--", color=c.colour,
                        lw=1.1, alpha=0.85, zorder=2)
        ax.axhline(0.5, color="0.35", lw=1, ls=(0, (4, 2)), zorder=1)
        ax.axhline(1.0, color="0.5", lw=1.5, ls=":", zorder=1)
        _n_axis(ax, n_lo, n_hi, _n_label(cs))
        ax.set_ylim(0, top * 1.06)
        ax.set_ylabel("efficiency E = S / (N / N_ref) (ratio)")
        ax.set_title(_scaling_title(scaling, "Efficiency"))
        proxies = _line_proxies(ideal="ideal E = 1")
        proxies.append(Line2D([], [], color="0.35", lw=1, ls=(0, (4, 2)), label="E = 0.5"))
        _legend_below(ax, handles + proxies, title=common_parts(cs) or None)
    out.save(fig, "efficiency")


def fig_nonparallel_fraction(out, curves):
    drawable = [c for c in curves if c.rows >= 2]
    panels = _panels(drawable, 2)
    if not panels:
        return out.note("skipped nonparallel_fraction: no curve has a point beyond its "
                        "reference N")
    fig, axes = _line_figure(out, panels, 2)
    for ax, (scaling, cs) in zip(axes[0], panels):
        handles = []
        hidden = 0
        ns = []
        for c in cs:
            mask = c.beyond_reference()
            n = c.data["n"][mask]
            y = 1 - c.data["alpha_eff"][mask]
            keep = np.isfinite(y) & (y > 0)
            hidden += int((~keep).sum())
            ns.extend(n)
            fit = 1 - c.alpha
            fit_text = f"fit 1 − α = {fmt(fit)}" if math.isfinite(fit) else "no fit"
            # NaN where a point cannot be shown, so that the line breaks there.
            h, = ax.plot(n, np.where(keep, y, np.nan), marker=c.marker, ms=4.5,
                         color=c.colour, lw=1.4, label=f"{c.label} — {fit_text}", zorder=3)
            handles.append(h)
            if math.isfinite(fit) and fit > 0 and len(n):
                ax.plot([n.min(), n.max()], [fit, fit], ls="--", color=c.colour, lw=1.1,
                        alpha=0.85, zorder=2)
        if ns:
            _n_axis(ax, min(ns), max(ns), _n_label(cs))
        ax.set_yscale("log")
        _log_y_plain(ax)
        ax.set_ylabel("1 − α_eff (non-parallelisable fraction)")
        ax.set_title(_scaling_title(scaling, "Non-parallelisable fraction"))
        if hidden:
            ax.text(0.02, 0.02, f"{hidden} point{'s' if hidden > 1 else ''} with "
                    "1 − α_eff ≤ 0 (superlinear) not shown", transform=ax.transAxes,
                    fontsize=7.5, color="0.3")
        proxies = [Line2D([], [], color="0.2", marker="o", ms=4, label="simulated (Végh B1)"),
                   Line2D([], [], color="0.2", ls="--", label="Amdahl fit (constant 1 − α)")]
        _legend_below(ax, handles + proxies, title=common_parts(cs) or None)
    out.save(fig, "nonparallel_fraction")


def _grid(n):
    ncols = 1 if n == 1 else 2 if n <= 4 else 3 if n <= 9 else 4
    return math.ceil(n / ncols), ncols


def _capped(out, curves, figure):
    if len(curves) > MAX_PANELS:
        out.note(f"note: {figure}: {len(curves)} curves, the first {MAX_PANELS} drawn "
                 "(the report's tables have them all)")
        return curves[:MAX_PANELS], len(curves)
    return curves, len(curves)


def _category_axis(ax, ns, unit):
    x = np.arange(len(ns))
    ax.set_xticks(x)
    many = len(ns) > 10
    ax.set_xticklabels([fmt_n(n) for n in ns], rotation=90 if many else 0,
                       fontsize=7 if many else 8)
    pad = max(0, 4 - len(ns)) / 2  # a lone bar stays bar-sized
    ax.set_xlim(-0.6 - pad, len(ns) - 0.4 + pad)
    ax.set_xlabel(f"N ({mpl_text(unit)})")
    ax.grid(axis="x", visible=False)
    return x


def _hide_unused(axes, used):
    for ax in axes.flat[used:]:
        ax.set_visible(False)


def _cap_note(shown, total):
    if shown < total:
        return f"{shown} of {total} curves shown; the report's tables list them all"
    return None


def _panel_title(c):
    return wrap(f"{c.label} — {c.scaling} scaling", 52)


def _breakdown(out, curves, share):
    name = "breakdown_share" if share else "breakdown"
    cs = [c for c in curves if c.rows]
    if not cs:
        return out.note(f"skipped {name}: no finished point")
    cs, total = _capped(out, cs, name)
    nrows, ncols = _grid(len(cs))
    fig, axes = _figure(out.results, nrows, ncols, 5.2 if ncols > 1 else 6.5, 3.7, 0.6)
    for ax, c in zip(axes.flat, cs):
        x = _category_axis(ax, c.data["n"], c.n_unit)
        times = c.data["iteration_time_s"]
        scale = np.where(times > 0, 100 / np.where(times > 0, times, 1), 0) if share else 1
        bottom = np.zeros(c.rows)
        for key, term in BREAKDOWN:
            v = np.nan_to_num(c.data[key]) * scale
            ax.bar(x, v, 0.72, bottom=bottom, color=TERM_COLOURS[term], label=term,
                   edgecolor="white", linewidth=0.4)
            bottom += v
        top = bottom.max() if bottom.size else 1.0
        # The total on each bar: strong-scaling bars shrink as 1/N and would be unreadable.
        rotate = c.rows > 6
        for xi, b, t in zip(x, bottom, times):
            ax.text(xi, b + 0.015 * top, fmt(t), ha="center", va="bottom", fontsize=6.5,
                    rotation=90 if rotate else 0)
        ax.set_ylim(0, top * (1.22 if rotate else 1.1) if top > 0 else 1)
        if share:
            ax.yaxis.set_major_locator(ticker.FixedLocator(range(0, 101, 20)))
            ax.set_ylabel("share of the iteration time (%)")
        else:
            ax.set_ylabel("time per iteration (s)")
        ax.set_title(_panel_title(c), fontsize=9)
    _hide_unused(axes, len(cs))
    handles = [Patch(color=TERM_COLOURS[t], label=t) for t in TERMS]
    what = "shares of the iteration time" if share else "iteration time"
    _figure_legend(fig, handles, f"{what}, averaged over ranks and seeds (the number on each "
                   "bar is the iteration time in s)", note=_cap_note(len(cs), total))
    out.save(fig, name)


def fig_breakdown(out, curves):
    _breakdown(out, curves, share=False)


def fig_breakdown_share(out, curves):
    _breakdown(out, curves, share=True)


def fig_nonparallel_parts(out, curves):
    cs = [c for c in curves if c.rows >= 2]
    if not cs:
        return out.note("skipped nonparallel_parts: no curve has a point beyond its "
                        "reference N")
    cs, total = _capped(out, cs, "nonparallel_parts")
    nrows, ncols = _grid(len(cs))
    fig, axes = _figure(out.results, nrows, ncols, 5.2 if ncols > 1 else 6.5, 3.7, 0.7)
    for ax, c in zip(axes.flat, cs):
        mask = c.beyond_reference()
        ns = c.data["n"][mask]
        totals = 1 - c.data["alpha_eff"][mask]
        x = _category_axis(ax, ns, c.n_unit)
        usable = np.isfinite(totals) & (np.abs(totals) > 1e-12)
        up = np.zeros(len(ns))
        down = np.zeros(len(ns))
        for key, term in NONPAR:
            share = np.where(usable, c.data[key][mask] / np.where(usable, totals, 1) * 100, 0)
            share = np.nan_to_num(share)
            pos, neg = np.clip(share, 0, None), np.clip(share, None, 0)
            ax.bar(x, pos, 0.72, bottom=up, color=TERM_COLOURS[term], edgecolor="white",
                   linewidth=0.4)
            ax.bar(x, neg, 0.72, bottom=down, color=TERM_COLOURS[term], edgecolor="white",
                   linewidth=0.4, hatch="//" if neg.any() else None)
            up += pos
            down += neg
        top = max(100.0, up.max() if up.size else 100.0)
        for xi, t, ok in zip(x, totals, usable):
            ax.text(xi, top * 1.02, fmt(t) if ok else "n/a", ha="center", va="bottom",
                    fontsize=6.5, rotation=90 if len(ns) > 5 else 0)
        ax.set_ylim(min(0.0, down.min() * 1.1 if down.size else 0.0),
                    top * (1.3 if len(ns) > 5 else 1.12))
        ax.yaxis.set_major_locator(ticker.FixedLocator(
            [v for v in range(-400, int(top) + 1, 20 if top <= 200 else 50)]))
        ax.axhline(0, color="0.3", lw=0.6)
        ax.set_ylabel("share of 1 − α_eff (%)")
        ax.set_title(_panel_title(c), fontsize=9)
    _hide_unused(axes, len(cs))
    handles = [Patch(color=TERM_COLOURS[t], label=t) for _, t in NONPAR]
    _figure_legend(fig, handles, "parts of 1 − α_eff, the non-parallelisable fraction "
                   "(its value above each bar; hatched: a negative part)",
                   note=_cap_note(len(cs), total))
    out.save(fig, "nonparallel_parts")


def fig_efficiency_surface(out, curves):
    cs = [c for c in curves if c.rows >= 2]
    if not cs:
        return out.note("skipped efficiency_surface: no curve has a point beyond its "
                        "reference N")
    # alpha_eff is measured against each curve's smallest N (r = N / N_ref); on an absolute N
    # axis a point would sit where E differs from its own. Absolute N when every N_ref is 1.
    relative = any(c.n_reference != 1 for c in cs)
    xs, ys = [], []
    series = []
    for c in cs:
        mask = c.beyond_reference()
        n = c.data["n"][mask] / (c.n_reference if relative else 1)
        y = 1 - c.data["alpha_eff"][mask]
        keep = np.isfinite(y) & (y > 0)
        series.append((c, n, np.where(keep, y, np.nan)))
        xs.extend(n[keep])
        ys.extend(y[keep])
    if not ys:
        return out.note("skipped efficiency_surface: no point has 1 − α_eff > 0")
    x_hi = max(xs) * 4
    y_lo = 10.0 ** (math.floor(math.log10(min(ys))) - 1)
    y_hi = min(1.0, 10.0 ** (math.ceil(math.log10(max(ys))) + 1))
    y_lo, y_hi = max(y_lo, 1e-12), max(y_hi, y_lo * 100)
    ncol = 2 if len(cs) > 3 else 1
    fig, axes = _figure(out.results, 1, 1, 9.0, 6.2 + 0.21 * math.ceil((len(cs) + 1) / ncol))
    ax = axes[0][0]
    gx = np.geomspace(1, x_hi, 240)
    gy = np.geomspace(y_lo, y_hi, 240)
    X, Y = np.meshgrid(gx, gy)
    E = 1.0 / (X * Y + (1.0 - Y))   # (A2) with 1 - alpha = Y
    levels = np.linspace(0, 1, 11)
    cmap = mcolors.ListedColormap(plt.get_cmap("Greys_r")(np.linspace(0.3, 0.97, 10)))
    cf = ax.contourf(X, Y, E, levels=levels, cmap=cmap)
    lines = ax.contour(X, Y, E, levels=[0.1, 0.5, 0.9], colors="0.15",
                       linewidths=[0.6, 1.3, 0.6])
    # Labels near the right edge, where the data (at most a quarter of the range) is not.
    spots = []
    for level in (0.1, 0.5, 0.9):
        x = x_hi / 1.8
        y = (1 / level - 1) / (x - 1)   # (A2) solved for 1 - alpha
        if not y_lo * 2 <= y <= y_hi / 2:
            y = min(max(y, y_lo * 2), y_hi / 2)
            x = 1 + (1 / level - 1) / y
        spots.append((x, y))
    ax.clabel(lines, fmt=lambda v: f"E = {v:g}", fontsize=7.5, manual=spots)
    handles = []
    for c, n, y in series:
        strong = c.scaling == "strong"
        h, = ax.plot(n, y, marker=c.marker, ms=5, color=c.colour, lw=1.5, mec="black",
                     mew=0.5, mfc="white" if strong else c.colour, ls="-." if strong else "-",
                     label=f"{c.label} — {c.scaling}", zorder=3)
        handles.append(h)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(False)
    ax.set_xlabel(_n_label(cs, relative))
    ax.set_ylabel("1 − α (non-parallelisable fraction, log scale)")
    ax.set_title("Végh's efficiency surface E(N, 1 − α) = 1 / (N(1 − α) + α), "
                 "with each curve's (N, 1 − α_eff(N))")
    bar = fig.colorbar(cf, ax=ax, shrink=0.9, pad=0.02)
    bar.set_label("efficiency E (ratio)")
    _legend_below(ax, handles, title=common_parts(cs) or None, ncol=ncol)
    out.save(fig, "efficiency_surface")


def fig_throughput(out, curves):
    cs = [c for c in curves if c.rows]
    panels = _panels(cs, 1)
    if len(cs) < 2 or not panels:
        return out.note("skipped throughput: fewer than two curves with finished points "
                        "(nothing to compare)")
    fig, axes = _line_figure(out, panels, 2)
    for ax, (scaling, group) in zip(axes[0], panels):
        weak = scaling == "weak"
        handles = []
        for c in group:
            n = c.data["n"]
            y = c.data["throughput_samples_per_s" if weak else "iteration_time_s"]
            h, = ax.plot(n, y, marker=c.marker, ms=4.5, color=c.colour, lw=1.4, label=c.label,
                         zorder=3)
            handles.append(h)
            if len(n) >= 2:  # perfect scaling from the reference point
                ideal = y[0] * n / n[0] if weak else y[0] * n[0] / n
                ax.plot(n, ideal, ls=":", color=c.colour, lw=1.2, zorder=2)
        _n_axis(ax, min(c.data["n"].min() for c in group),
                max(c.data["n"].max() for c in group), _n_label(group))
        ax.set_yscale("log")
        _log_y_plain(ax)
        if weak:
            ax.set_ylabel("throughput (samples/s, log scale)")
            ax.set_title("Throughput, weak scaling\n(samples per second over all nodes)")
        else:
            ax.set_ylabel("time per global batch (s, log scale)")
            ax.set_title("Time to solution, strong scaling\n(time of one iteration over the "
                         "fixed global batch)")
        proxies = [Line2D([], [], color="0.2", marker="o", ms=4, label="simulated"),
                   Line2D([], [], color="0.4", ls=":", label="perfect scaling from the "
                          "smallest N")]
        _legend_below(ax, handles + proxies, title=common_parts(group) or None)
    out.save(fig, "throughput")


def fig_ceiling(out, curves):
    cs = [c for c in curves if c.rows >= 2 and not math.isnan(c.ceiling)]
    panels = _panels(cs, 2)
    if len([c for c in curves if c.rows]) < 2 or not panels:
        return out.note("skipped ceiling: fewer than two curves with an Amdahl fit "
                        "(nothing to compare)")
    heights = [max(1.6, 0.42 * len(group) + 1.1) for _, group in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9.0, sum(heights) + 1.6),
                             squeeze=False, layout="constrained",
                             gridspec_kw={"height_ratios": heights})
    fig.suptitle(wrap(_question(out.results), 90), fontsize=11, fontweight="bold")
    for ax, (scaling, group) in zip(axes[:, 0], panels):
        y = np.arange(len(group))[::-1]
        finite = [c.ceiling for c in group if math.isfinite(c.ceiling) and c.ceiling > 0]
        best = []
        for c in group:
            s = c.data["speedup"][np.isfinite(c.data["speedup"]) & (c.data["speedup"] > 0)]
            best.append(float(s.max()) if s.size else math.nan)
        shown = finite + [b for b in best if math.isfinite(b)]
        hi = max(shown + [1.0]) * 3
        lo = min(shown + [1.0]) / 1.5
        for yi, c, b in zip(y, group, best):
            value = c.ceiling if math.isfinite(c.ceiling) else hi
            ax.barh(yi, value - lo, left=lo, height=0.62, color=c.colour, alpha=0.85,
                    hatch=None if c.amdahl_shaped else "//", edgecolor="white", lw=0)
            if math.isfinite(b):
                ax.plot(b, yi, marker="D", color="black", ms=5, zorder=3)
            if math.isfinite(c.ceiling):
                text = f"{fmt(c.ceiling)}×" + ("" if c.amdahl_shaped else " (not Amdahl-shaped)")
                ax.text(value * 1.08, yi, text, va="center", ha="left", fontsize=8)
            else:  # the bar runs off the axis; say why inside it, clear of the marker
                ax.text(lo * 1.15, yi, "∞: no ceiling (α = 1, linear)", va="center",
                        ha="left", fontsize=8, color="white", fontweight="bold")
        ax.set_xscale("log")
        ax.set_xlim(lo, hi * (1.8 if any(math.isfinite(c.ceiling) for c in group) else 1))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
        ax.set_yticks(y)
        ax.set_yticklabels([wrap(c.label, 34) for c in group], fontsize=8)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("speedup over the smallest N (ratio, log scale)")
        ax.set_title(f"{scaling} scaling: Amdahl ceiling 1 / (1 − α) of the fit", fontsize=9)
    handles = [Patch(color="0.5", label="ceiling of the Amdahl fit"),
               Patch(facecolor="0.5", hatch="//", edgecolor="white",
                     label="hatched: not Amdahl-shaped (fit residual ≥ 5 %), indicative"),
               Line2D([], [], color="black", marker="D", ls="", ms=5,
                      label="largest simulated speedup")]
    _figure_legend(fig, handles, ncol=2, height_in=0.5)
    out.save(fig, "ceiling")


FIGURES = (
    ("speedup", fig_speedup, "Speedup",
     "Speedup over each curve's smallest N, with the ideal line and the least-squares "
     "Amdahl fit S = 1 / ((1 − α) + α / r), r = N / N_ref (dashed); the legend gives the "
     "fit's ceiling 1 / (1 − α)."),
    ("efficiency", fig_efficiency, "Efficiency",
     "Efficiency E = S / r; dashed: the fitted E = 1 / (r (1 − α) + α). Below the E = 0.5 "
     "line, doubling N gains less than a third more speed."),
    ("nonparallel_fraction", fig_nonparallel_fraction, "Non-parallelisable fraction",
     "1 − α_eff(N) from the simulated speedup (Végh B1, the Karp–Flatt serial fraction); a "
     "curve that follows Amdahl's law is flat, at the fit's 1 − α (dashed)."),
    ("breakdown", fig_breakdown, "Iteration-time breakdown",
     "Seconds per iteration in compute, copies, communication and synchronisation, averaged "
     "over ranks and seeds; the number on each bar is the iteration time."),
    ("breakdown_share", fig_breakdown_share, "Iteration-time shares",
     "The same breakdown as shares of the iteration time, readable where strong scaling has "
     "made the iterations short."),
    ("nonparallel_parts", fig_nonparallel_parts, "Parts of 1 − α_eff",
     "Each part's share of 1 − α_eff (the parts add up to it): how much communication, "
     "copies, waiting and compute imbalance grow beyond perfect scaling; the value of "
     "1 − α_eff is written above each bar."),
    ("efficiency_surface", fig_efficiency_surface, "Végh's efficiency surface",
     "E(N, 1 − α) = 1 / (N (1 − α) + α) and each curve's simulated (N, 1 − α_eff). Along "
     "the E = 0.5 contour N ≈ 1 / (1 − α): more units than that give at most twice the "
     "payload."),
    ("throughput", fig_throughput, "Throughput and time to solution",
     "Weak scaling: samples per second; strong scaling: time per global batch; dotted: "
     "perfect scaling from the smallest N."),
    ("ceiling", fig_ceiling, "Ceilings",
     "The fitted ceiling 1 / (1 − α) per curve and the largest speedup simulated."),
)


def draw_all(out):
    """Draws every figure; returns False when one failed with an internal error."""
    _style()
    curves = out.results.curves
    if not curves:
        out.note("note: the file has no curves")
    for c in curves:
        if not c.rows:
            out.note(f"note: curve '{c.id}' has no finished point: left out of every figure")
        elif c.rows == 1:
            out.note(f"note: curve '{c.id}' has one node count (N = {fmt_n(c.data['n'][0])}): "
                     "only the breakdown and throughput figures show it")
    ok = True
    for name, draw, _, _ in FIGURES:
        try:
            draw(out, curves)
        except Exception as e:  # a bug, not bad input: say which figure and carry on
            plt.close("all")
            print(f"ceiling: error: internal error while drawing {name}: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            ok = False
    return ok


# ============================================================================================
# Report
# ============================================================================================


class Code(str):
    """Table cell or text shown as code (paths, commands, ids)."""


def _md_text(s):
    """Text that Markdown shows as is: escapes what would start markup, and nothing else, so
    that the file stays readable (α_eff, N_ref and "< 10 %" need no backslash)."""
    s = re.sub(r"([\\`*\[\]|])", r"\\\1", str(s))
    s = re.sub(r"(?<!\w)_|_(?!\w)", r"\\_", s)        # _ that could open or close emphasis
    s = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", s)         # < that could open an HTML tag
    s = re.sub(r"&(?=#?\w+;)", r"\\&", s)               # & that could start an entity
    s = re.sub(r"^(\d+)\.(?=\s)", r"\1\\.", s, flags=re.M)  # an ordered list item
    return re.sub(r"^([#>+-])(?=\s)", r"\\\1", s, flags=re.M)  # a heading, quote, list


def _md_code(s):
    s = str(s).replace("\n", " ")
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _md_cell(v):
    """A table cell: one line (a line break is <br>), | escaped even inside code (GFM)."""
    if isinstance(v, Code):
        return _md_code(v).replace("|", "\\|")
    return "<br>".join(_md_text(line) for line in str(v).split("\n"))


def _md_table(headers, rows, right=()):
    lines = ["| " + " | ".join(_md_text(h) for h in headers) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _html_cell(v, tag="td", right=False):
    body = f"<code>{html.escape(str(v))}</code>" if isinstance(v, Code) else \
        html.escape(str(v)).replace("\n", "<br>")
    cls = ' class="num"' if right else ""
    return f"<{tag}{cls}>{body}</{tag}>"


def _html_table(headers, rows, right=()):
    out = ["<table>", "<thead><tr>" + "".join(_html_cell(h, "th") for h in headers) +
           "</tr></thead>", "<tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(_html_cell(v, right=i in right) for i, v in enumerate(row))
                   + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


class Doc:
    """A report built once and written both as Markdown and as HTML."""

    def __init__(self):
        self.md = []
        self.html = []

    def heading(self, level, text):
        self.md.append(f"{'#' * level} {_md_text(text)}\n")
        self.html.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def para(self, *parts):
        """A paragraph of str (text) and Code parts."""
        self.md.append("".join(_md_code(p) if isinstance(p, Code) else _md_text(p)
                               for p in parts) + "\n")
        self.html.append("<p>" + "".join(
            f"<code>{html.escape(p)}</code>" if isinstance(p, Code) else html.escape(p)
            for p in parts) + "</p>")

    def items(self, rows):
        """A definition-like list of (name, value) where value is str or Code."""
        for name, value in rows:
            v = _md_code(value) if isinstance(value, Code) else _md_text(value)
            self.md.append(f"- **{_md_text(name)}:** {v}")
        self.md.append("")
        self.html.append("<ul>" + "".join(
            f"<li><strong>{html.escape(name)}:</strong> " +
            (f"<code>{html.escape(value)}</code>" if isinstance(value, Code)
             else html.escape(value)) + "</li>" for name, value in rows) + "</ul>")

    def table(self, headers, rows, right=()):
        self.md.append(_md_table(headers, rows, right) + "\n")
        self.html.append(_html_table(headers, rows, right))

    def figure(self, png, title, caption):
        data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
        self.md.append(f"![{_md_text(title)}]({Path(png).name})\n")
        self.md.append(f"*{_md_text(caption)}*\n")
        self.html.append(f'<figure><img alt="{html.escape(title)}" '
                         f'src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")


CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; max-width: 1180px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0 1.4em; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.55em; vertical-align: top; }
th { background: #f0f0f0; text-align: left; } td.num { text-align: right; }
tbody tr:nth-child(even) { background: #fafafa; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; word-break: break-all; }
figure { margin: 1.2em 0 2em; } img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.3em; }
"""


def _measured(v, c):
    if math.isfinite(v):
        return fmt_n(v)
    return f"not reached (largest N {fmt_n(c.data['n'].max())})" if c.rows else "—"


def _fitted(v, short=False):
    if math.isnan(v):
        return "—" if short else "— (no fit: fewer than 2 node counts)"
    return "∞ (linear: α = 1)" if math.isinf(v) else fmt_n(v)


def _key_numbers(c):
    alpha = c.alpha_eff_at_largest_n
    alpha_text = fmt_alpha(alpha)
    if math.isfinite(alpha):
        alpha_text += f" (1 − α_eff = {fmt(1 - alpha)})"
    largest = f" ({fmt_n(c.data['n'].max())})" if c.rows else ""
    ceiling = _fitted(c.ceiling) if math.isnan(c.ceiling) else (
        "∞ (linear: α = 1)" if math.isinf(c.ceiling) else f"{fmt(c.ceiling)}×")
    return [
        ("scaling", c.scaling),
        ("reference N (speedups are against it)", fmt_n(c.n_reference)),
        ("ceiling speedup 1 / (1 − α) (fit)", ceiling),
        ("fitted α (Amdahl)", fmt_alpha(c.alpha)),
        ("N at E = 0.5 (fit)", _fitted(c.n_half_fit)),
        ("N at E = 0.5 (simulated)", _measured(c.n_half_measured, c)),
        ("N beyond which doubling gains < 10 % (fit)", _fitted(c.n_doubling_fit)),
        ("N beyond which doubling gains < 10 % (simulated)", _measured(c.n_doubling_measured,
                                                                      c)),
        (f"α_eff at the largest N{largest}", alpha_text),
        ("dominant term of 1 − α_eff at the largest N", c.dominant_term),
        ("fit residual (RMS of relative speedup error)",
         "—" if math.isnan(c.residual) else f"{fmt(c.residual * 100)} %"),
        ("Amdahl-shaped (residual < 5 %)",
         "—" if math.isnan(c.residual) else "yes" if c.amdahl_shaped else "no"),
    ]


def _per_n_rows(c):
    d = c.data
    rows = []
    for i in range(c.rows):
        ref = d["n"][i] == c.n_reference
        one_minus = "— (reference)" if ref else fmt(1 - d["alpha_eff"][i])
        time = fmt(d["iteration_time_s"][i])
        if d["seeds"][i] > 1 and d["iteration_time_max_s"][i] > d["iteration_time_min_s"][i]:
            time += f" ({fmt(d['iteration_time_min_s'][i])}–{fmt(d['iteration_time_max_s'][i])})"
        rows.append([fmt_n(d["n"][i]), str(int(d["seeds"][i])), time,
                     fmt(d["throughput_samples_per_s"][i]), fmt(d["speedup"][i]),
                     fmt(d["efficiency"][i]), one_minus,
                     fmt(d["compute_s"][i]), fmt(d["copy_s"][i]),
                     fmt(d["communication_s"][i]), fmt(d["synchronisation_s"][i])])
    return rows


PER_N_HEADERS = ["N", "seeds", "time per iteration (s), seed range", "throughput (samples/s)",
                 "speedup", "efficiency", "1 − α_eff", "compute (s)", "copy (s)",
                 "communication (s)", "synchronisation (s)"]

HOW_TO_READ = (
    "Each curve is one platform × workload × variant in weak scaling (the "
    "work per node is fixed, so the speedup is the throughput over the smallest N's) or "
    "strong scaling (the global batch is fixed, so the speedup is the time to solution of "
    "one batch against the smallest N's). From the speedup S at r = N / N_ref the simulated "
    "parallelisable fraction is α_eff = r / (r − 1) · (S − 1) / S; 1 − α_eff is the part of "
    "the work that does not parallelise: communication, copies between host and device "
    "memory, waiting for the slowest rank, compute imbalance. Amdahl's law then bounds the "
    "speedup by the ceiling 1 / (1 − α_eff), however many nodes are added, and the "
    "efficiency E = 1 / (r (1 − α) + α) falls as N grows: at N ≈ 1 / (1 − α) it is one "
    "half, and beyond that doubling N adds little. A curve whose fit residual is small "
    "(Amdahl-shaped) has a constant 1 − α_eff and its ceiling can be trusted; otherwise "
    "1 − α_eff itself changes with N (it grows when communication grows with N) and the "
    "fitted ceiling is only indicative. The model and the figure of merit are János "
    "Végh's: \"How deep the machine learning can be\" (2020).")


def _summary_row(c):
    key = dict(_key_numbers(c))
    ceiling = key["ceiling speedup 1 / (1 − α) (fit)"]
    measured = _fmt_or_dash(c.n_half_measured)
    return [Code(c.id), c.scaling, "—" if ceiling.startswith("—") else ceiling,
            f"{_fitted(c.n_half_fit, short=True)} / {measured}",
            next(v for k, v in key.items() if k.startswith("α_eff at the largest N")),
            c.dominant_term, key["Amdahl-shaped (residual < 5 %)"]]


def _fmt_or_dash(v):
    return fmt_n(v) if math.isfinite(v) else "—"


def write_report(out):
    r = out.results
    a = r.attrs
    doc = Doc()
    title = a["title"] or a["experiment_path"] or Path(r.path).name
    doc.heading(1, title)
    if a["question"]:
        doc.para(a["question"])
    doc.items([
        ("experiment", Code(a["experiment_path"])),
        ("result file", Code(r.path)),
        ("sweep command line", Code(a["command_line"])),
        ("ceiling version", a["tool_version"]),
        ("SimGrid version", a["simgrid_version"]),
        ("points finished", f"{a['points_done']:,} of {a['points_total']:,} "
                            f"({int((r.points['status'] == 'failed').sum()):,} failed)"),
        ("input digest", Code(a["digest"])),
    ])
    doc.heading(2, "How to read this")
    doc.para(HOW_TO_READ)

    doc.heading(2, "Summary")
    if r.curves:
        doc.table(["curve", "scaling", "ceiling (fit)", "N at E = 0.5 (fit / simulated)",
                   "α_eff at largest N", "dominant term", "Amdahl-shaped"],
                  [_summary_row(c) for c in r.curves])
        doc.para("A dash: no fit (fewer than two finished node counts) or, for a simulated N, not "
                 "reached within the node counts simulated.")
    else:
        doc.para("The file has no curves.")

    doc.heading(2, "Figures")
    shown = {name for name, _ in out.figures}
    for name, _, heading, caption in FIGURES:
        if name in shown:
            doc.heading(3, heading)
            doc.figure(dict(out.figures)[name], heading, caption)
    skipped = [n for n in out.notes if n.startswith("skipped")]
    if skipped:
        doc.para("Not drawn: " + "; ".join(s[len("skipped "):] for s in skipped) + ".")

    doc.heading(2, "Curves")
    for c in r.curves:
        doc.heading(3, c.id)
        doc.table(["quantity", "value"], _key_numbers(c))
        if c.rows:
            doc.table(PER_N_HEADERS, _per_n_rows(c), right=set(range(len(PER_N_HEADERS))))
        else:
            doc.para("No finished point.")

    doc.heading(2, "Failed points")
    p = r.points
    failed = [i for i in range(len(p["status"])) if p["status"][i] != "ok"]
    if failed:
        doc.table(["point", "curve", "N", "seed", "error", "command"],
                  [[str(int(p["index"][i])), Code(r.curves[int(p["curve"][i])].id),
                    fmt_n(float(p["nodes"][i])), str(int(p["seed"][i])),
                    p["error"][i] or f"status '{p['status'][i]}'", Code(p["command"][i])]
                   for i in failed])
    else:
        doc.para("None.")

    if r.inputs:
        doc.heading(2, "Inputs")
        doc.table(["kind", "path"], [[k, Code(path)] for k, path in r.inputs])

    md_path = out.dir / "report.md"
    md_path.write_text("\n".join(doc.md).rstrip() + "\n", encoding="utf-8")
    say(f"wrote {md_path}")
    html_path = out.dir / "report.html"
    html_path.write_text(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n" +
        "\n".join(doc.html) + "\n</body>\n</html>\n", encoding="utf-8")
    say(f"wrote {html_path}")


# ============================================================================================
# Command line
# ============================================================================================


def default_dir(results, suffix):
    p = Path(results)
    stem = p.name[:-len(p.suffix)] if p.suffix.lower() in (".h5", ".hdf5", ".hdf") else p.name
    return p.parent / f"{stem}-{suffix}"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="ceiling_plot.py",
        description="Figures (PNG + SVG) and a report (Markdown + self-contained HTML) from a "
                    "ceiling result store (HDF5, format_version 1). DIR defaults to RESULTS "
                    "without its .h5 extension plus '-plots' (plot) or '-report' (report), "
                    "beside it. Prints each file written as 'wrote PATH' and what it left out "
                    "as 'skipped ...' or 'note: ...'; exit status 2 with 'ceiling: error: "
                    "PATH: ...' for a bad results file or output directory.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{plot,report}")
    for name, suffix, text in (
            ("plot", "plots", "write every figure as DIR/NAME.png and DIR/NAME.svg"),
            ("report", "report", "write the figures plus DIR/report.md and DIR/report.html")):
        p = sub.add_parser(name, help=text, description=text + ".")
        p.add_argument("results", metavar="RESULTS.h5", help="the file `ceiling sweep` wrote")
        p.add_argument("-o", "--output", metavar="DIR",
                       help=f"output directory, created if needed (default: RESULTS without "
                            f"its .h5 extension plus '-{suffix}', beside it: "
                            f"out/x.h5 -> out/x-{suffix})")
        p.set_defaults(suffix=suffix)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        results = load(args.results)
    except BadFile as e:
        print(f"ceiling: error: {args.results}: {e}", file=sys.stderr)
        return 2
    directory = Path(args.output) if args.output else default_dir(args.results, args.suffix)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"ceiling: error: {directory}: cannot create the output directory: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    out = Output(directory, results)
    try:
        ok = draw_all(out)
        if args.command == "report":
            write_report(out)
    except OSError as e:  # the directory is not writable, the disk is full
        print(f"ceiling: error: {getattr(e, 'filename', None) or directory}: cannot write: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
