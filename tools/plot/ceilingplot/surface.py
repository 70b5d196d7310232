"""Végh's efficiency surface E(N, 1 - alpha) with every curve's points on it."""

import math

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import colors as mcolors
from matplotlib import ticker
from matplotlib.lines import Line2D

from .axes import figure, legend_below, n_label, scaling_panels
from .facets import Looks, columns_legend, legend_height, many, unique
from .style import common_parts
from .text import mpl_text, plain_tick

TITLE = ("Végh's efficiency surface E(r, 1 − α) = 1 / (r(1 − α) + α), r = N / N_ref, "
         "with each curve's (r, 1 − α_eff(r))")


def _surface(ax, x_hi, y_lo, y_hi):
    """The filled contours of E, the E = 0.1, 0.5, 0.9 lines and their labels; returns the
    filled contour set (for the colour bar)."""
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
        # A line that enters the view only at its right edge, or not at all, gets no label: its
        # spot would go to the nearest other line, which then had a second label cut by the edge.
        if x <= x_hi / 1.3:
            spots.append((x, y))
    # (on a light box of their own, over the whole line: cutting the line under a label goes
    # wrong on log axes, where it removed whole stretches of the E = 0.5 and 0.9 lines, and the
    # darkest fills would hide dark text)
    for label in ax.clabel(lines, fmt=lambda v: f"E = {v:g}", fontsize=7.5, manual=spots, inline=False):
        label.set_bbox({"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.9})
        label.set_zorder(5)
    return cf


def _axes(ax, x_hi, y_lo, y_hi):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, x_hi)
    ax.set_ylim(y_lo, y_hi)
    if x_hi < 30:  # under 1.5 decades: label 2 and 5 too, or the axis has one label
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(plain_tick))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(False)


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
    if max(ys) > y_hi / 1.5:  # 1 - alpha_eff near or above 1 (no speedup): E's formula holds there too
        y_hi = 10.0 ** math.ceil(math.log10(max(ys) * 1.5))
    y_lo, y_hi = max(y_lo, 1e-12), max(y_hi, y_lo * 100)
    if many(scaling_panels(cs, 2)):
        return _faceted(out, cs, series, relative, (x_hi, y_lo, y_hi))
    ncol = 2 if len(cs) > 3 else 1
    fig, axes = figure(out.results, 1, 1, 9.0, 6.2 + 0.21 * math.ceil((len(cs) + 1) / ncol))
    ax = axes[0][0]
    cf = _surface(ax, x_hi, y_lo, y_hi)
    handles = []
    for c, n, y in series:
        strong = c.scaling == "strong"
        h, = ax.plot(n, y, marker=c.marker, ms=5, color=c.colour, lw=1.5, mec="black",
                     mew=0.5, mfc="white" if strong else c.colour, ls="-." if strong else "-",
                     label=f"{c.label} — {c.scaling}", zorder=3)
        handles.append(h)
    _axes(ax, x_hi, y_lo, y_hi)
    ax.set_xlabel(n_label(cs, relative))
    ax.set_ylabel("1 − α (non-parallelisable fraction, log scale)")
    ax.set_title(TITLE)
    bar = fig.colorbar(cf, ax=ax, shrink=0.9, pad=0.02)
    bar.set_label("efficiency E (ratio)")
    added = legend_below(ax, handles, title=common_parts(cs) or None, ncol=ncol, width_in=9.0)
    fig.set_figheight(fig.get_figheight() + 0.21 * added)
    out.save(fig, "efficiency_surface")


def _faceted(out, cs, series, relative, limits):
    """Many curves: a panel per workload (rows) and scaling mode (columns), the same surface
    in each, colour = platform and marker = variant as in the line figures."""
    looks = Looks(out.results.curves)
    workloads = unique(c.workload for c in cs)
    scalings = [s for s in ("weak", "strong") if any(c.scaling == s for c in cs)]
    fig, axes = figure(out.results, len(workloads), len(scalings), 6.0, 3.9,
                       extra_h=legend_height(max(looks.legend_entries(cs), 2)),
                       subtitle=TITLE)
    cf = None
    for row, w in enumerate(workloads):
        for col, s in enumerate(scalings):
            ax = axes[row][col]
            mine = [(c, n, y) for c, n, y in series if c.workload == w and c.scaling == s]
            if not mine:
                ax.set_visible(False)
                continue
            cf = _surface(ax, *limits)
            for c, n, y in mine:
                ax.plot(n, y, **looks.line(c), zorder=3)
            _axes(ax, *limits)
            ax.set_title(f"{mpl_text(w)}, {s} scaling")
            if row == len(workloads) - 1:
                ax.set_xlabel(n_label(cs, relative))
            if col == 0:
                ax.set_ylabel("1 − α (log scale)")
    bar = fig.colorbar(cf, ax=axes, shrink=0.6, pad=0.01, aspect=40)
    bar.set_label("efficiency E (ratio)")
    columns_legend(fig, looks.legend_columns(cs) + [
        ("lines", [Line2D([], [], color="0.2", marker="o", ms=4,
                          label="simulated (N, 1 − α_eff)"),
                   Line2D([], [], color="0.15", lw=1.3, label="E = 0.5 (0.1 and 0.9 thin)")])])
    out.save(fig, "efficiency_surface")
