"""Line figures against N: speedup, efficiency, 1 - alpha_eff, throughput."""

import math

import numpy as np
from matplotlib.lines import Line2D

from .axes import log_y_plain, n_axis, n_label, scaling_panels
from .facets import LineGrid, fit_proxy
from .text import drift_text, fmt, fmt_n, no_ceiling_in_sight


def _amdahl_speedup(r, alpha):
    return 1.0 / ((1.0 - alpha) + alpha / r)


def _ceiling_text(c):
    if no_ceiling_in_sight(c):
        return f"no ceiling in sight ({drift_text(c)})"
    if math.isnan(c.ceiling):
        return "no fit"
    if math.isinf(c.ceiling):
        return "no ceiling (linear)"
    if c.alpha <= 0:
        return "no speedup (α ≤ 0)"
    return f"ceiling {fmt(c.ceiling)}×" + ("" if c.amdahl_shaped else " (not Amdahl-shaped)")


def _line_proxies(grid, with_fit=True, ideal="ideal", fit="Amdahl fit",
                  simulated="simulated"):
    out = [Line2D([], [], color="0.2", marker="o", ms=4, label=simulated)]
    if with_fit:
        out.append(fit_proxy(fit) if grid.faceted else
                   Line2D([], [], color="0.2", ls="--", label=fit))
    if ideal:
        out.append(Line2D([], [], color="0.5", ls=":", lw=1.5, label=ideal))
    return out


def _swept(curves):
    """The node counts the curves swept."""
    return [float(n) for c in curves for n in c.data["n"]]


def _n_limits(cell):
    return (min(c.data["n"].min() for c in cell.group),
            max(c.data["n"].max() for c in cell.group))


def fig_speedup(out, curves):
    panels = scaling_panels(curves, 2)
    if not panels:
        return out.note("skipped speedup: no curve has two finished node counts")
    grid = LineGrid(out, panels, 3)
    for cell in grid.cells:
        ax, cs = cell.ax, cell.curves
        n_lo, n_hi = _n_limits(cell)
        handles = []
        for ref in sorted({c.n_reference for c in cs}):
            n = np.geomspace(ref, n_hi, 50)
            ax.plot(n, n / ref, ls=":", color="0.5", lw=1.5, zorder=1)
        for c in cs:
            n, s = c.data["n"], c.data["speedup"]
            h, = ax.plot(n, s, **grid.line(c), label=f"{c.label} — {_ceiling_text(c)}",
                         zorder=3)
            handles.append(h)
            if math.isfinite(c.alpha):
                x = np.geomspace(c.n_reference, n.max(), 200)
                ax.plot(x, _amdahl_speedup(x / c.n_reference, c.alpha), **grid.fit(c),
                        zorder=2)
        grid.note_coinciding(cell)
        n_axis(ax, n_lo, n_hi, n_label(cs), _swept(cell.group))
        grid.labels(cell, "speedup S over the smallest N (ratio, log scale)",
                    "speedup S (ratio, log scale)")
        log_y_plain(ax)
        ax.set_title(cell.title("Speedup"))
        grid.legend(cell, handles, _line_proxies(grid, ideal="ideal S = N / N_ref"))
    grid.finish(_line_proxies(grid, ideal="ideal S = N / N_ref"), "speedup")


def fig_efficiency(out, curves):
    drawable = [c for c in curves if c.rows >= 2]
    panels = scaling_panels(drawable, 2)
    if not panels:
        return out.note("skipped efficiency: no curve has two finished node counts")
    grid = LineGrid(out, panels, 4, lines_per_curve=2)  # (a curve's entry on two lines: below)
    half = Line2D([], [], color="0.35", lw=1 if not grid.faceted else 0.8,
                  ls=(0, (4, 2)) if not grid.faceted else "-", label="E = 0.5")
    for cell in grid.cells:
        ax, cs = cell.ax, cell.curves
        n_lo, n_hi = _n_limits(cell)
        handles = []
        top = 1.0
        for c in cs:
            n, e = c.data["n"], c.data["efficiency"]
            finite = e[np.isfinite(e)]
            top = max(top, finite.max() if finite.size else 1.0)
            measured = (fmt_n(c.n_half_measured) if math.isfinite(c.n_half_measured)
                        else "not reached")
            fit = "fit" if c.amdahl_shaped else "fit, not Amdahl-shaped"
            # (on two lines: one would make the legend, and so the figure, wider than the plot)
            label = (f"{c.label}\nE = 0.5 at N ≈ {fmt_n(c.n_half_fit)} ({fit}), {measured} "
                     "(simulated)")
            if no_ceiling_in_sight(c):  # (the fit's N would grow with the largest N, as its ceiling)
                label = f"{c.label}\nE = 0.5 at N: {measured} (simulated); no fitted N ({drift_text(c)})"
            h, = ax.plot(n, e, **grid.line(c), label=label, zorder=3)
            handles.append(h)
            if math.isfinite(c.alpha):
                x = np.geomspace(c.n_reference, n.max(), 200)
                r = x / c.n_reference
                ax.plot(x, _amdahl_speedup(r, c.alpha) / r, **grid.fit(c), zorder=2)
        # In a grid the variants are dashed: E = 0.5 is a thin solid line there.
        ax.axhline(0.5, color="0.35", lw=1 if not grid.faceted else 0.8,
                   ls=(0, (4, 2)) if not grid.faceted else "-", zorder=1)
        ax.axhline(1.0, color="0.5", lw=1.5, ls=":", zorder=1)
        grid.note_coinciding(cell)
        n_axis(ax, n_lo, n_hi, n_label(cs), _swept(cell.group))
        ax.set_ylim(0, top * 1.06)
        grid.labels(cell, "efficiency E = S / (N / N_ref) (ratio)", "efficiency E (ratio)")
        ax.set_title(cell.title("Efficiency"))
        grid.legend(cell, handles, _line_proxies(grid, ideal="ideal E = 1") + [half])
    grid.finish(_line_proxies(grid, ideal="ideal E = 1") + [half], "efficiency")


def fig_nonparallel_fraction(out, curves):
    drawable = [c for c in curves if c.rows >= 2]
    panels = scaling_panels(drawable, 2)
    if not panels:
        return out.note("skipped nonparallel_fraction: no curve has a point beyond its "
                        "reference N")
    grid = LineGrid(out, panels, 2)
    proxies = _line_proxies(grid, ideal=None, simulated="simulated (Végh B1)",
                            fit="Amdahl fit (constant 1 − α)")
    for cell in grid.cells:
        ax, cs = cell.ax, cell.curves
        handles = []
        hidden = 0
        ns = []
        for c in cell.group:
            ns.extend(c.data["n"][c.beyond_reference()])
        for c in cs:
            mask = c.beyond_reference()
            n = c.data["n"][mask]
            y = 1 - c.data["alpha_eff"][mask]
            keep = np.isfinite(y) & (y > 0)
            hidden += int((~keep).sum())
            fit = 1 - c.alpha
            fit_text = f"fit 1 − α = {fmt(fit)}" if math.isfinite(fit) else "no fit"
            # How it goes with N over the upper half of the sweep: flat on Amdahl's curve.
            if math.isfinite(c.alpha_eff_drift):
                fit_text += f"; {drift_text(c)}" + (" (no ceiling in sight)" if no_ceiling_in_sight(c) else "")
            # NaN where a point cannot be shown, so that the line breaks there.
            h, = ax.plot(n, np.where(keep, y, np.nan), **grid.line(c),
                         label=f"{c.label} — {fit_text}", zorder=3)
            handles.append(h)
            if math.isfinite(fit) and fit > 0 and len(n):
                ax.plot([n.min(), n.max()], [fit, fit], **grid.fit(c), zorder=2)
        if ns:
            n_axis(ax, min(ns), max(ns), n_label(cs), ns)
        ax.set_yscale("log")
        log_y_plain(ax)
        grid.labels(cell, "1 − α_eff over N ref (non-parallelisable fraction, log scale)", "1 − α_eff (log scale)")
        ax.set_title(cell.title("Non-parallelisable fraction"))
        if hidden:
            ax.text(0.02, 0.02, f"{hidden} point{'s' if hidden > 1 else ''} with "
                    "1 − α_eff ≤ 0 (linear or superlinear) not shown", transform=ax.transAxes,
                    fontsize=7.5, color="0.3")
        grid.legend(cell, handles, proxies)
    grid.finish(proxies, "nonparallel_fraction")


def fig_throughput(out, curves):
    cs = [c for c in curves if c.rows]
    panels = scaling_panels(cs, 1)
    if len(cs) < 2 or not panels:
        return out.note("skipped throughput: fewer than two curves with finished points "
                        "(nothing to compare)")
    grid = LineGrid(out, panels, 2)
    ideal = ("perfect scaling from the best point at the smallest N" if grid.faceted
             else "perfect scaling from the smallest N")
    proxies = [Line2D([], [], color="0.2", marker="o", ms=4, label="simulated"),
               Line2D([], [], color="0.5", ls=":", lw=1.5, label=ideal) if grid.faceted else
               Line2D([], [], color="0.4", ls=":", label=ideal)]
    for cell in grid.cells:
        ax, group = cell.ax, cell.curves
        weak = cell.scaling == "weak"
        key = "throughput_samples_per_s" if weak else "iteration_time_s"
        handles = []
        for c in group:
            n = c.data["n"]
            y = c.data[key]
            h, = ax.plot(n, y, **grid.line(c), label=c.label, zorder=3)
            handles.append(h)
            if len(n) >= 2 and not grid.faceted:  # perfect scaling from the reference point
                ideal = y[0] * n / n[0] if weak else y[0] * n[0] / n
                ax.plot(n, ideal, ls=":", color=c.colour, lw=1.2, zorder=2)
        n_lo, n_hi = _n_limits(cell)
        if grid.faceted:  # one ideal line per panel: from the best point at the smallest N
            first = [(c.data["n"][0], c.data[key][0]) for c in group]
            n0 = min(n for n, _ in first)
            y0 = [y for n, y in first if n == n0 and math.isfinite(y) and y > 0]
            if y0:
                n = np.geomspace(n0, n_hi, 50)
                best = max(y0) if weak else min(y0)
                ax.plot(n, best * n / n0 if weak else best * n0 / n, ls=":", color="0.5",
                        lw=1.5, zorder=1)
        n_axis(ax, n_lo, n_hi, n_label(group), _swept(group))
        ax.set_yscale("log")
        log_y_plain(ax)
        if weak:
            grid.labels(cell, "throughput (samples/s, log scale)", "samples/s (log scale)",
                        every_column=True)
            ax.set_title(cell.title("Throughput", "(samples per second over all nodes)")
                         if grid.faceted else
                         "Throughput, weak scaling\n(samples per second over all nodes)")
        else:
            grid.labels(cell, "time per global batch (s, log scale)", "s per batch (log scale)",
                        every_column=True)
            ax.set_title(cell.title("Time to solution", "(time of one iteration over the "
                                    "fixed global batch)") if grid.faceted else
                         "Time to solution, strong scaling\n(time of one iteration over the "
                         "fixed global batch)")
        grid.legend(cell, handles, proxies)
    grid.finish(proxies, "throughput")
